"""The table commands: mat, calibrate, run (on a folder of toy-table frames)."""

from __future__ import annotations

import argparse
import json

import cv2
import numpy as np
import pytest

from cli import table as cli
from engine.record import load
from sim.toy_table import ToyTable
from tests.kit.commands import ddz
from tests.kit.hands import tiny_hand
from tracker.state import TableState
from tracker.store import EventStore
from tracker.zones import Calibration, find_markers


def test_mat_png_and_pdf(tmp_path, capsys):
    assert ddz("mat", "--seats", 4, "--size", "A3", "--dpi", 60, "--out", tmp_path / "mat.png") == 0
    image = cv2.imread(str(tmp_path / "mat.png"))
    assert set(find_markers(image)) == {0, 1, 2, 3}
    assert ddz("mat", "--out", tmp_path / "mat.pdf", "--dpi", 40) == 0
    assert (tmp_path / "mat.pdf").read_bytes().startswith(b"%PDF")
    assert "100%" in capsys.readouterr().out
    assert ddz("mat", "--out", tmp_path / "mat.gif", "--dpi", 40) == 2
    assert ".png or .pdf" in capsys.readouterr().err


@pytest.fixture(scope="module")
def toy_frames(tmp_path_factory):
    """A folder with the frames of a short filmed hand, and one frame to calibrate from.
    Lossless BMP: the same pixels as PNG, written and read many times quicker."""
    folder = tmp_path_factory.mktemp("frames")
    table = ToyTable(seed=2)
    for i, (image, _) in enumerate(table.play_hand(tiny_hand())):
        cv2.imwrite(str(folder / f"{i:05d}.bmp"), image)
    return folder, table


def test_calibrate_from_a_photo_with_preview(tmp_path, toy_frames, capsys):
    folder, table = toy_frames
    out = tmp_path / "cal.json"
    assert ddz("calibrate", "--image", folder / "00000.bmp", "--out", out, "--preview", tmp_path / "p.png") == 0
    cal = Calibration.load(out)
    assert cal.markers_found == (0, 1, 2, 3) and cal.image_size == (960, 540)
    corners = np.float32([[0, 0]]).reshape(1, 1, 2)
    assert np.abs(cal.table_to_image([[0, 0]]) - cv2.perspectiveTransform(corners, table.h_true)[0]).max() < 3
    assert cv2.imread(str(tmp_path / "p.png")).shape == (540, 960, 3)
    assert "markers [0, 1, 2, 3]" in capsys.readouterr().out


def test_calibrate_from_a_source_and_by_corners(tmp_path, toy_frames):
    folder, _ = toy_frames
    assert ddz("calibrate", "--source", folder, "--out", tmp_path / "a.json", "--tries", 3) == 0
    assert ddz("calibrate", "--image", folder / "00000.bmp", "--corners", "172,60 795,45 892,517 82,495",
               "--out", tmp_path / "b.json") == 0
    a, b = Calibration.load(tmp_path / "a.json"), Calibration.load(tmp_path / "b.json")
    assert b.method == "corners"
    assert np.abs(a.table_to_image([[300, 200]]) - b.table_to_image([[300, 200]])).max() < 3


def test_calibrate_errors_are_messages(tmp_path, capsys):
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((100, 100, 3), 200, np.uint8))
    assert ddz("calibrate", "--image", blank, "--out", tmp_path / "c.json") == 2
    assert "markers" in capsys.readouterr().err
    assert ddz("calibrate", "--image", blank, "--corners", "1,2 3", "--out", tmp_path / "c.json") == 2
    assert "four" in capsys.readouterr().err
    assert ddz("calibrate", "--image", tmp_path / "none.png") == 2


def test_run_referees_a_filmed_hand_and_writes_the_record(tmp_path, toy_frames, capsys):
    folder, _ = toy_frames
    cal, db, record = tmp_path / "cal.json", tmp_path / "t.db", tmp_path / "rec.json"
    ddz("calibrate", "--image", folder / "00000.bmp", "--out", cal)
    store = EventStore(db)  # the page would enter the deal and the bids; here a script does
    mid = cli.choose_match(store, __import__("engine.rules").rules.get_rules("classic"), ("甲", "乙", "丙"), None, False)
    truth = tiny_hand()
    for event in truth.events[:2]:
        store.append(mid, 1, event, source="referee")
    store.close()
    code = ddz("run", "--source", folder, "--calibration", cal, "--db", db, "--no-web", "--record", record,
               "--players", "甲,乙,丙", "--detector", "sim.toy_table:ToyDetector")
    assert code == 0, capsys.readouterr().err
    data = json.loads(record.read_text())
    hand = data["hands"][0]
    assert hand["landlord"] == 0 and hand["bid"] == 3
    assert [(a["seat"], a["kind"], a["cards"]) for a in hand["actions"]] == [(0, "play", ["3s", "3h"]),
                                                                          (1, "play", ["5s", "5h"])]
    assert hand["kitty"] == ["As", "7d", "7c"]
    assert hand["result"] == {"winner": "farmers", "multiplier": 2, "points": [-12, 6, 6], "outcome": "farmers_won"}
    assert load(json.dumps(data)).totals() == [-12, 6, 6]  # the engine reads the record back
    # a restart continues the same match from the store
    with EventStore(db) as again:
        assert len(again.matches()) == 1 and TableState.load(again, mid).hand.finished


def test_run_refuses_mismatched_setups(tmp_path, toy_frames, capsys):
    folder, _ = toy_frames
    cal = tmp_path / "cal.json"
    ddz("calibrate", "--image", folder / "00000.bmp", "--out", cal)
    assert ddz("run", "--source", folder, "--calibration", cal, "--rules", "four", "--no-web") == 2
    assert "3 seats" in capsys.readouterr().err
    assert ddz("run", "--source", folder, "--calibration", cal, "--players", "a,b", "--no-web") == 2
    assert ddz("run", "--source", tmp_path / "nothing", "--calibration", cal, "--no-web",
               "--db", tmp_path / "x.db", "--detector", "sim.toy_table:ToyDetector") == 1  # docs/cli.md: a video that cannot be opened
    assert "视频读取失败" in (err := capsys.readouterr().err) and "no such camera" in err
    assert ddz("run", "--source", folder, "--calibration", cal, "--no-web", "--db", tmp_path / "y.db",
               "--detector", "nope") == 2
    assert ddz("run", "--source", folder, "--calibration", tmp_path / "missing.json", "--no-web") == 2


def test_run_serves_the_site_with_the_pipeline_status(capsys):
    import urllib.request

    from sim.toy_table import ToyDetector
    from tracker.session import TableSession

    table = ToyTable()
    store = EventStore(":memory:")
    session = TableSession(None, table.calibration(), ToyDetector(), store, store.create_match(("a", "b", "c")))
    args = argparse.Namespace(camera_view=False, pin="246810", host="127.0.0.1", port=0)
    server = cli._serve(store, session, args)
    try:
        port = server.effective_port
        health = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10).read())
        assert health["pipeline"]["calibration"] == "markers" and health["pipeline"]["frames"] == 0
        state = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=10).read())
        assert [s["name"] for s in state["hand"]["seats"]] == ["a", "b", "c"]
    finally:
        server.close()
    assert "referee PIN / 裁判密码: 246810" in capsys.readouterr().out
