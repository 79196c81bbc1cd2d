"""What the live page shows, as plain data: the ``/api/state`` contract and the templates' input.

``table_state(state, now)`` turns a folded :class:`tracker.state.TableState` into a JSON-ready
dict. The page never folds events itself; it reads this dict, so the API and the HTML can
never disagree.

Contract (other checks rely on these keys)::

    {"hand": {"number", "preset", "base", "multiplier", "landlord", "turn",
              "seats": [{"name", "role", "cards_left", "last"}], ...},
     "scores": {"hand": [...], "match": [...]}, "alerts": [...], "finished": n, ...}
"""

from __future__ import annotations

import time
from typing import Any

from engine.cards import Card, format_cards, parse_cards
from engine.events import Bid, Correction, Pass, Play
from engine.hand import Hand
from engine.rules import RuleSet
from engine.scoring import settle
from tracker.records import Alert
from tracker.state import TableState


def card_parts(card: Card) -> dict[str, Any]:
    """A card for display: rank text, suit symbol and colour (red/black/joker); ``order`` sorts
    a row as :meth:`engine.cards.Card.sort_key` does (rank, then suit), and ``joker`` (``BJ`` or
    ``RJ``) lets a page name a joker in its reader's language (小王/大王, BJ/RJ)."""
    rank, suit = card.sort_key()
    order = rank * 10 + suit
    if card.is_joker:
        return {"rank": card.label, "suit": "", "colour": "red" if card.rank_text == "RJ" else "black",
                "text": str(card), "order": order, "joker": card.rank_text}
    colour = "red" if card.suit in ("h", "d") else "black"
    return {"rank": card.rank_text, "suit": card.suit_symbol, "colour": colour, "text": str(card),
            "order": order, "joker": ""}


def card_list(text: str | None) -> list[dict[str, Any]]:
    """Card text (as the state carries it) ready to draw; unreadable text draws nothing."""
    if not text:
        return []
    try:
        return [card_parts(c) for c in parse_cards(text)]
    except ValueError:
        return []


def alert_dict(alert: Alert, handled: bool = False, players: tuple[str, ...] | list[str] = ()) -> dict[str, Any]:
    """An alert for the page: its data, and its message rendered in both languages with the
    match's ``players`` (``tracker.alerts`` words it). ``handled``: the referee has entered
    something for the hand since the alert came."""
    return {"alert": alert.alert, "severity": alert.severity, "message": alert.text("en", players),
            "zh": alert.text("zh", players), "seat": alert.seat, "cards": alert.cards,
            "suggestion": alert.suggestion, "event_index": alert.event_index, "data": alert.fields,
            "time": alert.time, "handled": handled}


def _last_actions(hand: Hand) -> list[dict[str, Any] | None]:
    """Each seat's latest play or pass, flagged ``current`` when it belongs to the trick on the table."""
    last: list[dict[str, Any] | None] = [None] * hand.players
    by_index = {p.index: p for p in hand.plays}
    trick_first = hand.plays[hand.trick_start].index if hand.trick_start < len(hand.plays) else None
    for i, event in enumerate(hand.events):
        current = trick_first is not None and i >= trick_first
        if isinstance(event, Play) and i in by_index:
            record = by_index[i]
            last[event.seat] = {"kind": "play", "cards": format_cards(record.cards), "type": record.reading.type,
                                "index": i, "current": current, "lead": record.lead,
                                "bomb": record.is_bomb}
        elif isinstance(event, Pass):
            last[event.seat] = {"kind": "pass", "index": i, "current": current}
    if hand.phase == "finished" and hand.out_seat is not None:
        for entry in last:  # the final trick stays on the table
            if entry is not None:
                entry["current"] = entry["index"] >= (trick_first or 0)
    return last


def corrected_indexes(hand: Hand) -> set[int]:
    """Indexes into ``hand.events`` of the events a referee's correction put there (a replaced or
    inserted event), so a replay or the referee's list can mark them 已更正."""
    fixed = {id(c.event) for c in hand.log if isinstance(c, Correction) and c.event is not None}
    return {i for i, event in enumerate(hand.events) if id(event) in fixed}


def _bids(hand: Hand) -> list[dict[str, Any]]:
    return [{"seat": e.seat, "action": e.action, "value": e.value} for e in hand.events if isinstance(e, Bid)]


def hand_block(players: tuple[str, ...] | list[str], rules: RuleSet, hand: Hand | None,
               number: int) -> dict[str, Any]:
    """One hand as the page shows it (the live page, and each step of a replay)."""
    block: dict[str, Any] = {
        "number": number, "preset": rules.name, "scoring": rules.scoring, "phase": "not_started",
        "base": 0, "multiplier": 1, "causes": [], "landlord": None, "turn": None, "bids": [],
        "kitty": None, "plays": 0, "outcome": None,
        "seats": [{"seat": s, "name": name, "role": None, "cards_left": None, "last": None, "turn": False,
                   "announced": False} for s, name in enumerate(players)],
    }
    if hand is None:
        return block
    last = _last_actions(hand)
    bidding = hand.bidding
    to_bid = bidding.to_act if hand.phase == "bidding" and bidding is not None else None
    block.update(
        phase=hand.phase, base=hand.base, multiplier=hand.multiplier,
        causes=[{"cause": c, "factor": f} for c, f in hand.causes],
        landlord=hand.landlord, turn=hand.turn, bids=_bids(hand), to_bid=to_bid,
        kitty=None if hand.kitty is None or hand.landlord is None or not rules.kitty_shown
        else format_cards(hand.kitty),
        plays=len(hand.plays), out_seat=hand.out_seat,
        outcome=settle(hand, rules).outcome if hand.finished else None,
    )
    for s, seat in enumerate(block["seats"]):
        seat["role"] = None if hand.landlord is None else ("landlord" if s == hand.landlord else "farmer")
        seat["cards_left"] = hand.cards_left[s] if s < len(hand.cards_left) else None
        seat["last"] = last[s]
        seat["turn"] = hand.turn == s or to_bid == s
        seat["announced"] = s in hand.announced
    return block


