"""What a box sends the club server, checked before anything is kept.

A box registers once per table with the club's key and gets a token; only the token's SHA-256
is stored, so a copy of the database cannot post as a table. It then posts batches::

    POST /api/tables/7/events   Authorization: Bearer <token>
    {"box": "…", "events": [{"seq": 42, "prev": 41, "match_id": 1, "hand": 3, "time": 1.7e9,
      "kind": "play", "source": "camera", "event": {...}}, ...],
     "matches": [{"id": 1, "players": [...], "preset": {"name": "chips", "changes": {}},
                  "created": 1.7e9, "meta": {...}}]}

``prev`` is the seq of the event before it in the box's store (0 for the first), so the server
knows what is missing whatever order batches arrive in. Engine events must read back through
``engine.events.event_from_dict``; the box's own records (``alert``, ``match_end``) are kept
as they came.

>>> token, digest = new_token()
>>> token_ok(token, digest), token_ok(token + "x", digest)
(True, False)
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
import secrets
from collections.abc import Set as AbstractSet
from typing import Any

from club.storage import BoxEvent, BoxMatch
from engine.events import EVENT_TYPES, event_from_dict
from engine.record import rules_from_dict
from engine.rules import PRESETS

#: The box's own records, stored beside the engine's events (tracker.records).
BOX_RECORDS = ("alert", "match_end")
SOURCES = ("camera", "referee", "system")
MAX_EVENTS = 2000
#: Tables are numbered from 1 to this.
MAX_TABLE = 9999
#: How deep a posted body may nest: a batch's events nest five levels, a match's meta is flat;
#: deeper is a crafted body, refused before anything walks it.
MAX_DEPTH = 16


#: A box's id: ASCII letters, digits and '-' (one spelling per box: no other script's digits).
_BOX = re.compile(r"[A-Za-z0-9-]{8,64}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
#: Times a box may send, in Unix seconds: from 1970 to the year 9999 (what a clock can show).
LATEST_TIME = 253402300799.0


class BatchError(ValueError):
    """A batch the server refuses as a whole (HTTP 400), with what is wrong."""


def new_token() -> tuple[str, str]:
    """A table's token and the hash that is stored."""
    token = secrets.token_urlsafe(32)
    return token, token_hash(token)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_ok(token: str | None, stored: str | None) -> bool:
    if not token or not stored:
        return False
    return hmac.compare_digest(token_hash(token), stored)


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer …`` header."""
    if not header or not header.startswith("Bearer "):
        return None
    return header[len("Bearer "):].strip() or None


def _int(value: Any, what: str, low: int = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low or value >= 2**63:
        raise BatchError(f"{what} must be a whole number >= {low}, not {value!r}")
    return value


def _time(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not (
            math.isfinite(value) and 0 <= value <= LATEST_TIME):
        raise BatchError(f"{where} must be Unix seconds (from 0 to {LATEST_TIME:.0f}), not {value!r}")
    return float(value)


def _storable(value: Any, where: str) -> None:
    """Refuse ``value`` if a string in it (a key or a value) holds a lone UTF-16 surrogate: JSON
    can carry ``"\\ud800"``, but no database stores it as text and no page can show it."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start:exc.end]
        raise BatchError(f"{where} holds a broken character (a lone UTF-16 surrogate "
                         f"U+{ord(bad[0]):04X})") from None


def check_box(value: Any) -> str:
    if not isinstance(value, str) or not _BOX.fullmatch(value):
        shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:77] + "..."
        raise BatchError(f"box must be the box's id (8 to 64 ASCII letters, digits 0-9 and '-'), not {shown}")
    return value


