"""Match formats (赛制): a sitting of hands at one table and who is ahead or has won.

A :class:`Match` holds the rule set, the players (player ``i`` sits at seat ``i`` for the
whole match), the hand records in order and the referee's match penalties. Totals and the
verdict are always recomputed from those, so a corrected hand corrects the sheet.

Formats follow ``rules.scoring`` (docs/rules.md section 3):

- ``points``: running totals; with ``time_limit_min`` (90 or 45) the highest total when time
  runs out wins; a tie at the top plays another hand (``status`` says ``tie_break``).
- ``qq``: the first player to reach ``target_points`` (20) advances.
- ``chips``: each player starts with ``chips_start``; when a player's chips run out the table
  stops and the most chips wins; at time the most chips wins; a tie plays one extra hand.
- ``fixed``: rounds of ``hands_per_round`` hands (redeals and abandoned hands do not count); the
  round's highest total takes the round, a tie plays extra hands; with ``best_of`` (5 or 7) the
  first to win a majority of rounds wins the match.

Bidding order across hands: the first bidder rotates in play order after each hand that was
played (option ``first_bidder="previous_landlord"``: the last landlord bids first); after a
redeal the same seat bids first again, so "three redeals in a row" is always one dealer's:
with ``redeal_penalty`` that dealer loses 4 and the others gain 2 [001]; with
``redeals_dissolve`` (the four-player rules) that many redeals in a row dissolve the game.
Referee penalties [001, 000 part 5]: dropped card 2 points, misconduct by the referee's
judgement, disqualification for hiding cards (the player can no longer win).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

from engine.bidding import next_seat
from engine.cards import Card
from engine.events import Event, Penalty
from engine.hand import Hand
from engine.rules import RuleSet, get_rules
from engine.scoring import Settlement, settle

DROPPED_CARD_POINTS = 2  # 掉牌 -2 [001]

#: Hands folded from their records, by rules and events, shared by every match (a club server
#: builds each table's sheet again as hands finish: each counted hand is folded once, not once
#: per sheet). Only :meth:`Match.folded` reads it, and it never changes a hand it returns.
_FOLDED: OrderedDict[tuple[RuleSet, tuple[Event, ...]], Hand] = OrderedDict()
_FOLDED_MAX = 20_000
_FOLDED_LOCK = threading.Lock()


def _folded(record: HandRecord, rules: RuleSet) -> Hand:
    key = (rules, record.events)
    with _FOLDED_LOCK:
        hand = _FOLDED.get(key)
        if hand is not None:
            _FOLDED.move_to_end(key)
            return hand
    hand = record.hand(rules)
    with _FOLDED_LOCK:
        _FOLDED[key] = hand
        if len(_FOLDED) > _FOLDED_MAX:
            _FOLDED.popitem(last=False)
    return hand


@dataclass(frozen=True)
class HandRecord:
    """One hand as recorded: its raw events (corrections included) and when it started."""

    events: tuple[Event, ...]
    started: float | None = None
    note: str = ""

    def hand(self, rules: RuleSet | str) -> Hand:
        """Fold the events; a record whose events break the rules raises ``ValueError``."""
        return Hand.from_events(rules, self.events)

    @classmethod
    def of(cls, hand: Hand, started: float | None = None, note: str = "") -> HandRecord:
        return cls(tuple(hand.log), started, note)


class MatchOverError(ValueError):
    """A hand offered to a match that is already decided; ``.status`` says how it ended."""

    def __init__(self, status: MatchStatus) -> None:
        winners = ", ".join(str(s) for s in status.winners) or "none"
        super().__init__(f"the match is over ({status.reason}, winners: seat {winners}); "
                         f"start a new match for more hands / 比赛已结束")
        self.status = status


@dataclass(frozen=True)
class MatchStatus:
    over: bool
    reason: str  # playing, time, target, bust, tie_break, round, rounds_won, dissolved
    winners: tuple[int, ...] = ()
    round_wins: tuple[int, ...] = ()


@dataclass(init=False)
class Match:
    """A sitting at one table. ``started`` and ``status(now)`` use the same clock (seconds).

    ``rules`` may be given as a preset name; the match holds the ``RuleSet``."""

    rules: RuleSet
    players: tuple[str, ...]
    hands: list[HandRecord]
    penalties: list[Penalty]
    first_bidder: int
    started: float | None
    best_of: int
    name: str

    def __init__(self, rules: RuleSet | str = "classic", players: Iterable[str] = ("East", "South", "West"),
                 hands: list[HandRecord] | None = None, penalties: list[Penalty] | None = None,
                 first_bidder: int = 0, started: float | None = None, best_of: int = 0, name: str = "") -> None:
        self.rules = get_rules(rules)
        self.players = tuple(players)
        self.hands = [] if hands is None else hands
        self.penalties = [] if penalties is None else penalties
        self.first_bidder, self.started, self.best_of, self.name = first_bidder, started, best_of, name
        # Each record folded once per match: the verdict asks for the folded hands several
        # times, and a sheet built hand by hand asks after every hand (see folded()).
        self._folds: dict[int, tuple[HandRecord, RuleSet, Hand]] = {}
        if len(self.players) != self.rules.players:
            raise ValueError(f"{self.rules.name} is played by {self.rules.players} players, not {len(self.players)}")
        if not 0 <= self.first_bidder < self.rules.players:
            raise ValueError(f"first bidder {self.first_bidder} is not a seat")
        if self.best_of < 0 or (self.best_of and self.best_of % 2 == 0):
            raise ValueError(f"best_of must be odd (5, 7) or 0, not {self.best_of}")

    @property
    def n(self) -> int:
        return len(self.players)

    # ------------------------------------------------------------------ playing
    def folded(self) -> list[Hand]:
        """Each record's hand, folded through the rules. A record is folded again only when it
        is a new object or the rules changed (records are frozen), so the totals and the
        verdict asked after every hand cost one fold per hand, not one per hand per ask."""
        kept: dict[int, tuple[HandRecord, RuleSet, Hand]] = {}
        out: list[Hand] = []
        for record in self.hands:
            hit = self._folds.get(id(record))
            if hit is None or hit[0] is not record or hit[1] != self.rules:
                hit = (record, self.rules, _folded(record, self.rules))
            kept[id(record)] = hit  # the record is held, so its id cannot be reused meanwhile
            out.append(hit[2])
        self._folds = kept
        return out

    def next_first_bidder(self) -> int:
        """Who bids first in the next hand."""
        seat = self.first_bidder
        for hand in self.folded():
            if hand.redeal:
                seat = hand.first_bidder
            elif self.rules.first_bidder == "previous_landlord" and hand.landlord is not None:
                seat = hand.landlord
            else:
                seat = next_seat(hand.first_bidder, self.n, self.rules.seat_order)
        return seat

    def new_hand(self, hands: Iterable[Iterable[Card]] | None = None, kitty: Iterable[Card] | None = None,
                 time: float | None = None) -> Hand:
        """A hand dealt for this match (known ``hands``/``kitty`` for a simulator)."""
        return Hand.dealt(self.rules, self.next_first_bidder(), hands, kitty, time)

    def add_hand(self, hand: Hand | HandRecord, started: float | None = None) -> Settlement:
        """Add a finished hand; raises :class:`MatchOverError` once the match is decided (judged
        at the hand's start, so a timed match takes no hand begun after time ran out)."""
        record = hand if isinstance(hand, HandRecord) else HandRecord.of(hand, started)
        status = self.status(now=record.started)
        if status.over:
            raise MatchOverError(status)
        folded = record.hand(self.rules)
        if not folded.finished:
            raise ValueError("only a finished hand (someone out, conceded, escaped, redeal or abandoned) "
                             "can be added to the match")
        self.hands.append(record)
        return self.settlements()[-1]

    def finished_hands(self) -> int:
        """How many hands were finished: an abandoned hand (作废: a misdeal, a table stopped) has
        no result and is dealt again, so it is not one of them; a redeal (nobody bid) is."""
        return sum(1 for hand in self.folded() if not hand.abandoned)

    def moving_on(self) -> int | None:
        """Round robin with chips [004]: when the tables change, the last landlord moves on."""
        for hand in reversed(self.folded()):
            if hand.landlord is not None:
                return hand.landlord
        return None

    def penalise(self, seat: int, points: int = DROPPED_CARD_POINTS, reason: str = "dropped card",
                 disqualify: bool = False) -> None:
        if not 0 <= seat < self.n:
            raise ValueError(f"seat {seat} is not at this table")
        self.penalties.append(Penalty(seat=seat, points=points, reason=reason, disqualify=disqualify))

    # ------------------------------------------------------------------ the sheet
    def settlements(self) -> list[Settlement]:
        """Each hand's settlement, the redeal penalty folded into the third redeal's row."""
        rows: list[Settlement] = []
        holdings = [self.rules.chips_start] * self.n
        chips = self.rules.scoring == "chips"
        redeals = 0
        for hand in self.folded():
            row = settle(hand, self.rules, holdings if chips else None)
            redeals = redeals + 1 if hand.redeal else 0
            if hand.redeal and self.rules.redeal_penalty and redeals % 3 == 0:
                dealer = hand.first_bidder
                extra = tuple(-4 if s == dealer else 2 for s in range(self.n))
                row = Settlement(points=tuple(p + e for p, e in zip(row.points, extra, strict=True)),
                                 outcome="redeal_penalty", unit=row.unit, penalties=row.penalties)
            rows.append(row)
            holdings = [h + p for h, p in zip(holdings, row.points, strict=True)]
        return rows

    def totals(self) -> list[int]:
        """Each player's total (chips held under the chips format), match penalties included."""
        start = self.rules.chips_start if self.rules.scoring == "chips" else 0
        totals = [start] * self.n
        for row in self.settlements():
            totals = [t + p for t, p in zip(totals, row.points, strict=True)]
        for p in self.penalties:
            totals[p.seat] -= p.points
        return totals

    def disqualified(self) -> set[int]:
        out = {p.seat for p in self.penalties if p.disqualify}
        for row in self.settlements():
            out.update(row.disqualified)
        return out

    def _leaders(self, totals: list[int], among: Iterable[int] | None = None) -> tuple[int, ...]:
        out = self.disqualified()
        eligible = [s for s in (among if among is not None else range(self.n)) if s not in out]
        if not eligible:
            return ()
        best = max(totals[s] for s in eligible)
        return tuple(s for s in eligible if totals[s] == best)

    # ------------------------------------------------------------------ verdict
    def status(self, now: float | None = None) -> MatchStatus:
        """Where the match stands; ``now`` (same clock as ``started``) decides timed formats."""
        rules = self.rules
        folded = self.folded()
        limit = rules.redeals_dissolve
        if limit and len(folded) >= limit and all(h.redeal for h in folded[-limit:]):
            return MatchStatus(True, "dissolved")
        if rules.scoring == "fixed" and rules.hands_per_round:
            return self._fixed_status(folded)
        totals = self.totals()
        if rules.scoring == "qq" and rules.target_points:
            reached = [s for s in range(self.n) if totals[s] >= rules.target_points]
            if reached:
                return MatchStatus(True, "target", self._leaders(totals, reached))
        if rules.scoring == "chips" and any(t <= 0 for t in totals):
            return MatchStatus(True, "bust", self._leaders(totals))
        time_up = (rules.time_limit_min and now is not None and self.started is not None
                   and now - self.started >= rules.time_limit_min * 60)
        if time_up:
            leaders = self._leaders(totals)
            return MatchStatus(len(leaders) == 1, "time" if len(leaders) == 1 else "tie_break", leaders)
        return MatchStatus(False, "playing", self._leaders(totals))

    def _fixed_status(self, folded: list[Hand]) -> MatchStatus:
        size = self.rules.hands_per_round
        wins = [0] * self.n
        need = self.best_of // 2 + 1 if self.best_of else 1
        round_totals, played = [0] * self.n, 0
        for hand, row in zip(folded, self.settlements(), strict=True):
            round_totals = [t + p for t, p in zip(round_totals, row.points, strict=True)]
            played += 0 if hand.redeal or hand.abandoned else 1  # neither is a hand of the round
            if played >= size:
                leaders = self._leaders(round_totals)
                if len(leaders) == 1:  # a tie plays on: 加赛直至决出胜负
                    wins[leaders[0]] += 1
                    round_totals, played = [0] * self.n, 0
                    if wins[leaders[0]] >= need:
                        reason = "rounds_won" if self.best_of else "round"
                        return MatchStatus(True, reason, leaders, tuple(wins))
        if played >= size:
            return MatchStatus(False, "tie_break", self._leaders(round_totals), tuple(wins))
        return MatchStatus(False, "playing", self._leaders(self.totals()), tuple(wins))
