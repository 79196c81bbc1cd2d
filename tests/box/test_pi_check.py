"""The arm64 check's own pieces (deploy/raspberrypi/pi-check*): the picamera2 stand-in behind the
Pi camera source, the comparisons it prints PASS/FAIL from, the installer's config tool on a
Python without OpenCV (a fresh Pi), and bench/macs.py's multiply-add count."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.sources.picamera import PiCameraSource

REPO = Path(__file__).resolve().parents[2]
CHECK = REPO / "deploy" / "raspberrypi" / "pi-check"


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


compare = load(CHECK / "compare.py", "pi_check_compare")


# ---------------------------------------------------------------------- the picamera2 stand-in
@pytest.fixture
def standin(tmp_path, monkeypatch):
    """The stand-in installed as ``picamera2``, filming a 3-frame video: blue, green, red."""
    film = tmp_path / "film.avi"
    writer = cv2.VideoWriter(str(film), cv2.VideoWriter_fourcc(*"MJPG"), 25, (160, 90))
    for channel in range(3):
        image = np.zeros((90, 160, 3), np.uint8)
        image[..., channel] = 250
        writer.write(image)
    writer.release()
    module = load(CHECK / "picamera2.py", "picamera2")
    monkeypatch.setitem(sys.modules, "picamera2", module)
    monkeypatch.setenv("PICAMERA2_STANDIN_FILM", str(film))
    return module


def test_standin_feeds_the_pi_source_the_film_in_order_at_the_mode_it_chose(standin):
    # 90 cm over an A2 mat: camera.md's table gives the 2304x1296 mode (the 1536 crop is too narrow).
    src = PiCameraSource(height_mm=900, mat="A2", settle_s=0)
    frames = [src.read() for _ in range(4)]
    assert all(f.image.shape == (1296, 2304, 3) for f in frames)
    # B, G, R in memory as picamera2's RGB888, then the film again from its start.
    assert [int(np.argmax(f.image[600, 1100])) for f in frames] == [0, 1, 2, 0]
    info = src.status().camera
    assert info["camera"] == "Camera Module 3" and info["sensor_mode"] == "2304x1296"
    assert src.locked and info["exposure"] == "locked"  # settle_s=0: locked at the first frame
    assert src.lock_focus() and src.focus_locked
    src.close()


def test_standin_refuses_what_picamera2_refuses(standin, tmp_path, monkeypatch):
    cam = standin.Picamera2()
    with pytest.raises(KeyError, match="NoSuchControl"):
        cam.set_controls({"NoSuchControl": 1})
    with pytest.raises(RuntimeError, match="started"):
        cam.capture_array("main")
    with pytest.raises(IndexError):
        standin.Picamera2(1)
    monkeypatch.setenv("PICAMERA2_STANDIN_FILM", str(tmp_path / "missing.mp4"))
    src = PiCameraSource(settle_s=99)
    with pytest.raises(Exception, match="missing.mp4"):
        src.open()


# ---------------------------------------------------------------------- comparisons
def det(card, box):
    return {"card": card, "box": list(box)}


def test_detections_agree_within_tolerance_and_not_beyond():
    x86 = {"a.png": [det("Ks", (10, 10, 30, 40)), det("Ks", (100, 100, 120, 130)), det("3d", (50, 5, 60, 20))]}
    near = {"a.png": [det("Ks", (101, 99.5, 121, 131)), det("3d", (50.5, 5, 60, 20)), det("Ks", (10, 10, 30, 40))]}
    good, worst, problems = compare.compare_detections(near, x86, 2.0)
    assert good and problems == [] and worst == pytest.approx(1.0)
    shifted = {"a.png": [det("Ks", (10, 10, 30, 40)), det("Ks", (103, 100, 123, 130)), det("3d", (50, 5, 60, 20))]}
    good, worst, problems = compare.compare_detections(shifted, x86, 2.0)
    assert not good and worst == pytest.approx(3.0) and "Ks" in problems[0]
    other_card = {"a.png": [det("Ks", (10, 10, 30, 40)), det("Kc", (100, 100, 120, 130)), det("3d", (50, 5, 60, 20))]}
    assert not compare.compare_detections(other_card, x86, 2.0)[0]
    assert not compare.compare_detections({}, x86, 2.0)[0]  # an image read on one machine only


def test_a_read_at_the_threshold_may_fall_either_side_but_a_sure_one_may_not():
    x86 = {"a.png": [{**det("Ks", (10, 10, 30, 40)), "confidence": 0.7}]}
    arm = {"a.png": [{**det("Ks", (10, 10, 30, 40)), "confidence": 0.69},
                     {**det("3d", (50, 5, 60, 20)), "confidence": 0.172}]}
    assert compare.compare_detections(arm, x86, 2.0, sure=0.19)[0]
    good, _, problems = compare.compare_detections(arm, x86, 2.0, sure=0.17)
    assert not good and "3d" in problems[0] and "first" in problems[0]
    assert compare.largest_confidence_gap(arm, x86) == pytest.approx(0.01)


def store(path: Path, events: list[tuple[int, str, dict]]) -> Path:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, hand INTEGER, time REAL, kind TEXT, payload TEXT)")
    for i, (hand, kind, payload) in enumerate(events):
        con.execute("INSERT INTO events (hand, time, kind, payload) VALUES (?, ?, ?, ?)",
                    (hand, 1e9 + i * 0.37, kind, json.dumps(payload)))
    con.commit()
    con.close()
    return path


def test_plays_compare_the_table_not_the_wall_clock(tmp_path):
    events = [(1, "play", {"seat": 2, "cards": "2s", "time": 7.800000000000001}),
              (1, "pass", {"seat": 0, "time": 9.2}), (1, "alert", {"text": "x"}),
              (1, "play", {"seat": 1, "cards": "Jc Jd", "time": 14.4})]
    a = compare.stored_plays(store(tmp_path / "a.db", events))
    b = compare.stored_plays(store(tmp_path / "b.db", [e for e in events if e[1] != "alert"]))
    assert a == [(1, "play", 2, "2s", 7.8), (1, "pass", 0, None, 9.2), (1, "play", 1, "Jc Jd", 14.4)]
    assert compare.compare_plays(a, b) == []
    c = compare.stored_plays(store(tmp_path / "c.db", events[:1] + [(1, "play", {"seat": 0, "cards": "Jc Jd",
                                                                              "time": 14.4})]))
    assert compare.compare_plays(a, c) == ["#2: (1, 'pass', 0, None, 9.2) vs (1, 'play', 0, 'Jc Jd', 14.4)",
                                           "#3: (1, 'play', 1, 'Jc Jd', 14.4) vs None"]


def test_wheels_must_be_arm64_builds_or_debians_own():
    def row(name, tag, where="/opt/ddz-table/venv/lib/python3.11/site-packages"):
        return {"name": name, "version": "1", "tags": [tag] if tag else [], "location": where}

    rows = [row("onnxruntime", "cp311-cp311-manylinux_2_27_aarch64.manylinux_2_28_aarch64"),
            row("ncnn", "cp311-cp311-manylinux_2_17_aarch64.manylinux2014_aarch64"),
            row("opencv-python-headless", "cp37-abi3-manylinux_2_17_aarch64.manylinux2014_aarch64"),
            row("numpy", None, "/usr/lib/python3/dist-packages"), row("flask", "py3-none-any")]
    good, lines = compare.judge_wheels(rows)
    assert good and any("Debian" in line and line.startswith("numpy") for line in lines)
    rows[1] = row("ncnn", "cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64")
    good, lines = compare.judge_wheels(rows)
    assert not good and "ncnn" in lines[-1]
    assert not compare.judge_wheels(rows[2:])[0]  # onnxruntime and ncnn missing


# ---------------------------------------------------------------------- the installer on a fresh Pi
def test_installer_writes_the_config_with_a_python_that_has_no_opencv(tmp_path):
    # A fresh Raspberry Pi OS has no OpenCV for Python: the installer's config step runs before
    # the venv exists, with the system Python. A cv2 that cannot be imported stands for that.
    blocker = tmp_path / "no-opencv"
    blocker.mkdir()
    (blocker / "cv2.py").write_text("raise ModuleNotFoundError('No module named cv2', name='cv2')\n")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(blocker)}
    probe = subprocess.run([sys.executable, "-c", "import cv2"], env=env, capture_output=True, text=True)
    assert probe.returncode != 0  # the blocker works
    result = subprocess.run(["bash", str(REPO / "deploy/raspberrypi/install.sh"), "--prefix", str(tmp_path / "root"),
                             "--no-apt", "--no-venv", "--no-systemctl", "--python", sys.executable, "--seats", "4"],
                            env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    text = (tmp_path / "root/etc/ddz-table/config.toml").read_text(encoding="utf-8")
    assert "seats = 4" in text and 'preset = "four"' in text


# ---------------------------------------------------------------------- bench/macs.py
@pytest.mark.train  # the onnx package comes with the train extra
def test_macs_of_hand_made_graphs_and_the_shipped_models(tmp_path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    from bench import macs

    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "w")
    dw = numpy_helper.from_array(rng.standard_normal((8, 1, 3, 3)).astype(np.float32), "dw")
    g = numpy_helper.from_array(rng.standard_normal((5, 8)).astype(np.float32), "g")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),               # 8x10x10 out, 27 each
             helper.make_node("Conv", ["c", "dw"], ["d"], group=8, strides=[2, 2]),        # 8x4x4 out, 9 each
             helper.make_node("Reshape", ["d", "shape"], ["r"]),                           # (8, 16)
             helper.make_node("MatMul", ["r", "rt"], ["m"]),                                # (8,16) @ (16,8)
             helper.make_node("Transpose", ["r"], ["rt"], perm=[1, 0]),
             helper.make_node("Gemm", ["m", "g"], ["y"], transB=1)]                        # (8,8) x (8,5)
    shape = numpy_helper.from_array(np.array([8, 16], np.int64), "shape")
    graph = helper.make_graph([nodes[0], nodes[1], nodes[2], nodes[4], nodes[3], nodes[5]], "t",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, "h", "w"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w, dw, g, shape])
    path = tmp_path / "t.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    result = macs.model_macs(path, (1, 3, 10, 10))
    assert result["by_op"] == {"Conv": 800 * 27 + 128 * 9, "MatMul": 8 * 16 * 8, "Gemm": 8 * 8 * 5}
    assert result["params"] == 8 * 27 + 8 * 9 + 40 + 2

    finder = REPO / "models" / "finder.onnx"
    full, quarter = (macs.model_macs(finder, (1, 3, s, s))["total"] for s in (640, 320))
    assert 3.8 < full / quarter < 4.2  # convolutions: work in proportion to the pixels
    reader = REPO / "models" / "reader.onnx"
    one, two = (macs.model_macs(reader, (n, 3, 96, 96))["total"] for n in (1, 2))
    assert two == 2 * one and one < full / 20  # a crop's read is small beside a zone's search
    with pytest.raises(macs.MacsError, match="fixed"):
        macs.model_macs(reader, (1, 3, 64, 64))
