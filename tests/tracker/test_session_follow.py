"""The live session follows the match the referee page starts, locks the focus once the
markers are found on a live frame, and shows the camera's settings in its status."""

from __future__ import annotations

import time

import numpy as np

from sim.toy_table import ToyDetector, ToyTable
from tracker.reader import ReaderConfig
from tracker.session import SessionConfig, TableSession
from tracker.state import TableState
from tracker.store import EventStore
from vision.sources import CallableSource, Frame


def plays(store, mid):
    hand = TableState.load(store, mid).hand
    return [] if hand is None else [(p.seat, " ".join(map(str, p.cards))) for p in hand.plays]


def start_match_on_the_page(store, players=("丁", "戊", "己"), preset="classic"):
    """As webui.actions' start_match stores it: the names, the rules, a name and start time."""
    return store.create_match(players, preset, meta={"name": "evening", "started": time.time()})


def toy_session(seed, source=None, follow_new_matches=False, **reading):
    """A toy table, a store with one three-seat match, and a session refereeing it (``reading``:
    :class:`tracker.reader.ReaderConfig` fields)."""
    table = ToyTable(seed=seed)
    store = EventStore(":memory:")
    first = store.create_match(("甲", "乙", "丙"))
    config = SessionConfig(follow_new_matches=follow_new_matches, reader=ReaderConfig(**reading))
    session = TableSession(source, table.calibration(), ToyDetector(), store, first, config)
    return table, store, first, session


def feed(session, frames):
    for image, t in frames:
        session.process(Frame(image, t, 0))


def test_a_match_started_on_the_page_is_followed_and_its_plays_land_there():
    table, store, first, session = toy_session(11, follow_new_matches=True)
    feed(session, table.place("seat0", ["3s"]))
    assert plays(store, first) == [(0, "3s")]
    second = start_match_on_the_page(store)
    # 3s still lies in seat 0's zone: it was played in the first match, not in this one
    feed(session, list(table.frames(15)) + list(table.place("seat1", ["9h"])))
    assert session.match_id == second and session.referee.match_id == second
    assert session.status()["match"] == second and session.error is None
    assert plays(store, second) == [(1, "9h")]
    assert plays(store, first) == [(0, "3s")]


def test_a_pinned_pipeline_stays_on_its_match():
    table, store, first, session = toy_session(12, follow_new_matches=False)
    start_match_on_the_page(store)
    feed(session, list(table.frames(15)) + list(table.place("seat0", ["3s"])))
    assert session.match_id == first
    assert plays(store, first) == [(0, "3s")]


def test_a_two_player_match_gets_two_seat_zones():
    table, store, _, session = toy_session(13, follow_new_matches=True)
    second = start_match_on_the_page(store, ("甲", "乙"), "two")
    feed(session, table.frames(2))
    assert session.match_id == second and session.reader.decks == 1
    assert session.reader.zone_names == ("seat0", "seat1", "kitty")


def test_a_match_the_mat_has_no_seats_for_is_not_followed_and_says_why():
    table, store, first, session = toy_session(14, follow_new_matches=True)
    four = start_match_on_the_page(store, ("甲", "乙", "丙", "丁"), "four")
    feed(session, list(table.frames(15)) + list(table.place("seat0", ["3s"])))
    assert session.match_id == first
    error = session.status()["error"]
    assert error is not None and f"match {four}" in error and "seat3" in error
    assert plays(store, first) == [(0, "3s")] and plays(store, four) == []
    # a later three-player match is followed, and the note about the refused one goes
    third = start_match_on_the_page(store)
    feed(session, table.frames(12))
    assert session.match_id == third and session.error is None


class FocusSource(CallableSource):
    def __init__(self, render) -> None:
        super().__init__(render, name="pi")
        self.locks = 0
        self._status.camera = {"focus": "auto", "lens_position": 2.5}

    def lock_focus(self) -> bool:
        self.locks += 1
        return True


def test_the_focus_is_locked_once_the_markers_are_found_on_a_live_frame():
    source = FocusSource(lambda i: None)
    table, store, _, session = toy_session(15, source=source, recalibrate_s=0.0)
    dark = np.zeros_like(table.frame())
    session.process(Frame(dark, 0.0, 0))  # no markers in view: the lens is left to autofocus
    assert source.locks == 0
    feed(session, table.frames(5))
    assert source.locks == 1


def test_sources_without_a_focus_to_lock_are_fine():
    table, store, _, session = toy_session(16, recalibrate_s=0.0)
    feed(session, table.frames(3))
    assert session._focus_locked and session.error is None


def test_status_shows_what_the_camera_settled_on():
    table = ToyTable(seed=17)
    store = EventStore(":memory:")
    source = FocusSource(lambda i: None)
    session = TableSession(source, table.calibration(), ToyDetector(), store, store.create_match(("甲", "乙", "丙")))
    assert session.status()["camera"] == {"focus": "auto", "lens_position": 2.5}
    bare = TableSession(None, table.calibration(), ToyDetector(), store, store.create_match(("甲", "乙", "丙")))
    assert bare.status()["camera"] == {}


def test_markers_unseen_for_long_are_a_lost_calibration_and_found_again_end_it():
    table, store, _, session = toy_session(18, recalibrate_s=10.0, calibration_lost_s=30.0)
    dark = np.zeros_like(table.frame())
    for t in (10.0, 20.0, 30.0):  # a hand over a marker for a moment is not a lost calibration
        session.process(Frame(dark, t, 0))
    assert session.status()["calibration_lost"] is False
    session.process(Frame(dark, 40.0, 0))
    status = session.status()
    assert status["calibration_lost"] is True and status["calibration_lost_since"] is not None
    session.process(Frame(table.frame(), 50.0, 0))  # the mat is in view again
    assert session.status()["calibration_lost"] is False
    assert session.status()["calibration_lost_since"] is None


def test_a_calibration_from_corners_is_never_reported_lost():
    table, store, _, session = toy_session(19, recalibrate_s=10.0, calibration_lost_s=30.0)
    session.calibration.method = "corners"
    dark = np.zeros_like(table.frame())
    for t in range(10, 100, 10):
        session.process(Frame(dark, float(t), 0))
    assert session.status()["calibration_lost"] is False
