"""The suit from a card's face: finding pips between two corners, the pip classifier on held-out
decks, the joint read with the index, a broken model file, the training data and a tiny run."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from models import MODELS_DIR
from vision.backends import ModelFileError
from vision.cards import CARD_INDEX, SUITS
from vision.detections import Detections
from vision.face_suit import (
    DEFAULT_PIPS,
    FaceSuit,
    FaceSuitReader,
    combine,
    face_region,
    find_pips,
    inside_polygon,
)
from vision.grouping import FaceVote, group_corners, with_face

art = pytest.mark.art  # renders Debian's card art (apt: deploy/system-deps.sh)


# -- finding pips: a drawn card, no art needed ---------------------------------------------
def drawn_card(angle: float, pips: list[tuple[float, float]], size: tuple[int, int] = (100, 140),
               colour=(30, 30, 30)) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A white card on a green table, turned by ``angle`` degrees, with black index boxes in its
    top-left and bottom-right corners and a disc (radius 7) at each of ``pips`` (face pixels).
    Returns the image, the two index boxes as a finder gives them and the discs' image centres."""
    w, h = size
    face = np.full((h, w, 3), 250, np.uint8)
    index = [(6, 6, 20, 40), (w - 20, h - 40, w - 6, h - 6)]
    for x1, y1, x2, y2 in index:
        cv2.rectangle(face, (x1 + 3, y1 + 3), (x2 - 3, y2 - 3), colour, -1)
    for x, y in pips:
        cv2.circle(face, (int(x), int(y)), 7, colour, -1)
    side = 260
    m: np.ndarray = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    m[:, 2] += (side / 2 - w / 2, side / 2 - h / 2)
    table = np.zeros((side, side, 3), np.uint8)
    table[:] = (40, 120, 30)
    mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, (side, side))
    warped = cv2.warpAffine(face, m, (side, side))
    image = np.where(mask[..., None] > 127, warped, table)

    def to_image(points):
        return np.asarray(points, float).reshape(-1, 2) @ m[:, :2].T + m[:, 2]

    boxes = []
    for x1, y1, x2, y2 in index:
        quad = to_image([(x1, y1), (x2, y1), (x2, y2), (x1, y2)])
        boxes.append([*quad.min(axis=0), *quad.max(axis=0)])
    return image, np.array(boxes), to_image(pips)


FIVE = [(30, 50), (70, 50), (50, 70), (30, 90), (70, 90)]


@pytest.mark.parametrize("angle", [0, 35, 90, 160, 250])
def test_pips_between_two_corners_are_found_at_any_angle(angle):
    image, boxes, centres = drawn_card(angle, FIVE)
    found = find_pips(image, boxes[0], boxes[1])
    assert len(found) == 5
    got = (found[:, :2] + found[:, 2:]) / 2
    # Each disc found once, its box about its size (14 px), the index boxes' ink left out.
    distance = np.linalg.norm(got[:, None] - centres[None], axis=2)
    assert sorted(distance.argmin(axis=1)) == [0, 1, 2, 3, 4]
    assert distance.min(axis=1).max() < 2.0
    assert np.abs((found[:, 2:] - found[:, :2]).max(axis=1) - 15).max() <= 3
    # The same pips whichever corner comes first.
    again = find_pips(image, boxes[1], boxes[0])
    assert sorted(map(tuple, again.tolist())) == sorted(map(tuple, found.tolist()))


def test_the_face_region_lies_on_the_card_and_its_mirror_image_off_it():
    image, boxes, _ = drawn_card(30, FIVE)
    outline = cv2.transform(np.array([[[0, 0], [100, 0], [100, 140], [0, 140]]], np.float32),
                            cv2.getRotationMatrix2D((50, 70), 30, 1.0))[0] + (80, 60)
    region, mirror = face_region(boxes[0], boxes[1]), face_region(boxes[0], boxes[1], side=-1)
    assert inside_polygon(region.polygon(), outline).all()
    assert not inside_polygon(mirror.polygon(), outline).all()


def test_a_blank_face_a_table_and_tiny_specks_give_no_pips():
    image, boxes, _ = drawn_card(20, [])
    assert len(find_pips(image, boxes[0], boxes[1])) == 0
    specks, boxes, _ = drawn_card(20, [])
    for x, y in [(120, 120), (130, 140), (140, 125)]:
        cv2.circle(specks, (x, y), 1, (30, 30, 30), -1)
    assert len(find_pips(specks, boxes[0], boxes[1])) == 0
    with pytest.raises(ValueError, match="x1 < x2"):
        face_region([10, 10, 5, 30], [50, 50, 60, 80])
    with pytest.raises(ValueError, match="uint8"):
        find_pips(image.astype(np.float32), boxes[0], boxes[1])


