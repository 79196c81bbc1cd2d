"""The club server's storage: one interface, SQLite (default) and PostgreSQL behind it.

What is kept (everything else is recomputed from it):

- ``boxes``: each table's box, its token (hashed) and how far its events have arrived
  (``acked``: the highest sequence number below which nothing is missing);
- ``box_events`` / ``box_matches``: the boxes' events and matches as they sent them, unique by
  (table, box, seq), append-only;
- ``tournaments``, ``players``, ``actions``: the event, its players and the director's log
  (draws, clock starts and pauses, moves, stage advances), append-only too.

API (``open_storage(url)`` picks the implementation: ``club.sqlite`` or ``club.postgres``)::

    st = open_storage("club.db")             # or ":memory:", or "postgresql://..."
    st.register(7, "box-uuid", token_hash)   # -> Registration
    st.ingest(7, "box-uuid", events=[BoxEvent(...)], matches=[BoxMatch(...)])
    st.box_events(7, "box-uuid", after_seq=0, upto=acked); st.box_matches(7)
    st.box_events_in([(7, "box-uuid", 0, acked), (8, "box-2", 10, 12)])  # many boxes, one query
    tid = st.create_tournament("周五赛", "seed004", {...}, seed=42)
    st.add_player(tid, "张三", "C001", code); st.act(tid, "draw", {...})
    st.actions(tid); st.change()             # change(): grows with every write (the hall polls it)
    with st.reading(): ...                   # the reads inside share one transaction (one pool checkout)
    st.post(7, check, prepare)               # a box's post: token check, parse and ingest in one transaction

A sequence is acknowledged only once every event before it has arrived, so a box resumes from
``acked`` and an out-of-order batch is kept and simply waits for the gap to fill.
"""

from __future__ import annotations

import json
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from club.migrations import MIGRATIONS, render


class StorageError(ValueError):
    """The store cannot do what was asked: not a club database, a conflict, a bad argument."""


@dataclass(frozen=True)
class Registration:
    table_no: int
    box: str
    token_hash: str
    registered: float
    acked: int = 0
    last_seen: float | None = None
    active: bool = True


@dataclass(frozen=True)
class BoxEvent:
    """One event of a box's store as it arrived: ``payload`` is the event's ``to_dict``."""

    table_no: int
    box: str
    seq: int
    prev: int
    match_id: int
    hand: int
    time: float
    kind: str
    source: str
    payload: dict[str, Any]


def _registration(row: Sequence[Any]) -> Registration:
    """A ``boxes`` row as selected: table_no, box, token_hash, registered, acked, last_seen, active."""
    table_no, box, token_hash, registered, acked, last_seen, active = row
    return Registration(table_no, box, token_hash, registered, acked, last_seen, active=bool(active))


def _box_event(row: Sequence[Any]) -> BoxEvent:
    """A ``box_events`` row as selected: table_no, box, seq, prev, match_id, hand, time, kind,
    source, and the payload's JSON."""
    table_no, box, seq, prev, match_id, hand, at, kind, source, payload = row
    return BoxEvent(table_no, box, seq, prev, match_id, hand, at, kind, source, payload=json.loads(payload))


@dataclass(frozen=True)
class BoxMatch:
    table_no: int
    box: str
    match_id: int
    players: tuple[str, ...]
    rules: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)
    created: float = 0.0


@dataclass(frozen=True)
class IngestResult:
    inserted: int
    duplicates: int
    conflicts: tuple[int, ...]  # seqs already held with a different payload (the first one is kept)
    acked: int


@dataclass(frozen=True)
class Tournament:
    id: int
    name: str
    format: str
    settings: dict[str, Any]
    seed: int
    created: float


@dataclass(frozen=True)
class Player:
    tournament_id: int
    player_no: int
    name: str
    club_id: str
    code: str


@dataclass(frozen=True)
class Action:
    seq: int
    tournament_id: int
    time: float
    action: str
    data: dict[str, Any]


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, sort_keys=True)


