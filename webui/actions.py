"""The referee page's actions (the referee desk): each one checked against the engine, then appended to the store as an event.

Forms on ``/referee`` and the JSON API (``POST /api/referee/<action>``) both end here, with
the fields as a plain dict of strings (forms) or JSON values. A refused action raises
:class:`ActionError` (a 4xx for the page) and stores nothing; an accepted one returns the
event's ``seq``. The engine checks the event first (``Hand.check``), so the log never holds
an event the fold would refuse.

Actions and their fields (``match`` is optional everywhere: the latest match)::

    start_match  players, preset, scoring, time_limit, chips_start, chips_base, name
    end_match    reason            penalty   seat, points (2), reason, disqualify
    new_hand                       abandon   reason
    bid          seat, bid (1|2|3|pass|call|grab)    landlord  seat, base
    kitty        cards             play      seat (whose turn), cards      pass  seat
    correct      index, cards | what=pass, seat     (replace play or pass number ``index``)
    insert       index, what (pass|play|announce), seat (a pass: whose turn it was), cards
    delete       index             undo      reason
    open_hand    seat (the landlord)           announce  seat (the one who owes it)
    concede      seat              escape    seat
    shown        seat, cards       (after the hand: a seat's cards left, laid face up; 亮牌)

``index`` counts the hand's events from the deal (0), as the referee page lists them.

A refused correction names the event it breaks in words (与之后 李四 出 5♠ 5♥ 冲突（没轮到）),
never by its number: :func:`event_words` words an event, as the undo button's question does too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from engine.cards import Card
from engine.events import (
    Announce,
    Bid,
    Concede,
    Correction,
    Deal,
    Double,
    End,
    Escape,
    Event,
    Kitty,
    KittyPick,
    Landlord,
    Marker,
    OpenHand,
    Pass,
    Penalty,
    Play,
    Reveal,
    Shown,
)
from engine.hand import Hand
from engine.match import DROPPED_CARD_POINTS
from engine.rules import PRESETS, SCORING_FORMATS, get_rules
from engine.violations import Violation
from engine.words import face_name
from tracker.alerts import kind_name, seat_label, violation_text
from tracker.records import MatchEnd
from tracker.referee import audit_alert
from tracker.state import TableState
from tracker.store import EventStore, StoreError
from webui.fields import (
    MAX_NAME,
    ActionError,
    bool_field,
    cards_field,
    id_field,
    int_field,
    players_field,
    text_field,
)
from webui.i18n import counted, kind_word, t
from webui.tables import Tables, UnknownMatch

__all__ = ["ACTIONS", "ActionError", "RefereeDesk", "cards_words", "event_words"]


# ---------------------------------------------------------------------- events in words
def cards_words(cards: Iterable[Card], lang: str) -> str:
    """Cards as people read them: rank, then suit symbol (``3♠ 10♥``), a joker by its name
    (小王 / BJ), a card without a known suit as its rank."""
    return " ".join(face_name(c.rank_text, lang) if c.is_joker else c.rank_text + c.suit_symbol for c in cards)


def event_words(event: Event, lang: str, players: Sequence[str] = ()) -> str:
    """One event of a hand in words (张三 出 3♠ 3♥, 李四 不出, 王五 叫3分), for the undo button's
    question and a refused correction's reason."""
    seat = getattr(event, "seat", None)
    name = seat_label(seat, lang, players) if isinstance(seat, int) else ""
    if isinstance(event, Play):
        return t("ev_play", lang, name=name, cards=cards_words(event.cards, lang))
    if isinstance(event, Kitty):
        return t("ev_kitty", lang, cards=cards_words(event.cards, lang))
    if isinstance(event, Marker | KittyPick | Shown):  # the marker card, 斗帝主's pick of the kitty, cards shown
        shown = (event.card,) if isinstance(event, Marker) else event.cards
        none = t("took_none", lang) if isinstance(event, KittyPick) else "–"
        return t(f"ev_{event.kind}", lang, name=name, cards=cards_words(shown, lang) or none)
    if isinstance(event, Bid):
        said = {"bid": t("bids_n", lang, n=event.value), "pass": t("no_bid", lang),
                "call": t("calls", lang), "grab": t("grabs", lang)}.get(event.action) or t(event.action, lang)
        return f"{name} {said}"
    if isinstance(event, Landlord):
        return t("ev_landlord", lang, name=name, n=event.base)
    if isinstance(event, End):
        return kind_word(event.kind, lang)
    if isinstance(event, Penalty):  # 罚分: who, how many points, why
        said = counted("ev_penalty", event.points, lang, name=name)
        reason = f"（{event.reason}）" if lang == "zh" else f" ({event.reason})"
        return said + (reason if event.reason else "") + (f" · {t('disqualified', lang)}" if event.disqualify else "")
    key = f"ev_{event.kind}"  # pass, open_hand, announce, escape, concede
    return t(key, lang, name=name) if t(key, lang) != key else f"{name} {event.kind}".strip()


