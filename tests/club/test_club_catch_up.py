"""A box that was away for an evening catches up: it reads its store one batch at a time and the
server ends up with every event exactly once."""

from __future__ import annotations

from club.sqlite import SqliteStorage
from sim.scripted import random_hand
from tests.kit.club_server import KEY, ThreadServer
from tracker.replicate import Replicator
from tracker.store import EventStore, StoreError

EVENTS = 20_000


def long_evening(store: EventStore, mid: int, count: int) -> None:
    hand, seed = 0, 0
    while store.last_seq() < count:
        hand, seed = hand + 1, seed + 1
        for event in random_hand("chips", seed).log[:count - store.last_seq()]:
            store.append(mid, hand, event)


def test_catching_up_on_twenty_thousand_events_reads_a_batch_at_a_time_and_sends_each_once():
    store = EventStore(":memory:")
    mid = store.create_match(("甲", "乙", "丙"), "chips")
    long_evening(store, mid, EVENTS)
    reads: list[int] = []
    read = store.events

    def counted(*args, **kwargs):
        got = read(*args, **kwargs)
        reads.append(len(got))
        return got

    store.events = counted  # the replicator's reads, counted
    storage = SqliteStorage(":memory:")
    with ThreadServer(storage) as server:
        rep = Replicator(store, server.url, table=6, key=KEY, batch=500, timeout=10.0)
        rounds = 0
        while rep.attempt() == 0.0:  # no pause between full batches
            rounds += 1
            assert rounds <= EVENTS // 500 + 1, "the replicator does not converge"
    assert rep.error is None and rep.acked == store.last_seq() == EVENTS
    assert reads and max(reads) <= 500 and sum(reads) == EVENTS  # one batch per read, each event read once
    held = [(e.seq, e.prev) for e in storage.box_events(6)]
    assert [s for s, _ in held] == list(range(1, EVENTS + 1))  # every event, once, in order
    assert all(prev == seq - 1 for seq, prev in held)
    assert rep.status()["state"] == "in_step" and rep.sent == EVENTS
    storage.close()
    store.close()


def test_a_read_limit_that_is_not_a_positive_number_is_refused():
    store = EventStore(":memory:")
    mid = store.create_match(("甲", "乙", "丙"), "chips")
    for event in random_hand("chips", 1).log[:5]:
        store.append(mid, 1, event)
    assert [e.seq for e in store.events(None, after_seq=1, limit=2)] == [2, 3]
    assert len(store.events(mid, limit=2**70)) == 5  # beyond SQLite's integers: simply everything
    for bad in (0, -1, 2.5, "10", True):
        try:
            store.events(None, limit=bad)
        except StoreError as exc:
            assert "limit" in str(exc)
        else:
            raise AssertionError(f"limit={bad!r} was accepted")
    store.close()
