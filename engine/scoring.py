"""Settling a hand (结算): points per seat under the rule set's scoring format.

``settle(hand_or_result, rules)`` returns a :class:`Settlement`: the change per seat, the base,
the multiplier and its causes. The formats (docs/rules.md sections 2.2 and 3):

- ``points`` [000]: stake = base (the winning bid) x multiplier. The landlord wins or loses
  ``(players - 1) x stake`` and each farmer the opposite ``stake``: zero-sum. Five players
  (our reading; the seed gives no split): every landlord settles the stake with every farmer,
  so open and hidden landlord +-3 x stake each against farmers -+2 x stake, and a landlord
  alone +-4 x stake against -+1. Until the hidden landlord is known a finished five-player
  hand settles as ``hidden_unknown`` (0 points). Three players:
  landlord +-2 x base x mult, farmers -+base x mult (RULES 2.2). Our reading for four players
  (the seeds give the three-player formula only as "each farmer pays the landlord"): the
  landlord collects or pays ``stake`` from or to each of the three farmers, so +-3 x stake.
  (One four-player seed [002] uses fixed stakes instead: landlord +9/-6, farmers -3/+2, times
  the multiplier; a club wanting that plays the ``fixed`` format with fixed_win/fixed_loss.)
- ``qq`` [000 part 5]: as ``points``, but losers lose nothing (``winners_only``).
- ``chips`` [004]: the bid is ignored; stake = chips_base (2) x multiplier, paid to or by each
  farmer. With ``chips`` given (what each seat holds) nobody pays more than he holds; a
  landlord short of chips splits what he has evenly among the farmers.
- ``fixed`` [001]: landlord +fixed_win / farmers -fixed_loss each, the reverse on a loss; only
  the open hand multiplies (明牌 x2: +6/-2); bombs do not.

The multiplier's causes come from the hand: each doubling bomb or rocket actually played (the
preset says which: classic every bomb and the rocket; ``four`` only bombs of 6+ cards and the
four-joker rocket), each grab (抢地主), the open hand (明牌), spring (春天) and anti-spring (反春).
Escape (逃跑) [000]: the escaper loses ``base x mult x 3`` (3 points if nobody had bid yet), a
deduction that nobody collects; the hand is otherwise void. Referee penalties inside the hand
(``Penalty`` events) are deducted from their seats. A redeal or an abandoned hand scores 0.

>>> from engine.hand import HandResult
>>> r = HandResult(players=3, landlord=0, base=3, causes=(("bomb", 2), ("bomb", 2), ("rocket", 2)),
...                out_seat=0, landlord_won=True)
>>> settle(r, "classic").points
(48, -24, -24)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.hand import Hand, HandResult
from engine.rules import RuleSet, get_rules


@dataclass(frozen=True)
class Settlement:
    """The outcome of one hand: ``points`` per seat (chips under the chips format)."""

    points: tuple[int, ...]
    outcome: str  # landlord_won, farmers_won, escape, redeal, abandoned, unfinished
    base: int = 0
    multiplier: int = 1
    causes: tuple[tuple[str, int], ...] = ()
    landlord: int | None = None
    stake: int = 0
    unit: str = "points"
    penalties: tuple[int, ...] = ()
    disqualified: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "points": list(self.points), "outcome": self.outcome, "base": self.base,
            "multiplier": self.multiplier, "causes": [list(c) for c in self.causes],
            "landlord": self.landlord, "stake": self.stake, "unit": self.unit,
            "penalties": list(self.penalties), "disqualified": list(self.disqualified),
        }


def settle(hand: Hand | HandResult, rules: RuleSet | str | None = None,
           chips: Sequence[int] | None = None) -> Settlement:
    """Settle a hand. ``rules`` defaults to the hand's own; ``chips``: holdings (chips format)."""
    if isinstance(hand, Hand):
        rules = hand.rules if rules is None else rules
        result = hand.result()
    else:
        result = hand
    rules = get_rules(rules or "classic")
    n = result.players
    penalty = [0] * n
    disqualified = []
    for p in result.penalties:
        penalty[p.seat] -= p.points
        if p.disqualify:
            disqualified.append(p.seat)
    common = dict(base=result.base, multiplier=result.multiplier, causes=result.causes, landlord=result.landlord,
                  unit="chips" if rules.scoring == "chips" else "points", penalties=tuple(penalty),
                  disqualified=tuple(disqualified))

    if result.escaped is not None:
        if result.any_bid or result.landlord is not None:
            unit_base = rules.chips_base if rules.scoring == "chips" else max(result.base, 1)
            loss = unit_base * result.multiplier * rules.escape_multiplier
        else:
            loss = rules.escape_before_bid
        if chips is not None:
            loss = min(loss, max(chips[result.escaped], 0))
        points = [0] * n
        points[result.escaped] = -loss
        return _done(points, penalty, "escape", common, stake=loss)
    if result.redeal or result.abandoned or result.landlord_won is None or result.landlord is None:
        outcome = "redeal" if result.redeal else "abandoned" if result.abandoned else "unfinished"
        return _done([0] * n, penalty, outcome, common, stake=0)
    if not result.sides_known:  # five-player: who is the hidden landlord decides the split
        return _done([0] * n, penalty, "hidden_unknown", common, stake=0)

    won = result.landlord_won
    side = [result.landlord] + ([result.partner] if result.partner not in (None, result.landlord) else [])
    farmers = [s for s in range(n) if s not in side]
    if rules.scoring == "fixed":
        open_factor = rules.open_hand_multiplier if result.open_hand else 1
        win, loss = rules.fixed_win * open_factor, rules.fixed_loss * open_factor
        points = [0] * n
        for landlord in side:
            points[landlord] = win if won else -win
        for f in farmers:
            points[f] = -loss if won else loss
        return _done(points, penalty, _outcome(won), common, stake=loss)

    if rules.scoring == "chips":
        stake = rules.chips_base * result.multiplier
        points = [0] * n
        for landlord in side:  # each landlord settles with every farmer
            points = [p + q for p, q in zip(points, _chip_transfers(landlord, farmers, won, stake, chips, n),
                                            strict=True)]
    else:
        # Every landlord settles the stake with every farmer: 1 vs 2 gives +-2 stake and -+1,
        # five-player 2 vs 3 gives each landlord +-3 stake and each farmer -+2, 1 vs 4 +-4 and -+1.
        stake = result.base * result.multiplier
        points = [0] * n
        for f in farmers:
            points[f] = (-stake if won else stake) * len(side)
        for landlord in side:
            points[landlord] = (stake if won else -stake) * len(farmers)
        if rules.winners_only:
            points = [max(p, 0) for p in points]
    return _done(points, penalty, _outcome(won), common, stake=stake)