def _progress(state: TableState) -> list[list[int]]:
    """Running totals after each finished hand, starting from the opening totals."""
    rules = state.info.rules
    start = rules.chips_start if rules.scoring == "chips" else 0
    running = [start] * len(state.info.players)
    rows = [list(running)]
    for row in state.match.settlements():
        running = [t + p for t, p in zip(running, row.points, strict=True)]
        rows.append(list(running))
    return rows


def table_state(state: TableState | None, now: float | None = None, seq: int = 0) -> dict[str, Any]:
    """The live page's data for one match (or the empty table when there is none)."""
    now = time.time() if now is None else now
    if state is None:
        return {"seq": seq, "match": None, "hand": None, "scores": {"hand": [], "match": []}, "alerts": [],
                "finished": 0, "progress": []}
    info, match = state.info, state.match
    rules = info.rules
    status = match.status(now)
    hand_points = [0] * len(info.players)
    final = False
    if state.hand is not None:
        s = settle(state.hand, rules)
        hand_points, final = list(s.points), state.hand.finished
    limit = rules.time_limit_min
    started = match.started
    return {
        "seq": max(seq, state.last_seq),
        "match": {
            "id": info.id, "name": match.name, "players": list(info.players), "preset": rules.name,
            "description": rules.description, "scoring": rules.scoring, "started": started,
            "time_limit_min": limit,
            "remaining_s": None if not limit or started is None else min(limit * 60, max(0.0, started + limit * 60 - now)),
            "status": {"over": status.over or state.ended is not None, "reason": status.reason,
                       "winners": list(status.winners), "ended": state.ended is not None},
            "disqualified": sorted(match.disqualified()),
        },
        "hand": hand_block(info.players, rules, state.hand, state.hand_number),
        "scores": {"hand": hand_points, "hand_final": final, "match": match.totals(),
                   "unit": "chips" if rules.scoring == "chips" else "points"},
        "alerts": [alert_dict(a, i < state.alerts_handled, info.players) for i, a in enumerate(state.alerts)],
        "finished": len(match.hands),
        "progress": _progress(state),
    }


#: Seconds without a new frame before the page says the camera has stopped sending.
CAMERA_STALE_S = 5.0
#: The "no frames for N s" figure moves in steps this long, so every viewer shares one render
#: per step instead of one per second.
CAMERA_STEP_S = 5


def camera_state(status: dict[str, Any] | None, now: float | None = None,
                 stale_s: float = CAMERA_STALE_S) -> dict[str, Any]:
    """The camera's state for the live and referee pages, from the feed's ``status()``.

    ``status`` is what :class:`webui.app.FeedStatus` returns: ``source`` (``None``: no feed,
    the referee enters everything by hand), ``source_state`` (the frame source's ``starting``,
    ``running``, ``reconnecting``, ``ended`` or ``error``, for a camera pipeline), ``fps``
    (``None``: a feed without a camera, such as the demo's bots), ``last_frame`` (Unix time),
    ``running``, ``error``, and ``calibration_lost`` (or ``calibration == "lost"``) when the
    mat can no longer be found. Returns ``state`` (one of ``manual``, ``feed``, ``starting``,
    ``connected``, ``stalled``, ``reconnecting``, ``calibration_lost``, ``ended``, ``error``),
    ``word`` (its :mod:`webui.i18n` key), ``since`` / ``since_text`` (when it began, as Unix
    time and ``HH:MM:SS`` local time, when known), ``seconds`` (frames missing for, in whole
    steps), ``error`` and ``source``. The result only changes when the page should.
    """
    now = time.time() if now is None else now
    status = status or {}
    source, last = status.get("source"), status.get("last_frame")
    source_state, error = status.get("source_state"), status.get("error")
    running = bool(status.get("running", True))
    since: float | None = None
    seconds: int | None = None
    if source is None and not running:
        state = "manual"
    elif source_state == "reconnecting":
        state, since = "reconnecting", last
    elif source_state == "error" or (not running and error):
        state, since = "error", last
    elif source_state == "ended" or not running:
        state, since = "ended", last
    elif status.get("calibration_lost") or status.get("calibration") == "lost":
        state, since = "calibration_lost", status.get("calibration_lost_since")
    elif status.get("fps", 0.0) is None:
        state = "feed"
    elif last is None:
        state = "starting"
    elif now - last > stale_s:
        state, since = "stalled", last
        seconds = int(now - last) // CAMERA_STEP_S * CAMERA_STEP_S
    else:
        state = "connected"
    if not isinstance(since, (int, float)):
        since = None
    word = f"cam_{state}" + ("_since" if state == "reconnecting" and since is not None else "")
    return {"state": state, "word": word, "since": since,
            "since_text": None if since is None else time.strftime("%H:%M:%S", time.localtime(since)),
            "seconds": seconds, "error": str(error) if state == "error" and error else "",
            "source": str(source) if source is not None else None}


def camera_key(camera: dict[str, Any]) -> tuple:
    """What a rendered camera state depends on (a cache key)."""
    return camera["word"], camera["since_text"], camera["seconds"], camera["error"]
