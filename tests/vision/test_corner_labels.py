"""Labelled folders as ``ddz-table enroll`` takes them (``vision.labels``): boxes on whole cards
become the corner indices the finder sees inside them, with the card's label; corner labels stay
as they are; classes that name no card are skipped and counted; a Roboflow export's
``train/``/``valid/`` layout and a folder of photos named by card are read too."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from sim.synth import decks, enroll_layout
from sim.synth.enroll_layout import render_layout
from vision.boxes import iou_matrix
from vision.cards import CARD_IDS, CARD_INDEX
from vision.detector import CardDetector
from vision.labels import (
    corner_labels,
    enrollment_samples,
    photos_named_by_card,
    read_label_folder,
)


def render_with_outlines(seed: int, deck, index_px: float, cards=None) -> tuple[np.ndarray, list[dict], list[dict]]:
    """``render_layout``'s image and corners, and every card's outline (``scene.cards``: a ``quad``)."""
    scenes = []
    real = enroll_layout.render_full

    def keep(*args, **kwargs):
        scenes.append(real(*args, **kwargs))
        return scenes[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(enroll_layout, "render_full", keep)
        image, corners = render_layout(np.random.default_rng(seed), deck, index_px, cards)
    return image, corners, scenes[0].cards


def card_box(outline: dict) -> list[float]:
    quad = np.array(outline["quad"])
    return [*quad.min(axis=0).tolist(), *quad.max(axis=0).tolist()]


def yolo_lines(image: np.ndarray, boxes, classes) -> str:
    h, w = image.shape[:2]
    return "".join(f"{k} {(b[0] + b[2]) / 2 / w:.6f} {(b[1] + b[3]) / 2 / h:.6f} {(b[2] - b[0]) / w:.6f} "
                   f"{(b[3] - b[1]) / h:.6f}\n" for b, k in zip(boxes, classes, strict=True))


def write_folder(folder: Path, images: dict[str, tuple[np.ndarray, str]], names: list[str]) -> Path:
    """A YOLO folder: ``images`` maps ``sub/name`` (``images/x``, or ``train/images/x`` as Roboflow
    writes them) to the image and its label text."""
    for where, (image, text) in images.items():
        path = folder / where
        path.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(path.with_suffix(".png")), image)
        labels = Path(str(path).replace("images", "labels", 1)).with_suffix(".txt")
        labels.parent.mkdir(parents=True, exist_ok=True)
        labels.write_text(text)
    listed = "".join(f"  {i}: {json.dumps(n)}\n" for i, n in enumerate(names))
    (folder / "data.yaml").write_text(f"nc: {len(names)}\nnames:\n{listed}")
    return folder


@pytest.fixture(scope="module")
def detector():
    return CardDetector()


@pytest.fixture(scope="module")
def layout():
    """All 54 cards of a held-out deck laid out, 26 px indices, with each card's outline."""
    return render_with_outlines(21, decks.load_deck("orell"), 26.0)


def test_whole_card_boxes_become_the_corners_inside_them(tmp_path, detector, layout):
    image, corners, outlines = layout
    boxes = [card_box(o) for o in outlines]
    folder = write_folder(tmp_path / "cards", {"images/layout": (image, yolo_lines(
        image, boxes, [CARD_INDEX[o["card"]] for o in outlines]))}, list(CARD_IDS))
    samples = enrollment_samples(folder, detector)

    assert samples.photos == 1 and len(samples.items) == 1
    assert samples.corners.card_boxes == len(outlines) == 54 and samples.corners.corner_boxes == 0
    _, found, cards = samples.items[0]
    assert len(found) == len(cards) == samples.corners.corners_found
    assert samples.corners.cards_without_corner <= 5  # nearly every card gives at least one corner
    assert len(set(cards)) >= 49
    assert len(found) >= 0.8 * len(corners)  # most of the 108 indices
    # no corner is given another card's label: none lies on another card's index, and each lies
    # inside the outline of the card it was given
    true = np.array([c["box"] for c in corners])
    true_cards = np.array([c["card"] for c in corners])
    overlap = iou_matrix(np.asarray(found), true)
    outline = {o["card"]: card_box(o) for o in outlines}
    for box, row, card in zip(found, overlap, cards, strict=True):
        assert row[true_cards != card].max(initial=0.0) < 0.1, card
        x1, y1, x2, y2 = outline[card]
        assert x1 <= box[0] and y1 <= box[1] and box[2] <= x2 and box[3] <= y2, card
    # and nearly all are that card's true indices (IoU 0.5): measured 104 of 107; the other 3 are
    # big pips and court art the finder scores 0.29-0.33 (CORNER_FLOOR is 0.25), which the reader
    # calls `none` -- labelled as the card all the same (see the report: a known weakness)
    on_index = np.array([row[true_cards == card].max() >= 0.5 for row, card in zip(overlap, cards, strict=True)])
    assert on_index.sum() >= 95 and on_index.mean() >= 0.9, (on_index.sum(), len(on_index))


def test_corner_labels_stay_as_they_are_even_where_the_finder_misses_one(detector, layout):
    image, corners, _ = layout
    boxes = np.array([c["box"] for c in corners[:20]], np.float64)
    cards = [c["card"] for c in corners[:20]]
    # a labelled corner where the finder sees nothing: the top-left of the table, outside every card
    missed = np.array([[2.0, 2.0, 14.0, 30.0]])
    found, _, _ = detector.find(image, 0.25)
    assert iou_matrix(missed, found).max(initial=0.0) < 0.3  # the finder does miss it
    boxes, cards = np.concatenate([boxes, missed]), [*cards, "5d"]

    out, out_cards, counts = corner_labels(detector, image, boxes, cards)
    np.testing.assert_array_equal(out, boxes)
    assert out_cards == cards
    assert counts.corner_boxes == 21 and counts.card_boxes == 0 and counts.corners_found == 0