def at_stake(hand: Hand, rules: RuleSet | str | None = None,
             chips: Sequence[int] | None = None) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """What each seat would get if the hand ended now (what is at stake, 输赢): the points per
    seat if the landlord won, and if he lost, at the base and multiplier so far; ``None`` while
    there is no landlord. Settled by :func:`settle` itself, so every scoring format answers in
    its own terms; the hand's penalties are left out (they are due whoever wins).

    >>> from engine.events import Deal, Bid
    >>> h = Hand.from_events("classic", [Deal(counts=(17, 17, 17)), Bid(0, "bid", 3)])
    >>> at_stake(h)
    ((6, -3, -3), (-6, 3, 3))
    """
    result = hand.result()
    if result.landlord is None:
        return None
    result = replace(result, escaped=None, conceded=None, redeal=False, abandoned=False, penalties=())
    rules = hand.rules if rules is None else rules
    win, loss = (settle(replace(result, landlord_won=won), rules, chips).points for won in (True, False))
    return win, loss


def _outcome(landlord_won: bool) -> str:
    return "landlord_won" if landlord_won else "farmers_won"


def _done(points: list[int], penalty: list[int], outcome: str, common: dict[str, Any], stake: int) -> Settlement:
    total = tuple(p + q for p, q in zip(points, penalty, strict=True))
    return Settlement(points=total, outcome=outcome, stake=stake, **common)


def _chip_transfers(landlord: int, farmers: list[int], won: bool, stake: int,
                    chips: Sequence[int] | None, n: int) -> list[int]:
    """Chips move for real: nobody pays more than he holds (the table then stops)."""
    points = [0] * n
    if won:
        for f in farmers:
            paid = stake if chips is None else min(stake, max(chips[f], 0))
            points[f] -= paid
            points[landlord] += paid
        return points
    owed = stake * len(farmers)
    have = owed if chips is None else min(owed, max(chips[landlord], 0))
    share, extra = divmod(have, len(farmers))
    for i, f in enumerate(farmers):
        paid = share + (1 if i < extra else 0)
        points[f] += paid
        points[landlord] -= paid
    return points
