"""Typed faults a referee reports (RULES.md section 8), in English and Chinese, and the
checks that find them (``HandChecks``, mixed into ``Hand``).

``Hand.check(event)`` returns a :class:`Violation` (or ``None``); ``Hand.apply(event)``
raises :class:`HandViolation`, a ``ValueError`` carrying it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from engine.bidding import BidError
from engine.cards import BJ, Card, format_cards
from engine.combination import TYPES, Combination
from engine.events import Bid, Deal, End, Escape, Event, Kitty, Landlord, OpenHand, Pass, Penalty, Play

#: Every kind of fault, with its Chinese name for the referee page.
KINDS_ZH: dict[str, str] = {
    "illegal_combination": "不成牌型",
    "does_not_beat": "管不上",
    "out_of_turn": "没轮到",
    "too_many_cards": "手牌不够",
    "duplicate_card": "重复的牌",
    "not_held": "手中没有这张牌",
    "bomb_quota": "炸弹超出限额",
    "cannot_pass": "首出不能不出",
    "not_started": "牌局未开始",
    "finished": "牌局已结束",
    "wrong_phase": "此时不能这样做",
    "bad_bid": "叫牌不合规",
    "bad_kitty": "底牌不对",
    "bad_deal": "发牌不对",
    "bad_correction": "更正无效",
    "bad_seat": "没有这个座位",
    "not_announced": "没有报牌",
}
KINDS: tuple[str, ...] = tuple(KINDS_ZH)


@dataclass(frozen=True)
class Violation:
    """One fault: its ``kind``, the seat at fault (if any), and a message in both languages."""

    kind: str
    message: str
    seat: int | None = None
    zh: str = ""
    event_index: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS_ZH:
            raise ValueError(f"unknown violation kind {self.kind!r}")

    def __str__(self) -> str:
        zh = self.zh or KINDS_ZH[self.kind]
        return f"{self.kind}: {self.message} / {zh}"

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "message": self.message, "seat": self.seat, "zh": self.zh,
                "event_index": self.event_index}


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


def _text(cards: Iterable[Card]) -> str:
    return format_cards(cards)


class HandChecks:
    """The referee's checks, mixed into ``Hand``: each raises the fault an event would be.

    They only read the hand's state; ``Hand._do`` changes it once an event has passed.
    """

    @property
    def _kitty_from_deal(self) -> bool:
        deal = self.events[0] if self.events else None
        return isinstance(deal, Deal) and deal.kitty is not None and not any(
            isinstance(e, Kitty) for e in self.events)

    def _fault(self, kind: str, message: str, seat: int | None = None, zh: str = "") -> HandViolation:
        return HandViolation(Violation(kind, message, seat, zh, len(self.events)))

    def _validate(self, event: Event) -> Violation | None:
        try:
            self._check(event)
        except HandViolation as exc:
            return exc.violation
        return None

    def _check(self, event: Event) -> None:  # noqa: C901 - one branch per event kind reads best
        seat = getattr(event, "seat", None)
        if seat is not None and seat >= self.players:
            raise self._fault("bad_seat", f"seat {seat} does not exist at a {self.players}-player table", seat)
        if isinstance(event, Penalty):
            return
        if isinstance(event, Deal):
            if self.phase != "not_started":
                raise self._fault("wrong_phase", "the cards were already dealt", zh="已经发过牌")
            self._check_deal(event)
            return
        if self.phase == "not_started":
            raise self._fault("not_started", f"{event.kind} before the deal", seat, "还没发牌")
        if self.phase == "finished":
            if isinstance(event, End):
                return
            raise self._fault("finished", f"{event.kind} after the hand ended", seat, "本局已结束")
        if isinstance(event, Escape | End):
            if isinstance(event, End) and not event.abandoned:
                raise self._fault("wrong_phase", "nobody has gone out; end it as abandoned or correct the plays",
                                  zh="还没有人出完牌")
            return
        if isinstance(event, Bid):
            if self.phase != "bidding" or self.bidding is None:
                raise self._fault("wrong_phase", "bidding is over", seat, "叫牌已结束")
            error: BidError | None = self.bidding.check(event.seat, event.action, event.value)
            if error is not None:
                kind = "out_of_turn" if error.kind == "out_of_turn" else "bad_bid"
                raise self._fault(kind, error.message, seat, error.zh)
            return
        if isinstance(event, Landlord):
            if self.phase != "bidding":
                raise self._fault("wrong_phase", "the landlord is already known", seat, "地主已确定")
            return
        if self.phase != "play":
            raise self._fault("wrong_phase", f"{event.kind} before the landlord is known", seat, "地主还没确定")
        if isinstance(event, Kitty):
            self._check_kitty(event)
        elif isinstance(event, OpenHand):
            if seat != self.landlord:
                raise self._fault("wrong_phase", "only the landlord may open his hand", seat, "只有地主可以明牌")
            if self.open_hand:
                raise self._fault("wrong_phase", "the hand is already open", seat, "已经明牌")
        elif isinstance(event, Pass):
            self._check_turn(event.seat)
            if self.top is None:
                raise self._fault("cannot_pass", f"seat {seat} leads and may not pass", seat, "首出不能不出")
        elif isinstance(event, Play):
            self._check_play(event)

    def _check_deal(self, deal: Deal) -> None:
        if len(deal.counts) != self.players:
            raise self._fault("bad_deal", f"deal has {len(deal.counts)} seats, the table has {self.players}")
        if deal.first_bidder >= self.players:
            raise self._fault("bad_deal", f"first bidder {deal.first_bidder} is not a seat")
        if deal.kitty is not None and len(deal.kitty) != self.rules.kitty_size:  # type: ignore[union-attr]
            raise self._fault("bad_deal", f"the kitty holds {self.rules.kitty_size} cards, not {len(deal.kitty)}")  # type: ignore[union-attr]
        if deal.hands is not None:
            everything = [c for h in deal.hands for c in h] + list(deal.kitty or ())
            self._check_duplicates(everything, Counter(), None)

    def _check_kitty(self, kitty: Kitty) -> None:
        size = self.rules.kitty_size  # type: ignore[union-attr]
        if self.kitty is not None and not self._kitty_from_deal:
            raise self._fault("bad_kitty", "the kitty was already revealed", zh="底牌已亮过")
        if len(kitty.cards) != size:
            raise self._fault("bad_kitty", f"the kitty holds {size} cards, not {len(kitty.cards)}", zh="底牌张数不对")
        if self.kitty is not None and Counter(self.kitty) != Counter(kitty.cards):
            raise self._fault("bad_kitty", "these are not the kitty cards dealt", zh="与发牌时的底牌不符")
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
            raise self._fault("out_of_turn", f"seat {seat} acted out of turn; it is seat {self.turn}'s turn", seat,
                              f"没轮到 {seat} 号位，应由 {self.turn} 号位出牌")

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
                where = "played or seen before" if seen[key] else "more often than the deck holds it"
                raise self._fault("duplicate_card", f"{card} was {where}", seat, f"{card} 重复出现")

    def _check_play(self, play: Play) -> None:
        seat = play.seat
        self._check_turn(seat)
        if len(play.cards) > self.cards_left[seat]:
            raise self._fault("too_many_cards", f"seat {seat} plays {len(play.cards)} cards but holds "
                              f"{self.cards_left[seat]}", seat, "出牌张数超过手牌")
        self._check_duplicates(play.cards, self.seen, seat)
        if self.known is not None and self._hand_known(seat):
            missing = take(self.known[seat], play.cards)
            if missing is not None:
                raise self._fault("not_held", f"seat {seat} does not hold {missing}", seat, f"手中没有 {missing}")
        readings = self._readings(play)
        if not readings:
            raise self._fault("illegal_combination", f"{_text(play.cards)} is not a combination under "
                              f"{self.rules.name} rules", seat, "不成牌型")  # type: ignore[union-attr]
        if self.top is not None and not self._beating(readings):
            raise self._fault("does_not_beat", f"{_text(play.cards)} does not beat {self.plays[self.top].reading}",
                              seat, "管不上")
        if self.rules.bomb_quota and seat != self.landlord:  # type: ignore[union-attr]
            chosen = self._beating(readings) if self.top is not None else readings
            if chosen[0].is_bomb:
                quota = self.bids_by_seat.get(seat, 0) or 1
                if self.bombs_by_seat[seat] >= quota:
                    raise self._fault("bomb_quota", f"seat {seat} already played {quota} bomb(s), its quota",
                                      seat, f"炸弹已用完（限 {quota} 个）")

    def _hand_known(self, seat: int) -> bool:
        return seat != self.landlord or self.kitty is not None

    def _readings(self, play: Play) -> list[Combination]:
        from engine.classify import classify

        return sorted(classify(list(play.cards), self.rules), key=preference)

    def _beating(self, readings: list[Combination]) -> list[Combination]:
        from engine.classify import beats

        current = self.plays[self.top].readings  # type: ignore[index]
        return [r for r in readings if any(beats(r, p, self.rules) for p in current)]
