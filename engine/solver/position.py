"""A position with every hand visible: what the solver is asked about.

A ``Position`` is the rank counts of every seat's hand (suits never decide a play in the
presets the solver knows), the landlord, whose turn it is and the trick: the readings of
the play to beat and the seat that played it (``to_beat`` empty: the seat to move leads).
The passes so far follow from ``by`` and ``turn``: the seats between them passed.

>>> p = Position.from_cards(["3 3 4", "5", "BJ RJ"], landlord=0, turn=1, to_beat="3", by=0)
>>> p.cards_left, p.passes, p.leads
((3, 1, 2), 0, False)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.bidding import next_seat
from engine.cards import BJ, Card, as_cards, rank_counts
from engine.classify import NRANKS, classify
from engine.combination import Combination
from engine.rules import CLASSIC, RuleSet, get_rules

#: Rule options the solver models (named here, not read from ``RuleSet``: an option added
#: later, such as a hidden landlord or a new combination type, differs from classic in the
#: presets that need it and is refused, not guessed). Bidding and scoring options never
#: change who goes out first.
MODELLED = frozenset("""
    players decks hand_size kitty_size kitty_shown out_of_play seat_order bidding max_bid all_pass
    third_must_bid_two redeal_penalty redeals_dissolve first_bidder trio_single trio_pair four_two
    straight_min pair_chain_min trio_chain_min chain_high low_straights joker_pairs rocket_jokers
    bomb_min bomb_max bomb_size_first airplane_kicker_repeat airplane_kicker_trio kicker_four_of_rank
    kicker_rocket kicker_core_rank four_two_single_pair four_two_pair_same scoring double_min_bomb
    rocket_doubles spring grab_doubles open_hand_multiplier escape_multiplier escape_before_bid
    announce_at winners_only target_points time_limit_min chips_start chips_base fixed_win fixed_loss
    hands_per_round
