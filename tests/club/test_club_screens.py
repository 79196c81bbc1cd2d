"""The hall screens served by a second process (club.screens): ``ddz-table club`` starts it, hands
it the connections that open with ``GET /api/hall``, keeps every other connection, starts it
again when it exits, and it stops with the server (killed or stopped)."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.club import children
from club.pglocal import free_port
from club.screens import wants_hall
from tests.kit.club_server import BOX, KEY, PIN, ROOT, box_events, box_match, hand_payloads, wire


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def until(check, seconds: float = 20.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    return check()


class Club:
    """``ddz-table club`` on an SQLite file, as a real process."""

    def __init__(self, db: str, *extra: str) -> None:
        self.port = free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "club", "--db", db, "--port", str(self.port), "--pin", PIN,
             "--key", KEY, *extra], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        assert until(lambda: self.health(self.connect()) is not None), "the club server did not start"

    def connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)

    @staticmethod
    def health(conn: http.client.HTTPConnection) -> dict | None:
        try:
            conn.request("GET", "/healthz")
            return json.loads(conn.getresponse().read())
        except OSError:
            return None

    def screens(self) -> list[int]:
        return [pid for pid in children(self.process.pid)[1:] if running(pid)]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)


@pytest.fixture
def club(tmp_path):
    server = Club(str(tmp_path / "club.db"))
    yield server
    leftover = server.screens()
    server.stop()
    for pid in leftover:
        if running(pid):
            os.kill(pid, signal.SIGKILL)


def hall(conn: http.client.HTTPConnection) -> dict:
    conn.request("GET", "/api/hall")
    answer = conn.getresponse()
    assert answer.status == 200
    return json.loads(answer.read())


def test_only_a_get_of_the_hall_data_or_stream_is_handed_over():
    assert wants_hall(b"GET /api/hall HTTP/1.1\r\n")
    assert wants_hall(b"GET /api/hall?x=1 HTTP/1.1\r\n")
    assert wants_hall(b"GET /api/hall/stream HTTP/1.1\r\n")
    assert wants_hall(b"GET /api/hall/stream?lang=en HTTP/1.1\r\n")
    for head in (b"POST /api/hall HTTP/1.1", b"GET /api/hallway HTTP/1.1", b"GET /api/hall/streams HTTP/1.1",
                 b"GET /api/tables/1 HTTP/1.1", b"GET / HTTP/1.1", b"GET /api/ha", b"", b"HEAD /api/hall HTTP/1.1"):
        assert not wants_hall(head), head


def test_a_screen_connection_is_served_by_the_screens_process_and_everything_else_by_the_server(club):
    assert len(until(club.screens)) == 1
    screen = club.connect()
    hall(screen)
    assert club.health(screen)["process"] == "screens"  # the same keep-alive connection, handed over
    assert club.health(club.connect())["process"] == "main"  # a connection that opens otherwise is kept
    # a box registers and posts on its own connection; the screen sees the events
    box = club.connect()
    box.request("POST", "/api/register", json.dumps({"table": 4, "box": BOX, "key": KEY}),
                {"Content-Type": "application/json"})
    answer = box.getresponse()
    token = json.loads(answer.read())["token"]
    assert answer.status == 200
    events = wire(box_events(4, hand_payloads(3)))
    m = box_match(4)
    body = {"box": BOX, "events": events, "matches": [{"id": m.match_id, "players": list(m.players),
                                                       "preset": m.rules, "created": m.created, "meta": m.meta}]}
    box.request("POST", "/api/tables/4/events", json.dumps(body),
                {"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    answer = box.getresponse()
    assert answer.status == 200, answer.read()
    acked = json.loads(answer.read())["acked"]
    assert acked == len(events)
    assert until(lambda: hall(screen)["boxes"].get("4", {}).get("acked") == acked, 10)


def test_a_post_on_a_handed_connection_is_sent_back_to_the_server(club):
    screen = club.connect()
    hall(screen)
    screen.request("POST", "/api/register?lang=en", "{}", {"Content-Type": "application/json"})
    answer = screen.getresponse()
    answer.read()
    assert answer.status == 307
    assert answer.getheader("Location") == "/api/register?lang=en"
    assert answer.getheader("Connection") == "close"
    again = club.connect()  # the browser sends it again on a new connection: the server's
    again.request("POST", "/api/register?lang=en", "{}", {"Content-Type": "application/json"})
    answer = again.getresponse()
    assert answer.status == 400 and "table" in json.loads(answer.read())["message"]


def test_the_screens_process_started_again_after_it_dies_and_the_hall_answered_meanwhile(club):
    first = until(club.screens)
    assert len(first) == 1
    os.kill(first[0], signal.SIGKILL)

    def answered() -> bool:
        try:
            return "tables" in hall(club.connect())
        except ConnectionError:
            return False  # handed over as the process died: the screen asks again, as hall.js does

    assert until(answered, 5)  # by the server until the screens process is back
    again = until(lambda: [pid for pid in club.screens() if pid != first[0]])
    assert len(again) == 1

    def served_by_screens() -> bool:
        screen = club.connect()  # a new screen: handed over once the new process takes connections
        hall(screen)
        return club.health(screen)["process"] == "screens"

    assert until(served_by_screens)


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_the_screens_process_stops_with_the_server(tmp_path, how):
    server = Club(str(tmp_path / "club.db"))
    screens = until(server.screens)
    assert len(screens) == 1
    screen = server.connect()
    hall(screen)  # a screen held by the screens process does not keep it alive
    os.kill(server.process.pid, how)
    server.process.wait(timeout=20)
    try:
        assert until(lambda: not running(screens[0]), 10), "the screens process outlived the server"
    finally:
        if running(screens[0]):
            os.kill(screens[0], signal.SIGKILL)


@pytest.mark.parametrize("store, extra", [("club.db", ("--no-hall-process",)), (":memory:", ())],
                         ids=["no-hall-process", "in-memory-store"])
def test_one_process_serves_everything_without_a_screens_process(tmp_path, store, extra):
    """``--no-hall-process``, and a store in memory (which a second process could not open)."""
    server = Club(store if store == ":memory:" else str(tmp_path / store), *extra)
    try:
        screen = server.connect()
        hall(screen)
        assert server.health(screen)["process"] == "main"
        assert server.screens() == []
    finally:
        server.stop()
