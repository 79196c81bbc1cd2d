"""The judge and score commands, through the real console entry point."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from cli.main import main
from engine import record
from sim.scripted import build


def run(argv: list[str], stdin: str = "", monkeypatch: pytest.MonkeyPatch | None = None, capsys=None):
    if monkeypatch is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_judge_json_lists_every_reading_with_type_main_length(capsys):
    rc, out, _ = run(["judge", "333444555666", "--json"], capsys=capsys)
    verdict = json.loads(out)
    assert rc == 0 and verdict["valid"] is True
    assert [(r["type"], r["main"], r["length"]) for r in verdict["readings"]] == [("airplane", "3", 4)]
    assert "beats" not in verdict


def test_judge_after_says_whether_it_beats(capsys):
    rc, out, _ = run(["judge", "KKK 3", "--after", "QQQ A", "--json"], capsys=capsys)
    verdict = json.loads(out)
    assert rc == 0 and verdict["beats"] is True
    rc, out, _ = run(["judge", "KKK 3", "--after", "QQQ AA", "--json"], capsys=capsys)
    assert json.loads(out)["beats"] is False  # trio_single never beats trio_pair


def test_judge_rocket_beats_bomb_and_rules_preset_changes_the_answer(capsys):
    _, out, _ = run(["judge", "BJ RJ", "--after", "2222", "--json"], capsys=capsys)
    assert json.loads(out)["beats"] is True
    # The four-player game has no trio with a single.
    _, out, _ = run(["judge", "3334", "--rules", "four", "--json"], capsys=capsys)
    assert json.loads(out)["valid"] is False


def test_judge_batch_answers_every_line_in_order_and_survives_bad_lines(monkeypatch, capsys):
    lines = "\n".join([
        json.dumps({"cards": "3"}),
        json.dumps({"cards": "4", "after": "3"}),
        "not json",
        json.dumps({"cards": "3 4 1x"}),
        json.dumps({"after": "3"}),
        json.dumps({"cards": "5 6 7 8 9", "after": "4 5 6 7 8"}),
    ])
    rc, out, _ = run(["judge", "--batch", "-"], stdin=lines, monkeypatch=monkeypatch, capsys=capsys)
    answers = [json.loads(line) for line in out.splitlines()]
    assert len(answers) == 6
    assert answers[0]["valid"] and "beats" not in answers[0]
    assert answers[1]["beats"] is True
    assert answers[2]["valid"] is False and "line 3" in answers[2]["error"]
    assert "1x" in answers[3]["error"]
    assert "cards" in answers[4]["error"]
    assert answers[5]["readings"][0]["type"] == "straight" and answers[5]["beats"] is True
    assert rc == 1  # some lines were bad


def test_judge_bad_cards_is_a_clear_error_not_a_traceback(capsys):
    rc, out, err = run(["judge", "3 3 Z"], capsys=capsys)
    assert rc == 2 and "'Z'" in err and "Traceback" not in err
    rc, out, _ = run(["judge", "3 3 Z", "--json"], capsys=capsys)
    assert rc == 2 and "'Z'" in json.loads(out)["error"]
    rc, _, err = run(["judge", "3", "--rules", "nonsense"], capsys=capsys)
    assert rc == 2 and "nonsense" in err


def test_judge_text_output_speaks_chinese_first(capsys):
    rc, out, _ = run(["judge", "3 4 5 6 7", "--after", "3 4 5 6 7"], capsys=capsys)
    assert rc == 0 and "顺子" in out and "管不上" in out


def test_score_settles_a_match_record(tmp_path, capsys):
    match, _hands, _ = build()
    path = tmp_path / "match.json"
    path.write_text(record.dumps(match), encoding="utf-8")
    rc, out, _ = run(["score", str(path), "--format", "csv", "--lang", "en"], capsys=capsys)
    assert rc == 0
    total = [row for row in out.splitlines() if row.startswith("total")][0]
    assert total.split(",")[-3:] == [str(v) for v in match.totals()]


def test_score_rejects_missing_and_corrupt_records(tmp_path, capsys):
    rc, _, err = run(["score", str(tmp_path / "absent.json")], capsys=capsys)
    assert rc == 2 and "absent.json" in err
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "ddz-table/record", "version": 99}', encoding="utf-8")
    rc, _, err = run(["score", str(bad)], capsys=capsys)
    assert rc == 2 and "version" in err


def test_scripted_demo_replays_the_worked_example():
    out = subprocess.run(
        [sys.executable, "-m", "sim.scripted"], capture_output=True, text=True, timeout=60, check=True,
    ).stdout
    assert "王五 Wang +48" in out and "倍数: 8 = 炸弹 x2, 炸弹 x2, 王炸 x2" in out
