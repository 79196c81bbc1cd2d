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
