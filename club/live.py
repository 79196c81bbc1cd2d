"""The server's projection of every table and the current tournament: kept, not recomputed.

:class:`Live` keeps one :class:`club.tables.TableFold` per table, advanced from each box's last
folded seq up to its acknowledged one (never past a gap), so a refresh folds only what arrived
since the last one. Each table's :class:`club.tournament.TableResult` is kept until something
it reads changes (a hand counted by the sheet, a penalty, the match's end, the last landlord,
the seats or the clock), so a table at hand 200 costs what it costs at hand 1; the results and
standings are still those functions' own answers, computed from the kept folds.

The hall's data is built once per change into a :class:`Snapshot` (the JSON bytes and their
ETag) shared by every viewer: ``/api/hall`` answers with it, the event stream sends it, and a
viewer who asks while it is being built gets the previous one at once instead of waiting. A
refresh reads the store in one read transaction (one pool checkout) and takes no row lock.
Everything is derived from storage: a new ``Live`` over the same database shows the same (a
restarted server rebuilds its projection on its first refresh).
"""

from __future__ import annotations

import gc
import gzip
import hashlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from club.storage import Action, Player, Storage, Tournament
from club.tables import MatchFold, TableFold, hand_view
from club.tournament import Playoff, State, TableResult, fold, playoff_due, standings, table_result

ONLINE_S = 20.0  # a box that posted within this many seconds is shown online (it posts every few seconds)
STATE_STALE_S = 1.0  # a box's post refreshes the director's part itself when nobody has for this long
FREEZE_EVENTS = 10_000  # a refresh that folded this many events moves the heap out of the collector's way


@dataclass(frozen=True)
class Snapshot:
    """The hall's data as built once for every viewer: ``body`` is ``data`` as JSON, ``gzipped``
    the same compressed once (a hall of 300 tables is about 200 kB of JSON, a tenth of it gzipped),
    ``message`` the same as one server-sent event (every stream writes these bytes)."""

    number: int  # counts the snapshots this process built (a stream sends each one once)
    data: dict[str, Any]
    body: bytes
    etag: str
    gzipped: bytes
    message: bytes