""".split())
#: Seats the solver plays: the landlord against one, two or three farmers.
SEATS = (2, 3, 4)


class UnsupportedRules(ValueError):
    """The solver does not know how to play under these rules (it refuses, never guesses).

    ``why`` names the reason for the analysis's words (:data:`engine.analysis.ANALYSIS`,
    ``why_<why>``): ``hidden`` (a hidden landlord), ``seats``, ``quota`` (the bomb quota),
    ``choice`` (the landlord chooses from the kitty) or ``options`` (rule options not modelled,
    listed in ``options``); ``rules`` is the rule set's name."""

    def __init__(self, message: str, why: str = "options", rules: str = "", options: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.why, self.rules, self.options = why, rules, options


def check_rules(rules: RuleSet | str) -> RuleSet:
    """The rule set, if the solver plays it exactly; else ``UnsupportedRules`` saying why.

    >>> check_rules("four").players
    4
    """
    rules = get_rules(rules)
    name = rules.name
    if rules.hidden_landlord:  # before the seats: the reason that holds whatever the table's size
        raise UnsupportedRules(f"{name} has a hidden landlord: who plays with whom is hidden, so an "
                               "open-hand solution is another game", "hidden", name)
    if rules.players not in SEATS:
        raise UnsupportedRules(f"the solver plays games of {', '.join(map(str, SEATS))} seats, "
                               f"not {rules.players} ({name})", "seats", name)
    if rules.bomb_quota:
        raise UnsupportedRules(f"the solver does not model the bomb quota of {name}", "quota", name)
    if rules.kitty_choice:
        raise UnsupportedRules(f"in {name} the landlord chooses cards from the kitty: the starting hand is "
                               "itself a choice the solver does not make", "choice", name)
    unknown = tuple(sorted(k for k in rules.differences() if k not in MODELLED))
    if unknown:
        raise UnsupportedRules(f"the solver does not model rule option(s) {', '.join(unknown)} ({name})",
                               "options", name, unknown)
    return rules


def counts_cards(counts: Sequence[int]) -> list[Card]:
    """Rank-only cards for rank counts (what the solver's plays are made of)."""
    return [Card(r) for r, k in enumerate(counts) for _ in range(k)]


def _readings(to_beat: object, rules: RuleSet) -> tuple[Combination, ...]:
    if to_beat is None:
        return ()
    if isinstance(to_beat, Combination):
        return (to_beat,)
    if isinstance(to_beat, list | tuple) and to_beat and all(isinstance(c, Combination) for c in to_beat):
        return tuple(to_beat)
    cards = as_cards(to_beat)  # type: ignore[arg-type]  # card text or cards, as_cards checks
    readings = tuple(classify(cards, rules)) if cards else ()
    if cards and not readings:
        raise ValueError(f"the play to beat {' '.join(map(str, cards))!r} is no combination under {rules.name}")
    return readings


@dataclass(frozen=True)
class Position:
    """Every seat's rank counts, the landlord, the seat to move and the trick to beat."""

    hands: tuple[tuple[int, ...], ...]
    landlord: int
    turn: int
    to_beat: tuple[Combination, ...] = ()
    by: int | None = None
    rules: RuleSet = CLASSIC

    def __post_init__(self) -> None:
        rules = check_rules(self.rules)
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "hands", tuple(tuple(h) for h in self.hands))
        object.__setattr__(self, "to_beat", tuple(self.to_beat))
        n = rules.players
        if len(self.hands) != n:
            raise ValueError(f"{rules.name} has {n} seats; {len(self.hands)} hands given")
        for seat, h in enumerate(self.hands):
            if len(h) != NRANKS or any(not isinstance(k, int) or k < 0 for k in h):
                raise ValueError(f"seat {seat}: a hand is {NRANKS} non-negative rank counts")
            if not sum(h):
                raise ValueError(f"seat {seat} has no cards: the hand is over")
        for r in range(NRANKS):
            most = rules.decks * (1 if r >= BJ else 4)
            if sum(h[r] for h in self.hands) > most:
                raise ValueError(f"more cards of rank {Card(r).rank_text} than {rules.decks} deck(s) hold")
        for name, seat in (("landlord", self.landlord), ("turn", self.turn)):
            if not isinstance(seat, int) or not 0 <= seat < n:
                raise ValueError(f"{name} must be a seat 0..{n - 1}, not {seat!r}")
        if self.to_beat:
            if not isinstance(self.by, int) or not 0 <= self.by < n or self.by == self.turn:
                raise ValueError("a trick to beat needs 'by', the seat that played it (not the seat to move)")
        elif self.by is not None:
            raise ValueError("'by' is given without a play to beat")

    @classmethod
    def from_cards(cls, hands: Iterable[str | Iterable[Card]], landlord: int, turn: int | None = None,
                   to_beat: object = None, by: int | None = None, rules: RuleSet | str = "classic",
                   passes: int | None = None) -> Position:
        """A position from card text or cards. ``to_beat``: cards (every reading counts), a
        ``Combination`` or a list of readings; ``turn`` defaults to the landlord, or with ``by``
        to the seat ``passes`` (default 0) seats after it."""
        rules = check_rules(rules)
        counts = [tuple(rank_counts(as_cards(h))) for h in hands]
        readings = _readings(to_beat, rules)
        if turn is None:
            if not readings:
                turn = landlord
            else:
                if by is None:
                    raise ValueError("a trick to beat needs 'by', the seat that played it")
                turn = by
                for _ in range((passes or 0) + 1):
                    turn = next_seat(turn, rules.players, rules.seat_order)
        pos = cls(tuple(counts), landlord, turn, readings, by if readings else None, rules)
        if passes is not None and readings and pos.passes != passes:
            raise ValueError(f"{passes} passes after seat {by} do not bring the turn to seat {turn}")
        return pos

    @property
    def cards_left(self) -> tuple[int, ...]:
        return tuple(sum(h) for h in self.hands)

    @property
    def leads(self) -> bool:
        return not self.to_beat

    @property
    def passes(self) -> int:
        """Seats that passed since ``by`` played (0 when the seat to move leads)."""
        if self.by is None:
            return 0
        seat, k = next_seat(self.by, self.rules.players, self.rules.seat_order), 0
        while seat != self.turn:
            seat, k = next_seat(seat, self.rules.players, self.rules.seat_order), k + 1
        return k

    def side(self, seat: int) -> bool:
        """True for the landlord's side, False for the farmers'."""
        return seat == self.landlord
