"""Smaller views: a phone close-up whose indices are too large for the finder (it was trained
on indices of at most ``INDEX_PX[1]`` px) is looked at again through smaller views of the
image (``CardDetector.smaller_sizes``), and reads the cards the first look missed; an
ordinary table reads the same with the smaller views on."""

from __future__ import annotations

import numpy as np
import pytest

from sim.synth import decks, scene
from sim.synth.closeup import render_closeup, score_closeup
from vision.detector import DEFAULT_FINDER, DEFAULT_READER, CardDetector
from vision.settings import PHOTO

# Share of the close-ups' readable cards the shipped models read with smaller views on:
# under what they reach on these scenes (all of them), with margin.
RECALL_FLOOR = 0.75


@pytest.fixture(scope="module")
def detector():
    return CardDetector(DEFAULT_FINDER, DEFAULT_READER)


@pytest.fixture(scope="module")
def one_look():
    return CardDetector(DEFAULT_FINDER, DEFAULT_READER, smaller=False)


@pytest.fixture(scope="module")
def closeups():
    """One 1280x960 close-up of each held-out deck, indices 200-250 px tall (100-125 px at the
    finder's 640: twice the largest it was trained on)."""
    rng = np.random.default_rng(31)
    return [render_closeup(rng, decks.load_deck(name), (960, 1280), float(rng.uniform(200, 250)))
            for name in decks.HELD_OUT_DECKS]


def _boxes(side: float, n: int = 5, score: float = 0.9):
    boxes = np.array([[10 + 40 * i, 10, 10 + 40 * i + side * 0.7, 10 + side] for i in range(n)], np.float32)
    return boxes, np.full(n, score, np.float32)


def test_views_halve_the_input_down_to_the_floor_when_little_or_large_is_found(detector):
    empty = np.zeros((0, 4), np.float32), np.zeros(0, np.float32)
    assert detector.smaller_sizes((960, 1280), (480, 640), *empty) == [(256, 320), (128, 160)]
    assert detector.smaller_sizes((4000, 3000), (640, 480), *_boxes(30, n=1)) == [(320, 256), (160, 128)]
    # sure indices coming out over smaller_above at the input: some may be too large to find
    large = _boxes(2 * (PHOTO.smaller_above + 5))  # 130 px in the photo, 65 px at the input
    assert len(detector.smaller_sizes((960, 1280), (480, 640), *large)) == 2
    floor = CardDetector(DEFAULT_FINDER, DEFAULT_READER, smaller_floor=320)
    assert floor.smaller_sizes((960, 1280), (480, 640), *empty) == [(256, 320)]


def test_enough_sure_indices_of_a_size_the_finder_reads_need_no_smaller_view(detector):
    assert detector.smaller_sizes((960, 1280), (480, 640), *_boxes(60)) == []  # 30 px at the input
    # unsure boxes do not count as found
    assert detector.smaller_sizes((960, 1280), (480, 640), *_boxes(60, score=0.1)) != []


def test_an_enlarged_image_is_zooms_to_look_at_not_smaller_views(detector):
    # a 416 px image goes in at 640: its too large indices get zoom's look at its own pixels
    empty = np.zeros((0, 4), np.float32), np.zeros(0, np.float32)
    assert detector.smaller_sizes((416, 416), (640, 640), *empty) == []
    assert detector.smaller_sizes((416, 416), (640, 640), *_boxes(60)) == []


def test_smaller_off_and_fixed_size_finders_take_no_smaller_view(one_look):
    empty = np.zeros((0, 4), np.float32), np.zeros(0, np.float32)
    assert not one_look.smaller and one_look.smaller_sizes((960, 1280), (480, 640), *empty) == []


def test_bad_smaller_settings_are_refused():
    for change in ({"smaller_floor": 16}, {"smaller_few": -1}, {"smaller_keep": 0.0}, {"smaller_above": -3.0}):
        with pytest.raises(ValueError, match="smaller"):
            PHOTO.replace(**change)


def test_a_close_up_reads_its_cards_with_smaller_views_and_fewer_without(detector, one_look, closeups):
    readable = on = off = wrong = 0
    for image, cards in closeups:
        found_on, n_on, false_on = score_closeup(detector.detect(image), cards)
        found_off, _, _ = score_closeup(one_look.detect(image), cards)
        readable += len(found_on)
        on += sum(f for _, f in found_on)
        off += sum(f for _, f in found_off)
        wrong += false_on
        dets = detector.detect(image)
        # boxes stay in the photo's own pixels
        assert (dets.boxes[:, [0, 2]] <= 1280 + 1).all() and (dets.boxes[:, [1, 3]] <= 960 + 1).all()
    assert readable >= 6  # the close-ups really show cards
    assert on / readable >= RECALL_FLOOR, f"cards read {on}/{readable}"
    assert off < on, f"without smaller views {off}, with {on}"
    assert wrong <= 1


def _same(a, b) -> None:
    assert len(a) == len(b)
    np.testing.assert_array_equal(a.boxes, b.boxes)
    np.testing.assert_array_equal(a.class_ids, b.class_ids)
    np.testing.assert_array_equal(a.scores, b.scores)


@pytest.mark.parametrize(("imgsz", "n_cards", "index_px"), [(1280, 12, 22.0), (1280, 1, 20.0), (640, 8, 16.0)])
def test_an_ordinary_table_reads_the_same_with_smaller_views_on(detector, one_look, imgsz, n_cards, index_px):
    """A camera's table, busy or holding a single card (whose first look finds fewer than
    ``smaller_few`` sure indices, so the smaller views are taken): the same detections."""
    rng = np.random.default_rng(int(imgsz + n_cards))
    image, _ = scene.render_scene(rng, [decks.HELD_OUT_DECKS[2]], imgsz=imgsz, n_cards=n_cards,
                                  index_px=index_px, hands_p=0.0)
    _same(detector.detect(image), one_look.detect(image))
