"""The table reader alone: rendered toy-table frames in, observations out, no store, no referee."""

from __future__ import annotations

import doctest
from collections import Counter

import numpy as np
import pytest

import tracker.reader
import vision.protocol
from sim.toy_table import ToyDetector, ToyTable
from tests.kit.card_mat import calibration, laid
from tests.kit.toy_frames import LabelReadingDetector, TokenTable, UnsureDetector
from tracker.detection import build_detector
from tracker.reader import Observation, ReaderConfig, TableReader
from vision.cards import CARD_IDS
from vision.detections import Detections
from vision.protocol import CornerDetector, Detector
from vision.sources import Frame


def read_all(reader: TableReader, frames) -> list[Observation]:
    return [reader.read(Frame(image, t, 0)) for image, t in frames]


def settled(observations: list[Observation]) -> list[tuple[str, tuple[str, ...]]]:
    """Every zone's settled cards, in the order they settled."""
    return [(s.zone, s.cards.cards) for o in observations for s in o.settled]


def test_the_zones_are_each_seats_then_the_kitty():
    table = ToyTable(seed=1)
    assert TableReader(table.calibration(), ToyDetector()).zone_names == ("seat0", "seat1", "seat2", "kitty")
    two = TableReader(table.calibration(), ToyDetector(), players=2)
    assert two.zone_names == ("seat0", "seat1", "kitty")
    pile = TableReader(ToyTable(pile=True).calibration(), ToyDetector(), ReaderConfig(protocol="pile"))
    assert pile.zone_names == ("pile", "kitty")


def test_a_match_the_mat_has_no_seat_for_is_refused_and_changes_nothing():
    reader = TableReader(ToyTable(seed=1).calibration(), ToyDetector())
    with pytest.raises(ValueError, match="seat3"):
        reader.restart(4, 2)
    assert reader.zone_names == ("seat0", "seat1", "seat2", "kitty") and reader.decks == 1
    with pytest.raises(ValueError, match="protocol"):
        ReaderConfig(protocol="heap")


def test_a_card_put_down_settles_once_in_its_zone():
    table = ToyTable(seed=2)
    reader = TableReader(table.calibration(), ToyDetector())
    seen = read_all(reader, table.place("seat1", ["9h", "9s"]))
    assert settled(seen) == [("seat1", ("9h", "9s"))]
    play = next(s.cards for o in seen for s in o.settled)
    assert play.seat == 1 and len(play.confidences) == 2
    # the hand over the zone is motion: nothing read there while it lasts
    assert seen[0].moving == () and "seat1" in seen[1].moving
    assert all(not z.detected for z in seen[1].zones if z.zone == "seat1")
    # lying still, it is not a play again
    assert settled(read_all(reader, table.frames(20))) == []


def test_a_zone_lying_still_is_not_read_again_until_it_changes():
    table = ToyTable(seed=3)
    detector = ToyDetector()
    reader = TableReader(table.calibration(), detector)
    read_all(reader, table.place("seat0", ["3s"]))
    calls = detector.calls
    still = read_all(reader, table.frames(10))
    assert detector.calls == calls and not any(z.detected for o in still for z in o.zones)
    # the reads carried over are the cards lying there
    assert [s.card for s in still[-1].zone("seat0").seen] == ["3s"]


def test_the_kitty_is_the_kitty_zones_settled_cards():
    table = ToyTable(seed=4)
    reader = TableReader(table.calibration(), ToyDetector())
    seen = read_all(reader, table.place("kitty", ["3s", "BJ", "Kh"]))
    kitties = [o.kitty for o in seen if o.kitty is not None]
    assert len(kitties) == 1 and sorted(kitties[0]) == ["3s", "BJ", "Kh"]
    assert next(s.cards.seat for o in seen for s in o.settled) is None


