"""Club replication through crashes, at a scale: boxes and the club server killed with -9.

``--tables`` boxes (each a real ``tracker.store.EventStore`` and ``tracker.replicate.Replicator``)
run in ``--box-processes`` processes and score their tables hand after hand, one event every
``--pace`` seconds; one ``ddz-table club`` process (on PostgreSQL, fsync on, or SQLite) takes
their posts. While they play, the bench kills the server with -9 ``--server-kills`` times and a
box process (all its tables at once, as a box losing power) ``--box-kills`` times, each started
again after ``--down`` seconds: a restarted box reopens its store and resumes its hand where the
store ends, and its replicator resumes from what the server acknowledged. Then every box
catches up, and the bench checks:

- every event of every box's store is held by the server exactly once, with the same payload,
  and the server acknowledges each box's last event;
- the hall of the server (its projection, rebuilt after the last kill) equals the hall of a new
  projection over a fresh store filled from the boxes' own stores: every table's totals and
  status, and the leaderboard.

It prints the counts and any difference, and exits 1 when there is one.

    .venv/bin/python -m bench.club_faults --tables 40 --db postgresql --server-kills 10 --box-kills 10
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.club import KEY, prepare_event
from club.live import Live
from club.pglocal import LocalPostgres, free_port
from club.storage import BoxEvent, open_storage
from sim.scripted import random_hand

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------- one box process
def run_boxes(folder: Path, tables: list[int], url: str, hands: int, pace: float) -> None:
    """Score ``tables`` (one store and replicator each) until each has ``hands`` hands, then keep
    replicating until killed or stopped. A restart resumes each table where its store ends."""
    from tracker.replicate import Replicator, state_path_for
    from tracker.store import EventStore

    boxes = []
    for t in tables:
        store = EventStore(str(folder / f"box{t}.db"))
        kept = state_path_for(store)  # a restarted box registers no more: its token is kept beside the store
        rep = Replicator(store, url, table=t, key=None if kept is not None and kept.exists() else KEY, interval=0.2,
                         timeout=3.0).start()
        boxes.append((t, store, rep))
    deadline = time.monotonic() + 120
    while not all(store.matches() for _, store, _ in boxes):  # the club's draw arrives with the first answer
        if time.monotonic() > deadline:
            raise SystemExit("no assignment from the club server in 120 s")
        time.sleep(0.1)
    plans = []
    for t, store, _ in boxes:
        match = store.matches()[-1].id
        held = store.events(match)
        hand = max((e.hand for e in held), default=1)
        done = sum(1 for e in held if e.hand == hand)
        plans.append((t, store, match, hand, done))
    # One event per table in turn, ``pace`` seconds apart, each table's hands scripted by (table, hand).
    scripts: dict[tuple[int, int], list] = {}
    while plans:
        left = []
        for t, store, match, hand, done in plans:
            log = scripts.setdefault((t, hand), random_hand("chips", t * 1000 + hand).log)
            if done < len(log):
                store.append(match, hand, log[done])
                done += 1
            if done >= len(log):
                scripts.pop((t, hand), None)
                hand, done = hand + 1, 0
            if hand <= hands:
                left.append((t, store, match, hand, done))
        plans = left
        time.sleep(pace)
    for t in tables:  # the bench waits for this mark: a table with all its hands may still be scoring its last
        (folder / f"box{t}.scored").touch()
    while True:  # scored out: keep replicating until the bench stops this process
        time.sleep(1)


# ---------------------------------------------------------------------- the bench
class Server:
    """``ddz-table club`` on one port, to kill -9 and start again."""

    def __init__(self, db: str, log: Path) -> None:
        self.db, self.port, self.log = db, free_port(), log
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "cli.main", "club", "--db", self.db, "--port",
                                         str(self.port), "--key", KEY], cwd=ROOT,
                                        env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL,
                                        stderr=open(self.log, "ab"))

    def kill9(self) -> None:
        if self.process is not None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def get(self, path: str, timeout: float = 600) -> dict:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request("GET", path)
            return json.loads(conn.getresponse().read())
        finally:
            conn.close()


def box_command(folder: Path, tables: list[int], url: str, hands: int, pace: float) -> list[str]:
    return [sys.executable, "-m", "bench.club_faults", "--box", str(folder), "--box-tables",
            ",".join(map(str, tables)), "--url", url, "--hands", str(hands), "--pace", str(pace)]


def fresh_hall(folder: Path, source, tables: int, now: float) -> dict:
    """The hall of a new projection over a fresh store holding the director's log, the matches as
    the boxes described them and each box's own events, as the boxes' stores hold them."""
    from tracker.store import EventStore

    again = open_storage(str(folder / "again.db"))
    for t in source.tournaments():
        again.create_tournament(t.name, t.format, t.settings, t.seed, now=t.created)
        for p in source.players(t.id):
            again.add_player(t.id, p.name, p.club_id, p.code)
        for a in source.actions(t.id):
            again.act(t.id, a.action, a.data, now=a.time)
    for t in range(1, tables + 1):
        store = EventStore(str(folder / f"box{t}.db"))
        reg = source.registration(t)
        assert reg is not None
        again.register(t, reg.box, "recomputed")
        infos = source.box_matches(t)  # the matches as the box described them
        events, prev = [], 0
        for e in store.events(None):
            events.append(BoxEvent(t, reg.box, e.seq, prev, e.match_id, e.hand, e.time, e.kind, e.source,
                                   e.event.to_dict()))
            prev = e.seq
        again.ingest(t, reg.box, events, infos)
        store.close()
    hall = Live(again).hall(now)
    again.close()
    return hall


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--hands", type=int, default=3, help="hands each table scores")
    parser.add_argument("--pace", type=float, default=0.1, help="seconds between a box's events")
    parser.add_argument("--db", choices=("sqlite", "postgresql"), default="postgresql")
    parser.add_argument("--box-processes", type=int, default=4)
    parser.add_argument("--server-kills", type=int, default=10)
    parser.add_argument("--box-kills", type=int, default=10)
    parser.add_argument("--down", type=float, default=1.0, help="seconds a killed process stays down")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--box", help=argparse.SUPPRESS)  # a box process: its folder
    parser.add_argument("--box-tables", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.box:
        run_boxes(Path(args.box), [int(t) for t in args.box_tables.split(",")], args.url, args.hands, args.pace)
        return 0
    if args.tables < 1 or args.hands < 1 or args.box_processes < 1 or args.pace <= 0 or args.down < 0 \
            or args.server_kills < 0 or args.box_kills < 0:
        parser.error("tables, hands, box processes and pace must be positive; kills and down not negative")
    rng = random.Random(args.seed)
    folder = Path(tempfile.mkdtemp(prefix="ddz-club-faults-"))
    pg = LocalPostgres(durable=True).start() if args.db == "postgresql" else None
    db = pg.url if pg else str(folder / "club.db")
    server = Server(db, folder / "server.log")
    groups = [list(range(1 + g, args.tables + 1, args.box_processes)) for g in range(args.box_processes)]
    boxes: list[subprocess.Popen | None] = [None] * len(groups)
    failures: list[str] = []
    try:
        prepare_event(db, args.tables)
        server.start()
        time.sleep(2)
        started = time.monotonic()
        for g, tables in enumerate(groups):
            boxes[g] = subprocess.Popen(box_command(folder, tables, server.url, args.hands, args.pace), cwd=ROOT,
                                        env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL,
                                        stderr=open(folder / f"boxes{g}.log", "ab"))
        # The kills, spread over the time the boxes take to score their hands.
        scoring = args.hands * 70 * args.pace  # a scripted hand is about 70 events
        kills = ["server"] * args.server_kills + ["box"] * args.box_kills
        rng.shuffle(kills)
        for i, what in enumerate(kills):
            time.sleep(max(0.0, started + scoring * (i + 1) / (len(kills) + 1) - time.monotonic()))
            if what == "server":
                server.kill9()
                time.sleep(args.down)
                server.start()
            else:
                g = rng.randrange(len(groups))
                process = boxes[g]
                if process is not None:
                    process.kill()
                    process.wait()
                time.sleep(args.down)
                boxes[g] = subprocess.Popen(box_command(folder, groups[g], server.url, args.hands, args.pace),
                                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                                            stdout=subprocess.DEVNULL, stderr=open(folder / f"boxes{g}.log", "ab"))
        # Every box scores its hands and catches up.
        from tracker.store import EventStore

        def box_last(t: int) -> int:
            store = EventStore(str(folder / f"box{t}.db"))
            try:
                return store.last_seq()
            finally:
                store.close()

        def finished() -> bool:
            hall = server.get("/api/hall")
            for t in range(1, args.tables + 1):
                store = EventStore(str(folder / f"box{t}.db"))
                try:
                    hands = store.hands(store.matches()[-1].id) if store.matches() else []
                    last = store.last_seq()
                finally:
                    store.close()
                if len(hands) < args.hands or not (folder / f"box{t}.scored").exists() \
                        or hall["boxes"].get(str(t), {}).get("acked") != last:
                    return False
            return True

        deadline = time.monotonic() + scoring * 3 + 300
        while time.monotonic() < deadline:
            try:
                if finished():
                    break
            except (OSError, ValueError):
                pass
            time.sleep(2)
        else:
            failures.append("the boxes did not finish and catch up in time")
        wall = time.monotonic() - started
        for process in boxes:
            if process is not None:
                process.kill()
                process.wait()
        served = server.get("/api/hall")
        now = served["time"]
        server.kill9()
        st = open_storage(db)
        total = 0
        for t in range(1, args.tables + 1):
            store = EventStore(str(folder / f"box{t}.db"))
            mine = {e.seq: e.event.to_dict() for e in store.events(None)}
            store.close()
            held = st.box_events(t)
            total += len(held)
            seqs = [e.seq for e in held]
            if len(seqs) != len(set(seqs)):
                failures.append(f"table {t}: {len(seqs) - len(set(seqs))} events held twice")
            if set(seqs) != set(mine):
                failures.append(f"table {t}: the server holds {len(seqs)} events, the box {len(mine)} "
                                f"(missing {sorted(set(mine) - set(seqs))[:5]})")
            elif any(e.payload != mine[e.seq] for e in held):
                failures.append(f"table {t}: a payload differs from the box's")
            reg = st.registration(t)
            if reg is None or reg.acked != box_last(t):
                failures.append(f"table {t}: acknowledged {reg.acked if reg else None} of {box_last(t)}")
        again = fresh_hall(folder, st, args.tables, now)
        st.close()
        got = {r["table"]: (r["totals"], r["status"], r["finished"]) for r in served["tables"]}
        want = {r["table"]: (r["totals"], r["status"], r["finished"]) for r in again["tables"]}
        if got != want:
            bad = sorted(t for t in want if got.get(t) != want[t])
            failures.append(f"hall tables differ from a recomputation at {bad[:10]}")
        strip = lambda rows: [(r["name"], r["points"], r["rank_text"]) for r in rows]  # noqa: E731
        if strip(served["leaderboard"]) != strip(again["leaderboard"]):
            failures.append("the leaderboard differs from a recomputation")
        print(f"tables {args.tables} in {args.box_processes} box processes, {args.hands} hands each, db {args.db}; "
              f"server killed -9 {args.server_kills} times, a box process {args.box_kills} times, each down "
              f"{args.down:g} s; {wall:.0f} s")
        print(f"events in the boxes' stores and on the server: {total:,}; every one held once with the box's "
              f"payload: {'yes' if not any('held' in f or 'differs from the box' in f or 'holds' in f for f in failures) else 'NO'}")
        print(f"hall (the server's projection after its last restart) equal to a recomputation from the boxes: "
              f"{'yes' if not any('recomputation' in f for f in failures) else 'NO'}")
    finally:
        for process in boxes:
            if process is not None and process.poll() is None:
                process.kill()
        if server.process is not None and server.process.poll() is None:
            server.process.kill()
        if pg:
            pg.stop()
        logs = {p.name: p.read_text(errors="replace")[-2000:] for p in folder.glob("*.log")}
        shutil.rmtree(folder, ignore_errors=True)
    for f in failures:
        print("FAILED:", f)
    if failures:
        for name, text in logs.items():
            if "Traceback" in text:
                print(f"--- {name} (end)\n{text}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
