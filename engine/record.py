"""Hand and match records: versioned JSON that round-trips, plus the score sheet.

A record is ``{"format": "ddz-table/record", "version": 1, "type": "hand" | "match", ...}``.
The source of truth is the event list (corrections included, so the history of a dispute is
kept); a ``summary`` (bids, kitty, plays with their readings and times, result, points) is
written alongside for people and other tools, and recomputed, never trusted, on load.

>>> from engine.events import Deal, Bid
>>> rec = RecordedHand("classic", ("A", "B", "C"), (Deal(counts=(17, 17, 17)), Bid(0, "bid", 3)))
>>> loads(dumps(rec)) == rec
True
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.cards import format_cards
from engine.events import Bid, Event, Pass, Penalty, event_from_dict
from engine.hand import Hand
from engine.match import HandRecord, Match
from engine.rules import CLASSIC, PRESETS, RuleSet, get_rules
from engine.scoring import settle
from engine.showdown import deck_audit, starting_hands
from engine.violations import HandViolation

FORMAT = "ddz-table/record"
VERSION = 1


@dataclass(frozen=True, init=False)
class RecordedHand:
    """A single hand on its own: rules (a preset name may be given), players by seat, raw events."""

    rules: RuleSet
    players: tuple[str, ...]
    events: tuple[Event, ...]
    started: float | None
    note: str

    def __init__(self, rules: RuleSet | str, players: Iterable[str], events: Iterable[Event],
                 started: float | None = None, note: str = "") -> None:
        object.__setattr__(self, "rules", get_rules(rules))
        object.__setattr__(self, "players", tuple(players))
        object.__setattr__(self, "events", tuple(events))
        object.__setattr__(self, "started", started)
        object.__setattr__(self, "note", note)

    def hand(self) -> Hand:
        return Hand.from_events(self.rules, self.events)

    @classmethod
    def of(cls, hand: Hand, players: tuple[str, ...], started: float | None = None, note: str = "") -> RecordedHand:
        return cls(hand.rules, players, tuple(hand.log), started, note)


# ---------------------------------------------------------------------- rules in records
def rules_to_dict(rules: RuleSet) -> dict[str, Any]:
    """The preset's name and only the options that differ from that preset."""
    base = PRESETS.get(rules.name, CLASSIC)
    changes = {k: v for k, v in rules.to_dict().items() if getattr(base, k) != v and k != "name"}
    return {"name": rules.name, "changes": changes}


def rules_from_dict(data: Any) -> RuleSet:
    if isinstance(data, str):
        return get_rules(data)
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise ValueError('"preset" must be a preset name or {"name": ..., "changes": {...}}')
    changes = data.get("changes", {})
    if not isinstance(changes, dict):
        raise ValueError('"preset.changes" must be an object of rule options')
    base = PRESETS.get(data["name"].lower(), CLASSIC)
    return base.replace(name=data["name"], **changes)


# ---------------------------------------------------------------------- dump
def _summary(hand: Hand) -> dict[str, Any]:
    bids = [{"seat": e.seat, "action": e.action, "value": e.value, "time": e.time}
            for e in hand.events if isinstance(e, Bid)]
    plays: list[dict[str, Any]] = []
    play_at = {p.index: p for p in hand.plays}
    for i, e in enumerate(hand.events):
        if i in play_at:
            p = play_at[i]
            plays.append({"seat": p.seat, "cards": format_cards(p.cards), "type": p.reading.type,
                          "main": p.reading.main_text, "length": p.reading.length, "time": p.time})
        elif isinstance(e, Pass):
            plays.append({"seat": e.seat, "pass": True, "time": e.time})
    settlement = settle(hand)
    summary = {
        "phase": hand.phase, "landlord": hand.landlord, "base": hand.base, "bids": bids,
        "kitty": None if hand.kitty is None else format_cards(hand.kitty), "plays": plays,
        "result": settlement.outcome, "multiplier": settlement.multiplier,
        "causes": [list(c) for c in settlement.causes], "points": list(settlement.points),
    }
    summary.update(showdown_keys(hand))
    return summary


def showdown_keys(hand: Hand) -> dict[str, Any]:
    """After the hand: ``shown`` (card text by seat) once any seat showed its cards, and
    ``starting_hands`` (card text per seat, as dealt) with the deck ``audit`` once every seat
    left holding cards has shown them (engine.showdown); nothing before."""
    out: dict[str, Any] = {}
    if hand.shown:
        out["shown"] = {str(seat): format_cards(cards) for seat, cards in sorted(hand.shown.items())}
    hands = starting_hands(hand)
    audit = deck_audit(hand)
    if hands is not None and audit is not None:
        out["starting_hands"] = [format_cards(h) for h in hands]
        out["audit"] = audit.to_dict()
    return out


def _head(kind: str, rules: RuleSet, players: tuple[str, ...]) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "type": kind, "preset": rules_to_dict(rules),
            "players": list(players)}


