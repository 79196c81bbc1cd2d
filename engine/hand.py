"""The hand (一局): a state machine folded over events.

A ``Hand`` knows the phase, whose turn it is, the current trick, cards left per seat, every
card played, bombs and rockets, and the multiplier with its causes. ``apply(event)`` raises
:class:`~engine.violations.HandViolation` for each fault of RULES.md section 8;
``check(event)`` returns the :class:`~engine.violations.Violation` without changing anything.
``Hand.from_events(rules, events)`` gives the same state as applying them one by one:
corrections (undo, replace, insert, delete) simply refold the corrected event list.

Seats are numbered 0..n-1 around the table counter-clockwise; play goes to seat + 1 under
``seat_order="ccw"`` (the default, 逆时针) and to seat - 1 under ``"cw"``.

**Ambiguous plays.** A play keeps every reading that is still possible. A lead keeps all its
readings; a follow keeps those that beat one of the trick's candidates, and narrows the
beaten play to the candidates it actually beat. ``PlayRecord.reading`` is the first of the
remaining readings, preferring the one with the largest core (so ``333444555666`` shows as
a four-trio airplane, while a follower may still answer it as three trios with kickers).
Whether a play doubles (a bomb or rocket) is decided by that preferred reading when played.

>>> from engine.events import Deal, Bid, Play
>>> from engine.cards import parse_cards
>>> h = Hand("classic")
>>> for e in (Deal(counts=(17, 17, 17)), Bid(0, "bid", 3), Play(0, tuple(parse_cards("3s")))):
...     h.apply(e)
>>> h.turn, h.cards_left
(1, [19, 17, 17])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.bidding import Bidding, BidError, new_bidding, next_seat
from engine.cards import BJ, Card
from engine.combination import TYPES, Combination
from engine.events import (
    Announce,
    Bid,
    Concede,
    Correction,
    Deal,
    End,
    Escape,
    Event,
    Kitty,
    Landlord,
    OpenHand,
    Pass,
    Penalty,
    Play,
)
from engine.rules import RuleSet, get_rules
from engine.violations import HandViolation, Violation


def _preference(reading: Combination) -> tuple[int, int, int]:
    return -len(reading.core), TYPES.index(reading.type), reading.main


@dataclass(frozen=True)
class PlayRecord:
    """A play as accepted: the event index, seat, cards, and its still-possible readings."""

    index: int
    seat: int
    cards: tuple[Card, ...]
    readings: tuple[Combination, ...]
    lead: bool
    time: float | None = None
    doubles: bool = False

    @property
    def reading(self) -> Combination:
        return self.readings[0]

    @property
    def is_bomb(self) -> bool:
        return self.reading.is_bomb


@dataclass(frozen=True)
class HandResult:
    """What scoring needs from a finished (or stopped) hand."""

    players: int
    landlord: int | None
    base: int
    causes: tuple[tuple[str, int], ...]
    out_seat: int | None = None
    landlord_won: bool | None = None
    spring: bool = False
    anti_spring: bool = False
    escaped: int | None = None
    conceded: int | None = None
    redeal: bool = False
    abandoned: bool = False
    open_hand: bool = False
    bombs: int = 0
    any_bid: bool = False
    penalties: tuple[Penalty, ...] = ()

    @property
    def multiplier(self) -> int:
        m = 1
        for _, factor in self.causes:
            m *= factor
        return m


def _identity(card: Card) -> tuple[int, str | None] | None:
    """The physical card, when it can be told apart: suited cards and jokers."""
    if card.suit is not None or card.rank >= BJ:
        return card.rank, card.suit
    return None


@dataclass
class Hand:
    """One hand's state. Build it with ``Hand(rules)`` and ``apply`` events, or ``from_events``."""

    rules: RuleSet | str = "classic"
    phase: str = "not_started"  # not_started, bidding, play, finished
    log: list[Event] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    first_bidder: int = 0
    bidding: Bidding | None = None
    landlord: int | None = None
    base: int = 0
    cards_left: list[int] = field(default_factory=list)
    known: list[list[Card]] | None = None
    kitty: tuple[Card, ...] | None = None
    seen: Counter = field(default_factory=Counter)  # physical cards played
    kitty_unplayed: Counter = field(default_factory=Counter)  # kitty cards the landlord still holds
    plays: list[PlayRecord] = field(default_factory=list)
    turn: int | None = None
    leader: int | None = None
    top: int | None = None  # index into plays of the play to beat; None: the leader leads
    passes: int = 0
    causes: list[tuple[str, int]] = field(default_factory=list)
    bombs_by_seat: Counter = field(default_factory=Counter)
    bids_by_seat: dict[int, int] = field(default_factory=dict)
    announced: set[int] = field(default_factory=set)
    out_seat: int | None = None
    escaped: int | None = None
    conceded: int | None = None
    redeal: bool = False
    abandoned: bool = False
    open_hand: bool = False
    penalties: list[Penalty] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rules = get_rules(self.rules)

    # ------------------------------------------------------------------ public
    @classmethod
    def from_events(cls, rules: RuleSet | str, events: Iterable[Event]) -> Hand:
        hand = cls(rules)
        for event in events:
            hand.apply(event)
        return hand

    @property
    def players(self) -> int:
        return self.rules.players  # type: ignore[union-attr]

    @property
    def finished(self) -> bool:
        return self.phase == "finished"

    @property
    def multiplier(self) -> int:
        m = 1
        for _, factor in self.causes:
            m *= factor
        return m

    @property
    def current(self) -> tuple[Combination, ...]:
        """The readings the next play must beat (empty when the turn is a lead)."""
        return () if self.top is None else self.plays[self.top].readings

    @property
    def cards_played(self) -> list[Card]:
        return [c for p in self.plays for c in p.cards]

    @property
    def bombs(self) -> list[PlayRecord]:
        return [p for p in self.plays if p.is_bomb]

    def next_seat(self, seat: int) -> int:
        return next_seat(seat, self.players, self.rules.seat_order)  # type: ignore[union-attr]

    def farmers(self) -> list[int]:
        return [s for s in range(self.players) if s != self.landlord]

    def unannounced(self) -> list[int]:
        """Seats at or under the announce threshold that have not announced (a soft alert)."""
        limit = self.rules.announce_at  # type: ignore[union-attr]
        return [s for s, n in enumerate(self.cards_left) if 0 < n <= limit and s not in self.announced]

    def check(self, event: Event) -> Violation | None:
        """The fault ``event`` would be, or ``None``; the hand does not change."""
        if isinstance(event, Correction):
            try:
                self._corrected(event)
            except HandViolation as exc:
                return exc.violation
            return None
        return self._validate(event)

    def apply(self, event: Event) -> None:
        """Apply ``event``; a fault raises ``HandViolation`` and leaves the hand as it was."""
        if isinstance(event, Correction):
            fixed = self._corrected(event)
            log = [*self.log, event]
            self.__dict__.update(fixed.__dict__)
            self.log = log
            return
        violation = self._validate(event)
        if violation is not None:
            raise HandViolation(violation)
        self._do(event)
        self.log.append(event)
        self.events.append(event)

    def result(self) -> HandResult:
        landlord_won = None
        if self.out_seat is not None:
            landlord_won = self.out_seat == self.landlord
        elif self.conceded is not None:
            landlord_won = self.conceded != self.landlord
        return HandResult(
            players=self.players, landlord=self.landlord, base=self.base, causes=tuple(self.causes),
            out_seat=self.out_seat, landlord_won=landlord_won,
            spring=("spring", 2) in self.causes, anti_spring=("anti_spring", 2) in self.causes,
            escaped=self.escaped, conceded=self.conceded, redeal=self.redeal, abandoned=self.abandoned,
            open_hand=self.open_hand, bombs=len(self.bombs), any_bid=bool(self.bids_by_seat) or any(
                isinstance(e, Bid) for e in self.events),
            penalties=tuple(self.penalties),
        )

    def snapshot(self) -> dict[str, object]:
        """Every piece of state except the raw log (what a fold must reproduce)."""
        data = {k: v for k, v in self.__dict__.items() if k not in ("log", "bidding")}
        data["bidding"] = None if self.bidding is None else self.bidding.history
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Hand):
            return NotImplemented
        return self.snapshot() == other.snapshot() and self.log == other.log

    # ------------------------------------------------------------------ corrections
    def _corrected(self, fix: Correction) -> Hand:
        events = list(self.events)
        n = len(events)
        if fix.action == "undo":
            if not events:
                raise self._fault("bad_correction", "nothing to undo")
            events.pop()
        elif fix.target >= n + (fix.action == "insert"):
            raise self._fault("bad_correction", f"event {fix.target} does not exist (the hand has {n})")
        elif fix.action == "replace":
            events[fix.target] = fix.event  # type: ignore[assignment]
        elif fix.action == "insert":
            events.insert(fix.target, fix.event)  # type: ignore[arg-type]
        else:
            del events[fix.target]
        fixed = Hand(self.rules)
        for i, event in enumerate(events):
            violation = fixed._validate(event)
            if violation is not None:
                raise HandViolation(Violation(
                    "bad_correction", f"after the correction event {i} ({event.kind}) fails: {violation.message}",
                    violation.seat, violation.zh, i))
            fixed._do(event)
            fixed.events.append(event)
        return fixed

    # ------------------------------------------------------------------ validation
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
            self._check_duplicates(kitty.cards, self.seen, None)

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
            key = _identity(card)
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
            missing = _take(self.known[seat], play.cards)
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
        from engine.combos import classify

        return sorted(classify(list(play.cards), self.rules), key=_preference)

    def _beating(self, readings: list[Combination]) -> list[Combination]:
        from engine.combos import beats

        current = self.plays[self.top].readings  # type: ignore[index]
        return [r for r in readings if any(beats(r, p, self.rules) for p in current)]

    # ------------------------------------------------------------------ effects
    @property
    def _kitty_from_deal(self) -> bool:
        deal = self.events[0] if self.events else None
        return isinstance(deal, Deal) and deal.kitty is not None and not any(
            isinstance(e, Kitty) for e in self.events)

    def _do(self, event: Event) -> None:  # noqa: C901
        if isinstance(event, Penalty):
            self.penalties.append(event)
        elif isinstance(event, Deal):
            self.phase = "bidding"
            self.cards_left = list(event.counts)
            self.first_bidder = event.first_bidder
            self.bidding = new_bidding(self.rules, event.first_bidder)
            if event.hands is not None:
                self.known = [list(h) for h in event.hands]
            self.kitty = event.kitty
        elif isinstance(event, Bid):
            assert self.bidding is not None
            self.bidding.apply(event.seat, event.action, event.value)
            if event.action == "bid":
                self.bids_by_seat[event.seat] = max(event.value, self.bids_by_seat.get(event.seat, 0))
            if self.bidding.redeal:
                self.redeal = True
                self.phase = "finished"
            elif self.bidding.landlord is not None:
                grabs = [("grab", 2)] * self.bidding.grabs if self.rules.grab_doubles else []  # type: ignore[union-attr]
                self._crown(self.bidding.landlord, self.bidding.base, grabs)
        elif isinstance(event, Landlord):
            self._crown(event.seat, event.base, [])
        elif isinstance(event, Kitty):
            if not self._kitty_from_deal:
                self.kitty_unplayed = Counter(k for k in map(_identity, event.cards) if k is not None)
                if self.known is not None and self.landlord is not None:
                    self.known[self.landlord].extend(event.cards)
            self.kitty = event.cards
        elif isinstance(event, OpenHand):
            self.open_hand = True
            self.causes.append(("open_hand", self.rules.open_hand_multiplier))  # type: ignore[union-attr]
        elif isinstance(event, Pass):
            self._pass(event.seat)
        elif isinstance(event, Play):
            self._play(event)
        elif isinstance(event, Announce):
            self.announced.add(event.seat)
        elif isinstance(event, Concede):
            self.conceded = event.seat
            self._finish()
        elif isinstance(event, Escape):
            self.escaped = event.seat
            self._finish()
        elif isinstance(event, End):
            if event.abandoned and self.phase != "finished":
                self.abandoned = True
            self._finish()

    def _crown(self, seat: int, base: int, causes: list[tuple[str, int]]) -> None:
        self.landlord, self.base = seat, base
        self.causes.extend(causes)
        self.cards_left[seat] += self.rules.kitty_size  # type: ignore[union-attr]
        if self.kitty is not None:  # known from the deal (a simulator or a referee who saw it)
            self.kitty_unplayed = Counter(k for k in map(_identity, self.kitty) if k is not None)
            if self.known is not None:
                self.known[seat].extend(self.kitty)
        self.phase = "play"
        self.turn = self.leader = seat

    def _pass(self, seat: int) -> None:
        self.passes += 1
        if self.passes >= self.players - 1:
            self.leader = self.plays[self.top].seat  # type: ignore[index]
            self.top, self.passes, self.turn = None, 0, self.leader
        else:
            self.turn = self.next_seat(seat)

    def _play(self, play: Play) -> None:
        readings = self._readings(play)
        lead = self.top is None
        if not lead:
            readings = self._beating(readings)
            from engine.combos import beats

            beaten = self.plays[self.top]  # type: ignore[index]
            narrowed = tuple(p for p in beaten.readings if any(beats(r, p, self.rules) for r in readings))
            self.plays[self.top] = _replace(beaten, readings=narrowed)  # type: ignore[index]
        chosen = readings[0]
        doubles = self._doubles(chosen)
        record = PlayRecord(len(self.events), play.seat, play.cards, tuple(readings), lead, play.time, doubles)
        self.plays.append(record)
        if chosen.is_bomb:
            self.bombs_by_seat[play.seat] += 1
        if doubles:
            self.causes.append((chosen.type, 2))
        for key in (k for k in map(_identity, play.cards) if k is not None):
            if play.seat == self.landlord and self.kitty_unplayed[key]:
                self.kitty_unplayed[key] -= 1
            self.seen[key] += 1
        self.kitty_unplayed += Counter()  # drop zero counts so folds compare equal
        if self.known is not None and self._hand_known(play.seat):
            _take(self.known[play.seat], play.cards, remove=True)
        self.cards_left[play.seat] -= len(play.cards)
        self.top, self.passes = len(self.plays) - 1, 0
        if lead:
            self.leader = play.seat
        if self.cards_left[play.seat] == 0:
            self.out_seat = play.seat
            self._finish()
        else:
            self.turn = self.next_seat(play.seat)

    def _doubles(self, reading: Combination) -> bool:
        if reading.type == "rocket":
            return self.rules.rocket_doubles  # type: ignore[union-attr]
        return reading.type == "bomb" and reading.size >= self.rules.double_min_bomb  # type: ignore[union-attr]

    def _finish(self) -> None:
        if self.phase == "finished":
            return
        self.phase, self.turn = "finished", None
        if self.out_seat is None or not self.rules.spring or self.landlord is None:  # type: ignore[union-attr]
            return
        by_landlord = sum(1 for p in self.plays if p.seat == self.landlord)
        if self.out_seat == self.landlord and by_landlord == len(self.plays):
            self.causes.append(("spring", 2))
        elif self.out_seat != self.landlord and by_landlord == 1:
            self.causes.append(("anti_spring", 2))


def _replace(record: PlayRecord, **changes: object) -> PlayRecord:
    data = dict(record.__dict__)
    data.update(changes)
    return PlayRecord(**data)  # type: ignore[arg-type]


def _text(cards: Iterable[Card]) -> str:
    from engine.cards import format_cards

    return format_cards(cards)


def _take(hand: list[Card], cards: Iterable[Card], remove: bool = False) -> Card | None:
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

