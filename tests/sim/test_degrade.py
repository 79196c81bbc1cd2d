"""The camera degradation set: deterministic under a seed, shape-keeping, and each doing its job."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from sim.synth import degrade
from sim.synth.degrade import DEGRADATIONS, apply, apply_chain, random_chain
from sim.training.evaluate import ReadTally
from vision.cards import CARD_INDEX


def _picture(h: int = 64, w: int = 80) -> np.ndarray:
    """A small BGR picture with flat areas, edges, colour and mid-tones for every effect to bite on."""
    rng = np.random.default_rng(123)
    img = np.full((h, w, 3), (40, 90, 160), np.uint8)
    cv2.rectangle(img, (10, 8), (45, 50), (235, 235, 240), -1)
    cv2.putText(img, "7", (18, 42), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (20, 20, 20), 2)
    cv2.circle(img, (60, 30), 9, (30, 30, 200), -1)
    return np.clip(img.astype(np.int16) + rng.integers(-6, 7, img.shape), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("name", list(DEGRADATIONS))
def test_same_seed_gives_byte_identical_output_and_other_seeds_differ(name):
    image = _picture()
    a = apply(image, name, np.random.default_rng(5), 0.6)
    b = apply(image, name, np.random.default_rng(5), 0.6)
    assert a.tobytes() == b.tobytes()
    others = [apply(image, name, np.random.default_rng(s), 0.6) for s in (6, 7, 8)]
    assert any(o.tobytes() != a.tobytes() for o in others)


@pytest.mark.parametrize("name", list(DEGRADATIONS))
def test_each_degradation_changes_the_image_and_keeps_shape_and_dtype(name):
    image = _picture()
    out = apply(image, name, np.random.default_rng(0), 0.5)
    assert out.shape == image.shape and out.dtype == image.dtype
    assert np.abs(out.astype(np.int16) - image).max() > 0
    floats = image.astype(np.float32)
    out = apply(floats, name, np.random.default_rng(0), 0.5)
    assert out.shape == floats.shape and out.dtype == np.float32
    assert 0 <= out.min() and out.max() <= 255


@pytest.mark.parametrize("name", list(DEGRADATIONS))
def test_stronger_means_further_from_the_original(name):
    image = _picture()

    def distance(strength: float) -> float:
        # Averaged over seeds: a random direction (over or under exposure, warm or cool) or
        # position (the glare) can make one draw milder than another.
        return float(np.mean([np.abs(apply(image, name, np.random.default_rng(s), strength).astype(np.float32)
                                     - image).mean() for s in range(6)]))

    assert distance(1.0) > distance(0.0)


@pytest.mark.parametrize("name", list(DEGRADATIONS))
@pytest.mark.parametrize("shape", [(1, 1, 3), (1, 1), (1, 1, 1), (2, 3), (5, 7, 1), (1, 9, 3), (9, 1, 3)])
def test_nothing_crashes_on_tiny_or_grey_images(name, shape):
    image = np.random.default_rng(1).integers(0, 256, shape).astype(np.uint8)
    out = apply(image, name, np.random.default_rng(2), 1.0)
    assert out.shape == image.shape and out.dtype == np.uint8


def test_grey_bgr_picture_through_everything_stays_a_picture():
    grey = cv2.cvtColor(cv2.cvtColor(_picture(), cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    for name in DEGRADATIONS:
        out = apply(grey, name, np.random.default_rng(3), 1.0)
        assert out.shape == grey.shape and out.dtype == np.uint8


def _colour_line() -> np.ndarray:
    """Mid grey with a one-pixel saturated red line down an odd column (not on a 2x2 block's edge)."""
    image = np.full((32, 32, 3), 128, np.uint8)
    image[:, 13] = (0, 0, 255)
    return image


def _chroma(image: np.ndarray) -> np.ndarray:
    """Distance of each pixel's chroma (Cr, Cb) from neutral."""
    ycc = cv2.cvtColor(image, cv2.COLOR_BGR2YCrCb).astype(np.float32)
    return np.hypot(ycc[..., 1] - 128, ycc[..., 2] - 128)


def test_jpeg_subsamples_the_chroma_of_a_one_pixel_colour_line():
    image = _colour_line()
    out = apply(image, "jpeg", np.random.default_rng(0), 0.0)  # the best quality: quantisation barely spreads
    chroma = _chroma(out)[8:24].mean(axis=0)
    # 4:2:0: the line shares its chroma sample with its neighbour in the same 2x2 block, which
    # turns as coloured as the line itself, and the line keeps well under its own saturation.
    assert chroma[12] > 0.35 * _chroma(image)[0, 13]
    assert chroma[13] < 0.75 * _chroma(image)[0, 13]
    assert chroma[20] < 8  # far from the line stays grey


def test_jpeg_without_subsampling_keeps_the_line_sharper_than_with_it():
    image = _colour_line()
    full = cv2.imdecode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])[1], cv2.IMREAD_COLOR)
    if hasattr(cv2, "IMWRITE_JPEG_SAMPLING_FACTOR"):
        full = cv2.imdecode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85, cv2.IMWRITE_JPEG_SAMPLING_FACTOR,
                                                         cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444])[1], cv2.IMREAD_COLOR)
    ours = degrade.encode_jpeg(image, 85)
    assert _chroma(ours)[8:24, 13].mean() < _chroma(full)[8:24, 13].mean()