def corrected_events(events: Sequence[Event], fix: Correction) -> list[Event]:
    """The hand's events as ``fix`` would leave them (as ``Hand`` folds a correction)."""
    fixed = list(events)
    if fix.action == "undo":
        fixed = fixed[:-1]
    elif fix.action == "replace" and fix.target < len(fixed) and fix.event is not None:
        fixed[fix.target] = fix.event
    elif fix.action == "insert" and fix.target <= len(fixed) and fix.event is not None:
        fixed.insert(fix.target, fix.event)
    elif fix.action == "delete" and fix.target < len(fixed):
        del fixed[fix.target]
    return fixed


def conflict_words(hand: Hand, fix: Correction, violation: Violation, lang: str,
                   players: Sequence[str] = ()) -> str | None:
    """Why the rules refuse ``fix``, naming in words the event it breaks: a later one
    (与之后 李四 出 5♠ 5♥ 冲突（没轮到）) or the corrected event itself; ``None`` when the
    refusal is not about a broken event (the engine's own wording then serves)."""
    data = violation.fields
    at = data.get("at")
    if violation.kind != "bad_correction" or data.get("reason") != "breaks" or not isinstance(at, int):
        return None
    events = corrected_events(hand.events, fix)
    if not 0 <= at < len(events):
        return None
    what = event_words(events[at], lang, players)
    cause = kind_name(str(data.get("cause", "")), lang)
    itself = at == fix.target and fix.action in ("replace", "insert")
    return t("fix_fails" if itself else "fix_conflicts", lang, event=what, cause=cause)


