"""Typed faults a referee reports (docs/rules.md section 8), and the checks that find them
(``HandChecks``, which reads a ``Hand`` and changes nothing).

``Hand.check(event)`` returns a :class:`Violation` (or ``None``); ``Hand.apply(event)``
raises :class:`HandViolation`, a ``ValueError`` carrying it.

A violation is data: its ``kind`` (one of :data:`KINDS`), the seat at fault and named
``data`` (the cards, the seat whose turn it was, a ``reason`` id for kinds with several
causes). The engine writes no sentences for people: the wording of every kind, in Chinese
and English, lives in one table above it (``tracker.alerts``). ``message`` is a terse
diagnostic (kind and data) for logs and exceptions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from engine.bidding import BidError
from engine.cards import BJ, Card, format_cards
from engine.combination import TYPES, Combination
from engine.events import Bid, Deal, End, Escape, Event, Kitty, Landlord, OpenHand, Pass, Penalty, Play, Shown

if TYPE_CHECKING:
    from engine.hand import Hand

#: Every kind of fault the engine reports.
KINDS: tuple[str, ...] = (
    "illegal_combination", "does_not_beat", "out_of_turn", "too_many_cards", "duplicate_card", "not_held",
    "bomb_quota", "cannot_pass", "not_started", "finished", "wrong_phase", "bad_bid", "bad_kitty", "bad_deal",
    "bad_correction", "bad_seat",
)

Data = tuple[tuple[str, object], ...]


def freeze_data(data: Mapping[str, object] | Iterable[tuple[str, object]] | None) -> Data:
    """Named values as a sorted tuple of pairs (hashable; lists become tuples)."""
    items = dict(data or ())
    if any(not isinstance(k, str) for k in items):
        raise ValueError(f"data names must be strings, not {list(items)!r}")
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in items.items()))


@dataclass(frozen=True)
class Violation:
    """One fault: its ``kind``, the seat at fault (if any), where it would have gone in the
    hand's events, and the named ``data`` its wording needs."""

    kind: str
    seat: int | None = None
    event_index: int | None = None
    data: Data = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown violation kind {self.kind!r}")
        object.__setattr__(self, "data", freeze_data(self.data))

    @property
    def fields(self) -> dict[str, object]:
        return dict(self.data)

    @property
    def message(self) -> str:
        """``kind (seat=…, name=value, …)``: a diagnostic, not the page's wording."""
        parts = ([] if self.seat is None else [f"seat={self.seat}"]) + [f"{k}={v}" for k, v in self.data]
        return f"{self.kind} ({', '.join(parts)})" if parts else self.kind

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "seat": self.seat, "event_index": self.event_index, "data": self.fields}


class HandViolation(ValueError):
    """Raised by ``Hand.apply`` when an event breaks a rule; ``.violation`` says which."""

    def __init__(self, violation: Violation) -> None:
        super().__init__(str(violation))
        self.violation = violation

    @property
    def kind(self) -> str:
        return self.violation.kind


def preference(reading: Combination) -> tuple[int, int, int]:
    return -len(reading.core), TYPES.index(reading.type), reading.main


#: A physical card as far as it can be told apart: rank and suit (a joker's suit is ``None``).
CardKey: TypeAlias = tuple[int, str | None]


def identity(card: Card) -> CardKey | None:
    """The physical card, when it can be told apart: suited cards and jokers."""
    if card.suit is not None or card.rank >= BJ:
        return card.rank, card.suit
    return None


def take(hand: list[Card], cards: Iterable[Card], remove: bool = False) -> Card | None:
    """The first card of ``cards`` that ``hand`` lacks (None if it holds them all).

    A rank-only card matches any card of that rank. With ``remove`` the cards leave ``hand``.
    """
    pool = hand if remove else list(hand)
    for card in cards:
        match = card if card in pool else None
        if match is None and card.suit is None:
            match = next((c for c in pool if c.rank == card.rank), None)
        if match is None:
            return card
        pool.remove(match)
    return None


def fault(hand: Hand, kind: str, seat: int | None = None, **data: object) -> HandViolation:
    """The fault ``kind`` for an event offered to ``hand`` now (it would be the next of its events)."""
    return HandViolation(Violation(kind, seat, len(hand.events), freeze_data(data)))


