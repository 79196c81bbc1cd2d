"""The replay page's 复盘 / Analysis block: a finished hand's turning points, with marks on the
steps that turned a won position into a lost one, solved in the background.

A referee wants the 复盘 of the hand just played before the next deal is shuffled, so the site
solves every hand as soon as it can: one thread per site (:class:`Analyst`) watches the store,
and each hand that finishes (or, once finished, gets the cards left shown, 亮牌) is solved
there, the newest first, within ``ANALYSIS_SECONDS`` (60 s by default, and an eighth of it for
each seat-as-landlord check), at a lower CPU priority than the table's own work. The replay
never waits for it more than a moment (:data:`WAIT`): until the answer is there the block shows
how far the solver has got (the page looks again every second) and then the turning points.

Each answer is kept in the event store beside the hand (``EventStore.save_analysis``: derived
data, not an event, so the club's copy of the log is unchanged) with the :func:`version` of the
hand's events it was solved from: it survives a restart, and a correction or cards shown
afterwards make another version, which is solved again. The latest :data:`KEPT` answers are also
held in memory. After a restart the watcher looks again at the hands of the last
:data:`BACKLOG` events, so a hand whose solving was cut short is solved then.

Only a finished hand is analysed: a hand in play is never judged on the site.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import sqlite3
import threading
from collections import OrderedDict
from typing import Any

from flask import Flask, current_app

from engine.analysis import ANALYSIS, NoStartingHands, analyse, not_analysed
from engine.hand import Hand
from engine.record import RecordedHand
from engine.rules import RuleSet
from engine.solver import UnsupportedRules

WEB_SECONDS = 60.0
#: Seconds a replay waits for an answer before showing the progress line instead.
WAIT = 0.3
KEPT = 64
#: Seconds between looks at the store for hands that finished.
WATCH_EVERY = 1.0
#: Events before the store's last that the watcher looks at again when the site starts.
BACKLOG = 1000

Key = tuple[int, int, str]  # match id, hand number, the version of the hand's events
#: An answer: the analysis's JSON form (``Analysis.to_dict()``), a reason in both languages
#: (``{"reason": {"zh": ..., "en": ...}}``), or ``"missing"`` (the starting cards are not known).
Found = dict[str, Any] | str
log = logging.getLogger(__name__)


def version(hand: Hand) -> str:
    """The hand's effective events in a few characters: an answer solved from other events
    (before a correction, before the cards were shown) has another version."""
    text = json.dumps([e.to_dict() for e in hand.events], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def key_of(match_id: int, number: int, hand: Hand) -> Key:
    return match_id, number, version(hand)


@dataclasses.dataclass
class _Job:
    rules: RuleSet
    players: tuple[str, ...]
    events: tuple[Any, ...]
    done: int = 0
    total: int = 0


class Analyst:
    """Solves finished hands in one background thread, the newest first, and keeps the answers.

    ``submit`` asks for a hand (no-op when it is solved, kept in the store, or waiting),
    ``result`` is the answer (:data:`Found`), ``progress`` the positions solved so far while it
    runs. With ``store`` every analysis is kept there and read back from it; with ``tables``
    the thread also looks at their store every :data:`WATCH_EVERY` seconds and submits every
    finished hand whose events changed.
    """

    def __init__(self, seconds: float = WEB_SECONDS, tables: Any = None, kept: int = KEPT,
                 store: Any = None) -> None:
        self.seconds = seconds
        self.tables = tables  # None: no watching, hands are solved when asked for
        self.store = store if store is not None or tables is None else tables.store
        self.kept = kept
        self._done: OrderedDict[Key, Found] = OrderedDict()
        self._waiting: dict[Key, _Job] = {}
        self._running: tuple[Key, _Job] | None = None
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._seq = max(0, tables.store.last_seq() - BACKLOG) if tables is not None else 0

    # ------------------------------------------------------------------ asking
    def submit(self, key: Key, rules: RuleSet, players: tuple[str, ...], events: tuple[Any, ...]) -> None:
        with self._cond:
            if self._known(key):
                return
        kept = self._stored(key)  # outside the lock: the store has its own
        with self._cond:
            if kept is not None:
                self._keep(key, kept)
                return
            if self._known(key):  # asked for by another thread meanwhile
                return
            for old in [k for k in self._waiting if k[:2] == key[:2]]:  # the same hand, since changed
                del self._waiting[old]
            self._waiting[key] = _Job(rules, players, events)
            self._cond.notify_all()
        self.start()

    def _known(self, key: Key) -> bool:
        return key in self._done or key in self._waiting or (self._running is not None and self._running[0] == key)

    def result(self, key: Key, wait: float = 0.0) -> Found | None:
        with self._cond:
            found = self._done.get(key)
        if found is None:
            found = self._stored(key)
            if found is not None:
                with self._cond:
                    self._keep(key, found)
                return found
        with self._cond:
            self._cond.wait_for(lambda: key in self._done or self._stop.is_set(), wait)
            return self._done.get(key)

    def _stored(self, key: Key) -> dict[str, Any] | None:
        if self.store is None:
            return None
        try:
            return self.store.analysis(*key)
        except (sqlite3.Error, ValueError):  # a closed or busy store: solve it again
            return None

    def _keep(self, key: Key, found: Found) -> None:
        """Hold an answer in memory (under ``_cond``), the oldest forgotten past :data:`KEPT`."""
        self._done[key] = found
        self._done.move_to_end(key)
        while len(self._done) > self.kept:
            self._done.popitem(last=False)
        self._cond.notify_all()

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
            if isinstance(found, dict) and "steps" in found and self.store is not None:
                try:  # kept with the hand: a restart finds it
                    self.store.save_analysis(key[0], key[1], key[2], found)
                except sqlite3.ProgrammingError:
                    return  # the store was closed: the site is gone, the next one solves it again
                except (sqlite3.Error, ValueError):
                    log.warning("the analysis of match %s hand %s could not be kept", key[0], key[1],
                                exc_info=True)
            with self._cond:
                self._running = None
                self._keep(key, found)

    def _solve(self, job: _Job) -> Found:
        def told(done: int, total: int) -> None:
            job.done, job.total = done, total

        def reason(zh: str, en: str) -> Found:
            return {"reason": {"zh": zh, "en": en}}

        try:
            return analyse(RecordedHand(job.rules, job.players, job.events), self.seconds, self.seconds / 8,
                           progress=told).to_dict()
        except NoStartingHands:
            return "missing"
        except UnsupportedRules as exc:  # a preset open-hand analysis does not apply to: say why
            return reason(not_analysed(exc, "zh"), not_analysed(exc, "en"))
        except ValueError as exc:  # hands that do not add up
            return reason(f"无法复盘：{exc}", f"Cannot be analysed: {exc}")
        except Exception:  # a bug: the site goes on, the log keeps the trace
            log.exception("the analysis of a hand failed")
            return reason("复盘失败", "The analysis failed")

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
                    self.submit(key_of(match_id, number, hand), state.info.rules, state.info.players,
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
    analyst = app.extensions["ddz_analysis"] = Analyst(seconds, watched, store=tables.store)
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
    key = key_of(match_id, number, hand)
    analyst = _analyst()
    found = analyst.result(key)
    if found is None:
        analyst.submit(key, rules, players, tuple(hand.events))
        found = analyst.result(key, wait=WAIT * (4 if solve else 1))
    if found is None:
        done, total = analyst.progress(key) or (0, 0)
        return {"running": True, "done": done, "total": total, "missing": False, "lines": [], "marks": {},
                "seconds": None}
    if not isinstance(found, dict):
        return {"missing": True, "lines": [], "marks": {}, "seconds": None}
    lang = "zh" if language == "zh" else "en"
    if "reason" in found:
        return {"missing": False, "lines": [found["reason"][lang]], "marks": {}, "seconds": None}
    marks = {s["event"]: ANALYSIS("turned", lang) for s in found["steps"] if s["mistake"]}
    return {"missing": False, "lines": found["lines"][lang], "marks": marks,
            "seconds": round(found["seconds"], 1)}


def with_analysis(export: Any, match_id: int, number: int, hand: Hand | None, language: str) -> Any:
    """A hand's text export with the kept analysis appended (复盘 / Analysis lines), when the hand
    was analysed on the site; an export is never held up to solve the hand."""
    if hand is None:
        return export
    found = _analyst().result(key_of(match_id, number, hand))
    if not isinstance(found, dict) or "steps" not in found:
        return export
    lang = "zh" if language == "zh" else "en"
    heading, lines = ANALYSIS("heading", lang), found["lines"][lang]
    return dataclasses.replace(export, text=export.text + f"{heading}:\n" + "".join(f"  {x}\n" for x in lines))
