"""The demo's simulated table: bots play legal hands into the store, hand after hand."""

from __future__ import annotations

import pytest

from engine.events import Correction, Deal, Play
from sim.demo.feeder import SimulatedTable
from tests.kit.table_site import new_match
from tracker.records import Alert
from tracker.state import TableState


def _fast(store, mid, **kw) -> SimulatedTable:
    table = SimulatedTable(store, mid, speed=1e6, seed=3, pause=0, **kw)
    return table


def test_bots_play_whole_hands_that_the_fold_accepts(store):
    mid = new_match(store)
    table = _fast(store, mid, hands=3)
    while table.step():
        pass
    state = TableState.load(store, mid)
    assert table.dealt == 3 and state.hand_numbers == [1, 2, 3]
    assert all(state.hand_of(n).finished for n in state.hand_numbers)
    assert not [a for a in state.all_alerts.values() for a in a if a.alert == "rejected_on_replay"]
    assert {r.source for r in store.events(mid)} == {"camera"}
    # Rotation of the first bidder comes from the match, as a real table's would.
    deals = [r.event for r in store.events(mid) if isinstance(r.event, Deal)]
    for n, (before, after) in enumerate(zip(deals, deals[1:], strict=False), 1):
        redeal = state.hand_of(n).redeal
        assert after.first_bidder == (before.first_bidder if redeal else (before.first_bidder + 1) % 3)


def test_misreads_raise_uncertain_read_alerts_with_the_true_cards(store):
    mid = new_match(store)
    table = _fast(store, mid, hands=1, misread_rate=1.0)
    while table.step():
        pass
    rows = store.events(mid)
    alerts = [(i, r.event) for i, r in enumerate(rows) if isinstance(r.event, Alert)]
    assert alerts, "every play is misread once, and most misreads break a rule"
    for i, alert in alerts:
        assert alert.alert == "uncertain_read" and alert.cards != alert.suggestion
        nxt = rows[i + 1].event
        assert isinstance(nxt, Play) and " ".join(map(str, nxt.cards)) == alert.suggestion


def test_the_table_follows_a_referee_correction(store):
    mid = new_match(store)
    table = _fast(store, mid)
    while not any(isinstance(r.event, Play) for r in store.events(mid)):
        table.step()
    store.append(mid, 1, Correction("undo"), source="referee")
    for _ in range(40):
        table.step()
    state = TableState.load(store, mid)
    assert not [a for a in state.alerts if a.alert == "rejected_on_replay"]
    assert state.hand is not None and state.hand.plays


def test_stops_when_the_match_ends_and_refuses_a_bad_speed(store):
    from tracker.records import MatchEnd

    mid = new_match(store)
    store.append(mid, 0, MatchEnd("done"))
    assert _fast(store, mid).step() is False
    with pytest.raises(ValueError):
        SimulatedTable(store, mid, speed=0)


def test_runs_in_a_thread_and_reports_status(store):
    mid = new_match(store)
    table = SimulatedTable(store, mid, speed=1000, seed=1)
    table.start()
    try:
        import time

        deadline = time.time() + 10
        while table.events < 5 and time.time() < deadline:
            time.sleep(0.05)
        status = table.status()
        assert status["running"] is True and status["events"] >= 5 and status["last_frame"] is not None
    finally:
        table.stop()
    assert table.status()["running"] is False