def test_hand_made_chroma_subsampling_spreads_the_line_over_its_block_and_keeps_luma():
    image = _colour_line()
    out = degrade.subsample_chroma(image)
    chroma = _chroma(out)[8:24].mean(axis=0)
    assert chroma[12] > 0.3 * _chroma(image)[0, 13] and chroma[13] < 0.8 * _chroma(image)[0, 13]
    luma = cv2.cvtColor(out, cv2.COLOR_BGR2YCrCb)[..., 0].astype(int)
    assert abs(luma[16, 13] - cv2.cvtColor(image, cv2.COLOR_BGR2YCrCb)[16, 13, 0]) <= 12
    assert degrade.subsample_chroma(np.zeros((1, 1, 3), np.uint8)).shape == (1, 1, 3)
    assert degrade.subsample_chroma(np.zeros((3, 5, 3), np.uint8)).shape == (3, 5, 3)


def test_jpeg_quality_stays_in_50_to_85():
    image = _picture()
    # The mildest JPEG is closer to the original than the harshest, and neither is lossless.
    mild = apply(image, "jpeg", np.random.default_rng(0), 0.0).astype(np.float32)
    harsh = apply(image, "jpeg", np.random.default_rng(0), 1.0).astype(np.float32)
    assert 0 < np.abs(mild - image).mean() < np.abs(harsh - image).mean()


def test_white_balance_shifts_the_colour_of_a_white_card_and_leaves_grey_images_alone():
    white = np.full((8, 8, 3), 200, np.uint8)
    out = apply(white, "white_balance", np.random.default_rng(0), 1.0).astype(int)
    assert abs(out[0, 0, 0] - out[0, 0, 2]) > 20
    grey = np.full((8, 8), 200, np.uint8)
    assert np.array_equal(apply(grey, "white_balance", np.random.default_rng(0), 1.0), grey)


def test_glare_only_brightens():
    image = _picture()
    out = apply(image, "glare", np.random.default_rng(0), 1.0)
    assert (out.astype(int) >= image.astype(int)).all() and out.max() > image.max() - 1
    assert (out.astype(int) - image).max() > 60


def test_low_light_noise_grows_with_strength():
    flat = np.full((64, 64, 3), 120, np.uint8)
    weak = apply(flat, "low_light", np.random.default_rng(0), 0.0).astype(np.float32).std()
    strong = apply(flat, "low_light", np.random.default_rng(0), 1.0).astype(np.float32).std()
    assert 0 < weak < strong


