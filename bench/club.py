"""Club server throughput and latency, the server measured apart from its load.

One ``ddz-table club`` process serves an event of N tables (a seed004 knockout drawn and
started, so the hall screen folds and shows every table). A long evening is laid down first:
``--hands`` full hands per table already in the store (written straight into it before the
server starts, so the server rebuilds its projection from them as after a restart). The load
generator is a second process that does as little as it can while the clock runs: every
table's batches are built and every box registered before the clock starts; then worker
threads (one per table unless ``--workers`` says fewer) post them on keep-alive HTTP
connections (``http.client``), each table once every ``--post-every`` seconds (the box's
replicator pause) at ``--rate`` events a second, spread evenly over the second, continuing each
table's evening. ``--viewers`` hall screens do what ``hall.js`` does: each asks for the hall's
event stream first; those the server takes are read in one thread, counting the snapshots and
bytes without parsing them; those it refuses (past ``HALL_STREAMS``) ask for ``/api/hall`` once a
second with their ETag on their own keep-alive connections. One more connection polls
``/api/hall`` every ``--hall-poll`` seconds to time each event's way to the hall.

It prints, apart: events due, events sent (answered 200), events ingested (acknowledged, as
the hall shows them); the server's own time per batch (its ``Server-Timing`` header: parse,
store, the hall's fold, total); the posts' round trip; how late the generator sent (if it fell
behind, the figures are the generator's, not the server's); the CPU used by the server, by the
database (PostgreSQL's processes) and by the generator, and the server's CPU per event; the
viewers' answers (200 or 304) and round trips; and each event's latency to the hall's data
showing it (p50, p99, max), timed three ways: from its due time (the box appends it and posts
at once: this counts the generator's own lag), from its post's sending, and from its post's
answer, the server's acknowledgement: the target's append-to-hall. ``--profile FILE`` records
the server's stacks with py-spy while the clock runs.
Targets (docs/club.md): 300 tables x 40 hands, 300 viewers: p99 append-to-hall under 1 s and
p99 post under 0.5 s on PostgreSQL.

``--cost`` measures instead, in this process, what one hall request costs at evenings of
1,000 and 100,000 events (``--cost-events``): the projection rebuilt from the store (a
server's start), a request while nothing changed, and the rebuild of the snapshot after one
new event.

    .venv/bin/python -m bench.club --tables 60 --seconds 20 --db sqlite
    .venv/bin/python -m bench.club --tables 300 --hands 40 --viewers 300 --seconds 30 --db postgresql
    .venv/bin/python -m bench.club --cost
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import os
import resource
import selectors
import shutil
import socket
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
from club.storage import BoxEvent, BoxMatch, Storage, open_storage
from club.tournament import fold, next_session
from sim.scripted import random_hand

ROOT = Path(__file__).resolve().parents[1]

KEY = "bench-key"
TICK = os.sysconf("SC_CLK_TCK")
SPY = Path(os.environ.get("PY_SPY", "/work/tools/bin/py-spy"))  # --profile


POOL = 64  # distinct scripted hands the tables' evenings are drawn from (building each costs ~6 ms)


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
def prepare_event(db: str, tables: int, hands: int = 0, preset: str = "chips") -> tuple[list[str], int]:
    """A seed004 event of 3 x ``tables`` players, drawn and started, each table's first ``hands``
    hands already in the store; each table's session key, and the events laid down."""
    st = open_storage(db)
    now = time.time()
    tid = st.create_tournament("bench", "seed004", {}, seed=1, now=now)
    for p in range(1, 3 * tables + 1):
        st.add_player(tid, f"P{p}", "", f"code-{p}")
    data = next_session(fold(st.tournament(tid), st.players(tid), st.actions(tid)), {}, now)
    st.act(tid, "session", data, now)
    st.act(tid, "start", {"session": data["key"], "at": now}, now)
    sessions = [data["key"]] * tables
    laid = 0
    if hands:
        pool = hand_pool(preset)
        for t in range(1, tables + 1):
            laid += lay_down(st, t, sessions[t - 1], evening(pool, t, hands), now, preset)
    st.close()
    return sessions, laid


def hand_pool(preset: str) -> list[list[dict[str, Any]]]:
    return [[e.to_dict() for e in random_hand(preset, seed).log] for seed in range(POOL)]