def test_mostly_missed_boxes_are_taken_for_whole_cards(detector, layout):
    """The other side of the half-way rule: one corner among boxes the finder does not see is a
    corner label; the rest are whole cards (here with no corner inside)."""
    image, corners, _ = layout
    empty = np.array([[2.0, 2.0, 14.0, 30.0], [2.0, 40.0, 14.0, 68.0]])
    boxes = np.concatenate([np.array([corners[0]["box"]]), empty])
    out, out_cards, counts = corner_labels(detector, image, boxes, [corners[0]["card"], "5d", "6d"])
    assert counts.corner_boxes == 1 and counts.card_boxes == 2 and counts.cards_without_corner == 2
    np.testing.assert_array_equal(out, boxes[:1])
    assert out_cards == [corners[0]["card"]]


def test_classes_that_name_no_card_are_skipped_and_counted_in_a_roboflow_export(tmp_path, detector, layout):
    image, corners, outlines = layout
    names = [*CARD_IDS, "BACK", "card"]
    back, card = len(CARD_IDS), len(CARD_IDS) + 1
    train = corners[:30]
    train_text = yolo_lines(image, [c["box"] for c in train], [CARD_INDEX[c["card"]] for c in train]) \
        + yolo_lines(image, [card_box(o) for o in outlines[:3]], [back] * 3) \
        + yolo_lines(image, [card_box(outlines[5])], [card])
    valid = corners[30:50]
    valid_text = yolo_lines(image, [c["box"] for c in valid], [CARD_INDEX[c["card"]] for c in valid]) \
        + yolo_lines(image, [card_box(outlines[6])], [card])
    folder = write_folder(tmp_path / "export", {"train/images/a": (image, train_text),
                                                "valid/images/b": (image, valid_text)}, names)
    assert not (folder / "images").exists()

    read = read_label_folder(folder, skip_unknown=True)
    assert [p.path.relative_to(folder).as_posix() for p in read.images] == ["train/images/a.png", "valid/images/b.png"]
    assert read.ignored == {"BACK": 3, "card": 2}
    assert [len(p.cards) for p in read.images] == [30, 20]

    samples = enrollment_samples(folder, detector)
    assert samples.photos == 2 and samples.skipped == {"BACK": 3, "card": 2}
    assert [cards for _, _, cards in samples.items] == [[c["card"] for c in train], [c["card"] for c in valid]]
    assert samples.corners.corner_boxes == 50 and samples.corners.card_boxes == 0


def test_photos_named_by_card_are_mapped_and_a_stray_name_refuses_the_folder(tmp_path):
    blank = np.full((40, 30, 3), 255, np.uint8)
    (tmp_path / "named").mkdir()
    for name in ("10c.png", "queen of hearts.png", "BJ-2.png", "Ace_of_Spades (3).jpg"):
        cv2.imwrite(str(tmp_path / "named" / name), blank)
    (tmp_path / "named" / "notes.txt").write_text("not an image")
    named = photos_named_by_card(tmp_path / "named")
    assert [(p.name, card) for p, card in named] == [
        ("10c.png", "10c"), ("Ace_of_Spades (3).jpg", "As"), ("BJ-2.png", "BJ"), ("queen of hearts.png", "Qh")]
    cv2.imwrite(str(tmp_path / "named" / "holiday.png"), blank)
    assert photos_named_by_card(tmp_path / "named") == []
    assert photos_named_by_card(tmp_path / "absent") == []


def test_photos_of_single_cards_give_their_corners_labelled_with_the_files_card(tmp_path, detector):
    # a photo of one card fills more of the frame than a layout's card: 40 px indices, and room
    # around the card (the finder misses indices of cards cropped tight at 26 px)
    image, corners, outlines = render_with_outlines(8, decks.load_deck("orell"), 40.0, ["10c", "Qh", "BJ"])
    folder = tmp_path / "photos"
    folder.mkdir()
    names = {"10c": "10c.png", "Qh": "queen of hearts.png", "BJ": "BJ-2.png"}
    truth = {}
    for outline in outlines:
        x1, y1, x2, y2 = card_box(outline)
        pad = 0.6 * (x2 - x1)
        x1, y1 = int(max(x1 - pad, 0)), int(max(y1 - pad, 0))
        x2, y2 = int(min(x2 + pad, image.shape[1])), int(min(y2 + pad, image.shape[0]))
        cv2.imwrite(str(folder / names[outline["card"]]), image[y1:y2, x1:x2])
        truth[outline["card"]] = np.array([c["box"] for c in corners if c["card"] == outline["card"]]) - [x1, y1, x1, y1]

    samples = enrollment_samples(folder, detector)
    assert samples.photos == 3 and samples.skipped == {} and len(samples.items) == 3
    by_card = {}
    on_index = 0
    for _, boxes, cards in samples.items:
        assert len(set(cards)) == 1 and 1 <= len(boxes) <= 4
        by_card[cards[0]] = boxes
    assert set(by_card) == {"10c", "Qh", "BJ"}
    for card, boxes in by_card.items():
        best = iou_matrix(np.asarray(boxes), truth[card]).max(axis=1)
        # measured: both of the card's indices among them, each card (with a pip or court art
        # box or two labelled as the card too: corners_in_photo keeps the four best at 0.4)
        assert (best >= 0.5).sum() >= 1, (card, best)
        on_index += int((best >= 0.5).sum())
    assert on_index >= 5  # of the 6 indices
