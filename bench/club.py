"""Club server throughput and latency, the server measured apart from its load.

One ``ddz-table club`` process serves an event of N tables (a seed004 knockout drawn and
started, so the hall screen folds and shows every table). The load generator is a second
process that does as little as it can while the clock runs: every table's batches are built and
every box registered before the clock starts; then a few worker threads post them on keep-alive
HTTP connections (``http.client``), each table once every ``--post-every`` seconds (the box's
replicator pause) at ``--rate`` events a second, spread evenly over the second. One more
connection polls the hall's data (``/api/hall``) every ``--hall-poll`` seconds.

It prints, apart: events due, events sent (answered 200), events ingested (acknowledged, as
the hall shows them); the server's own time per batch (its ``Server-Timing`` header: parse,
store, the hall's fold, total); the posts' round trip; how late the generator sent (if it fell
behind, the figures are the generator's, not the server's); the CPU used by the server, by the
database (PostgreSQL's processes) and by the generator; and the latency from an event's append
(its due time: the box posts at once) to the hall's data showing it: p50, p99, max.
Target (docs/club.md): 300 tables at one event a second each, p99 under 1 s.

    .venv/bin/python -m bench.club --tables 60 --seconds 20 --db sqlite
    .venv/bin/python -m bench.club --tables 300 --seconds 20 --db postgresql
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from club.pglocal import LocalPostgres, free_port
from club.storage import open_storage
from club.tournament import fold, next_session
from sim.scripted import random_hand

ROOT = Path(__file__).resolve().parents[1]

KEY = "bench-key"
TICK = os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of these processes so far (Linux /proc)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / TICK


def children(pid: int) -> list[int]:
    """``pid`` and its direct children (PostgreSQL's backends and workers)."""
    found = [pid]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


# ---------------------------------------------------------------------- before the clock
def prepare_event(db: str, tables: int) -> list[str]:
    """A seed004 event of 3 x ``tables`` players, drawn and started; each table's session key."""
    st = open_storage(db)
    now = time.time()
    tid = st.create_tournament("bench", "seed004", {}, seed=1, now=now)
    for p in range(1, 3 * tables + 1):
        st.add_player(tid, f"P{p}", "", f"code-{p}")
    data = next_session(fold(st.tournament(tid), st.players(tid), st.actions(tid)), {}, now)
    st.act(tid, "session", data, now)
    st.act(tid, "start", {"session": data["key"], "at": now}, now)
    st.close()
    return [data["key"]] * tables


@dataclass
class Post:
    table: int
    due: float  # seconds after the clock's start
    body: bytes
    events: int
    last_seq: int


@dataclass
class Table:
    number: int
    token: str = ""
    posts: list[Post] = field(default_factory=list)


def build(tables: int, seconds: float, rate: float, every: float, sessions: list[str]) -> list[Table]:
    """Every table's batches, in the wire format of ``tracker.replicate`` (see club.ingest)."""
    per_post = max(1, round(rate * every))
    count = int(seconds / every)
    out = []
    for t in range(1, tables + 1):
        box = f"bench-box-{t:05d}"
        stream: list[tuple[int, dict[str, Any]]] = []
        hand, seed = 0, t * 10_000
        while len(stream) < per_post * count:
            hand, seed = hand + 1, seed + 1
            stream += [(hand, e.to_dict()) for e in random_hand("chips", seed).log]
        table = Table(t)
        phase = (t - 1) / tables * every  # tables spread evenly over the pause
        match = {"id": 1, "players": ["甲", "乙", "丙"], "preset": {"name": "chips", "changes": {}},
                 "created": time.time(), "meta": {"club_session": sessions[t - 1]}}
        for j in range(count):
            first = j * per_post + 1
            events = [{"seq": s, "prev": s - 1, "match_id": 1, "hand": stream[s - 1][0], "time": time.time(),
                       "kind": stream[s - 1][1]["kind"], "source": "camera", "event": stream[s - 1][1]}
                      for s in range(first, first + per_post)]
            body = {"box": box, "events": events, "matches": [match] if j == 0 else []}
            table.posts.append(Post(t, phase + j * every, json.dumps(body, ensure_ascii=False).encode(), per_post,
                                    first + per_post - 1))
        out.append(table)
    return out


def _connect(url: str) -> http.client.HTTPConnection:
    """A connection to the club server at ``url``."""
    parts = urlsplit(url)
    if parts.hostname is None:
        raise ValueError(f"no host in {url!r}")
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)


def register(url: str, tables: list[Table]) -> None:
    conn = _connect(url)
    for table in tables:
        body = json.dumps({"table": table.number, "box": f"bench-box-{table.number:05d}", "key": KEY})
        conn.request("POST", "/api/register", body, {"Content-Type": "application/json"})
        answer = conn.getresponse()
        data = json.loads(answer.read())
        if answer.status != 200:
            raise SystemExit(f"registration of table {table.number} refused: {data}")
        table.token = data["token"]
    conn.close()