def evening(pool: list[list[dict[str, Any]]], table: int, hands: int, first: int = 1) -> list[tuple[int, dict]]:
    """Table ``table``'s hands ``first`` .. ``first + hands - 1``: (hand number, event) in order."""
    return [(h, e) for h in range(first, first + hands) for e in pool[(table * 7 + h) % POOL]]


def box_of(table: int) -> str:
    return f"bench-box-{table:05d}"


def match_of(table: int, session: str, preset: str, created: float) -> dict[str, Any]:
    return {"id": 1, "players": ["甲", "乙", "丙"], "preset": {"name": preset, "changes": {}}, "created": created,
            "meta": {"club_session": session}}


def lay_down(st: Storage, table: int, session: str, stream: list[tuple[int, dict]], now: float, preset: str,
             batch: int = 2000) -> int:
    """A table's earlier hands written straight into the store, as its box's posts would have
    (event times within the session's first minutes, so every hand counts)."""
    box = box_of(table)
    st.register(table, box, "laid-down")
    m = match_of(table, session, preset, now)
    info = BoxMatch(table, box, 1, tuple(m["players"]), m["preset"], m["meta"], now)
    for i in range(0, len(stream), batch):
        events = [BoxEvent(table, box, s + 1, s, 1, hand, now + 0.01 * s, e["kind"], "camera", e)
                  for s, (hand, e) in enumerate(stream[i:i + batch], i)]
        st.ingest(table, box, events, [info] if i == 0 else [])
    return len(stream)


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


def build(tables: int, seconds: float, rate: float, every: float, sessions: list[str], hands: int = 0,
          preset: str = "chips") -> list[Table]:
    """Every table's batches, in the wire format of ``tracker.replicate`` (see club.ingest),
    continuing the ``hands`` laid down."""
    per_post = max(1, round(rate * every))
    count = int(seconds / every)
    pool = hand_pool(preset)
    out = []
    now = time.time()
    for t in range(1, tables + 1):
        box = box_of(t)
        done = len(evening(pool, t, hands))
        stream: list[tuple[int, dict[str, Any]]] = []
        more = 1
        while len(stream) < per_post * count:
            stream = evening(pool, t, more, hands + 1)
            more += 1
        table = Table(t)
        phase = (t - 1) / tables * every  # tables spread evenly over the pause
        match = match_of(t, sessions[t - 1], preset, now)
        for j in range(count):
            first = j * per_post + 1
            events = [{"seq": done + s, "prev": done + s - 1, "match_id": 1, "hand": stream[s - 1][0],
                       "time": now + 60 + s, "kind": stream[s - 1][1]["kind"], "source": "camera",
                       "event": stream[s - 1][1]}
                      for s in range(first, first + per_post)]
            body = {"box": box, "events": events, "matches": [match] if j == 0 else []}
            table.posts.append(Post(t, phase + j * every, json.dumps(body, ensure_ascii=False).encode(), per_post,
                                    done + first + per_post - 1))
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
        body = json.dumps({"table": table.number, "box": box_of(table.number), "key": KEY})
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
          seen: dict[int, int], shown: dict[tuple[int, int], float], trips: list[float]) -> None:
    """Poll the hall's data; ``shown``: when each newly acknowledged event was first seen in it
    (seconds after the clock's start)."""
    conn = _connect(url)
    while not stop.is_set():
        asked = time.monotonic()
        try:
            conn.request("GET", "/api/hall", headers={"Accept-Encoding": "gzip"})
            answer = conn.getresponse()
            body = answer.read()
            data = json.loads(gzip.decompress(body) if answer.getheader("Content-Encoding") == "gzip" else body)
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
                    shown[(t, seq)] = now
            seen[t] = max(seen.get(t, 0), box["acked"])
        stop.wait(every)
    conn.close()


