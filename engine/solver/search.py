"""The search: is the side to move winning, with every hand visible?

Dou Dizhu with open hands is a two-team game of perfect information (the landlord against
the farmers), and its only outcome that matters here is who goes out first, so the search
is a boolean AND/OR alpha-beta: a node is won for the side to move as soon as one move
leads to a position won for that side, and lost only when every move was tried.

What makes it fast enough in plain Python:

- Hands are integers, four bits per rank; a play is the integer of its rank counts, so
  playing it is one subtraction. Legal plays come from :func:`engine.legal.rank_legal_plays`
  and are kept, already ordered, per (hand, trick).
- The trick to beat is a small integer naming the tuple of readings still possible (an
  ambiguous play such as ``333444555666`` may be answered as any of its readings, as
  :class:`engine.hand.Hand` allows).
- A transposition table keyed on every hand, the seat to move and the trick holds whether
  the landlord wins there, so a position reached by several orders of play is searched once.
  Answers are stored only once proved, so the table stays right after a search is cut off.
- Move ordering: a play that empties the hand first (a seat that can play out in one move
  wins at once), then the plays that leave the fewest plays still needed to empty the hand
  (手数, counted as if nobody answered), long before short, low before high; bombs and the
  rocket last. When the trick is a partner's, passing is tried first, otherwise after the
  ordinary plays. (Trying first the plays no opponent can answer measured worse.)
- A seat that cannot beat the trick passes without a node of its own.

A budget in seconds or nodes stops the search: the verdict then says it is not exact
(``landlord_wins is None``) rather than guessing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from engine.bidding import next_seat
from engine.classify import NRANKS, RankPlay, beats, classify
from engine.combination import BOMB_TYPES, Combination
from engine.legal import prev_key, rank_legal_plays
from engine.rules import RuleSet
from engine.solver.position import Position, check_rules, counts_cards

#: The move that passes (不出); every other move is an :data:`engine.classify.RankPlay`.
PASS = "pass"
_BITS = 4
_MASK = (1 << _BITS) - 1
#: How often (in nodes) the clock is read and the tables' sizes checked.
_CHECK_EVERY = 1024

#: A move of a hand on a trick: (the play as a hand integer, the trick it leaves, the play).
Move = tuple[int, int, RankPlay]
#: A search state: (hands as integers, seat to move, trick id, seat whose play leads the trick).
State = tuple[tuple[int, ...], int, int, int | None]


def encode(counts: tuple[int, ...]) -> int:
    """Rank counts as one integer, four bits per rank (two decks hold at most 8 of a rank)."""
    return sum(k << (_BITS * r) for r, k in enumerate(counts))


def decode(h: int) -> tuple[int, ...]:
    return tuple((h >> (_BITS * r)) & _MASK for r in range(NRANKS))


def play_counts(play: RankPlay) -> tuple[int, ...]:
    """The rank counts a rank-level play takes from the hand (core and kickers)."""
    counts = [0] * NRANKS
    for rank, start, stop in play[3] + play[4]:
        counts[rank] += stop - start
    return tuple(counts)


@dataclass(frozen=True)
class Verdict:
    """The answer for a position.

    ``landlord_wins`` (and ``mover_wins``, the same seen from the seat to move) is ``None``
    when the budget ran out first: not exact. ``move`` is a winning move of the seat to move
    when it wins (a rank-level play, or :data:`PASS`), else ``None``.
    """

    landlord_wins: bool | None
    mover_wins: bool | None
    move: RankPlay | str | None
    nodes: int
    seconds: float

    @property
    def exact(self) -> bool:
        return self.landlord_wins is not None


class OutOfBudget(Exception):
    """The search's time or node budget ran out (caught by :meth:`Solver.solve`)."""


