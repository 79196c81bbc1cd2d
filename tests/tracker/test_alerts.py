"""The table of alert kinds: every kind emitted is worded there, nothing there is never
emitted, and an alert's words come from its data when it is shown."""

from __future__ import annotations

import doctest
import inspect
import re
import string
from pathlib import Path

import pytest

import engine.cards
import tracker.alerts
import tracker.records
from engine.bidding import Bidding
from engine.cards import Card, parse_cards
from engine.events import Bid, Correction, Deal, Kitty, OpenHand, Pass, Play
from engine.hand import Hand
from engine.rules import get_rules
from engine.violations import KINDS, Violation
from tracker.alerts import ALERTS, REASONS, SEAT_FIELDS, SEVERITIES, render, violation_text
from tracker.records import Alert, record_from_dict

ROOT = Path(__file__).resolve().parents[2]
#: Where alerts and violations are made.
EMITTERS = ["engine/violations.py", "engine/hand.py", "engine/teams.py", "tracker/referee.py", "tracker/state.py",
            "tracker/session.py", "tracker/takeback.py", "sim/demo/feeder.py", "sim/demo/corrector.py"]


def _source(path: str) -> str:
    return (ROOT / path).read_text(encoding="utf-8")


def emitted_kinds() -> set[str]:
    found: set[str] = set()
    for path in EMITTERS:
        text = _source(path)
        found |= set(re.findall(r'\b(?:_fault|Violation|Alert)\(\s*"(\w+)"', text))
    return found


def emitted_reasons() -> set[str]:
    found: set[str] = set()
    for path in EMITTERS:
        text = _source(path)
        for first, other in re.findall(r'\breason="(\w+)"(?: if [^\n]* else "(\w+)")?', text):
            found |= {first, other} - {""}
        found |= set(re.findall(r'\("reason", "(\w+)"\)', text))
    # a refused bid's reason is the kind of the Bidding's own error (out of turn has its own kind)
    found |= set(re.findall(r'BidError\("(\w+)"', inspect.getsource(Bidding.check))) - {"out_of_turn"}
    return found


def test_every_kind_emitted_is_in_the_table_and_every_kind_in_the_table_is_emitted():
    emitted = emitted_kinds()
    assert "uncertain_read" in emitted and "does_not_beat" in emitted and "rejected_on_replay" in emitted
    assert emitted == set(ALERTS), (sorted(emitted - set(ALERTS)), sorted(set(ALERTS) - emitted))
    assert set(KINDS) <= set(ALERTS)  # the engine's kinds are worded in the same table


def test_every_reason_emitted_is_worded_and_none_is_dead():
    emitted = emitted_reasons()
    assert {"already_dealt", "illegal_bid", "nothing_to_undo", "needs_deal"} <= emitted
    assert emitted == set(REASONS), (sorted(emitted - set(REASONS)), sorted(set(REASONS) - emitted))


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_each_kind_has_chinese_and_english_words_with_the_same_fields():
    for kind, entry in ALERTS.items():
        assert entry.severity in SEVERITIES, kind
        assert entry.name_zh and entry.name_en and entry.zh and entry.en, kind
        assert re.search(r"[\u4e00-\u9fff]", entry.name_zh + entry.zh) or entry.zh == "{reason}", kind
        assert _fields(entry.zh) == _fields(entry.en), kind
    for reason, (zh, en) in REASONS.items():
        assert _fields(zh) == _fields(en), reason


def test_the_engine_writes_no_sentences():
    """Its violations are kind and data; the words are the table's."""
    text = _source("engine/violations.py")
    assert not re.search(r"[\u4e00-\u9fff]", text)
    assert "KINDS_ZH" not in text and "zh" not in inspect.signature(Violation).parameters
    assert "_fault(" in text and not re.search(r'_fault\("\w+", f?"', text)  # no message after the kind


def _check(events, event, rules="classic"):
    hand = Hand(get_rules(rules))
    for e in events:
        hand.apply(e)
    violation = hand.check(event)
    assert violation is not None, event
    return violation


def C(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text))


DEALT = [Deal(counts=(17, 17, 17)), Bid(0, "bid", 3)]
CASES = [
    (DEALT, Play(1, C("3s")), "out_of_turn"),
    (DEALT + [Play(0, C("5s"))], Play(1, C("4s")), "does_not_beat"),
    (DEALT, Play(0, C("3s 4h")), "illegal_combination"),
    (DEALT, Pass(0), "cannot_pass"),
    (DEALT, Play(5, C("3s")), "bad_seat"),
    ([], Play(0, C("3s")), "not_started"),
    (DEALT, Deal(counts=(17, 17, 17)), "wrong_phase"),
    (DEALT, OpenHand(1), "wrong_phase"),
    ([Deal(counts=(17, 17, 17))], Bid(0, "bid", 9), "bad_bid"),
    ([Deal(counts=(17, 17, 17))], Bid(2, "bid", 1), "out_of_turn"),
    (DEALT, Kitty(C("3s 4s")), "bad_kitty"),
    (DEALT + [Play(0, C("3s"))], Play(1, C("3s")), "duplicate_card"),
    ([Deal(counts=(17, 2, 17)), Bid(0, "bid", 3), Play(0, C("3s"))], Play(1, C("4s 4h 4d")), "too_many_cards"),
    (DEALT, Correction("replace", 9, Pass(1)), "bad_correction"),
    (DEALT + [Play(0, C("3s"))], Correction("delete", 1), "bad_correction"),
]


