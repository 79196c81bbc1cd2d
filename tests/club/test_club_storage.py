"""The storage interface on SQLite and on PostgreSQL: the same tests, the same answers."""

from __future__ import annotations

import pytest

from club.storage import StorageError, open_storage
from tests.kit.club_server import box_events, box_match, hand_payloads


def test_a_new_store_is_migrated_to_the_newest_schema(storage):
    assert storage.schema_version() == 1
    assert storage.migrate() == 1  # a second run applies nothing


def test_a_batch_acknowledges_every_event_in_order(storage):
    storage.register(3, "box-0000aaaa", "hash")
    events = box_events(3, hand_payloads(1))
    result = storage.ingest(3, "box-0000aaaa", events, [box_match(3)])
    assert (result.inserted, result.duplicates, result.acked) == (len(events), 0, events[-1].seq)
    stored = storage.box_events(3)
    assert [e.seq for e in stored] == [e.seq for e in events]
    assert [e.payload for e in stored] == [e.payload for e in events]


def test_many_boxes_events_in_one_read_match_a_read_per_box(storage):
    for table, box in ((3, "box-0000aaaa"), (4, "box-0000bbbb"), (5, "box-0000cccc")):
        storage.register(table, box, "hash")
        storage.ingest(table, box, box_events(table, hand_payloads(table), box=box), [box_match(table, box=box)])
    ranges = [(3, "box-0000aaaa", 2, 7), (5, "box-0000cccc", 0, 4), (4, "box-0000bbbb", 9, 9), (6, "box-nobody1", 0, 9)]
    together = storage.box_events_in(ranges, chunk=2)
    one_by_one = [e for t, b, after, upto in sorted(ranges) for e in storage.box_events(t, b, after_seq=after, upto=upto)]
    assert together == one_by_one and [(e.table_no, e.seq) for e in together] == [
        (3, 3), (3, 4), (3, 5), (3, 6), (3, 7), (5, 1), (5, 2), (5, 3), (5, 4)]
    assert storage.box_events_in([]) == []


def test_a_duplicate_batch_is_counted_not_kept_twice(storage):
    storage.register(3, "box-0000aaaa", "hash")
    events = box_events(3, hand_payloads(2))
    storage.ingest(3, "box-0000aaaa", events, [box_match(3)])
    again = storage.ingest(3, "box-0000aaaa", events, [box_match(3)])
    assert (again.inserted, again.duplicates) == (0, len(events))
    assert storage.event_count() == len(events)


def test_an_out_of_order_batch_waits_for_the_gap(storage):
    storage.register(3, "box-0000aaaa", "hash")
    events = box_events(3, hand_payloads(3))
    first, second = events[:10], events[10:]
    late = storage.ingest(3, "box-0000aaaa", second, [box_match(3)])
    assert late.acked == 0  # nothing acknowledged past the gap
    filled = storage.ingest(3, "box-0000aaaa", first, [])
    assert filled.acked == events[-1].seq
    assert storage.event_count() == len(events)


def test_a_different_event_under_a_held_seq_is_reported_and_the_first_kept(storage):
    storage.register(3, "box-0000aaaa", "hash")
    events = box_events(3, hand_payloads(4))
    storage.ingest(3, "box-0000aaaa", events[:5], [box_match(3)])
    forged = [type(events[4])(**{**events[4].__dict__, "payload": {"kind": "pass", "seat": 2}})]
    result = storage.ingest(3, "box-0000aaaa", forged, [])
    assert result.conflicts == (events[4].seq,)
    assert storage.box_events(3)[4].payload == events[4].payload


def test_events_are_append_only(storage):
    storage.register(3, "box-0000aaaa", "hash")
    storage.ingest(3, "box-0000aaaa", box_events(3, hand_payloads(5))[:3], [box_match(3)])
    with pytest.raises(Exception, match="append-only"):
        with storage._tx() as run:
            run("DELETE FROM box_events")
    assert storage.event_count() == 3


def test_another_box_cannot_take_a_table_until_the_director_releases_it(storage):
    storage.register(5, "box-0000aaaa", "h1")
    with pytest.raises(StorageError, match="release"):
        storage.register(5, "box-1111bbbb", "h2")
    assert storage.register(5, "box-0000aaaa", "h3").token_hash == "h3"  # the same box: a new token
    assert storage.release(5)
    assert storage.register(5, "box-1111bbbb", "h4").box == "box-1111bbbb"
    assert storage.registration(5).box == "box-1111bbbb"


def test_tournament_players_and_the_directors_log(storage):
    tid = storage.create_tournament("周五赛", "seed004", {"minutes": 30}, seed=42)
    assert storage.add_player(tid, "张三", "C1", "code-1") == 1
    assert storage.add_player(tid, "李四", "C2", "code-2") == 2
    storage.act(tid, "start", {"session": "x"}, now=100.0)
    storage.act(tid, "pause", {"session": "x"}, now=160.0)
    assert [p.name for p in storage.players(tid)] == ["张三", "李四"]
    assert [(a.action, a.time) for a in storage.actions(tid)] == [("start", 100.0), ("pause", 160.0)]
    assert storage.tournament(tid).settings == {"minutes": 30}


def test_everything_is_still_there_after_reopening(storage_url):
    st = open_storage(storage_url)
    st.register(1, "box-0000aaaa", "hash")
    st.ingest(1, "box-0000aaaa", box_events(1, hand_payloads(6)), [box_match(1)])
    tid = st.create_tournament("x", "session", {}, seed=1)
    st.close()
    again = open_storage(storage_url)
    try:
        assert again.registration(1).acked == again.event_count() > 0
        assert again.tournament(tid).name == "x"
    finally:
        again.close()


def test_a_database_of_something_else_is_refused(tmp_path):
    import sqlite3

    path = tmp_path / "other.db"
    sqlite3.connect(path).execute("CREATE TABLE songs (title TEXT)").connection.commit()
    with pytest.raises(StorageError, match="not a club store"):
        open_storage(str(path))