# ---------------------------------------------------------------------- the actions
class RefereeDesk:
    """The referee's actions from the pages, performed on the store for one site (``Site.desk``
    holds it; the camera's own checks are ``tracker``'s ``CameraReferee``). ``notify`` runs after
    every append."""

    def __init__(self, store: EventStore, tables: Tables, notify: Callable[[], None] = lambda: None) -> None:
        self.store = store
        self.tables = tables
        self.notify = notify

    def match_id(self, fields: dict[str, Any]) -> int:
        mid = id_field(fields, "match", required=False)
        if mid is None:
            mid = self.tables.latest_match()
            if mid is None:
                raise ActionError("no match yet: start one first", 409, "还没有比赛，请先开始比赛")
        return mid

    def state(self, mid: int) -> TableState:
        try:
            return self.tables.state(mid)
        except UnknownMatch:
            raise ActionError(f"no match {mid}", 404, f"没有第 {mid} 场比赛") from None

    def _append(self, mid: int, hand: int, event: Any, source: str) -> int:
        try:
            seq = self.store.append(mid, hand, event, source=source)
        except StoreError as exc:
            raise ActionError(str(exc), 409) from None
        self.notify()
        return seq

    def _hand_event(self, mid: int, event: Event, source: str = "referee") -> int:
        """Check ``event`` against the current hand and append it."""
        state = self.state(mid)
        if state.ended is not None:
            raise ActionError("the match is over", 409, "比赛已结束")
        hand = state.hand
        if hand is None:
            raise ActionError("no hand has been dealt yet", 409, "还没有发牌")
        violation = hand.check(event)
        if violation is not None:
            players = state.info.players
            if isinstance(event, Correction):
                words = [conflict_words(hand, event, violation, lang, players) for lang in ("en", "zh")]
                if words[0] and words[1]:
                    raise ActionError(words[0], 409, words[1])
            raise ActionError(violation_text(violation, "en", players), 409, violation_text(violation, "zh", players))
        return self._append(mid, state.hand_number, event, source)

    def perform(self, action: str, fields: dict[str, Any], source: str = "referee") -> int:
        """Do ``action`` with ``fields``; returns the new event's seq or the new match id."""
        handler = ACTIONS.get(action)
        if handler is None:
            raise ActionError(f"unknown action {action!r}; one of {', '.join(ACTIONS)}", 404, "没有这个操作")
        if not isinstance(fields, dict):
            raise ActionError("the request body must be a JSON object of fields", zh="请求格式不对")
        return handler(self, fields, source)

    # -- match
    def start_match(self, fields: dict[str, Any], source: str) -> int:
        preset = text_field(fields, "preset", required=False) or "classic"
        if preset not in PRESETS:
            raise ActionError(f"unknown preset {preset!r}; one of {', '.join(PRESETS)}", zh="没有这个规则")
        rules = get_rules(preset)
        changes: dict[str, Any] = {}
        scoring = text_field(fields, "scoring", required=False)
        if scoring and scoring != rules.scoring:
            if scoring not in SCORING_FORMATS:
                raise ActionError(f"unknown scoring {scoring!r}; one of {', '.join(SCORING_FORMATS)}",
                                  zh="没有这个计分方式")
            changes["scoring"] = scoring
            changes["winners_only"] = scoring == "qq"
            if scoring == "qq" and not rules.target_points:
                changes["target_points"] = 20
            if scoring == "fixed" and not rules.hands_per_round:
                changes["hands_per_round"] = 6
        limit = int_field(fields, "time_limit", required=False, low=0, high=24 * 60)
        if limit:
            changes["time_limit_min"] = limit
        for name in ("chips_start", "chips_base"):
            value = int_field(fields, name, required=False, low=1, high=100000)
            if value is not None and value != getattr(rules, name):
                changes[name] = value
        if bool_field(fields, "player_double") and not rules.player_double:
            changes["player_double"] = True  # 加倍: each player once before the first play, x2
        if changes:
            rules = rules.replace(**changes)
        players = players_field(fields)
        if len(players) != rules.players:
            raise ActionError(f"{rules.name} is played by {rules.players} players, not {len(players)}",
                              zh=f"这个规则需要 {rules.players} 名玩家")
        name = text_field(fields, "name", required=False, limit=MAX_NAME * 2)
        try:
            mid = self.store.create_match(players, rules, meta={"name": name, "started": time.time()})
        except StoreError as exc:
            raise ActionError(str(exc)) from None
        self.notify()
        return mid

    def end_match(self, fields: dict[str, Any], source: str) -> int:
        mid = self.match_id(fields)
        if self.state(mid).ended is not None:
            raise ActionError("the match is already over", 409, "比赛已结束")
        return self._append(mid, 0, MatchEnd(text_field(fields, "reason", required=False), time.time()), source)

    def penalty(self, fields: dict[str, Any], source: str) -> int:
        mid = self.match_id(fields)
        state = self.state(mid)
        seat = int_field(fields, "seat", low=0, high=len(state.info.players) - 1)
        points = int_field(fields, "points", required=False, low=-1000, high=1000, default=DROPPED_CARD_POINTS)
        event = Penalty(seat=seat, points=points, reason=text_field(fields, "reason", required=False),
                        disqualify=bool_field(fields, "disqualify"), time=time.time())
        return self._append(mid, 0, event, source)

    # -- hands
    def new_hand(self, fields: dict[str, Any], source: str) -> int:
        mid = self.match_id(fields)
        state = self.state(mid)
        if state.ended is not None:
            raise ActionError("the match is over", 409, "比赛已结束")
        if state.hand is not None and not state.hand.finished:
            raise ActionError("the current hand is not finished (abandon it first)", 409,
                              "本局还没结束（可先作废本局）")
        rules = state.info.rules
        deal = Deal(counts=(rules.hand_size,) * rules.players, first_bidder=state.match.next_first_bidder(),
                    time=time.time())
        return self._append(mid, state.next_hand_number, deal, source)

    def _seat(self, fields: dict[str, Any], mid: int, default: int | None = None) -> int:
        n = len(self.state(mid).info.players)
        return int_field(fields, "seat", low=0, high=n - 1, default=default)

    def bid(self, fields: dict[str, Any], source: str) -> int:
        mid = self.match_id(fields)
        state = self.state(mid)
        hand = state.hand
        to_act = hand.bidding.to_act if hand is not None and hand.bidding is not None else None
        seat = self._seat(fields, mid, default=to_act)
        what = text_field(fields, "bid", limit=10)
        if what.isascii() and what.isdigit() and int(what) >= 1:
            event = Bid(seat, "bid", int(what), time=time.time())
        elif what in ("pass", "call", "grab"):
            event = Bid(seat, what, time=time.time())
        else:
            raise ActionError(f"bid must be 1, 2, 3, pass, call or grab, not {what!r}", zh="叫牌内容不对")
        return self._hand_event(mid, event, source)

    def landlord(self, fields: dict[str, Any], source: str) -> int:
        mid = self.match_id(fields)
        seat = self._seat(fields, mid)
        base = int_field(fields, "base", required=False, low=1, high=100, default=1)
        return self._hand_event(mid, Landlord(seat, base, time=time.time()), source)

    def kitty(self, fields: dict[str, Any], source: str) -> int:
        mid = self.match_id(fields)
        return self._hand_event(mid, Kitty(cards_field(fields), time=time.time()), source)

    def _seat_event(self, event: Callable[..., Event], fields: dict[str, Any], source: str) -> int:
        """Store ``event(seat, time=now)`` for the seat ``fields`` names, in the hand under way."""
        mid = self.match_id(fields)
        return self._hand_event(mid, event(self._seat(fields, mid), time=time.time()), source)

    def marker(self, fields: dict[str, Any], source: str) -> int:
        """Five-player: the face-up marker card (明牌) and the seat it fell to (the open landlord)."""
        mid = self.match_id(fields)
        cards = cards_field(fields)
        if len(cards) != 1 or cards[0].is_joker or cards[0].suit is None:
            raise ActionError("the marker is one suited card, not a joker", zh="明牌是一张带花色的牌（不能是王）")
        return self._hand_event(mid, Marker(self._seat(fields, mid), cards[0], time=time.time()), source)

    def reveal(self, fields: dict[str, Any], source: str) -> int:
        """Five-player: the hidden landlord (暗地主) shows himself, or is named after the hand."""
        return self._seat_event(Reveal, fields, source)

    def double(self, fields: dict[str, Any], source: str) -> int:
        """A seat doubles (加倍), once, before the first play (five players, or a table started with doubling)."""
        return self._seat_event(Double, fields, source)

    def kitty_pick(self, fields: dict[str, Any], source: str) -> int:
        """斗帝主: the cards of the kitty the landlord takes (empty: none)."""
        mid = self.match_id(fields)
        hand = self._current_hand(mid)
        if hand.landlord is None:
            raise ActionError("the landlord is not known yet", 409, "地主还没确定")
        text = fields.get("cards") or ""
        cards = cards_field(fields) if isinstance(text, str) and text.strip() else ()
        return self._hand_event(mid, KittyPick(hand.landlord, cards, time=time.time()), source)

    def play(self, fields: dict[str, Any], source: str) -> int:
        mid = self.match_id(fields)
        hand = self.state(mid).hand
        seat = self._seat(fields, mid, default=None if hand is None else hand.turn)
        return self._hand_event(mid, Play(seat, cards_field(fields), time=time.time()), source)

    def mark_pass(self, fields: dict[str, Any], source: str) -> int:
        mid = self.match_id(fields)
        hand = self.state(mid).hand
        seat = self._seat(fields, mid, default=None if hand is None else hand.turn)
        return self._hand_event(mid, Pass(seat, time=time.time()), source)

    # -- corrections: each one a Correction event naming a point of the hand (its event index)
    def _current_hand(self, mid: int) -> Hand:
        hand = self.state(mid).hand
        if hand is None or not hand.events:  # no events: a hand whose deal was undone
            raise ActionError("no hand has been dealt yet", 409, "还没有发牌")
        return hand

    def _fix(self, mid: int, action: str, target: int, event: Event | None, fields: dict[str, Any],
             source: str) -> int:
        reason = text_field(fields, "reason", required=False)
        return self._hand_event(mid, Correction(action, target, event, reason, time.time()), source)

    def correct(self, fields: dict[str, Any], source: str) -> int:
        """Replace play or pass number ``index`` (an index into the hand's events): new cards
        (a misread), a pass the camera inferred that was a play it missed (``what=play``), a
        play that was no play (``what=pass``), or another ``seat``. To fix several events, go
        from the last one back: every step must leave a hand the rules accept."""
        mid = self.match_id(fields)
        hand = self._current_hand(mid)
        index = int_field(fields, "index", low=0)
        original = hand.events[index] if index < len(hand.events) else None
        if not isinstance(original, Play | Pass):
            raise ActionError(f"event {index} of this hand is not a play or a pass", 404, "这一步不是出牌或不出")
        seat = self._seat(fields, mid, default=original.seat)
        what = text_field(fields, "what", required=False, limit=10) or original.kind
        if what == "play":
            fixed: Event = Play(seat, cards_field(fields), time=original.time)
        elif what == "pass":
            fixed = Pass(seat, time=original.time)
        else:
            raise ActionError(f"what must be play or pass, not {what!r}", zh="只能改为出牌或不出")
        return self._fix(mid, "replace", index, fixed, fields, source)

    def insert(self, fields: dict[str, Any], source: str) -> int:
        """Put a pass (or a play, or an announcement) the camera missed at point ``index`` of the
        hand: before the event now at ``index``, or at the end when ``index`` is the event count.
        A pass without a seat goes to the seat whose turn it was at that point."""
        mid = self.match_id(fields)
        hand = self._current_hand(mid)
        n = len(hand.events)
        index = int_field(fields, "index", low=1, high=n)
        what = text_field(fields, "what", required=False, limit=10) or "pass"
        if what not in ("pass", "play", "announce"):
            raise ActionError(f"what must be pass, play or announce, not {what!r}", zh="只能插入不出、出牌或报牌")
        seats = len(self.state(mid).info.players)
        seat = int_field(fields, "seat", required=False, low=0, high=seats - 1)
        if seat is None:
            if what != "pass":
                raise ActionError(f"missing field 'seat' (whose {what} to insert)", zh="缺少座位")
            seat = Hand.from_events(hand.rules, hand.events[:index]).turn
            if seat is None:
                raise ActionError(f"nobody is to play at event {index}: a pass cannot go there", 409,
                                  "这一步之前没有人在出牌，不能插入不出")
        if what == "pass":
            event: Event = Pass(seat, time=time.time())
        elif what == "play":
            event = Play(seat, cards_field(fields), time=time.time())
        else:
            event = Announce(seat, time=time.time())
        return self._fix(mid, "insert", index, event, fields, source)

    def delete(self, fields: dict[str, Any], source: str) -> int:
        """Remove event ``index`` of the hand (a pass, play, bid... the camera saw wrongly)."""
        mid = self.match_id(fields)
        hand = self._current_hand(mid)
        index = int_field(fields, "index", low=0, high=max(0, len(hand.events) - 1))
        if isinstance(hand.events[index], Deal):
            raise ActionError("the deal cannot be deleted: abandon the hand instead", 409,
                              "发牌不能删除，请作废本局")
        return self._fix(mid, "delete", index, None, fields, source)

    def undo(self, fields: dict[str, Any], source: str) -> int:
        mid = self.match_id(fields)
        if len(self._current_hand(mid).events) == 1:  # only the deal, which would leave a hand nothing can follow
            raise ActionError("the deal cannot be undone: abandon the hand instead", 409, "发牌不能撤销，请作废本局")
        return self._hand_event(mid, Correction("undo", reason=text_field(fields, "reason", required=False),
                                                time=time.time()), source)

    # -- what players declare at the table
    def open_hand(self, fields: dict[str, Any], source: str) -> int:
        """The landlord shows his hand (明牌): the preset's open-hand multiplier applies."""
        mid = self.match_id(fields)
        hand = self._current_hand(mid)
        if hand.landlord is None:
            raise ActionError("the landlord is not known yet", 409, "地主还没确定")
        seat = self._seat(fields, mid, default=hand.landlord)
        return self._hand_event(mid, OpenHand(seat, time=time.time()), source)

    def announce(self, fields: dict[str, Any], source: str) -> int:
        """A seat announces its last cards (报单/报双); refused while it holds more than the
        preset's limit. Without a seat: the one seat that owes an announcement."""
        mid = self.match_id(fields)
        hand = self._current_hand(mid)
        owing = hand.unannounced()
        seat = self._seat(fields, mid, default=owing[0] if len(owing) == 1 else None)
        limit = hand.rules.announce_at
        left = hand.cards_left[seat]
        if hand.phase == "play" and not 0 < left <= limit:
            players = self.state(mid).info.players  # named as the page names seats, never by a 0-based number
            raise ActionError(f"{seat_label(seat, 'en', players)} holds {left} cards: players announce at {limit} "
                              f"or fewer", 409, f"{seat_label(seat, 'zh', players)} 还有 {left} 张牌，剩 {limit} 张或更少时才报牌")
        return self._hand_event(mid, Announce(seat, time=time.time()), source)

    def escape(self, fields: dict[str, Any], source: str) -> int:
        """A seat leaves mid-hand (逃跑): the hand ends with the escape penalty."""
        return self._seat_event(Escape, fields, source)

    def concede(self, fields: dict[str, Any], source: str) -> int:
        return self._seat_event(Concede, fields, source)

    def shown(self, fields: dict[str, Any], source: str) -> int:
        """A seat's cards left, laid face up after the hand (亮牌); once every seat left holding
        cards has shown them, a deck that does not add up is stored as a ``deck_audit`` alert."""
        mid = self.match_id(fields)
        self._current_hand(mid)
        seq = self._hand_event(mid, Shown(self._seat(fields, mid), cards_field(fields), time=time.time()), source)
        state = self.state(mid)
        alert = audit_alert(state.hand, time.time())
        if alert is not None:
            self._append(mid, state.hand_number, alert, source)
        return seq

    def abandon(self, fields: dict[str, Any], source: str) -> int:
        mid = self.match_id(fields)
        reason = text_field(fields, "reason", required=False)
        return self._hand_event(mid, End(abandoned=True, reason=reason, time=time.time()), source)


ACTIONS: dict[str, Callable[[RefereeDesk, dict[str, Any], str], int]] = {
    "start_match": RefereeDesk.start_match, "end_match": RefereeDesk.end_match, "penalty": RefereeDesk.penalty,
    "new_hand": RefereeDesk.new_hand, "bid": RefereeDesk.bid, "landlord": RefereeDesk.landlord, "kitty": RefereeDesk.kitty,
    "play": RefereeDesk.play, "pass": RefereeDesk.mark_pass, "correct": RefereeDesk.correct, "insert": RefereeDesk.insert,
    "delete": RefereeDesk.delete, "undo": RefereeDesk.undo, "open_hand": RefereeDesk.open_hand, "announce": RefereeDesk.announce,
    "concede": RefereeDesk.concede, "escape": RefereeDesk.escape, "abandon": RefereeDesk.abandon,
    "shown": RefereeDesk.shown, "marker": RefereeDesk.marker, "reveal": RefereeDesk.reveal,
    "double": RefereeDesk.double, "kitty_pick": RefereeDesk.kitty_pick,
}
