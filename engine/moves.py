"""Legal moves: every play a known hand can make on the current trick (or as a lead).

Generation works on the hand's rank counts and is cached per (counts, previous play) and
rule set; the plays are then mapped onto the hand's cards. One play is returned per
distinct rank-level combination (type, main, length, core ranks, kicker ranks): where a
hand holds several cards of a rank, the play uses that rank's first cards in suit order
``s h d c`` (unknown suits last), the core before the kickers. So ``legal_plays`` answers
"which combinations can this hand play", not "which physical card subsets".

>>> [str(c) for c in legal_plays("3 4 4 BJ RJ", classify("3")[0])]
['single(4)', 'single(BJ)', 'single(RJ)', 'rocket(BJ RJ)']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import lru_cache
from itertools import product

from engine.cards import ACE, BJ, RJ, TWO, Card, as_cards
from engine.combination import Combination
from engine.combos import (
    NRANKS,
    RankPlay,
    beats,
    chain_position,
    classify_counts,
    group_by_rank,
    make_play,
    play_sort_key,
    to_combination,
)
from engine.rules import CLASSIC, RuleSet

__all__ = ["legal_plays", "rank_legal_plays", "brute_force_plays"]

PrevKey = tuple[str, int, int, int] | None


def _multisets(caps: list[tuple[int, int]], k: int, start: int = 0) -> Iterator[dict[int, int]]:
    """Every way to take ``k`` items from ranks with per-rank caps [(rank, cap)]."""
    if k == 0:
        yield {}
        return
    for i in range(start, len(caps)):
        r, cap = caps[i]
        for take in range(min(cap, k), 0, -1):
            for rest in _multisets(caps, k - take, i + 1):
                rest[r] = take
                yield rest


def _kicker_pool(counts: tuple[int, ...], core: dict[int, int], rules: RuleSet) -> list[int]:
    """Cards left for kickers per rank; a core rank's spare cards only where the rules allow."""
    pool = list(counts)
    for r, k in core.items():
        pool[r] = pool[r] - k if rules.kicker_core_rank else 0
    return pool


def _no_rocket(kick: dict[int, int], rules: RuleSet) -> bool:
    return rules.kicker_rocket or not (kick.get(BJ) and kick.get(RJ))


