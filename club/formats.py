"""Tournament formats (赛制) across tables: stages, draws, table changes and ties. Pure functions.

A :class:`Format` is a few :class:`Stage` s; each stage is played in one or more sessions
(periods, rounds, evenings) at tables of three, under an engine rules preset. The presets:

- ``seed004`` [004]: **knockout** 45 min at 20 chips, one winner per table (a tie plays one
  extra hand); the winners draw again into a **round robin** of three 30-minute periods where,
  at each period's end, the last hand's landlord moves to the next table number; points are
  chips (1 chip = 1 point), so a period scores each player's chips won or lost; the top three
  play a **final** of 45 min at 50 chips, ranked by chips (ties play an extra hand). Players
  tied on points across a cut (third place of the round robin) play off too (:func:`cut_tie`):
  the seed's rule for ties (并列办法) is one extra hand, whoever is tied.
- ``session``: one sitting of N rounds of points (classic), seats rotating between rounds.
- ``league``: fixed score (+3/-1) over several evenings, tables drawn Swiss-style by standing,
  keeping apart players who have already met where it can (:func:`swiss`).

Draws are random under a recorded seed, so a draw can always be made again and checked:

>>> draw([1, 2, 3, 4, 5, 6], seed=7, salt="knockout") == draw([1, 2, 3, 4, 5, 6], seed=7, salt="knockout")
True
>>> landlord_moves({1: (1, 2, 3), 2: (4, 5, 6)}, {1: 2, 2: 6})
{1: (1, 6, 3), 2: (4, 5, 2)}
"""

from __future__ import annotations

import functools
import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.record import rules_to_dict
from engine.rules import RuleSet, get_rules

TABLE_SIZE = 3  # the formats here are for the classic three-player game
MOVEMENTS = ("none", "landlord", "rotate", "swiss")
Seating = dict[int, tuple[int, ...]]  # table number -> player numbers by seat


class Refusal(ValueError):
    """A step the club refuses. The message (both languages) is for a log and the command line;
    ``key`` and ``fmt`` name the refusal in the club's words (``club.words``' ``err_*``), which a
    page says in its visitor's language alone."""

    def __init__(self, message: str, key: str = "", **fmt: object) -> None:
        super().__init__(message)
        self.key, self.fmt = key, fmt


class FormatError(Refusal):
    """A format or a draw that cannot be made (wrong number of players, bad settings)."""


@dataclass(frozen=True)
class Stage:
    key: str
    zh: str
    en: str
    preset: str = "chips"
    minutes: int = 0  # 0: untimed (the session ends when the director ends it)
    chips: int = 0  # chips each at the start (chips preset)
    sessions: int = 1  # periods / rounds / evenings
    movement: str = "none"  # between sessions: landlord moves on, seats rotate, or a Swiss redraw
    advance: str = "none"  # table_winner: one per table goes on; top: the best ``advance_count``
    advance_count: int = 0
    tie_break: str = "none"  # top: a tie for first plays an extra hand; all: any tie does (a final's ranking)

    def rules(self) -> RuleSet:
        rules = get_rules(self.preset)
        changes: dict[str, Any] = {"time_limit_min": self.minutes}
        if self.chips:
            changes["chips_start"] = self.chips
        return rules.replace(**changes)

    def rules_dict(self) -> dict[str, Any]:
        return _rules_dict(self)


@functools.lru_cache(maxsize=64)
def _rules_dict(stage: Stage) -> dict[str, Any]:
    """A stage's rules as a box receives them, made once: every post of every box answers with
    them, and building a rule set is a good part of a post's time. Read it, do not change it."""
    return rules_to_dict(stage.rules())


@dataclass(frozen=True)
class Format:
    key: str
    zh: str
    en: str
    stages: tuple[Stage, ...]

    def stage(self, key: str) -> Stage:
        for stage in self.stages:
            if stage.key == key:
                return stage
        raise FormatError(f"{self.key} has no stage {key!r}")


SEED004 = Format("seed004", "淘汰赛 + 循环赛 + 总决赛（筹码）", "Knockout, round robin, final (chips)", (
    Stage("knockout", "淘汰赛", "Knockout", "chips", minutes=45, chips=20, advance="table_winner", tie_break="top"),
    Stage("round_robin", "循环赛", "Round robin", "chips", minutes=30, chips=20, sessions=3, movement="landlord",
          advance="top", advance_count=3),
    Stage("final", "总决赛", "Final", "chips", minutes=45, chips=50, tie_break="all"),
))


def build_format(key: str, rounds: int = 4, minutes: int = 30, evenings: int = 4) -> Format:
    """The format ``key`` (``seed004``, ``session``, ``league``) with the director's numbers."""
    if key == "seed004":
        return SEED004
    for name, value, top in (("rounds", rounds, 20), ("minutes", minutes, 600), ("evenings", evenings, 52)):
        if not isinstance(value, int) or not 0 <= value <= top or (name != "minutes" and value < 1):
            raise FormatError(f"{name} must be a whole number up to {top}, not {value!r}", "err_number",
                              name=name, top=top, value=value)
    if key == "session":
        return Format("session", f"单场 {rounds} 轮（轮换座位）", f"One session, {rounds} rounds (seats rotate)", (
            Stage("round", "轮", "Round", "classic", minutes=minutes, sessions=rounds, movement="rotate"),))
    if key == "league":
        return Format("league", f"定分联赛 {evenings} 晚（瑞士制）", f"Fixed-score league, {evenings} evenings (Swiss)", (
            Stage("evening", "晚", "Evening", "fixed", minutes=minutes, sessions=evenings, movement="swiss"),))
    raise FormatError(f"unknown format {key!r}; choose seed004, session or league", "err_format", value=key)


