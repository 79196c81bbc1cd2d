"""Every error the command line prints is Chinese first, then English, names the file it is
about, and exits as docs/cli.md says; under ``--json`` errors are JSON too. A ``run`` that fails
before it reads a frame leaves the store as it found it."""

from __future__ import annotations

import json

import pytest

from cli.main import main
from sim.toy_table import ToyTable
from tracker.store import EventStore

CJK = range(0x4E00, 0xA000)


def chinese_first(line: str) -> bool:
    """Chinese before the first ' / ', English after it."""
    zh, _, en = line.partition(" / ")
    return any(ord(ch) in CJK for ch in zh) and bool(en.strip())


def run(argv, capsys):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture(scope="module")
def calibration(tmp_path_factory):
    path = tmp_path_factory.mktemp("cal") / "cal.json"
    ToyTable(seed=2).calibration().save(path)
    return path


def test_judge_unreadable_cards_say_so_in_chinese_then_english(capsys):
    rc, out, err = run(["judge", "Xz 3s"], capsys)
    assert rc == 2 and out == ""
    line = err.strip().removeprefix("error: ")
    assert chinese_first(line) and "'Xz'" in line, err
    rc, out, _ = run(["judge", "Xz 3s", "--json"], capsys)
    answer = json.loads(out)
    assert rc == 2 and answer["valid"] is False and chinese_first(answer["error"]) and "'Xz'" in answer["error"]


def test_judge_an_after_that_names_no_cards_is_worded_in_both_languages(capsys):
    rc, _, err = run(["judge", "3s", "--after", " , "], capsys)
    assert rc == 2 and chinese_first(err.strip().removeprefix("error: ")), err


def test_run_on_a_missing_video_exits_1_with_the_video_failure_and_adds_no_match(tmp_path, calibration, capsys):
    db = tmp_path / "t.db"
    rc, _, err = run(["run", "--source", tmp_path / "missing.mp4", "--calibration", calibration, "--db", db,
                      "--no-web", "--detector", "sim.toy_table:ToyDetector"], capsys)
    assert rc == 1, err
    assert "视频读取失败" in err and "missing.mp4" in err and chinese_first(err.strip().removeprefix("ddz-table: "))
    with EventStore(db) as store:
        assert store.matches() == []  # no empty match with default players


@pytest.mark.parametrize("content", [b"\xbc\xff garbage \x00", b"{not json", b"[1, 2]", b'{"format": "other"}'])
def test_a_garbage_calibration_names_the_file_in_both_languages(tmp_path, content, capsys):
    cal = tmp_path / "bad-cal.json"
    cal.write_bytes(content)
    db = tmp_path / "t.db"
    rc, _, err = run(["run", "--source", tmp_path / "missing.mp4", "--calibration", cal, "--db", db, "--no-web"],
                     capsys)
    assert rc == 2 and "bad-cal.json" in err and "codec" not in err, err
    assert chinese_first(err.strip().removeprefix("ddz-table: ")) and "标定" in err, err
    assert not db.exists() or EventStore(db).matches() == []


def test_run_with_the_wrong_number_of_players_is_worded_in_both_languages(tmp_path, calibration, capsys):
    rc, _, err = run(["run", "--source", "x.mp4", "--calibration", calibration, "--db", tmp_path / "t.db",
                      "--players", "A,B"], capsys)
    assert rc == 2 and chinese_first(err.strip().removeprefix("ddz-table: ")), err


def test_detect_tells_a_folder_from_a_missing_file_from_a_file_that_is_no_image(tmp_path, capsys):
    folder = tmp_path / "photos"
    folder.mkdir()
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    rc, out, err = run(["detect", folder, tmp_path / "absent.png", text], capsys)
    assert rc == 1 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 3 and all(chinese_first(line.removeprefix("ddz-table detect: ")) for line in lines), err
    assert "folder" in lines[0] and "photos" in lines[0]
    assert "not found" in lines[1] and "absent.png" in lines[1]
    assert "not a readable image" in lines[2] and "notes.txt" in lines[2]


def test_detect_json_prints_its_errors_as_json_one_object_per_image(tmp_path, capsys):
    folder = tmp_path / "photos"
    folder.mkdir()
    rc, out, err = run(["detect", folder, tmp_path / "absent.png", "--json"], capsys)
    answers = [json.loads(line) for line in out.splitlines()]
    assert rc == 1 and err == ""
    assert [a["image"] for a in answers] == [str(folder), str(tmp_path / "absent.png")]
    assert "folder" in answers[0]["error"] and "not found" in answers[1]["error"]
    assert all(chinese_first(a["error"]) for a in answers)


def test_detect_json_with_a_bad_option_answers_in_json(tmp_path, capsys):
    rc, out, err = run(["detect", tmp_path / "x.png", "--json", "--conf", "7"], capsys)
    assert rc == 2 and err == "" and "--conf" in json.loads(out)["error"]


def test_enroll_from_a_file_says_it_is_a_file_not_a_folder(tmp_path, capsys):
    text = tmp_path / "labels.txt"
    text.write_text("0 0.5 0.5 0.1 0.1\n")
    rc, _, err = run(["enroll", "--from-labels", text, "--deck", "mine", "--out", tmp_path / "d.npz"], capsys)
    assert rc == 2 and "is a file, not a folder" in err and "no such folder" not in err
    assert chinese_first(err.strip().removeprefix("ddz-table enroll: "))


def test_club_refuses_a_per_address_cap_under_one_in_both_languages(tmp_path, capsys):
    assert main(["club", "--db", str(tmp_path / "club.db"), "--per-address", "0"]) == 2
    err = capsys.readouterr().err
    assert "至少为 1" in err and "must be 1 or more" in err
    assert not (tmp_path / "club.db").exists()  # refused before the store is opened
