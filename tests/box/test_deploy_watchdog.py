"""sd_notify against a real unix datagram socket: READY, the watchdog pings from the
session's loop (and their stopping when the loop stalls), and `run` under systemd's
environment."""

from __future__ import annotations

import argparse
import socket
import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from box import watchdog
from box.config import render_config
from box.watchdog import Notifier
from cli import table as cli
from sim.toy_table import ToyDetector, ToyTable
from tracker.session import TableSession
from tracker.store import EventStore
from vision.sources import FrameSource


@pytest.fixture
def notify_socket(tmp_path):
    """A socket standing in for systemd's: what it receives, one message per datagram."""
    path = str(tmp_path / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(5)
    yield path, sock
    sock.close()


def received(sock: socket.socket) -> list[str]:
    messages = []
    sock.settimeout(0.2)
    try:
        while True:
            messages.append(sock.recv(4096).decode("utf-8"))
    except TimeoutError:
        return messages


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_ready_status_and_stopping_reach_the_socket(notify_socket):
    path, sock = notify_socket
    n = Notifier(path, watchdog_s=30)
    assert n.ready("match 1, reading picamera:0")
    assert sock.recv(4096) == b"READY=1\nSTATUS=match 1, reading picamera:0"
    assert n.status("camera reconnecting") and sock.recv(4096) == b"STATUS=camera reconnecting"
    assert n.stopping() and sock.recv(4096) == b"STOPPING=1"
    assert n.sent == 3


def test_pings_are_paced_to_a_quarter_of_the_interval(notify_socket):
    path, sock = notify_socket
    clock = FakeClock()
    n = Notifier(path, watchdog_s=20, clock=clock)
    assert n.ping()  # the first one goes at once
    for _ in range(60):  # six seconds of a fast loop: each turn calls ping, few go out
        clock.now += 0.1
        n.ping()
    assert received(sock) == ["WATCHDOG=1", "WATCHDOG=1"]  # at 0 s and at 5 s
    clock.now += 5
    assert n.ping() and received(sock) == ["WATCHDOG=1"]


def test_environment_decides_whether_and_for_whom(notify_socket):
    path, sock = notify_socket
    n = Notifier.from_env({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "60000000", "WATCHDOG_PID": "4242"}, pid=4242)
    assert n.enabled and n.watchdog_s == 60
    # the watchdog was meant for another process (we are its child): READY yes, pings no
    other = Notifier.from_env({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "60000000", "WATCHDOG_PID": "1"}, pid=4242)
    assert other.watchdog_s is None and not other.ping()
    outside = Notifier.from_env({})
    assert not outside.enabled and not outside.ready() and not outside.ping()
    assert received(sock) == []


def test_abstract_socket_names_start_with_at():
    name = f"ddz-test-{time.monotonic_ns()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(5)
    try:
        assert Notifier("@" + name).ready() and sock.recv(100) == b"READY=1"
    finally:
        sock.close()


def test_a_vanished_socket_is_not_an_error(tmp_path):
    n = Notifier(str(tmp_path / "gone"), watchdog_s=1)
    assert n.ready() is False and n.ping() is False  # systemd went away: the referee carries on


class StallingSource(FrameSource):
    """Frames of the toy table, then a read that hangs until released (a wedged driver)."""

    kind, live = "test", False

    def __init__(self, table: ToyTable, frames: int) -> None:
        super().__init__("stalling")
        self.image, self.frames, self.release = table.frame(), frames, threading.Event()

    def _grab(self):
        if self._index >= self.frames:
            self.release.wait(10)
            return None
        return self.image, self._index / 10


def test_a_stalled_main_loop_stops_pinging(notify_socket):
    path, sock = notify_socket
    table = ToyTable()
    store = EventStore(":memory:")
    session = TableSession(StallingSource(table, 4), table.calibration(), ToyDetector(), store,
                        store.create_match(("a", "b", "c")))
    pings = []
    n = Notifier(path, watchdog_s=0.0001)  # no pacing: one ping per loop turn

    def ping():
        pings.append(time.monotonic())
        n.ping()

    session.heartbeat = ping
    thread = threading.Thread(target=session.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while len(pings) < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    assert len(pings) == 5  # four frames read, then the fifth turn hangs in read()
    assert received(sock) == ["WATCHDOG=1"] * 5  # ... and nothing more reaches systemd
    session.source.release.set()
    thread.join(10)
    assert not thread.is_alive() and session.frames == 4


def toy_box(folder: Path) -> Path:
    """A config for a folder of toy-table frames with its calibration; the store in ``folder``."""
    table = ToyTable()
    frames = folder / "frames"
    frames.mkdir()
    for i in range(6):
        cv2.imwrite(str(frames / f"{i:03d}.png"), table.frame())
    cal = folder / "cal.json"
    table.calibration().save(cal)
    cfg = folder / "config.toml"
    cfg.write_text(render_config(source=str(frames), calibration=str(cal), data_dir=str(folder),
                                 referee_pin="1357"), encoding="utf-8")
    return cfg


def ddz_run(*argv) -> int:
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["run", *argv, "--detector", "sim.toy_table:ToyDetector"])
    return args.func(args)


def test_run_under_systemd_sends_ready_pings_and_stopping(tmp_path, notify_socket, monkeypatch, capsys):
    path, sock = notify_socket
    cfg = toy_box(tmp_path)
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    monkeypatch.setenv("WATCHDOG_USEC", "1000")  # 1 ms: every loop turn may ping
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "tracker"))
    assert ddz_run("--config", str(cfg), "--no-web") == 0, capsys.readouterr().err
    messages = received(sock)
    assert messages[0].startswith("READY=1\nSTATUS=match 1, reading ")
    assert messages[-1] == "STOPPING=1"
    assert messages[1:-1] and set(messages[1:-1]) == {"WATCHDOG=1"}
    assert (tmp_path / "ddz-table.db").exists()  # the store went where the config said


def test_run_from_the_config_serves_the_site_to_phones(tmp_path, monkeypatch, capsys):
    from box.lan import lan_address

    cfg = toy_box(tmp_path)
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "tracker"))
    # host 0.0.0.0 and PIN from the file; --port 0 (any free port) from the command line
    assert ddz_run("--config", str(cfg), "--port", "0", "--max-frames", "3") == 0
    out = capsys.readouterr().out
    assert "listening on every network interface" in out and "referee PIN / 裁判密码: 1357" in out
    lan = lan_address()
    if lan is not None:  # a machine with a network: the phones' address is printed for the club
        assert f"phones join at: http://{lan}:" in out


def test_sigterm_handler_stops_and_is_put_back():
    import signal

    stopped = []
    before = signal.getsignal(signal.SIGTERM)
    restore = watchdog.stop_on_sigterm(lambda: stopped.append(True))
    signal.raise_signal(signal.SIGTERM)
    assert stopped == [True]
    restore()
    assert signal.getsignal(signal.SIGTERM) == before


def test_frames_are_real_images():
    # guards the stalling source above: the toy table really draws a frame
    frame = ToyTable().frame()
    assert isinstance(frame, np.ndarray) and frame.ndim == 3