class HandChecks:
    """The referee's checks of one event against a hand: ``check(event)`` raises the fault the
    event would be. They only read the hand; ``Hand`` changes its state once an event has passed.
    """

    def __init__(self, hand: Hand) -> None:
        self.hand = hand

    def _fault(self, kind: str, seat: int | None = None, **data: object) -> HandViolation:
        return fault(self.hand, kind, seat, **data)

    def check(self, event: Event) -> None:  # noqa: C901 - one branch per event kind reads best
        hand = self.hand
        seat = getattr(event, "seat", None)
        if seat is not None and seat >= hand.players:
            raise self._fault("bad_seat", seat, players=hand.players)
        if isinstance(event, Penalty):
            return
        if isinstance(event, Deal):
            if hand.phase != "not_started":
                raise self._fault("wrong_phase", reason="already_dealt")
            self._check_deal(event)
            return
        if hand.phase == "not_started":
            raise self._fault("not_started", seat, event=event.kind)
        if isinstance(event, Shown):
            self._check_shown(event)
            return
        if hand.phase == "finished":
            if isinstance(event, End):
                return
            raise self._fault("finished", seat, event=event.kind)
        if isinstance(event, Escape | End):
            if isinstance(event, End) and not event.abandoned:
                raise self._fault("wrong_phase", reason="nobody_out")
            return
        if isinstance(event, Bid):
            if hand.phase != "bidding" or hand.bidding is None:
                raise self._fault("wrong_phase", seat, reason="bidding_over")
            error: BidError | None = hand.bidding.check(event.seat, event.action, event.value)
            if error is not None:
                if error.kind == "out_of_turn":
                    raise self._fault("out_of_turn", seat, expected=hand.bidding.to_act)
                raise self._fault("bad_bid", seat, reason=error.kind, action=event.action, value=event.value)
            return
        if isinstance(event, Landlord):
            if hand.phase != "bidding":
                raise self._fault("wrong_phase", seat, reason="landlord_known")
            return
        if hand.phase != "play":
            raise self._fault("wrong_phase", seat, reason="no_landlord", event=event.kind)
        if isinstance(event, Kitty):
            self._check_kitty(event)
        elif isinstance(event, OpenHand):
            if seat != hand.landlord:
                raise self._fault("wrong_phase", seat, reason="only_landlord_opens")
            if hand.open_hand:
                raise self._fault("wrong_phase", seat, reason="already_open")
        elif isinstance(event, Pass):
            self._check_turn(event.seat)
            if hand.top is None:
                raise self._fault("cannot_pass", seat)
        elif isinstance(event, Play):
            self._check_play(event)

    def _check_deal(self, deal: Deal) -> None:
        hand = self.hand
        if len(deal.counts) != hand.players:
            raise self._fault("bad_deal", reason="deal_seats", count=len(deal.counts), players=hand.players)
        if deal.first_bidder >= hand.players:
            raise self._fault("bad_deal", reason="first_bidder", first=deal.first_bidder)
        if deal.kitty is not None and len(deal.kitty) != hand.rules.kitty_size:
            raise self._fault("bad_deal", reason="kitty_size", size=hand.rules.kitty_size,
                              count=len(deal.kitty))
        if deal.hands is not None:
            everything = [c for h in deal.hands for c in h] + list(deal.kitty or ())
            self._check_duplicates(everything, Counter(), None)

    def _check_shown(self, shown: Shown) -> None:
        """Cards are shown once the hand was played out, by a seat that still holds some. Their
        number is not checked here: a card short or too many is what the deck audit reports."""
        hand = self.hand
        if hand.phase != "finished":
            raise self._fault("wrong_phase", shown.seat, reason="hand_not_over")
        if hand.landlord is None or hand.abandoned or hand.redeal:
            raise self._fault("wrong_phase", shown.seat, reason="hand_not_played")
        if hand.cards_left[shown.seat] == 0:
            raise self._fault("wrong_phase", shown.seat, reason="no_cards_left")

    def _check_kitty(self, kitty: Kitty) -> None:
        hand = self.hand
        size = hand.rules.kitty_size
        if hand.kitty is not None and not hand.kitty_from_deal:
            raise self._fault("bad_kitty", reason="kitty_shown")
        if len(kitty.cards) != size:
            raise self._fault("bad_kitty", reason="kitty_size", size=size, count=len(kitty.cards))
        if hand.kitty is not None and Counter(hand.kitty) != Counter(kitty.cards):
            raise self._fault("bad_kitty", reason="kitty_differs", cards=format_cards(kitty.cards))
        if not hand.kitty_from_deal:
            # A kitty shown late: the landlord may already have played some of its cards, which
            # are then in ``seen`` without being repeats.
            self._check_duplicates(kitty.cards, hand.seen - hand.landlord_played(kitty.cards), None)

    def _check_turn(self, seat: int) -> None:
        if seat != self.hand.turn:
            raise self._fault("out_of_turn", seat, expected=self.hand.turn)

    def _check_duplicates(self, cards: Iterable[Card], seen: Counter[CardKey], seat: int | None) -> None:
        """A physical card may appear at most ``decks`` times among the cards played and the
        kitty cards still in the landlord's hand; the landlord playing one of those is no repeat."""
        hand = self.hand
        limit = hand.rules.decks
        here: Counter[CardKey] = Counter()
        for card in cards:
            key = identity(card)
            if key is None:
                continue
            here[key] += 1
            credit = min(here[key], hand.kitty_unplayed[key]) if seat is not None and seat == hand.landlord else 0
            if seen[key] + hand.kitty_unplayed[key] + here[key] - credit > limit:
                raise self._fault("duplicate_card", seat, card=str(card),
                                  reason="seen_before" if seen[key] else "beyond_deck")

    def _check_play(self, play: Play) -> None:
        hand = self.hand
        seat = play.seat
        self._check_turn(seat)
        if len(play.cards) > hand.cards_left[seat]:
            raise self._fault("too_many_cards", seat, count=len(play.cards), held=hand.cards_left[seat])
        self._check_duplicates(play.cards, hand.seen, seat)
        if hand.known is not None and hand.hand_known(seat):
            missing = take(hand.known[seat], play.cards)
            if missing is not None:
                raise self._fault("not_held", seat, card=str(missing))
        readings = hand.readings(play)
        if not readings:
            raise self._fault("illegal_combination", seat, cards=format_cards(play.cards),
                              rules=hand.rules.name)
        if hand.top is not None and not hand.beating(readings):
            beaten = hand.plays[hand.top]
            raise self._fault("does_not_beat", seat, cards=format_cards(play.cards),
                              beaten=format_cards(beaten.cards), other=beaten.seat,
                              play_kind=readings[0].type, beaten_kind=beaten.readings[0].type)
        if hand.rules.bomb_quota and seat != hand.landlord:
            chosen = hand.beating(readings) if hand.top is not None else readings
            if chosen[0].is_bomb:
                quota = hand.bids_by_seat.get(seat, 0) or 1
                if hand.bombs_by_seat[seat] >= quota:
                    raise self._fault("bomb_quota", seat, quota=quota)
