"""The hand (一局): a state machine folded over events.

A ``Hand`` knows the phase, whose turn it is, the current trick, cards left per seat, every
card played, bombs and rockets, and the multiplier with its causes. ``apply(event)`` raises
:class:`~engine.violations.HandViolation` for each fault of docs/rules.md section 8;
``check(event)`` returns the :class:`~engine.violations.Violation` without changing anything.
``Hand.from_events(rules, events)`` gives the same state as applying them one by one:
corrections (undo, replace, insert, delete) simply refold the corrected event list.

**One state.** Everything the events produce is set in one place, ``Hand._start`` (the state
before the deal); ``apply`` changes it event by event, and a correction starts it again and
folds the corrected events. The checks (:class:`~engine.violations.HandChecks`) and the team
events of the five-player and 斗帝主 games (:class:`~engine.teams.TeamPlay`) work on a hand
they are given; they declare no state of their own. ``rules`` is always a
:class:`~engine.rules.RuleSet`: a preset name given to ``Hand(...)`` is looked up once, there.

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

import dataclasses
import math
from collections import Counter
from collections.abc import Iterable

from engine.bidding import Bidding, new_bidding, next_seat
from engine.cards import Card
from engine.classify import beats, classify
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
    Marker,
    OpenHand,
    Pass,
    Penalty,
    Play,
    Shown,
)
from engine.rules import RuleSet, get_rules
from engine.teams import TEAM_EVENTS, TeamPlay
from engine.trick import HandResult, PlayRecord, Trick
from engine.two_deck_kinds import ladder_doubles
from engine.violations import CardKey, HandChecks, HandViolation, Violation, fault, identity, preference, take

__all__ = ["Hand", "HandResult", "PlayRecord", "Trick"]


class Hand:
    """One hand: its rules, every event applied (``log``, corrections included) and the state
    the fold of its ``events`` gives. Build it with ``Hand(rules)`` and ``apply`` events, or
    ``from_events``."""

    def __init__(self, rules: RuleSet | str = "classic") -> None:
        self.rules: RuleSet = get_rules(rules)
        self.log: list[Event] = []
        self._start()

    def _start(self) -> None:
        """The state before the deal: every field the fold sets. A correction starts here
        again and folds the corrected events."""
        #: The events the state is folded from: the log with its corrections carried out.
        self.events: list[Event] = []
        self.phase: str = "not_started"  # not_started, bidding, play, finished
        self.first_bidder: int = 0
        self.bidding: Bidding | None = None
        self.landlord: int | None = None
        self.base: int = 0
        self.cards_left: list[int] = []
        self.known: list[list[Card]] | None = None
        self.kitty: tuple[Card, ...] | None = None
        self.seen: Counter[CardKey] = Counter()  # physical cards played
        self.kitty_unplayed: Counter[CardKey] = Counter()  # kitty cards the landlord still holds
        self.plays: list[PlayRecord] = []
        self.turn: int | None = None
        self.leader: int | None = None
        self.top: int | None = None  # index into plays of the play to beat; None: the leader leads
        self.passes: int = 0
        self.trick_start: int = 0  # index into plays where the current trick began
        self.causes: list[tuple[str, int]] = []
        self.bombs_by_seat: Counter[int] = Counter()
        self.bids_by_seat: dict[int, int] = {}
        self.announced: set[int] = set()
        self.out_seat: int | None = None
        self.escaped: int | None = None
        self.conceded: int | None = None
        self.redeal: bool = False
        self.abandoned: bool = False
        self.open_hand: bool = False
        self.penalties: list[Penalty] = []
        #: Cards each seat laid face up after the hand (the latest ``Shown`` of the seat).
        self.shown: dict[int, tuple[Card, ...]] = {}
        # Five-player and 斗帝主 (engine.teams): the marker card, the hidden landlord once shown
        # and how, the seats that doubled, the landlord's pick of the kitty.
        self.marker: Card | None = None
        self.hidden: int | None = None
        self.hidden_shown: str = ""
        self.marker_copies: int = 0  # copies of the marker the open landlord played (two: he was alone)
        self.doubled: list[int] = []
        self.picked: tuple[Card, ...] | None = None

    # ------------------------------------------------------------------ public
    @classmethod
    def from_events(cls, rules: RuleSet | str, events: Iterable[Event]) -> Hand:
        hand = cls(rules)
        for event in events:
            hand.apply(event)
        return hand

    @classmethod
    def dealt(cls, rules: RuleSet | str = "classic", first_bidder: int = 0,
              hands: Iterable[Iterable[Card]] | None = None, kitty: Iterable[Card] | None = None,
              time: float | None = None) -> Hand:
        """A hand just dealt: the usual counts for the rules (cards known only if given)."""
        hand = cls(rules)
        r = hand.rules
        hand.apply(Deal(counts=(r.hand_size,) * r.players, first_bidder=first_bidder,
                        hands=None if hands is None else tuple(tuple(h) for h in hands),
                        kitty=None if kitty is None else tuple(kitty), time=time))
        return hand

    @property
    def players(self) -> int:
        return self.rules.players

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
        if seat is None or self.known is None or not self.hand_known(seat):
            return None
        found: dict[tuple[object, ...], Combination] = {}
        for prev in self.current or (None,):
            for play in legal_plays(self.known[seat], prev, self.rules):
                found.setdefault((play.type, play.main, play.length, play.cards), play)
        return list(found.values())

    @property
    def cards_played(self) -> list[Card]:
        return [c for p in self.plays for c in p.cards]

    @property
    def bombs(self) -> list[PlayRecord]:
        return [p for p in self.plays if p.is_bomb]

    def next_seat(self, seat: int) -> int:
        return next_seat(seat, self.players, self.rules.seat_order)

    def landlord_side(self) -> tuple[int, ...]:
        """The landlord and, once shown, the hidden landlord (as the table knows them)."""
        return TeamPlay(self).landlord_side()

    def twin_holder(self) -> int | None:
        """Five-player: who was dealt the marker's twin, when the deal's hands are known."""
        return TeamPlay(self).twin_holder()

    @property
    def sides_known(self) -> bool:
        """Whether the teams are settled (a five-player hidden landlord not shown: not yet)."""
        return TeamPlay(self).sides_known

    def farmers(self) -> list[int]:
        """Seats not on the landlord's side as the table knows it (five-player: a hidden
        landlord not yet shown is still counted among them)."""
        side = self.landlord_side()
        return [s for s in range(self.players) if s not in side]

    def unannounced(self) -> list[int]:
        """Seats at or under the announce threshold that have not announced (a soft alert)."""
        limit = self.rules.announce_at
        return [s for s, n in enumerate(self.cards_left) if 0 < n <= limit and s not in self.announced]

    def check(self, event: Event) -> Violation | None:
        """The fault ``event`` would be, or ``None``; the hand does not change."""
        if isinstance(event, Correction):
            try:
                Hand(self.rules)._refold(self._corrected(event))
            except HandViolation as exc:
                return exc.violation
            return None
        return self._validate(event)

    def apply(self, event: Event) -> None:
        """Apply ``event``; a fault raises ``HandViolation`` and leaves the hand as it was."""
        if isinstance(event, Correction):
            corrected, kept = self._corrected(event), self.events
            try:
                self._refold(corrected)
            except HandViolation:
                self._refold(kept)  # the events it held were folded before: they fold again
                raise
            self.log.append(event)
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
        data = {k: v for k, v in vars(self).items() if k not in ("log", "bidding")}
        data["bidding"] = None if self.bidding is None else self.bidding.history
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Hand):
            return NotImplemented
        return self.snapshot() == other.snapshot() and self.log == other.log

    def __repr__(self) -> str:
        return f"Hand({self.rules.name!r}, phase={self.phase!r}, events={len(self.events)})"

    # ------------------------------------------------------------------ what the checks and effects share
    @property
    def kitty_from_deal(self) -> bool:
        """Whether the kitty's cards are known from the deal alone (no ``Kitty`` event yet)."""
        deal = self.events[0] if self.events else None
        return isinstance(deal, Deal) and deal.kitty is not None and not any(
            isinstance(e, Kitty) for e in self.events)

    def hand_known(self, seat: int) -> bool:
        """Whether the seat's cards are known now: the landlord's only once he holds the kitty's
        (斗帝主: once he has taken his pick)."""
        if self.rules.kitty_choice:
            return seat != self.landlord or self.picked is not None
        return seat != self.landlord or self.kitty is not None

    def landlord_played(self, cards: Iterable[Card]) -> Counter[CardKey]:
        """Which of ``cards`` the landlord has played so far (physical cards, counted)."""
        wanted = Counter(k for k in map(identity, cards) if k is not None)
        played = Counter(k for p in self.plays if p.seat == self.landlord for k in map(identity, p.cards)
                         if k is not None)
        return wanted & played

    def readings(self, play: Play) -> list[Combination]:
        """Every reading of the play's cards under the rules, the preferred one first."""
        return sorted(classify(list(play.cards), self.rules), key=preference)

    def beating(self, readings: list[Combination]) -> list[Combination]:
        """Those of ``readings`` that beat a candidate of the play to beat."""
        assert self.top is not None
        current = self.plays[self.top].readings
        return [r for r in readings if any(beats(r, p, self.rules) for p in current)]

    def _fault(self, kind: str, seat: int | None = None, **data: object) -> HandViolation:
        return fault(self, kind, seat, **data)

    # ------------------------------------------------------------------ corrections
    def _corrected(self, fix: Correction) -> list[Event]:
        """The event list once ``fix`` is carried out (each event still to be checked)."""
        events = list(self.events)
        n = len(events)
        if fix.action == "undo":
            if not events:
                raise self._fault("bad_correction", reason="nothing_to_undo")
            events.pop()
        elif fix.target >= n + (fix.action == "insert"):
            raise self._fault("bad_correction", reason="no_such_event", at=fix.target, count=n)
        elif fix.action == "delete":
            del events[fix.target]
        else:
            assert fix.event is not None  # a replace or insert carries its event
            if fix.action == "replace":
                events[fix.target] = fix.event
            else:
                events.insert(fix.target, fix.event)
        if not events or not isinstance(events[0], Deal):
            # A hand is folded from its deal: without one it has no seats, and nothing could follow.
            raise self._fault("bad_correction", reason="needs_deal")
        return events

    def _refold(self, events: list[Event]) -> None:
        """Start the state again and fold ``events``, checking each: the first that breaks a
        rule raises ``bad_correction`` naming it (the state is then partly folded)."""
        self._start()
        for i, event in enumerate(events):
            violation = self._validate(event)
            if violation is not None:
                raise HandViolation(Violation("bad_correction", violation.seat, i, (
                    ("reason", "breaks"), ("at", i), ("event", event.kind), ("cause", violation.kind))))
            self._do(event)
            self.events.append(event)

    # ------------------------------------------------------------------ effects
    def _validate(self, event: Event) -> Violation | None:
        """The base checks (engine.violations), with the team events' own (engine.teams)."""
        try:
            if isinstance(event, TEAM_EVENTS):
                TeamPlay(self).check(event)
            else:
                if isinstance(event, Play | Pass | OpenHand):
                    TeamPlay(self).check_pick_first(event)
                HandChecks(self).check(event)
        except HandViolation as exc:
            return exc.violation
        return None

    def _do(self, event: Event) -> None:  # noqa: C901
        if isinstance(event, Marker):
            self.marker = event.card
            self._crown(event.seat, 1, [])  # its holder is the open landlord, at base 1
        elif isinstance(event, TEAM_EVENTS):
            TeamPlay(self).apply(event)
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
                grabs = [("grab", 2)] * self.bidding.grabs if self.rules.grab_doubles else []
                self._crown(self.bidding.landlord, self.bidding.base, grabs)
        elif isinstance(event, Landlord):
            self._crown(event.seat, event.base, [])
        elif isinstance(event, Kitty) and self.rules.kitty_choice:
            self.kitty = event.cards  # shown to the 帝主: he takes what KittyPick says
        elif isinstance(event, Kitty):
            if not self.kitty_from_deal:
                # Shown late, the kitty's cards the landlord already played are no longer held.
                held = Counter(k for k in map(identity, event.cards) if k is not None)
                self.kitty_unplayed = held - self.landlord_played(event.cards)
                if self.known is not None and self.landlord is not None:
                    self.known[self.landlord].extend(event.cards)
                    for p in self.plays:
                        if p.seat == self.landlord:
                            take(self.known[self.landlord], p.cards, remove=True)
            self.kitty = event.cards
        elif isinstance(event, OpenHand):
            self.open_hand = True
            self.causes.append(("open_hand", self.rules.open_hand_multiplier))
        elif isinstance(event, Pass):
            self._pass(event.seat)
        elif isinstance(event, Play):
            self._play(event)
        elif isinstance(event, Announce):
            self.announced.add(event.seat)
        elif isinstance(event, Shown):
            self.shown[event.seat] = event.cards
            copies = sum(1 for c in event.cards if c == self.marker) if self.marker is not None else 0
            # The twin among another seat's cards names the hidden landlord; the open landlord
            # showing a copy beside one he played, or both, held them both and played alone.
            alone = event.seat == self.landlord and copies + self.marker_copies >= 2
            if self.hidden is None and copies and (event.seat != self.landlord or alone):
                self.hidden, self.hidden_shown = event.seat, "end"
                TeamPlay(self).whitewash()
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
        """The landlord is known (by the bidding, the referee or the marker card): he leads,
        and takes the kitty unless the rules let him pick from it."""
        self.landlord, self.base = seat, base
        self.causes.extend(causes)
        self.phase = "play"
        self.turn = self.leader = seat
        if self.rules.kitty_choice:
            return  # the 帝主 takes his pick of the kitty with KittyPick
        self.cards_left[seat] += self.rules.kitty_size
        if self.kitty is not None:  # known from the deal (a simulator or a referee who saw it)
            self.kitty_unplayed = Counter(k for k in map(identity, self.kitty) if k is not None)
            if self.known is not None:
                self.known[seat].extend(self.kitty)

    def _pass(self, seat: int) -> None:
        self.passes += 1
        if self.passes >= self.players - 1:
            assert self.top is not None  # a pass follows a play (HandChecks)
            self.leader = self.plays[self.top].seat
            self.top, self.passes, self.turn = None, 0, self.leader
            self.trick_start = len(self.plays)
        else:
            self.turn = self.next_seat(seat)

    def _play(self, play: Play) -> None:
        readings = self.readings(play)
        top = self.top
        if top is not None:
            readings = self.beating(readings)
            beaten = self.plays[top]
            narrowed = tuple(p for p in beaten.readings if any(beats(r, p, self.rules) for r in readings))
            self.plays[top] = dataclasses.replace(beaten, readings=narrowed)
        chosen = readings[0]
        doubles = self._doubles(chosen)
        record = PlayRecord(len(self.events), play.seat, play.cards, tuple(readings), top is None, play.time,
                            doubles)
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
        if self.known is not None and self.hand_known(play.seat):
            take(self.known[play.seat], play.cards, remove=True)
        self.cards_left[play.seat] -= len(play.cards)
        TeamPlay(self).spot_twin(play.seat, play.cards)
        self.top, self.passes = len(self.plays) - 1, 0
        if top is None:
            self.leader = play.seat
        if self.cards_left[play.seat] == 0:
            self.out_seat = play.seat
            self._finish()
        else:
            self.turn = self.next_seat(play.seat)

    def _doubles(self, reading: Combination) -> bool:
        if reading.type == "rocket":
            return self.rules.rocket_doubles
        if self.rules.bomb_ladder and reading.is_bomb:
            return ladder_doubles(reading.type, reading.length, self.rules)
        return reading.type == "bomb" and reading.size >= self.rules.double_min_bomb

    def _finish(self) -> None:
        if self.phase == "finished":
            return
        self.phase, self.turn = "finished", None
        teams = TeamPlay(self)
        teams.end_sides()
        if self.rules.whitewash:
            teams.whitewash()
            return
        if self.out_seat is None or not self.rules.spring or self.landlord is None:
            return
        by_landlord = sum(1 for p in self.plays if p.seat == self.landlord)
        if self.out_seat == self.landlord and by_landlord == len(self.plays):
            self.causes.append(("spring", 2))
        elif self.out_seat != self.landlord and by_landlord == 1:
            self.causes.append(("anti_spring", 2))
