"""The table reader's second look for jokers: a joker the finder misses still settles in its zone.

Frames are orell's own cards laid on the printed mat (tests.kit.card_mat), read by the shipped
detector; ``FinderMissesJokers`` is that detector with its finder blind to jokers, as it is to
orell's on the acceptance films.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.kit.card_mat import calibration, laid, zone_centre
from tracker.reader import ReaderConfig, TableReader
from vision.detections import Detections
from vision.detector import DEFAULT_FINDER, DEFAULT_READER, JOKER_IDS, CardDetector
from vision.settings import TRACKER
from vision.sources import Frame


class FinderMissesJokers(CardDetector):
    """The shipped detector, but no joker's corner is ever found."""

    def detect(self, image: np.ndarray, conf: float | None = None) -> Detections:
        found = super().detect(image, conf)
        return found[~np.isin(found.class_ids, JOKER_IDS)]

    def detect_faint(self, image: np.ndarray, faint: float) -> tuple[Detections, Detections]:
        found, weak = super().detect_faint(image, faint)
        return found[~np.isin(found.class_ids, JOKER_IDS)], weak[~np.isin(weak.class_ids, JOKER_IDS)]


@pytest.fixture(scope="module")
def blind() -> FinderMissesJokers:
    return FinderMissesJokers(DEFAULT_FINDER, DEFAULT_READER, settings=TRACKER)


@pytest.fixture(scope="module")
def shipped() -> CardDetector:
    return CardDetector(DEFAULT_FINDER, DEFAULT_READER, settings=TRACKER)


def played(reader: TableReader, cards, seconds: float = 2.5, deck: str = "orell") -> list[tuple[str, tuple[str, ...]]]:
    """An empty mat for a second, then ``cards`` (of ``deck``) put down and left lying: what
    settled where."""
    empty, lying = laid([], deck), laid(cards, deck)
    out = []
    for i in range(int((1 + seconds) * 10)):
        t = i / 10
        seen = reader.read(Frame(empty if t < 1 else lying, t, i))
        out += [(s.zone, tuple(sorted(s.cards.cards))) for s in seen.settled]
    return out


def test_a_joker_the_finder_misses_settles_through_the_second_look(blind):
    x, y = zone_centre("seat1")
    cards = [("8c", (x, y - 60), 2), ("RJ", (x, y + 60), 88)]
    assert played(TableReader(calibration(), blind), cards) == [("seat1", ("8c", "RJ"))]


def test_without_the_second_look_that_joker_is_lost(blind):
    x, y = zone_centre("seat1")
    cards = [("8c", (x, y - 60), 2), ("RJ", (x, y + 60), 88)]
    reader = TableReader(calibration(), blind, ReaderConfig(joker_look=False))
    assert played(reader, cards) == [("seat1", ("8c",))]


def test_a_rocket_half_covered_settles_whole(blind):
    x, y = zone_centre("seat0")
    cards = [("BJ", (x - 25, y + 8), 1), ("RJ", (x, y), 1)]  # the black joker peeks out under the red
    assert played(TableReader(calibration(), blind), cards) == [("seat0", ("BJ", "RJ"))]


@pytest.mark.parametrize("angle", [0, 180])
def test_tigullios_black_joker_fanned_under_the_red_one_settles_with_it(shipped, angle):
    # A rocket laid as the three-seat tigullio film lays it, 14 mm apart: the finder boxes the
    # red joker's star (and on the black one's, the two stars together, as a club); the black
    # star, a joker's mark for sure but of either colour to the reader, is read at its corner.
    x, y = zone_centre("seat0")
    cards = [("BJ", (x - 7, y), angle), ("RJ", (x + 7, y), angle)]
    assert played(TableReader(calibration(), shipped), cards, deck="tigullio") == [("seat0", ("BJ", "RJ"))]


