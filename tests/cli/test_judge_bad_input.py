"""``judge`` on bad input: a batch survives any line, a card named twice is no combination
under one deck, and empty cards are a usage error."""

from __future__ import annotations

import io
import json
import sys

import pytest

from cli.main import main
from engine.cards import parse_cards, repeated_cards
from engine.judge import judge
from engine.rules import get_rules


def run(argv, capsys, monkeypatch=None, stdin: bytes | None = None):
    if stdin is not None:
        assert monkeypatch is not None
        stream = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
        monkeypatch.setattr(sys, "stdin", stream)
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_a_batch_goes_on_after_a_line_nested_past_the_recursion_limit(monkeypatch, capsys):
    lines = [json.dumps({"cards": "3"}), "[" * 1000 + "]" * 1000, '{"a":' * 1200 + "1" + "}" * 1200,
             "[" * 100_000, json.dumps({"cards": "4", "after": "3"})]
    rc, out, err = run(["judge", "--batch", "-"], capsys, monkeypatch, "\n".join(lines).encode())
    answers = [json.loads(line) for line in out.splitlines()]
    assert len(answers) == 5 and "Traceback" not in err
    assert answers[0]["valid"] is True
    assert answers[1] == {"valid": False, "readings": [], "error": "第 2 行：JSON 嵌套太深 / line 2: JSON nested too deeply"}
    assert answers[2] == {"valid": False, "readings": [], "error": "第 3 行：JSON 嵌套太深 / line 3: JSON nested too deeply"}
    assert answers[3]["valid"] is False and answers[3]["error"].startswith("第 4 行：超过") and "line 4: longer than" in answers[3]["error"]
    assert answers[4]["beats"] is True
    assert rc == 1


def test_a_batch_line_that_is_not_utf8_is_one_bad_line(monkeypatch, capsys, tmp_path):
    data = json.dumps({"cards": "5"}).encode() + b"\n\xff\xfe\x00\n" + json.dumps({"cards": "6 6"}).encode() + b"\n"
    rc, out, _ = run(["judge", "--batch", "-"], capsys, monkeypatch, data)
    answers = [json.loads(line) for line in out.splitlines()]
    assert [a["valid"] for a in answers] == [True, False, True] and "UTF-8" in answers[1]["error"]
    assert rc == 1
    path = tmp_path / "batch.jsonl"
    path.write_bytes(data)
    rc, out, _ = run(["judge", "--batch", str(path)], capsys)
    assert [json.loads(line)["valid"] for line in out.splitlines()] == [True, False, True] and rc == 1


def test_a_batch_line_with_empty_or_duplicate_cards_gets_its_own_answer(monkeypatch, capsys):
    lines = [json.dumps({"cards": ""}), json.dumps({"cards": "3s 3s 3s 3s"}),
             json.dumps({"cards": "3s 3s 3h 3h", "rules": "four"})]
    rc, out, _ = run(["judge", "--batch", "-"], capsys, monkeypatch, "\n".join(lines).encode())
    empty, classic, four = (json.loads(line) for line in out.splitlines())
    assert empty["valid"] is False and "no cards" in empty["error"]
    assert classic["valid"] is False and classic["reason"] == "duplicate_card" and classic["duplicates"] == ["3s"]
    assert four["valid"] is True and four["readings"][0]["type"] == "bomb"
    assert rc == 1  # the empty line


def test_the_same_card_twice_is_no_bomb_under_one_deck(capsys):
    rc, out, _ = run(["judge", "3s 3s 3s 3s", "--json"], capsys)
    verdict = json.loads(out)
    assert rc == 0 and verdict["valid"] is False and verdict["readings"] == []
    assert verdict["reason"] == "duplicate_card" and verdict["duplicates"] == ["3s"]
    rc, out, _ = run(["judge", "3s 3s 3s 3s"], capsys)
    assert rc == 0 and "同一张牌出现两次" in out and "duplicate card" in out and "3s" in out
    assert out.index("同一张牌") < out.index("duplicate card")


def test_two_decks_hold_two_of_each_card_but_not_three(capsys):
    rc, out, _ = run(["judge", "3s 3s 3h 3h", "--rules", "four", "--json"], capsys)
    verdict = json.loads(out)
    assert rc == 0 and verdict["valid"] is True and "reason" not in verdict
    rc, out, _ = run(["judge", "3s 3s 3s 3h", "--rules", "four", "--json"], capsys)
    verdict = json.loads(out)
    assert verdict["valid"] is False and verdict["duplicates"] == ["3s"] and verdict["decks"] == 2
    rc, out, _ = run(["judge", "3s 3s 3s 3h", "--rules", "four"], capsys)
    assert "2 副牌" in out and "2 decks" in out


def test_a_joker_named_twice_and_a_duplicate_against_after():
    classic = get_rules("classic")
    assert judge("BJ BJ", None, classic)["reason"] == "duplicate_card"
    assert judge("BJ BJ", None, get_rules("four"))["valid"] is True  # joker pairs with two decks
    verdict = judge("5s 5s", "4s 4h", classic)
    assert verdict["valid"] is False and verdict["beats"] is False
    with pytest.raises(ValueError, match="4s"):
        judge("5s 5h", "4s 4s", classic)
    # rank-only cards may be any suit: nothing to tell apart
    assert judge("3 3 3 3", None, classic)["valid"] is True


def test_repeated_cards_counts_only_cards_that_can_be_told_apart():
    assert repeated_cards(parse_cards("3s 3s 3 3 RJ")) == parse_cards("3s")
    assert repeated_cards(parse_cards("3s 3s 3s"), decks=2) == parse_cards("3s")
    assert repeated_cards(parse_cards("3 3 3 3 3 3 3 3")) == []


@pytest.mark.parametrize("cards", ["", "   ", " , "])
def test_empty_cards_is_a_usage_error(cards, capsys):
    rc, out, err = run(["judge", cards], capsys)
    assert rc == 2 and out == "" and "Traceback" not in err
    assert "请写出要判定的牌" in err or "no cards" in err
    rc, out, err = run(["judge", cards, "--json"], capsys)
    assert rc == 2


def test_a_play_that_is_no_combination_says_so(capsys):
    rc, out, _ = run(["judge", "3s 5h", "--json"], capsys)
    verdict = json.loads(out)
    assert rc == 0 and verdict["valid"] is False and verdict["reason"] == "not_a_combination"


def test_every_bad_batch_line_says_why_in_chinese_then_english(monkeypatch, capsys):
    lines = ['{"cards": "3", "rules": "nope"}', '{"cards": "Xz"}', "not json", "[1]", '{"cards": "3", "after": 4}',
             '{"cards": "3 3", "after": "4 5"}', '{"cards": "3", "rules": 5}']
    rc, out, err = run(["judge", "--batch", "-"], capsys, monkeypatch, "\n".join(lines).encode())
    answers = [json.loads(line) for line in out.splitlines()]
    assert rc == 1 and len(answers) == len(lines) and "Traceback" not in err
    for number, answer in enumerate(answers, 1):
        zh, _, en = answer["error"].partition(" / ")
        assert zh.startswith(f"第 {number} 行：") and en.startswith(f"line {number}: "), answer
        assert any("\u4e00" <= ch <= "\u9fff" for ch in zh[len(f"第 {number} 行："):]), answer
    assert "'Xz'" in answers[1]["error"] and "nope" in answers[0]["error"]