# ---------------------------------------------------------------------- while the clock runs
@dataclass
class Sent:
    table: int
    due: float
    sent: float
    done: float
    status: int
    events: int
    last_seq: int
    timing: dict[str, float]


def timing_of(header: str | None) -> dict[str, float]:
    out = {}
    for part in (header or "").split(","):
        name, _, dur = part.strip().partition(";dur=")
        if dur:
            out[name] = float(dur) / 1000
    return out


def worker(url: str, mine: list[tuple[Post, str]], start: float, seconds: float, log: list[Sent],
           errors: list[str]) -> None:
    """Post this worker's batches at their due times on one keep-alive connection (a table's
    next batch only after the answer to its last, as the box's replicator does)."""
    conn = _connect(url)
    for post, token in mine:
        if post.due >= seconds:
            break
        wait = start + post.due - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        elif time.monotonic() - start >= seconds + 5:
            break  # far behind: the rest is counted as due but not sent
        sent = time.monotonic()
        for _attempt in range(3):  # as the replicator does, a post that breaks is sent again
            try:
                conn.request("POST", f"/api/tables/{post.table}/events", post.body,
                             {"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
                answer = conn.getresponse()
                text = answer.read()
                status, header = answer.status, answer.getheader("Server-Timing")
                if status != 200:
                    errors.append(f"HTTP {status}: {text[:200].decode(errors='replace')}")
                break
            except OSError as exc:
                conn.close()
                conn = _connect(url)
                status, header = 0, None
                errors.append(f"{type(exc).__name__}: {exc}")
        log.append(Sent(post.table, post.due, sent - start, time.monotonic() - start, status, post.events,
                        post.last_seq, timing_of(header)))
    conn.close()


def watch(url: str, start: float, due_of: dict[tuple[int, int], float], every: float, stop: threading.Event,
          seen: dict[int, int], latencies: list[float], trips: list[float]) -> None:
    """Poll the hall's data; each newly acknowledged event's latency from its due time."""
    conn = _connect(url)
    while not stop.is_set():
        asked = time.monotonic()
        try:
            conn.request("GET", "/api/hall")
            data = json.loads(conn.getresponse().read())
            trips.append(time.monotonic() - asked)
        except (OSError, ValueError):
            conn.close()
            conn = _connect(url)
            continue
        now = time.monotonic() - start
        for table, box in data["boxes"].items():
            t = int(table)
            for seq in range(seen.get(t, 0) + 1, box["acked"] + 1):
                if (t, seq) in due_of:
                    latencies.append(now - due_of[(t, seq)])
            seen[t] = max(seen.get(t, 0), box["acked"])
        stop.wait(every)
    conn.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=60)
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the load runs")
    parser.add_argument("--rate", type=float, default=1.0, help="events per second per table")
    parser.add_argument("--post-every", type=float, default=1.0, help="seconds between a table's posts (the "
                        "replicator's pause)")
    parser.add_argument("--workers", type=int, default=64, help="posting threads, one keep-alive connection each "
                        "(few enough to cost little CPU, enough that one slow answer does not hold up the others)")
    parser.add_argument("--hall-poll", type=float, default=0.1, help="seconds between polls of /api/hall")
    parser.add_argument("--threads", type=int, default=48, help="the server's threads")
    parser.add_argument("--db", choices=("sqlite", "postgresql"), default="sqlite")
    args = parser.parse_args(argv)
    if args.tables < 1 or args.seconds <= 0 or args.rate <= 0 or args.post_every <= 0 or args.workers < 1:
        parser.error("tables, workers, seconds, rate and post-every must be positive")

    folder = Path(tempfile.mkdtemp(prefix="ddz-club-bench-"))
    pg = LocalPostgres(durable=True).start() if args.db == "postgresql" else None
    db = pg.url if pg else str(folder / "club.db")
    server = None
    try:
        sessions = prepare_event(db, args.tables)
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "cli.main", "club", "--db", db, "--port", str(port),
                                   "--key", KEY, "--threads", str(args.threads)], cwd=ROOT,
                                  env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL,
                                  stderr=open(folder / "server.log", "wb"))
        url = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
                conn.request("GET", "/healthz")
                conn.getresponse().read()
                break
            except OSError:
                time.sleep(0.1)
        built = time.perf_counter()
        tables = build(args.tables, args.seconds, args.rate, args.post_every, sessions)
        register(url, tables)
        built = time.perf_counter() - built
        schedule = sorted(((p, tb.token) for tb in tables for p in tb.posts), key=lambda pt: pt[0].due)
        # A table's posts all go through one worker, one after the other, as its replicator sends them.
        shares: list[list[tuple[Post, str]]] = [[pt for pt in schedule if pt[0].table % args.workers == w]
                                                for w in range(args.workers)]
        due_of = {(p.table, s): p.due for p, _ in schedule for s in range(p.last_seq - p.events + 1, p.last_seq + 1)}

        log: list[Sent] = []
        errors: list[str] = []
        latencies: list[float] = []
        hall_trips: list[float] = []
        seen: dict[int, int] = {}
        stop = threading.Event()
        db_pids = children(pg.process.pid) if pg and pg.process else []
        cpu_before = (cpu_seconds([server.pid]), cpu_seconds(db_pids), resource.getrusage(resource.RUSAGE_SELF))
        start = time.monotonic() + 0.5
        workers = [threading.Thread(target=worker, args=(url, share, start, args.seconds, log, errors), daemon=True)
                   for share in shares]
        watcher = threading.Thread(target=watch, args=(url, start, due_of, args.hall_poll, stop, seen, latencies, hall_trips),
                                   daemon=True)
        for th in (*workers, watcher):
            th.start()
        for th in workers:
            th.join()
        posted_until = time.monotonic() - start
        sent_ok = sum(s.events for s in log if s.status == 200)
        expected: dict[int, int] = {}
        for s in log:
            if s.status == 200:
                expected[s.table] = max(expected.get(s.table, 0), s.last_seq)
        deadline = time.monotonic() + 15  # let the hall catch up with what was sent
        while time.monotonic() < deadline and any(seen.get(t, 0) < n for t, n in expected.items()):
            time.sleep(0.05)
        stop.set()
        watcher.join(timeout=10)
        wall = time.monotonic() - start
        usage = resource.getrusage(resource.RUSAGE_SELF)
        cpu_server = cpu_seconds([server.pid]) - cpu_before[0]
        if pg and pg.process:  # backends started during the run count from their start
            db_pids = sorted(set(db_pids) | set(children(pg.process.pid)))
        cpu_db = cpu_seconds(db_pids) - cpu_before[1] if db_pids else 0.0
        cpu_gen = usage.ru_utime + usage.ru_stime - cpu_before[2].ru_utime - cpu_before[2].ru_stime
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=20)
        log_text = (folder / "server.log").read_text(errors="replace") if (folder / "server.log").exists() else ""
        if pg:
            pg.stop()
        shutil.rmtree(folder, ignore_errors=True)

    due = sum(p.events for p, _ in schedule if p.due < args.seconds)
    ingested = sum(seen.values())
    ok = [s for s in log if s.status == 200]
    total = [s.timing.get("total", float("nan")) for s in ok if "total" in s.timing]
    mean = lambda name: sum(s.timing.get(name, 0.0) for s in ok) / max(1, len(ok))  # noqa: E731
    lag = [s.sent - s.due for s in log]
    trip = [s.done - s.sent for s in ok]
    ms = lambda v: f"{1000 * v:.1f} ms"  # noqa: E731
    print(f"tables {args.tables}  db {args.db}  seconds {args.seconds:g}  rate {args.rate:g}/s/table  "
          f"post every {args.post_every:g} s  workers {args.workers}  (batches built and boxes registered "
          f"before the clock in {built:.1f} s)")
    print(f"events: due {due}  sent {sent_ok} ({len(ok)} posts; {len(log) - len(ok)} failed)  "
          f"ingested {ingested} ({ingested / args.seconds:.0f} events/s over {args.seconds:g} s; "
          f"posting ended at {posted_until:.1f} s)")
    if errors:
        print(f"refused or broken posts (a broken one is sent again): {len(errors)}, e.g. {errors[0]}")
    print(f"server time per batch: p50 {ms(percentile(total, 0.5))}  p99 {ms(percentile(total, 0.99))}  "
          f"mean {ms(sum(total) / max(1, len(total)))}  (mean token {ms(mean('token'))}, parse {ms(mean('parse'))}, "
          f"store {ms(mean('store'))}, "
          f"hall fold {ms(mean('fold'))})")
    print(f"post round trip: p50 {ms(percentile(trip, 0.5))}  p99 {ms(percentile(trip, 0.99))};  generator lag "
          f"(sent after due): p50 {ms(percentile(lag, 0.5))}  p99 {ms(percentile(lag, 0.99))}  "
          f"max {ms(max(lag, default=float('nan')))};  /api/hall round trip: p50 {ms(percentile(hall_trips, 0.5))}  "
          f"p99 {ms(percentile(hall_trips, 0.99))}")
    print(f"CPU over {wall:.1f} s: server {cpu_server:.1f} s ({cpu_server / wall:.2f} cores)"
          + (f"  PostgreSQL {cpu_db:.1f} s ({cpu_db / wall:.2f} cores)" if pg else "")
          + f"  generator {cpu_gen:.1f} s ({cpu_gen / wall:.2f} cores);  load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores;  every server thread busy (waitress queued a request) "
          f"{log_text.count('Task queue depth')} times")
    print(f"latency append->hall: p50 {percentile(latencies, 0.5):.3f} s  p99 {percentile(latencies, 0.99):.3f} s  "
          f"max {max(latencies, default=float('nan')):.3f} s  (n={len(latencies)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
