"""A second look: an image whose indices come out small at the finder's input is looked at
again at a larger size, and one enlarged so much that they come out large is looked at again
nearer its own pixels (``CardDetector.zoom_size``); the closer look reads more of its cards."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sim.synth import decks, scene
from sim.training.evaluate import match
from vision.cards import CARD_INDEX
from vision.detector import DEFAULT_FINDER, DEFAULT_READER, CardDetector
from vision.settings import PHOTO, TRACKER


@pytest.fixture(scope="module")
def detector():
    return CardDetector(DEFAULT_FINDER, DEFAULT_READER)


def _boxes(side: float, n: int = 5, score: float = 0.9):
    boxes = np.array([[10 + 40 * i, 10, 10 + 40 * i + side * 0.7, 10 + side] for i in range(n)], np.float32)
    return boxes, np.full(n, score, np.float32)


def test_an_image_no_larger_than_the_input_where_nothing_sure_was_found_gets_one_look(detector):
    # an empty table in a camera zone: no closer look on every frame
    unsure = _boxes(8, score=0.15)
    empty = np.zeros((0, 4), np.float32), np.zeros(0, np.float32)
    for found in (unsure, empty):
        assert detector.zoom_size((640, 640), (640, 640), *found) is None
        assert detector.zoom_size((360, 640), (384, 640), *found) is None


def test_small_indices_in_a_small_image_are_looked_at_enlarged_at_most_zoom_up_times(detector):
    boxes, scores = _boxes(12)  # 12 px at 640: 30 px would need 2.5 times
    assert detector.zoom_size((640, 640), (640, 640), boxes, scores) == (960, 960)
    assert 960 == 640 * PHOTO.zoom_up
    h, w = detector.zoom_size((360, 640), (384, 640), boxes, scores)
    assert w == 960 and h == 544  # the frame's own shape, padded to 32
    boxes, scores = _boxes(18)  # 18 px: 1.67 times would bring them to 30 px; the cap binds
    assert detector.zoom_size((640, 640), (640, 640), boxes, scores) == (960, 960)


def test_large_indices_in_an_enlarged_small_image_are_looked_at_nearer_its_own_pixels(detector):
    # a 416 px image goes in at 640 (1.54 times): indices of 35 px come out 54 px
    boxes, scores = _boxes(35)
    assert 35 * 640 / 416 > PHOTO.zoom_above
    assert detector.zoom_size((416, 416), (640, 640), boxes, scores) == (416, 416)
    boxes, scores = _boxes(24)  # 37 px at the input: one look
    assert detector.zoom_size((416, 416), (640, 640), boxes, scores) is None


def test_a_farther_look_never_shrinks_an_image_under_its_own_pixels(detector):
    # a 700 px camera zone at 640 with 60 px indices (55 px at the input): its own 700 px is
    # less than a worthwhile change from 640, so one look
    boxes, scores = _boxes(60)
    assert detector.zoom_size((700, 700), (640, 640), boxes, scores) is None
    boxes, scores = _boxes(200)  # far too large indices in a 1400 px photo: its own pixels
    # would enlarge them further, so one look
    assert detector.zoom_size((1400, 1400), (640, 640), boxes, scores) is None


def test_large_indices_get_one_look(detector):
    # 2560 px photo at 640: a quarter of its pixels; indices 100 px in the photo come out 25 px
    boxes, scores = _boxes(100)
    assert (100 / 4) >= PHOTO.zoom_below
    assert detector.zoom_size((1920, 2560), (480, 640), boxes, scores) is None


def test_small_indices_are_looked_at_closer_up_to_the_target_size(detector):
    # indices 40 px in a 1600x1200 photo come out 16 px at 640: look again at about 1200 x 900
    boxes, scores = _boxes(40)
    h, w = detector.zoom_size((1200, 1600), (480, 640), boxes, scores)
    ratio = w / 1600
    assert PHOTO.zoom_target <= 40 * ratio <= PHOTO.zoom_target + 1  # the indices now come out at the target
    assert w < 1600 and w % 32 == 0 and h % 32 == 0
    assert h == pytest.approx(1200 * ratio, abs=32)  # the photo's own shape, not a square


def test_a_closer_look_never_passes_zoom_up_times_the_photos_own_pixels_nor_the_cap(detector):
    boxes, scores = _boxes(10)  # 10 px in a 1000 px photo: 6.4 px at 640, 30 px would need 3000
    h, w = detector.zoom_size((600, 1000), (384, 640), boxes, scores)
    assert w == 1504 and w <= 1000 * PHOTO.zoom_up + 32 and h == 928
    boxes, scores = _boxes(20)  # 20 px in a 6000 px photo: the cap binds
    h, w = detector.zoom_size((4500, 6000), (480, 640), boxes, scores)
    assert w == PHOTO.zoom_max and h <= PHOTO.zoom_max


def test_nothing_sure_found_on_a_large_photo_looks_closer(detector):
    boxes, scores = _boxes(8, score=0.15)  # only unsure boxes
    assert detector.zoom_size((1200, 1600), (480, 640), boxes, scores) == (1216, 1600)
    empty = np.zeros((0, 4), np.float32), np.zeros(0, np.float32)
    assert detector.zoom_size((1200, 1600), (480, 640), *empty) == (1216, 1600)


def test_a_gain_too_small_is_not_worth_a_second_look(detector):
    boxes, scores = _boxes(12)  # 12 px in a 2000 px photo go in at 640 as 3.8 px: the cap is
    # 1920, only 1.04 times the photo's own pixels and the first look is at 640: worth it
    assert detector.zoom_size((2000, 2000), (640, 640), boxes, scores) == (1920, 1920)
    boxes, scores = _boxes(50)  # 50 px at the input in a 600 px image: its own pixels are only
    # 1.07 times smaller than the first look
    assert detector.zoom_size((600, 600), (640, 640), boxes, scores) is None


def test_zoom_off_and_fixed_size_finders_get_one_look():
    boxes, scores = _boxes(10)
    off = CardDetector(DEFAULT_FINDER, DEFAULT_READER, zoom=False)
    assert not off.zoom and off.zoom_size((1920, 2560), (480, 640), boxes, scores) is None


@pytest.fixture(scope="module")
def photo():
    """A 1280 px table of an unseen deck whose indices are 14 px: 7 px at the finder's 640."""
    rng = np.random.default_rng(77)
    image, corners = scene.render_scene(rng, [decks.HELD_OUT_DECKS[1]], imgsz=1280, n_cards=12,
                                        index_px=14.0, hands_p=0.0, clutter_p=0.0)
    return image, [c for c in corners if c["visible"] >= 0.7]


