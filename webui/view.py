"""What the live page shows, as plain data: the ``/api/state`` contract and the templates' input.

``table_state(state, now)`` turns a folded :class:`tracker.state.TableState` into a JSON-ready
dict. The page never folds events itself; it reads this dict, so the API and the HTML can
never disagree.

Contract (other checks rely on these keys)::

    {"hand": {"number", "preset", "base", "multiplier", "landlord", "turn",
              "seats": [{"name", "role", "cards_left", "last"}], ...},
     "scores": {"hand": [...], "match": [...]}, "alerts": [...], "finished": n, ...}

During a hand ``hand`` also says what is at stake (``stakes``: the landlord's points if he
wins or loses now, and each farmer's), the play to beat (``to_beat``), the bids, the
penalties given during it (``penalties``), who conceded or escaped, and ``void`` when the
referee ended the match before it finished. ``counts`` says how many hands are finished and
void and which is in play (:func:`hand_counts`, the one count every page shows).
``progress`` (the chart) carries the match penalties as ``scores.match`` does, so its last row
is always the table's totals; ``chart_marks`` places each penalty and the match's end on it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from engine.cards import RANK_TEXT, Card, format_cards, parse_cards
from engine.events import Bid, Correction, Pass, Penalty, Play
from engine.hand import Hand
from engine.match import MatchStatus
from engine.rules import RuleSet
from engine.scoring import at_stake, settle
from tracker.records import Alert
from tracker.state import TableState
from webkit import counts


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


#: Combination types whose core is a run of ranks (its top rank is ``main + length - 1``).
CHAINS = ("straight", "pair_straight", "airplane", "airplane_single", "airplane_pair")


def _to_beat(hand: Hand) -> dict[str, Any] | None:
    """The play the seat to act must beat, with its reading's ranks; ``None`` on a lead."""
    if hand.phase != "play" or hand.top is None:
        return None
    record = hand.plays[hand.top]
    reading = record.reading
    top = reading.main + reading.length - 1 if reading.type in CHAINS else reading.main
    return {"seat": record.seat, "cards": format_cards(record.cards), "type": reading.type,
            "low": RANK_TEXT[reading.main], "high": RANK_TEXT[min(top, len(RANK_TEXT) - 1)],
            "size": reading.size}


def _stakes(hand: Hand, rules: RuleSet, chips: Sequence[int] | None) -> dict[str, Any] | None:
    """What the hand is worth now (:func:`engine.scoring.at_stake`): the landlord's own points
    if he wins or loses, and each farmer's when all farmers stand to get the same."""
    if hand.phase != "play" or not hand.sides_known:  # five-player: the split waits for the hidden landlord
        return None
    stake = at_stake(hand, rules, chips)
    if stake is None or hand.landlord is None:
        return None
    win, loss = stake
    farmers = hand.farmers()
    farmer = None
    if len({(loss[f], win[f]) for f in farmers}) == 1:
        farmer = {"win": loss[farmers[0]], "loss": win[farmers[0]]}
    return {"landlord": {"win": win[hand.landlord], "loss": loss[hand.landlord]}, "farmer": farmer}


def _stake_pair(hand: Hand) -> int | None:
    """Five players before the hidden landlord is known (the sides are not, so :func:`_stakes`
    has no split yet): what each landlord and each farmer settle between them now, base x
    multiplier, as :func:`engine.scoring.settle` counts it once the sides are known."""
    if hand.phase != "play" or hand.sides_known or hand.landlord is None:
        return None
    return max(hand.base, 1) * hand.multiplier


def stake_base(hand: Hand, rules: RuleSet) -> int:
    """The 底分 the hand's stake is counted from, as :func:`engine.scoring.settle` counts it: the
    bid (the highest so far while bidding), or under the chips format the table's ``chips_base``
    once there is a landlord (the bid is ignored there), so the page's 底分 and its stake line
    tell one story."""
    if rules.scoring == "chips":
        return rules.chips_base if hand.landlord is not None else 0
    return hand.base


def penalty_dict(penalty: Penalty) -> dict[str, Any]:
    """A referee's penalty (罚分) for the page: who, how many points, why."""
    return {"seat": penalty.seat, "points": penalty.points, "reason": penalty.reason,
            "disqualify": penalty.disqualify}


