"""Helpers for the club tests: box events from scripted hands, a server on a free port."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from waitress.server import create_server

from club.app import build_app
from club.pglocal import free_port
from club.storage import BoxEvent, BoxMatch
from sim.scripted import random_hand
from tests.kit.serving import stop_server

ROOT = Path(__file__).resolve().parents[2]
PIN = "135790"
KEY = "club-key-for-tests"
BOX = "box-0000aaaa"


def hand_payloads(seed: int, preset: str = "chips") -> list[dict]:
    return [e.to_dict() for e in random_hand(preset, seed).log]


def box_events(table: int, payloads: list[dict], first_seq: int = 1, match_id: int = 1, hand: int = 1,
               box: str = BOX, t0: float = 1000.0) -> list[BoxEvent]:
    return [BoxEvent(table, box, first_seq + i, first_seq + i - 1, match_id, hand, t0 + i, p["kind"], "camera", p)
            for i, p in enumerate(payloads)]


def box_match(table: int, match_id: int = 1, box: str = BOX, preset: str = "chips", meta: dict | None = None):
    return BoxMatch(table, box, match_id, ("甲", "乙", "丙"), {"name": preset, "changes": {}}, meta or {}, 999.0)


def wire(events: list[BoxEvent]) -> list[dict]:
    """Events as a box posts them."""
    return [{"seq": e.seq, "prev": e.prev, "match_id": e.match_id, "hand": e.hand, "time": e.time, "kind": e.kind,
             "source": e.source, "event": e.payload} for e in events]


class ThreadServer:
    """``with ThreadServer(storage) as s:`` serves the club app at ``s.url``."""

    def __init__(self, storage, port: int = 0, **config) -> None:
        self.app = build_app({"DIRECTOR_PIN": PIN, "CLUB_KEY": KEY, **config}, storage=storage)
        self.server = create_server(self.app, host="127.0.0.1", port=port, threads=16, ident="test",
                                    asyncore_use_poll=True)
        self.url = f"http://127.0.0.1:{self.server.effective_port}"
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ThreadServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        stop_server(self.server, self.thread)


class ProcessServer:
    """``ddz-table club`` as a real process, to kill -9 and start again on the same port."""

    def __init__(self, db: str, port: int | None = None) -> None:
        self.db, self.port = db, port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def start(self) -> ProcessServer:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen([sys.executable, "-m", "cli.main", "club", "--db", self.db, "--port",
                                         str(self.port), "--pin", PIN, "--key", KEY], cwd=ROOT, env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.url + "/healthz", timeout=1).read()
                return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the club server did not start")

    def kill9(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


def director_client(app):
    """A Flask test client logged in as the director; ``client.csrf`` is the form token."""
    client = app.test_client()
    client.get("/director/login")
    with client.session_transaction() as s:
        token = s["csrf"]
    client.post("/director/login", data={"pin": PIN, "csrf": token})
    client.get("/director")
    with client.session_transaction() as s:
        client.csrf = s["csrf"]
    return client
