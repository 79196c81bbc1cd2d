"""The compiled search (``engine/solver/_core.c``) behind the interface of the pure-Python one.

:class:`CompiledSolver` answers exactly what :class:`engine.solver.search.Solver` answers, the
same verdict and, when the side to move wins, the same winning move (both try the moves at the
root in the same order). Searching the same nodes it visits 25 to 30 times as many a second of
CPU (``cuts=0``; the memory fetches of a node bound both); by default it also cuts positions won
outright and runs a proof-number search beside the alpha-beta, which on many positions needs
far fewer nodes (docs/analysis.md has the figures). The C core plays the rule sets the solver models
(:func:`engine.solver.position.check_rules`); it is built with the package where a C compiler
is there (``setup.py``) and, when it is absent, :func:`make_solver` and :func:`solve` fall back
to the pure-Python search, which stays the reference.

>>> from engine.solver.position import Position
>>> p = Position.from_cards(["3 3 5", "4 9 10", "6 7 8"], landlord=0)
>>> v = solve(p)                       # the compiled core where it is built
>>> v.landlord_wins, v.move[0]
(True, 'pair')
>>> solve(p, core="python").move == v.move
True

Memory: the transposition table (``table_mb`` at most, 40 bytes an entry in the three-seat game,
three to a bucket of two cache lines, and 2 bytes a bucket for the side words that say which
slots are used and what they hold: 1 MiB beside 64 MiB; it starts small and grows as it fills,
and at its bound a new answer goes to the neighbour bucket or replaces the one of the two that
took fewest nodes to learn) and the caches of move lists, 手数 and readings (``cache_mb``, emptied when full) belong to
one solver; the process keeps the large blocks a solver frees (up to 160 MiB) for the next one.
Only proved answers and estimates are kept, so what is forgotten costs time, never truth.
"""

from __future__ import annotations

import time
from typing import Literal

from engine.bidding import next_seat
from engine.classify import RankPlay
from engine.combination import Combination
from engine.legal import prev_key, rank_legal_plays
from engine.rules import RuleSet
from engine.solver.position import Position, check_rules
from engine.solver.search import PASS, Solver, Verdict, decode, encode, play_counts

try:
    from engine.solver import _core
except ImportError as exc:  # not built: no compiler or headers where it was installed
    _core = None  # type: ignore[assignment]
    _MISSING: str | None = f"the compiled core is not built ({exc}); run: python setup.py build_ext --inplace"
else:
    _MISSING = None

Core = Literal["auto", "compiled", "python"]
#: Table and cache sizes by default: 64 MiB of table (about 1.6 million answers) and 32 MiB of
#: caches, small beside a 4 GB Pi's memory and enough for a full hand (docs/analysis.md).
TABLE_MB = 64.0
CACHE_MB = 32.0
#: How the core searches below the root by default (see _core.c): 1, a static win (the seat to
#: move goes out leading plays that no opponent answers but the last); 4, the alpha-beta and the
#: proof-number search in turn on doubling slices of nodes, sharing the table (each is much the
#: faster on some positions). They change which nodes are visited, never an answer; 0 searches
#: exactly the reference's nodes. 8 (with 16: only where a seat leads) renumbers the ranks of a
#: position so that positions no seat can tell apart share their table entry: fewer nodes, no
#: fewer seconds on the development machine, so left out (docs/solver-log.md). 32 wins for a seat
#: that holds a bomb or the rocket no opponent can beat and goes out after it leading plays no
#: opponent answers but the last, once its turn comes, when no opponent can go out before it (an
#: option: it cut no node of the benchmark's positions, docs/solver-log.md). 512 does the same for
#: a seat without a top that beats every play its opponents before it can make with a play none
#: answers; 1024 lets the alpha-beta's static win lead (or beat the trick with) one play an
#: opponent may answer when the seat takes every answer back with a play none answers. Both are
#: on by default (1 + 4 + 512 + 1024): half the nodes of full deals and a fifth less CPU, a quarter
#: fewer nodes on twelve-card positions for about the same CPU (docs/solver-log.md).
CUTS = 1541


def available() -> bool:
    """Whether the compiled core is built and importable."""
    return _core is not None


def huge_pages_cheap() -> bool:
    """Whether this process's solvers start on huge pages: the core found, once, that a huge page
    costs little more than its 512 small pages to touch first (``HUGE_CHEAP`` times at most, in
    engine/solver/_table.h; False without the core)."""
    return _core is not None and _core.huge_pages_cheap()


def why_not() -> str | None:
    """Why the compiled core is not used (None when it is)."""
    return _MISSING


def _type_index() -> dict[str, int]:
    return {} if _core is None else {name: i for i, name in enumerate(_core.TYPES)}


_TYPE_INDEX = _type_index()


