"""Downloads from the store: JSON records, CSV score sheets and printable text, the last two in zh or en.

Used by the history pages and by ``ddz-table export``. CSV sheets come from
:func:`engine.record_text.csv_sheet`, which keeps typed text (player names, penalty reasons)
from reading as spreadsheet formulas. A target is a match (``"3"``) or one
hand of it (``"3/2"``, also ``"3:2"`` or ``"3.2"``); ``"last"`` is the latest match.

>>> parse_target("3/2"), parse_target("7"), parse_target("last")
((3, 2), (7, None), (None, None))
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.match import HandRecord, Match
from engine.record import RecordedHand, dumps
from engine.record_text import csv_sheet, render_hand, render_match
from engine.words import LANGS
from tracker.state import TableState
from tracker.store import EventStore, StoreError

FORMATS = ("json", "csv", "txt")
_TARGET = re.compile(r"^\s*(\d+)\s*(?:[/:.]\s*(\d+))?\s*$")


@dataclass(frozen=True)
class Export:
    text: str
    mimetype: str
    filename: str

    @property
    def content_type(self) -> str:
        """The whole ``Content-Type`` header: the type and its character set, once."""
        return f"{self.mimetype}; charset=utf-8"


def parse_target(text: str) -> tuple[int | None, int | None]:
    """``(match, hand)`` from ``"3"``, ``"3/2"`` or ``"last"``; anything else is a ``ValueError``."""
    if text.strip().lower() in ("last", "latest"):
        return None, None
    found = _TARGET.match(text)
    if not found:
        raise ValueError(f"{text!r} is not a match or a hand: write MATCH (e.g. 3) or MATCH/HAND (e.g. 3/2)")
    match, hand = int(found.group(1)), found.group(2)
    if match < 1 or (hand is not None and int(hand) < 1):
        raise ValueError("match and hand numbers start at 1")
    return match, None if hand is None else int(hand)


def load_state(store: EventStore, match_id: int | None) -> TableState:
    if match_id is None:
        matches = store.matches()
        if not matches:
            raise LookupError("the store holds no match yet")
        match_id = matches[-1].id
    try:
        return TableState.load(store, match_id)
    except StoreError as exc:
        raise LookupError(str(exc)) from None


def export_match(state: TableState, fmt: str, lang: str = "zh") -> Export:
    """The match's finished hands: a match record, the score sheet, or the text sheet with each hand."""
    _check(fmt, lang)
    match = state.match
    stem = f"match-{state.info.id}"
    if fmt == "json":
        return Export(dumps(match), "application/json", stem + ".json")
    if fmt == "csv":
        return Export(csv_sheet(match, lang), "text/csv", f"{stem}-{lang}.csv")
    ended = state.ended is not None
    open_hand = next((n for n in state.hand_numbers if (h := state.hand_of(n)) is not None and h.events
                      and not h.finished), None)
    parts = [render_match(match, lang, now=state.ended.time if ended and state.ended.time else None,  # type: ignore[union-attr]
                          ended=ended, unfinished=open_hand)]
    for record in match.hands:
        parts.append(render_hand(RecordedHand(match.rules, match.players, record.events, record.started), lang))
    return Export("\n".join(parts), "text/plain", f"{stem}-{lang}.txt")


def export_hand(state: TableState, number: int, fmt: str, lang: str = "zh") -> Export:
    """One hand (finished or not): its hand record, a one-row score sheet, or its text."""
    _check(fmt, lang)
    hand = state.hand_of(number)
    if hand is None:
        raise LookupError(f"match {state.info.id} has no hand {number} (hands: "
                          f"{', '.join(map(str, state.hand_numbers)) or 'none yet'})")
    record = RecordedHand(state.info.rules, state.info.players, tuple(hand.log))
    stem = f"match-{state.info.id}-hand-{number}"
    if fmt == "json":
        return Export(dumps(record), "application/json", stem + ".json")
    if fmt == "csv":
        one = Match(state.info.rules, state.info.players, [HandRecord(tuple(hand.log))],
                    first_bidder=hand.first_bidder)
        return Export(csv_sheet(one, lang), "text/csv", f"{stem}-{lang}.csv")
    void = state.ended is not None and not hand.finished  # ended mid-hand: 未打完 · 作废, as the pages say
    return Export(render_hand(record, lang, void=void), "text/plain", f"{stem}-{lang}.txt")


def _check(fmt: str, lang: str) -> None:
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if lang not in LANGS:
        raise ValueError(f"language must be {' or '.join(LANGS)}, not {lang!r}")


def export(store: EventStore, target: str, fmt: str, lang: str = "zh") -> Export:
    """What ``ddz-table export TARGET --format FMT --lang LANG`` writes."""
    match_id, hand = parse_target(target)
    state = load_state(store, match_id)
    return export_match(state, fmt, lang) if hand is None else export_hand(state, hand, fmt, lang)