def test_a_zone_with_no_joker_gains_none(shipped):
    x, y = zone_centre("seat2")
    cards = [("Qs", (x, y - 70), 3), ("Kh", (x - 10, y + 40), 91), ("As", (x + 5, y + 80), 178)]
    assert played(TableReader(calibration(), shipped), cards) == [("seat2", ("As", "Kh", "Qs"))]


@pytest.mark.parametrize("decks", [1, 2])
def test_a_joker_the_finder_reads_is_not_read_twice(shipped, decks):
    x, y = zone_centre("seat1")
    reader = TableReader(calibration(), shipped, decks=decks)
    assert played(reader, [("RJ", (x, y), 3)]) == [("seat1", ("RJ",))]


def test_the_bench_counts_what_the_look_reads_and_refuses_a_folder_that_is_no_film(shipped, tmp_path, capsys):
    from bench.joker_look import TimedLook, main

    assert shipped.joker_look is not None
    timed = TimedLook(shipped.joker_look)
    x, y = zone_centre("seat1")
    view = calibration().crop(laid([("RJ", (x, y), 3)]), "seat1", 2.5)
    assert [r.card for r in timed.look(view.image, 157.5)] == ["RJ", "RJ"]
    assert (timed.runs, timed.jokers) == (1, 2) and timed.seconds > 0
    with pytest.raises(SystemExit):
        main([str(tmp_path)])
    assert "no truth.json" in capsys.readouterr().err


@pytest.mark.parametrize(("deck", "angle"), [("plastic", 0), ("orell", 180)])
def test_a_lone_joker_with_two_decks_is_one_card(shipped, deck, angle):
    # plastic's joker shows "◆ Joker ◆" across its top, boxed in pieces; orell's turned round
    # shows two small stars 99 mm apart: each corner of one card, not two jokers of two decks.
    x, y = zone_centre("seat1")
    reader = TableReader(calibration(), shipped, decks=2)
    assert played(reader, [("RJ", (x, y), angle)], deck=deck) == [("seat1", ("RJ",))]


def _joker_reads(marks: list[tuple[float, float, float]], groups: list[list[int]], card: str = "RJ"):
    """A zone view at 2.5 px/mm, detections of ``card`` at ``marks`` (mm: x, y, box side) and
    the cards grouping made of them (``groups``: which marks each card holds)."""
    from tracker.zones import ZoneView
    from vision.cards import CARD_IDS
    from vision.grouping import CardInstance

    view = ZoneView("seat1", (100.0, 50.0), 2.5, np.zeros((400, 400, 3), np.uint8))
    boxes = [[(x - s / 2) * 2.5, (y - s / 2) * 2.5, (x + s / 2) * 2.5, (y + s / 2) * 2.5] for x, y, s in marks]
    dets = Detections(boxes, [0.2] * len(marks), [CARD_IDS.index(card)] * len(marks))
    cards = [CardInstance(card, tuple(g), tuple(np.mean([marks[i][:2] for i in g], axis=0) * 2.5), 0.2 + 0.01 * k)
             for k, g in enumerate(groups)]
    return view, dets, cards


def test_one_jokers_marks_grouped_as_two_cards_are_one_card():
    from tracker.reader import _one_joker_a_card

    # plastic's red joker upright: four corner emblems and the face's, grouped wrongly in two
    marks = [(39, 38, 11), (83, 38, 11), (33, 109, 12), (84, 108, 11), (60, 74, 12)]
    view, dets, cards = _joker_reads(marks, [[0, 4], [1, 2, 3]])
    one = _one_joker_a_card(view, dets, cards)
    assert [c.card for c in one] == ["RJ"] and sorted(one[0].corners) == [0, 1, 2, 3, 4]
    # its black joker: two opposite corners paired, the face's emblem read alone on the middle
    view, dets, cards = _joker_reads([(40, 30, 11), (90, 100, 11), (66, 66, 11)], [[0, 1], [2]], "BJ")
    assert [c.card for c in _one_joker_a_card(view, dets, cards)] == ["BJ"]
    # one twin unread: the face's emblem on the middle, every mark within the card's reach
    view, dets, cards = _joker_reads([(40, 30, 11), (84, 30, 11), (90, 100, 11), (63, 66, 12)], [[0, 3], [1, 2]])
    assert [c.card for c in _one_joker_a_card(view, dets, cards)] == ["RJ"]


