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
from club.tournament import State, TableResult, fold, results, standings

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

    # ------------------------------------------------------------------ folding
    def refresh(self, force: bool = False) -> None:
        with self._lock:
            now = time.monotonic()
            if not force and now - self._last < self.min_interval:
                return
            self._last = now
            change = self.storage.change()
            if change == self._change and not force:
                return
            self._change = change
            self._cache.clear()
            regs = self.storage.registrations()
            for reg in regs:
                table = self.tables.setdefault(reg.table_no, TableFold(reg.table_no))
                done = table.folded.get(reg.box, 0)
                if reg.acked <= done:
                    continue
                events = self.storage.box_events(reg.table_no, reg.box, after_seq=done, upto=reg.acked)
                if any((e.box, e.match_id) not in table.infos for e in events):
                    table.add_matches(self.storage.box_matches(reg.table_no))
                table.apply(events)
            tournaments = self.storage.tournaments()
            self._state = None
            if tournaments:
                t = tournaments[-1]
                self._tid = t.id
                self._state = fold(t, self.storage.players(t.id), self.storage.actions(t.id))

    @property
    def state(self) -> State | None:
        self.refresh()
        return self._state

    def results(self, now: float | None = None) -> dict[str, dict[int, TableResult]]:
        state = self.state
        if state is None:
            return {}
        return results(state, self.tables, time.time() if now is None else now)

    # ------------------------------------------------------------------ what the pages show
    def hall(self, now: float | None = None) -> dict[str, Any]:
        """The hall screen's data: the clock, every table's state, the leaderboard."""
        now = time.time() if now is None else now
        state = self.state
        regs = {r.table_no: r for r in self.storage.registrations() if r.active}
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
        res = results(state, self.tables, now)
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
                "hand": view["hand"], "phase": view["phase"], "multiplier": view["multiplier"],
                "landlord": None if landlord_seat is None else state.name(r.players[landlord_seat]),
                "cards_left": view["cards_left"], "acked": boxes.get(t, {}).get("acked", 0),
                "online": boxes.get(t, {}).get("online", False)})
        out["leaderboard"] = standings(state, res)
        return out

    def assignment(self, table_no: int) -> dict[str, Any] | None:
        """What a box should be playing now: the current session's players at its table."""
        state = self.state
        session = state.current if state is not None else None
        if session is None or table_no not in session.seating:
            return None
        return {"session": session.key, "players": [state.name(p) for p in session.seating[table_no]],
                "preset": session.stage.rules_dict(), "started": session.clock.start,
                "name": f"{state.tournament.name} {session.stage.zh} {session.number}"}
