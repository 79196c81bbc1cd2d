"""The compiled core's node counts and CPU nodes a second on bench.solver's twelve-card positions,
each solved by a fresh solver within a fixed node budget (prints a table; not a test).

    python -m bench.solver_nodes                          # 3 million nodes each, the default cuts
    python -m bench.solver_nodes --nodes 12000000 --cuts 0 --which 4,6
    python -m bench.solver_nodes --nodes 3000000000 --which 2,3 --table-mb 4096   # the two hardest

A node count says what a change to the search changes whatever the machine's load; the CPU
seconds (the process's, system time included) say what a node costs, and on a shared machine
they vary from run to run: compare runs taken in turn, several each. docs/solver-log.md keeps
the figures of the changes tried.
"""

from __future__ import annotations

import argparse
import sys
import time

from bench.solver import bot_positions, load
from engine.solver import CompiledSolver
from engine.solver.compiled import CUTS, TABLE_MB, available, why_not


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--nodes", type=int, default=3_000_000, help="the node budget a position")
    parser.add_argument("--cuts", type=int, default=CUTS, help="the core's cuts (engine.solver.compiled)")
    parser.add_argument("--which", default="0,1,2,3,4,5,6,7", help="positions, numbered from 0")
    parser.add_argument("--size", type=int, default=12, help="cards a seat")
    parser.add_argument("--seed", type=int, default=12, help="bench.solver's seed for the size (0 + size)")
    parser.add_argument("--table-mb", type=float, default=TABLE_MB, help="the table's bound in MiB")
    args = parser.parse_args(argv)
    if args.table_mb <= 0:
        parser.error(f"--table-mb must be positive, got {args.table_mb:g}")
    if not available():
        print(f"bench.solver_nodes: {why_not()}", file=sys.stderr)
        return 2
    which = [int(i) for i in args.which.split(",") if i]
    positions = bot_positions(args.size, max(which) + 1, args.seed)
    print(f"{load()}; {args.nodes:,} nodes a position, cuts {args.cuts}, table {args.table_mb:g} MiB", flush=True)
    nodes = 0
    cpu = 0.0
    for i in which:
        p = positions[i]
        solver = CompiledSolver(p.rules, p.landlord, cuts=args.cuts, table_mb=args.table_mb)
        started = time.process_time()
        verdict = solver.solve(p, nodes=args.nodes)
        spent = time.process_time() - started
        nodes += verdict.nodes
        cpu += spent
        answer = "-" if verdict.landlord_wins is None else "landlord wins" if verdict.landlord_wins else "farmers win"
        print(f"  position {i}: {answer:<13} {verdict.nodes:>12,} nodes  {spent:6.2f} s CPU  "
              f"{verdict.nodes / max(spent, 1e-9):>12,.0f} nodes/s", flush=True)
    print(f"  all: {nodes:,} nodes, {cpu:.2f} s CPU, {nodes / max(cpu, 1e-9):,.0f} nodes/s ({load()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
