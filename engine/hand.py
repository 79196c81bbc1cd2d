"""The hand (一局): a state machine folded over events.

A ``Hand`` knows the phase, whose turn it is, the current trick, cards left per seat, every
card played, bombs and rockets, and the multiplier with its causes. ``apply(event)`` raises
:class:`~engine.violations.HandViolation` for each fault of docs/rules.md section 8;
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

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.bidding import Bidding, new_bidding, next_seat
from engine.cards import Card
from engine.combination import Combination
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
    Reveal,
    Shown,
)
from engine.rules import RuleSet, get_rules
from engine.teams import TEAM_EVENTS, TeamPlay
from engine.trick import HandResult, PlayRecord, Trick
from engine.two_deck_kinds import ladder_doubles
from engine.violations import HandChecks, HandViolation, Violation, identity, take


@dataclass
class Hand(TeamPlay, HandChecks):
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
    trick_start: int = 0  # index into plays where the current trick began
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
    #: Cards each seat laid face up after the hand (the latest ``Shown`` of the seat).
    shown: dict[int, tuple[Card, ...]] = field(default_factory=dict)
    # Five-player and 斗帝主 (engine.teams): the marker card, the hidden landlord once shown and
    # how, the seats that doubled, the landlord's pick of the kitty.
    marker: Card | None = None
    hidden: int | None = None
    hidden_shown: str = ""
    marker_copies: int = 0  # copies of the marker the open landlord played (two: he was alone)
    doubled: list[int] = field(default_factory=list)
    picked: tuple[Card, ...] | None = None

    def __post_init__(self) -> None:
        self.rules = get_rules(self.rules)

    # ------------------------------------------------------------------ public
    @classmethod
    def from_events(cls, rules: RuleSet | str, events: Iterable[Event]) -> Hand:
        hand = cls(rules)
        for event in events:
            hand.apply(event)
        return hand

    @classmethod
    def dealt(cls, rules: RuleSet | str = "classic", first_bidder: int = 0, hands: Iterable | None = None,
              kitty: Iterable[Card] | None = None, time: float | None = None) -> Hand:
        """A hand just dealt: the usual counts for the rules (cards known only if given)."""
        hand = cls(rules)
        r = hand.rules
        hand.apply(Deal(counts=(r.hand_size,) * r.players, first_bidder=first_bidder,  # type: ignore[union-attr]
                        hands=None if hands is None else tuple(tuple(h) for h in hands),
                        kitty=None if kitty is None else tuple(kitty), time=time))
        return hand

    @property
    def players(self) -> int:
        return self.rules.players  # type: ignore[union-attr]

    @property
    def finished(self) -> bool:
        return self.phase == "finished"

    @property
    def multiplier(self) -> int:
        return math.prod(factor for _, factor in self.causes)

    @property
    def current(self) -> tuple[Combination, ...]:
        """The readings the next play must beat (empty when the turn is a lead)."""
        return () if self.top is None else self.plays[self.top].readings

    @property
    def trick(self) -> Trick:
        return Trick(self.leader, tuple(self.plays[self.trick_start:]), self.passes)

    def options(self) -> list[Combination] | None:
        """Every play the seat to act could make now, or ``None`` when its cards are unknown
        (the referee's "could anyone beat that?")."""
        from engine.legal import legal_plays

        seat = self.turn
        if seat is None or self.known is None or not self._hand_known(seat):
            return None
        found: dict[tuple, Combination] = {}
        for prev in self.current or (None,):
            for play in legal_plays(self.known[seat], prev, self.rules):  # type: ignore[arg-type]
                found.setdefault((play.type, play.main, play.length, play.cards), play)
        return list(found.values())

    @property
    def cards_played(self) -> list[Card]:
        return [c for p in self.plays for c in p.cards]

    @property
    def bombs(self) -> list[PlayRecord]:
        return [p for p in self.plays if p.is_bomb]

    def next_seat(self, seat: int) -> int:
        return next_seat(seat, self.players, self.rules.seat_order)  # type: ignore[union-attr]

    def farmers(self) -> list[int]:
        """Seats not on the landlord's side as the table knows it (five-player: a hidden
        landlord not yet shown is still counted among them)."""
        side = self.landlord_side()
        return [s for s in range(self.players) if s not in side]

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
        side = self.landlord_side()
        if self.out_seat is not None:
            landlord_won = self.out_seat in side
        elif self.conceded is not None:
            landlord_won = self.conceded not in side
        # Before the landlord is known (an escape mid-bidding) the stake is the highest bid so far.
        base = self.base if self.landlord is not None else max(self.bids_by_seat.values(), default=1)
        return HandResult(
            players=self.players, landlord=self.landlord, base=base, causes=tuple(self.causes),
            out_seat=self.out_seat, landlord_won=landlord_won,
            spring=("spring", 2) in self.causes, anti_spring=("anti_spring", 2) in self.causes,
            escaped=self.escaped, conceded=self.conceded, redeal=self.redeal, abandoned=self.abandoned,
            open_hand=self.open_hand, bombs=len(self.bombs),
            any_bid=any(isinstance(e, Bid) and e.action != "pass" for e in self.events),
            penalties=tuple(self.penalties),
            partner=None if self.hidden == self.landlord else self.hidden,
            sides_known=self.sides_known or self.landlord is None,
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
                raise self._fault("bad_correction", reason="nothing_to_undo")
            events.pop()
        elif fix.target >= n + (fix.action == "insert"):
            raise self._fault("bad_correction", reason="no_such_event", at=fix.target, count=n)
        elif fix.action == "replace":
            events[fix.target] = fix.event  # type: ignore[assignment]
        elif fix.action == "insert":
            events.insert(fix.target, fix.event)  # type: ignore[arg-type]
        else:
            del events[fix.target]
        if not events or not isinstance(events[0], Deal):
            # A hand is folded from its deal: without one it has no seats, and nothing could follow.
            raise self._fault("bad_correction", reason="needs_deal")
        fixed = Hand(self.rules)
        for i, event in enumerate(events):
            violation = fixed._validate(event)
            if violation is not None:
                raise HandViolation(Violation("bad_correction", violation.seat, i, (
                    ("reason", "breaks"), ("at", i), ("event", event.kind), ("cause", violation.kind))))
            fixed._do(event)
            fixed.events.append(event)
        return fixed

    # ------------------------------------------------------------------ effects
    def _check(self, event: Event) -> None:
        """The base checks (engine.violations), with the team events' own (engine.teams)."""
        if isinstance(event, TEAM_EVENTS):
            if event.seat >= self.players:  # type: ignore[attr-defined]
                raise self._fault("bad_seat", event.seat, players=self.players)  # type: ignore[attr-defined]
            if self.phase == "not_started":
                raise self._fault("not_started", event.seat, event=event.kind)  # type: ignore[attr-defined]
            if self.phase == "finished" and not isinstance(event, Reveal):
                raise self._fault("finished", event.seat, event=event.kind)  # type: ignore[attr-defined]
            self._check_team(event)
            return
        if isinstance(event, Play | Pass | OpenHand):
            self._check_pick_first(event)
        super()._check(event)

    def _do(self, event: Event) -> None:  # noqa: C901
        if isinstance(event, TEAM_EVENTS):
            self._do_team(event)
        elif isinstance(event, Penalty):
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
        elif isinstance(event, Kitty) and self.rules.kitty_choice:  # type: ignore[union-attr]
            self.kitty = event.cards  # shown to the 帝主: he takes what KittyPick says
        elif isinstance(event, Kitty):
            if not self._kitty_from_deal:
                # Shown late, the kitty's cards the landlord already played are no longer held.
                held = Counter(k for k in map(identity, event.cards) if k is not None)
                self.kitty_unplayed = held - self._landlord_played(event.cards)
                if self.known is not None and self.landlord is not None:
                    self.known[self.landlord].extend(event.cards)
                    for p in self.plays:
                        if p.seat == self.landlord:
                            take(self.known[self.landlord], p.cards, remove=True)
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
        elif isinstance(event, Shown):
            self.shown[event.seat] = event.cards
            if self.hidden is None and self.marker in event.cards and event.seat != self.landlord:
                self.hidden, self.hidden_shown = event.seat, "end"
                self._whitewash()
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
        self.phase = "play"
        self.turn = self.leader = seat
        if self.rules.kitty_choice:  # type: ignore[union-attr]
            return  # the 帝主 takes his pick of the kitty with KittyPick
        self.cards_left[seat] += self.rules.kitty_size  # type: ignore[union-attr]
        if self.kitty is not None:  # known from the deal (a simulator or a referee who saw it)
            self.kitty_unplayed = Counter(k for k in map(identity, self.kitty) if k is not None)
            if self.known is not None:
                self.known[seat].extend(self.kitty)

    def _pass(self, seat: int) -> None:
        self.passes += 1
        if self.passes >= self.players - 1:
            self.leader = self.plays[self.top].seat  # type: ignore[index]
            self.top, self.passes, self.turn = None, 0, self.leader
            self.trick_start = len(self.plays)
        else:
            self.turn = self.next_seat(seat)

    def _play(self, play: Play) -> None:
        readings = self._readings(play)
        lead = self.top is None
        if not lead:
            readings = self._beating(readings)
            from engine.classify import beats

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
        for key in (k for k in map(identity, play.cards) if k is not None):
            if play.seat == self.landlord and self.kitty_unplayed[key]:
                self.kitty_unplayed[key] -= 1
            self.seen[key] += 1
        self.kitty_unplayed += Counter()  # drop zero counts so folds compare equal
        if self.known is not None and self._hand_known(play.seat):
            take(self.known[play.seat], play.cards, remove=True)
        self.cards_left[play.seat] -= len(play.cards)
        self._spot_twin(play.seat, play.cards)
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
        if self.rules.bomb_ladder and reading.is_bomb:  # type: ignore[union-attr]
            return ladder_doubles(reading.type, reading.length, self.rules)  # type: ignore[arg-type]
        return reading.type == "bomb" and reading.size >= self.rules.double_min_bomb  # type: ignore[union-attr]

    def _hand_known(self, seat: int) -> bool:
        if self.rules.kitty_choice:  # type: ignore[union-attr]
            return seat != self.landlord or self.picked is not None
        return super()._hand_known(seat)

    def _finish(self) -> None:
        if self.phase == "finished":
            return
        self.phase, self.turn = "finished", None
        self._end_sides()
        if self.rules.whitewash:  # type: ignore[union-attr]
            self._whitewash()
            return
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