def test_after_a_restart_cards_on_record_are_not_played_again_and_others_lying_there_are():
    table = ToyTable(seed=5)
    calibration = table.calibration()
    list(table.place("seat0", ["3s", "4s"]))  # lying there before the reader starts
    # mid-hand: the store has 3s as played from seat 0, so only 4s was put down just before the stop
    reader = TableReader(calibration, ToyDetector())
    reader.restart(3, 1, {"seat0": Counter(["3s"]), "seat1": Counter(), "seat2": Counter(), "kitty": Counter()})
    assert settled(read_all(reader, table.frames(12))) == [("seat0", ("4s",))]
    # no hand under way: what lies there is left over, and only cards put down from now on count
    fresh = TableReader(calibration, ToyDetector())
    assert settled(read_all(fresh, table.frames(12))) == []
    assert settled(read_all(fresh, table.place("seat2", ["8d"]))) == [("seat2", ("8d",))]


def test_a_new_hand_lets_the_last_hands_cards_come_again():
    table = ToyTable(seed=6)
    reader = TableReader(table.calibration(), ToyDetector())
    assert settled(read_all(reader, table.place("seat0", ["5c"]))) == [("seat0", ("5c",))]
    read_all(reader, table.sweep(["seat0"]))
    assert settled(read_all(reader, table.place("seat0", ["5c"]))) == []  # played in this hand already
    read_all(reader, table.sweep(["seat0"]))
    reader.new_hand()
    assert settled(read_all(reader, table.place("seat0", ["5c"]))) == [("seat0", ("5c",))]


def test_a_card_the_referee_stored_as_another_can_still_come_as_itself():
    table = ToyTable(seed=7)
    reader = TableReader(table.calibration(), ToyDetector())
    assert settled(read_all(reader, table.place("seat1", ["6h"]))) == [("seat1", ("6h",))]
    reader.replace_played("seat1", Counter(["6h"]), Counter(["6d"]))  # stored as 6d
    read_all(reader, table.sweep(["seat1"]))
    assert settled(read_all(reader, table.place("seat1", ["6h"]))) == [("seat1", ("6h",))]


def test_a_bid_token_laid_in_a_seats_zone_is_laid_once():
    table = TokenTable(seed=3)
    reader = TableReader(table.table.calibration(), ToyDetector())
    seen = read_all(reader, list(table.still(3)) + list(table.lay(1, "bid2")) + list(table.still(10)))
    assert [(seat, token.name) for o in seen for seat, token in o.laid] == [(1, "bid2")]
    assert [t.token.name for t in seen[-1].zone("seat1").tokens] == ["bid2"]
    assert settled(seen) == []  # the token's marker is no card


def test_on_the_centre_pile_the_seat_whose_arm_reached_in_is_named():
    table = ToyTable(seed=8, pile=True)
    reader = TableReader(table.calibration(), ToyDetector(), ReaderConfig(protocol="pile"))
    seen = read_all(reader, table.reach(2, "pile", ["Qs"]))
    assert settled(seen) == [("pile", ("Qs",))]
    assert seen[-1].reached_by == 2


def test_markers_unseen_for_long_are_a_lost_calibration_and_found_again_end_it():
    table = ToyTable(seed=9)
    reader = TableReader(table.calibration(), ToyDetector(), ReaderConfig(recalibrate_s=10.0, calibration_lost_s=30.0))
    dark = np.zeros_like(table.frame())
    checks = [reader.read(Frame(dark, t, 0)).calibration for t in (5.0, 10.0, 20.0, 30.0, 35.0, 40.0)]
    assert [c.checked for c in checks] == [False, True, True, True, False, True]
    assert [c.lost for c in checks] == [False, False, False, False, False, True]
    assert checks[-1].lost_since is not None
    back = reader.read(Frame(table.frame(), 50.0, 0)).calibration
    assert back.found and not back.lost and back.lost_since is None and not back.moved


def test_a_camera_that_moved_gets_the_new_view():
    table = ToyTable(seed=10)
    calibration = table.calibration()
    reader = TableReader(calibration, ToyDetector(), ReaderConfig(recalibrate_s=0.0))
    table.h_true = np.array([[1, 0, 12], [0, 1, 7], [0, 0, 1]]) @ table.h_true  # knocked: 12 px right, 7 down
    table._base = None
    check = reader.read(Frame(table.frame(), 1.0, 0)).calibration
    assert check.found and check.moved and reader.calibration is not calibration
    assert reader.calibration.shift_px(calibration) > 10


