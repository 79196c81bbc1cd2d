"""How fast do live viewers see an event? N concurrent SSE viewers on ``ddz-table serve``.

The site runs as its own process (waitress, as deployed); this script appends events to the
same SQLite store from another process (as the camera pipeline would) and measures, for every
viewer and every event, the time from ``append`` returning to the viewer receiving the
message carrying that event's ``seq``. Prints latency percentiles; the target is < 200 ms
with 50 viewers. Not a test: figures depend on the machine.

    .venv/bin/python -m bench.sse --viewers 50 --events 60 --interval 0.25
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from engine.events import Event
from sim.scripted import random_hand
from tracker.store import EventStore

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Viewer(threading.Thread):
    """One browser tab: an open event stream; notes when each seq arrives."""

    def __init__(self, port: int, path: str) -> None:
        super().__init__(daemon=True)
        self.port, self.path = port, path
        self.seen: dict[int, float] = {}
        self.ready = threading.Event()
        self.error: str | None = None
        self.sock: socket.socket | None = None

    def run(self) -> None:
        try:
            sock = self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=30)
            sock.sendall(f"GET {self.path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode())
            buffer = b""
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    return
                now = time.perf_counter()
                buffer += chunk
                # Only the "id:" lines matter; the JSON is not parsed, to keep the client light.
                while b"\nid: " in buffer:
                    start = buffer.index(b"\nid: ") + 5
                    end = buffer.find(b"\n", start)
                    if end < 0:
                        break
                    self.seen.setdefault(int(buffer[start:end]), now)
                    self.ready.set()
                    buffer = buffer[end:]
                if len(buffer) > 1 << 20:
                    buffer = buffer[-4096:]
        except OSError as exc:
            self.error = str(exc)
            self.ready.set()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--viewers", type=int, default=50)
    parser.add_argument("--events", type=int, default=60)
    parser.add_argument("--interval", type=float, default=0.25, help="seconds between appended events")
    parser.add_argument("--threads", type=int, default=72, help="server threads (ddz-table serve --threads)")
    args = parser.parse_args(argv)

    workdir = tempfile.mkdtemp(prefix="ddz-bench-sse-")
    db = os.path.join(workdir, "table.db")
    store = EventStore(db)
    match_id = store.create_match(("张三", "李四", "王五"), "classic", meta={"name": "bench"})
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "serve", "--db", db, "--port", str(port), "--threads", str(args.threads),
         "--pin", "000000"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.time() + 30
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1).read()
                break
            except OSError:
                if time.time() > deadline or server.poll() is not None:
                    print("the server did not start:\n" + (server.stdout.read() if server.stdout else ""))
                    return 1
                time.sleep(0.2)
        viewers = [Viewer(port, f"/api/events?match={match_id}") for _ in range(args.viewers)]
        for v in viewers:
            v.start()
        for v in viewers:
            v.ready.wait(30)
        failed = [v.error for v in viewers if v.error or not v.seen]
        print(f"{args.viewers - len(failed)} of {args.viewers} viewers connected"
              + (f"; failures: {failed[:3]}" if failed else ""))

        events: list[tuple[int, Event]] = []
        hand_no, sent = 0, {}
        while len(events) < args.events:
            hand_no += 1
            events.extend((hand_no, e) for e in random_hand("classic", hand_no).log)
        for hand, event in events[:args.events]:
            seq = store.append(match_id, hand, event)
            sent[seq] = time.perf_counter()
            time.sleep(args.interval)
        time.sleep(1.0)

        latencies, missed = [], 0
        for v in viewers:
            for seq, t0 in sent.items():
                if seq in v.seen:
                    latencies.append((v.seen[seq] - t0) * 1000)
                elif not any(s > seq for s in v.seen):  # a later update also carries this one
                    missed += 1
        for v in viewers:
            if v.sock is not None:
                v.sock.close()
        if not latencies:
            print("no updates received")
            return 1
        latencies.sort()

        def pct(p: float) -> float:
            return latencies[min(len(latencies) - 1, int(p / 100 * len(latencies)))]

        print(f"events appended: {len(sent)} every {args.interval * 1000:.0f} ms, from another process")
        print(f"deliveries measured: {len(latencies)} (coalesced or missed: {len(sent) * args.viewers - len(latencies)}, "
              f"never covered: {missed})")
        print(f"append -> viewer latency ms: median {statistics.median(latencies):.1f}  p90 {pct(90):.1f}  "
              f"p99 {pct(99):.1f}  max {latencies[-1]:.1f}")
        print(f"share under 200 ms: {100 * sum(1 for x in latencies if x < 200) / len(latencies):.1f}%")
        return 0
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        store.close()


if __name__ == "__main__":
    sys.exit(main())
