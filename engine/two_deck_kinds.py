"""Combinations only two-deck games have: the 斗帝主 quad family and the five-player joker bombs.

Rank level, like :mod:`engine.classify`: a hand or a play is a 15-entry tuple of rank counts,
and a play comes out as ``(kind, main, length, core, kickers)`` with ``core``/``kickers`` as
``{rank: count}``; the callers turn these into rank-level plays and cards.

斗帝主 (preset ``dizhu``, option ``quads``) [003]:

- ``quad`` 四同张: four of a rank (five or more of a rank are bombs there).
- ``quad_chain`` 连四同张: ``quad_chain_min`` (2) or more consecutive quads, 3 up to A.
- ``quad_trio`` 四带三: a quad and a trio of another rank.
- ``carrier`` 航母: a quad chain and as many trios, each of its own rank (not necessarily
  consecutive: the seed asks that only of the spaceship).
- ``dress`` 连衣裙: a quad, a trio and a pair, three ranks; compared by the quad.
- ``spaceship`` 飞船: a quad chain, as many consecutive trios (3 up to A) and as many pairs;
  compared by the quad chain, then the trio chain. Its core holds the quads and the trios.

Kickers never share a rank with the core or with each other (the seed's "数量相同的三同张"
reads as that many trios, each a rank of its own). Jokers never make a trio; two identical
jokers make a pair where ``joker_pairs`` says so.

Five-player joker bombs (``bomb_ladder`` steps ``JJ``/``JJJ``) [003]: ``double_joker`` 双王 is
two big or two small jokers (main: that joker), ``triple_joker`` 三王 any three jokers (main: the
small joker, so all three-joker bombs tie). Four jokers are the rocket.

>>> from engine.rules import get_rules
>>> counts = (4, 4, 3, 3) + (0,) * 11                       # 3333 4444 555 666
>>> [k[:3] for k in classify_quads(counts, 14, get_rules("dizhu"))]
[('carrier', 0, 2)]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from itertools import combinations

from engine.cards import BJ, RJ
from engine.combination import Combination
from engine.rules import RuleSet, ladder_steps

Shape = tuple[str, int, int, dict[int, int], dict[int, int]]

#: The ladder step each joker bomb stands on.
JOKER_STEP = {"double_joker": "JJ", "triple_joker": "JJJ"}


def bomb_key(kind: str, main: int, length: int, rules: RuleSet) -> tuple[int, int]:
    """What a bomb (not the rocket) is worth against another: higher wins, equal ties.

    With a ladder: its step, then rank. Otherwise cards then rank (``bomb_size_first``), or
    rank then cards.
    """
    if rules.bomb_ladder:
        step = JOKER_STEP.get(kind) or str(length)
        return ladder_steps(rules.bomb_ladder)[step], main
    if rules.bomb_size_first:
        return length, main
    return main, length


def ladder_doubles(kind: str, length: int, rules: RuleSet) -> bool:
    """Under a ladder: a bomb doubles from the step of a ``double_min_bomb``-card bomb up
    (five-player: 5, 6, three jokers, 7, 8; not 4 nor two jokers)."""
    steps = ladder_steps(rules.bomb_ladder)
    floor = steps.get(str(rules.double_min_bomb), 0)
    return steps[JOKER_STEP.get(kind) or str(length)] >= floor


def joker_sizes(rules: RuleSet) -> tuple[int, ...]:
    """Joker bombs below the rocket the rules have: (2,), (3,), (2, 3) or ()."""
    if not rules.bomb_ladder:
        return ()
    steps = ladder_steps(rules.bomb_ladder)
    return tuple(n for n, step in ((2, "JJ"), (3, "JJJ")) if step in steps)


def spaceship_trio_low(core_counts: dict[int, int]) -> int:
    """The low rank of a spaceship's trio chain (its second comparison key)."""
    return min(r for r, k in core_counts.items() if k == 3)


def second_key(combo: Combination) -> int:
    """What breaks a tie of main ranks: a spaceship's trio chain (0 for every other type)."""
    if combo.type != "spaceship":
        return 0
    return spaceship_trio_low(Counter(card.rank for card in combo.core))


# --- classification ---------------------------------------------------------------------------


def classify_jokers(counts: tuple[int, ...], n: int, rules: RuleSet) -> list[Shape]:
    """Two identical jokers or three jokers, where the ladder has them."""
    b, r = counts[BJ], counts[RJ]
    if n != b + r or n not in joker_sizes(rules):
        return []
    if n == 2 and (b == 2 or r == 2):
        rank = BJ if b else RJ
        return [("double_joker", rank, 2, {rank: 2}, {})]
    if n == 3:
        return [("triple_joker", BJ, 3, {BJ: b, RJ: r}, {})]
    return []


def _pairable(rank: int, rules: RuleSet) -> bool:
    return rank < BJ or rules.joker_pairs