def test_a_deck_read_unsure_is_hinted_once_the_window_is_full():
    table = ToyTable(seed=11)
    reader = TableReader(table.calibration(), UnsureDetector(0.5), ReaderConfig(unfamiliar_window=4))
    hints = [z.unfamiliar for o in read_all(reader, table.place("seat0", ["3s", "4s", "5s"])) for z in o.zones
             if z.unfamiliar is not None]
    assert hints and hints[0].read == 4 and hints[0].unsure == 4
    taught = TableReader(table.calibration(), UnsureDetector(0.5, profile="club"), ReaderConfig(unfamiliar_window=4))
    assert not any(z.unfamiliar for o in read_all(taught, table.place("seat1", ["6s"])) for z in o.zones)


def test_a_card_index_lying_half_over_a_seat_number_is_still_read():
    table = ToyTable(seed=0)
    cal = table.calibration()
    reader = TableReader(cal, LabelReadingDetector(cal.layout, kept=True))
    view = cal.crop(np.full((720, 1280, 3), 200, np.uint8), "seat1")
    assert [s.card for s in reader.cards_in(view)] == ["9s"]


@pytest.mark.parametrize("inside, read", [
    (("7s", 0.7), ["7s"]),   # a long play's first card, its index whole over the seat number: a card
    (("7s", 0.3), []),       # as unsure as the label's own misreads: the mat
    (("2h", 0.7), []),       # the label's own number, however sure: the mat (seat 1 prints "2")
])
def test_a_sure_read_lying_whole_over_a_seat_number_is_a_card_unless_it_reads_as_the_number(inside, read):
    cal = ToyTable(seed=0).calibration()
    reader = TableReader(cal, LabelReadingDetector(cal.layout, inside=inside))
    view = cal.crop(np.full((720, 1280, 3), 200, np.uint8), "seat1")
    assert [s.card for s in reader.cards_in(view)] == read


class Blind(CornerDetector):
    def detect(self, image):
        return Detections.empty()


def test_the_shipped_detector_and_one_that_only_finds_corners_are_detectors():
    assert isinstance(build_detector("onnx"), Detector)
    assert isinstance(ToyDetector(), Detector) and isinstance(Blind(), Detector)
    assert ToyDetector().profile is None
    assert not isinstance(object(), Detector)


@pytest.mark.parametrize("module", [tracker.reader, vision.protocol])
def test_doctests(module):
    assert doctest.testmod(module).failed == 0


class EdgeReads(CornerDetector):
    """Reads one 7h whose index touches the top of every crop it is given, and keeps their sizes."""

    def __init__(self) -> None:
        self.sizes: list[tuple[int, int]] = []

    def detect(self, image):
        self.sizes.append(image.shape[:2])
        return Detections([[100.0, 1.0, 118.0, 45.0]], [0.9], [CARD_IDS.index("7h")])


def test_a_zone_read_astride_its_edge_is_read_again_past_it_and_only_then():
    """Rows of cards reach past the zone (the four-seat films): a zone whose index reads touch
    its edge is read again 10 mm further, at most halfway to the next zone."""
    detector = EdgeReads()
    cal = calibration()
    reader = TableReader(cal, detector, ReaderConfig(margin_mm=10.0))
    reader.read(Frame(laid([]), 0.0, 0))
    (x1, y1), (x2, y2) = cal.zones["seat0"].min(axis=0), cal.zones["seat0"].max(axis=0)
    plain = (round((y2 - y1) * 2.5), round((x2 - x1) * 2.5))
    left, top, right, bottom = cal.margins("seat0", 10.0)
    wide = (round((y2 - y1 + top + bottom) * 2.5), round((x2 - x1 + left + right) * 2.5))
    assert plain in detector.sizes and wide in detector.sizes
    assert top == 10.0 and 0 < left < 10.0  # the seat zones beside it lie nearer than 20 mm
    detector.sizes.clear()
    TableReader(cal, detector, ReaderConfig(margin_mm=0.0)).read(Frame(laid([]), 0.0, 0))
    assert wide not in detector.sizes
    with pytest.raises(ValueError, match="margin_mm"):
        ReaderConfig(margin_mm=-1)