def dump(record: RecordedHand | Match) -> dict[str, Any]:
    """The JSON-ready dict of a hand record or a match."""
    if isinstance(record, RecordedHand):
        data = _head("hand", record.rules, record.players)
        data.update(started=record.started, note=record.note, events=[e.to_dict() for e in record.events])
        data["summary"] = _summary(record.hand())
        return data
    if isinstance(record, Match):
        data = _head("match", record.rules, record.players)
        data.update(name=record.name, started=record.started, first_bidder=record.first_bidder,
                    best_of=record.best_of, penalties=[p.to_dict() for p in record.penalties])
        data["hands"] = [{"started": h.started, "note": h.note, "events": [e.to_dict() for e in h.events]}
                         for h in record.hands]
        rows = record.settlements()
        data["summary"] = {"points": [list(r.points) for r in rows], "totals": record.totals(),
                           "outcomes": [r.outcome for r in rows]}
        return data
    raise TypeError(f"cannot record a {type(record).__name__}")


def dumps(record: RecordedHand | Match, indent: int | None = 1) -> str:
    return json.dumps(dump(record), ensure_ascii=False, indent=indent)


# ---------------------------------------------------------------------- load
def _need(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str = "record") -> Any:
    if key not in data:
        raise ValueError(f"{where} lacks {key!r}")
    value = data[key]
    if not isinstance(value, kind):
        raise ValueError(f"{where}: {key!r} has the wrong type ({type(value).__name__})")
    return value


def _events(items: Any, where: str) -> tuple[Event, ...]:
    if not isinstance(items, list):
        raise ValueError(f"{where}: 'events' must be a list")
    events = []
    for i, item in enumerate(items):
        try:
            events.append(event_from_dict(item))
        except ValueError as exc:
            raise ValueError(f"{where}, event {i}: {exc}") from None
    return tuple(events)


def _number(value: Any, key: str) -> float | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise ValueError(f"{key!r} must be a number or null, not {value!r}")
    return value


def load(data: dict[str, Any] | str) -> RecordedHand | Match:
    """Read a record (dict or JSON text). Anything malformed raises ``ValueError`` saying what."""
    if isinstance(data, str | bytes):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError("a record must be a JSON object")
    if data.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT} record (format is {data.get('format')!r})")
    version = data.get("version")
    if version != VERSION:
        raise ValueError(f"record version {version!r} is not supported (this engine reads version {VERSION})")
    kind = _need(data, "type", str)
    rules = rules_from_dict(_need(data, "preset", (str, dict)))
    players = _need(data, "players", list)
    if not all(isinstance(p, str) for p in players):
        raise ValueError("players must be names (strings)")
    if len(players) != rules.players:
        raise ValueError(f"{rules.name} needs {rules.players} players, the record names {len(players)}")
    if kind == "hand":
        record = RecordedHand(rules, tuple(players), _events(_need(data, "events", list), "hand"),
                              _number(data.get("started"), "started"), str(data.get("note", "")))
        try:
            record.hand()
        except HandViolation as exc:  # a record whose events break the rules is malformed
            raise ValueError(f"hand record, event {exc.violation.event_index}: {exc}") from None
        return record
    if kind == "match":
        hands = []
        for i, h in enumerate(_need(data, "hands", list)):
            if not isinstance(h, dict):
                raise ValueError(f"hand {i} must be an object")
            hands.append(HandRecord(_events(_need(h, "events", list, f"hand {i}"), f"hand {i}"),
                                    _number(h.get("started"), "started"), str(h.get("note", ""))))
        listed = _events(data.get("penalties", []), "penalties")
        penalties = [p for p in listed if isinstance(p, Penalty)]
        if len(penalties) != len(listed):
            raise ValueError("match penalties must be penalty events")
        match = Match(rules, tuple(players), hands, penalties,
                      first_bidder=int(data.get("first_bidder", 0)), started=_number(data.get("started"), "started"),
                      best_of=int(data.get("best_of", 0)), name=str(data.get("name", "")))
        for i, h in enumerate(hands):
            try:
                h.hand(rules)
            except HandViolation as exc:
                raise ValueError(f"hand {i}, event {exc.violation.event_index}: {exc}") from None
        return match
    raise ValueError(f"record type must be 'hand' or 'match', not {kind!r}")


def loads(text: str) -> RecordedHand | Match:
    return load(text)


def score_sheet(text: str, fmt: str = "txt", lang: str | None = None) -> str:
    """Settle a record (JSON text) and render the sheet: ``txt`` (zh unless ``lang``), ``csv`` (en unless
    ``lang``) or ``json``."""
    from engine import record_text

    record = load(text)
    match = record if isinstance(record, Match) else _as_match(record)
    if fmt == "csv":
        return record_text.csv_sheet(match, lang or "en")
    if fmt == "json":
        rows = match.settlements()
        return json.dumps({"players": list(match.players), "hands": [r.to_dict() for r in rows],
                           "totals": match.totals(), "status": match.status().__dict__}, ensure_ascii=False)
    if fmt != "txt":
        raise ValueError(f"unknown sheet format {fmt!r}: txt, csv or json")
    if isinstance(record, RecordedHand):
        return record_text.render_hand(record, lang or "zh")
    return record_text.render_match(match, lang or "zh")


def _as_match(record: RecordedHand) -> Match:
    """A one-hand match, so a lone hand gets the same sheet (an unfinished hand scores 0)."""
    first = record.events[0].first_bidder if record.events and hasattr(record.events[0], "first_bidder") else 0
    return Match(record.rules, record.players, [HandRecord(record.events, record.started, record.note)],
                 first_bidder=first)
