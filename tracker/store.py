"""The event store: an append-only log of everything that happened at the table, in SQLite.

Nothing is ever updated or deleted: a misread is fixed by appending a ``Correction``; the
state is a fold over the log (``tracker.state.TableState``). The database runs in WAL mode
with ``synchronous=FULL``, so an event is on disk when :meth:`EventStore.append` returns,
and after a power cut (or ``kill -9``) the table resumes from the last acknowledged event.

API (the web site and the camera's referee rely on it)::

    store = EventStore("table.db")          # or ":memory:" in tests; creates the schema
    mid = store.create_match(("张三", "李四", "王五"), "classic", meta={"name": "周五"})
    seq = store.append(mid, 1, Deal(counts=(17, 17, 17)))           # source="camera"
    seq = store.append(mid, 1, Bid(0, "bid", 3), source="referee")
    store.append(mid, 1, Alert("does_not_beat", "...", seat=1))     # tracker.records.Alert
    store.events(mid)                        # [StoredEvent(seq, match_id, hand, time, kind, source, event)]
    store.events(mid, hand=1, after_seq=seq) # a hand's events after seq
    store.events(None, after_seq=seq)        # every match's events after seq (the SSE feed)
    store.events(None, after_seq=seq, limit=500)  # at most 500 of them (a replication batch)
    store.hands(mid)                         # [1, 2, ...] hand numbers that have events
    store.matches(); store.match(mid)        # [MatchInfo] / MatchInfo (players, rules, meta, ...)
    store.last_seq()                         # global, grows with every append; poll it for changes
    store.save_analysis(mid, 1, version, {...})  # a hand's 复盘, derived data kept beside the log
    store.analysis(mid, 1, version)          # that dict, or None (none kept, or kept for other events)
    store.close()

Hand numbers start at 1; hand 0 holds match-level events (match penalties, ``MatchEnd``).
``seq`` is global across matches and strictly increasing. ``time`` is the wall-clock time of
the append (Unix seconds); an event's own ``time`` field is the table clock it carries.
``source`` says who produced the event: ``camera`` (the camera's referee), ``referee`` (a person on
the page or a script) or ``system`` (the program itself, e.g. a new hand after a finish).

Threads: one store may be shared by a Flask server's threads and the table session's
thread; calls are serialised on one connection (each is a short statement). Other processes
may open the same file at once (WAL lets readers run while one writer appends).
A file that is not a ddz-table store, or is corrupt, raises :class:`StoreError`.

Analyses (复盘) are derived data kept beside the log, not in it: the ``analyses`` table holds
one row per hand (the latest answer and the ``version`` of the hand's events it was solved
from, which the caller chooses, so an answer for events since corrected is never returned).
It is written over, never appended to, and is not part of the event stream a club server
copies: a club rebuilds nothing from it, and a box can solve it again. A store made before
the table existed gains it when it is opened (``CREATE TABLE IF NOT EXISTS``; the events and
the version stay as they are, so the program that made it still reads it).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from engine.record import rules_from_dict, rules_to_dict
from engine.rules import RuleSet, get_rules
from tracker.records import Record, record_from_dict

FORMAT = "ddz-table/events"
SCHEMA_VERSION = 1
SOURCES = ("camera", "referee", "system")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created REAL NOT NULL,
    players TEXT NOT NULL,
    rules TEXT NOT NULL,
    scoring TEXT NOT NULL,
    meta TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id INTEGER NOT NULL REFERENCES matches(id),
    hand INTEGER NOT NULL CHECK (hand >= 0),
    time REAL NOT NULL,
    kind TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('camera', 'referee', 'system')),
    payload TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_match ON events (match_id, hand, seq);
CREATE TRIGGER IF NOT EXISTS events_append_only_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_append_only_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TABLE IF NOT EXISTS analyses (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    hand INTEGER NOT NULL CHECK (hand > 0),
    version TEXT NOT NULL,
    time REAL NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (match_id, hand)
);
"""


class StoreError(ValueError):
    """The database cannot be used: not a ddz-table store, corrupt, or a bad argument."""


def _beyond_sqlite(value: Any) -> bool:
    """An integer SQLite cannot hold (past 64 bits) names no row; binding it would raise OverflowError."""
    return isinstance(value, int) and not -(2**63) <= value < 2**63


@dataclass(frozen=True)
class StoredEvent:
    """One row of the log, with its payload rebuilt into an engine event or tracker record."""

    seq: int
    match_id: int
    hand: int
    time: float
    kind: str
    source: str
    event: Record

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "match_id": self.match_id, "hand": self.hand, "time": self.time,
                "kind": self.kind, "source": self.source, "event": self.event.to_dict()}