@pytest.mark.parametrize("events, event, kind", CASES)
def test_each_violation_renders_from_its_data_with_player_names(events, event, kind):
    violation = _check(events, event)
    assert violation.kind == kind
    players = ("张三", "李四", "王五")
    for lang in ("zh", "en"):
        text = render(kind, lang, seat=violation.seat, data=violation.data, players=players)
        assert text, (kind, lang, violation.message)  # the data fills the template
        assert "{" not in text and text == violation_text(violation, lang, players)
        if violation.seat is not None and violation.seat < 3 and "{player}" in ALERTS[kind].template(lang):
            assert players[violation.seat] in text
    if kind == "out_of_turn" and isinstance(event, Play):
        assert violation_text(violation, "zh", players) == "没轮到 李四 出牌，轮到的是 张三"
        assert violation_text(violation, "en") == "seat 2 acted out of turn; it is seat 1's turn"


def test_a_violation_is_data_with_a_diagnostic_message():
    violation = _check(DEALT + [Play(0, C("3s"))], Play(1, C("3s")))
    assert violation.fields == {"card": "3s", "reason": "seen_before"}
    assert violation.message == "duplicate_card (seat=1, card=3s, reason=seen_before)"
    assert render("duplicate_card", "en", seat=1, data=violation.data) == "3s was played or seen before"


def test_seats_are_counted_from_one_and_seat_fields_show_as_players():
    assert render("does_not_beat", "en", seat=2, cards="3s", data={"beaten": "5h", "other": 0}) \
        == "seat 3: 3♠ does not beat 5♥ (seat 1)"
    assert render("does_not_beat", "zh", seat=2, cards="3s", data={"beaten": "5h", "other": 0},
                  players=("甲", "乙", "丙")) == "丙的3♠ 管不上 甲的5♥"
    assert set(SEAT_FIELDS) == {"expected", "other", "first"}


def test_a_template_with_a_missing_field_or_an_unknown_kind_does_not_render():
    assert render("not_announced", "en", seat=1) is None  # no "left"
    assert render("no_such_kind", "en", seat=1) is None
    assert render("wrong_phase", "en", data={"reason": "no_such_reason"}) is None


def test_an_alert_is_stored_as_data_and_worded_when_shown():
    alert = Alert("not_announced", seat=0, data={"left": 1}, time=3.0)
    stored = alert.to_dict()
    assert "message" not in stored and "zh" not in stored and stored["data"] == {"left": 1}
    back = record_from_dict(stored)
    assert back == alert
    assert back.text("zh", ("甲", "乙", "丙")) == "甲 剩 1 张牌，须报牌"
    assert back.message == "seat 1 must announce the cards left (1)"
    with pytest.raises(ValueError, match="unknown alert kind"):
        Alert("seen_twice", seat=0)


def test_an_old_format_alert_dict_loads_and_shows_its_stored_text():
    old = {"kind": "alert", "alert": "does_not_beat", "message": "3s does not beat 5h", "zh": "管不上",
           "seat": 1, "cards": "3s", "suggestion": None, "event_index": 4, "time": 2.0}
    alert = record_from_dict(old)
    assert isinstance(alert, Alert) and alert.seat == 1 and alert.cards == "3s" and alert.event_index == 4
    assert alert.text("en", ("A", "B", "C")) == "3s does not beat 5h"  # no "beaten" among its fields
    assert alert.text("zh") == "管不上"
    assert record_from_dict(alert.to_dict()) == alert  # and it keeps its text when written again
    retired = record_from_dict({**old, "alert": "source", "message": "camera unplugged", "zh": ""})
    assert retired.text("zh") == "camera unplugged" and retired.severity == "record"


def test_card_labels_come_from_the_engine():
    assert [c.label for c in C("10h Qs BJ RJ 3")] == ["♥10", "♠Q", "小王", "大王", "3"]
    assert engine.cards.SUIT_SYMBOLS["d"] == "♦" and engine.cards.JOKER_NAMES["RJ"] == "大王"


@pytest.mark.parametrize("module", [tracker.alerts, tracker.records, engine.cards])
def test_doctests(module):
    assert doctest.testmod(module).failed == 0


def test_every_reason_the_judge_gives_is_worded_in_both_languages():
    import re
    from pathlib import Path

    from tracker.alerts import JUDGE_WORDS, judge_text

    source = (Path(__file__).resolve().parents[2] / "engine" / "judge.py").read_text(encoding="utf-8")
    given = set(re.findall(r'JudgeError\("(\w+)"', source)) | set(re.findall(r'\["reason"\] = "(\w+)"', source))
    given.discard("not_a_combination")  # a verdict without readings: the pages say 不成牌型 themselves
    assert given and given <= set(JUDGE_WORDS)
    for reason in JUDGE_WORDS:
        for lang in ("zh", "en"):
            text = judge_text(reason, lang, cards="3s", decks=2)
            assert "{" not in text and text


def test_a_play_that_does_not_beat_names_both_plays_types_in_cards_as_players_read_them():
    violation = _check(DEALT + [Play(0, C("5s 5h"))], Play(1, C("4d 4c")), "classic")
    players = ("黄三", "陈一", "王五")
    assert violation_text(violation, "zh", players) == "陈一的对子 4♦ 4♣ 管不上 黄三的对子 5♠ 5♥"
    assert violation_text(violation, "en", players) == "陈一: pair 4♦ 4♣ does not beat pair 5♠ 5♥ (黄三)"