def test_blob_votes_combine_into_the_faces_suit():
    classes = (*SUITS, "none")
    probs = np.array([[0.1, 0, 0, 0.9, 0], [0.3, 0, 0, 0.6, 0.1], [0.05, 0, 0, 0.05, 0.9]])
    face = combine(probs, classes)
    assert face is not None and face.suit == "c" and face.pips == 2
    assert sum(face.probs.values()) == pytest.approx(1)
    assert face.probs["c"] == pytest.approx((0.9 + 0.9 * 0.6 / 0.9) / 1.9, abs=1e-6)
    # Nothing but "not a pip" (a court card's figure, a joker): no suit.
    assert combine(np.array([[0.1, 0.1, 0, 0, 0.8]]), classes) is None


# -- the joint read: index x face -----------------------------------------------------------
def paired(card: str, p: float, alts: dict[str, float], finder: float = 0.8) -> Detections:
    """Two corners of one card read alike (20 px indices, 4.5 index sizes apart)."""
    k = len(alts)
    ids = np.array([[CARD_INDEX[c] for c in alts]] * 2).reshape(2, k)
    probs = np.array([list(alts.values())] * 2).reshape(2, k)
    boxes = np.array([[90, 90, 110, 110], [144, 162, 164, 182]], np.float32)
    return Detections(boxes, np.full(2, finder * p), np.full(2, CARD_INDEX[card]), np.full(2, finder), ids, probs)


def clubs_face(calls: list | None = None, probs: dict | None = None):
    def read(i: int, j: int):
        if calls is not None:
            calls.append((i, j))
        return probs or {"s": 0.04, "h": 0.005, "d": 0.005, "c": 0.95}
    return read


def test_the_face_turns_an_unsure_spade_read_into_the_club_it_shows():
    dets = paired("7s", 0.6, {"7c": 0.35, "7h": 0.02})
    alone = group_corners(dets).cards[0]
    assert alone.card == "7s" and alone.face is None
    calls: list = []
    card = group_corners(dets, face=FaceVote(clubs_face(calls), below=0.9)).cards[0]
    assert calls == [(0, 1)]
    assert card.card == "7c" and card.face == "c" and card.paired
    # index 0.6 : 0.35 for 7s : 7c, the face 0.04 : 0.95: 7c is now about 0.93 likely.
    p_club = 0.35 * 0.95 / (0.35 * 0.95 + 0.6 * 0.04 + 0.02 * 0.005)
    assert card.confidence == pytest.approx(0.8 * p_club, abs=1e-3)
    assert dict(card.alternatives)["7s"] == pytest.approx(0.6 * 0.04 / (0.35 * 0.95 + 0.6 * 0.04 + 0.02 * 0.005),
                                                          abs=1e-3)
    assert card.alternatives[0][0] == "7s"


def test_a_sure_index_read_is_left_alone_and_the_face_not_read():
    dets = paired("7s", 0.97, {"7c": 0.02})
    calls: list = []
    card = group_corners(dets, face=FaceVote(clubs_face(calls), below=0.9)).cards[0]
    assert calls == [] and card.card == "7s" and card.face is None
    assert card == group_corners(dets).cards[0]


def test_a_face_with_no_suit_and_single_corners_leave_the_read_alone():
    dets = paired("7s", 0.6, {"7c": 0.35})
    card = group_corners(dets, face=FaceVote(lambda i, j: None)).cards[0]
    assert card == group_corners(dets).cards[0]
    single = dets[[0]]
    calls: list = []
    assert group_corners(single, face=FaceVote(clubs_face(calls))).cards[0].card == "7s" and calls == []


def test_a_weaker_face_weight_needs_a_surer_face():
    reading = {"7s": 0.6, "7c": 0.4}
    face = {"s": 0.3, "h": 0.0, "d": 0.0, "c": 0.7}
    assert max(with_face(reading, face, 1.0).items(), key=lambda a: a[1])[0] == "7c"
    assert max(with_face(reading, face, 0.25).items(), key=lambda a: a[1])[0] == "7s"
    assert sum(with_face(reading, face, 0.5).values()) == pytest.approx(1)
    with pytest.raises(ValueError):
        FaceVote(lambda i, j: None, below=0)


# -- the model file ---------------------------------------------------------------------------
def test_the_shipped_pip_classifier_is_small_and_loads():
    assert DEFAULT_PIPS == MODELS_DIR / "pips.onnx"
    assert DEFAULT_PIPS.stat().st_size < 200_000
    reader = FaceSuitReader()
    assert reader.classes == (*SUITS, "none") and reader.size == 32
    probs = reader.classify(np.full((3, 32, 32, 3), 200, np.uint8))
    assert probs.shape == (3, 5) and np.allclose(probs.sum(axis=1), 1, atol=1e-4)


def test_a_missing_or_broken_pip_model_is_a_clear_error(tmp_path):
    with pytest.raises(ModelFileError, match="not found"):
        FaceSuitReader(tmp_path / "pips.onnx")
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not an onnx model at all")
    with pytest.raises(ModelFileError, match="broken.onnx"):
        FaceSuitReader(broken)
    # The index reader is an ONNX classifier too, but not of suits.
    with pytest.raises(ModelFileError, match="not a pip classifier"):
        FaceSuitReader(MODELS_DIR / "reader.onnx")


