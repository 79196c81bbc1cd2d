"""bench/tracker.py on a folder shaped like ``ddz-table simulate`` output (toy frames as a
lossless HuffYUV video, the calibration, and truth.json with the plain hand keys)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import cv2

from sim.toy_table import ToyTable
from tests.cli.test_table import tiny_hand
from tracker.match_record import hand_keys

ROOT = Path(__file__).resolve().parents[2]


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_tracker", ROOT / "bench" / "tracker.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_reads_a_simulated_folder_and_scores_it(tmp_path, capsys):
    truth_hand = tiny_hand()
    table = ToyTable(seed=9, noise=0.0)  # noise-free frames keep the lossless codec quick
    writer = cv2.VideoWriter(str(tmp_path / "video.avi"), cv2.VideoWriter_fourcc(*"HFYU"), 10.0, table.size)
    for image, _ in table.play_hand(truth_hand):
        writer.write(image)
    writer.release()
    table.calibration().save(tmp_path / "calibration.json")
    keys = hand_keys(truth_hand)
    plays = [a for a in keys["actions"] if a["kind"] == "play"]
    for action, t in zip(plays, table.landed[1:], strict=True):  # landed[0] is the kitty
        action["time"] = t
    (tmp_path / "truth.json").write_text(json.dumps({"version": 1, "hands": [keys]}))
    out = load_bench().bench_sim(tmp_path, "sim.toy_table:ToyDetector", "onnx")
    assert (out["plays"], out["exact"], out["phantom"], out["missed"]) == (2, 2, 0, 0)
    assert out["hands_exact_points"] == 1 and out["landlord_right"] == 1
    assert 0.3 < out["delay_max_s"] < 1.5
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["exact"] == 2


def test_bench_times_simulate_drawing(capsys):
    assert load_bench().main(["--render", "3", "--size", "320x180", "--style", "toy"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["frames"] == 3 and out["ms_per_frame"] > 0 and out["name"] == "render toy at 320x180"
