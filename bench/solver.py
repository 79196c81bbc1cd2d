"""Perfect-information solver benchmark: the pure-Python search and the compiled core side by
side (prints tables; not a test).

    python -m bench.solver                                  # defaults: about ten minutes
    python -m bench.solver --sizes 8 --positions 10 --full 0 --check 0
    python -m bench.solver --check 10000 --sizes '' --full 0      # the correctness run
    python -m bench.solver --sizes 12 --positions 8 --python-budget 10 --full 20   # the issue's figures
    python -m bench.solver --sizes 12 --positions 8 --full 0 --check 0 --same-nodes 1000000

What is measured (the machine's load average is printed first and last: the machines this
runs on are shared, and only figures of one run compare)
  1. Positions from bot games (``sim.bots.play_hand``, classic, short deals): each seat dealt
     N cards (N = 8, 12, 16), bots bid, the landlord takes the kitty (N + 3 cards) and leads.
     Each is solved once by each search with its budget; a position solved in t seconds counts as
     solved within every budget >= t. Rows: ``python`` (engine.solver.search, the reference),
     ``same`` (the compiled core searching exactly the reference's nodes: ``cuts=0``; its nodes a
     second against the reference's is the like-for-like speed-up) and ``core`` (the compiled
     core as the analysis runs it). Nodes a second are over all the positions, solved or not.
     Each row is counted twice, by wall seconds and by the process's CPU seconds, and each
     position's wall/CPU seconds are printed ('-' for the wall time of one not solved): on a
     loaded machine the CPU seconds are what a quiet machine's wall time would be near.
     With ``--same-nodes N`` the ``python`` and ``same`` rows stop each position at N nodes
     (or when solved) instead of at a time budget: the two then search exactly the same nodes
     (while neither table has reached its bound), and the ratio of their CPU seconds is the
     like-for-like speed-up whatever share of the machine each got.
  2. Full classic hands: the opening position (landlord 20 cards, farmers 17, landlord to lead)
     of bot-dealt hands, solved by the compiled core with budgets of 10 s and 60 s (wall), counted
     by wall and by CPU seconds as in 1.
  3. Correctness: the compiled core, with and without its table (and the reference with
     ``--check-python``), against the exhaustive minimax (``engine.solver.brute_force``) on
     random positions of 1 to 6 cards a seat (half of them with a trick to beat).
  4. A hand's 复盘 as the site makes it (``--analyse N``): full classic hands bid and played by
     bots, analysed with the site's budget (``webui.analysis.WEB_SECONDS``, an eighth of it for
     each seat-as-landlord check): the play it was solved from, the seconds, and the process's
     peak memory.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import time
from collections.abc import Callable

from engine.analysis import analyse
from engine.cards import rank_counts
from engine.events import Deal
from engine.record import RecordedHand
from engine.solver import CompiledSolver, Position, Solver, brute_force, random_position
from engine.solver.compiled import available, why_not
from engine.solver.search import Verdict
from sim.bots import play_hand

Make = Callable[[Position], "Solver | CompiledSolver"]


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


SEARCHES: dict[str, Make] = {
    "python": lambda p: Solver(p.rules, p.landlord),
    "same": lambda p: CompiledSolver(p.rules, p.landlord, cuts=0),
    "core": lambda p: CompiledSolver(p.rules, p.landlord),
}


def run(positions: list[Position], budget: float | None, make: Make,
        nodes: int | None = None) -> tuple[list[Verdict], list[float], int, float]:
    """Each position's verdict within ``budget`` (wall seconds) and ``nodes`` (None: no bound),
    the process's CPU seconds each took (what a loaded machine leaves comparable), and nodes and
    wall time in all."""
    verdicts: list[Verdict] = []
    cpu: list[float] = []
    for p in positions:
        started = time.process_time()
        verdicts.append(make(p).solve(p, seconds=budget, nodes=nodes))
        cpu.append(time.process_time() - started)
    return verdicts, cpu, sum(v.nodes for v in verdicts), sum(v.seconds for v in verdicts)


def solved_times(verdicts: list[Verdict], seconds: list[float] | None = None) -> list[float | None]:
    """The seconds each solved position took (wall, or ``seconds`` given); None where unsolved."""
    took = seconds if seconds is not None else [v.seconds for v in verdicts]
    return [t if v.exact else None for v, t in zip(verdicts, took, strict=True)]


def each(verdicts: list[Verdict], cpu: list[float]) -> str:
    """Wall / CPU seconds of each position, '-' for the wall time of one not solved."""
    return " ".join(f"{v.seconds:.2f}/{c:.2f}" if v.exact else f"-/{c:.2f}" for v, c in zip(verdicts, cpu, strict=True))


def shares(times: list[float | None], budgets: list[float]) -> str:
    n = len(times)
    return "  ".join(f"<= {b:g} s: {sum(1 for t in times if t is not None and t <= b)}/{n}" for b in budgets)


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (1 min), {five:.1f} (5 min) on {os.cpu_count()} cores"


def section_positions(args: argparse.Namespace) -> None:
    budgets = sorted(float(b) for b in args.budgets.split(","))
    print(f"1. Positions from bot games ({args.positions} per size, budget {budgets[-1]:g} s, the reference "
          f"{args.python_budget:g} s; seed {args.seed})")
    for size in (int(s) for s in args.sizes.split(",") if s):
        positions = bot_positions(size, args.positions, args.seed + size)
        rates: dict[str, float] = {}
        answers: dict[str, list[bool | None]] = {}
        cpu_rates: dict[str, float] = {}
        for name in ("python", "same", "core"):
            budget: float | None = args.python_budget if name == "python" else budgets[-1]
            bound = args.same_nodes if name in ("python", "same") and args.same_nodes else None
            if bound:
                budget = None
            verdicts, cpu, nodes, spent = run(positions, budget, SEARCHES[name], bound)
            times = solved_times(verdicts)
            answers[name] = [v.landlord_wins for v in verdicts]
            rates[name] = nodes / max(spent, 1e-9)
            solved = [t for t in times if t is not None]
            worst = f"{max(solved):.2f}" if solved else "-"
            cpu_rates[name] = nodes / max(sum(cpu), 1e-9)
            ratio = f"  ({rates[name] / rates['python']:.0f}x the reference)" if name != "python" else ""
            cpu_ratio = f"  ({cpu_rates[name] / cpu_rates['python']:.1f}x the reference)" if name != "python" else ""
            within = f"  within {bound:,} nodes a position" if bound else ""
            print(f"  {size:>2} cards a seat, landlord {size + 3}  {name:<6}  wall {shares(times, budgets)}  "
                  f"slowest solved {worst} s  {rates[name]:>12,.0f} nodes/s{ratio}{within}", flush=True)
            print(f"  {'':>29}{'':<6}  CPU  {shares(solved_times(verdicts, cpu), budgets)}  "
                  f"{cpu_rates[name]:>12,.0f} nodes/s of CPU{cpu_ratio}", flush=True)
            print(f"  {'':>29}{'':<6}  seconds each, wall/CPU: {each(verdicts, cpu)}", flush=True)
        clash = [i for i in range(len(positions)) if len({a[i] for a in answers.values()} - {None}) > 1]
        if clash:
            print(f"  !! the searches disagree on positions {clash}")


def section_full(args: argparse.Namespace) -> None:
    budgets = sorted(float(b) for b in args.full_budgets.split(","))
    print(f"2. Full classic hands from the deal (20/17/17), {args.full} hands, seed {args.seed}")
    positions = bot_positions(17, args.full, args.seed + 1000)
    verdicts, cpu, nodes, spent = run(positions, budgets[-1], SEARCHES["core"])
    print(f"  core  wall {shares(solved_times(verdicts), budgets)}  {nodes / max(spent, 1e-9):,.0f} nodes/s",
          flush=True)
    print(f"  core  CPU  {shares(solved_times(verdicts, cpu), budgets)}  "
          f"{nodes / max(sum(cpu), 1e-9):,.0f} nodes/s of CPU", flush=True)
    print(f"  seconds each, wall/CPU: {each(verdicts, cpu)}")


def section_check(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    agree = 0
    start = time.perf_counter()
    for i in range(args.check):
        p = random_position(rng, rng.randint(1, 6))
        expected = brute_force(p)
        answers = [CompiledSolver(p.rules, p.landlord, table_mb=1, cache_mb=2).solve(p).landlord_wins,
                   CompiledSolver(p.rules, p.landlord, table=False, table_mb=1, cache_mb=2).solve(p).landlord_wins]
        if args.check_python:
            answers += [Solver(p.rules, p.landlord).solve(p).landlord_wins,
                        Solver(p.rules, p.landlord, table=False).solve(p).landlord_wins]
        if all(a == expected for a in answers):
            agree += 1
        else:
            print(f"  DISAGREE on position {i}: brute {expected}, searches {answers}: {p}")
    searched = "the compiled core and the reference" if args.check_python else "the compiled core"
    print(f"3. Correctness: {agree}/{args.check} random positions of 1-6 cards a seat: {searched}, with and "
          f"without the table, agree with brute force ({time.perf_counter() - start:.0f} s)")


def section_analyse(args: argparse.Namespace) -> None:
    seconds = args.analyse_seconds
    print(f"4. Full hands analysed as the site does ({args.analyse} bot hands, {seconds:g} s and "
          f"{seconds / 8:g} s a seat check, seed {args.seed})")
    rng = random.Random(args.seed + 2000)
    for k in range(args.analyse):
        played = play_hand("classic", rng)
        while played.redeal:
            played = play_hand("classic", rng)
        a = analyse(RecordedHand.of(played, ("甲", "乙", "丙")), seconds, seconds / 8)
        seats = " ".join("-" if w is None else "won" if w else "lost" for w in a.as_landlord or ())
        print(f"  hand {k + 1}: {len(a.steps)} plays and passes, solved from play {a.solved_from} "
              f"({a.seconds:.1f} s, {a.nodes:,} nodes); each seat as landlord: {seats}", flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  peak memory of this process: {peak:.0f} MiB")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--sizes", default="8,12,16", help="cards a seat for section 1 ('' to skip)")
    parser.add_argument("--positions", type=int, default=4, help="positions per size")
    parser.add_argument("--budgets", default="1,10", help="seconds, comma-separated; the largest is spent")
    parser.add_argument("--python-budget", type=float, default=10.0, help="seconds for the reference search")
    parser.add_argument("--same-nodes", type=int, default=0,
                        help="the python and same rows: each position within this many nodes, not seconds (0: seconds)")
    parser.add_argument("--full", type=int, default=4, help="full classic hands for section 2 (0 to skip)")
    parser.add_argument("--full-budgets", default="10,60")
    parser.add_argument("--check", type=int, default=300, help="random positions for section 3 (0 to skip)")
    parser.add_argument("--check-python", action="store_true", help="section 3 checks the reference too")
    parser.add_argument("--analyse", type=int, default=0, help="full hands for section 4 (0 to skip)")
    parser.add_argument("--analyse-seconds", type=float, default=60.0, help="the site's budget a hand")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.same_nodes < 0:
        parser.error(f"--same-nodes must be 0 or more, got {args.same_nodes}")
    if not available():
        print(f"bench.solver: {why_not()}", file=sys.stderr)
        return 2
    print(f"Python {sys.version.split()[0]}; {load()}", flush=True)
    if args.sizes:
        section_positions(args)
    if args.full:
        section_full(args)
    if args.check:
        section_check(args)
    if args.analyse:
        section_analyse(args)
    print(f"({load()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
