"""A hand's 复盘 kept in the event store: beside the log, never in it; read back only for the
events it was solved from; kept across a restart; a store made before the table still opens."""

from __future__ import annotations

import sqlite3

import pytest

from engine.events import Deal, Landlord
from tracker.store import EventStore, StoreError

FOUND = {"start": True, "steps": [{"number": 1, "event": 2, "mistake": True}], "lines": {"zh": ["开局"], "en": ["x"]}}


@pytest.fixture
def store(tmp_path):
    s = EventStore(tmp_path / "t.db")
    yield s
    s.close()


def test_an_analysis_is_read_back_only_for_the_events_it_was_solved_from(store):
    mid = store.create_match(("甲", "乙", "丙"))
    store.save_analysis(mid, 1, "v1", FOUND)
    assert store.analysis(mid, 1, "v1") == FOUND
    assert store.analysis(mid, 1, "v2") is None  # the hand was corrected since
    assert store.analysis(mid, 2, "v1") is None
    store.save_analysis(mid, 1, "v2", {"start": False})
    assert store.analysis(mid, 1, "v2") == {"start": False} and store.analysis(mid, 1, "v1") is None


def test_an_analysis_is_not_an_event_and_survives_a_restart(tmp_path):
    path = tmp_path / "t.db"
    with EventStore(path) as store:
        mid = store.create_match(("甲", "乙", "丙"))
        store.append(mid, 1, Deal(counts=(17, 17, 17)))
        seq = store.last_seq()
        store.save_analysis(mid, 1, "v1", FOUND)
        assert store.last_seq() == seq and len(store.events(None)) == 1  # the club's feed is unchanged
    with EventStore(path) as again:
        assert again.analysis(mid, 1, "v1") == FOUND


OLD_SCHEMA = """
CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE matches (id INTEGER PRIMARY KEY AUTOINCREMENT, created REAL NOT NULL, players TEXT NOT NULL,
    rules TEXT NOT NULL, scoring TEXT NOT NULL, meta TEXT NOT NULL);
CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, match_id INTEGER NOT NULL REFERENCES matches(id),
    hand INTEGER NOT NULL CHECK (hand >= 0), time REAL NOT NULL, kind TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('camera', 'referee', 'system')), payload TEXT NOT NULL);
INSERT INTO store_meta VALUES ('format', 'ddz-table/events'), ('version', '1');
"""


def test_a_store_made_before_analyses_were_kept_opens_and_keeps_them(tmp_path):
    path = tmp_path / "old.db"
    with EventStore(path) as store:  # an event written as the program always wrote it
        mid = store.create_match(("甲", "乙", "丙"))
        store.append(mid, 1, Landlord(0), source="referee")
        payload = store._db.execute("SELECT payload FROM events").fetchone()[0]
    path.unlink()
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA)
    db.execute("INSERT INTO matches VALUES (1, 0, '[\"甲\", \"乙\", \"丙\"]', "
               "'{\"name\": \"classic\", \"changes\": {}}', 'points', '{}')")
    db.execute("INSERT INTO events VALUES (1, 1, 1, 0, 'landlord', 'referee', ?)", (payload,))
    db.commit()
    db.close()
    with EventStore(path) as store:
        assert [e.event for e in store.events(1)] == [Landlord(0)]
        store.save_analysis(1, 1, "v1", FOUND)
        assert store.analysis(1, 1, "v1") == FOUND
        assert dict(store._db.execute("SELECT key, value FROM store_meta"))["version"] == "1"


@pytest.mark.parametrize("args, message", [
    ((1, 0, "v", {}), "belongs to a hand"),
    ((1, True, "v", {}), "belongs to a hand"),
    ((99, 1, "v", {}), "no match 99"),
    ((2**70, 1, "v", {}), "no match"),
    ((1, 1, "", {}), "version"),
    ((1, 1, "v", ["x"]), "JSON object"),
    ((1, 1, "v", {"x": {1, 2}}), "not JSON-serialisable"),
])
def test_a_bad_analysis_is_refused_with_a_clear_error(store, args, message):
    store.create_match(("甲", "乙", "丙"))
    with pytest.raises(StoreError, match=message):
        store.save_analysis(*args)


def test_an_unreadable_kept_analysis_is_none_to_be_solved_again(store):
    mid = store.create_match(("甲", "乙", "丙"))
    store.save_analysis(mid, 1, "v1", FOUND)
    store._db.execute("UPDATE analyses SET payload = 'not json'")
    assert store.analysis(mid, 1, "v1") is None
    assert store.analysis(2**70, 1, "v1") is None
