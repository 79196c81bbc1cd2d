"""``ddz-table analyse``: text and JSON, match records hand by hand, and clear errors."""

from __future__ import annotations

import json
import random

from cli.main import main
from engine.events import Deal
from engine.match import HandRecord, Match
from engine.record import RecordedHand, dumps
from sim.bots import play_hand

NAMES = ("张三", "李四", "王五")


def bot_record(seed: int, cards: int = 5) -> RecordedHand:
    rng = random.Random(seed)
    hand = play_hand("classic", rng, cards=cards)
    while hand.redeal:
        hand = play_hand("classic", rng, cards=cards)
    return RecordedHand.of(hand, NAMES)


def without_hands(record: RecordedHand) -> RecordedHand:
    deal = record.events[0]
    assert isinstance(deal, Deal)
    return RecordedHand(record.rules, record.players, (Deal(counts=deal.counts), *record.events[1:]))


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_text_names_the_players_and_gives_the_verdict_in_both_languages(tmp_path, capsys):
    path = write(tmp_path, "hand.json", dumps(bot_record(1)))
    assert main(["analyse", path]) == 0
    out = capsys.readouterr().out
    assert out.startswith("开局：") and "From the deal:" in out
    assert any(name in out for name in NAMES) and "当地主" in out and "as landlord" in out


def test_json_is_one_object_with_steps_and_lines(tmp_path, capsys):
    record = bot_record(2)
    path = write(tmp_path, "hand.json", dumps(record))
    assert main(["analyse", path, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["players"] == list(NAMES) and data["landlord"] == record.hand().landlord
    assert data["start"] in (True, False) and data["steps"] and set(data["lines"]) == {"zh", "en"}


def test_a_match_is_analysed_hand_by_hand_and_a_hand_without_cards_says_why(tmp_path, capsys):
    good, bare = bot_record(3), without_hands(bot_record(4))
    match = Match("classic", NAMES, [HandRecord(good.events), HandRecord(bare.events)])
    path = write(tmp_path, "match.json", dumps(match))
    assert main(["analyse", path, "--json"]) == 0
    hands = json.loads(capsys.readouterr().out)["hands"]
    assert len(hands) == 2 and "steps" in hands[0] and "亮牌" in hands[1]["error"]
    assert main(["analyse", path, "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "Hand 1" in out and "Hand 2" in out and "cannot analyse" in out


def test_a_record_without_starting_hands_fails_and_says_how_to_get_them(tmp_path, capsys):
    path = write(tmp_path, "bare.json", dumps(without_hands(bot_record(5))))
    assert main(["analyse", path]) == 2
    err = capsys.readouterr().err
    assert "亮牌" in err and "starting hands are not known" in err


def test_a_missing_file_and_bad_json_are_clear_errors(tmp_path, capsys):
    assert main(["analyse", str(tmp_path / "nope.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["analyse", write(tmp_path, "bad.json", "{not json")]) == 2
    assert "not JSON" in capsys.readouterr().err
    assert main(["analyse", write(tmp_path, "other.json", json.dumps({"format": "x"}))]) == 2
    assert "not a ddz-table/record" in capsys.readouterr().err


def test_a_budget_must_be_positive(tmp_path, capsys):
    path = write(tmp_path, "hand.json", dumps(bot_record(6)))
    assert main(["analyse", path, "--seconds", "0"]) == 2
    assert "positive" in capsys.readouterr().err


def test_a_preset_without_open_hand_analysis_fails_and_says_why_in_both_languages(tmp_path, capsys):
    record = RecordedHand("five", ("a", "b", "c", "d", "e"), (Deal(counts=(21,) * 5),))
    path = write(tmp_path, "five.json", dumps(record))
    assert main(["analyse", path]) == 2
    err = capsys.readouterr().err
    assert "不做明牌复盘。有暗地主" in err and "no open-hand analysis. With a hidden landlord" in err