class Storage(ABC):
    """The SQL both databases share; a subclass says how to connect and hold a transaction."""

    dialect = "sqlite"

    # ------------------------------------------------------------------ connection (subclass)
    @abstractmethod
    def _tx(self) -> Any:
        """A context manager: one transaction, yielding ``run(sql, args) -> cursor`` (``?`` params)."""

    def _read(self) -> Any:
        """Like :meth:`_tx`, for reads only: SQLite reads on a second connection, so a box's token
        check and the hall's refresh never wait behind another box's commit."""
        return self._tx()

    @abstractmethod
    def close(self) -> None: ...

    def _lock_box(self, run: Callable, table_no: int, box: str) -> None:
        """Serialise ingests of one box (PostgreSQL locks its row; SQLite holds one writer anyway)."""
        return None

    #: What a box's post appends to the SELECT of its table's row (PostgreSQL: ``FOR UPDATE``).
    _for_update = ""

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Every read made by this thread inside the block shares one read transaction: one
        pool checkout for the hall's whole refresh instead of one per query."""
        local = self._local()
        if getattr(local, "run", None) is not None:
            yield
            return
        with self._read() as run:
            local.run = run
            try:
                yield
            finally:
                local.run = None

    @contextmanager
    def _reads(self) -> Iterator[Callable]:
        """The read transaction of :meth:`reading` when one is open in this thread, else a new one."""
        run = getattr(self._local(), "run", None)
        if run is not None:
            yield run
            return
        with self._read() as run:
            yield run

    def _local(self) -> threading.local:
        return self.__dict__.setdefault("_thread_local", threading.local())

    # ------------------------------------------------------------------ migrations
    def migrate(self) -> int:
        """Bring the schema up to date; returns the version. A database that holds other tables
        but no ``schema_version`` is not ours and is refused."""
        with self._tx() as run:
            self._lock_migrations(run)
            tables = self._table_names(run)
            if tables and "schema_version" not in tables:
                raise StorageError("this database holds other tables but is not a club store "
                                   f"({', '.join(sorted(tables)[:5])}); give an empty one")
            run("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL, applied "
                + ("DOUBLE PRECISION" if self.dialect == "postgresql" else "REAL") + " NOT NULL)")
            version = run("SELECT COALESCE(MAX(version), 0) FROM schema_version").fetchone()[0]
            newest = max(MIGRATIONS)
            if version > newest:
                raise StorageError(f"the store is at schema version {version}; this program knows up to {newest}")
            for number in sorted(MIGRATIONS):
                if number > version:
                    for statement in render(MIGRATIONS[number], self.dialect):
                        run(statement)
                    run("INSERT INTO schema_version (version, applied) VALUES (?, ?)", (number, time.time()))
            return max(version, newest)

    @abstractmethod
    def _table_names(self, run: Callable) -> set[str]: ...

    def _lock_migrations(self, run: Callable) -> None:
        """Two servers started at once must not both migrate (SQLite's writer lock already serialises)."""
        return None

    def schema_version(self) -> int:
        with self._reads() as run:
            return int(run("SELECT COALESCE(MAX(version), 0) FROM schema_version").fetchone()[0])

    # ------------------------------------------------------------------ boxes
    def register(self, table_no: int, box: str, token_hash: str, now: float | None = None) -> Registration:
        """Bind ``box`` to table ``table_no`` with a new token. The same box may register again
        (a lost token); another box only once the director has released the table."""
        now = time.time() if now is None else now
        with self._tx() as run:
            row = run("SELECT box FROM boxes WHERE table_no = ? AND active = 1 AND box <> ?",
                      (table_no, box)).fetchone()
            if row is not None:
                raise StorageError(f"table {table_no} already has a box ({row[0][:8]}…); the director must "
                                   "release the table before another box registers")
            updated = run("UPDATE boxes SET token_hash = ?, registered = ?, active = 1 WHERE table_no = ? AND box = ?",
                          (token_hash, now, table_no, box)).rowcount
            if not updated:
                run("INSERT INTO boxes (table_no, box, token_hash, registered, acked, active) VALUES (?, ?, ?, ?, 0, 1)",
                    (table_no, box, token_hash, now))
        reg = self.registration(table_no)
        assert reg is not None
        return reg

    def release(self, table_no: int) -> bool:
        """The director frees a table for another box; its events stay."""
        with self._tx() as run:
            return run("UPDATE boxes SET active = 0 WHERE table_no = ? AND active = 1", (table_no,)).rowcount > 0

    def registration(self, table_no: int, box: str | None = None) -> Registration | None:
        """The table's active box (or the named one)."""
        sql = "SELECT table_no, box, token_hash, registered, acked, last_seen, active FROM boxes WHERE table_no = ?"
        args: tuple = (table_no,)
        sql, args = (sql + " AND box = ?", args + (box,)) if box is not None else (sql + " AND active = 1", args)
        with self._reads() as run:
            row = run(sql, args).fetchone()
        return None if row is None else _registration(row)

    def registrations(self) -> list[Registration]:
        with self._reads() as run:
            rows = run("SELECT table_no, box, token_hash, registered, acked, last_seen, active FROM boxes "
                       "ORDER BY table_no, registered").fetchall()
        return [_registration(r) for r in rows]

    def ingest(self, table_no: int, box: str, events: list[BoxEvent], matches: Sequence[BoxMatch] = (),
               now: float | None = None) -> IngestResult:
        """Keep a batch of events (each names the ``prev`` seq it follows in the box's store) and
        the matches they belong to; idempotent: what is already held is counted, not kept twice."""
        now = time.time() if now is None else now
        with self._tx() as run:
            self._lock_box(run, table_no, box)
            return self._ingest(run, table_no, box, events, matches, now)

    def post(self, table_no: int, check: Callable[[Registration | None], None],
             prepare: Callable[[Registration, set[int]], tuple[list[BoxEvent], list[BoxMatch]]],
             known: Callable[[Registration], set[int] | None] | None = None,
             now: float | None = None) -> tuple[Registration, IngestResult, set[int]]:
        """A box's post in one transaction (one pool checkout): the table's active registration is
        read (and, on PostgreSQL, its row locked, so two posts of one box do not interleave),
        ``check(registration)`` raises to refuse it (a wrong token), ``prepare(registration, held)``
        parses the batch given the box's match ids already held (``known(registration)``: the
        caller's copy, or ``None`` and they are read here) and raises to refuse it; then the batch is kept as :meth:`ingest` keeps it. Returns the
        registration, the result and the box's match ids held now. Only the posting box's row is
        locked: the hall's reads take no lock."""
        now = time.time() if now is None else now
        with self._tx() as run:
            row = run("SELECT table_no, box, token_hash, registered, acked, last_seen, active FROM boxes "
                      "WHERE table_no = ? AND active = 1" + self._for_update, (table_no,)).fetchone()
            reg = None if row is None else _registration(row)
            check(reg)
            if reg is None:
                raise StorageError(f"table {table_no} has no box")
            held = None if known is None else known(reg)
            if held is None:
                held = {int(r[0]) for r in run("SELECT match_id FROM box_matches WHERE table_no = ? AND box = ?",
                                               (table_no, reg.box)).fetchall()}
            events, matches = prepare(reg, held)
            result = self._ingest(run, table_no, reg.box, events, matches, now, acked=reg.acked)
        return reg, result, held | {m.match_id for m in matches}

    def _ingest(self, run: Callable, table_no: int, box: str, events: list[BoxEvent], matches: Sequence[BoxMatch],
                now: float, acked: int | None = None) -> IngestResult:
        """The batch kept inside the caller's transaction, the box's row locked or the writer held
        (``acked``: the box's acknowledged seq as that transaction read it, else read here)."""
        inserted, duplicates, conflicts = 0, 0, []
        for m in matches:
            run("INSERT INTO box_matches (table_no, box, match_id, players, rules, meta, created) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (table_no, box, m.match_id, _text(list(m.players)), _text(m.rules), _text(m.meta), m.created))
        for e in events:
            text = _text(e.payload)
            n = run("INSERT INTO box_events (table_no, box, seq, prev, match_id, hand, time, kind, source, payload, "
                    "received) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    (table_no, box, e.seq, e.prev, e.match_id, e.hand, e.time, e.kind, e.source, text, now)).rowcount
            if n:
                inserted += 1
            else:
                duplicates += 1
                held = run("SELECT payload FROM box_events WHERE table_no = ? AND box = ? AND seq = ?",
                           (table_no, box, e.seq)).fetchone()
                if held is not None and json.loads(held[0]) != e.payload:
                    conflicts.append(e.seq)
        if acked is None:
            row = run("SELECT acked FROM boxes WHERE table_no = ? AND box = ?", (table_no, box)).fetchone()
            acked = int(row[0]) if row else 0
        links = dict(run("SELECT prev, seq FROM box_events WHERE table_no = ? AND box = ? AND prev >= ?",
                         (table_no, box, acked)).fetchall())
        while acked in links:  # follow the chain of arrived events from the last acknowledged one
            acked = links[acked]
        run("UPDATE boxes SET acked = ?, last_seen = ? WHERE table_no = ? AND box = ?", (acked, now, table_no, box))
        return IngestResult(inserted, duplicates, tuple(conflicts), acked)

    def box_events(self, table_no: int | None = None, box: str | None = None, after_seq: int = 0,
                   upto: int | None = None) -> list[BoxEvent]:
        """Events in (table, box, seq) order, optionally of one table/box and a seq range."""
        sql = ("SELECT table_no, box, seq, prev, match_id, hand, time, kind, source, payload FROM box_events "
               "WHERE seq > ?")
        args: list[Any] = [after_seq]
        for column, value in (("table_no", table_no), ("box", box)):
            if value is not None:
                sql += f" AND {column} = ?"
                args.append(value)
        if upto is not None:
            sql += " AND seq <= ?"
            args.append(upto)
        with self._reads() as run:
            rows = run(sql + " ORDER BY table_no, box, seq", tuple(args)).fetchall()
        return [_box_event(r) for r in rows]

    def box_events_in(self, ranges: list[tuple[int, str, int, int]], chunk: int = 200) -> list[BoxEvent]:
        """The events of many boxes at once, each ``(table, box, after_seq, upto)``: one query per
        ``chunk`` boxes instead of one per box (the hall's refresh, 300 tables moving at once)."""
        out: list[BoxEvent] = []
        for i in range(0, len(ranges), chunk):
            part = ranges[i:i + chunk]
            values = ", ".join(["(CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS BIGINT))"] * len(part))
            sql = (f"WITH wanted (table_no, box, after_seq, upto) AS (VALUES {values}) "
                   "SELECT e.table_no, e.box, e.seq, e.prev, e.match_id, e.hand, e.time, e.kind, e.source, e.payload "
                   "FROM box_events e JOIN wanted w ON e.table_no = w.table_no AND e.box = w.box "
                   "AND e.seq > w.after_seq AND e.seq <= w.upto ORDER BY e.table_no, e.box, e.seq")
            args = tuple(v for r in part for v in r)
            with self._reads() as run:
                rows = run(sql, args).fetchall()
            out += [_box_event(r) for r in rows]
        return out

    def event_count(self) -> int:
        with self._reads() as run:
            return int(run("SELECT COUNT(*) FROM box_events").fetchone()[0])

    def box_matches(self, table_no: int | None = None) -> list[BoxMatch]:
        sql = "SELECT table_no, box, match_id, players, rules, meta, created FROM box_matches"
        args: tuple = ()
        if table_no is not None:
            sql, args = sql + " WHERE table_no = ?", (table_no,)
        with self._reads() as run:
            rows = run(sql + " ORDER BY table_no, box, match_id", args).fetchall()
        return [BoxMatch(r[0], r[1], r[2], tuple(json.loads(r[3])), json.loads(r[4]), json.loads(r[5]), r[6])
                for r in rows]

    def change(self) -> tuple[int, ...]:
        """Grows with every write that changes what the hall shows (cheap to poll)."""
        with self._reads() as run:
            row = run("SELECT (SELECT COALESCE(MAX(id), 0) FROM box_events), (SELECT COALESCE(MAX(seq), 0) FROM "
                      "actions), (SELECT COUNT(*) FROM players), (SELECT COALESCE(SUM(acked), 0) FROM boxes), "
                      "(SELECT COUNT(*) FROM tournaments), (SELECT COUNT(*) FROM boxes WHERE active = 1)").fetchone()
        return tuple(int(v) for v in row)

    # ------------------------------------------------------------------ tournaments
    def create_tournament(self, name: str, format_name: str, settings: dict[str, Any], seed: int,
                          now: float | None = None) -> int:
        with self._tx() as run:
            row = run("INSERT INTO tournaments (name, format, settings, seed, created) VALUES (?, ?, ?, ?, ?) RETURNING id",
                      (name, format_name, _text(settings), seed, time.time() if now is None else now)).fetchone()
        return int(row[0])

    def tournaments(self) -> list[Tournament]:
        with self._reads() as run:
            rows = run("SELECT id, name, format, settings, seed, created FROM tournaments ORDER BY id").fetchall()
        return [Tournament(r[0], r[1], r[2], json.loads(r[3]), r[4], r[5]) for r in rows]

    def tournament(self, tid: int) -> Tournament:
        found = [t for t in self.tournaments() if t.id == tid]
        if not found:
            raise StorageError(f"no tournament {tid}")
        return found[0]

    def add_player(self, tid: int, name: str, club_id: str, code: str) -> int:
        with self._tx() as run:
            number = run("SELECT COALESCE(MAX(player_no), 0) + 1 FROM players WHERE tournament_id = ?",
                         (tid,)).fetchone()[0]
            run("INSERT INTO players (tournament_id, player_no, name, club_id, code) VALUES (?, ?, ?, ?, ?)",
                (tid, number, name, club_id, code))
        return int(number)

    def players(self, tid: int) -> list[Player]:
        with self._reads() as run:
            rows = run("SELECT tournament_id, player_no, name, club_id, code FROM players WHERE tournament_id = ? "
                       "ORDER BY player_no", (tid,)).fetchall()
        return [Player(*r) for r in rows]

    def act(self, tid: int, action: str, data: dict[str, Any], now: float | None = None) -> int:
        """Append a director's action to the tournament's log; returns its seq."""
        with self._tx() as run:
            row = run("INSERT INTO actions (tournament_id, time, action, data) VALUES (?, ?, ?, ?) RETURNING seq",
                      (tid, time.time() if now is None else now, action, _text(data))).fetchone()
        return int(row[0])

    def actions(self, tid: int) -> list[Action]:
        with self._reads() as run:
            rows = run("SELECT seq, tournament_id, time, action, data FROM actions WHERE tournament_id = ? ORDER BY seq",
                       (tid,)).fetchall()
        return [Action(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows]

    def __enter__(self) -> Storage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_storage(url: str | None = None, **options: Any) -> Storage:
    """``postgresql://...`` opens PostgreSQL (a pool); anything else is an SQLite file (``:memory:``)."""
    url = url or ":memory:"
    if url.startswith(("postgresql://", "postgres://")):
        from club.postgres import PostgresStorage

        return PostgresStorage(url, **options)
    from club.sqlite import SqliteStorage

    if url.startswith("sqlite:///"):
        url = url[len("sqlite:///"):]
    return SqliteStorage(url, **options)
