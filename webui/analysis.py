"""The replay page's 复盘 / Analysis block: a finished hand's turning points, with marks on the
steps that turned a won position into a lost one.

The page solves the hand when a visitor asks (the 复盘 link: ``?analyse=1``), within a short
budget (``ANALYSIS_SECONDS``, 2 s by default, and an eighth of it for each seat-as-landlord
check), and keeps the answer per hand: from then on every view of the hand shows it at once.
A club wants the turning points where it already looks at the hand, without running a
command, but not a replay that stalls for seconds on a Pi each time a hand is opened; what the
budget leaves unsolved (the early positions of a full hand) the block says, and
``ddz-table analyse`` with a longer budget finishes. The answer is kept until the hand's log
changes (a correction, or a seat showing its cards), at most :data:`KEPT` hands.

Only a finished hand is analysed: a hand in play is never judged on the site.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from typing import Any

from flask import current_app

from engine.analysis import Analysis, NoStartingHands, analyse
from engine.hand import Hand
from engine.record import RecordedHand
from engine.rules import RuleSet

WEB_SECONDS = 2.0
KEPT = 64

_lock = threading.Lock()


def _kept() -> OrderedDict[tuple, Analysis | str]:
    """This site's kept analyses (one store per app: match ids are the store's own)."""
    return current_app.extensions.setdefault("ddz_analysis", OrderedDict())


def _solve(rules: RuleSet, players: tuple[str, ...], hand: Hand) -> Analysis | str:
    seconds = float(current_app.config.get("ANALYSIS_SECONDS", WEB_SECONDS))
    try:
        return analyse(RecordedHand(rules, players, tuple(hand.events)), seconds, seconds / 8)
    except NoStartingHands:
        return "missing"
    except ValueError as exc:  # rules the solver does not play, hands that do not add up
        return str(exc)


def hand_analysis(match_id: int, number: int, rules: RuleSet, players: tuple[str, ...], hand: Hand,
                  language: str, solve: bool = False) -> dict[str, Any] | None:
    """What the replay shows: ``lines`` (the findings in ``language``), ``marks`` (event index ->
    the mark's words) and ``missing`` (the starting hands are not known yet); ``offer`` when the
    hand has not been analysed and ``solve`` is false; None while the hand is in play."""
    if not hand.finished or hand.landlord is None:
        return None
    key = (match_id, number, len(hand.log))
    kept = _kept()
    with _lock:
        found = kept.get(key)
    if found is None:
        if not solve:
            return {"offer": True, "missing": False, "lines": [], "marks": {}, "seconds": None}
        found = _solve(rules, players, hand)
        with _lock:
            kept[key] = found
            while len(kept) > KEPT:
                kept.popitem(last=False)
    if found == "missing":
        return {"missing": True, "lines": [], "marks": {}, "seconds": None}
    if isinstance(found, str):
        return {"missing": False, "lines": [found], "marks": {}, "seconds": None}
    zh = language == "zh"
    marks = {s.index: ("由胜转负" if zh else "won → lost") for s in found.mistakes}
    return {"missing": False, "lines": found.lines("zh" if zh else "en"), "marks": marks,
            "seconds": round(found.seconds, 1)}


def with_analysis(export: Any, match_id: int, number: int, hand: Hand | None, language: str) -> Any:
    """A hand's text export with the kept analysis appended (复盘 / Analysis lines), when the hand
    was analysed on the site; an export is never held up to solve the hand."""
    if hand is None:
        return export
    with _lock:
        found = _kept().get((match_id, number, len(hand.log)))
    if found is None or isinstance(found, str):
        return export
    heading = "复盘" if language == "zh" else "Analysis"
    lines = found.lines("zh" if language == "zh" else "en")
    return dataclasses.replace(export, text=export.text + f"{heading}:\n" + "".join(f"  {x}\n" for x in lines))
