"""Folded table states kept warm between requests.

Folding a whole match on every request would cost tens of milliseconds per hand played, and
fifty phones asking at once would multiply it. ``Tables`` keeps one :class:`TableState` per
match and folds only the events appended since, and caches the page data for the latest
``seq``, so every viewer of one update shares one computation.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable
from typing import Any

from engine.match import Match
from tracker.state import TableState
from tracker.store import EventStore, StoreError
from webui.view import table_state


class UnknownMatch(LookupError):
    """No such match in the store (a 404 for the page)."""


def fast_match(state: TableState, memo: dict | None = None) -> Match:
    """The state's match, answering ``folded()`` from the hands the state already folded and
    ``settlements()`` from one computation (the sheet asks for them many times over).

    With ``memo`` the settlements are also kept between calls, keyed by each finished hand's
    log length and the match penalties: a new hand or a correction computes them afresh.
    """
    match = copy.copy(state.match)
    finished = [h for n in state.hand_numbers if (h := state.hand_of(n)) is not None and h.finished]
    match.folded = lambda: list(finished)  # type: ignore[method-assign]  # this copy answers from the folds made
    key = (tuple((id(h), len(h.log)) for h in finished), len(match.penalties))
    rows = memo.get(key) if memo is not None else None
    if rows is None:
        rows = Match.settlements(match)
        if memo is not None:
            memo.clear()
            memo[key] = rows
    match.settlements = lambda: list(rows)  # type: ignore[method-assign]  # and from the rows computed
    return match


class Tables:
    """Warm :class:`TableState` per match over one :class:`EventStore` (thread-safe)."""

    def __init__(self, store: EventStore, club_clock: Callable[[str | None], dict | None] | None = None) -> None:
        self.store = store
        # A club match (``run --club``) shows the club's clock (tracker.replicate.Replicator.club_clock).
        self.club_clock = club_clock
        self._lock = threading.RLock()
        self._states: dict[int, TableState] = {}
        self._views: dict[int, tuple[int, int, dict[str, Any]]] = {}
        self._sheets: dict[int, dict] = {}

    def latest_match(self) -> int | None:
        """The match the live page follows: the one created last."""
        matches = self.store.matches()
        return matches[-1].id if matches else None

    def state(self, match_id: int) -> TableState:
        """The match folded up to the store's last event."""
        with self._lock:
            state = self._states.get(match_id)
            try:
                if state is None:
                    state = self._states[match_id] = TableState.load(self.store, match_id)
                else:
                    state.refresh(self.store)
            except StoreError as exc:
                raise UnknownMatch(str(exc)) from None
            return state

    def view(self, match_id: int | None, now: float | None = None) -> dict[str, Any]:
        """``/api/state`` data for the match (the latest one for ``None``), cached per update.

        Timed formats move with the clock, so a cached view is reused for one second only.
        """
        seq = self.store.last_seq()
        if match_id is None:
            match_id = self.latest_match()
            if match_id is None:
                return table_state(None, seq=seq)
        now = time.time() if now is None else now
        with self._lock:
            cached = self._views.get(match_id)
            if cached is not None and cached[0] == seq and int(now) == cached[1]:
                return cached[2]
            state = self.state(match_id)
            shown = copy.copy(state)
            shown.match = fast_match(state, self._sheets.setdefault(match_id, {}))
            data = table_state(shown, now=now, seq=seq)
            club = self.club_clock(state.info.meta.get("club_session")) if self.club_clock else None
            if club is not None and data.get("match"):
                data["match"].update(remaining_s=club["remaining"], clock_state=club["state"])
            self._views[match_id] = (seq, int(now), data)
            return data
