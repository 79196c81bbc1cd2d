"""Reading plays: every combination (牌型) a set of cards can be, and which one beats which.

Classification works on the rank-count signature of the cards (how many of each rank), so
its answer is cached per signature and per rule set, then mapped back onto the actual cards:
for each rank, the core takes that rank's first cards (suit order ``s h d c``, unknown last)
and the kickers take the next ones.

>>> [(c.type, c.main_text, c.length) for c in classify("333 444 55")]
[('airplane_single', '3', 2)]
>>> beats(classify("BJ RJ")[0], classify("2222")[0])
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import TypedDict

from engine import compiled_plays
from engine.cards import ACE, BJ, RJ, TWO, Card, as_cards
from engine.combination import TYPES, Combination
from engine.rules import CLASSIC, RuleSet
from engine.two_deck_kinds import bomb_key, classify_jokers, classify_quads, joker_sizes, second_key

__all__ = ["classify", "beats", "beats_cards", "chain_position", "clear_caches", "kicker_shape"]

NRANKS = RJ + 1
_TYPE_ORDER = {t: i for i, t in enumerate(TYPES)}
_SUIT_ORDER = {"s": 0, "h": 1, "d": 2, "c": 3, None: 4}

# A rank-level play: (type, main, length, core spans, kicker spans). A span (rank, start, stop)
# takes cards start..stop of that rank; the core always takes a rank's first cards.
Span = tuple[int, int, int]
RankPlay = tuple[str, int, int, tuple[Span, ...], tuple[Span, ...]]


def make_play(kind: str, main: int, length: int, core: dict[int, int], kickers: dict[int, int]) -> RankPlay:
    """The rank-level play with ``core``/``kickers`` given as {rank: count}."""
    core_spans = tuple((r, 0, core[r]) for r in sorted(core))
    kicker_spans = tuple((r, core.get(r, 0), core.get(r, 0) + kickers[r]) for r in sorted(kickers) if kickers[r])
    return kind, main, length, core_spans, kicker_spans


def play_sort_key(play: RankPlay) -> tuple[int, int, int, tuple[Span, ...], tuple[Span, ...]]:
    return _TYPE_ORDER[play[0]], play[2], play[1], play[3], play[4]


def chain_position(kind: str, main: int) -> int:
    """Where ``main`` stands for comparison: A and 2 play low in the A2345/23456 straights.

    Ordinary straights cannot start at A or 2 (a 5-card chain needs four ranks above), so a
    straight whose main is A or 2 is a low straight and ranks below the one starting at 3.
    """
    if kind == "straight" and main >= ACE:
        return main - 13
    return main


# --- classification at rank level -------------------------------------------------------


def _chain_ranks(present: list[int], rules: RuleSet) -> int | None:
    """The main rank if ``present`` (sorted ranks) is a run the rules let chain, else None."""
    lo, hi = present[0], present[-1]
    if hi <= rules.chain_high and hi - lo + 1 == len(present):
        return lo
    return None


def _low_straight_mains(present: list[int], rules: RuleSet) -> list[int]:
    """Mains of the readings with A and 2 below 3 (A2345...) or 2 below 3 (23456...).

    ``2 3 ... K A`` is both: A low under 2, or A high after K.
    """
    if not rules.low_straights or present[-1] >= BJ or TWO not in present:
        return []
    mains = []
    for low in (ACE, TWO):
        positions = sorted(r - 13 if r == TWO or (r == ACE and low == ACE) else r for r in present)
        if positions[0] == low - 13 and positions[-1] - positions[0] + 1 == len(positions):
            mains.append(low)
    return mains


def kicker_shape(n: int, top: int, rules: RuleSet) -> bool:
    """Whether ``n`` cards whose largest rank count is ``top`` may be a shape with unequal
    counts: a trio or four carrying others (4, 5, 6, 8, 4k or 5k cards), with the quad
    family a quad carrying trios and pairs (7k or 9k cards), or three jokers (a five-player bomb)."""
    if top < 3:
        return n == 3 and top == 2 and 3 in joker_sizes(rules)
    if not (n % 4 and n % 5 and n != 6):
        return True
    return rules.quads and top >= 4 and (n % 7 == 0 or n % 9 == 0)


def _is_pair_rank(rank: int, rules: RuleSet) -> bool:
    return rank < BJ or rules.joker_pairs


def _single_kickers_ok(
    rem: dict[int, int], core: dict[int, int], rules: RuleSet, *, may_repeat: bool, adjacent: tuple[int, ...] = ()
) -> bool:
    """Single kickers ``rem`` for a core ``core`` under the kicker options."""
    if not rules.kicker_core_rank and any(r in core for r in rem):
        return False
    if not rules.kicker_rocket and rem.get(BJ) and rem.get(RJ):
        return False
    for r, k in rem.items():
        if k >= 2 and not may_repeat:
            return False
        if k >= 3 and (not rules.airplane_kicker_trio or r in adjacent):
            return False
        if k >= 4 and not rules.kicker_four_of_rank:
            return False
    return True


def _pair_kickers_ok(rem: dict[int, int], core: dict[int, int], rules: RuleSet, *, four_ok: bool) -> bool:
    """Pair kickers: each rank an even count of a rank that can pair (never BJ+RJ)."""
    if not rules.kicker_core_rank and any(r in core for r in rem):
        return False
    for r, k in rem.items():
        if k % 2 or not _is_pair_rank(r, rules):
            return False
        if k >= 4 and not four_ok:
            return False
    return True


def _remainder(counts: tuple[int, ...], core: dict[int, int]) -> dict[int, int]:
    rem = {}
    for r, k in enumerate(counts):
        left = k - core.get(r, 0)
        if left:
            rem[r] = left
    return rem


def classify_counts(counts: tuple[int, ...], rules: RuleSet) -> tuple[RankPlay, ...]:
    """Every rank-level reading of a 15-entry rank-count tuple (uncached)."""
    n = sum(counts)
    if n == 0:
        return ()
    top = max(counts)
    uniform = (NRANKS - counts.count(0)) * top == n
    # Shapes with unequal counts all carry kickers on a trio or four (see kicker_shape).
    if not uniform and not kicker_shape(n, top, rules):
        return ()
    present = [r for r in range(NRANKS) if counts[r]]
    out: list[RankPlay] = []

    def add(kind: str, main: int, length: int, core: dict[int, int], kick: dict[int, int] | None = None) -> None:
        out.append(make_play(kind, main, length, core, kick or {}))

    if len(present) == 1:
        r, k = present[0], counts[present[0]]
        if k == 1:
            add("single", r, 1, {r: 1})
        elif k == 2 and _is_pair_rank(r, rules):
            add("pair", r, 1, {r: 2})
        elif k == 3 and r < BJ:
            add("trio", r, 1, {r: 3})
        elif k == 4 and r < BJ and rules.quads:
            add("quad", r, 1, {r: 4})
        if r < BJ and rules.bomb_min <= k <= rules.bomb_max:
            add("bomb", r, k, {r: k})
    half = rules.rocket_jokers // 2
    if n == rules.rocket_jokers and counts[BJ] == half and counts[RJ] == half:
        add("rocket", BJ, n, {BJ: half, RJ: half})
    for shape in classify_jokers(counts, n, rules):
        add(*shape)

    # Chains: every rank the same count, consecutive.
    if len(present) > 1 and uniform:
        each = top
        lo = _chain_ranks(present, rules)
        if each == 1 and n >= rules.straight_min:
            mains = [lo] if lo is not None else _low_straight_mains(present, rules)
            for main in mains:
                add("straight", main, n, dict.fromkeys(present, 1))
        elif lo is not None and each == 2 and len(present) >= rules.pair_chain_min:
            add("pair_straight", lo, len(present), dict.fromkeys(present, 2))
        elif lo is not None and each == 3 and len(present) >= rules.trio_chain_min:
            add("airplane", lo, len(present), dict.fromkeys(present, 3))
        elif lo is not None and each == 4 and rules.quads and len(present) >= rules.quad_chain_min:
            add("quad_chain", lo, len(present), dict.fromkeys(present, 4))

    trios = [r for r in present if r < BJ and counts[r] >= 3]
    if not trios:  # every kind with kickers has a trio or a four in its core
        return tuple(out)
    if n == 4 and rules.trio_single:
        for r in trios:
            core = {r: 3}
            rem = _remainder(counts, core)
            if _single_kickers_ok(rem, core, rules, may_repeat=False):
                add("trio_single", r, 1, core, rem)
    if n == 5 and rules.trio_pair:
        for r in trios:
            core = {r: 3}
            rem = _remainder(counts, core)
            if len(rem) == 1 and _pair_kickers_ok(rem, core, rules, four_ok=False):
                add("trio_pair", r, 1, core, rem)
    if rules.four_two and n in (6, 8):
        for r in trios:
            if counts[r] < 4:
                continue
            core = {r: 4}
            rem = _remainder(counts, core)
            if n == 6 and _single_kickers_ok(rem, core, rules, may_repeat=rules.four_two_single_pair):
                add("four_two_single", r, 1, core, rem)
            if n == 8 and _pair_kickers_ok(rem, core, rules, four_ok=rules.four_two_pair_same):
                add("four_two_pair", r, 1, core, rem)
    _classify_airplanes(counts, n, trios, rules, add)
    if rules.quads:
        for shape in classify_quads(counts, n, rules):
            add(*shape)
    out.sort(key=play_sort_key)
    return tuple(out)


def _classify_airplanes(counts: tuple[int, ...], n: int, trios: list[int], rules: RuleSet,
                        add: Callable[[str, int, int, dict[int, int], dict[int, int]], None]) -> None:
    """Airplanes with wings: k consecutive trios carrying k singles or k pairs."""
    trio_set = set(trios)
    for per, kind in ((4, "airplane_single"), (5, "airplane_pair")):
        if n % per or (kind == "airplane_single" and not rules.trio_single):
            continue
        if kind == "airplane_pair" and not rules.trio_pair:
            continue
        k = n // per
        if k < rules.trio_chain_min:
            continue
        for lo in range(0, rules.chain_high - k + 2):
            window = range(lo, lo + k)
            if not all(r in trio_set for r in window):
                continue
            core = dict.fromkeys(window, 3)
            rem = _remainder(counts, core)
            if kind == "airplane_single":
                # A trio of kickers next to the chain would lengthen it: that is a longer chain.
                adjacent = tuple(r for r in (lo - 1, lo + k) if 0 <= r <= rules.chain_high)
                ok = _single_kickers_ok(
                    rem, core, rules, may_repeat=rules.airplane_kicker_repeat, adjacent=adjacent
                )
            else:
                ok = sum(rem.values()) == 2 * k and _pair_kickers_ok(
                    rem, core, rules, four_ok=rules.kicker_four_of_rank
                )
            if ok:
                add(kind, lo, k, core, rem)


# --- per-rule-set caches --------------------------------------------------------------------

class _RuleSetCache(TypedDict):
    counts: Callable[[tuple[int, ...]], tuple[RankPlay, ...]]
    text: dict[str, tuple[Combination, ...]]


_CACHES: dict[int, tuple[RuleSet, _RuleSetCache]] = {}
_TEXT_CACHE_MAX = 1 << 17
_RULE_SETS_KEPT = 16


def _rank_cache(rules: RuleSet) -> _RuleSetCache:
    """The signature cache for ``rules`` (kept per object: hashing a RuleSet walks every field)."""
    entry = _CACHES.get(id(rules))
    if entry is None or entry[0] is not rules:
        if len(_CACHES) >= _RULE_SETS_KEPT:  # rule sets made on the fly must not pile up
            del _CACHES[next(iter(_CACHES))]
        by_counts = lru_cache(maxsize=1 << 16)(lambda counts: classify_counts(counts, rules))
        entry = (rules, _RuleSetCache(counts=by_counts, text={}))
        _CACHES[id(rules)] = entry
    return entry[1]


def clear_caches() -> None:
    """Forget every cached reading (benchmarks measure the cold path with this)."""
    _CACHES.clear()


def rank_readings(counts: tuple[int, ...], rules: RuleSet = CLASSIC) -> tuple[RankPlay, ...]:
    """Every rank-level reading of a 15-entry rank-count tuple (cached)."""
    return _rank_cache(rules)["counts"](counts)


def _suit_key(card: Card) -> int:
    return _SUIT_ORDER[card.suit]


def group_by_rank(cards: Iterable[Card]) -> list[list[Card]]:
    """The cards of each rank value, in suit order (``s h d c``, unknown last)."""
    groups: list[list[Card]] = [[], [], [], [], [], [], [], [], [], [], [], [], [], [], []]
    try:
        for card in cards:
            groups[card.rank].append(card)
    except (AttributeError, TypeError, IndexError):
        raise TypeError(f"expected card text or Card objects, got {cards!r}") from None
    order = _SUIT_ORDER
    for g in groups:
        if len(g) == 2:
            if order[g[0].suit] > order[g[1].suit]:
                g.reverse()
        elif len(g) > 2:
            g.sort(key=_suit_key)
    return groups


# Combinations are built without the dataclass __init__: the generated one sets each frozen
# field through object.__setattr__, and building plays is most of the time legal_plays takes.
# Each field's slot is set through its descriptor, taken from the class's namespace.
_new = object.__new__
_set_type = vars(Combination)["type"].__set__
_set_main = vars(Combination)["main"].__set__
_set_length = vars(Combination)["length"].__set__
_set_core = vars(Combination)["core"].__set__
_set_kickers = vars(Combination)["kickers"].__set__


def to_combination(play: RankPlay, groups: Sequence[Sequence[Card]]) -> Combination:
    """The play on actual cards: each rank's first cards to the core, the next to the kickers."""
    return combinations((play,), groups)[0]