def reading(combo: Combination) -> tuple[int, int, int]:
    """A reading as the core takes it: (type index, main, length)."""
    try:
        return _TYPE_INDEX[combo.type], combo.main, combo.length
    except KeyError:
        raise ValueError(f"the compiled core does not play {combo.type!r}") from None


def core_rules(rules: RuleSet) -> dict[str, int]:
    """The options the core reads, as integers."""
    assert _core is not None
    return {name: int(getattr(rules, name)) for name in _core.RULES}


class CompiledSolver:
    """Solves positions of one rule set with one landlord in the compiled core, keeping its
    table between calls like :class:`engine.solver.search.Solver`.

    ``table=False`` is the plain alpha-beta without the table; ``cuts=0`` searches exactly the
    nodes the pure-Python search visits (the benchmark's like-for-like speed). The table and
    caches are on huge pages from the start where this machine touches a huge page about as
    cheaply as its small ones (:func:`huge_pages_cheap`); elsewhere, and whenever ``huge_after``
    is given, they start on small pages and go onto huge ones once the solver has searched
    2^``huge_after`` nodes (the core's 24 where it chooses; docs/analysis.md, Memory).
    """

    def __init__(self, rules: RuleSet | str = "classic", landlord: int = 0, *, table: bool = True,
                 table_mb: float = TABLE_MB, cache_mb: float = CACHE_MB, cuts: int = CUTS,
                 huge_after: int | None = None) -> None:
        if _core is None:
            raise RuntimeError(_MISSING or "the compiled core is not available")
        self.rules = check_rules(rules)
        n = self.rules.players
        self.landlord = landlord
        self.nodes = 0
        nexts = [next_seat(s, n, self.rules.seat_order) for s in range(n)]
        pages = {} if huge_after is None else {"huge_after": huge_after}
        self._core = _core.Search(core_rules(self.rules), landlord, nexts, table_mb=table_mb, cache_mb=cache_mb,
                                  table=table, cuts=cuts, **pages)

    def solve(self, position: Position, seconds: float | None = None, nodes: int | None = None) -> Verdict:
        """Whether the landlord wins ``position`` (None if the budget runs out) and, when the
        side to move wins, one winning move: the one the pure-Python search names."""
        if position.landlord != self.landlord or position.rules != self.rules:
            raise ValueError("this solver was made for another landlord or rule set")
        start = time.perf_counter()
        hands = [encode(h) for h in position.hands]
        trick = [reading(c) for c in position.to_beat]
        mover_wins, move, spent = self._core.solve(hands, position.turn, trick, position.by, seconds, nodes)
        self.nodes += spent
        seconds_spent = time.perf_counter() - start
        if mover_wins is None:
            return Verdict(None, None, None, spent, seconds_spent)
        found: RankPlay | str | None = None
        if mover_wins:
            found = PASS if move == PASS else _rank_play(position, move)  # type: ignore[arg-type]
        me = position.turn == self.landlord
        return Verdict(mover_wins == me, mover_wins, found, spent, seconds_spent)

    def stop(self) -> None:
        """Ask a search running in another thread to give up (its verdict: not exact)."""
        self._core.stop()

    def stats(self) -> dict[str, int | float]:
        """Nodes, table entries and slots, table and cache MiB, cache clears, replaced answers, and
        whether the table and caches went onto huge pages (``huge_pages``)."""
        return self._core.stats()


def _rank_play(position: Position, move: tuple[int, int, int, int]) -> RankPlay:
    """The rank-level play (engine.legal.rank_legal_plays) the core's move stands for."""
    assert _core is not None
    kind, main, length, pint = move
    counts = position.hands[position.turn]
    for prev in position.to_beat or (None,):
        for play in rank_legal_plays(counts, prev_key(prev), position.rules):
            if play[0] == _core.TYPES[kind] and play[1] == main and play[2] == length \
                    and encode(play_counts(play)) == pint:
                return play
    raise AssertionError(f"the compiled core named a move the hand cannot make: {move} from {decode(encode(counts))}")


def make_solver(rules: RuleSet | str = "classic", landlord: int = 0, *, core: Core = "auto",
                table: bool = True) -> Solver | CompiledSolver:
    """A solver for one rule set and landlord: the compiled one where it is built (``auto``),
    or the one asked for (``compiled`` raises ``RuntimeError`` when it is not built)."""
    if core == "python" or (core == "auto" and _core is None):
        return Solver(rules, landlord, table=table)
    return CompiledSolver(rules, landlord, table=table)


def solve(position: Position, seconds: float | None = None, nodes: int | None = None, *, table: bool = True,
          core: Core = "auto") -> Verdict:
    """Solve one position with a fresh solver (:func:`make_solver`)."""
    return make_solver(position.rules, position.landlord, core=core, table=table).solve(position, seconds, nodes)
