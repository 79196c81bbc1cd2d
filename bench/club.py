"""Club server throughput and latency: N simulated tables, each appending one event a second to
its own box store and replicating it (``tracker.replicate``) to one ``ddz-table club`` process.

Prints events per second ingested and the latency from a box's append to the moment the hall
screen's data (``/api/hall``, polled every 0.1 s) shows the server holding it: p50, p99, max.
Target (docs/club.md): 300 tables at one event per second each, p99 under 1 s.

    .venv/bin/python bench/club.py --tables 60 --seconds 20 --db sqlite
    .venv/bin/python bench/club.py --tables 300 --seconds 30 --db postgresql
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from club.pglocal import LocalPostgres, free_port  # noqa: E402
from sim.scripted import random_hand  # noqa: E402
from tracker.replicate import Replicator  # noqa: E402
from tracker.store import EventStore  # noqa: E402

KEY = "bench-key"


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=60)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rate", type=float, default=1.0, help="events per second per table")
    parser.add_argument("--db", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--interval", type=float, default=0.2, help="replicator pause between posts (s)")
    args = parser.parse_args(argv)

    folder = Path(tempfile.mkdtemp(prefix="ddz-club-bench-"))
    pg = LocalPostgres(durable=True).start() if args.db == "postgresql" else None
    db = pg.url if pg else str(folder / "club.db")
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen([sys.executable, "-m", "cli.main", "club", "--db", db, "--port", str(port), "--key", KEY,
                               "--threads", "48"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(url + "/healthz", timeout=1).read()
            break
        except OSError:
            time.sleep(0.1)
    stores = [EventStore(str(folder / f"box{t}.db")) for t in range(1, args.tables + 1)]
    matches = [s.create_match(("甲", "乙", "丙"), "chips") for s in stores]
    reps = [Replicator(s, url, table=t, key=KEY, interval=args.interval, timeout=10.0).start()
            for t, s in enumerate(stores, 1)]
    appended: dict[tuple[int, int], float] = {}
    latencies: list[float] = []
    stop = threading.Event()

    def feed() -> None:
        """One thread appends for every table, spread evenly over each second."""
        def script(t: int):
            for h in range(1, 10**6):
                for e in random_hand("chips", t * 1000 + h).log:
                    yield h, e

        scripts = [script(t) for t in range(len(stores))]
        gap = 1.0 / (args.rate * len(stores))
        start, k = time.monotonic(), 0
        while not stop.is_set():
            t = k % len(stores)
            hand, event = next(scripts[t])
            seq = stores[t].append(matches[t], hand, event)
            appended[(t + 1, seq)] = time.monotonic()
            k += 1
            delay = start + k * gap - time.monotonic()
            if delay > 0:
                time.sleep(delay)

    def watch() -> None:
        seen = {t: 0 for t in range(1, len(stores) + 1)}
        while not stop.is_set():
            try:
                data = json.loads(urllib.request.urlopen(url + "/api/hall", timeout=5).read())
            except OSError:
                continue
            now = time.monotonic()
            for table, box in data["boxes"].items():
                t = int(table)
                for seq in range(seen[t] + 1, box["acked"] + 1):
                    if (t, seq) in appended:
                        latencies.append(now - appended[(t, seq)])
                seen[t] = max(seen[t], box["acked"])
            time.sleep(0.1)

    threads = [threading.Thread(target=feed, daemon=True), threading.Thread(target=watch, daemon=True)]
    for th in threads:
        th.start()
    time.sleep(args.seconds)
    stop.set()
    for th in threads:
        th.join(timeout=10)
    for r in reps:
        r.stop(timeout=1)
    server.terminate()
    server.wait(timeout=20)
    sent = sum(r.sent for r in reps)
    print(f"tables {args.tables}  db {args.db}  seconds {args.seconds:.0f}  appended {len(appended)}  "
          f"ingested {sent} ({sent / args.seconds:.0f} events/s)  latency append->hall: "
          f"p50 {percentile(latencies, 0.5):.3f} s  p99 {percentile(latencies, 0.99):.3f} s  "
          f"max {max(latencies, default=float('nan')):.3f} s  (n={len(latencies)})")
    for s in stores:
        s.close()
    if pg:
        pg.stop()
    shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