class MiddleReads(CornerDetector):
    """Reads one 7h in the middle of every crop it is given (no index near an edge), and keeps
    the crops' sizes."""

    def __init__(self) -> None:
        self.sizes: list[tuple[int, int]] = []

    def detect(self, image):
        self.sizes.append(image.shape[:2])
        h, w = image.shape[:2]
        return Detections([[w / 2 - 9, h / 2 - 22, w / 2 + 9, h / 2 + 22]], [0.9], [CARD_IDS.index("7h")])


def test_after_the_hand_seat_zones_are_read_past_the_edges_across_their_rows():
    """Cards shown after the hand lie in rows along the zone reaching past it across them, the
    far row's indices wholly outside: while the hand is over every seat zone is read past the
    two edges that bound its short side (not only where an index lies astride one), never so
    far that the crop's short side outgrows its long one (the finder would see it smaller);
    once a hand is dealt the zone is read as it is again."""
    detector = MiddleReads()
    cal = calibration()
    reader = TableReader(cal, detector, ReaderConfig(show_margin_mm=30.0))
    (x1, y1), (x2, y2) = cal.zones["seat0"].min(axis=0), cal.zones["seat0"].max(axis=0)
    assert x2 - x1 > y2 - y1  # the bottom seat's zone lies along the table's edge
    plain = (round((y2 - y1) * 2.5), round((x2 - x1) * 2.5))

    def seat0() -> list[tuple[int, int]]:  # the crops as wide as seat 0's zone (no other zone is)
        return [(h, w) for h, w in detector.sizes if w == plain[1]]

    reader.read(Frame(laid([]), 0.0, 0))
    assert seat0() == [plain]  # in play: its own crop
    reader.showing = True
    detector.sizes.clear()
    reader.read(Frame(laid([]), 0.1, 1))  # the table unchanged: read again because the hand ended
    (h, w), = [size for size in seat0() if size != plain]
    assert plain[0] < h <= w
    reader.showing = False
    detector.sizes.clear()
    reader.read(Frame(laid([]), 0.2, 2))
    assert seat0() == [plain]
    with pytest.raises(ValueError, match="show_margin_mm"):
        ReaderConfig(show_margin_mm=-1)


class FaintReads(CornerDetector):
    """Reads a 9s surely and, under the threshold, a Jh beside it and a 5c further off."""

    def detect(self, image):
        return self.detect_faint(image, 0.08)[0]

    def detect_faint(self, image, faint):
        h, w = image.shape[:2]
        sure = Detections([[w / 2 - 9, h / 2 - 22, w / 2 + 9, h / 2 + 22]], [0.9], [CARD_IDS.index("9s")])
        weak = Detections([[w / 2 + 20, h / 2 - 22, w / 2 + 38, h / 2 + 22], [2.0, 2.0, 40.0, 60.0]],
                          [0.12, 0.11], [CARD_IDS.index("Jh"), CARD_IDS.index("5c")])
        return sure, weak[weak.scores >= faint]


def test_reads_under_the_threshold_are_kept_aside_as_faint_never_as_cards():
    reader = TableReader(calibration(), FaintReads())
    seen = [reader.read(Frame(laid([]), t / 10, 0)) for t in range(12)]
    assert {c.card for z in seen[-1].zones for c in z.seen} == {"9s"}
    # hints for the referee, surest first
    assert reader.faint("seat0") == (("Jh", pytest.approx(0.12)), ("5c", pytest.approx(0.11)))
    # a detector without detect_faint gives none
    plain = TableReader(calibration(), MiddleReads())
    plain.read(Frame(laid([]), 0.0, 0))
    assert plain.faint("seat0") == ()