class Live:
    def __init__(self, storage: Storage, min_interval: float = 0.25, streams: int = 16) -> None:
        self.storage = storage
        self.tables: dict[int, TableFold] = {}
        self.min_interval = min_interval  # a hall of 300 tables costs ~15 ms to build: four a second at most
        self.streams_limit = streams  # open event streams (each holds a server thread)
        self.streams = 0
        self._lock = threading.RLock()  # the folds change under it: one refresh, or one reading of them, at a time
        self._build = threading.Lock()  # one snapshot built at a time
        self._built = threading.Condition()  # the streams wait on it for the next snapshot
        self._last = 0.0
        self._change: tuple | None = None
        self._state: State | None = None
        self._tid: int | None = None
        self._ready = False  # a refresh has folded what the store held
        self._regs: list = []  # the registrations read by the last refresh
        # (session key, table) -> (quick key, full key, result): see _results()
        self._table_results: dict[tuple[str, int], tuple[tuple, tuple, TableResult]] = {}
        self._snapshot: Snapshot | None = None
        self._snapshot_key: tuple | None = None
        self._count = 0
        # The hall's rows kept between snapshots (see _row and _leaderboard); _rows_used: the
        # rows the snapshot being built used, which become _rows once it is built.
        self._rows: dict[tuple[str, int], tuple] = {}
        self._rows_used: dict[tuple[str, int], tuple] = {}
        self._board: tuple | None = None
        self._board_rows: dict[tuple, bytes] = {}

    # ------------------------------------------------------------------ folding
    def refresh(self, force: bool = False, wait: bool = True) -> None:
        """Fold what arrived since the last refresh (at most every ``min_interval`` s unless
        ``force``). ``wait=False``: while another request is folding, return at once and make do
        with the view folded last. Every read is made in one read transaction; the folding is
        done after it, its connection back in the pool."""
        if not self._lock.acquire(blocking=wait):
            return
        try:
            now = time.monotonic()
            if not force and now - self._last < self.min_interval:
                return
            self._last = now
            st = self.storage
            director: tuple[Tournament, list[Player], list[Action]] | None = None
            with st.reading():
                change = st.change()
                if change == self._change and not force:
                    return
                before = self._change
                regs = st.registrations()
                moved = []
                for reg in regs:
                    table = self.tables.setdefault(reg.table_no, TableFold(reg.table_no))
                    done = table.folded.get(reg.box, 0)
                    if reg.acked > done:
                        moved.append((reg.table_no, reg.box, done, reg.acked))
                arrived: dict[int, list] = {}
                for e in st.box_events_in(moved):  # one query for every box that moved
                    arrived.setdefault(e.table_no, []).append(e)
                described = {t: st.box_matches(t) for t, events in arrived.items()
                             if any((e.box, e.match_id) not in self.tables[t].infos for e in events)}
                # The director's log and the players change seldom; the boxes' events every moment.
                fold_director = force or before is None or _director_part(before) != _director_part(change)
                if fold_director:
                    tournaments = st.tournaments()
                    if tournaments:
                        t = tournaments[-1]
                        director = (t, st.players(t.id), st.actions(t.id))
            self._change, self._regs = change, regs
            for table_no, events in arrived.items():
                table = self.tables[table_no]
                if table_no in described:
                    table.add_matches(described[table_no])
                table.apply(events)
            if sum(len(events) for events in arrived.values()) >= FREEZE_EVENTS:
                # A long evening folded at once (a server's start) is millions of objects that
                # live as long as the server: the cycle collector's full passes would walk them
                # all, pausing every thread for hundreds of ms. Frozen, they are left out.
                gc.collect()
                gc.freeze()
            if fold_director:
                self._tid = None if director is None else director[0].id
                self._state = None if director is None else fold(*director)
            self._ready = True
        finally:
            self._lock.release()

    @property
    def ready(self) -> bool:
        """Whether a refresh has read the store (a server's start folds the whole evening)."""
        return self._ready

    @property
    def state(self) -> State | None:
        self.refresh()
        return self._state

    def results(self, now: float | None = None) -> dict[str, dict[int, TableResult]]:
        state = self.state
        if state is None:
            return {}
        with self._lock:
            return self._results(state, time.time() if now is None else now)

    def _results(self, state: State, now: float) -> dict[str, dict[int, TableResult]]:
        """:func:`club.tournament.results`, each table's result kept while what it reads is unchanged.

        A table's result is a fold of all its counted hands, so it is computed again only when
        its match gained events (the quick key) *and* something the result reads changed (the
        full key: the hands the sheet counts and how far each goes, the penalties, the match's
        end, the last landlord). A new hand's bids and plays move the quick key only, and the
        kept result is used. ``tests/club/test_club_projection.py`` checks the kept results
        against :func:`club.tournament.results` after every event of random evenings."""
        kept, fresh = self._table_results, {}
        out: dict[str, dict[int, TableResult]] = {}
        for s in state.sessions:
            out[s.key] = {}
            clock_done = s.clock.state(now) in ("time_up", "ended")
            for t in sorted(s.seating):
                folded = self.tables.get(t)
                match = folded.for_session(s.key) if folded is not None else None
                seats = (s.key, t, s.seating[t], s.clock.end_time, clock_done)
                quick = (*seats, None if match is None else (id(match), match.events))
                hit = kept.get((s.key, t))
                if hit is not None and hit[0] == quick:
                    full, result = hit[1], hit[2]
                else:
                    full = (*seats, None if match is None else (id(match), _counted(match)))
                    result = hit[2] if hit is not None and hit[1] == full else table_result(s, t, folded, now)
                fresh[(s.key, t)] = (quick, full, result)
                out[s.key][t] = result
        self._table_results = fresh  # only what this ask used: old keys do not pile up
        return out

    # ------------------------------------------------------------------ what the pages show
    def snapshot(self, now: float | None = None) -> Snapshot:
        """The hall's data, built once per change of the store (looked at every ``min_interval``
        s) or of the second (the clock and who is online move with time), shared by every
        viewer. A viewer who asks while another builds it gets the last one at once.
        ``now``: the data at that moment, built for this caller alone (tests, the director)."""
        if now is not None:
            self.refresh()
            return self._make(self._hall(now), self._count)
        if not self._build.acquire(blocking=self._snapshot is None):
            assert self._snapshot is not None
            return self._snapshot
        try:
            self.refresh()
            at = time.time()
            key = (self._change, int(at))
            if self._snapshot is None or key != self._snapshot_key:
                self._count += 1
                self._snapshot, self._snapshot_key = self._make(self._hall(at), self._count), key
                with self._built:
                    self._built.notify_all()
            return self._snapshot
        finally:
            self._build.release()

    @staticmethod
    def _make(hall: tuple[dict[str, Any], dict[str, bytes]], number: int) -> Snapshot:
        """The snapshot of ``hall`` (its data, and the JSON of the parts already encoded): the
        body is what ``json.dumps(data)`` writes, each kept part put in as it is."""
        data, parts = hall
        body = b"{" + b",".join(_json(k) + b":" + (parts[k] if k in parts else _json(v))
                                for k, v in data.items()) + b"}"
        etag = hashlib.blake2b(body, digest_size=12).hexdigest()
        # JSON escapes line breaks inside strings, so the body is one ``data:`` line
        message = b"event: hall\nid: " + etag.encode("ascii") + b"\ndata: " + body + b"\n\n"
        return Snapshot(number, data, body, etag, gzip.compress(body, compresslevel=1, mtime=0), message)

    def hall(self, now: float | None = None) -> dict[str, Any]:
        """The hall screen's data: the clock, every table's state, the leaderboard."""
        return self.snapshot(now).data

    def stream(self, lifetime: float = 300.0, keepalive: float = 15.0, tick: float = 0.5) -> Iterator[bytes]:
        """Server-sent events: each new snapshot once (``event: hall``), a comment every
        ``keepalive`` s of quiet, closed after ``lifetime`` s (the browser reconnects). Every
        stream sends the same snapshot's bytes: one build per change, whatever the viewers."""
        sent, quiet = -1, time.monotonic()
        end = quiet + lifetime
        while time.monotonic() < end:
            snap = self.snapshot()
            if snap.number != sent:
                sent, quiet = snap.number, time.monotonic()
                yield snap.message
            elif time.monotonic() - quiet >= keepalive:
                quiet = time.monotonic()
                yield b": keepalive\n\n"
            with self._built:
                self._built.wait(tick)

    def open_stream(self) -> bool:
        """Count a new event stream in; ``False`` when ``streams`` are open already."""
        with self._built:
            if self.streams >= self.streams_limit:
                return False
            self.streams += 1
            return True

    def close_stream(self) -> None:
        with self._built:
            self.streams = max(0, self.streams - 1)

    def _hall(self, now: float) -> tuple[dict[str, Any], dict[str, bytes]]:
        """The hall screen's data at ``now`` (the clock, every table's state, the leaderboard) and
        the JSON of its long parts (``tables``, ``leaderboard``), put together from kept pieces."""
        with self._lock:
            return self._hall_of(self._state, now)

    def _hall_of(self, state: State | None, now: float) -> tuple[dict[str, Any], dict[str, bytes]]:
        regs = {r.table_no: r for r in self._regs if r.active}  # as the last refresh read them
        boxes = {t: {"acked": r.acked, "online": r.last_seen is not None and now - r.last_seen < ONLINE_S}
                 for t, r in regs.items()}
        out: dict[str, Any] = {"time": now, "tournament": None, "session": None, "clock": None, "tables": [],
                               "leaderboard": [], "boxes": {str(t): b for t, b in boxes.items()}}
        if state is None:
            return out, {}
        out["tournament"] = {"id": state.tournament.id, "name": state.tournament.name, "format": state.format.key,
                             "format_zh": state.format.zh, "format_en": state.format.en, "published": state.published}
        session = state.current
        if session is None:
            return out, {}
        res = self._results(state, now)
        out["session"] = {"key": session.key, "stage": session.stage.key, "stage_zh": session.stage.zh,
                          "stage_en": session.stage.en, "number": session.number, "of": session.stage.sessions}
        out["clock"] = session.clock.to_dict(now)
        self._rows_used = {}
        rows = [self._row(state, session.key, t, r, boxes.get(t)) for t, r in res[session.key].items()]
        self._rows, self._rows_used = self._rows_used, {}  # only this hall's rows: old ones do not pile up
        out["tables"] = [row for row, _ in rows]
        due = playoff_due(state, res, now)
        out["playoff"] = None if due is None else {"players": [state.name(p) for p in due.players],
                                                   "places": due.places, "points": due.points}
        out["leaderboard"], board = self._leaderboard(state, res, due)
        return out, {"tables": b"[" + b",".join(text for _, text in rows) + b"]", "leaderboard": board}

    def _row(self, state: State, session: str, t: int, r: TableResult,
             box: dict[str, Any] | None) -> tuple[dict[str, Any], bytes]:
        """Table ``t``'s row of the hall and its JSON, kept while what it shows is unchanged: the
        result, the match's events folded (the hand in progress), the box's acknowledged seq and
        whether it is online (a refresh moves a quarter of the tables, not all of them)."""
        table = self.tables.get(t)
        match = table.for_session(session) if table is not None else None
        acked, online = (0, False) if box is None else (box["acked"], box["online"])
        key = (id(state), id(r), id(match), None if match is None else match.events, acked, online)
        hit = self._rows.get((session, t))
        if hit is not None and hit[0] == key:
            self._rows_used[(session, t)] = hit
            return hit[2], hit[3]
        view = hand_view(match)
        landlord_seat = view["landlord"]
        row = {
            "table": t, "players": [{"player": p, "name": state.name(p)} for p in r.players],
            "totals": r.totals, "status": r.reason, "needs_extra_hand": r.needs_extra_hand,
            "winners": [state.name(p) for p in r.winners], "out": [state.name(p) for p in r.out],
            "finished": r.finished, "void": r.void, "in_play": r.in_play,
            "hand": view["hand"], "phase": view["phase"], "multiplier": view["multiplier"],
            "landlord": None if landlord_seat is None else state.name(r.players[landlord_seat]),
            "cards_left": view["cards_left"], "acked": acked, "online": online}
        # the objects named by id() in the key are held with it, so no other object takes their id
        entry = (key, (state, r, match), row, _json(row))
        self._rows_used[(session, t)] = entry
        return row, entry[3]

    def _leaderboard(self, state: State, res: dict[str, dict[int, TableResult]],
                     due: Playoff | None) -> tuple[list[dict[str, Any]], bytes]:
        """:func:`club.tournament.standings` with the play-off marks, and its JSON: computed again
        only when a table's result or the director's log changed (a hand finished), each row's
        JSON kept while that row reads the same."""
        held = tuple(r for results in res.values() for r in results.values())
        key = (id(state), tuple(id(r) for r in held), None if due is None else tuple(due.players))
        if self._board is not None and self._board[0] == key:
            return self._board[2], self._board[3]
        rows = [{**row, "playoff": due is not None and row["player"] in due.players} for row in standings(state, res)]
        kept, fresh = self._board_rows, {}
        texts = []
        for row in rows:
            values = tuple(row.values())
            text = kept.get(values)
            if text is None:
                text = _json(row)
            fresh[values] = text
            texts.append(text)
        self._board_rows = fresh  # only the rows of this board: old ones do not pile up
        board = b"[" + b",".join(texts) + b"]"
        self._board = (key, (state, held), rows, board)
        return rows, board

    def assignment(self, table_no: int) -> dict[str, Any] | None:
        """What a box should be playing now: the current session's players at its table. Read
        from the projection: a post refreshes it itself only when nobody did for
        ``STATE_STALE_S`` s, and never waits behind another refresh once one was made."""
        if self._change is None or time.monotonic() - self._last > STATE_STALE_S:
            self.refresh(wait=self._change is None)
        state = self._state
        session = state.current if state is not None else None
        if state is None or session is None or table_no not in session.seating:
            return None
        return {"session": session.key, "players": [state.name(p) for p in session.seating[table_no]],
                "preset": session.stage.rules_dict(), "started": session.clock.start,
                "clock": session.clock.to_dict(time.time()),  # the club's clock: the box shows it, not its own
                "name": state.tournament.name}  # the event's own name: the box's pages speak either language


def _json(value: Any) -> bytes:
    """``value`` as the hall's JSON: UTF-8, no spaces."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _director_part(change: tuple) -> tuple:
    """The part of :meth:`Storage.change` that is the director's and the players' (not the boxes')."""
    return change[1], change[2], change[4]


def _counted(match: MatchFold) -> tuple:
    """What a table's result reads of its match, besides the seats and the clock: the hands the
    sheet counts (finished ones) and how far each one's log goes (they change only when
    ``finished_mark`` moves), the penalties, whether the match was ended, the last landlord (who
    moves on at a table change), and the hand in play with the time it was dealt
    (:meth:`club.tables.MatchFold.tally` counts it)."""
    number, hand = match.current
    playing = hand is not None and not hand.finished
    return (match.finished_mark, len(match.penalties),
            match.ended, match.rejected, match.landlord(), number, playing,
            match.dealt_at.get(number) if playing else None)