def viewers(url: str, count: int, every: float, stop: threading.Event, trips: list[float],
            answers: dict[int, int]) -> None:
    """``count`` hall screens, each on its own keep-alive connection, each asking once every
    ``every`` seconds with the ETag of its last answer (a 304 while the hall is unchanged)."""
    conns: list[http.client.HTTPConnection | None] = [None] * count
    etags: list[str | None] = [None] * count
    start = time.monotonic()
    rounds = 0
    while not stop.is_set():
        for i in range(count):
            due = start + rounds * every + i * every / count  # the screens spread over the second
            wait = due - time.monotonic()
            if wait > 0 and stop.wait(wait):
                break
            conn = conns[i]
            if conn is None:
                conn = conns[i] = _connect(url)
            headers = {"Accept-Encoding": "gzip"}
            if etags[i]:
                headers["If-None-Match"] = etags[i] or ""
            asked = time.monotonic()
            try:
                conn.request("GET", "/api/hall", headers=headers)
                answer = conn.getresponse()
                answer.read()
            except OSError:
                conn.close()
                conns[i] = None
                answers[0] = answers.get(0, 0) + 1
                continue
            trips.append(time.monotonic() - asked)
            answers[answer.status] = answers.get(answer.status, 0) + 1
            etags[i] = answer.getheader("ETag") or etags[i]
        rounds += 1
    for conn in conns:
        if conn is not None:
            conn.close()


def open_streams(url: str, count: int) -> tuple[list[socket.socket], int]:
    """Up to ``count`` hall screens listening to ``/api/hall/stream`` (as ``hall.js`` does first):
    the open sockets, and how many the server refused (those screens poll instead)."""
    parts = urlsplit(url)
    opened, refused = [], 0
    for _ in range(count):
        sock = socket.create_connection((parts.hostname, parts.port or 80), timeout=30)
        sock.sendall(f"GET /api/hall/stream HTTP/1.1\r\nHost: {parts.netloc}\r\n\r\n".encode("ascii"))
        head = b""
        while b"\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                break
            head += chunk
        if head.startswith(b"HTTP/1.1 200"):
            opened.append(sock)
        else:
            refused += 1
            sock.close()
    return opened, refused


def listen(socks: list[socket.socket], stop: threading.Event, got: dict[str, int]) -> None:
    """Read the open streams in one thread, counting the snapshots (``event: hall``) and bytes
    each sends without parsing them: a screen's cost to the bench is its socket reads."""
    marker = b"event: hall"
    with selectors.DefaultSelector() as sel:
        tails = {}
        for sock in socks:
            sock.setblocking(False)
            sel.register(sock, selectors.EVENT_READ, sock)
            tails[sock] = b""
        while not stop.is_set() and tails:
            for key, _ in sel.select(timeout=0.2):
                sock = key.data
                try:
                    chunk = sock.recv(1 << 20)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    sel.unregister(sock)
                    del tails[sock]
                    got["closed"] = got.get("closed", 0) + 1
                    continue
                seen = tails[sock] + chunk
                got["snapshots"] = got.get("snapshots", 0) + seen.count(marker)
                got["bytes"] = got.get("bytes", 0) + len(chunk)
                tails[sock] = seen[-len(marker) + 1:]
    for sock in socks:
        sock.close()