def test_the_detector_reads_indices_alone_with_a_warning_without_a_pip_model(tmp_path):
    from vision.detector import CardDetector

    with pytest.warns(UserWarning, match=r"indices alone.*missing\.onnx"):
        detector = CardDetector(pips=tmp_path / "missing.onnx", turns=1)
    assert detector.face is None
    dets = paired("7s", 0.6, {"7c": 0.35})
    image = np.full((240, 240, 3), 200, np.uint8)
    assert detector.group(image, dets).cards[0].card == "7s"
    # With the model and the switch on, group asks the face; with the switch off it does not.
    on = CardDetector(turns=1)
    assert on.face is not None and on.settings.face_suit
    assert CardDetector(turns=1, face_suit=False).face is None


def test_the_detector_groups_with_its_face_reader():
    from vision.detector import CardDetector

    detector = CardDetector(turns=1)
    calls = []

    class Stub:
        def vote(self, image, detections, below, weight):
            calls.append((below, weight))
            return FaceVote(clubs_face(), below, weight)

    detector.face = Stub()
    card = detector.group(np.full((240, 240, 3), 200, np.uint8), paired("7s", 0.6, {"7c": 0.35})).cards[0]
    assert card.card == "7c" and calls == [(detector.settings.face_suit_below, detector.settings.face_weight)]


# -- with the card art: held-out decks ---------------------------------------------------------
@art
def test_the_pip_classifier_reads_held_out_decks_pips():
    from sim.training.pips import CLASSES, NONE, held_out_set

    x, y = held_out_set(120, seed=7)
    probs = FaceSuitReader().classify(x)
    pips = y != NONE
    accuracy = float((probs.argmax(axis=1)[pips] == y[pips]).mean())
    # Measured 0.914 of 464 pips cut from these 120 held-out cards (the scenes' camera chain or a
    # random degradation chain on each, indices 12-60 px); 0.931 with seed 8.
    assert pips.sum() > 300 and accuracy >= 0.88
    assert CLASSES == (*SUITS, "none")


@art
@pytest.mark.parametrize("deck, cards", [("plastic", ["7c", "4c", "9s", "5h"]), ("orell", ["8c", "10s", "6d"]),
                                         ("atlasnye", ["5c", "7s", "9h"]), ("tigullio", ["6c", "8s", "3d"])])
def test_the_face_reader_gives_a_held_out_number_cards_suit(deck, cards):
    from sim.synth.decks import load_deck
    from sim.training.pips import render_card

    reader = FaceSuitReader()
    loaded = load_deck(deck)
    rng = np.random.default_rng(11)
    for card in cards:
        image, boxes, _ = render_card(rng, loaded, card, 26.0)
        image = np.clip(image, 0, 255).astype(np.uint8)
        assert len(find_pips(image, boxes[0], boxes[1])) >= 2, card
        face = reader.read(image, boxes[1], boxes[0])
        assert isinstance(face, FaceSuit) and face.suit == card[-1], (card, face)


@art
def test_training_data_is_the_same_under_a_seed_and_never_held_out():
    from sim.training.pips import training_set

    a = training_set(5, seed=3, decks=["anglo", "proc_5"])
    b = training_set(5, seed=3, decks=["anglo", "proc_5"])
    c = training_set(5, seed=4, decks=["anglo", "proc_5"])
    assert len(a[1]) > 5 and np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert len(a[1]) != len(c[1]) or not np.array_equal(a[0], c[0])
    with pytest.raises(ValueError, match="held-out decks are never trained on: plastic"):
        training_set(5, decks=["anglo", "plastic"])


@art
@pytest.mark.train
def test_a_tiny_training_run_writes_an_onnx_model_that_loads(tmp_path):
    from sim.training.pips import train_pips

    lines = []
    path = train_pips(tmp_path / "run", samples=12, val_samples=4, epochs=1, batch=16, procedural=(5,),
                      log=lines.append)
    assert path == tmp_path / "run" / "pips.onnx" and (tmp_path / "run" / "weights" / "best.pt").is_file()
    reader = FaceSuitReader(path)
    assert reader.classes == (*SUITS, "none")
    probs = reader.classify(np.zeros((2, 32, 32, 3), np.uint8))
    assert probs.shape == (2, 5) and np.allclose(probs.sum(axis=1), 1, atol=1e-4)
    assert any("epoch 1/1" in line for line in lines)


@pytest.mark.train
def test_train_pips_is_a_train_stage_and_refuses_an_empty_run(capsys):
    from cli.main import main

    assert main(["train", "pips", "--cards", "0", "--epochs", "1"]) == 2
    assert "samples, val_samples and epochs must be at least 1" in capsys.readouterr().err
    # The other stages still need their data.
    assert main(["train", "reader"]) == 2
    assert "reader needs --data" in capsys.readouterr().err