class _Gen:
    """Generators of one type each over rank counts; ``length`` None means every length."""

    def __init__(self, counts: tuple[int, ...], rules: RuleSet) -> None:
        self.c = counts
        self.rules = rules
        self.out: list[RankPlay] = []

    def add(self, kind: str, main: int, length: int, core: dict[int, int], kick: dict[int, int] | None = None):
        self.out.append(make_play(kind, main, length, core, kick or {}))

    def pair_rank(self, r: int) -> bool:
        return r < BJ or self.rules.joker_pairs

    def single(self, length=None):
        for r in range(NRANKS):
            if self.c[r]:
                self.add("single", r, 1, {r: 1})

    def pair(self, length=None):
        for r in range(NRANKS):
            if self.c[r] >= 2 and self.pair_rank(r):
                self.add("pair", r, 1, {r: 2})

    def trio(self, length=None):
        for r in range(BJ):
            if self.c[r] >= 3:
                self.add("trio", r, 1, {r: 3})

    def bomb(self, length=None):
        rules = self.rules
        for r in range(BJ):
            top = min(self.c[r], rules.bomb_max)
            for size in range(rules.bomb_min, top + 1):
                if length is None or size == length:
                    self.add("bomb", r, size, {r: size})

    def rocket(self, length=None):
        half = self.rules.rocket_jokers // 2
        if self.c[BJ] >= half and self.c[RJ] >= half:
            self.add("rocket", BJ, 2 * half, {BJ: half, RJ: half})

    def _runs(self, each: int, min_len: int, length: int | None) -> Iterator[tuple[int, int]]:
        """(low rank, length) of every chain of ``each`` cards per rank the hand holds."""
        c, high = self.c, self.rules.chain_high
        for lo in range(high + 1):
            n = 0
            while lo + n <= high and c[lo + n] >= each:
                n += 1
                if n >= min_len and (length is None or n == length):
                    yield lo, n

    def straight(self, length=None):
        rules = self.rules
        for lo, n in self._runs(1, rules.straight_min, length):
            self.add("straight", lo, n, dict.fromkeys(range(lo, lo + n), 1))
        if rules.low_straights:
            # A and 2 play as the two cards below 3: A2345... and 23456...
            for low in (ACE, TWO):
                ranks = ([ACE] if low == ACE else []) + [TWO]
                if not all(self.c[r] for r in ranks):
                    continue
                for r in range(0, ACE if low == ACE else ACE + 1):
                    if not self.c[r]:
                        break
                    ranks.append(r)
                    n = len(ranks)
                    if n >= rules.straight_min and (length is None or n == length):
                        self.add("straight", low, n, dict.fromkeys(ranks, 1))

    def pair_straight(self, length=None):
        for lo, n in self._runs(2, self.rules.pair_chain_min, length):
            self.add("pair_straight", lo, n, dict.fromkeys(range(lo, lo + n), 2))

    def airplane(self, length=None):
        for lo, n in self._runs(3, self.rules.trio_chain_min, length):
            self.add("airplane", lo, n, dict.fromkeys(range(lo, lo + n), 3))

    def trio_single(self, length=None):
        if not self.rules.trio_single:
            return
        for r in range(BJ):
            if self.c[r] >= 3:
                core = {r: 3}
                pool = _kicker_pool(self.c, core, self.rules)
                for x in range(NRANKS):
                    if pool[x]:
                        self.add("trio_single", r, 1, core, {x: 1})

    def trio_pair(self, length=None):
        if not self.rules.trio_pair:
            return
        for r in range(BJ):
            if self.c[r] >= 3:
                core = {r: 3}
                pool = _kicker_pool(self.c, core, self.rules)
                for x in range(NRANKS):
                    if pool[x] >= 2 and self.pair_rank(x):
                        self.add("trio_pair", r, 1, core, {x: 2})

    def four_two_single(self, length=None):
        rules = self.rules
        if not rules.four_two:
            return
        cap = 2 if rules.four_two_single_pair else 1
        for r in range(BJ):
            if self.c[r] >= 4:
                core = {r: 4}
                pool = _kicker_pool(self.c, core, rules)
                caps = [(x, min(pool[x], cap)) for x in range(NRANKS) if pool[x]]
                for kick in _multisets(caps, 2):
                    if _no_rocket(kick, rules):
                        self.add("four_two_single", r, 1, core, kick)

    def four_two_pair(self, length=None):
        rules = self.rules
        if not rules.four_two:
            return
        cap = 2 if rules.four_two_pair_same else 1
        for r in range(BJ):
            if self.c[r] >= 4:
                core = {r: 4}
                pool = _kicker_pool(self.c, core, rules)
                caps = [(x, min(pool[x] // 2, cap)) for x in range(NRANKS) if pool[x] >= 2 and self.pair_rank(x)]
                for pairs in _multisets(caps, 2):
                    self.add("four_two_pair", r, 1, core, {x: 2 * m for x, m in pairs.items()})

    def _wings(self, kind: str, per: int, length: int | None) -> Iterator[tuple[int, int, dict, list]]:
        rules = self.rules
        if kind == "airplane_single" and not rules.trio_single:
            return
        if kind == "airplane_pair" and not rules.trio_pair:
            return
        total = sum(self.c)
        for lo, n in self._runs(3, rules.trio_chain_min, length):
            if n * per <= total:
                core = dict.fromkeys(range(lo, lo + n), 3)
                yield lo, n, core, _kicker_pool(self.c, core, rules)

    def airplane_single(self, length=None):
        rules = self.rules
        for lo, n, core, pool in self._wings("airplane_single", 4, length):
            caps = []
            for x in range(NRANKS):
                cap = pool[x]
                if not cap:
                    continue
                if not rules.airplane_kicker_repeat:
                    cap = 1
                if not rules.airplane_kicker_trio or (x in (lo - 1, lo + n) and x <= rules.chain_high):
                    cap = min(cap, 2)  # a trio beside the chain would only lengthen it
                if not rules.kicker_four_of_rank:
                    cap = min(cap, 3)
                caps.append((x, cap))
            for kick in _multisets(caps, n):
                if _no_rocket(kick, rules):
                    self.add("airplane_single", lo, n, core, kick)

    def airplane_pair(self, length=None):
        rules = self.rules
        for lo, n, core, pool in self._wings("airplane_pair", 5, length):
            cap = 99 if rules.kicker_four_of_rank else 1
            caps = [(x, min(pool[x] // 2, cap)) for x in range(NRANKS) if pool[x] >= 2 and self.pair_rank(x)]
            for pairs in _multisets(caps, n):
                self.add("airplane_pair", lo, n, core, {x: 2 * m for x, m in pairs.items()})


_ORDINARY = (
    "single", "pair", "trio", "trio_single", "trio_pair", "straight", "pair_straight",
    "airplane", "airplane_single", "airplane_pair", "four_two_single", "four_two_pair",
)


def _generate(counts: tuple[int, ...], prev: PrevKey, rules: RuleSet) -> tuple[RankPlay, ...]:
    gen = _Gen(counts, rules)
    if prev is None:
        for kind in _ORDINARY:
            getattr(gen, kind)()
        gen.bomb()
        gen.rocket()
        gen.out.sort(key=play_sort_key)
        return tuple(gen.out)
    kind, main, length, size = prev
    if kind == "rocket":
        return ()
    if kind == "bomb":
        gen.bomb()
        key = (lambda p: (p[2], p[1])) if rules.bomb_size_first else (lambda p: (p[1], p[2]))
        floor = (length, main) if rules.bomb_size_first else (main, length)
        plays = [p for p in gen.out if key(p) > floor]
    else:
        getattr(gen, kind)(length)
        floor = chain_position(kind, main)
        plays = [p for p in gen.out if chain_position(kind, p[1]) > floor and p[2] == length]
        gen.out = []
        gen.bomb()
        plays += gen.out
    gen.out = []
    gen.rocket()
    plays += gen.out
    plays.sort(key=play_sort_key)
    return tuple(plays)


_CACHES: dict[int, tuple[RuleSet, object]] = {}


def rank_legal_plays(counts: tuple[int, ...], prev: PrevKey, rules: RuleSet = CLASSIC) -> tuple[RankPlay, ...]:
    """Rank-level legal plays for a 15-entry rank-count tuple; ``prev`` as (type, main, length, size)."""
    entry = _CACHES.get(id(rules))
    if entry is None or entry[0] is not rules:
        entry = (rules, lru_cache(maxsize=1 << 15)(lambda c, p: _generate(c, p, rules)))
        _CACHES[id(rules)] = entry
    return entry[1](counts, prev)


def legal_plays(
    hand_cards: str | Iterable[Card], prev: Combination | None = None, rules: RuleSet = CLASSIC
) -> list[Combination]:
    """Every distinct combination the hand can play on ``prev`` (every lead when ``prev`` is None)."""
    if prev is not None and prev.type not in _ORDINARY and prev.type not in ("bomb", "rocket"):
        raise ValueError(f"unknown combination type {prev.type!r}")
    groups = group_by_rank(as_cards(hand_cards))
    key = None if prev is None else (prev.type, prev.main, prev.length, prev.size)
    plays = rank_legal_plays(tuple(map(len, groups)), key, rules)
    return [to_combination(p, groups) for p in plays]


def brute_force_plays(counts: tuple[int, ...], prev: Combination | None, rules: RuleSet = CLASSIC) -> set[RankPlay]:
    """Reference answer, slow: classify every sub-multiset of the hand's ranks and keep the
    readings that beat ``prev``. Shares no code with the generators above; tests and the
    benchmark check :func:`rank_legal_plays` against it.

    For speed it skips the sub-multisets that :func:`classify_counts` rejects on its first
    line (unequal counts without a trio, or a size no kicker shape has); a wrong skip there
    would show up as a play the generators find and this does not.
    """
    groups = [(Card(r),) * k for r, k in enumerate(counts)]
    found: set[RankPlay] = set()
    for sub in product(*(range(k + 1) for k in counts)):
        m, t = sum(sub), max(sub)
        if (NRANKS - sub.count(0)) * t == m or (t >= 3 and (m % 4 == 0 or m % 5 == 0 or m == 6)):
            for play in classify_counts(sub, rules):
                if prev is None or beats(to_combination(play, groups), prev, rules):
                    found.add(play)
    return found