def hall_cost(sizes: list[int], tables: int = 30) -> None:
    """What one hall request costs at evenings of each size (events in the store), in this process
    on SQLite: the projection rebuilt from the store (a server's start), a request while nothing
    changed (the shared snapshot), and the snapshot rebuilt after one new event (a bid or a play
    of a hand in progress, or the last play of a hand)."""
    from club.app import build_app
    from club.live import Live

    pool = hand_pool("chips")
    print(f"hall request cost, {tables} tables, SQLite, in one process (median of the asks; max in brackets)")
    print("| events in the store | hands per table (about) | projection rebuilt (start) | request, nothing new | "
          "snapshot after one new event |")
    print("|---|---|---|---|---|")
    for size in sizes:
        folder = Path(tempfile.mkdtemp(prefix="ddz-club-cost-"))
        try:
            db = str(folder / "club.db")
            per_table = size // tables
            hands = max(1, round(per_table / (sum(len(h) for h in pool) / POOL)))
            sessions, _ = prepare_event(db, tables)
            st = open_storage(db)
            now = time.time()
            streams = {}
            for t in range(1, tables + 1):
                streams[t] = evening(pool, t, hands + 10)
                lay_down(st, t, sessions[t - 1], streams[t][:per_table], now, "chips")
            held = st.event_count()
            app = build_app({"DIRECTOR_PIN": "000000", "CLUB_KEY": KEY, "TESTING": True}, storage=st)
            live: Live = app.extensions["club"].live
            live.min_interval = 0.0
            client = app.test_client()
            started = time.perf_counter()
            assert client.get("/api/hall").status_code == 200
            rebuilt = time.perf_counter() - started
            idle = []
            for _ in range(200):
                asked = time.perf_counter()
                client.get("/api/hall")
                idle.append(time.perf_counter() - asked)
            moved = []
            seqs = {t: per_table for t in streams}
            for i in range(60):
                t = 1 + i % tables
                seq = seqs[t] + 1
                hand, event = streams[t][seq - 1]
                st.ingest(t, box_of(t), [BoxEvent(t, box_of(t), seq, seq - 1, 1, hand, now + 0.01 * seq,
                                                  event["kind"], "camera", event)])
                seqs[t] = seq
                asked = time.perf_counter()
                assert client.get("/api/hall").status_code == 200
                moved.append(time.perf_counter() - asked)
            st.close()
            ms = lambda v: f"{1000 * v:.2f} ms"  # noqa: E731
            print(f"| {held:,} | {hands} | {rebuilt:.2f} s | {ms(percentile(idle, 0.5))} ({ms(max(idle))}) | "
                  f"{ms(percentile(moved, 0.5))} ({ms(max(moved))}) |", flush=True)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=60)
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the load runs")
    parser.add_argument("--rate", type=float, default=1.0, help="events per second per table")
    parser.add_argument("--post-every", type=float, default=1.0, help="seconds between a table's posts (the "
                        "replicator's pause)")
    parser.add_argument("--workers", type=int, default=0, help="posting threads, one keep-alive connection each "
                        "(default: one per table, as every box posts on its own; fewer share a thread, and a "
                        "table's post then waits for the answers to the others')")
    parser.add_argument("--hall-poll", type=float, default=0.1, help="seconds between polls of /api/hall")
    parser.add_argument("--threads", type=int, default=48, help="the server's threads")
    parser.add_argument("--db", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--hands", type=int, default=0, help="hands per table in the store before the clock "
                        "(a long evening: 40)")
    parser.add_argument("--viewers", type=int, default=0, help="hall screens asking once a second (with the ETag)")
    parser.add_argument("--viewer-threads", type=int, default=32, help="threads the polling viewers are spread over "
                        "(each asks for its screens one after another: few enough screens each to ask once a second)")
    parser.add_argument("--one-process", action="store_true", help="the server serves the hall screens itself "
                        "(ddz-table club --no-hall-process) instead of handing them to its screens process")
    parser.add_argument("--profile", metavar="FILE", help="record the server's stacks while the clock runs "
                        "(py-spy, collapsed stacks: one line per stack and its sample count)")
    parser.add_argument("--cost", action="store_true", help="measure one hall request's cost at evenings of "
                        "--cost-events events instead (in this process, SQLite)")
    parser.add_argument("--cost-events", default="1000,100000", help="evening sizes for --cost, comma-separated")
    args = parser.parse_args(argv)
    if args.tables < 1 or args.seconds <= 0 or args.rate <= 0 or args.post_every <= 0 \
            or args.hands < 0 or args.viewers < 0 or args.viewer_threads < 1 or args.workers < 0:
        parser.error("tables, workers, seconds, rate and post-every must be positive; hands and viewers not negative")
    if args.cost:
        try:
            sizes = [int(v) for v in args.cost_events.split(",")]
        except ValueError:
            parser.error(f"--cost-events: whole numbers separated by commas, not {args.cost_events!r}")
        hall_cost(sizes)
        return 0

    args.workers = args.workers or args.tables
    folder = Path(tempfile.mkdtemp(prefix="ddz-club-bench-"))
    pg = LocalPostgres(durable=True).start() if args.db == "postgresql" else None
    db = pg.url if pg else str(folder / "club.db")
    server = spy = None
    try:
        laid_at = time.perf_counter()
        sessions, laid = prepare_event(db, args.tables, args.hands)
        laid_at = time.perf_counter() - laid_at
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "cli.main", "club", "--db", db, "--port", str(port),
                                   "--key", KEY, "--threads", str(args.threads),
                                   *(["--no-hall-process"] if args.one_process else []),
                                   # every box and viewer of the bench comes from this one address
                                   "--per-address", str(10 * (args.workers + args.viewers + 100))], cwd=ROOT,
                                  env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL,
                                  stderr=open(folder / "server.log", "wb"))
        url = f"http://127.0.0.1:{port}"
        warm = time.perf_counter()
        for _ in range(6000):  # the server answers, and has folded the evening laid down (its start)
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
                conn.request("GET", "/healthz")
                if json.loads(conn.getresponse().read()).get("ready", True):
                    break
            except (OSError, ValueError):
                pass
            time.sleep(0.1)
        conn = _connect(url)
        conn.timeout = 600
        conn.request("GET", "/api/hall")  # the hall's screens process has folded it too
        initial = {int(t): b["acked"] for t, b in json.loads(conn.getresponse().read())["boxes"].items()}
        conn.close()
        warm = time.perf_counter() - warm
        built = time.perf_counter()
        tables = build(args.tables, args.seconds, args.rate, args.post_every, sessions, args.hands)
        register(url, tables)
        built = time.perf_counter() - built
        schedule = sorted(((p, tb.token) for tb in tables for p in tb.posts), key=lambda pt: pt[0].due)
        # A table's posts all go through one worker, one after the other, as its replicator sends them.
        shares: list[list[tuple[Post, str]]] = [[pt for pt in schedule if pt[0].table % args.workers == w]
                                                for w in range(args.workers)]
        due_of = {(p.table, s): p.due for p, _ in schedule for s in range(p.last_seq - p.events + 1, p.last_seq + 1)}

        log: list[Sent] = []
        errors: list[str] = []
        shown: dict[tuple[int, int], float] = {}
        hall_trips: list[float] = []
        seen: dict[int, int] = dict(initial)
        view_trips: list[float] = []
        answers: dict[int, int] = {}
        got: dict[str, int] = {}
        stop = threading.Event()
        # Every screen tries the hall's stream first, as hall.js does; the ones refused poll.
        socks, pollers = open_streams(url, args.viewers)
        if args.profile:
            spy = subprocess.Popen([str(SPY), "record", "--nonblocking", "--format", "raw", "--output", args.profile,
                                    "--duration", str(int(args.seconds + 2)), "--pid", str(server.pid)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1)
        db_pids = children(pg.process.pid) if pg and pg.process else []
        hall_pids = children(server.pid)[1:]  # the server's hall screens process
        cpu_before = (cpu_seconds([server.pid]), cpu_seconds(db_pids), resource.getrusage(resource.RUSAGE_SELF),
                      cpu_seconds(hall_pids))
        start = time.monotonic() + 0.5
        workers = [threading.Thread(target=worker, args=(url, share, start, args.seconds, log, errors), daemon=True)
                   for share in shares]
        watcher = threading.Thread(target=watch, args=(url, start, due_of, args.hall_poll, stop, seen, shown, hall_trips),
                                   daemon=True)
        per = [pollers // args.viewer_threads + (i < pollers % args.viewer_threads)
               for i in range(args.viewer_threads)]
        screens = [threading.Thread(target=viewers, args=(url, n, 1.0, stop, view_trips, answers), daemon=True)
                   for n in per if n]
        if socks:
            screens.append(threading.Thread(target=listen, args=(socks, stop, got), daemon=True))
        for th in (*workers, watcher, *screens):
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
        for th in screens:
            th.join(timeout=10)
        wall = time.monotonic() - start
        usage = resource.getrusage(resource.RUSAGE_SELF)
        cpu_main = cpu_seconds([server.pid]) - cpu_before[0]
        cpu_hall = cpu_seconds(hall_pids) - cpu_before[3]
        cpu_server = cpu_main + cpu_hall
        if pg and pg.process:  # backends started during the run count from their start
            db_pids = sorted(set(db_pids) | set(children(pg.process.pid)))
        cpu_db = cpu_seconds(db_pids) - cpu_before[1] if db_pids else 0.0
        cpu_gen = usage.ru_utime + usage.ru_stime - cpu_before[2].ru_utime - cpu_before[2].ru_stime
    finally:
        if spy is not None:
            spy.wait(timeout=60)
        if server is not None:
            server.terminate()
            server.wait(timeout=20)
        log_text = (folder / "server.log").read_text(errors="replace") if (folder / "server.log").exists() else ""
        if pg:
            pg.stop()
        shutil.rmtree(folder, ignore_errors=True)

    due = sum(p.events for p, _ in schedule if p.due < args.seconds)
    ingested = sum(seen.values()) - sum(initial.values())
    ok = [s for s in log if s.status == 200]
    total = [s.timing.get("total", float("nan")) for s in ok if "total" in s.timing]
    mean = lambda name: sum(s.timing.get(name, 0.0) for s in ok) / max(1, len(ok))  # noqa: E731
    lag = [s.sent - s.due for s in log]
    trip = [s.done - s.sent for s in ok]
    ms = lambda v: f"{1000 * v:.1f} ms"  # noqa: E731
    print(f"tables {args.tables}  db {args.db}  seconds {args.seconds:g}  rate {args.rate:g}/s/table  "
          f"post every {args.post_every:g} s  workers {args.workers}  viewers {args.viewers}  (batches built and "
          f"boxes registered before the clock in {built:.1f} s)")
    print(f"evening laid down: {args.hands} hands per table, {laid:,} events in {laid_at:.0f} s; the server folded "
          f"them (its first hall answer) in {warm:.1f} s")
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
    print(f"CPU over {wall:.1f} s: server {cpu_server:.1f} s ({cpu_server / wall:.2f} cores"
          + (f": {cpu_main / wall:.2f} the main process, {cpu_hall / wall:.2f} its hall screens process" if hall_pids
             else "") + ")"
          + (f"  PostgreSQL {cpu_db:.1f} s ({cpu_db / wall:.2f} cores)" if pg else "")
          + f"  generator {cpu_gen:.1f} s ({cpu_gen / wall:.2f} cores);  load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores;  every server thread busy (waitress queued a request) "
          f"{log_text.count('Task queue depth')} times")
    per_event = 1000 * cpu_server / max(1, ingested)
    print(f"server CPU per event ingested: {per_event:.2f} ms"
          + (f"  (with PostgreSQL's: {1000 * (cpu_server + cpu_db) / max(1, ingested):.2f} ms)" if pg else ""))
    if args.viewers:
        counts = ", ".join(f"{k or 'broken'}: {v}" for k, v in sorted(answers.items()))
        print(f"hall viewers: {len(socks)} on the stream ({got.get('snapshots', 0)} snapshots, "
              f"{got.get('bytes', 0) / 1e6:.0f} MB, {got.get('closed', 0)} closed), {pollers} polling (refused the "
              f"stream): {sum(answers.values())} asks ({counts}); "
              f"round trip p50 {ms(percentile(view_trips, 0.5))}  p99 {ms(percentile(view_trips, 0.99))}")
    # Each event shown on the hall, timed from its due time (the box's append: includes any lag of
    # this generator), from its post's sending, and from its post's answer (the server has stored
    # and acknowledged it: the target's append-to-hall).
    acked_at: dict[tuple[int, int], tuple[float, float]] = {}
    for s in ok:
        for seq in range(s.last_seq - s.events + 1, s.last_seq + 1):
            acked_at[(s.table, seq)] = (s.sent, s.done)
    from_due = [at - due_of[k] for k, at in shown.items()]
    from_sent = [at - acked_at[k][0] for k, at in shown.items() if k in acked_at]
    from_ack = [at - acked_at[k][1] for k, at in shown.items() if k in acked_at]
    windows: dict[int, list[float]] = {}
    for k, at in shown.items():
        if k in acked_at:
            windows.setdefault(int(acked_at[k][1] // 5), []).append(at - acked_at[k][1])
    print("append->hall from its acknowledgement, p99 by 5 s of the clock (when acknowledged): "
          + "  ".join(f"{5 * w}-{5 * w + 5} s {percentile(v, 0.99):.2f}" for w, v in sorted(windows.items())))
    print(f"post latency (round trip): p50 {ms(percentile(trip, 0.5))}  p99 {ms(percentile(trip, 0.99))}   "
          f"[target: p99 under 500 ms]")
    for name, values in (("from its due time", from_due), ("from its post's sending", from_sent),
                         ("from its acknowledgement", from_ack)):
        target = "   [target: p99 under 1 s]" if values is from_ack else ""
        print(f"append->hall {name}: p50 {percentile(values, 0.5):.3f} s  p99 {percentile(values, 0.99):.3f} s  "
              f"max {max(values, default=float('nan')):.3f} s  (n={len(values)}){target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
