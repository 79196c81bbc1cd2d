"""The reference answer for small positions, and random positions to check the solver on.

:func:`brute_force` is a plain minimax over every play of every seat, in the order the
plays are found (no move ordering, no pruning beyond stopping at the first win), with a memo
so that small positions finish. It shares no code with the search: its plays come from
:func:`engine.legal.brute_force_plays` (every sub-multiset classified and compared with
``beats``), and it counts passes itself instead of deriving them from the seat that played.

>>> from engine.solver.position import Position
>>> brute_force(Position.from_cards(["3 4", "5", "6 6"], landlord=0))
False
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from engine.bidding import next_seat
from engine.cards import Card, full_deck
from engine.classify import NRANKS, classify, to_combination
from engine.combination import Combination
from engine.legal import brute_force_plays, legal_plays
from engine.rules import RuleSet, get_rules
from engine.solver.position import Position, check_rules

#: A position larger than this many cards in all is refused: the reference is exhaustive.
MAX_CARDS = 24
#: The readings still to beat in the current trick (empty: a lead).
Trick = frozenset[Combination]


def brute_force(position: Position) -> bool:
    """Whether the landlord wins, by exhaustive minimax. For tests on small positions."""
    rules = position.rules
    total = sum(position.cards_left)
    if total > MAX_CARDS:
        raise ValueError(f"brute force is for small positions ({MAX_CARDS} cards at most), not {total}")
    n = rules.players
    groups = [[Card(r)] * 8 for r in range(NRANKS)]
    memo: dict[tuple[object, ...], bool] = {}
    plays_memo: dict[tuple[tuple[int, ...], Trick], dict[tuple[int, ...], Trick]] = {}

    def follows(counts: tuple[int, ...], trick: Trick) -> dict[tuple[int, ...], Trick]:
        """Each card multiset the hand may play, with its readings that may be played now."""
        if (counts, trick) in plays_memo:
            return plays_memo[counts, trick]
        found: dict[tuple[int, ...], set[Combination]] = {}
        for prev in trick or (None,):
            for play in brute_force_plays(counts, prev, rules):
                taken = [0] * NRANKS
                for rank, start, stop in play[3] + play[4]:
                    taken[rank] += stop - start
                found.setdefault(tuple(taken), set()).add(to_combination(play, groups))
        out = plays_memo[counts, trick] = {k: frozenset(v) for k, v in found.items()}
        return out

    def value(hands: tuple[tuple[int, ...], ...], turn: int, trick: Trick, by: int | None, passes: int) -> bool:
        key = (hands, turn, trick, by, passes)
        if key in memo:
            return memo[key]
        nxt = next_seat(turn, n, rules.seat_order)

        def outcomes() -> Iterator[bool]:  # whether the landlord wins after each move, found lazily
            for taken, readings in follows(hands[turn], trick).items():
                left = tuple(a - b for a, b in zip(hands[turn], taken, strict=True))
                if not any(left):
                    yield turn == position.landlord
                else:
                    yield value(hands[:turn] + (left,) + hands[turn + 1:], nxt, readings, turn, 0)
            if trick:  # passing; the trick ends when every other seat has passed
                if passes + 1 == n - 1:
                    yield value(hands, nxt, frozenset(), None, 0)
                else:
                    yield value(hands, nxt, trick, by, passes + 1)

        if turn == position.landlord:
            result = any(outcomes())
        else:
            result = all(outcomes())
        memo[key] = result
        return result

    return value(position.hands, position.turn, frozenset(position.to_beat), position.by, position.passes)


def random_position(rng: random.Random, cards: int | Sequence[int], rules: RuleSet | str = "classic",
                    lead_share: float = 0.5) -> Position:
    """A random position: ``cards`` per seat (or one count per seat) dealt from a shuffled
    deck, a random landlord and seat to move, and about half the time a trick to beat: a
    random play of cards nobody holds, made by another seat, with the seats between passed.

    >>> p = random_position(random.Random(1), 3)
    >>> p.cards_left
    (3, 3, 3)
    """
    rules = check_rules(get_rules(rules))
    n = rules.players
    sizes = [cards] * n if isinstance(cards, int) else list(cards)
    if len(sizes) != n or any(k < 1 for k in sizes) or sum(sizes) > rules.deck_size:
        raise ValueError(f"cards per seat must be {n} counts of at least 1 that the deck can deal")
    deck = full_deck(rules.decks)
    rng.shuffle(deck)
    hands, at = [], 0
    for k in sizes:
        hands.append(deck[at:at + k])
        at += k
    landlord, turn = rng.randrange(n), rng.randrange(n)
    rest = deck[at:]
    if rng.random() < lead_share or not rest:
        return Position.from_cards(hands, landlord, turn, rules=rules)
    plays = legal_plays(rng.sample(rest, min(len(rest), 8)), None, rules)
    play = rng.choice(plays)
    passes = rng.randrange(n - 1)
    by = turn
    for _ in range(passes + 1):  # walk back from the seat to move to the seat that played
        by = next_seat(by, n, "cw" if rules.seat_order == "ccw" else "ccw")
    return Position.from_cards(hands, landlord, turn, to_beat=classify(play.cards, rules), by=by, rules=rules)