def parse_event(table_no: int, box: str, data: Any, index: int) -> BoxEvent:
    if not isinstance(data, dict):
        raise BatchError(f"events[{index}] must be an object")
    where = f"events[{index}]"
    seq = _int(data.get("seq"), f"{where}.seq", 1)
    prev = _int(data.get("prev"), f"{where}.prev")
    if prev >= seq:
        raise BatchError(f"{where}: prev {prev} must come before seq {seq}")
    payload = data.get("event")
    if not isinstance(payload, dict):
        raise BatchError(f"{where}.event must be an object (the event's to_dict)")
    _storable(payload, f"{where}.event")
    kind = payload.get("kind")
    if kind in EVENT_TYPES:
        try:
            event_from_dict(payload)
        except ValueError as exc:
            raise BatchError(f"{where}: {exc}") from None
    elif kind not in BOX_RECORDS:
        raise BatchError(f"{where}: unknown event kind {kind!r}")
    if data.get("kind", kind) != kind:
        raise BatchError(f"{where}: kind {data.get('kind')!r} does not match its event's {kind!r}")
    source = data.get("source", "camera")
    if source not in SOURCES:
        raise BatchError(f"{where}.source must be one of {', '.join(SOURCES)}, not {source!r}")
    when = _time(data.get("time"), f"{where}.time")
    return BoxEvent(table_no, box, seq, prev, _int(data.get("match_id"), f"{where}.match_id", 1),
                    _int(data.get("hand"), f"{where}.hand"), when, kind, source, payload)


def parse_match(table_no: int, box: str, data: Any, index: int) -> BoxMatch:
    where = f"matches[{index}]"
    if not isinstance(data, dict):
        raise BatchError(f"{where} must be an object")
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
        raise BatchError(f"{where}.players must be a list of names")
    _storable(players, f"{where}.players")
    if any(_CONTROL.search(p) for p in players):
        raise BatchError(f"{where}.players: a name holds a control character")
    preset = data.get("preset")
    name = preset.get("name") if isinstance(preset, dict) else preset
    if isinstance(name, str) and name.lower() not in PRESETS:
        raise BatchError(f"{where}.preset: unknown rules preset {name[:40]!r}; the club plays "
                         f"{', '.join(PRESETS)}")
    _storable(preset, f"{where}.preset")
    try:
        rules = rules_from_dict(preset)
    except (ValueError, TypeError) as exc:
        raise BatchError(f"{where}.preset: {exc}") from None
    if rules.players != len(players):
        raise BatchError(f"{where}: {rules.name} is played by {rules.players}, not {len(players)} players")
    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        raise BatchError(f"{where}.meta must be an object")
    _storable(meta, f"{where}.meta")
    created = _time(data.get("created", 0.0), f"{where}.created")
    return BoxMatch(table_no, box, _int(data.get("id"), f"{where}.id", 1), tuple(players), data["preset"], meta, created)


def parse_batch(table_no: int, data: Any, known_matches: AbstractSet[int] = frozenset()) -> tuple[
        list[BoxEvent], list[BoxMatch]]:
    """The events and matches of a posted batch, or :class:`BatchError`. ``known_matches``: the
    box's matches the server already holds (a batch need not repeat them)."""
    if not isinstance(data, dict):
        raise BatchError("the batch must be a JSON object with box, events and matches")
    box = check_box(data.get("box"))
    raw_events, raw_matches = data.get("events", []), data.get("matches", [])
    if not isinstance(raw_events, list) or not isinstance(raw_matches, list):
        raise BatchError("events and matches must be lists")
    if len(raw_events) > MAX_EVENTS:
        raise BatchError(f"a batch holds at most {MAX_EVENTS} events, not {len(raw_events)}")
    matches = [parse_match(table_no, box, m, i) for i, m in enumerate(raw_matches)]
    events = [parse_event(table_no, box, e, i) for i, e in enumerate(raw_events)]
    for before, after in zip(events, events[1:], strict=False):
        if after.seq <= before.seq:
            raise BatchError(f"events must be in rising seq order ({before.seq} then {after.seq})")
    have = set(known_matches) | {m.match_id for m in matches}
    missing = sorted({e.match_id for e in events} - have)
    if missing:
        raise BatchError(f"events name match(es) {missing} the batch does not describe (send them in matches)")
    return events, matches
