"""Legal moves: every play a known hand can make on the current trick (or as a lead).

Generation works on the hand's rank counts and is cached per (counts, previous play) and
rule set; the plays are then mapped onto the hand's cards. One play is returned per
distinct rank-level combination (type, main, length, core ranks, kicker ranks): where a
hand holds several cards of a rank, the play uses that rank's first cards in suit order
``s h d c`` (unknown suits last), the core before the kickers. So ``legal_plays`` answers
"which combinations can this hand play", not "which physical card subsets".

>>> from engine.classify import classify
>>> [str(c) for c in legal_plays("3 4 4 BJ RJ", classify("3")[0])]
['single(4)', 'single(BJ)', 'single(RJ)', 'rocket(BJ RJ)']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from itertools import product

from engine import compiled_plays, rank_plays
from engine.cards import Card, as_cards
from engine.classify import (
    NRANKS,
    RankPlay,
    beats,
    classify_counts,
    combinations,
    group_by_rank,
    kicker_shape,
    to_combination,
)
from engine.combination import TYPES, Combination
from engine.rank_plays import PrevKey, generate
from engine.rules import CLASSIC, RuleSet
from engine.two_deck_kinds import second_key

__all__ = ["legal_plays", "rank_legal_plays", "brute_force_plays", "clear_caches", "prev_key"]

_CACHES: dict[int, tuple[RuleSet, Callable[[tuple[int, ...], PrevKey], tuple[RankPlay, ...]]]] = {}


def clear_caches(plays: bool = False) -> None:
    """Forget every cached answer; with ``plays`` also the table of built rank-level plays.

    Benchmarks measure the cold path with this. The play table holds values that depend on
    no hand (333+4 is always the same rank-level play), so a running process keeps it.
    """
    _CACHES.clear()
    if plays:
        rank_plays.clear_memo()


def rank_legal_plays(counts: tuple[int, ...], prev: PrevKey, rules: RuleSet = CLASSIC) -> tuple[RankPlay, ...]:
    """Rank-level legal plays for a 15-entry rank-count tuple; ``prev`` as (type, main, length, size)
    (a spaceship adds its trio chain's low rank: :func:`prev_key`)."""
    entry = _CACHES.get(id(rules))
    if entry is None or entry[0] is not rules:
        if len(_CACHES) >= 16:  # rule sets made on the fly must not pile up
            del _CACHES[next(iter(_CACHES))]
        entry = (rules, lru_cache(maxsize=1 << 15)(lambda c, p: generate(c, p, rules)))
        _CACHES[id(rules)] = entry
    return entry[1](counts, prev)


def legal_plays(
    hand_cards: str | Iterable[Card], prev: Combination | None = None, rules: RuleSet = CLASSIC
) -> list[Combination]:
    """Every distinct combination the hand can play on ``prev`` (every lead when ``prev`` is None).
    The compiled core answers where it is built (:mod:`engine.compiled_plays`): the same plays in
    the same order as the Python generators, which answer elsewhere.

    One Combination per rank-level play, in ``classify``'s order, made of the hand's own cards
    (each rank's first cards in suit order to the core, the next to the kickers). Passing is
    always allowed when following and is not listed. Bad card text raises ``ValueError``.
    """
    if prev is not None and prev.type not in TYPES:
        raise ValueError(f"unknown combination type {prev.type!r}")
    groups = group_by_rank(as_cards(hand_cards))
    made = compiled_plays.legal(groups, prev, rules)  # the compiled core, where it is built
    if made is not None:
        return made
    key = prev_key(prev)
    plays = rank_legal_plays(tuple(map(len, groups)), key, rules)
    return combinations(plays, groups)


def prev_key(prev: Combination | None) -> PrevKey:
    """The rank-level key of the play to beat: (type, main, length, size), and for a spaceship
    its trio chain too (the tie-break of an equal quad chain)."""
    if prev is None:
        return None
    if prev.type == "spaceship":
        return prev.type, prev.main, prev.length, prev.size, second_key(prev)
    return prev.type, prev.main, prev.length, prev.size


def brute_force_plays(counts: tuple[int, ...], prev: Combination | None, rules: RuleSet = CLASSIC) -> set[RankPlay]:
    """Reference answer, slow: classify every sub-multiset of the hand's ranks and keep the
    readings that beat ``prev``. Shares no code with the generators above; tests and the
    benchmark check :func:`rank_legal_plays` against it.

    For speed it skips the sub-multisets that :func:`classify_counts` rejects on its first
    line (unequal counts that :func:`kicker_shape` rules out); a wrong skip there would show
    up as a play the generators find and this does not.
    """
    groups = [(Card(r),) * k for r, k in enumerate(counts)]
    found: set[RankPlay] = set()
    for sub in product(*(range(k + 1) for k in counts)):
        m, t = sum(sub), max(sub)
        if (NRANKS - sub.count(0)) * t == m or kicker_shape(m, t, rules):
            for play in classify_counts(sub, rules):
                if prev is None or beats(to_combination(play, groups), prev, rules):
                    found.add(play)
    return found