def hand_block(players: tuple[str, ...] | list[str], rules: RuleSet, hand: Hand | None,
               number: int, chips: Sequence[int] | None = None) -> dict[str, Any]:
    """One hand as the page shows it (the live page, and each step of a replay); ``chips``:
    what each seat holds, so a chips match's stake is what can really change hands."""
    block: dict[str, Any] = {
        "number": number, "preset": rules.name, "scoring": rules.scoring, "phase": "not_started",
        "base": 0, "stake_base": 0, "multiplier": 1, "causes": [], "landlord": None, "turn": None, "bids": [],
        "kitty": None, "plays": 0, "outcome": None, "to_beat": None, "stakes": None, "stake_pair": None, "penalties": [],
        "conceded": None, "escaped": None, "void": False, "marker": None, "hidden": None, "hidden_shown": None,
        "seats": [{"seat": s, "name": name, "role": None, "cards_left": None, "last": None, "turn": False,
                   "announced": False} for s, name in enumerate(players)],
    }
    if hand is None:
        return block
    last = _last_actions(hand)
    bidding = hand.bidding
    to_bid = bidding.to_act if hand.phase == "bidding" and bidding is not None else None
    block.update(
        phase=hand.phase, base=hand.base, stake_base=stake_base(hand, rules), multiplier=hand.multiplier,
        causes=[{"cause": c, "factor": f} for c, f in hand.causes],
        landlord=hand.landlord, turn=hand.turn, bids=_bids(hand), to_bid=to_bid,
        kitty=None if hand.kitty is None or hand.landlord is None or not rules.kitty_shown
        else format_cards(hand.kitty),
        plays=len(hand.plays), out_seat=hand.out_seat,
        outcome=settle(hand, rules).outcome if hand.finished else None,
        to_beat=_to_beat(hand), stakes=_stakes(hand, rules, chips), stake_pair=_stake_pair(hand),
        penalties=[penalty_dict(p) for p in hand.penalties], conceded=hand.conceded, escaped=hand.escaped,
        # five-player: the marker card is face up for all; the hidden landlord only once shown
        marker=None if hand.marker is None else format_cards([hand.marker]),
        hidden=hand.hidden, hidden_shown=hand.hidden_shown or None,
        # what the referee may enter now in the five-player and 斗帝主 games
        marker_open=rules.bidding == "marker" and hand.phase == "bidding",
        reveal_open=rules.hidden_landlord and hand.hidden is None and (
            hand.phase == "finished" and hand.landlord is not None or hand.phase == "play" and not hand.plays),
        double_open=rules.player_double and hand.phase == "play" and not hand.plays,
        pick_open=rules.kitty_choice and hand.phase == "play" and hand.picked is None,
    )
    for s, seat in enumerate(block["seats"]):
        seat["role"] = None if hand.landlord is None else ("landlord" if s == hand.landlord else
                                                           "hidden_landlord" if s == hand.hidden else "farmer")
        seat["cards_left"] = hand.cards_left[s] if s < len(hand.cards_left) else None
        seat["last"] = last[s]
        seat["turn"] = hand.turn == s or to_bid == s
        seat["announced"] = s in hand.announced
        seat["shown"] = s in hand.shown  # cards left laid face up after the hand (亮牌)
    return block


def hand_standing(state: TableState, hand: Hand) -> str:
    """Where ``hand`` (one of ``state``'s) stands: finished, void or in play
    (:func:`webkit.counts.hand_standing`, the one definition both sites read)."""
    return counts.hand_standing(hand, state.ended is not None)


def hand_counts(state: TableState) -> dict[str, Any]:
    """The match's hands counted once for every page (:func:`webkit.counts.hand_counts`):
    ``finished`` and ``void`` (how many) and ``in_play`` (the hand being played, or ``None``)."""
    return counts.hand_counts(((n, state.hand_of(n)) for n in state.hand_numbers), state.ended is not None)


def _holdings(state: TableState) -> list[int]:
    """Running totals of the finished hands alone (what ``Match.settlements`` counts chips from)."""
    rules = state.info.rules
    running = [rules.chips_start if rules.scoring == "chips" else 0] * len(state.info.players)
    for row in state.match.settlements():
        running = [t + p for t, p in zip(running, row.points, strict=True)]
    return running