def combinations(plays: Iterable[RankPlay], groups: Sequence[Sequence[Card]]) -> list[Combination]:
    """:func:`to_combination` over many plays, unrolled: legal_plays spends most of its time here."""
    out: list[Combination] = []
    append = out.append
    for kind, main, length, core_spans, kicker_spans in plays:
        if len(core_spans) == 1:
            r, a, b = core_spans[0]
            core = tuple(groups[r][a:b])
        else:
            core = tuple([card for r, a, b in core_spans for card in groups[r][a:b]])
        if not kicker_spans:
            kickers: tuple[Card, ...] = ()
        elif len(kicker_spans) == 1:
            r, a, b = kicker_spans[0]
            kickers = tuple(groups[r][a:b])
        else:
            kickers = tuple([card for r, a, b in kicker_spans for card in groups[r][a:b]])
        combo = _new(Combination)
        _set_type(combo, kind)
        _set_main(combo, main)
        _set_length(combo, length)
        _set_core(combo, core)
        _set_kickers(combo, kickers)
        append(combo)
    return out


def classify(cards: str | Iterable[Card], rules: RuleSet = CLASSIC) -> list[Combination]:
    """Every reading of ``cards`` under ``rules``, in a fixed order; ``[]`` if none.

    Card text is parsed with :func:`engine.cards.parse_cards` (a ``ValueError`` names a bad
    token). Each reading's core plus kickers are exactly the cards given.
    """
    if isinstance(cards, str):
        # rank-only text is looked up in the table of every combination (one deck, the core
        # built: engine.compiled_plays), which is its own cache; anything else is parsed and
        # classified, and kept in the text cache
        found = compiled_plays.classify_text(cards, rules)
        if found is not None:
            return list(found)
        cache = _rank_cache(rules)["text"]
        found = cache.get(cards)
        if found is None:
            found = tuple(_classify_cards(as_cards(cards), rules))
            if len(cache) >= _TEXT_CACHE_MAX:
                cache.clear()
            cache[cards] = found
        return list(found)
    return _classify_cards(cards, rules)