def test_bad_input_gets_a_clear_error():
    image = _picture()
    with pytest.raises(ValueError, match="unknown degradation"):
        apply(image, "fisheye", np.random.default_rng(0))
    with pytest.raises(ValueError, match="strength"):
        apply(image, "jpeg", np.random.default_rng(0), 1.5)
    with pytest.raises(ValueError, match="shape"):
        apply(np.zeros((0, 4, 3), np.uint8), "jpeg", np.random.default_rng(0))
    with pytest.raises(ValueError, match="shape"):
        apply(np.zeros((4, 4, 2), np.uint8), "jpeg", np.random.default_rng(0))
    with pytest.raises(ValueError, match="numpy array"):
        apply([[1, 2]], "jpeg", np.random.default_rng(0))


def test_none_is_an_untouched_copy():
    image = _picture()
    out = apply(image, "none", np.random.default_rng(0))
    assert out is not image and np.array_equal(out, image)


def test_random_chain_is_deterministic_ordered_and_applies():
    chains = [random_chain(np.random.default_rng(s)) for s in range(40)]
    assert chains[3] == random_chain(np.random.default_rng(3))
    assert len({tuple(c) for c in chains}) > 20
    order = list(DEGRADATIONS)
    for chain in chains:
        names = [n for n, _ in chain]
        assert names == sorted(names, key=order.index)
        assert not {"defocus", "motion_blur"} <= set(names)
        assert all(0 <= s <= 1 for _, s in chain)
    chain = next(c for c in chains if len(c) >= 2)
    image = _picture()
    a = apply_chain(image, chain, np.random.default_rng(9))
    assert a.tobytes() == apply_chain(image, chain, np.random.default_rng(9)).tobytes()
    assert a.shape == image.shape and not np.array_equal(a, image)


def test_read_tally_counts_suit_confusions_on_matched_corners_only():
    truth = [[0, 0, 10, 20], [20, 0, 30, 20], [40, 0, 50, 20], [60, 0, 70, 20]]
    cards = [CARD_INDEX[c] for c in ("7c", "Kc", "5h", "9s")]
    preds = [[0, 0, 10, 20], [20, 0, 30, 20], [40, 0, 50, 20], [100, 0, 110, 20]]
    reads = [CARD_INDEX[c] for c in ("7s", "Kc", "5d", "9c")]  # the last one lies on no corner
    tally = ReadTally()
    tally.add(preds, reads, [0.9, 0.8, 0.7, 0.9], truth, cards, conf=0.5)
    assert tally.n_true == 4 and tally.n_found == 3
    assert tally.suit_rate("c", "s") == {"count": 1, "of": 2, "rate": 0.5}
    assert tally.suit_rate("h", "d")["rate"] == 1.0
    assert np.isnan(tally.suit_rate("s", "c")["rate"])  # the 9s was never found
    assert tally.rank_right() == 1.0 and tally.card_right() == pytest.approx(1 / 3)
    assert tally.suit_table()["c"] == {"s": 1, "h": 0, "d": 0, "c": 1, "joker": 0}


def test_read_tally_drops_reads_under_the_threshold_and_reads_jokers_as_their_own_suit():
    tally = ReadTally()
    tally.add([[0, 0, 10, 20], [20, 0, 30, 20]], [CARD_INDEX["8s"], CARD_INDEX["BJ"]], [0.1, 0.9],
              [[0, 0, 10, 20], [20, 0, 30, 20]], [CARD_INDEX["8c"], CARD_INDEX["RJ"]], conf=0.17)
    assert tally.n_found == 1 and tally.found() == 0.5
    assert tally.suit_rate("c", "s")["of"] == 0
    assert tally.suit_table()["joker"]["joker"] == 1 and tally.rank_right() == 0.0
