"""What a hand is made of and what it produces: accepted plays, the current trick, the result.

Plain frozen values, so the web page, records and scoring can hold them without the hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.cards import Card
from engine.combination import Combination
from engine.events import Penalty


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
class Trick:
    """The current trick (一轮): who led, the plays so far, passes in a row since the last play."""

    leader: int | None
    plays: tuple[PlayRecord, ...]
    passes: int

    @property
    def to_beat(self) -> tuple[Combination, ...]:
        return self.plays[-1].readings if self.plays else ()


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
    #: Five-player: the hidden landlord on the landlord's side (None: none, or he plays alone).
    partner: int | None = None
    #: False while a five-player hand's hidden landlord is not shown: the sides, and so the
    #: points, are not known yet.
    sides_known: bool = True

    @property
    def multiplier(self) -> int:
        return math.prod(factor for _, factor in self.causes)