def _classify_cards(cards: Iterable[Card], rules: RuleSet) -> list[Combination]:
    groups = group_by_rank(cards)
    return combinations(_rank_cache(rules)["counts"](tuple(map(len, groups))), groups)


# --- comparison -----------------------------------------------------------------------------


def beats(new: Combination, prev: Combination, rules: RuleSet = CLASSIC) -> bool:
    """Whether ``new`` may be played on ``prev``.

    The rocket beats everything; a bomb (joker bombs included) beats every non-bomb, and
    bombs compare by :func:`engine.two_deck_kinds.bomb_key`: rank, or card count first where
    ``rules.bomb_size_first``, or the steps of ``rules.bomb_ladder``. Other combinations
    compare only with the same type and the same number of cards, by main rank (a spaceship:
    its quad chain, then its trio chain).
    """
    if prev.type == "rocket":
        return False
    if new.type == "rocket":
        return True
    if new.is_bomb:
        if not prev.is_bomb:
            return True
        return bomb_key(new.type, new.main, new.length, rules) > bomb_key(prev.type, prev.main, prev.length, rules)
    if prev.is_bomb or new.type != prev.type:
        return False
    if new.length != prev.length or new.size != prev.size:
        return False
    if new.type == "spaceship":
        return (new.main, second_key(new)) > (prev.main, second_key(prev))
    return chain_position(new.type, new.main) > chain_position(prev.type, prev.main)



def beats_cards(
    cards: str | Iterable[Card], prev: Combination | str | Iterable[Card] | None, rules: RuleSet = CLASSIC
) -> Combination | None:
    """The first reading of ``cards`` that may be played on ``prev``, or None.

    ``prev`` is normally the reading recorded for the trick (a ``Combination``). Given as
    cards, it is read every way the rules allow and any of its readings may be the one to
    beat, as a referee would when the trick's reading was not recorded. ``None`` or no cards
    means ``cards`` leads. Raises ``ValueError`` if ``prev`` cards are no combination.
    """
    readings = classify(cards, rules)
    if prev is None:
        return readings[0] if readings else None
    if isinstance(prev, Combination):
        targets = [prev]
    else:
        prev_cards = as_cards(prev)
        if not prev_cards:
            return readings[0] if readings else None
        targets = classify(prev_cards, rules)
        if not targets:
            raise ValueError(f"the previous play {' '.join(map(str, prev_cards))!r} is not a combination")
    for reading in readings:
        if any(beats(reading, t, rules) for t in targets):
            return reading
    return None
