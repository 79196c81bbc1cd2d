"""The hall's projection (club.live.Live): kept between asks, it equals a recomputation from the
store after every batch of a random evening; a table's result is computed again only when a hand
it counts changes; one snapshot is built per change, whatever the number of viewers; the hall
takes no row lock; a box's post is one transaction."""

from __future__ import annotations

import gzip
import json
import random
import threading
import time

import psycopg
import pytest

from club import api as api_module
from club import live as live_module
from club.app import build_app
from club.live import Live
from club.sqlite import SqliteStorage
from club.storage import BoxEvent, BoxMatch, open_storage
from club.tables import TableFold
from club.tournament import fold, next_session, results
from engine.events import Penalty
from tests.kit.club_server import KEY, PIN, hand_payloads, wire

START = 1000.0


def event_with_tables(st, players: int, seed: int) -> str:
    tid = st.create_tournament("t", "seed004", {}, seed=seed, now=0.0)
    for p in range(1, players + 1):
        st.add_player(tid, f"P{p}", "", f"code-{p}")
    state = fold(st.tournament(tid), st.players(tid), st.actions(tid))
    data = next_session(state, {}, START - 100)
    st.act(tid, "session", data, now=START - 100)
    st.act(tid, "start", {"session": data["key"], "at": START}, now=START)
    return data["key"]


def evening(table: int, session: str, hands: int, seed: int) -> tuple[BoxMatch, list[BoxEvent]]:
    """A box's match and its events: ``hands`` scripted hands a few minutes apart (the last ones
    past the session's time), a penalty now and then, and the match's end."""
    box = f"box-{table:08d}"
    rng = random.Random(seed)
    payloads: list[tuple[int, float, dict]] = []
    for hand in range(1, hands + 1):
        dealt = START + 500.0 * hand  # the session runs 45 minutes: hands 6 and on are dealt after time
        payloads += [(hand, dealt + i, p) for i, p in enumerate(hand_payloads(seed * 100 + hand))]
        if rng.random() < 0.3:
            payloads.append((0, dealt + 200, Penalty(seat=rng.randrange(3), points=2, reason="dropped card").to_dict()))
    payloads.append((0, START + 500.0 * (hands + 1), {"kind": "match_end"}))
    info = BoxMatch(table, box, 1, ("A", "B", "C"), {"name": "chips", "changes": {}}, {"club_session": session}, 1.0)
    events = [BoxEvent(table, box, i + 1, i, 1, hand, at, p["kind"], "camera", p)
              for i, (hand, at, p) in enumerate(payloads)]
    return info, events


def recomputed(st, nows: tuple[float, ...]) -> list[dict]:
    """Every table's result at each of ``nows``, folded afresh from the store without the projection."""
    [t] = st.tournaments()[-1:]
    state = fold(t, st.players(t.id), st.actions(t.id))
    folds = {}
    for reg in st.registrations():
        table = folds[reg.table_no] = TableFold(reg.table_no)
        table.add_matches(st.box_matches(reg.table_no))
        table.apply(st.box_events(reg.table_no, reg.box, upto=reg.acked))
    return [results(state, folds, now) for now in nows]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_kept_projection_equals_a_recomputation_after_every_batch_of_a_random_evening(tmp_path, seed):
    rng = random.Random(seed)
    st = SqliteStorage(str(tmp_path / "club.db"))
    session = event_with_tables(st, 9, seed)
    nows = (START + 600.0, START + 46 * 60.0)  # the clock running, and run out
    kept = [Live(st, min_interval=0.0) for _ in nows]  # one projection per moment: each keeps its own
    streams = {}
    for table in range(1, 4):
        st.register(table, f"box-{table:08d}", "hash")
        streams[table] = evening(table, session, rng.randint(3, 8), seed * 10 + table)
    sent = {t: 0 for t in streams}
    checks = 0
    while any(sent[t] < len(events) for t, (_, events) in streams.items()):
        table = rng.choice([t for t, (_, events) in streams.items() if sent[t] < len(events)])
        info, events = streams[table]
        size = rng.choice((1, 1, 2, 5, 17, 60))
        st.ingest(table, info.box, events[sent[table]:sent[table] + size], [info])
        sent[table] += size
        assert [live.results(now) for live, now in zip(kept, nows, strict=True)] == recomputed(st, nows)
        # The hall's rows and leaderboard are kept between snapshots too: they read what a new
        # projection reads, and the body put together from kept pieces is the data's JSON.
        for live, now in zip(kept, nows, strict=True):
            snap = live.snapshot(now)
            assert snap.data == Live(st).hall(now)
            assert snap.body == json.dumps(snap.data, ensure_ascii=False, separators=(",", ":")).encode()
        checks += 1
    final = nows[1]
    assert kept[1].hall(final) == Live(st).hall(final)  # a new projection over the same store: a restart
    assert checks > 20 and any(r.hands > 2 for r in kept[1].results(final)[session].values())
    st.close()


