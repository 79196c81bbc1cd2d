"""Perfect-information solver benchmark (prints tables; not a test).

    .venv/bin/python -m bench.solver                      # defaults: a few minutes
    .venv/bin/python -m bench.solver --sizes 8 --positions 10 --full 0 --check 0
    .venv/bin/python -m bench.solver --check 10000 --sizes '' --full 0   # the correctness run

What is measured
  1. Positions from bot games (``sim.bots.play_hand``, classic, short deals): each seat dealt
     N cards (N = 8, 12, 16), bots bid, the landlord takes the kitty (N + 3 cards) and leads.
     Each is solved once with the largest budget; a position solved in t seconds counts as
     solved within every budget >= t. The same positions are then solved by the plain
     alpha-beta (the same search without the transposition table). Nodes per second are over
     all the positions, solved or not.
  2. Full classic hands: the opening position (landlord 20 cards, farmers 17, landlord to lead)
     of bot-dealt hands (``bot_positions(17, ...)``), with budgets of 10 s and 60 s.
  3. Correctness: the solver, with and without its table, against the exhaustive minimax
     (``engine.solver.brute_force``) on random positions of 1 to 6 cards a seat (half of them
     with a trick to beat).
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from engine.cards import rank_counts
from engine.events import Deal
from engine.solver import Position, Solver, brute_force, random_position
from sim.bots import play_hand


def bot_positions(size: int, count: int, seed: int) -> list[Position]:
    """Opening positions of ``count`` bot hands dealt ``size`` cards a seat (``sim.bots.play_hand``:
    bots bid, the landlord takes the 3-card kitty and leads); 17 is a full classic deal."""
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        played = play_hand("classic", rng, cards=size)
        if played.redeal:
            continue
        deal = played.events[0]
        assert isinstance(deal, Deal) and deal.hands is not None  # the bots deal known hands
        assert played.landlord is not None and played.kitty is not None
        cards = [list(h) for h in deal.hands]
        cards[played.landlord] += list(played.kitty)
        counts = tuple(tuple(rank_counts(h)) for h in cards)
        found.append(Position(counts, played.landlord, played.landlord, rules=played.rules))
    return found


def run(positions: list[Position], budget: float, table: bool) -> tuple[list[float | None], int, float]:
    """Seconds each position took (None: not solved within ``budget``), nodes and time in all."""
    times: list[float | None] = []
    nodes, spent = 0, 0.0
    for p in positions:
        solver = Solver(p.rules, p.landlord, table=table)
        v = solver.solve(p, seconds=budget)
        nodes += v.nodes
        spent += v.seconds
        times.append(v.seconds if v.exact else None)
    return times, nodes, spent


def shares(times: list[float | None], budgets: list[float]) -> str:
    n = len(times)
    return "  ".join(f"<= {b:g} s: {sum(1 for t in times if t is not None and t <= b)}/{n}" for b in budgets)


def section_positions(args: argparse.Namespace) -> None:
    budgets = sorted(float(b) for b in args.budgets.split(","))
    print(f"1. Positions from bot games ({args.positions} per size, budget {budgets[-1]:g} s, seed {args.seed})")
    for size in (int(s) for s in args.sizes.split(",") if s):
        positions = bot_positions(size, args.positions, args.seed + size)
        modes = [("table", True)] + ([("plain", False)] if size <= args.plain_max else [])
        for name, table in modes:
            times, nodes, spent = run(positions, budgets[-1], table)
            solved = [t for t in times if t is not None]
            worst = f"{max(solved):.2f}" if solved else "-"
            print(f"  {size:>2} cards a seat, landlord {size + 3}  {name:<5}  {shares(times, budgets)}  "
                  f"slowest solved {worst} s  {nodes / max(spent, 1e-9):,.0f} nodes/s", flush=True)


def section_full(args: argparse.Namespace) -> None:
    budgets = sorted(float(b) for b in args.full_budgets.split(","))
    print(f"2. Full classic hands from the deal (20/17/17), {args.full} hands, seed {args.seed}")
    positions = bot_positions(17, args.full, args.seed + 1000)
    times, nodes, spent = run(positions, budgets[-1], True)
    print(f"  table  {shares(times, budgets)}  {nodes / max(spent, 1e-9):,.0f} nodes/s", flush=True)


def section_check(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    agree = 0
    start = time.perf_counter()
    for i in range(args.check):
        p = random_position(rng, rng.randint(1, 6))
        expected = brute_force(p)
        with_table = Solver(p.rules, p.landlord).solve(p).landlord_wins
        plain = Solver(p.rules, p.landlord, table=False).solve(p).landlord_wins
        if with_table == plain == expected:
            agree += 1
        else:
            print(f"  DISAGREE on position {i}: brute {expected}, table {with_table}, plain {plain}: {p}")
    print(f"3. Correctness: {agree}/{args.check} random positions of 1-6 cards a seat agree with brute force "
          f"({time.perf_counter() - start:.0f} s)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="8,12,16", help="cards a seat for section 1 ('' to skip)")
    parser.add_argument("--positions", type=int, default=4, help="positions per size")
    parser.add_argument("--budgets", default="1,10", help="seconds, comma-separated; the largest is spent")
    parser.add_argument("--plain-max", type=int, default=12, help="run the plain alpha-beta up to this size")
    parser.add_argument("--full", type=int, default=2, help="full classic hands for section 2 (0 to skip)")
    parser.add_argument("--full-budgets", default="10,60")
    parser.add_argument("--check", type=int, default=300, help="random positions for section 3 (0 to skip)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.sizes:
        section_positions(args)
    if args.full:
        section_full(args)
    if args.check:
        section_check(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
