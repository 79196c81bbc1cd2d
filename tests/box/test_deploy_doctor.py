"""`ddz-table doctor` on a good box (a video file for a camera, the shipped models) and on
broken ones: each gives its FAIL line, in both languages with a fix, and exit code 1."""

from __future__ import annotations

import http.server
import json
import shutil
import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from box import doctor
from box.config import load_config, render_config
from cli.main import main
from models import MODELS_DIR
from tracker.zones import Calibration, MatLayout
from vision.detector import CardDetector
from vision.profile import DeckProfile

SIZE = (640, 360)


@pytest.fixture
def box(tmp_path, monkeypatch):
    """A box that should pass: a short video, its calibration, the shipped models, a data folder."""
    monkeypatch.setattr(doctor, "service_state", lambda: None)  # this machine runs no ddz-table service
    video = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, SIZE)
    for i in range(5):
        writer.write(np.full((SIZE[1], SIZE[0], 3), 40 + 20 * i, np.uint8))
    writer.release()
    calibrate(tmp_path / "calibration.json", SIZE)
    (tmp_path / "data").mkdir()
    return tmp_path, write_config(tmp_path)


def calibrate(path: Path, size: tuple[int, int]) -> None:
    w, h = size
    corners = [[0.1 * w, 0.1 * h], [0.9 * w, 0.1 * h], [0.9 * w, 0.9 * h], [0.1 * w, 0.9 * h]]
    Calibration.from_corners(corners, MatLayout.standard(3, "A2"), size).save(path)


def write_config(folder: Path, **values) -> Path:
    settings = {"source": str(folder / "table.avi"), "calibration": str(folder / "calibration.json"),
                "data_dir": str(folder / "data"), "backend": "onnx", "referee_pin": "2468"} | values
    path = folder / "config.toml"
    path.write_text(render_config(**settings), encoding="utf-8")
    return path


def doctor_says(config: Path, *extra, capsys) -> tuple[int, str]:
    code = main(["doctor", "--config", str(config), "--camera-timeout", "30", *map(str, extra)])
    return code, capsys.readouterr().out


def line(out: str, level: str, name: str) -> str:
    found = [ln for ln in out.splitlines() if ln.startswith(f"{level:<4}  {name} ")]
    assert found, f"no {level} {name} line in:\n{out}"
    return found[0]


def test_a_good_box_passes(box, capsys):
    _, config = box
    code, out = doctor_says(config, capsys=capsys)
    assert code == 0, out
    assert "FAIL" not in out
    assert "gave a 640x360 frame" in line(out, "OK", "camera")
    assert "models load (onnx, 640x640 input" in line(out, "OK", "model")
    assert "calibration is sane (corners, the mat fills 64% of the view)" in line(out, "OK", "calibration")
    for name in ("config", "disk", "store"):
        line(out, "OK", name)
    assert "摄像头" in out and "模型正常" in out  # Chinese first on every line


def test_json_output_and_snapshot(box, capsys, tmp_path):
    _, config = box
    code, out = doctor_says(config, "--json", "--snapshot", tmp_path / "frame.png", capsys=capsys)
    report = json.loads(out)
    assert code == 0 and report["ok"] is True
    checks = {c["name"]: c for c in report["checks"]}
    assert set(checks) >= {"config", "clock", "camera", "model", "calibration", "disk", "store", "network"}
    assert checks["camera"]["level"] == "OK" and checks["camera"]["zh"].startswith("摄像头")
    assert cv2.imread(str(tmp_path / "frame.png")).shape == (SIZE[1], SIZE[0], 3)


def test_missing_model(box, capsys, tmp_path):
    folder, _ = box
    (tmp_path / "empty").mkdir()
    code, out = doctor_says(write_config(folder, model_dir=str(tmp_path / "empty")), capsys=capsys)
    assert code == 1
    assert "missing finder.onnx, reader.onnx in" in line(out, "FAIL", "model")
    assert "Fix: copy the model files again: sudo deploy/raspberrypi/install.sh" in out


def test_corrupt_model(box, capsys, tmp_path):
    folder, _ = box
    models = tmp_path / "models"
    models.mkdir()
    shutil.copy(MODELS_DIR / "reader.onnx", models / "reader.onnx")
    (models / "finder.onnx").write_bytes((MODELS_DIR / "finder.onnx").read_bytes()[:5000])  # a cut-off copy
    code, out = doctor_says(write_config(folder, model_dir=str(models)), capsys=capsys)
    assert code == 1
    assert "cannot load the models in" in line(out, "FAIL", "model")
    line(out, "OK", "camera")  # the other checks still ran


def test_missing_calibration(box, capsys):
    folder, config = box
    (folder / "calibration.json").unlink()
    code, out = doctor_says(config, capsys=capsys)
    assert code == 1
    assert "no calibration file at" in line(out, "FAIL", "calibration")
    assert "sudo deploy/raspberrypi/calibrate.sh" in out


def test_calibration_from_another_camera_mode(box, capsys):
    folder, config = box
    calibrate(folder / "calibration.json", (1280, 720))
    code, out = doctor_says(config, capsys=capsys)
    assert code == 1
    assert "calibrated at 1280x720 but the camera now gives 640x360" in line(out, "FAIL", "calibration")