@dataclass(frozen=True)
class MatchInfo:
    """A match as created: players by seat, the rule set (preset + changes), meta data."""

    id: int
    players: tuple[str, ...]
    rules: RuleSet
    created: float
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def scoring(self) -> str:
        return self.rules.scoring

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "players": list(self.players), "preset": rules_to_dict(self.rules),
                "scoring": self.scoring, "created": self.created, "meta": self.meta}


class EventStore:
    """The append-only table log. See the module docstring for the API."""

    def __init__(self, path: str | os.PathLike = ":memory:", timeout: float = 10.0) -> None:
        self.path = str(path)
        if self.path != ":memory:" and os.path.isdir(self.path):
            raise StoreError(f"{self.path} is a directory, not a database file")
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open event store {self.path}: {exc}") from None
        try:
            self._setup()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise StoreError(f"{self.path} is not a readable ddz-table event store ({exc})") from None

    def _setup(self) -> None:
        db = self._db
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA foreign_keys=ON")
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables and "store_meta" not in tables:
            raise StoreError(f"{self.path} is an SQLite database but not a ddz-table event store "
                             f"(tables: {', '.join(sorted(tables))})")
        db.executescript(_SCHEMA)
        meta = dict(db.execute("SELECT key, value FROM store_meta"))
        if not meta:
            db.execute("INSERT OR IGNORE INTO store_meta VALUES ('format', ?), ('version', ?)",
                       (FORMAT, str(SCHEMA_VERSION)))
        elif meta.get("format") != FORMAT:
            raise StoreError(f"{self.path}: unknown store format {meta.get('format')!r}")
        elif meta.get("version") != str(SCHEMA_VERSION):
            raise StoreError(f"{self.path}: store version {meta.get('version')} is not supported "
                             f"(this program reads version {SCHEMA_VERSION})")
        if self.path != ":memory:":
            check = db.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise StoreError(f"{self.path} is damaged: {check}")

    # ------------------------------------------------------------------ writing
    def create_match(self, players: tuple[str, ...] | list[str], rules: RuleSet | str | dict = "classic",
                     meta: dict[str, Any] | None = None) -> int:
        """A new match; ``rules`` is a preset name, a ``RuleSet`` or ``{"name", "changes"}``."""
        try:
            ruleset = rules if isinstance(rules, RuleSet) else (
                rules_from_dict(rules) if isinstance(rules, dict) else get_rules(rules))
        except (ValueError, TypeError, KeyError) as exc:
            raise StoreError(f"bad rules {rules!r}: {exc}") from None
        players = tuple(players)
        if not all(isinstance(p, str) and p.strip() for p in players):
            raise StoreError("players must be non-empty names")
        if len(players) != ruleset.players:
            raise StoreError(f"{ruleset.name} is played by {ruleset.players} players, not {len(players)}")
        meta_text = self._json(meta or {}, "meta")
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO matches (created, players, rules, scoring, meta) VALUES (?, ?, ?, ?, ?)",
                (time.time(), json.dumps(list(players), ensure_ascii=False),
                 json.dumps(rules_to_dict(ruleset), ensure_ascii=False), ruleset.scoring, meta_text))
            assert cur.lastrowid is not None  # an INSERT sets it
            return int(cur.lastrowid)

    def append(self, match_id: int, hand: int, event: Record, source: str = "camera") -> int:
        """Append ``event`` to hand ``hand`` of the match; returns its ``seq`` once it is on disk."""
        if source not in SOURCES:
            raise StoreError(f"source must be one of {SOURCES}, not {source!r}")
        if not isinstance(hand, int) or isinstance(hand, bool) or hand < 0 or _beyond_sqlite(hand):
            raise StoreError(f"hand must be a number >= 0 (0: the match itself), not {hand!r}")
        if _beyond_sqlite(match_id):
            raise StoreError(f"no match {match_id!r} in the store")
        to_dict = getattr(event, "to_dict", None)
        if to_dict is None:
            raise StoreError(f"cannot store a {type(event).__name__}; expected an event or a tracker record")
        payload = to_dict()
        record_from_dict(payload)  # refuse now what could not be read back later
        text = self._json(payload, "event")
        with self._lock:
            try:
                cur = self._db.execute(
                    "INSERT INTO events (match_id, hand, time, kind, source, payload) VALUES (?, ?, ?, ?, ?, ?)",
                    (match_id, hand, time.time(), payload["kind"], source, text))
            except sqlite3.IntegrityError:
                raise StoreError(f"no match {match_id!r} in the store") from None
            assert cur.lastrowid is not None  # an INSERT sets it
            return int(cur.lastrowid)

    def save_analysis(self, match_id: int, hand: int, version: str, analysis: dict[str, Any]) -> None:
        """Keep ``analysis`` (a JSON object) as hand ``hand``'s 复盘, solved from the events that
        ``version`` names; it replaces the one kept before for that hand."""
        if not isinstance(hand, int) or isinstance(hand, bool) or hand < 1 or _beyond_sqlite(hand):
            raise StoreError(f"an analysis belongs to a hand (a number >= 1), not {hand!r}")
        if _beyond_sqlite(match_id):
            raise StoreError(f"no match {match_id!r} in the store")
        if not isinstance(version, str) or not version:
            raise StoreError(f"an analysis needs the version of the events it was solved from, not {version!r}")
        if not isinstance(analysis, dict):
            raise StoreError(f"an analysis is a JSON object, not {type(analysis).__name__}")
        text = self._json(analysis, "analysis")
        with self._lock:
            try:
                self._db.execute("INSERT OR REPLACE INTO analyses (match_id, hand, version, time, payload) "
                                 "VALUES (?, ?, ?, ?, ?)", (match_id, hand, version, time.time(), text))
            except sqlite3.IntegrityError:
                raise StoreError(f"no match {match_id!r} in the store") from None

    def analysis(self, match_id: int, hand: int, version: str) -> dict[str, Any] | None:
        """Hand ``hand``'s kept 复盘 if it was solved from the events ``version`` names, else None."""
        if _beyond_sqlite(match_id) or _beyond_sqlite(hand):
            return None
        with self._lock:
            row = self._db.execute("SELECT payload FROM analyses WHERE match_id = ? AND hand = ? AND version = ?",
                                   (match_id, hand, version)).fetchone()
        if row is None:
            return None
        try:
            found = json.loads(row[0])
        except ValueError:
            return None  # derived data: a row that cannot be read is solved again, never an error
        return found if isinstance(found, dict) else None

    # ------------------------------------------------------------------ reading
    def events(self, match_id: int | None, hand: int | None = None, after_seq: int = 0,
               limit: int | None = None) -> list[StoredEvent]:
        """Events in order: of one match (or every match for ``None``), one hand, after a seq;
        only the first ``limit`` of them when given (read a long log a piece at a time)."""
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
            raise StoreError(f"limit must be a whole number of events >= 1, not {limit!r}")
        if _beyond_sqlite(match_id) or _beyond_sqlite(hand) or (_beyond_sqlite(after_seq) and after_seq > 0):
            return []  # no row holds such a number
        if _beyond_sqlite(after_seq):
            after_seq = 0  # seqs start at 1: anything below is "from the start"
        sql = "SELECT seq, match_id, hand, time, kind, source, payload FROM events WHERE seq > ?"
        args: list[Any] = [after_seq]
        if match_id is not None:
            sql += " AND match_id = ?"
            args.append(match_id)
        if hand is not None:
            sql += " AND hand = ?"
            args.append(hand)
        sql += " ORDER BY seq"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(min(limit, 2**63 - 1))
        with self._lock:
            rows = self._db.execute(sql, args).fetchall()
        return [self._row(r) for r in rows]

    def hands(self, match_id: int) -> list[int]:
        if _beyond_sqlite(match_id):
            return []
        with self._lock:
            rows = self._db.execute("SELECT DISTINCT hand FROM events WHERE match_id = ? AND hand > 0 ORDER BY hand",
                                    (match_id,)).fetchall()
        return [r[0] for r in rows]

    def matches(self) -> list[MatchInfo]:
        with self._lock:
            rows = self._db.execute("SELECT id, players, rules, created, meta FROM matches ORDER BY id").fetchall()
        return [self._match(r) for r in rows]

    def match(self, match_id: int) -> MatchInfo:
        if _beyond_sqlite(match_id):
            raise StoreError(f"no match {match_id!r} in the store")
        with self._lock:
            row = self._db.execute("SELECT id, players, rules, created, meta FROM matches WHERE id = ?",
                                   (match_id,)).fetchone()
        if row is None:
            raise StoreError(f"no match {match_id!r} in the store")
        return self._match(row)

    def last_seq(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _json(value: Any, what: str) -> str:
        try:
            return json.dumps(value, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"{what} is not JSON-serialisable: {exc}") from None

    def _row(self, row: tuple) -> StoredEvent:
        seq, match_id, hand, t, kind, source, payload = row
        try:
            event = record_from_dict(json.loads(payload))
        except ValueError as exc:
            raise StoreError(f"{self.path}: event {seq} cannot be read: {exc}") from None
        return StoredEvent(seq, match_id, hand, t, kind, source, event)

    def _match(self, row: tuple) -> MatchInfo:
        mid, players, rules, created, meta = row
        try:
            return MatchInfo(mid, tuple(json.loads(players)), rules_from_dict(json.loads(rules)), created,
                             json.loads(meta))
        except ValueError as exc:
            raise StoreError(f"{self.path}: match {mid} cannot be read: {exc}") from None