def _progress(state: TableState) -> tuple[list[list[int]], list[dict[str, Any]]]:
    """Running totals after each finished hand, starting from the opening totals, with the
    match penalties in, as ``Match.totals`` has them: the last row is the table's totals; and
    the chart's marks: each penalty at the row it counts from (``kind`` ``penalty``, the
    ``seat`` and its ``points``), and the match's end at the last row (``kind`` ``end``).

    A void hand (作废) scores nothing and is not a row. A penalty counts from the row of the
    hand that was current when it was given (a penalty given before that hand finishes counts
    from the latest row until it does); the opening row stays the opening totals, so a penalty
    before the first hand counts from hand 1.
    """
    rules = state.info.rules
    start = rules.chips_start if rules.scoring == "chips" else 0
    running = [start] * len(state.info.players)
    rows = [list(running)]
    marks: list[dict[str, Any]] = []
    numbers = [n for n in state.hand_numbers if (h := state.hand_of(n)) is not None and h.finished]
    finished = []
    for number, settlement in zip(numbers, state.match.settlements(), strict=True):
        hand = state.hand_of(number)
        if hand is None or hand.abandoned:
            continue
        running = [t + p for t, p in zip(running, settlement.points, strict=True)]
        rows.append(list(running))
        finished.append(number)
        marks += [{"kind": "penalty", "row": len(rows) - 1, "seat": p.seat, "points": p.points}
                  for p in hand.penalties]
    for number, penalty in state.penalty_hands:
        first = next((i + 1 for i, n in enumerate(finished) if n >= number), len(rows) - 1)
        for row in rows[max(first, 1):]:
            row[penalty.seat] -= penalty.points
        marks.append({"kind": "penalty", "row": max(first, 1) if len(rows) > 1 else 0, "seat": penalty.seat,
                      "points": penalty.points})
    if state.ended is not None:
        marks.append({"kind": "end", "row": len(rows) - 1})
    return rows, marks


def table_state(state: TableState | None, now: float | None = None, seq: int = 0) -> dict[str, Any]:
    """The live page's data for one match (or the empty table when there is none)."""
    now = time.time() if now is None else now
    if state is None:
        return {"seq": seq, "match": None, "hand": None, "scores": {"hand": [], "match": []}, "alerts": [],
                "finished": 0, "counts": {"finished": 0, "void": 0, "in_play": None}, "progress": [], "chart_marks": []}
    info, match = state.info, state.match
    rules = info.rules
    status = match.status(now)
    if status.reason in ("time", "tie_break") and state.hand is not None and not state.hand.finished \
            and state.ended is None:
        # Time was called with a hand in play: that hand is finished first, then the match is
        # decided (the seeds' rule, as the club's tables say it: club.tables.MatchFold.tally).
        status = MatchStatus(False, "last_hand", status.winners)
    progress, marks = _progress(state)
    hand_points = [0] * len(info.players)
    final = False
    if state.hand is not None:
        s = settle(state.hand, rules)
        hand_points, final = list(s.points), state.hand.finished
    limit = rules.time_limit_min
    started = match.started
    ended = state.ended
    block = hand_block(info.players, rules, state.hand, state.hand_number,
                       _holdings(state) if rules.scoring == "chips" else None)
    block["penalties"] += [penalty_dict(p) for n, p in state.penalty_hands if n == state.hand_number]
    if ended is not None and state.hand is not None and not state.hand.finished:
        # The referee ended the match mid-hand: the hand scores nothing and nobody is to act.
        block.update(void=True, turn=None, to_bid=None, stakes=None, stake_pair=None, to_beat=None)
        for seat in block["seats"]:
            seat["turn"] = False
    return {
        "seq": max(seq, state.last_seq),
        "match": {
            "id": info.id, "name": match.name, "players": list(info.players), "preset": rules.name,
            "description": rules.description, "scoring": rules.scoring, "started": started,
            "time_limit_min": limit,
            "remaining_s": None if not limit or started is None else min(limit * 60, max(0.0, started + limit * 60 - now)),
            "status": {"over": status.over or ended is not None,
                       "reason": status.reason if status.over or ended is None else "ended_by_referee",
                       "winners": list(status.winners), "ended": ended is not None,
                       "end_note": ended.reason if ended is not None else ""},
            "disqualified": sorted(match.disqualified()),
        },
        "hand": block,
        "scores": {"hand": hand_points, "hand_final": final, "match": match.totals(),
                   "unit": "chips" if rules.scoring == "chips" else "points"},
        "alerts": [alert_dict(a, i < state.alerts_handled, info.players) for i, a in enumerate(state.alerts)],
        "finished": match.finished_hands(),
        "counts": hand_counts(state),
        "progress": progress,
        "chart_marks": marks,
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