def test_two_jokers_fanned_stay_two_cards():
    from tracker.reader import _one_joker_a_card

    # two copies fanned 12 mm apart: the first's top corner beside the second's, level, one size;
    # the second's far corner and face emblem read too (within one card's reach of its middle)
    marks = [(46, 30, 11), (58, 30, 11), (103, 100, 11), (81, 65, 12)]
    view, dets, cards = _joker_reads(marks, [[0], [1, 2, 3]])
    assert [c.card for c in _one_joker_a_card(view, dets, cards)] == ["RJ", "RJ"]
    # sideways, three marks that no middle turns into each other
    view, dets, cards = _joker_reads([(60, 90, 12), (130, 46, 12), (111, 67, 12)], [[0, 1], [2]])
    assert [c.card for c in _one_joker_a_card(view, dets, cards)] == ["RJ", "RJ"]
    # two marks only: one of each card may lie as near as one card's two
    view, dets, cards = _joker_reads([(40, 30, 11), (90, 100, 11)], [[0], [1]])
    assert len(_one_joker_a_card(view, dets, cards)) == 2


def test_two_lone_marks_of_a_joker_are_one_card_when_far_apart_and_one_weak():
    from tracker.reader import _one_joker_a_card

    def read(marks, scores):
        view, dets, cards = _joker_reads(marks, [[0], [1]], "BJ")
        dets = Detections(dets.boxes, scores, dets.class_ids)
        return [c.card for c in _one_joker_a_card(view, dets, cards)]

    # plastic's black joker: one corner at 0.3, its far corner 79 mm off at 0.07, unpaired
    assert read([(140, 60, 12), (107, 132, 12)], [0.3, 0.07]) == ["BJ"]
    assert read([(140, 60, 12), (107, 132, 12)], [0.3, 0.25]) == ["BJ", "BJ"]  # read alike: two cards
    assert read([(140, 60, 12), (158, 62, 14)], [0.3, 0.07]) == ["BJ", "BJ"]  # a fan's step apart
    assert read([(40, 30, 12), (160, 130, 12)], [0.3, 0.07]) == ["BJ", "BJ"]  # farther than one card


def test_cards_shown_at_a_table_that_never_shows_its_kitty_are_read_into_the_kitty_zone():
    """Five seats: a top seat's rows of cards shown reach 13-54 mm past its zone toward the kitty
    zone, which is empty after the hand at a table that never shows its kitty: its crop of cards
    shown reaches up to 65 mm into it, and elsewhere as any seat's cards shown do."""
    from tracker.reader import KITTY_FREE_MM, _across_rows, _into_the_kitty_zone
    from tracker.zones import Calibration, MatLayout

    layout = MatLayout.standard(seats=5)
    w, h = layout.width_mm * 2.5, layout.height_mm * 2.5
    cal = Calibration.from_corners([[0, 0], [w, 0], [w, h], [0, h]], layout, (round(w), round(h)))
    top = next(z for z in ("seat2", "seat3") if cal.zones[z].max(axis=0)[1] < cal.zones["kitty"].min(axis=0)[1])
    left, up, right, down = _into_the_kitty_zone(cal, top, 30.0, (0.0, 0.0, 0.0, 0.0))
    gap = cal.zones["kitty"].min(axis=0)[1] - cal.zones[top].max(axis=0)[1]
    assert down == pytest.approx(KITTY_FREE_MM) and down > gap > _across_rows(cal, top, 30.0, (0, 0, 0, 0))[3]
    rows = _across_rows(cal, top, 30.0, (0.0, 0.0, 0.0, 0.0))
    assert (left, up, right) == pytest.approx(rows[:3])  # elsewhere as any seat's cards shown
    assert up < cal.margins(top, 30.0)[1]  # short of the mat's edge
