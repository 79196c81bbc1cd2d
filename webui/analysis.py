"""The replay page's 复盘 / Analysis block: a finished hand's turning points, with marks on the
steps that turned a won position into a lost one, solved in the background.

A referee wants the 复盘 of the hand just played before the next deal is shuffled, so the site
solves every hand as soon as it can: one thread per site (:class:`Analyst`) watches the store,
and each hand that finishes (or, once finished, gets the cards left shown, 亮牌) is solved
there, the newest first, within ``ANALYSIS_SECONDS`` (60 s by default, and an eighth of it for
each seat-as-landlord check), at a lower CPU priority than the table's own work. The replay
never waits for it more than a moment (:data:`WAIT`): until the answer is there the block shows
how far the solver has got (the page looks again every second) and then the turning points. The answer is kept per hand and log length, so a correction or cards
shown afterwards solve the hand again; at most :data:`KEPT` hands are kept.

Only a finished hand is analysed: a hand in play is never judged on the site.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import sqlite3
import threading
from collections import OrderedDict
from typing import Any

from flask import Flask, current_app

from engine.analysis import ANALYSIS, Analysis, NoStartingHands, analyse
from engine.hand import Hand
from engine.record import RecordedHand
from engine.rules import RuleSet

WEB_SECONDS = 60.0
#: Seconds a replay waits for an answer before showing the progress line instead.
WAIT = 0.3
KEPT = 64
#: Seconds between looks at the store for hands that finished.
WATCH_EVERY = 1.0

Key = tuple[int, int, int]  # match id, hand number, the hand's log length
log = logging.getLogger(__name__)


@dataclasses.dataclass
class _Job:
    rules: RuleSet
    players: tuple[str, ...]
    events: tuple[Any, ...]
    done: int = 0
    total: int = 0


class Analyst:
    """Solves finished hands in one background thread, the newest first, and keeps the answers.

    ``submit`` asks for a hand (no-op when it is solved or waiting), ``result`` is the kept answer
    (an :class:`Analysis`, ``"missing"`` when the starting cards are not known, or the reason the
    hand cannot be solved), ``progress`` the positions solved so far while it runs. With a
    store, the thread also looks at it every :data:`WATCH_EVERY` seconds and submits every
    finished hand whose events changed.
    """

    def __init__(self, seconds: float = WEB_SECONDS, tables: Any = None, kept: int = KEPT) -> None:
        self.seconds = seconds
        self.tables = tables  # None: no watching, hands are solved when asked for
        self.kept = kept
        self._done: OrderedDict[Key, Analysis | str] = OrderedDict()
        self._waiting: dict[Key, _Job] = {}
        self._running: tuple[Key, _Job] | None = None
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._seq = tables.store.last_seq() if tables is not None else 0

    # ------------------------------------------------------------------ asking
    def submit(self, key: Key, rules: RuleSet, players: tuple[str, ...], events: tuple[Any, ...]) -> None:
        with self._cond:
            if key in self._done or key in self._waiting or (self._running and self._running[0] == key):
                return
            for old in [k for k in self._waiting if k[:2] == key[:2]]:  # the same hand, since changed
                del self._waiting[old]
            self._waiting[key] = _Job(rules, players, events)
            self._cond.notify_all()
        self.start()

    def result(self, key: Key, wait: float = 0.0) -> Analysis | str | None:
        with self._cond:
            self._cond.wait_for(lambda: key in self._done or self._stop.is_set(), wait)
            return self._done.get(key)

    def progress(self, key: Key) -> tuple[int, int] | None:
        """(positions solved, positions) while the hand is solved, (0, 0) while it waits, None
        when it was never asked for."""
        with self._cond:
            if self._running and self._running[0] == key:
                return self._running[1].done, self._running[1].total
            return (0, 0) if key in self._waiting else None

    # ------------------------------------------------------------------ the thread
    def start(self) -> None:
        with self._cond:
            if self._thread is None or not self._thread.is_alive():
                self._stop.clear()
                self._thread = threading.Thread(target=self._run, name="ddz-analysis", daemon=True)
                self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()

    def _run(self) -> None:
        try:  # below the camera and the site: Linux lets a thread lower its own priority
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
        except (AttributeError, OSError):
            pass
        while not self._stop.is_set():
            if self.tables is not None and not self._watch():
                return  # the store was closed: the site is gone
            with self._cond:
                if not self._waiting:
                    self._cond.wait(WATCH_EVERY if self.tables is not None else None)
                    continue
                key = next(reversed(self._waiting))  # the newest first
                job = self._waiting.pop(key)
                self._running = (key, job)
            found = self._solve(job)
            with self._cond:
                self._running = None
                self._done[key] = found
                while len(self._done) > self.kept:
                    self._done.popitem(last=False)
                self._cond.notify_all()

    def _solve(self, job: _Job) -> Analysis | str:
        def told(done: int, total: int) -> None:
            job.done, job.total = done, total

        try:
            return analyse(RecordedHand(job.rules, job.players, job.events), self.seconds, self.seconds / 8,
                           progress=told)
        except NoStartingHands:
            return "missing"
        except ValueError as exc:  # rules the solver does not play, hands that do not add up
            return str(exc)
        except Exception:  # a bug: the site goes on, the log keeps the trace
            log.exception("the analysis of a hand failed")
            return "analysis failed / 复盘失败"

    def _watch(self) -> bool:
        """Submit every finished hand with new events; False once the store is closed."""
        store = self.tables.store
        try:
            seq = store.last_seq()
            if seq == self._seq:
                return True
            touched = {(e.match_id, e.hand) for e in store.events(None, after_seq=self._seq) if e.hand}
            self._seq = seq
            for match_id, number in sorted(touched):
                state = self.tables.state(match_id)
                hand = state.hand_of(number)
                if hand is not None and hand.finished and hand.landlord is not None:
                    self.submit((match_id, number, len(hand.log)), state.info.rules, state.info.players,
                                tuple(hand.events))
        except sqlite3.ProgrammingError:
            return False
        except Exception:  # noqa: BLE001 - a busy store or a match being written: look again later
            log.debug("the analysis watcher will look again", exc_info=True)
        return True


def start(app: Flask, tables: Any) -> Analyst:
    """The site's analyst, watching ``tables``' store (unless ``ANALYSIS_WATCH`` is false: then a
    hand is solved when its replay is opened)."""
    seconds = float(app.config.get("ANALYSIS_SECONDS", WEB_SECONDS))
    watched = tables if app.config.get("ANALYSIS_WATCH", True) else None
    analyst = app.extensions["ddz_analysis"] = Analyst(seconds, watched)
    analyst.start()
    return analyst


def _analyst() -> Analyst:
    found = current_app.extensions.get("ddz_analysis")
    if found is None:  # an app made without start(): solve on demand, no watching
        found = current_app.extensions["ddz_analysis"] = Analyst(
            float(current_app.config.get("ANALYSIS_SECONDS", WEB_SECONDS)))
    return found


def hand_analysis(match_id: int, number: int, rules: RuleSet, players: tuple[str, ...], hand: Hand,
                  language: str, solve: bool = False) -> dict[str, Any] | None:
    """What the replay shows: ``lines`` (the findings in ``language``), ``marks`` (event index ->
    the mark's words), ``missing`` (the starting hands are not known yet) and, while the solver
    runs, ``running`` with ``done`` of ``total`` positions; None while the hand is in play.
    The hand is asked for if it was not yet; the page waits at most :data:`WAIT` seconds for it
    (``solve``, the 复盘 link: a little longer)."""
    if not hand.finished or hand.landlord is None:
        return None
    key = (match_id, number, len(hand.log))
    analyst = _analyst()
    found = analyst.result(key)
    if found is None:
        analyst.submit(key, rules, players, tuple(hand.events))
        found = analyst.result(key, wait=WAIT * (4 if solve else 1))
    if found is None:
        done, total = analyst.progress(key) or (0, 0)
        return {"running": True, "done": done, "total": total, "missing": False, "lines": [], "marks": {},
                "seconds": None}
    if found == "missing":
        return {"missing": True, "lines": [], "marks": {}, "seconds": None}
    if isinstance(found, str):
        return {"missing": False, "lines": [found], "marks": {}, "seconds": None}
    lang = "zh" if language == "zh" else "en"
    marks = {s.index: ANALYSIS("turned", lang) for s in found.mistakes}
    return {"missing": False, "lines": found.lines(lang), "marks": marks,
            "seconds": round(found.seconds, 1)}


def with_analysis(export: Any, match_id: int, number: int, hand: Hand | None, language: str) -> Any:
    """A hand's text export with the kept analysis appended (复盘 / Analysis lines), when the hand
    was analysed on the site; an export is never held up to solve the hand."""
    if hand is None:
        return export
    found = _analyst().result((match_id, number, len(hand.log)))
    if found is None or isinstance(found, str):
        return export
    lang = "zh" if language == "zh" else "en"
    heading, lines = ANALYSIS("heading", lang), found.lines(lang)
    return dataclasses.replace(export, text=export.text + f"{heading}:\n" + "".join(f"  {x}\n" for x in lines))