def test_a_tables_result_is_computed_again_only_when_a_counted_hand_changes(tmp_path, monkeypatch):
    st = SqliteStorage(str(tmp_path / "club.db"))
    session = event_with_tables(st, 9, 5)
    st.register(1, "box-00000001", "hash")
    info, events = evening(1, session, 3, 7)
    calls: list[int] = []
    real = live_module.table_result
    monkeypatch.setattr(live_module, "table_result", lambda s, t, f, now: calls.append(t) or real(s, t, f, now))
    kept = Live(st, min_interval=0.0)
    first_hand = [e for e in events if e.hand == 1]
    played = [e.kind for e in first_hand].index("play") + 1
    st.ingest(1, info.box, first_hand[:played], [info])  # dealt, bid, the landlord's first play
    kept.results(START + 600)
    assert calls.count(1) == 1
    for e in first_hand[played:-1]:
        st.ingest(1, info.box, [e], [])
        kept.results(START + 600)
    assert calls.count(1) == 1  # the hand in play moved: nothing the sheet counts did
    st.ingest(1, info.box, first_hand[-1:], [])  # the hand is finished: the sheet counts it
    kept.results(START + 600)
    assert calls.count(1) == 2
    kept.results(START + 600)
    assert calls.count(1) == 2 and calls.count(2) == calls.count(3) == 1  # tables without a box: once
    st.close()


def test_one_snapshot_is_built_per_change_whatever_the_number_of_viewers(tmp_path):
    st = SqliteStorage(str(tmp_path / "club.db"))
    session = event_with_tables(st, 9, 3)
    st.register(1, "box-00000001", "hash")
    info, events = evening(1, session, 2, 3)
    kept = Live(st, min_interval=0.0)
    first = kept.snapshot()
    st.ingest(1, info.box, events[:30], [info])
    seen: list[int] = []
    viewers = [threading.Thread(target=lambda: seen.append(kept.snapshot().number)) for _ in range(40)]
    for v in viewers:
        v.start()
    for v in viewers:
        v.join()
    # One build for the change (two if the second turned meanwhile: the clock is in the data).
    assert first.number < max(seen) <= first.number + 2
    assert kept.snapshot().data["boxes"]["1"]["acked"] == 30
    again = kept.snapshot()
    assert again.body == kept.snapshot().body and again.etag == kept.snapshot().etag
    st.close()


@pytest.fixture
def client(storage):
    app = build_app({"DIRECTOR_PIN": PIN, "CLUB_KEY": KEY, "TESTING": True, "HALL_STREAM_S": 0.5,
                     "HALL_STREAMS": 1}, storage=storage)
    return app.test_client()


def register(client, table: int) -> str:
    r = client.post("/api/register", json={"table": table, "box": f"box-{table:08d}", "key": KEY})
    assert r.status_code == 200, r.json
    return r.json["token"]


def counted(storage) -> list[str]:
    """Each transaction the storage opens from now on, by kind, and each statement it runs (a
    transaction opened inside another, as PostgreSQL's reads are made, is the same checkout)."""
    opened: list[str] = []
    depth = [0]
    for name in ("_tx", "_read"):
        real = getattr(storage, name)

        def wrapped(real=real, name=name):
            if not depth[0]:
                opened.append(name)
            depth[0] += 1
            try:
                context = real()
            finally:
                depth[0] -= 1

            class Recording:
                def __enter__(self):
                    depth[0] += 1
                    try:
                        run = context.__enter__()
                    finally:
                        depth[0] -= 1

                    def recording(sql, args=()):
                        opened.append(sql)
                        return run(sql, args)
                    return recording

                def __exit__(self, *exc):
                    return context.__exit__(*exc)
            return Recording()
        setattr(storage, name, wrapped)
    return opened


