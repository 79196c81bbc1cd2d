"""``run`` says how its source ended: a video read to its end exits 0; a video that cannot be
read, or stops short, exits 1 with a message; a live camera that drops is reopened and the run
goes on, its state (reconnecting, stalled) in the session's status for the page."""

from __future__ import annotations

import threading
import time

import cv2
import numpy as np
import pytest

from sim.toy_table import ToyDetector, ToyTable
from tests.kit.commands import ddz
from tests.kit.films import film_hand
from tests.kit.hands import tiny_hand
from tracker.session import TableSession
from tracker.state import TableState
from tracker.store import EventStore
from vision.sources import CallableSource, Reconnecting, SourceError, register_source


@pytest.fixture(scope="module")
def film(tmp_path_factory):
    """A short filmed hand as an MJPG video, the same cut in half, and a calibration."""
    folder = tmp_path_factory.mktemp("film")
    table = ToyTable(seed=2)
    good = folder / "hand.avi"
    frames = film_hand(table, tiny_hand(), good)
    cut = folder / "cut.avi"
    data = good.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    cal = folder / "cal.json"
    cv2.imwrite(str(folder / "first.png"), frames[0])
    assert ddz("calibrate", "--image", folder / "first.png", "--out", cal) == 0
    return folder, good, cut, cal, len(frames)


def run_on(source, film, tmp_path, *extra):
    _, _, _, cal, _ = film
    return ddz("run", "--source", source, "--calibration", cal, "--db", tmp_path / "t.db", "--no-web",
               "--detector", "sim.toy_table:ToyDetector", *extra)


def test_a_video_read_to_its_end_exits_0(film, tmp_path, capsys):
    _, good, _, _, _ = film
    assert run_on(good, film, tmp_path) == 0
    err = capsys.readouterr().err
    assert "失败" not in err and "failed" not in err
    with EventStore(tmp_path / "t.db") as store:
        state = TableState.load(store, store.matches()[-1].id)
        assert [p.seat for p in state.hand.plays] == [0, 1]  # the film's two plays were read


def test_a_video_cut_short_exits_1_and_says_how_far_it_got(film, tmp_path, capsys):
    _, _, cut, _, frames = film
    assert run_on(cut, film, tmp_path) == 1
    err = capsys.readouterr().err
    assert "视频读取失败" in err and str(cut) in err
    assert f"of its {frames} frames" in err and "cut short" in err


def test_a_garbage_file_exits_1_with_a_message(film, tmp_path, capsys):
    garbage = tmp_path / "garbage.mp4"
    garbage.write_bytes(np.random.default_rng(0).integers(0, 256, 50_000, dtype=np.uint8).tobytes())
    assert run_on(garbage, film, tmp_path) == 1
    err = capsys.readouterr().err
    assert "视频读取失败" in err and "cannot open" in err and "Traceback" not in err
    empty = tmp_path / "empty.avi"
    empty.write_bytes(b"")
    assert run_on(empty, film, tmp_path) == 1


def test_a_folder_with_an_unreadable_image_exits_1(film, tmp_path, capsys):
    folder = tmp_path / "frames"
    folder.mkdir()
    image = cv2.imread(str(film[0] / "first.png"))
    cv2.imwrite(str(folder / "00000.png"), image)
    (folder / "00001.png").write_bytes(b"not a png")
    assert run_on(folder, film, tmp_path) == 1
    assert "00001.png" in capsys.readouterr().err


class Flaky:
    """A live camera that drops at ``drops`` (each a SourceError) and ``stall_at`` blocks until
    ``resume`` is set; it ends after ``length`` frames (``None``: never)."""

    def __init__(self, image, drops=(), stall_at=None, length=None):
        self.image, self.drops, self.stall_at, self.length = image, set(drops), stall_at, length
        self.resume = threading.Event()
        self.calls = 0

    def __call__(self, index):
        self.calls += 1
        if self.length is not None and index >= self.length:
            return None
        if index == self.stall_at:
            self.resume.wait(20)
        if self.calls in self.drops:
            raise SourceError("camera dropped")
        return self.image


@pytest.fixture(scope="module")
def table():
    return ToyTable(seed=5)


def test_a_live_camera_that_drops_keeps_the_run_going(film, tmp_path, table, capsys):
    flaky = Flaky(table.frame(), drops={3, 4})
    register_source("flaky-test:", lambda spec: CallableSource(flaky, name=spec, live=True))
    assert run_on("flaky-test:cam", film, tmp_path, "--max-frames", 6) == 0
    assert flaky.calls >= 8  # two failed reads, each reopened, then frames again
    assert "失败" not in capsys.readouterr().err


def test_a_live_camera_that_ends_is_a_failure(film, tmp_path, table, capsys):
    register_source("ending-test:", lambda spec: CallableSource(Flaky(table.frame(), length=3), name=spec, live=True))
    assert run_on("ending-test:cam", film, tmp_path) == 1
    assert "摄像头读取失败" in capsys.readouterr().err


def wait_for(session, want, timeout=20.0):
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        status = session.status()
        seen.append(status["source_state"])
        if want(status):
            return status
        time.sleep(0.02)
    raise AssertionError(f"status never came: states seen {sorted(set(map(str, seen)))}")


def test_the_pipeline_status_shows_a_dropped_camera_reconnecting_then_running(table):
    flaky = Flaky(table.frame(), drops={5, 6, 7})
    source = Reconnecting(CallableSource(flaky, name="cam", live=True), backoff=(0.3,))
    store = EventStore(":memory:")
    session = TableSession(source, table.calibration(), ToyDetector(), store, store.create_match(("a", "b", "c")))
    session.start()
    try:
        status = wait_for(session, lambda s: s["source_state"] == "reconnecting")
        assert status["running"] and "camera dropped" in status["error"]
        status = wait_for(session, lambda s: s["source_state"] == "running" and s["reconnects"] >= 3)
        assert status["running"] and status["error"] is None
    finally:
        session.stop()


def test_the_pipeline_status_says_stalled_when_frames_stop_coming(table):
    flaky = Flaky(table.frame(), stall_at=4)
    source = Reconnecting(CallableSource(flaky, name="cam", live=True))
    source.stall_s = 0.3
    store = EventStore(":memory:")
    session = TableSession(source, table.calibration(), ToyDetector(), store, store.create_match(("a", "b", "c")))
    session.start()
    try:
        status = wait_for(session, lambda s: s["source_state"] == "stalled")
        assert status["running"] and "no frame for" in status["error"]
        flaky.resume.set()
        status = wait_for(session, lambda s: s["source_state"] == "running" and s["frames"] > 4)
        assert status["error"] is None
    finally:
        flaky.resume.set()
        session.stop()
