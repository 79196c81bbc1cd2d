"""``python -m bench.tracker`` on a folder shaped like ``ddz-table simulate`` output (toy frames as a
lossless HuffYUV video, the calibration, and truth.json with the plain hand keys)."""

from __future__ import annotations

import json

import cv2

from bench import tracker as tracker_bench
from sim.toy_table import ToyTable
from tests.kit.hands import tiny_hand
from tracker.match_record import hand_keys


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
    out = tracker_bench.bench_sim(tmp_path, "sim.toy_table:ToyDetector", "onnx")
    assert (out["plays"], out["exact"], out["phantom"], out["missed"]) == (2, 2, 0, 0)
    assert out["hands_exact_points"] == 1 and out["landlord_right"] == 1
    assert 0.3 < out["delay_max_s"] < 1.5
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["exact"] == 2


def test_bench_times_simulate_drawing(capsys):
    assert tracker_bench.main(["--render", "3", "--size", "320x180", "--style", "toy"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["frames"] == 3 and out["ms_per_frame"] > 0 and out["name"] == "render toy at 320x180"


def test_the_suite_films_each_seat_count_reads_it_and_adds_up(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(tracker_bench, "SUITE", (("classic", "plastic", 5), ("four", "plastic", 6)))
    whole = tracker_bench.bench_suite(tmp_path, hands=1, cards=2, detector_spec="toy", backend="onnx", style="toy", fps=4)
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    films = [line for line in lines if not line["name"].startswith("suite")]
    assert len(films) == 2 and {p.name[:2] for p in tmp_path.iterdir()} == {"3p", "4p"}
    assert whole["plays"] == sum(f["plays"] for f in films) > 0
    assert whole["exact"] == sum(f["exact"] for f in films)
    # the cards left are shown after each hand: the starting hands are rebuilt and audited
    assert whole["shown_hands"] == 2 and whole["starting_right"] == 2 and whole["audits_passed"] == 2
    assert [line["name"] for line in lines[2:]] == ["suite: 3 seats", "suite: 4 seats", "suite: all films"]