class Solver:
    """Solves positions of one rule set with one landlord, keeping its tables between calls
    (the positions of one hand share most of their subtrees). ``table=False`` is the plain
    alpha-beta the benchmark compares against: the same search without the transposition table.

    >>> from engine.solver.position import Position
    >>> p = Position.from_cards(["3 4", "5", "6 6"], landlord=0)
    >>> Solver(landlord=0).solve(p).landlord_wins   # 4 is beaten by 5; the farmer leads 66...
    False
    """

    def __init__(self, rules: RuleSet | str = "classic", landlord: int = 0, *, table: bool = True,
                 max_entries: int = 2_000_000) -> None:
        self.rules = check_rules(rules)
        n = self.rules.players
        self.landlord = landlord
        self.side = tuple(s == landlord for s in range(n))
        self.next = tuple(next_seat(s, n, self.rules.seat_order) for s in range(n))
        self.table: dict[State, bool] | None = {} if table else None
        self.max_entries = max_entries
        self._trick_ids: dict[tuple[Combination, ...], int] = {(): 0}
        self._tricks: list[tuple[Combination, ...]] = [()]
        self._moves: dict[tuple[int, int], tuple[tuple[Move, ...], int]] = {}
        self._after: dict[tuple[RankPlay, int], int] = {}
        self._needed: dict[int, int] = {}
        self.nodes = 0

    # ------------------------------------------------------------------ tricks and moves
    def trick_id(self, readings: tuple[Combination, ...]) -> int:
        tid = self._trick_ids.get(readings)
        if tid is None:
            tid = self._trick_ids[readings] = len(self._tricks)
            self._tricks.append(readings)
        return tid

    def after(self, play: RankPlay, tid: int) -> int:
        """The trick once ``play`` is made on trick ``tid``: the play's readings that beat it
        (all its readings on a lead)."""
        key = (play, tid)
        out = self._after.get(key)
        if out is None:
            readings = classify(counts_cards(play_counts(play)), self.rules)
            prev = self._tricks[tid]
            if prev:
                readings = [r for r in readings if any(beats(r, p, self.rules) for p in prev)]
            out = self._after[key] = self.trick_id(tuple(readings))
        return out

    def moves(self, h: int, tid: int) -> tuple[tuple[Move, ...], int]:
        """The ordered plays of hand ``h`` on trick ``tid`` as (play int, next trick, play), and
        how many come before the bombs (where a pass goes when an opponent leads the trick)."""
        entry = self._moves.get((h, tid))
        if entry is not None:
            return entry
        counts = decode(h)
        prev = self._tricks[tid]
        if not prev:
            plays = rank_legal_plays(counts, None, self.rules)
        else:
            seen: dict[RankPlay, None] = {}
            for reading in prev:
                seen.update(dict.fromkeys(rank_legal_plays(counts, prev_key(reading), self.rules)))
            plays = tuple(seen)
        made = []
        for play in plays:
            pc = play_counts(play)
            pint = encode(pc)
            size = sum(pc)
            order = (play[0] in BOMB_TYPES, self.needed(h - pint), -size, play[1])
            made.append((pint != h, order, (pint, self.after(play, tid), play)))
        made.sort(key=lambda m: (m[0], m[1]))
        ordered = tuple(m[2] for m in made)
        ordinary = sum(1 for m in ordered if m[2][0] not in BOMB_TYPES)
        entry = self._moves[(h, tid)] = (ordered, ordinary)
        return entry

    def needed(self, h: int) -> int:
        """The fewest plays that empty hand ``h`` if nobody answered them (手数)."""
        memo = self._needed
        n = memo.get(h)
        if n is None:
            if not h:
                return 0
            counts = decode(h)
            low = next(r for r in range(NRANKS) if counts[r])
            best = 99
            for play in rank_legal_plays(counts, None, self.rules):
                pc = play_counts(play)
                if pc[low]:
                    best = min(best, 1 + self.needed(h - encode(pc)))
                    if best == 1:
                        break
            n = memo[h] = best
        return n

    # ------------------------------------------------------------------ the search
    def solve(self, position: Position, seconds: float | None = None, nodes: int | None = None) -> Verdict:
        """Whether the landlord wins ``position`` (None if the budget runs out) and, when the
        side to move wins, one winning move."""
        if position.landlord != self.landlord or position.rules != self.rules:
            raise ValueError("this solver was made for another landlord or rule set")
        start = time.perf_counter()
        deadline = None if seconds is None else start + seconds
        limit = None if nodes is None else self.nodes + nodes
        hands = tuple(encode(h) for h in position.hands)
        tid = self.trick_id(position.to_beat)
        by = position.by if tid else None
        first = self.nodes
        try:
            mover_wins, move = self._root(hands, position.turn, tid, by, deadline, limit)
        except OutOfBudget:
            return Verdict(None, None, None, self.nodes - first, time.perf_counter() - start)
        me = self.side[position.turn]
        return Verdict(mover_wins == me, mover_wins, move if mover_wins else None, self.nodes - first,
                       time.perf_counter() - start)

    def _children(self, hands: tuple[int, ...], turn: int, tid: int,
                  by: int | None) -> list[tuple[RankPlay | str, State]]:
        """(move, child state) in search order, for the root."""
        moves, ordinary = self.moves(hands[turn], tid)
        nxt = self.next[turn]
        pass_child = (hands, nxt, 0, None) if nxt == by else (hands, nxt, tid, by)
        partner = tid and self.side[by] == self.side[turn]  # type: ignore[index]  # a trick has its by
        out: list[tuple[RankPlay | str, State]] = []
        for i, (pint, after, play) in enumerate(moves):
            if tid and i == (0 if partner else ordinary):
                out.append((PASS, pass_child))
            child = hands[:turn] + (hands[turn] - pint,) + hands[turn + 1:]
            out.append((play, (child, nxt, after, turn)))
        if tid and len(out) == len(moves):
            out.append((PASS, pass_child))
        return out

    def _root(self, hands: tuple[int, ...], turn: int, tid: int, by: int | None, deadline: float | None,
              limit: int | None) -> tuple[bool, RankPlay | str | None]:
        win = self._searcher(deadline, limit)
        me = self.side[turn]
        for move, (child, nxt, after, cby) in self._children(hands, turn, tid, by):
            if move != PASS and child[turn] == 0:
                return True, move
            value = win(child, nxt, after, cby)
            if (value if self.side[nxt] == me else not value):
                return True, move
        return False, None

    def _searcher(self, deadline: float | None, limit: int | None) -> Callable[[tuple[int, ...], int, int, int | None], bool]:
        """The recursive search as a closure over the tables (locals are fast in CPython)."""
        table, side, nexts, moves_of, solver = self.table, self.side, self.next, self.moves, self
        mget = self._moves.get
        get = table.get if table is not None else None

        def win(hands: tuple[int, ...], turn: int, tid: int, by: int | None) -> bool:
            """True if the side of ``turn`` wins from here."""
            solver.nodes += 1
            if not solver.nodes % _CHECK_EVERY:
                solver._check(deadline, limit)
            me = side[turn]
            h = hands[turn]
            moves, ordinary = mget((h, tid)) or moves_of(h, tid)
            flip = False
            while tid and not moves:  # a seat that cannot beat the trick passes: no choice, no node
                nxt = nexts[turn]
                if side[nxt] != side[turn]:
                    flip = not flip
                if nxt == by:
                    tid, by = 0, None
                turn = nxt
                h = hands[turn]
                moves, ordinary = mget((h, tid)) or moves_of(h, tid)
            me = side[turn]
            if get is not None:
                known = get((hands, turn, tid, by))
                if known is not None:
                    return (known == me) != flip
            if moves and moves[0][0] == h:  # plays out in one move
                if table is not None:
                    table[(hands, turn, tid, by)] = me
                return not flip
            result = False
            nxt = nexts[turn]
            same = side[nxt] == me
            passed = not tid
            if tid and side[by] == me:  # type: ignore[index]  # the trick is the partner's (a trick has its by): let it stand first
                passed = True
                v = win(hands, nxt, 0, None) if nxt == by else win(hands, nxt, tid, by)
                result = v if same else not v
            if not result:
                head, tail = hands[:turn], hands[turn + 1:]
                for i, (pint, after, _play) in enumerate(moves):
                    if i == ordinary and not passed:
                        passed = True
                        v = win(hands, nxt, 0, None) if nxt == by else win(hands, nxt, tid, by)
                        if v if same else not v:
                            result = True
                            break
                    v = win(head + (h - pint,) + tail, nxt, after, turn)
                    if v if same else not v:
                        result = True
                        break
                if not result and not passed:
                    v = win(hands, nxt, 0, None) if nxt == by else win(hands, nxt, tid, by)
                    result = v if same else not v
            if table is not None:
                table[(hands, turn, tid, by)] = result == me
            return result != flip

        return win

    def _check(self, deadline: float | None, limit: int | None) -> None:
        if limit is not None and self.nodes >= limit:
            raise OutOfBudget
        if deadline is not None and time.perf_counter() >= deadline:
            raise OutOfBudget
        if self.table is not None and len(self.table) > self.max_entries:
            self.table.clear()  # only proved answers were kept: dropping them loses time, not truth
        if len(self._moves) > self.max_entries // 4:
            self._moves.clear()


def solve(position: Position, seconds: float | None = None, nodes: int | None = None, *,
          table: bool = True) -> Verdict:
    """Solve one position with a fresh :class:`Solver`.

    >>> from engine.solver.position import Position
    >>> solve(Position.from_cards(["3 3", "4", "5"], landlord=0)).landlord_wins   # 33 leads and goes out
    True
    """
    return Solver(position.rules, position.landlord, table=table).solve(position, seconds, nodes)