def test_corrupt_calibration_and_seat_mismatch(box, capsys):
    folder, config = box
    (folder / "calibration.json").write_text("{not json")
    code, out = doctor_says(config, capsys=capsys)
    assert code == 1 and "is not JSON" in line(out, "FAIL", "calibration")
    cal = Calibration.from_corners([[64, 36], [576, 36], [576, 324], [64, 324]], MatLayout.standard(4, "A2"), SIZE)
    cal.save(folder / "calibration.json")
    code, out = doctor_says(config, capsys=capsys)
    assert "the calibrated mat has 4 seats, the config says 3" in line(out, "FAIL", "calibration")


def test_camera_that_fails(box, capsys):
    folder, _ = box
    code, out = doctor_says(write_config(folder, source=str(folder / "no-such.avi")), capsys=capsys)
    assert code == 1
    assert "no such camera, stream, folder or file" in line(out, "FAIL", "camera")
    assert "check [camera] source" in out
    (folder / "broken.avi").write_bytes(b"this is not a video" * 100)
    code, out = doctor_says(write_config(folder, source=str(folder / "broken.avi")), capsys=capsys)
    assert code == 1
    assert "no frame from" in line(out, "FAIL", "camera")
    line(out, "OK", "calibration")  # no frame to compare sizes with: the file alone is checked


def test_pi_camera_without_picamera2_says_how_to_fix(box, capsys):
    folder, _ = box
    code, out = doctor_says(write_config(folder, source="picamera"), capsys=capsys)
    assert code == 1
    line(out, "FAIL", "camera")
    assert "rpicam-hello --list-cameras" in out and "python3-picamera2" in out


def test_broken_config_stops_the_other_checks(tmp_path, capsys):
    config = tmp_path / "config.toml"
    config.write_text("[camera]\nsource = \"picamera\"\nzoom = 3\n")
    code, out = doctor_says(config, capsys=capsys)
    assert code == 1
    assert f"{config} line 3: camera.zoom: unknown key" in line(out, "FAIL", "config")
    assert "the other checks need a valid config first" in out
    code, out = doctor_says(tmp_path / "missing.toml", capsys=capsys)
    assert code == 1 and "no config file at" in line(out, "FAIL", "config")


def test_store_problems(box, capsys):
    folder, config = box
    (folder / "data" / "ddz-table.db").write_bytes(b"not a database" * 500)
    code, out = doctor_says(config, capsys=capsys)
    assert code == 1 and "cannot read the store" in line(out, "FAIL", "store")
    shutil.rmtree(folder / "data")
    code, out = doctor_says(config, capsys=capsys)
    assert "does not exist" in line(out, "FAIL", "store")


def test_a_check_that_crashes_is_a_fail_not_a_traceback(box, capsys, monkeypatch):
    _, config = box

    def boom(cfg):
        raise OSError("disk vanished")

    monkeypatch.setattr(doctor, "check_disk", boom)
    code, out = doctor_says(config, capsys=capsys)
    assert code == 1 and "the check itself failed: OSError: disk vanished" in line(out, "FAIL", "disk")


def test_clock_and_disk_limits(box, monkeypatch):
    assert doctor.check_clock(now=0, synced=None).level == "FAIL"  # 1970: never set
    assert doctor.check_clock(now=doctor.EARLIEST_PLAUSIBLE + 86400, synced="no").level == "WARN"
    assert doctor.check_clock(now=doctor.EARLIEST_PLAUSIBLE + 86400, synced="yes").en.endswith("synchronised")
    _, config = box
    cfg = load_config(config)
    usage = type(shutil.disk_usage("/"))
    monkeypatch.setattr(doctor.shutil, "disk_usage", lambda p: usage(1, 1, 100 * 2**20))
    assert doctor.check_disk(cfg).level == "FAIL"
    monkeypatch.setattr(doctor.shutil, "disk_usage", lambda p: usage(1, 1, 500 * 2**20))
    assert doctor.check_disk(cfg).level == "WARN"


class Health(http.server.BaseHTTPRequestHandler):
    body: dict = {}

    def do_GET(self):  # noqa: N802 - the http.server name
        data = json.dumps(self.body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_a_running_service_is_asked_instead_of_the_camera(box):
    _, config = box
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Health)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        cfg = load_config(config)
        cfg = type(cfg)(**{**cfg.__dict__, "port": server.server_address[1]})
        Health.body = {"pipeline": {"source": "picamera:0", "source_state": "running", "fps": 7.5,
                                    "last_frame": time.time()}}
        assert doctor.check_service_camera(cfg).level == "OK"
        Health.body = {"pipeline": {"source": "picamera:0", "source_state": "reconnecting", "fps": 0,
                                    "last_frame": time.time() - 60, "error": "the Pi camera stopped"}}
        check = doctor.check_service_camera(cfg)
        assert check.level == "FAIL" and "state reconnecting" in check.en and "cable" in check.fix_en
    finally:
        server.shutdown()
        server.server_close()
    assert "does not answer" in doctor.check_service_camera(cfg).en  # the service is up but its site is not


def test_the_deck_profile_named_in_the_config_is_checked(box, capsys):
    folder, _ = box
    code, out = doctor_says(write_config(folder, deck="club"), capsys=capsys)
    assert code == 1
    assert "cannot read the deck profile" in line(out, "FAIL", "model") and "club.npz" in out
    assert "enroll --list" in out
    classes = CardDetector().reader_classes
    DeckProfile("club", classes, ("3s",), np.zeros((1, len(classes))), np.ones(1), np.zeros(1)).save(
        folder / "data" / "decks" / "club.npz")
    code, out = doctor_says(write_config(folder, deck="club"), capsys=capsys)
    assert "deck profile club" in line(out, "OK", "model")