def _read_right(dets, corners) -> int:
    truth = np.array([c["box"] for c in corners]).reshape(-1, 4)
    cards = np.array([CARD_INDEX[c["card"]] for c in corners])
    same = dets.class_ids[:, None] == cards[None, :]
    return int((match(dets.boxes, dets.scores, truth, 0.5, same) >= 0).sum())


def test_a_large_photo_with_small_indices_reads_more_cards_with_a_closer_look(detector, photo):
    image, corners = photo
    assert len(corners) >= 12
    one = CardDetector(DEFAULT_FINDER, DEFAULT_READER, zoom=False).detect(image)
    two = detector.detect(image)
    assert _read_right(two, corners) >= _read_right(one, corners) + 4
    assert _read_right(two, corners) >= 0.6 * len(corners)
    # boxes stay in the photo's own pixels
    assert (two.boxes[:, 2] <= 1280 + 1).all() and (two.boxes[:, 3] <= 1280 + 1).all()


def test_detect_no_zoom_reaches_the_detector(detector, photo, tmp_path, capsys):
    """`ddz-table detect --json` takes the closer look; `--no-zoom` prints the single look."""
    import cv2

    from cli.main import main

    path = tmp_path / "photo.png"
    cv2.imwrite(str(path), photo[0])
    single = CardDetector(DEFAULT_FINDER, DEFAULT_READER, zoom=False)
    for extra, expected in (([], detector.detect(photo[0])), (["--no-zoom"], single.detect(photo[0]))):
        capsys.readouterr()
        assert main(["detect", str(path), "--json", *extra]) == 0
        printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["detections"]
        assert len(printed) == len(expected)
        np.testing.assert_allclose([d["box"] for d in printed], expected.boxes, atol=0.5)


def test_extreme_shapes_and_empty_photos_get_a_closer_look_without_error(detector):
    """A panorama strip, a tall strip and a blank large photo: nothing sure is found, the closer
    look runs at the largest size allowed, and the result is empty, not an error."""
    for shape, closer in (((120, 4000), (64, 1920)), ((4000, 120), (1920, 64)), ((3000, 4000), (1440, 1920))):
        image = np.full((*shape, 3), 128, np.uint8)
        size = detector.input_size(*shape)
        assert detector.zoom_size(shape, size, np.zeros((0, 4)), np.zeros(0)) == closer
        assert len(detector.detect(image)) == 0