def classify_quads(counts: tuple[int, ...], n: int, rules: RuleSet) -> list[Shape]:
    """The quad-family readings with kickers or a spaceship's trios (quads and quad chains
    are read with the other single-rank and chain shapes)."""
    out: list[Shape] = []
    exact = {r for r in range(BJ) if counts[r] == 4}  # a core quad uses its rank's every card
    if not exact:
        return out
    rest = {r: k for r, k in enumerate(counts) if k}
    if n in (7, 9):
        for q in sorted(exact):
            kick = {r: k for r, k in rest.items() if r != q}
            sizes = sorted(kick.values())
            trio = next((r for r, k in kick.items() if k == 3), None)
            if trio is None or trio >= BJ:
                continue
            if n == 7 and sizes == [3]:
                out.append(("quad_trio", q, 1, {q: 4}, kick))
            elif n == 9 and sizes == [2, 3] and _pairable(next(r for r, k in kick.items() if k == 2), rules):
                out.append(("dress", q, 1, {q: 4}, kick))
    for k in range(rules.quad_chain_min, len(exact) + 1):
        for lo in range(0, rules.chain_high - k + 2):
            window = range(lo, lo + k)
            if not all(r in exact for r in window):
                continue
            others = {r: c for r, c in rest.items() if r not in window}
            core = dict.fromkeys(window, 4)
            if n == 7 * k and len(others) == k and all(c == 3 and r < BJ for r, c in others.items()):
                out.append(("carrier", lo, k, core, others))
            if n == 9 * k:
                out.extend(_spaceships(lo, k, core, others, rules))
    return out


def _spaceships(lo: int, k: int, core: dict[int, int], others: dict[int, int], rules: RuleSet) -> Iterator[Shape]:
    trios = sorted(r for r, c in others.items() if c == 3 and r <= rules.chain_high)
    pairs = {r for r, c in others.items() if c == 2}
    if len(trios) != k or len(pairs) != k or len(others) != 2 * k:
        return
    if trios[-1] - trios[0] + 1 == k and all(_pairable(r, rules) for r in pairs):
        yield ("spaceship", lo, k, core | dict.fromkeys(trios, 3), {r: 2 for r in sorted(pairs)})


# --- generation --------------------------------------------------------------------------------


def _runs(counts: tuple[int, ...], each: int, min_len: int, high: int, lo_from: int) -> Iterator[tuple[int, int]]:
    """(low rank, length) of every chain of ``each`` cards per rank the hand holds."""
    for lo in range(max(lo_from, 0), high + 1):
        n = 0
        while lo + n <= high and counts[lo + n] >= each:
            n += 1
            if n >= min_len:
                yield lo, n


def gen_quad_trio(c: tuple[int, ...], floor: int, dress: bool, rules: RuleSet) -> Iterator[Shape]:
    """Quad + trio (``dress``: + a pair) on every quad above ``floor``."""
    for q in range(max(floor + 1, 0), BJ):
        if c[q] < 4:
            continue
        for t in range(BJ):
            if t == q or c[t] < 3:
                continue
            if not dress:
                yield ("quad_trio", q, 1, {q: 4}, {t: 3})
                continue
            for p in range(RJ + 1):
                if p not in (q, t) and c[p] >= 2 and _pairable(p, rules):
                    yield ("dress", q, 1, {q: 4}, {t: 3, p: 2})


def gen_carrier(c: tuple[int, ...], length: int | None, floor: int, rules: RuleSet) -> Iterator[Shape]:
    for lo, k in _runs(c, 4, rules.quad_chain_min, rules.chain_high, floor + 1):
        if length is not None and k != length:
            continue
        window = range(lo, lo + k)
        spare = [r for r in range(BJ) if r not in window and c[r] >= 3]
        for trios in combinations(spare, k):
            yield ("carrier", lo, k, dict.fromkeys(window, 4), dict.fromkeys(trios, 3))


def gen_spaceship(c: tuple[int, ...], length: int | None, floor: int, rules: RuleSet) -> Iterator[Shape]:
    """Spaceships whose quad chain is not below ``floor`` + 1 ... and since an equal quad chain
    may still win on its trios, the caller filters on the full key."""
    high = rules.chain_high
    for lo, k in _runs(c, 4, rules.quad_chain_min, high, floor + 1):
        if length is not None and k != length:
            continue
        window = set(range(lo, lo + k))
        for t in range(0, high - k + 2):
            trio_ranks = range(t, t + k)
            if any(r in window or c[r] < 3 for r in trio_ranks):
                continue
            used = window | set(trio_ranks)
            spare = [r for r in range(RJ + 1) if r not in used and c[r] >= 2 and _pairable(r, rules)]
            core = dict.fromkeys(sorted(window), 4) | dict.fromkeys(trio_ranks, 3)
            for pairs in combinations(spare, k):
                yield ("spaceship", lo, k, core, dict.fromkeys(pairs, 2))


def gen_jokers(c: tuple[int, ...], rules: RuleSet) -> Iterator[Shape]:
    sizes = joker_sizes(rules)
    if 2 in sizes:
        for rank in (BJ, RJ):
            if c[rank] >= 2:
                yield ("double_joker", rank, 2, {rank: 2}, {})
    if 3 in sizes:
        for b in (1, 2):
            if c[BJ] >= b and c[RJ] >= 3 - b:
                yield ("triple_joker", BJ, 3, {BJ: b, RJ: 3 - b}, {})
