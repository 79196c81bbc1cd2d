"""Plays and readings from the solver's compiled core (``engine/solver/_core.c``), where it is built.

The core generates a hand's plays in exactly the order :func:`engine.rank_plays.generate` does
(tests/engine/test_compiled_plays.py checks both against each other and against brute force),
and builds the :class:`~engine.combination.Combination` objects on the hand's own cards in the
same call, which is most of what :func:`engine.legal.legal_plays` costs in Python. It plays
every rule set the solver models (:data:`engine.solver.position.MODELLED`); the five-player
joker bombs and the 斗帝主 quad family are left to the Python generators.

For one-deck rule sets, :func:`reading_table` is every card set that is a combination and its
readings, made once per process from the core's plays of a whole deck (about 45,000 sets in the
classic rules, built in a few tens of milliseconds), as a lookup table like rlcard's: a
classification of rank text never met before is then a lookup, not a computation. It is data,
not a cache: it depends on no input and :func:`engine.classify.clear_caches` leaves it.

Every function answers None where the core is not built or does not play the rules, and the
caller falls back on the Python path.
"""

from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from engine.cards import BJ, RANK_TEXT, RJ, Card, parse_cards
from engine.combination import Combination
from engine.rules import RuleSet

#: Rule options that decide which card sets are combinations and how they read (not scoring).
_PLAY_OPTIONS = ("decks", "trio_single", "trio_pair", "four_two", "straight_min", "pair_chain_min",
                 "trio_chain_min", "chain_high", "low_straights", "joker_pairs", "rocket_jokers", "bomb_min",
                 "bomb_max", "bomb_size_first", "bomb_ladder", "quads", "quad_chain_min", "airplane_kicker_repeat",
                 "airplane_kicker_trio", "kicker_four_of_rank", "kicker_rocket", "kicker_core_rank",
                 "four_two_single_pair", "four_two_pair_same")
_KEPT = 8
#: A rule set's table of every combination (a fifth of a second to make) is made at its this many-th
#: text to classify, so a rule set made on the fly for one question is answered by parsing alone.
_TABLE_AT = 3

Table = tuple[dict[str, int], dict[int, tuple[Combination, ...]]]

_lock = threading.Lock()
_module: list[ModuleType | None] = []
_generators: dict[tuple[object, ...], Any] = {}
_tables: dict[tuple[object, ...], Table] = {}


@dataclass
class _Entry:
    """What one rule-set object uses: its generator, its table once made, texts asked so far."""

    rules: RuleSet
    generator: Any
    table: Table | None = None
    asked: int = 0


#: Per rule-set object (hashing a RuleSet walks every field).
_by_rules: dict[int, _Entry] = {}
_type_index: dict[str, int] = {}


def _core() -> ModuleType | None:
    """The extension, imported on first use (engine.solver imports engine.legal, so not at import)."""
    if not _module:
        try:
            core = importlib.import_module("engine.solver._core")
        except ImportError:
            _module.append(None)
        else:
            core.bind(Combination)
            _type_index.update({name: i for i, name in enumerate(core.TYPES)})
            _module.append(core)
    return _module[0]


def plays_key(rules: RuleSet) -> tuple[object, ...]:
    return tuple(getattr(rules, name) for name in _PLAY_OPTIONS)


def _entry(rules: RuleSet) -> _Entry:
    found = _by_rules.get(id(rules))
    if found is None or found.rules is not rules:
        found = _Entry(rules, _generator(rules), _tables.get(plays_key(rules)))
        with _lock:
            if len(_by_rules) >= 2 * _KEPT:
                del _by_rules[next(iter(_by_rules))]
            _by_rules[id(rules)] = found
    return found


def forget() -> None:
    """Forget the generators and the tables of combinations, made again when next asked for (a
    benchmark times the making of a table with this)."""
    with _lock:
        _generators.clear()
        _tables.clear()
        _by_rules.clear()


def generator(rules: RuleSet) -> Any:
    """The core's generator for ``rules`` (an ``engine.solver._core.Search``), or None."""
    return _entry(rules).generator


