"""The server's folded view of every table and the current tournament, kept fresh cheaply.

:class:`Live` folds each box's events up to its acknowledged seq (never past a gap) and only
the new ones on each refresh, so the hall screen's data costs a query per box that moved, not a
re-read of the evening. Refreshes are shared by every viewer and at most one runs at a time.
Everything is still derived from storage: a new ``Live`` over the same database shows the same.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from club.storage import Storage
from club.tables import TableFold, hand_view
from club.tournament import State, TableResult, fold, playoff_due, standings, table_result

ONLINE_S = 20.0  # a box that posted within this many seconds is shown online (it posts every few seconds)


class Live:
    def __init__(self, storage: Storage, min_interval: float = 0.1) -> None:
        self.storage = storage
        self.tables: dict[int, TableFold] = {}
        self.min_interval = min_interval
        self._lock = threading.Lock()
        self._last = 0.0
        self._change: tuple | None = None
        self._state: State | None = None
        self._tid: int | None = None
        self._cache: dict[str, Any] = {}
        self._regs: list = []  # the registrations read by the last refresh
        self._table_results: dict[tuple, TableResult] = {}

    # ------------------------------------------------------------------ folding
    def refresh(self, force: bool = False, wait: bool = True) -> None:
        """Fold what arrived since the last refresh (at most every ``min_interval`` s unless
        ``force``). ``wait=False``: while another request is folding, return at once and make do
        with the view folded last (a box's post needs only its assignment, not the newest fold)."""
        if not self._lock.acquire(blocking=wait):
            return
        try:
            now = time.monotonic()
            if not force and now - self._last < self.min_interval:
                return
            self._last = now
            change = self.storage.change()
            if change == self._change and not force:
                return
            before, self._change = self._change, change
            self._cache.clear()
            self._regs = self.storage.registrations()
            moved = []
            for reg in self._regs:
                table = self.tables.setdefault(reg.table_no, TableFold(reg.table_no))
                done = table.folded.get(reg.box, 0)
                if reg.acked > done:
                    moved.append((reg.table_no, reg.box, done, reg.acked))
            arrived: dict[int, list] = {}
            for e in self.storage.box_events_in(moved):  # one query for every box that moved
                arrived.setdefault(e.table_no, []).append(e)
            for table_no, events in arrived.items():
                table = self.tables[table_no]
                if any((e.box, e.match_id) not in table.infos for e in events):
                    table.add_matches(self.storage.box_matches(table_no))
                table.apply(events)
            # The director's log and the players change seldom; the boxes' events every moment.
            if force or before is None or _director_part(before) != _director_part(change):
                self._state = self._fold_state()
        finally:
            self._lock.release()

    def _fold_state(self) -> State | None:
        tournaments = self.storage.tournaments()
        if not tournaments:
            return None
        t = tournaments[-1]
        self._tid = t.id
        return fold(t, self.storage.players(t.id), self.storage.actions(t.id))

    @property
    def state(self) -> State | None:
        self.refresh()
        return self._state

    def results(self, now: float | None = None) -> dict[str, dict[int, TableResult]]:
        state = self.state
        if state is None:
            return {}
        return self._results(state, time.time() if now is None else now)

    def _results(self, state: State, now: float) -> dict[str, dict[int, TableResult]]:
        """:func:`club.tournament.results`, each table's result kept until its match, its seats or
        its clock change: the hall asks many times a second, and a table's result is a fold of
        all its hands, while only the tables that moved since the last ask need it again."""
        kept, fresh = self._table_results, {}
        out: dict[str, dict[int, TableResult]] = {}
        for s in state.sessions:
            out[s.key] = {}
            clock_done = s.clock.state(now) in ("time_up", "ended")
            for t in sorted(s.seating):
                folded = self.tables.get(t)
                match = folded.for_session(s.key) if folded is not None else None
                key = (s.key, t, s.seating[t], s.clock.end_time, clock_done, None if match is None else
                       (match.info.box, match.info.match_id, match.events))
                result = kept.get(key)
                if result is None:
                    result = table_result(s, t, folded, now)
                fresh[key] = out[s.key][t] = result
        self._table_results = fresh  # only what this ask used: old keys do not pile up
        return out

    # ------------------------------------------------------------------ what the pages show
    def hall(self, now: float | None = None) -> dict[str, Any]:
        """The hall screen's data: the clock, every table's state, the leaderboard."""
        now = time.time() if now is None else now
        state = self.state
        regs = {r.table_no: r for r in self._regs if r.active}  # as the last refresh read them
        boxes = {t: {"acked": r.acked, "online": r.last_seen is not None and now - r.last_seen < ONLINE_S}
                 for t, r in regs.items()}
        out: dict[str, Any] = {"time": now, "tournament": None, "session": None, "clock": None, "tables": [],
                               "leaderboard": [], "boxes": {str(t): b for t, b in boxes.items()}}
        if state is None:
            return out
        out["tournament"] = {"id": state.tournament.id, "name": state.tournament.name, "format": state.format.key,
                             "format_zh": state.format.zh, "format_en": state.format.en, "published": state.published}
        session = state.current
        if session is None:
            return out
        res = self._results(state, now)
        out["session"] = {"key": session.key, "stage": session.stage.key, "stage_zh": session.stage.zh,
                          "stage_en": session.stage.en, "number": session.number, "of": session.stage.sessions}
        out["clock"] = session.clock.to_dict(now)
        for t, r in res[session.key].items():
            table = self.tables.get(t)
            match = table.for_session(session.key) if table is not None else None
            view = hand_view(match)
            landlord_seat = view["landlord"]
            out["tables"].append({
                "table": t, "players": [{"player": p, "name": state.name(p)} for p in r.players],
                "totals": r.totals, "status": r.reason, "needs_extra_hand": r.needs_extra_hand,
                "winners": [state.name(p) for p in r.winners], "out": [state.name(p) for p in r.out],
                "finished": r.finished, "void": r.void, "in_play": r.in_play,
                "hand": view["hand"], "phase": view["phase"], "multiplier": view["multiplier"],
                "landlord": None if landlord_seat is None else state.name(r.players[landlord_seat]),
                "cards_left": view["cards_left"], "acked": boxes.get(t, {}).get("acked", 0),
                "online": boxes.get(t, {}).get("online", False)})
        due = playoff_due(state, res, now)
        out["playoff"] = None if due is None else {"players": [state.name(p) for p in due.players],
                                                   "places": due.places, "points": due.points}
        out["leaderboard"] = [{**row, "playoff": due is not None and row["player"] in due.players}
                              for row in standings(state, res)]
        return out

    def assignment(self, table_no: int) -> dict[str, Any] | None:
        """What a box should be playing now: the current session's players at its table."""
        self.refresh(wait=self._change is None)  # a box's post never waits behind another's fold
        state = self._state
        session = state.current if state is not None else None
        if state is None or session is None or table_no not in session.seating:
            return None
        return {"session": session.key, "players": [state.name(p) for p in session.seating[table_no]],
                "preset": session.stage.rules_dict(), "started": session.clock.start,
                "clock": session.clock.to_dict(time.time()),  # the club's clock: the box shows it, not its own
                "name": state.tournament.name}  # the event's own name: the box's pages speak either language


def _director_part(change: tuple) -> tuple:
    """The part of :meth:`Storage.change` that is the director's and the players' (not the boxes')."""
    return change[1], change[2], change[4]
