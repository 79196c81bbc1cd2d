"""Boxes replicating to a real server: network cuts, box restarts, a server killed with -9,
and 60 tables at once. Nothing lost, nothing doubled; standings equal a recomputation."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from club.live import Live
from club.sqlite import SqliteStorage
from club.tournament import next_session
from sim.scripted import random_hand
from tests.kit.club_server import KEY, ProcessServer, ThreadServer
from tracker.replicate import Replicator
from tracker.store import EventStore


def play(store: EventStore, match_id: int, hand: int, seed: int) -> int:
    events = random_hand("chips", seed).log
    for e in events:
        store.append(match_id, hand, e)
    return len(events)


def caught_up(rep: Replicator, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            rep.step()
        except (OSError, ConnectionError):
            time.sleep(0.05)
            continue
        if rep.acked == rep.store.last_seq():
            return
    raise AssertionError(f"not caught up: acked {rep.acked}, box at {rep.store.last_seq()}")


def held(storage, table: int) -> list[int]:
    return [e.seq for e in storage.box_events(table)]


def test_a_network_cut_and_a_box_restart_lose_and_double_nothing(tmp_path):
    storage = SqliteStorage(str(tmp_path / "club.db"))
    box = EventStore(str(tmp_path / "box.db"))
    mid = box.create_match(("甲", "乙", "丙"), "chips")
    with ThreadServer(storage) as server:
        port = server.server.effective_port
        rep = Replicator(box, server.url, table=2, key=KEY, timeout=1.0)
        play(box, mid, 1, 1)
        caught_up(rep)
    # The Wi-Fi is gone: the table keeps scoring, the replicator only fails and waits.
    play(box, mid, 2, 2)
    with pytest.raises(OSError):
        rep.step()
    assert len(box.events(mid)) > len(held(storage, 2))
    with ThreadServer(storage, port=port):
        restarted = Replicator(box, rep.url, table=2, key=None, timeout=1.0)  # the box restarted: no key needed
        assert restarted.state["token"] == rep.state["token"]
        caught_up(restarted)
        play(box, mid, 3, 3)
        caught_up(restarted)
    assert held(storage, 2) == [e.seq for e in box.events(None)]
    box.close()
    storage.close()


def test_a_server_killed_mid_event_loses_nothing_acknowledged(tmp_path):
    db = str(tmp_path / "club.db")
    server = ProcessServer(db).start()
    box = EventStore(str(tmp_path / "box.db"))
    mid = box.create_match(("甲", "乙", "丙"), "chips")
    rep = Replicator(box, server.url, table=9, key=KEY, interval=0.05, timeout=1.0).start()
    try:
        for hand in range(1, 4):
            play(box, mid, hand, 100 + hand)
            time.sleep(0.1)
        server.kill9()  # mid-event: the box keeps appending while the server is dead
        for hand in range(4, 7):
            play(box, mid, hand, 100 + hand)
        server.start()
        deadline = time.monotonic() + 40
        while rep.acked != box.last_seq() and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        rep.stop()
        server.stop()
    storage = SqliteStorage(db)
    assert held(storage, 9) == [e.seq for e in box.events(None)]
    storage.close()
    box.close()


def test_sixty_tables_post_every_event_exactly_once_and_standings_match_a_recomputation(tmp_path):
    storage = SqliteStorage(str(tmp_path / "club.db"))
    tid = storage.create_tournament("六十桌", "seed004", {}, seed=60)
    for p in range(1, 181):
        storage.add_player(tid, f"P{p}", f"C{p}", f"code-{p}")
    live = Live(storage)
    storage.act(tid, "session", next_session(live.state, {}, time.time()))
    key = f"{tid}/knockout-1"
    storage.act(tid, "start", {"session": key, "at": time.time()})
    boxes = [EventStore(str(tmp_path / f"box{t}.db")) for t in range(1, 61)]
    errors: list[BaseException] = []

    def table(number: int) -> None:
        try:
            store = boxes[number - 1]
            rep = Replicator(store, server.url, table=number, key=KEY, interval=0.1, timeout=5.0).start()
            deadline = time.monotonic() + 30
            while not store.matches() and time.monotonic() < deadline:  # the club's draw arrives
                time.sleep(0.05)
            [info] = store.matches()
            assert info.meta["club_session"] == key
            for hand in range(1, 4):
                play(store, info.id, hand, number * 10 + hand)
            while rep.acked != store.last_seq() and time.monotonic() < deadline + 30:
                time.sleep(0.05)
            rep.stop()
        except BaseException as exc:  # reported below: a thread's failure must fail the test
            errors.append(exc)

    with ThreadServer(storage) as server:
        threads = [threading.Thread(target=table, args=(n,)) for n in range(1, 61)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout=120)
    assert not errors, errors[:3]
    expected = {(t, e.seq) for t, store in enumerate(boxes, 1) for e in store.events(None)}
    got = [(e.table_no, e.seq) for e in storage.box_events()]
    assert len(got) == len(set(got)) and set(got) == expected

    # Recompute from the boxes' own stores, without the network, into a fresh database.
    again = SqliteStorage(str(tmp_path / "again.db"))
    again.create_tournament("六十桌", "seed004", {}, seed=60)
    for p in storage.players(tid):
        again.add_player(tid, p.name, p.club_id, p.code)
    for a in storage.actions(tid):
        again.act(tid, a.action, a.data, now=a.time)
    from club.ingest import parse_batch

    for t, store in enumerate(boxes, 1):
        again.register(t, "box-recompute", "x")
        prev, wire = 0, []
        for e in store.events(None):
            wire.append({"seq": e.seq, "prev": prev, "match_id": e.match_id, "hand": e.hand, "time": e.time,
                         "kind": e.kind, "source": e.source, "event": e.event.to_dict()})
            prev = e.seq
        events, matches = parse_batch(t, {"box": "box-recompute", "events": wire,
                                          "matches": [m.to_dict() for m in store.matches()]})
        again.ingest(t, "box-recompute", events, matches)
    now = time.time()
    served, recomputed = Live(storage).hall(now), Live(again).hall(now)
    assert [(r["table"], r["totals"], r["hand"]) for r in served["tables"]] == \
           [(r["table"], r["totals"], r["hand"]) for r in recomputed["tables"]]
    assert served["leaderboard"] == recomputed["leaderboard"]
    assert all(r["hand"] == 3 for r in served["tables"])
    for store in boxes:
        store.close()
    storage.close()
    again.close()


def test_a_server_that_dies_mid_answer_leaves_the_replicator_running(tmp_path):
    """The headers of an answer, then nothing (the server killed between its writes): the round
    fails and is tried again later, and the replicator's thread is not ended by it."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def cut_short() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            request = b""
            while b"\r\n\r\n" not in request:  # the whole request first: closing on unread bytes resets it
                request += conn.recv(65536)
            head, _, body = request.partition(b"\r\n\r\n")
            length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            while len(body) < length:
                body += conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 300\r\n\r\n{")
            conn.close()

    threading.Thread(target=cut_short, daemon=True).start()
    box = EventStore(str(tmp_path / "box.db"))
    rep = Replicator(box, f"http://127.0.0.1:{port}", table=3, key=KEY, timeout=2.0)
    try:
        pause = rep.attempt()
        assert pause > 0 and rep.failures == 1 and "cut short" in rep.error
        with pytest.raises(ConnectionError):
            rep.step()
    finally:
        listener.close()
        box.close()
