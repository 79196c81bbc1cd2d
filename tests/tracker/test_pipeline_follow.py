"""The live pipeline follows the match the referee page starts, locks the focus once the
markers are found on a live frame, and shows the camera's settings in its status."""

from __future__ import annotations

import time

import numpy as np

from sim.toy_table import ToyDetector, ToyTable
from tracker.pipeline import Pipeline, PipelineConfig
from tracker.state import TableState
from tracker.store import EventStore
from vision.sources import CallableSource, Frame


def plays(store, mid):
    hand = TableState.load(store, mid).hand
    return [] if hand is None else [(p.seat, " ".join(map(str, p.cards))) for p in hand.plays]


def start_match_on_the_page(store, players=("丁", "戊", "己"), preset="classic"):
    """As webui.actions' start_match stores it: the names, the rules, a name and start time."""
    return store.create_match(players, preset, meta={"name": "evening", "started": time.time()})


def toy_pipeline(seed, source=None, **config):
    """A toy table, a store with one three-seat match, and a pipeline refereeing it."""
    table = ToyTable(seed=seed)
    store = EventStore(":memory:")
    first = store.create_match(("甲", "乙", "丙"))
    pipeline = Pipeline(source, table.calibration(), ToyDetector(), store, first, PipelineConfig(**config))
    return table, store, first, pipeline


def feed(pipeline, frames):
    for image, t in frames:
        pipeline.process(Frame(image, t, 0))


def test_a_match_started_on_the_page_is_followed_and_its_plays_land_there():
    table, store, first, pipeline = toy_pipeline(11, follow_new_matches=True)
    feed(pipeline, table.place("seat0", ["3s"]))
    assert plays(store, first) == [(0, "3s")]
    second = start_match_on_the_page(store)
    # 3s still lies in seat 0's zone: it was played in the first match, not in this one
    feed(pipeline, list(table.frames(15)) + list(table.place("seat1", ["9h"])))
    assert pipeline.match_id == second and pipeline.referee.match_id == second
    assert pipeline.status()["match"] == second and pipeline.error is None
    assert plays(store, second) == [(1, "9h")]
    assert plays(store, first) == [(0, "3s")]


def test_a_pinned_pipeline_stays_on_its_match():
    table, store, first, pipeline = toy_pipeline(12, follow_new_matches=False)
    start_match_on_the_page(store)
    feed(pipeline, list(table.frames(15)) + list(table.place("seat0", ["3s"])))
    assert pipeline.match_id == first
    assert plays(store, first) == [(0, "3s")]


def test_a_two_player_match_gets_two_seat_zones():
    table, store, _, pipeline = toy_pipeline(13, follow_new_matches=True)
    second = start_match_on_the_page(store, ("甲", "乙"), "two")
    feed(pipeline, table.frames(2))
    assert pipeline.match_id == second and pipeline.decks == 1
    assert [z.name for z in pipeline.zones] == ["seat0", "seat1", "kitty"]


def test_a_match_the_mat_has_no_seats_for_is_not_followed_and_says_why():
    table, store, first, pipeline = toy_pipeline(14, follow_new_matches=True)
    four = start_match_on_the_page(store, ("甲", "乙", "丙", "丁"), "four")
    feed(pipeline, list(table.frames(15)) + list(table.place("seat0", ["3s"])))
    assert pipeline.match_id == first
    error = pipeline.status()["error"]
    assert error is not None and f"match {four}" in error and "seat3" in error
    assert plays(store, first) == [(0, "3s")] and plays(store, four) == []
    # a later three-player match is followed, and the note about the refused one goes
    third = start_match_on_the_page(store)
    feed(pipeline, table.frames(12))
    assert pipeline.match_id == third and pipeline.error is None


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
    table, store, _, pipeline = toy_pipeline(15, source=source, recalibrate_s=0.0)
    dark = np.zeros_like(table.frame())
    pipeline.process(Frame(dark, 0.0, 0))  # no markers in view: the lens is left to autofocus
    assert source.locks == 0
    feed(pipeline, table.frames(5))
    assert source.locks == 1


def test_sources_without_a_focus_to_lock_are_fine():
    table, store, _, pipeline = toy_pipeline(16, recalibrate_s=0.0)
    feed(pipeline, table.frames(3))
    assert pipeline._focus_locked and pipeline.error is None


def test_status_shows_what_the_camera_settled_on():
    table = ToyTable(seed=17)
    store = EventStore(":memory:")
    source = FocusSource(lambda i: None)
    pipeline = Pipeline(source, table.calibration(), ToyDetector(), store, store.create_match(("甲", "乙", "丙")))
    assert pipeline.status()["camera"] == {"focus": "auto", "lens_position": 2.5}
    bare = Pipeline(None, table.calibration(), ToyDetector(), store, store.create_match(("甲", "乙", "丙")))
    assert bare.status()["camera"] == {}


def test_markers_unseen_for_long_are_a_lost_calibration_and_found_again_end_it():
    table, store, _, pipeline = toy_pipeline(18, recalibrate_s=10.0, calibration_lost_s=30.0)
    dark = np.zeros_like(table.frame())
    for t in (10.0, 20.0, 30.0):  # a hand over a marker for a moment is not a lost calibration
        pipeline.process(Frame(dark, t, 0))
    assert pipeline.status()["calibration_lost"] is False
    pipeline.process(Frame(dark, 40.0, 0))
    status = pipeline.status()
    assert status["calibration_lost"] is True and status["calibration_lost_since"] is not None
    pipeline.process(Frame(table.frame(), 50.0, 0))  # the mat is in view again
    assert pipeline.status()["calibration_lost"] is False
    assert pipeline.status()["calibration_lost_since"] is None


def test_a_calibration_from_corners_is_never_reported_lost():
    table, store, _, pipeline = toy_pipeline(19, recalibrate_s=10.0, calibration_lost_s=30.0)
    pipeline.calibration.method = "corners"
    dark = np.zeros_like(table.frame())
    for t in range(10, 100, 10):
        pipeline.process(Frame(dark, float(t), 0))
    assert pipeline.status()["calibration_lost"] is False
