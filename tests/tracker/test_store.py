"""The event store: append-only, durable, readable back exactly, clear errors."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from engine.cards import parse_cards
from engine.events import Bid, Correction, Deal, Pass, Penalty, Play
from engine.hand import Hand
from tests.kit.store_writer import PLAYERS, scripted_log
from tracker.records import Alert, MatchEnd
from tracker.state import TableState
from tracker.store import EventStore, StoreError

ROOT = Path(__file__).resolve().parents[2]


def cards(text):
    return tuple(parse_cards(text))


@pytest.fixture
def store(tmp_path):
    s = EventStore(tmp_path / "t.db")
    yield s
    s.close()


def test_store_runs_in_wal_mode_with_full_sync(store):
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_events_read_back_equal_with_seq_source_and_hand(store):
    mid = store.create_match(PLAYERS, "classic", meta={"name": "周五", "best_of": 0})
    written = [Deal(counts=(17, 17, 17)), Bid(0, "bid", 3, time=1.5), Play(0, cards("3s"), time=3.0),
               Alert("uncertain_read", seat=1, cards="6h", suggestion="8h", data={"cause": "does_not_beat"})]
    seqs = [store.append(mid, 1, e, source="referee" if i == 1 else "camera") for i, e in enumerate(written)]
    assert seqs == sorted(seqs) and len(set(seqs)) == 4
    got = store.events(mid)
    assert [g.event for g in got] == written
    assert [g.seq for g in got] == seqs
    assert [g.source for g in got] == ["camera", "referee", "camera", "camera"]
    assert [g.kind for g in got] == ["deal", "bid", "play", "alert"]
    assert {g.hand for g in got} == {1}
    assert store.last_seq() == seqs[-1]
    assert [g.event for g in store.events(mid, after_seq=seqs[1])] == written[2:]
    info = store.match(mid)
    assert info.players == PLAYERS and info.rules.name == "classic" and info.meta["name"] == "周五"
    assert info.scoring == "points"


def test_events_filter_by_match_and_hand(store):
    a = store.create_match(PLAYERS)
    b = store.create_match(PLAYERS, {"name": "classic", "changes": {"scoring": "chips"}})
    store.append(a, 1, Deal(counts=(17, 17, 17)))
    store.append(b, 1, Deal(counts=(17, 17, 17)))
    store.append(a, 2, Deal(counts=(17, 17, 17), first_bidder=1))
    assert [e.hand for e in store.events(a)] == [1, 2]
    assert [e.match_id for e in store.events(b)] == [b]
    assert [e.event.first_bidder for e in store.events(a, hand=2)] == [1]
    assert len(store.events(None)) == 3
    assert store.hands(a) == [1, 2]
    assert [m.id for m in store.matches()] == [a, b]
    assert store.match(b).scoring == "chips"


def test_rows_cannot_be_updated_or_deleted(store):
    mid = store.create_match(PLAYERS)
    store.append(mid, 1, Deal(counts=(17, 17, 17)))
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        store._db.execute("UPDATE events SET kind = 'x'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        store._db.execute("DELETE FROM events")


def test_memory_store_and_threads_share_one_log():
    store = EventStore(":memory:")
    mid = store.create_match(PLAYERS)
    store.append(mid, 1, Deal(counts=(17, 17, 17)))
    errors = []

    def writer(seat):
        try:
            for _ in range(20):
                store.append(mid, 0, Penalty(seat, 1, "test"), source="referee")
        except Exception as exc:  # noqa: BLE001 - the assertion below reports it
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(s,)) for s in range(3)]
    for t in threads:
        t.start()
    for _ in range(50):
        store.events(mid)
    for t in threads:
        t.join()
    assert not errors
    assert len(store.events(mid, hand=0)) == 60
    match, _, _ = TableState.load(store, mid)
    assert match.totals() == [-20, -20, -20]


@pytest.mark.parametrize("call, message", [
    (lambda s, m: s.append(m, 1, Deal(counts=(17, 17, 17)), source="camera2"), "source"),
    (lambda s, m: s.append(m, -1, Deal(counts=(17, 17, 17))), "hand"),
    (lambda s, m: s.append(m + 99, 1, Deal(counts=(17, 17, 17))), "no match"),
    (lambda s, m: s.append(m, 1, {"kind": "deal"}), "cannot store"),
    (lambda s, m: s.create_match(("A", "B")), "3 players"),
    (lambda s, m: s.create_match(("A", "B", "C"), "nonsense"), "bad rules"),
    (lambda s, m: s.create_match(("A", "B", "C"), meta={"x": object()}), "JSON"),
    (lambda s, m: s.match(m + 99), "no match"),
])
def test_bad_calls_raise_store_error(store, call, message):
    mid = store.create_match(PLAYERS)
    with pytest.raises(StoreError, match=message):
        call(store, mid)


def test_garbage_file_is_a_clear_error(tmp_path):
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError, match="not a readable ddz-table event store"):
        EventStore(path)


def test_other_sqlite_database_is_refused(tmp_path):
    path = tmp_path / "other.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE people (name TEXT)")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="not a ddz-table event store"):
        EventStore(path)


def test_directory_is_refused(tmp_path):
    with pytest.raises(StoreError, match="directory"):
        EventStore(tmp_path)


def test_state_folds_hands_corrections_alerts_and_match_end(store):
    mid = store.create_match(PLAYERS)
    log = scripted_log(seed=3, hands=2)
    for number, event in log:
        store.append(mid, number, event)
    state = TableState.load(store, mid)
    match, hand, alerts = state
    expected = [Hand.from_events("classic", [e for n, e in log if n == k and not isinstance(e, Alert)])
                for k in (1, 2)]
    assert hand == expected[1]
    assert state.hand_number == 2
    assert len(match.hands) == sum(h.finished for h in expected)
    assert alerts == [e for n, e in log if n == 2 and isinstance(e, Alert)]
    # A correction refolds: undo the last event of hand 2.
    store.append(mid, 2, Correction("undo"), source="referee")
    state.refresh(store)
    assert state.hand.events == expected[1].events[:-1]
    store.append(mid, 0, MatchEnd("time"), source="referee")
    assert TableState.load(store, mid).ended == MatchEnd("time")


def test_event_refused_on_replay_becomes_an_alert(store):
    mid = store.create_match(PLAYERS)
    store.append(mid, 1, Deal(counts=(17, 17, 17)))
    store.append(mid, 1, Pass(1))  # bidding has not even started: the engine refuses it
    state = TableState.load(store, mid)
    assert state.hand.phase == "bidding"
    assert [a.alert for a in state.alerts] == ["rejected_on_replay"]


def _expected_state(seed: int, count: int) -> TableState:
    replay = EventStore(":memory:")
    mid = replay.create_match(PLAYERS)
    for number, event in scripted_log(seed)[:count]:
        replay.append(mid, number, event)
    return TableState.load(replay, mid)


def _same(a: TableState, b: TableState) -> bool:
    return (a.hand == b.hand and a.hand_number == b.hand_number and a.alerts == b.alerts
            and a.match.totals() == b.match.totals() and len(a.match.hands) == len(b.match.hands))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kill_minus_nine_loses_no_acknowledged_event(tmp_path, seed):
    path = tmp_path / "table.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "tests.kit.store_writer", str(path), str(seed)],
                            stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    assert proc.stdout.readline().startswith("match")
    acked: list[int] = []
    stop_after = random.Random(seed).randint(5, 120)
    deadline = time.monotonic() + 30
    while len(acked) < stop_after and time.monotonic() < deadline:
        line = proc.stdout.readline().strip()
        if not line or line == "done":
            break
        acked.append(int(line))
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    # acks already in the pipe were printed after append returned: they count too
    acked += [int(x) for x in proc.stdout.read().split() if x.isdigit()]
    assert acked, "the writer acknowledged nothing before it was killed"
    store = EventStore(path)
    try:
        seqs = [e.seq for e in store.events(1)]
        # every acknowledged event is there, plus at most the one in flight when it died
        assert seqs[:len(acked)] == acked
        assert len(seqs) - len(acked) in (0, 1)
        state = TableState.load(store, 1)
        assert _same(state, _expected_state(seed, len(seqs)))
    finally:
        store.close()
