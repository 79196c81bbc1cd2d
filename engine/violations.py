"""Typed faults a referee reports (docs/rules.md section 8), and the checks that find them
(``HandChecks``, mixed into ``Hand``).

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

from engine.bidding import BidError
from engine.cards import BJ, Card, format_cards
from engine.combination import TYPES, Combination
from engine.events import Bid, Deal, End, Escape, Event, Kitty, Landlord, OpenHand, Pass, Penalty, Play, Shown

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


def identity(card: Card) -> tuple[int, str | None] | None:
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


class HandChecks:
    """The referee's checks, mixed into ``Hand``: each raises the fault an event would be.

    They only read the hand's state; ``Hand._do`` changes it once an event has passed.
    """

    @property
    def _kitty_from_deal(self) -> bool:
        deal = self.events[0] if self.events else None
        return isinstance(deal, Deal) and deal.kitty is not None and not any(
            isinstance(e, Kitty) for e in self.events)

    def _fault(self, kind: str, seat: int | None = None, **data: object) -> HandViolation:
        return HandViolation(Violation(kind, seat, len(self.events), freeze_data(data)))

    def _validate(self, event: Event) -> Violation | None:
        try:
            self._check(event)
        except HandViolation as exc:
            return exc.violation
        return None

    def _check(self, event: Event) -> None:  # noqa: C901 - one branch per event kind reads best
        seat = getattr(event, "seat", None)
        if seat is not None and seat >= self.players:
            raise self._fault("bad_seat", seat, players=self.players)
        if isinstance(event, Penalty):
            return
        if isinstance(event, Deal):
            if self.phase != "not_started":
                raise self._fault("wrong_phase", reason="already_dealt")
            self._check_deal(event)
            return
        if self.phase == "not_started":
            raise self._fault("not_started", seat, event=event.kind)
        if isinstance(event, Shown):
            self._check_shown(event)
            return
        if self.phase == "finished":
            if isinstance(event, End):
                return
            raise self._fault("finished", seat, event=event.kind)
        if isinstance(event, Escape | End):
            if isinstance(event, End) and not event.abandoned:
                raise self._fault("wrong_phase", reason="nobody_out")
            return
        if isinstance(event, Bid):
            if self.phase != "bidding" or self.bidding is None:
                raise self._fault("wrong_phase", seat, reason="bidding_over")
            error: BidError | None = self.bidding.check(event.seat, event.action, event.value)
            if error is not None:
                if error.kind == "out_of_turn":
                    raise self._fault("out_of_turn", seat, expected=self.bidding.to_act)
                raise self._fault("bad_bid", seat, reason=error.kind, action=event.action, value=event.value)
            return
        if isinstance(event, Landlord):
            if self.phase != "bidding":
                raise self._fault("wrong_phase", seat, reason="landlord_known")
            return
        if self.phase != "play":
            raise self._fault("wrong_phase", seat, reason="no_landlord", event=event.kind)
        if isinstance(event, Kitty):
            self._check_kitty(event)
        elif isinstance(event, OpenHand):
            if seat != self.landlord:
                raise self._fault("wrong_phase", seat, reason="only_landlord_opens")
            if self.open_hand:
                raise self._fault("wrong_phase", seat, reason="already_open")
        elif isinstance(event, Pass):
            self._check_turn(event.seat)
            if self.top is None:
                raise self._fault("cannot_pass", seat)
        elif isinstance(event, Play):
            self._check_play(event)

    def _check_deal(self, deal: Deal) -> None:
        if len(deal.counts) != self.players:
            raise self._fault("bad_deal", reason="deal_seats", count=len(deal.counts), players=self.players)
        if deal.first_bidder >= self.players:
            raise self._fault("bad_deal", reason="first_bidder", first=deal.first_bidder)
        if deal.kitty is not None and len(deal.kitty) != self.rules.kitty_size:  # type: ignore[union-attr]
            raise self._fault("bad_deal", reason="kitty_size", size=self.rules.kitty_size,  # type: ignore[union-attr]
                              count=len(deal.kitty))
        if deal.hands is not None:
            everything = [c for h in deal.hands for c in h] + list(deal.kitty or ())
            self._check_duplicates(everything, Counter(), None)

    def _check_shown(self, shown: Shown) -> None:
        """Cards are shown once the hand was played out, by a seat that still holds some. Their
        number is not checked here: a card short or too many is what the deck audit reports."""
        if self.phase != "finished":
            raise self._fault("wrong_phase", shown.seat, reason="hand_not_over")
        if self.landlord is None or self.abandoned or self.redeal:
            raise self._fault("wrong_phase", shown.seat, reason="hand_not_played")
        if self.cards_left[shown.seat] == 0:
            raise self._fault("wrong_phase", shown.seat, reason="no_cards_left")

    def _check_kitty(self, kitty: Kitty) -> None:
        size = self.rules.kitty_size  # type: ignore[union-attr]
        if self.kitty is not None and not self._kitty_from_deal:
            raise self._fault("bad_kitty", reason="kitty_shown")
        if len(kitty.cards) != size:
            raise self._fault("bad_kitty", reason="kitty_size", size=size, count=len(kitty.cards))
        if self.kitty is not None and Counter(self.kitty) != Counter(kitty.cards):
            raise self._fault("bad_kitty", reason="kitty_differs", cards=format_cards(kitty.cards))
        if not self._kitty_from_deal:
            # A kitty shown late: the landlord may already have played some of its cards, which
            # are then in ``seen`` without being repeats.
            self._check_duplicates(kitty.cards, self.seen - self._landlord_played(kitty.cards), None)

    def _landlord_played(self, cards: Iterable[Card]) -> Counter:
        """Which of ``cards`` the landlord has played so far (physical cards, counted)."""
        wanted = Counter(k for k in map(identity, cards) if k is not None)
        played = Counter(k for p in self.plays if p.seat == self.landlord for k in map(identity, p.cards)
                         if k is not None)
        return wanted & played

    def _check_turn(self, seat: int) -> None:
        if seat != self.turn:
            raise self._fault("out_of_turn", seat, expected=self.turn)

    def _check_duplicates(self, cards: Iterable[Card], seen: Counter, seat: int | None) -> None:
        """A physical card may appear at most ``decks`` times among the cards played and the
        kitty cards still in the landlord's hand; the landlord playing one of those is no repeat."""
        limit = self.rules.decks  # type: ignore[union-attr]
        here: Counter = Counter()
        for card in cards:
            key = identity(card)
            if key is None:
                continue
            here[key] += 1
            credit = min(here[key], self.kitty_unplayed[key]) if seat is not None and seat == self.landlord else 0
            if seen[key] + self.kitty_unplayed[key] + here[key] - credit > limit:
                raise self._fault("duplicate_card", seat, card=str(card),
                                  reason="seen_before" if seen[key] else "beyond_deck")

    def _check_play(self, play: Play) -> None:
        seat = play.seat
        self._check_turn(seat)
        if len(play.cards) > self.cards_left[seat]:
            raise self._fault("too_many_cards", seat, count=len(play.cards), held=self.cards_left[seat])
        self._check_duplicates(play.cards, self.seen, seat)
        if self.known is not None and self._hand_known(seat):
            missing = take(self.known[seat], play.cards)
            if missing is not None:
                raise self._fault("not_held", seat, card=str(missing))
        readings = self._readings(play)
        if not readings:
            raise self._fault("illegal_combination", seat, cards=format_cards(play.cards),
                              rules=self.rules.name)  # type: ignore[union-attr]
        if self.top is not None and not self._beating(readings):
            beaten = self.plays[self.top]
            raise self._fault("does_not_beat", seat, cards=format_cards(play.cards),
                              beaten=format_cards(beaten.cards), other=beaten.seat,
                              play_kind=readings[0].type, beaten_kind=beaten.readings[0].type)
        if self.rules.bomb_quota and seat != self.landlord:  # type: ignore[union-attr]
            chosen = self._beating(readings) if self.top is not None else readings
            if chosen[0].is_bomb:
                quota = self.bids_by_seat.get(seat, 0) or 1
                if self.bombs_by_seat[seat] >= quota:
                    raise self._fault("bomb_quota", seat, quota=quota)

    def _hand_known(self, seat: int) -> bool:
        return seat != self.landlord or self.kitty is not None

    def _readings(self, play: Play) -> list[Combination]:
        from engine.classify import classify

        return sorted(classify(list(play.cards), self.rules), key=preference)

    def _beating(self, readings: list[Combination]) -> list[Combination]:
        from engine.classify import beats

        current = self.plays[self.top].readings  # type: ignore[index]
        return [r for r in readings if any(beats(r, p, self.rules) for p in current)]
