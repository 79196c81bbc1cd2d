"""Rank-level move generation: every play a hand's rank counts allow, type by type.

Each generator appends plays (see :data:`engine.classify.RankPlay`) in the order ``classify``
sorts readings (length, main, kickers), so a lead or a follow needs no final sort beyond
putting chains of several lengths in order. Plays are built once and memoised: the same
``trio_single`` 333+4 turns up in many hands.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from operator import itemgetter

from engine import two_deck_kinds as two
from engine.cards import ACE, BJ, RJ, TWO
from engine.classify import NRANKS, RankPlay, chain_position, make_play, play_sort_key
from engine.combination import BOMB_TYPES, TYPES
from engine.rules import RuleSet

#: The play to beat as (type, main, length, size), or with a fifth entry, the tie-break of
#: ``engine.two_deck_kinds.second_key`` (a spaceship's trio chain); None: a lead.
PrevKey = tuple[str, int, int, int] | tuple[str, int, int, int, int] | None

_MEMO: dict[tuple[object, ...], RankPlay] = {}
_MEMO_MAX = 1 << 19
_LENGTH_MAIN = itemgetter(2, 1)


def clear_memo() -> None:
    _MEMO.clear()


def _play(key: tuple[object, ...], kind: str, main: int, length: int, core: dict[int, int], kick: dict[int, int]) -> RankPlay:
    play = _MEMO.get(key)
    if play is None:
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.clear()
        play = _MEMO[key] = make_play(kind, main, length, core, kick)
    return play


def _multisets(caps: list[tuple[int, int]], k: int, start: int = 0) -> Iterator[tuple[tuple[int, int], ...]]:
    """Every way to take ``k`` cards from ranks with caps [(rank, cap)], as ((rank, taken), ...).

    Ranks ascend, and for one rank fewer cards come first: the order of sorted kicker spans.
    """
    if k == 0:
        yield ()
        return
    if k == 2 and start == 0:  # four-with-two and two-trio airplanes: the common case, unrolled
        for i, (r, cap) in enumerate(caps):
            for s in caps[i + 1:]:
                yield ((r, 1), (s[0], 1))
            if cap >= 2:
                yield ((r, 2),)
        return
    for i in range(start, len(caps)):
        r, cap = caps[i]
        for take in range(1, min(cap, k) + 1):
            for rest in _multisets(caps, k - take, i + 1):
                yield ((r, take), *rest)


class MoveGen:
    """The plays of one hand (rank counts) under one rule set, appended to ``out``.

    Each type's method takes ``length`` (None: every length) and ``floor``: only plays whose
    chain position is above it are made, so following a trick builds only what can follow.
    """

    def __init__(self, counts: tuple[int, ...], rules: RuleSet) -> None:
        self.c = counts
        self.rules = rules
        self.out: list[RankPlay] = []

    def _pool(self, core: dict[int, int]) -> list[int]:
        """Cards left for kickers per rank; a core rank's spare cards only where the rules allow."""
        pool = list(self.c)
        spare = self.rules.kicker_core_rank
        for r, k in core.items():
            pool[r] = pool[r] - k if spare else 0
        return pool

    def _pair_top(self) -> int:
        return NRANKS if self.rules.joker_pairs else BJ

    def single(self, length: int | None = None, floor: int = -9) -> None:
        c, memo = self.c, _MEMO
        self.out += [
            memo.get(("single", r)) or _play(("single", r), "single", r, 1, {r: 1}, {})
            for r in range(max(floor + 1, 0), NRANKS)
            if c[r]
        ]

    def pair(self, length: int | None = None, floor: int = -9) -> None:
        c, memo = self.c, _MEMO
        self.out += [
            memo.get(("pair", r)) or _play(("pair", r), "pair", r, 1, {r: 2}, {})
            for r in range(max(floor + 1, 0), self._pair_top())
            if c[r] >= 2
        ]

    def trio(self, length: int | None = None, floor: int = -9) -> None:
        c, memo = self.c, _MEMO
        self.out += [
            memo.get(("trio", r)) or _play(("trio", r), "trio", r, 1, {r: 3}, {})
            for r in range(max(floor + 1, 0), BJ)
            if c[r] >= 3
        ]

    def bomb(self, length: int | None = None, floor: int = -9) -> None:
        c, low, high = self.c, self.rules.bomb_min, self.rules.bomb_max
        ranks = [r for r in range(BJ) if c[r] >= low]
        for size in range(low, high + 1) if length is None else (length,):
            for r in ranks:
                if c[r] >= size:
                    self.out.append(_play(("bomb", r, size), "bomb", r, size, {r: size}, {}))

    def rocket(self, length: int | None = None, floor: int = -9) -> None:
        half = self.rules.rocket_jokers // 2
        if self.c[BJ] >= half and self.c[RJ] >= half:
            self.out.append(_play(("rocket", half), "rocket", BJ, 2 * half, {BJ: half, RJ: half}, {}))

    def _runs(self, each: int, min_len: int, length: int | None, floor: int) -> Iterator[tuple[int, int]]:
        """(low rank, length) of every chain of ``each`` cards per rank the hand holds."""
        c, high = self.c, self.rules.chain_high
        for lo in range(max(floor + 1, 0), high + 1):
            n = 0
            while lo + n <= high and c[lo + n] >= each:
                n += 1
                if n >= min_len and (length is None or n == length):
                    yield lo, n

    def _chains(self, kind: str, each: int, min_len: int, length: int | None, floor: int) -> None:
        memo = _MEMO
        for lo, n in self._runs(each, min_len, length, floor):
            key = (kind, lo, n)
            self.out.append(memo.get(key) or _play(key, kind, lo, n, dict.fromkeys(range(lo, lo + n), each), {}))

    def straight(self, length: int | None = None, floor: int = -9) -> None:
        rules = self.rules
        self._chains("straight", 1, rules.straight_min, length, floor)
        if not rules.low_straights:
            return
        # A and 2 play as the two cards below 3: A2345... and 23456...
        for low in (ACE, TWO):
            ranks = [ACE, TWO] if low == ACE else [TWO]
            if chain_position("straight", low) <= floor or not all(self.c[r] for r in ranks):
                continue
            for r in range(0, ACE if low == ACE else ACE + 1):
                if not self.c[r]:
                    break
                ranks.append(r)
                n = len(ranks)
                if n >= rules.straight_min and (length is None or n == length):
                    self.out.append(_play(("straight", low, n), "straight", low, n, dict.fromkeys(ranks, 1), {}))

    def pair_straight(self, length: int | None = None, floor: int = -9) -> None:
        self._chains("pair_straight", 2, self.rules.pair_chain_min, length, floor)

    def airplane(self, length: int | None = None, floor: int = -9) -> None:
        self._chains("airplane", 3, self.rules.trio_chain_min, length, floor)

    def trio_single(self, length: int | None = None, floor: int = -9) -> None:
        if not self.rules.trio_single:
            return
        c, memo, out = self.c, _MEMO, self.out
        for r in range(max(floor + 1, 0), BJ):
            if c[r] >= 3:
                core = {r: 3}
                pool = self._pool(core)
                for x in range(NRANKS):
                    if pool[x]:
                        key = ("trio_single", r, x)
                        out.append(memo.get(key) or _play(key, "trio_single", r, 1, core, {x: 1}))

    def trio_pair(self, length: int | None = None, floor: int = -9) -> None:
        if not self.rules.trio_pair:
            return
        c, memo, out = self.c, _MEMO, self.out
        for r in range(max(floor + 1, 0), BJ):
            if c[r] >= 3:
                core = {r: 3}
                pool = self._pool(core)
                for x in range(self._pair_top()):
                    if pool[x] >= 2:
                        key = ("trio_pair", r, x)
                        out.append(memo.get(key) or _play(key, "trio_pair", r, 1, core, {x: 2}))

    def _with_kickers(self, kind: str, main: int, length: int, core: dict[int, int], caps: list[tuple[int, int]],
                      k: int, per_unit: int, no_rocket: bool) -> None:
        """Append ``kind`` with every choice of ``k`` kicker units (cards or pairs) from caps."""
        memo, out = _MEMO, self.out
        for kick in _multisets(caps, k):
            if no_rocket and len(kick) >= 2 and kick[-1][0] == RJ and kick[-2][0] == BJ:
                continue
            key = (kind, main, length, kick)
            play = memo.get(key)
            if play is None:
                play = _play(key, kind, main, length, core, {r: per_unit * t for r, t in kick})
            out.append(play)

    def four_two_single(self, length: int | None = None, floor: int = -9) -> None:
        rules = self.rules
        if not rules.four_two:
            return
        cap = 2 if rules.four_two_single_pair else 1
        for r in range(max(floor + 1, 0), BJ):
            if self.c[r] >= 4:
                core = {r: 4}
                pool = self._pool(core)
                caps = [(x, min(pool[x], cap)) for x in range(NRANKS) if pool[x]]
                self._with_kickers("four_two_single", r, 1, core, caps, 2, 1, not rules.kicker_rocket)

    def four_two_pair(self, length: int | None = None, floor: int = -9) -> None:
        rules = self.rules
        if not rules.four_two:
            return
        cap = 2 if rules.four_two_pair_same else 1
        for r in range(max(floor + 1, 0), BJ):
            if self.c[r] >= 4:
                core = {r: 4}
                pool = self._pool(core)
                caps = [(x, min(pool[x] // 2, cap)) for x in range(self._pair_top()) if pool[x] >= 2]
                self._with_kickers("four_two_pair", r, 1, core, caps, 2, 2, False)

    def _wings(self, per: int, length: int | None, floor: int) -> Iterator[tuple[int, int, dict[int, int], list[int]]]:
        total = sum(self.c)
        for lo, n in self._runs(3, self.rules.trio_chain_min, length, floor):
            if n * per <= total:
                core = dict.fromkeys(range(lo, lo + n), 3)
                yield lo, n, core, self._pool(core)

    def airplane_single(self, length: int | None = None, floor: int = -9) -> None:
        rules = self.rules
        if not rules.trio_single:
            return
        for lo, n, core, pool in self._wings(4, length, floor):
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
            self._with_kickers("airplane_single", lo, n, core, caps, n, 1, not rules.kicker_rocket)

    def airplane_pair(self, length: int | None = None, floor: int = -9) -> None:
        rules = self.rules
        if not rules.trio_pair:
            return
        cap = NRANKS if rules.kicker_four_of_rank else 1
        for lo, n, core, pool in self._wings(5, length, floor):
            caps = [(x, min(pool[x] // 2, cap)) for x in range(self._pair_top()) if pool[x] >= 2]
            self._with_kickers("airplane_pair", lo, n, core, caps, n, 2, False)

    # --- two-deck kinds (engine.two_deck_kinds) ------------------------------------------------
    def _shapes(self, shapes: Iterable[two.Shape]) -> None:
        out = self.out
        for kind, main, length, core, kick in shapes:
            key = (kind, main, length, tuple(core.items()), tuple(kick.items()))
            out.append(_MEMO.get(key) or _play(key, kind, main, length, core, kick))

    def quad(self, length: int | None = None, floor: int = -9) -> None:
        if self.rules.quads:
            self._shapes(("quad", r, 1, {r: 4}, {}) for r in range(max(floor + 1, 0), BJ) if self.c[r] >= 4)

    def quad_chain(self, length: int | None = None, floor: int = -9) -> None:
        if self.rules.quads:
            self._chains("quad_chain", 4, self.rules.quad_chain_min, length, floor)

    def quad_trio(self, length: int | None = None, floor: int = -9) -> None:
        if self.rules.quads:
            self._shapes(two.gen_quad_trio(self.c, floor, False, self.rules))

    def dress(self, length: int | None = None, floor: int = -9) -> None:
        if self.rules.quads:
            self._shapes(two.gen_quad_trio(self.c, floor, True, self.rules))

    def carrier(self, length: int | None = None, floor: int = -9) -> None:
        if self.rules.quads:
            self._shapes(two.gen_carrier(self.c, length, floor, self.rules))

    def spaceship(self, length: int | None = None, floor: int = -9) -> None:
        if self.rules.quads:
            self._shapes(two.gen_spaceship(self.c, length, floor, self.rules))

    def double_joker(self, length: int | None = None, floor: int = -9) -> None:
        self._shapes(s for s in two.gen_jokers(self.c, self.rules) if s[0] == "double_joker")

    def triple_joker(self, length: int | None = None, floor: int = -9) -> None:
        self._shapes(s for s in two.gen_jokers(self.c, self.rules) if s[0] == "triple_joker")


# Type order of TYPES; chains of every length come out by low rank and need a sort by length.
_LEAD_ORDER = TYPES
_BY_LENGTH = {"straight", "pair_straight", "airplane", "airplane_single", "airplane_pair", "quad_chain", "carrier",
              "spaceship"}
_AFTER_BOMBS = frozenset(TYPES[TYPES.index("rocket") + 1:]) - BOMB_TYPES
ORDINARY = frozenset(_LEAD_ORDER) - BOMB_TYPES
_JOKER_BOMBS = ("double_joker", "triple_joker")


def _spaceship_trio(play: RankPlay) -> int:
    return min(r for r, a, b in play[3] if b - a == 3)


def _bombs(gen: MoveGen) -> None:
    """Every bomb, joker bomb (under a ladder) and the rocket, in type order."""
    gen.bomb()
    gen.rocket()
    if gen.rules.bomb_ladder:
        for kind in _JOKER_BOMBS:
            getattr(gen, kind)()


def generate(counts: tuple[int, ...], prev: PrevKey, rules: RuleSet) -> tuple[RankPlay, ...]:
    """Every rank-level play of ``counts`` that may follow ``prev`` (every lead if None)."""
    gen = MoveGen(counts, rules)
    out = gen.out
    if prev is None:
        for kind in _LEAD_ORDER:
            start = len(out)
            getattr(gen, kind)()
            if kind in _BY_LENGTH and len(out) - start > 1:
                out[start:] = sorted(out[start:], key=_LENGTH_MAIN)
        return tuple(out)
    kind, main, length = prev[0], prev[1], prev[2]
    if kind == "rocket":
        return ()
    if kind in BOMB_TYPES:
        _bombs(gen)
        floor = two.bomb_key(kind, main, length, rules)
        return tuple(sorted((p for p in out if p[0] == "rocket" or two.bomb_key(p[0], p[1], p[2], rules) > floor),
                            key=play_sort_key))
    if kind == "spaceship":  # an equal quad chain still wins on a higher trio chain
        _bombs(gen)
        start = len(out)
        gen.spaceship(length, main - 1)
        second = prev[4] if len(prev) > 4 else -1
        out[start:] = [p for p in out[start:] if (p[1], _spaceship_trio(p)) > (main, second)]
        return tuple(out)
    if kind in _AFTER_BOMBS:
        _bombs(gen)
        getattr(gen, kind)(length, chain_position(kind, main))
    else:
        getattr(gen, kind)(length, chain_position(kind, main))
        _bombs(gen)
    return tuple(out)
