"""Five players and 斗帝主 on film, read with nobody entering them on the page: the marker card
lying in its seat's zone names the open landlord, the twin laid down names the hidden one, and
what the 帝主 takes from the kitty shown is his pick (docs/camera-table.md, "Five players and
斗帝主"). The toy deck leaves the card reader out, so every play and the points must be exact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.simulate import write_simulation
from engine.events import Deal
from sim.compare import compare_hands
from sim.simulate import SimConfig
from sim.toy_table import ToyDetector
from tracker.match_record import match_record
from tracker.session import TableSession
from tracker.state import TableState
from tracker.store import EventStore
from tracker.zones import Calibration
from vision.sources import OpenCVSource

pytestmark = pytest.mark.heavy  # films and reads a short game: half a minute


def film_and_read(folder: Path, config: SimConfig) -> tuple[dict, EventStore, int]:
    """Film ``config`` and read it; the page enters only the deal (a short deal's counts)."""
    write_simulation(config, folder)
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    store = EventStore(":memory:")
    mid = store.create_match(tuple(f"P{i}" for i in range(config.seats)), truth["preset"])
    deal = truth["hands"][0]["events"][0]
    store.append(mid, 1, Deal(counts=tuple(deal["counts"]), first_bidder=deal["first_bidder"]), source="referee")
    session = TableSession(None, Calibration.load(folder / "calibration.json"), ToyDetector(), store, mid)
    source = OpenCVSource(str(folder / "video.mp4"))
    while (frame := source.read()) is not None:
        session.process(frame)
    return truth, store, mid


def camera_events(store: EventStore, mid: int, kind: str) -> list:
    return [e.event for e in store.events(mid) if e.source == "camera" and e.event.kind == kind]


def test_five_seats_the_camera_reads_the_marker_card_and_every_play(tmp_path):
    truth, store, mid = film_and_read(tmp_path, SimConfig(seed=3, seats=5, hands=1, cards=3, tokens=True,
                                                          style="toy", fps=4))
    marker = next(e for e in truth["hands"][0]["events"] if e["kind"] == "marker")
    stored = camera_events(store, mid, "marker")
    assert [(m.seat, str(m.card)) for m in stored] == [(marker["seat"], marker["card"])]
    record = match_record(TableState.load(store, mid), finished_only=False)
    score = compare_hands(truth["hands"], record["hands"])
    assert score.plays == score.exact > 0 and score.phantom == 0
    assert record["hands"][0]["result"]["points"] == truth["hands"][0]["result"]["points"]


def test_dizhu_the_camera_reads_the_kitty_and_the_cards_the_dizhu_took(tmp_path):
    truth, store, mid = film_and_read(tmp_path, SimConfig(seed=4, seats=3, rules="dizhu", hands=1, cards=3,
                                                          tokens=True, style="toy", fps=4))
    events = truth["hands"][0]["events"]
    kitty = next(e for e in events if e["kind"] == "kitty")
    pick = next(e for e in events if e["kind"] == "kitty_pick")
    assert [sorted(map(str, k.cards)) for k in camera_events(store, mid, "kitty")] == [sorted(kitty["cards"].split())]
    picks = camera_events(store, mid, "kitty_pick")
    assert [(p.seat, sorted(map(str, p.cards))) for p in picks] == [(pick["seat"], sorted(pick["cards"].split()))]
    record = match_record(TableState.load(store, mid), finished_only=False)
    score = compare_hands(truth["hands"], record["hands"])
    assert score.plays == score.exact > 0 and score.phantom == 0
    assert record["hands"][0]["result"]["points"] == truth["hands"][0]["result"]["points"]