# ---------------------------------------------------------------------- draws and moves
def _tables(order: Sequence[int], first_table: int = 1) -> Seating:
    if not order:
        raise FormatError("no players to seat", "err_no_players")
    if len(order) % TABLE_SIZE:
        short = TABLE_SIZE - len(order) % TABLE_SIZE
        raise FormatError(f"{len(order)} players do not make tables of {TABLE_SIZE}: add {short} or "
                          f"withdraw {len(order) % TABLE_SIZE} / {len(order)} 人不能每桌 3 人", "err_table_count",
                          count=len(order), short=short, extra=len(order) % TABLE_SIZE)
    return {first_table + i: tuple(order[i * TABLE_SIZE:(i + 1) * TABLE_SIZE]) for i in range(len(order) // TABLE_SIZE)}


def draw(players: Sequence[int], seed: int, salt: str, first_table: int = 1) -> Seating:
    """Lots drawn into tables of three (抽签分桌): the same seed and salt always give the same tables."""
    order = sorted(players)
    random.Random(f"{seed}:{salt}").shuffle(order)
    return _tables(order, first_table)


def landlord_moves(seating: Mapping[int, Sequence[int]], landlords: Mapping[int, int]) -> Seating:
    """Round robin table change [004]: at each table the last hand's landlord (a player number;
    without one, the player in seat 0) moves to the next table number, the last table's to the
    first, and takes the seat the mover of that table left. The others stay in their seats."""
    tables = sorted(seating)
    movers = {t: landlords.get(t, seating[t][0]) for t in tables}
    for t in tables:
        if movers[t] not in seating[t]:
            raise FormatError(f"player {movers[t]} is not at table {t}")
    out = {t: list(seating[t]) for t in tables}
    for i, t in enumerate(tables):
        target = tables[(i + 1) % len(tables)]
        out[target][list(seating[target]).index(movers[target])] = movers[t]
    return {t: tuple(p) for t, p in out.items()}


def rotate(seating: Mapping[int, Sequence[int]]) -> Seating:
    """Seat rotation between rounds: seat 0 stays at its table, seat 1 moves one table up, seat 2
    one table down, and everyone takes the next seat, so opponents and seats change each round.

    >>> rotate({1: (1, 2, 3), 2: (4, 5, 6), 3: (7, 8, 9)})
    {1: (6, 1, 8), 2: (9, 4, 2), 3: (3, 7, 5)}
    """
    tables = sorted(seating)
    n = len(tables)
    out: dict[int, list[int | None]] = {t: [None] * TABLE_SIZE for t in tables}
    for i, t in enumerate(tables):
        for seat, player in enumerate(seating[t]):
            target = tables[(i + (0, 1, -1)[seat]) % n]
            out[target][(seat + 1) % TABLE_SIZE] = player
    return {t: tuple(p for p in seats if p is not None) for t, seats in out.items()}


def swiss(standing: Sequence[tuple[int, int]], seed: int, salt: str, met: Collection[frozenset[int]] = ()) -> Seating:
    """Swiss-style tables (瑞士制): players by points (highest first, equal points in drawn order),
    three by three, so players of like standing meet; and, as Swiss pairing does, players who
    have already met (``met``: pairs of player numbers) are kept apart where that is possible.

    The search goes table by table from the top: the best-placed free player takes the two
    nearest-placed partners with whom no one at the table has met, backing off to the next
    nearest when the players left could not then be seated without a repeat. When no seating
    without repeats exists (or none is found within :data:`SWISS_SEARCH` steps), each table in
    turn takes the nearest partners with the fewest repeats. Deterministic under the seed.

    >>> swiss([(p, 10 - p) for p in range(1, 10)], 3, "evening-2", met=meetings([{1: (1, 2, 3), 2: (4, 5, 6), 3: (7, 8, 9)}]))
    {1: (1, 4, 7), 2: (2, 5, 8), 3: (3, 6, 9)}
    """
    rng = random.Random(f"{seed}:{salt}")
    keyed = sorted(standing, key=lambda pp: pp[0])
    tie_order = {p: rng.random() for p, _ in keyed}
    order = [p for p, _ in sorted(keyed, key=lambda pp: (-pp[1], tie_order[pp[0]]))]
    _tables(order)  # refuse a count that does not make tables of three, before searching
    met = {pair for pair in met if len(pair) == 2}
    if not met:
        return _tables(order)
    found = _without_repeats(order, met)
    return _tables(found if found is not None else _fewest_repeats(order, met))


#: Steps the search for a seating without repeats may take (each tries one table); beyond it
#: the draw settles for the fewest repeats, so a large field is drawn in well under a second.
SWISS_SEARCH = 20_000


def meetings(seatings: Sequence[Mapping[int, Sequence[int]]]) -> set[frozenset[int]]:
    """Every pair of players who sat at one table in ``seatings``."""
    return {frozenset((a, b)) for seating in seatings for seats in seating.values()
            for i, a in enumerate(seats) for b in seats[i + 1:]}


def _repeats(table: Sequence[int], met: set[frozenset[int]]) -> int:
    return sum(frozenset((a, b)) in met for i, a in enumerate(table) for b in table[i + 1:])


def _partners(free: Sequence[int]) -> list[tuple[int, int]]:
    """Pairs of positions after the first in ``free``, nearest in standing first."""
    pairs = [(i, j) for i in range(1, len(free)) for j in range(i + 1, len(free))]
    return sorted(pairs, key=lambda ij: (ij[0] + ij[1], ij[0]))


def _without_repeats(order: Sequence[int], met: set[frozenset[int]]) -> list[int] | None:
    """A seating order in which no two players at a table have met, or ``None``."""
    steps = 0

    def place(free: list[int]) -> list[int] | None:
        nonlocal steps
        if not free:
            return []
        top = free[0]
        for i, j in _partners(free):
            steps += 1
            if steps > SWISS_SEARCH:
                return None
            table = (top, free[i], free[j])
            if _repeats(table, met):
                continue
            rest = place([p for k, p in enumerate(free) if k not in (0, i, j)])
            if rest is not None:
                return [*table, *rest]
            if steps > SWISS_SEARCH:
                return None
        return None

    return place(list(order))


def _fewest_repeats(order: Sequence[int], met: set[frozenset[int]]) -> list[int]:
    """Table by table from the top: the nearest partners with the fewest repeats."""
    free, out = list(order), []
    while free:
        i, j = min(_partners(free), key=lambda ij: (_repeats((free[0], free[ij[0]], free[ij[1]]), met),
                                                   ij[0] + ij[1], ij[0]))
        out += [free[0], free[i], free[j]]
        free = [p for k, p in enumerate(free) if k not in (0, i, j)]
    return out


def next_seating(stage: Stage, seating: Seating, landlords: Mapping[int, int], standing: Sequence[tuple[int, int]],
                 seed: int, salt: str, met: Collection[frozenset[int]] = ()) -> Seating:
    """The tables of a stage's next session after ``seating``; ``met``: who has already met
    (the Swiss draw keeps them apart where it can)."""
    if stage.movement == "landlord":
        return landlord_moves(seating, landlords)
    if stage.movement == "rotate":
        return rotate(seating)
    if stage.movement == "swiss":
        return swiss(standing, seed, salt, met)
    return dict(seating)


# ---------------------------------------------------------------------- ranking
def ranked(points: Mapping[int, int], seed: int, salt: str, playoff: Sequence[int] = ()) -> list[int]:
    """Players by points, highest first. Equal points: the order of a recorded play-off
    (``playoff``: its players, best first) among those who played it, else an order drawn
    under the seed, which only ranks ties that decide nothing (see :func:`cut_tie`).

    >>> ranked({1: 5, 2: 9, 3: 5}, seed=1, salt="s", playoff=[3, 1])
    [2, 3, 1]
    """
    rng = random.Random(f"{seed}:{salt}")
    tie = {p: rng.random() for p in sorted(points)}
    place = {p: i for i, p in enumerate(playoff)}
    return sorted(points, key=lambda p: (-points[p], place.get(p, len(place)), tie[p]))


def cut_tie(order: Sequence[int], points: Mapping[int, int], places: int) -> list[int] | None:
    """The players tied on points across the cut, when the best ``places`` of ``order`` go on
    and the last place that goes on has the same points as the first that does not (the seed's
    并列办法: a tie plays one extra hand); ``None`` when the cut falls between points.

    >>> cut_tie([5, 2, 7, 4, 1], {5: 30, 2: 12, 7: 12, 4: 12, 1: -4}, places=2)
    [2, 7, 4]
    >>> cut_tie([5, 2, 7], {5: 30, 2: 12, 7: 10}, places=2) is None
    True
    """
    if places < 1 or len(order) <= places or points[order[places - 1]] != points[order[places]]:
        return None
    level = points[order[places]]
    return [p for p in order if points[p] == level]


def tied(totals: Sequence[int], rule: str, out: Sequence[int] = ()) -> bool:
    """Whether a table's result needs an extra hand: ``top``: the lead is shared; ``all``: any
    two players still in (not ``out``, i.e. disqualified) hold the same total."""
    live = [t for i, t in enumerate(totals) if i not in out]
    if rule == "top":
        return bool(live) and live.count(max(live)) > 1
    if rule == "all":
        return len(set(live)) < len(live)
    return False


def with_minutes(fmt: Format, minutes: int) -> Format:
    """A format with every timed stage at ``minutes`` (a short demo of the same event)."""
    return replace(fmt, stages=tuple(replace(s, minutes=minutes) if s.minutes else s for s in fmt.stages))