def test_a_post_is_one_transaction_and_the_hall_takes_no_row_lock(client, storage, monkeypatch):
    monkeypatch.setattr(live_module, "STATE_STALE_S", 600.0)  # a slow machine: the posts need no refresh
    session = event_with_tables(storage, 9, 4)
    token = register(client, 2)
    info, events = evening(2, session, 2, 4)
    match = {"id": 1, "players": list(info.players), "preset": info.rules, "meta": info.meta, "created": 1.0}
    headers = {"Authorization": f"Bearer {token}"}
    client.get("/api/hall")  # the projection is folded once
    opened = counted(storage)
    r = client.post("/api/tables/2/events", json={"box": info.box, "events": wire(events[:20]), "matches": [match]},
                    headers=headers)
    assert r.status_code == 200 and r.json["acked"] == 20 and r.json["assignment"]["session"] == session
    assert [o for o in opened if o in ("_tx", "_read")] == ["_tx"]  # token, parse and store: one checkout
    opened.clear()
    r = client.post("/api/tables/2/events", json={"box": info.box, "events": wire(events[20:25])}, headers=headers)
    assert r.status_code == 200 and r.json["acked"] == 25
    assert [o for o in opened if o in ("_tx", "_read")] == ["_tx"]
    opened.clear()
    wrong = client.post("/api/tables/2/events", json={"box": info.box, "events": wire(events[25:26])},
                        headers={"Authorization": "Bearer forged"})
    assert wrong.status_code == 403 and storage.registration(2).acked == 25
    opened.clear()
    time.sleep(0.3)  # past the refresh's min_interval
    hall = client.get("/api/hall")
    assert hall.status_code == 200 and hall.json["boxes"]["2"]["acked"] == 25
    assert [o for o in opened if o in ("_tx", "_read")] == ["_read"]  # the whole refresh: one read transaction
    assert not any("FOR UPDATE" in o.upper() for o in opened) and "_tx" not in opened


def test_the_hall_answers_while_a_post_holds_its_tables_row_lock(postgres):
    """PostgreSQL's row locks (SQLite's readers never wait for its writer in WAL mode)."""
    name = f"club_lock_{random.randrange(10**9)}"
    with psycopg.connect(postgres.url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    storage_url = postgres.url.replace("/postgres?", f"/{name}?")
    st = open_storage(storage_url)
    session = event_with_tables(st, 9, 6)
    st.register(1, "box-00000001", "hash")
    info, events = evening(1, session, 2, 6)
    st.ingest(1, info.box, events[:10], [info])
    kept = Live(st, min_interval=0.0)
    with psycopg.connect(storage_url) as holder:  # a post in progress: the box's row locked, more events written
        holder.execute("SELECT 1 FROM boxes WHERE table_no = 1 FOR UPDATE")
        holder.execute("UPDATE boxes SET acked = 999 WHERE table_no = 1")
        answered: list[dict] = []
        asker = threading.Thread(target=lambda: answered.append(kept.hall(START + 600)))
        asker.start()
        asker.join(timeout=10)
        assert answered and answered[0]["boxes"]["1"]["acked"] == 10  # the last commit, not the post's
        holder.rollback()
    st.close()


def test_the_hall_is_304_while_unchanged_and_streams_are_capped(client, storage):
    event_with_tables(storage, 9, 8)
    first = client.get("/api/hall")
    etag = first.headers["ETag"]
    assert first.status_code == 200 and first.json["session"]["number"] == 1
    again = client.get("/api/hall", headers={"If-None-Match": etag})
    assert again.status_code in (200, 304)  # 200 only when the second turned in between
    if again.status_code == 304:
        assert again.data == b"" and again.headers["ETag"] == etag
    zipped = client.get("/api/hall", headers={"Accept-Encoding": "gzip, deflate"})
    assert zipped.headers["Content-Encoding"] == "gzip" and json.loads(gzip.decompress(zipped.data))["session"] == first.json["session"]
    stream = client.get("/api/hall/stream", buffered=False)
    assert stream.status_code == 200 and stream.mimetype == "text/event-stream"
    refused = client.get("/api/hall/stream")  # the one stream allowed is open
    assert refused.status_code == 503 and refused.json["message"].startswith("too many open hall streams")
    chunks = b"".join(stream.response)  # HALL_STREAM_S: the stream ends after half a second
    assert chunks.startswith(b"event: hall\n") and b'"session":{' in chunks
    stream.close()
    assert client.get("/api/hall/stream", buffered=False).status_code == 200  # closed: a place again


def test_the_hall_is_answered_before_flask_with_what_its_route_answers(client, storage):
    event_with_tables(storage, 9, 8)
    app = client.application
    through_flask = []
    app.before_request_funcs.setdefault(None, []).append(lambda: through_flask.append(1) and None)
    etag = client.get("/api/hall").headers["ETag"]
    asks = [{}, {"Accept-Encoding": "gzip"}, {"Accept-Encoding": "identity"}, {"If-None-Match": etag},
            {"If-None-Match": '"not-this-one"', "Accept-Encoding": "gzip, deflate"}]
    for headers in asks:
        direct = client.get("/api/hall", headers=headers)
        with app.test_request_context("/api/hall", headers=headers) as context:
            routed = api_module.hall()
            sent = routed.get_wsgi_headers(context.request.environ)  # as it would leave the server
        assert direct.status_code == routed.status_code and direct.data == routed.get_data()
        assert sorted(direct.headers.items()) == sorted(sent.items())
    assert client.head("/api/hall").data == b"" and client.post("/api/hall").status_code == 405
    assert len(through_flask) == 1  # the POST alone: every GET and HEAD was answered before Flask