def _generator(rules: RuleSet) -> Any:
    key = plays_key(rules)
    found = _generators.get(key)
    if found is not None or key in _generators:
        return found
    core = _core()
    made = None
    if core is not None and not rules.quads and not rules.bomb_ladder and rules.decks <= 2:
        options = {name: int(getattr(rules, name)) for name in core.RULES}
        made = core.Search(options, 0, [1, 0], table_mb=1, cache_mb=2)
    with _lock:
        if len(_generators) >= _KEPT:  # rule sets made on the fly must not pile up
            del _generators[next(iter(_generators))]
        _generators[key] = made
    return made


def reading(combo: Combination) -> tuple[int, int, int] | None:
    """A play to beat as the core takes it, or None for a type it does not play."""
    index = _type_index.get(combo.type)
    return None if index is None else (index, combo.main, combo.length)


def legal(groups: list[list[Card]], prev: Combination | None, rules: RuleSet) -> list[Combination] | None:
    """:func:`engine.legal.legal_plays` for cards grouped by rank, or None (not built, not played)."""
    gen = generator(rules)
    if gen is None:
        return None
    key = None if prev is None else reading(prev)
    if prev is not None and key is None:
        return None
    made: list[Combination] = gen.legal(groups) if key is None else gen.legal(groups, key)
    return made


def _rank_tokens() -> dict[str, int]:
    """Each way to write a rank alone (``3``, ``10``, ``T``, ``j``, ``BJ``, ``小王``) and its weight in
    a signature: 1 << 4 * rank."""
    words = set(RANK_TEXT) | {"T", "小王", "大王"}
    words |= {w.lower() for w in words} | {w.upper() for w in words}
    tokens = {}
    for word in words:
        try:
            cards = parse_cards(word)
        except ValueError:
            continue
        if len(cards) == 1 and cards[0].suit is None:
            tokens[word] = 1 << 4 * cards[0].rank
    return tokens


def reading_table(rules: RuleSet) -> tuple[dict[str, int], dict[int, tuple[Combination, ...]]] | None:
    """(rank tokens and their weights, every combination's signature -> its readings on suitless
    cards) for a one-deck rule set the core plays; None otherwise. A signature is the sum of the
    cards' weights: rank counts, four bits a rank."""
    key = plays_key(rules)
    found = _tables.get(key)
    if found is not None or rules.decks != 1:
        return found
    gen = _generator(rules)
    if gen is None:
        return None
    whole = sum((1 if r >= BJ else 4) << 4 * r for r in range(RJ + 1))
    groups = [[Card(r)] * (1 if r >= BJ else 4) for r in range(RJ + 1)]
    moves = gen.plays(whole)
    table: dict[int, list[Combination]] = {}
    for move, combo in zip(moves, gen.build(moves, groups), strict=True):
        table.setdefault(move[3], []).append(combo)  # lead order: each set's readings in classify's order
    made = (_rank_tokens(), {sig: tuple(found) for sig, found in table.items()})
    with _lock:
        if len(_tables) >= _KEPT:
            del _tables[next(iter(_tables))]
        _tables[key] = made
    return made


def classify_text(text: str, rules: RuleSet) -> tuple[Combination, ...] | None:
    """The readings of rank-only text (``3 3 3 4``) from the table, or None when the text is
    anything else (suits, no spaces, commas, a bad token) or there is no table.
    :func:`engine.classify.classify` asks here first: a first sight of rank text is one lookup."""
    entry = _by_rules.get(id(rules))
    if entry is None or entry.rules is not rules:
        entry = _entry(rules)
    table = entry.table
    if table is None:
        if entry.generator is None or rules.decks != 1:
            return None
        entry.asked += 1
        if entry.asked < _TABLE_AT and plays_key(rules) not in _tables:
            return None
        table = entry.table = reading_table(rules)
        if table is None:
            return None
    tokens = text.split()
    if len(tokens) > 15:  # four bits a rank: more cards could carry into the next rank
        return None
    weights, readings = table
    try:
        signature = sum(map(weights.__getitem__, tokens))
    except KeyError:
        return None
    return readings.get(signature, ())