def test_a_camera_frame_with_small_indices_reads_more_cards_enlarged(detector):
    """A 640 px table of an unseen deck with 11 px indices: no more pixels than the input, but
    the finder reads them better enlarged."""
    rng = np.random.default_rng(6)
    image, corners = scene.render_scene(rng, [decks.HELD_OUT_DECKS[1]], imgsz=640, n_cards=14,
                                        index_px=11.0, hands_p=0.0, clutter_p=0.0)
    corners = [c for c in corners if c["visible"] >= 0.7]
    size = detector.input_size(*image.shape[:2])
    found = detector._find_at(image, size, 0.1)
    assert detector.zoom_size(image.shape[:2], size, found[0], found[1]) is not None
    one = CardDetector(DEFAULT_FINDER, DEFAULT_READER, zoom=False).detect(image)
    two = detector.detect(image)
    assert _read_right(two, corners) > _read_right(one, corners)
    assert _read_right(two, corners) >= 0.6 * len(corners)


def test_enlarge_max_keeps_a_small_image_near_its_own_pixels():
    """The tracker's zone crops (a 315 x 334 px seat zone at 2.5 px/mm) go in at their own
    size, padded to 32, not doubled to fill the input; larger images are scaled as before."""
    own = CardDetector(DEFAULT_FINDER, DEFAULT_READER, settings=TRACKER)
    full = CardDetector(DEFAULT_FINDER, DEFAULT_READER)
    assert full.input_size(315, 334) == (608, 640)
    assert own.input_size(315, 334) == (352, 352)  # 334 px padded up to 352
    assert CardDetector(DEFAULT_FINDER, DEFAULT_READER, settings=TRACKER.replace(enlarge_max=1.5)
                        ).input_size(315, 334) == (512, 512)
    for shape in ((720, 1280), (640, 640), (500, 700)):  # as large as the input, or nearly: unchanged
        assert own.input_size(*shape) == full.input_size(*shape)
    with pytest.raises(ValueError, match="enlarge_max"):
        TRACKER.replace(enlarge_max=0.5)


def test_a_zone_sized_table_is_read_at_its_own_pixels_as_well_as_enlarged():
    """Small tables of the held-out decks at the zone crop's index size: reading them at their
    own pixels (one look, a quarter of the pixels) finds at least as many cards right as
    filling the input does."""
    own = CardDetector(DEFAULT_FINDER, DEFAULT_READER, settings=TRACKER)
    full = CardDetector(DEFAULT_FINDER, DEFAULT_READER, settings=TRACKER.replace(enlarge_max=None))
    (right_own, right_full), total = _zone_tables_read(own, full)
    assert total >= 20
    assert right_own >= right_full
    assert right_own >= 0.8 * total


def test_a_finder_of_one_input_size_takes_a_small_image_at_its_own_pixels_in_a_wider_border():
    """The box's NCNN finder takes only 640 x 640: a zone crop goes in unenlarged, centred in
    the border, and reads as the free-size finder reads it."""
    from vision.boxes import PAD_VALUE

    fixed = CardDetector(backend="ncnn", settings=TRACKER)
    filled = CardDetector(backend="ncnn", settings=TRACKER.replace(enlarge_max=None))
    assert not fixed.rect and fixed.imgsz == (640, 640)
    seen = []
    finder = fixed.finder

    class Spy:
        def __getattr__(self, name):
            return getattr(finder, name)

        def __call__(self, blob):
            seen.append(blob)
            return finder(blob)

    fixed.finder = Spy()
    image = np.full((315, 334, 3), 200, np.uint8)
    fixed.detect(image)
    content = (np.abs(seen[0][0].transpose(1, 2, 0) * 255 - PAD_VALUE) > 1).any(axis=2)
    rows, cols = np.flatnonzero(content.any(axis=1)), np.flatnonzero(content.any(axis=0))
    assert seen[0].shape[2:] == (640, 640)
    assert (rows[-1] - rows[0] + 1, cols[-1] - cols[0] + 1) == (315, 334)  # its own pixels
    fixed.finder = finder
    (right_fixed, right_filled), _ = _zone_tables_read(fixed, filled)
    assert right_fixed >= right_filled


def _zone_tables_read(*detectors) -> tuple[list[int], int]:
    """Corners each detector reads right on small tables of the held-out decks at a zone crop's
    index size (one 320 px table a deck, 4 cards), and the corners that show."""
    right, total = [0] * len(detectors), 0
    for i, deck in enumerate(decks.HELD_OUT_DECKS):
        image, corners = scene.render_scene(np.random.default_rng(i), [deck], imgsz=320, n_cards=4,
                                            index_px=24.0, hands_p=0.0, clutter_p=0.0)
        corners = [c for c in corners if c["visible"] >= 0.7]
        for k, detector in enumerate(detectors):
            right[k] += _read_right(detector.detect(image), corners)
        total += len(corners)
    return right, total
