"""Hand and match records: JSON round trips, clear errors, zh/en text and the CSV sheet."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import parse_cards
from engine.events import (
    EVENT_TYPES,
    Announce,
    Bid,
    Concede,
    Correction,
    Deal,
    Double,
    End,
    Escape,
    Kitty,
    KittyPick,
    Landlord,
    Marker,
    OpenHand,
    Pass,
    Penalty,
    Play,
    Reveal,
    Shown,
    event_from_dict,
)
from engine.match import HandRecord, Match
from engine.record import RecordedHand, dump, dumps, load, loads, rules_from_dict, rules_to_dict, score_sheet
from engine.record_text import csv_sheet, render_hand, render_match
from engine.rules import PRESETS, get_rules
from sim.scripted import build, random_hand

PLAYERS = ("Ann", "Bo", "Cy")


def C(text: str) -> tuple:
    return tuple(parse_cards(text))


EVERY_EVENT = [
    Deal(counts=(1, 2, 1), first_bidder=2, hands=(C("3s"), C("4s 4h"), C("BJ")), kitty=C("5s 6s 7s"), time=0.0),
    Bid(1, "bid", 2, time=3.5), Bid(2, "pass"), Bid(0, "call"), Bid(0, "grab"), Landlord(1, 3), Kitty(C("RJ 2s 2h")),
    Play(0, C("10h Qs"), time=12.25), Pass(1), OpenHand(1), Concede(2), Escape(0), Penalty(1, 2, "dropped card"),
    Penalty(0, 0, "hid cards", disqualify=True), Announce(2), Shown(2, C("3h BJ"), time=60.0),
    End(abandoned=True, reason="lights out"),
    Correction("replace", 4, Play(2, C("3c"))), Correction("undo"), Correction("delete", 0),
    Marker(2, C("7h")[0], time=1.0), Reveal(3, by=2), Reveal(2), Double(4, time=9.5), KittyPick(0, C("2s BJ 2s")),
    KittyPick(1),
]


def test_every_event_kind_round_trips_through_json():
    assert {type(e) for e in EVERY_EVENT} == set(EVENT_TYPES.values())
    for event in EVERY_EVENT:
        text = json.dumps(event.to_dict())
        assert event_from_dict(json.loads(text)) == event


@pytest.mark.parametrize("data, words", [
    ({"kind": "shuffle"}, "unknown event kind"),
    ({"kind": "play", "seat": 0, "cards": "3s 1x"}, "1x"),
    ({"kind": "play", "seat": 0}, "play event"),
    ({"kind": "play", "seat": -1, "cards": "3s"}, "seat"),
    ({"kind": "play", "seat": 0, "cards": ""}, "at least one card"),
    ({"kind": "pass", "seat": 0, "colour": "red"}, "unknown field"),
    ({"kind": "bid", "seat": 0, "action": "double"}, "bid action"),
    ({"kind": "deal", "counts": "17"}, "counts"),
    ({"kind": "pass", "seat": 0, "time": "noon"}, "time"),
    ({"kind": "correction", "action": "replace", "target": 1}, "needs the event"),
    ([1, 2], "JSON object"),
])
def test_malformed_events_raise_value_error_saying_what(data, words):
    with pytest.raises(ValueError, match=words):
        event_from_dict(data)


# --- records round trip -----------------------------------------------------------------------------
def test_hand_record_round_trip_and_header():
    match, records, _ = build()
    record = records[0]
    data = dump(record)
    assert (data["format"], data["version"], data["type"]) == ("ddz-table/record", 1, "hand")
    assert data["summary"]["points"] == [-24, -24, 48]
    assert data["summary"]["plays"][0] == {"seat": 2, "cards": "3s 3h 3d 4s", "type": "trio_single", "main": "3",
                                           "length": 1, "time": 31}
    assert load(dump(record)) == record
    assert loads(dumps(record)) == record


def test_match_record_round_trip():
    match, _, _ = build()
    match.penalise(1, 2, "dropped card")
    again = loads(dumps(match))
    assert again == match
    assert again.totals() == match.totals() == [-16, -30, 44]


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(sorted(PRESETS)), st.integers(0, 10_000))
def test_records_round_trip_for_random_hands(preset, seed):
    hand = random_hand(preset, seed)
    names = tuple(f"P{i}" for i in range(hand.rules.players))
    record = RecordedHand.of(hand, names, started=1700000000.5, note="table 3")
    assert load(dump(record)) == record
    assert loads(dumps(record)).hand() == hand
    match = Match(preset, names, [HandRecord.of(hand)] if hand.finished else [], first_bidder=0)
    assert loads(dumps(match)) == match


def test_rule_differences_round_trip():
    custom = get_rules("classic").replace(third_must_bid_two=True, all_pass="first_bidder", spring=False)
    data = rules_to_dict(custom)
    assert data == {"name": "classic", "changes": {"third_must_bid_two": True, "all_pass": "first_bidder",
                                                   "spring": False}}
    assert rules_from_dict(data) == custom
    assert rules_to_dict(get_rules("four"))["changes"] == {}
    assert rules_from_dict("four") == get_rules("four")


# --- malformed records --------------------------------------------------------------------------------
def _good() -> dict:
    _, records, _ = build()
    return dump(records[0])


@pytest.mark.parametrize("change, words", [
    (lambda d: d.pop("format"), "not a ddz-table/record"),
    (lambda d: d.update(version=2), "version 2"),
    (lambda d: d.pop("players"), "lacks 'players'"),
    (lambda d: d.pop("events"), "lacks 'events'"),
    (lambda d: d.update(players=["A", "B"]), "needs 3 players"),
    (lambda d: d.update(players=["A", "B", 3]), "names"),
    (lambda d: d.update(type="tournament"), "record type"),
    (lambda d: d.update(preset={"name": "classic", "changes": {"jokers": 5}}), "unknown rule option"),
    (lambda d: d.update(preset="blitz"), "unknown rules preset"),
    (lambda d: d["events"][5].update(cards="3s 3h 3d 4z"), "4z"),
    (lambda d: d["events"][6].update(seat=1), "event 6"),  # a play out of turn
    (lambda d: d.update(started="noon"), "number"),
])
def test_malformed_records_raise_value_error_saying_what(change, words):
    data = _good()
    change(data)
    with pytest.raises(ValueError, match=words):
        load(data)


def test_record_that_is_not_json_or_not_an_object():
    with pytest.raises(ValueError, match="not JSON"):
        loads("{oops")
    with pytest.raises(ValueError, match="object"):
        load("[1, 2]")


def test_malformed_match_record():
    match, _, _ = build()
    data = dump(match)
    data["hands"][1]["events"][0]["counts"] = [17, 17]
    with pytest.raises(ValueError, match="hand 1"):
        load(data)
    data = dump(match)
    data["penalties"] = [{"kind": "pass", "seat": 0}]
    with pytest.raises(ValueError, match="penalty"):
        load(data)


# --- text and CSV ---------------------------------------------------------------------------------------
def test_chinese_text_a_person_can_read():
    _, records, _ = build()
    text = render_hand(records[0], "zh")
    for words in ("叫分: 张三 Zhang 不叫, 李四 Li 1分", "玩家: 1号位 张三 Zhang", "地主: 王五 Wang (底分 3)", "底牌: Q♠ 小王 大王", "炸弹", "王炸", "地主胜",
                  "倍数: 8", "王五 Wang +48", "[00:31]", "不出", "王五 Wang: 10♠ 10♥ 10♦ 10♣"):
        assert words in text
    assert "BJ" not in text and "RJ" not in text and "Qs" not in text
    assert "春天 x2" in render_hand(records[1], "zh")


def test_a_call_and_grab_hand_lists_its_calls_not_point_bids():
    events = (Deal(counts=(17, 17, 17), first_bidder=0), Bid(0, "call"), Bid(1, "grab"), Bid(2, "pass"))
    text = render_hand(RecordedHand("grab", ("甲", "乙", "丙"), events), "zh")
    assert "叫地主: 甲 叫地主, 乙 抢地主, 丙 不叫" in text and "叫分" not in text


def test_english_text_a_person_can_read():
    _, records, _ = build()
    text = render_hand(records[0], "en")
    for words in ("Landlord: 王五 Wang (base 3)", "Kitty: Q♠ small joker big joker", "bomb", "rocket",
                  "landlord wins", "Multiplier: 8 = bomb x2, bomb x2, rocket x2", "张三 Zhang -24", "pass",
                  "王五 Wang: 10♠ 10♥ 10♦ 10♣"):
        assert words in text
    assert "BJ" not in text and "Qs" not in text
    with pytest.raises(ValueError, match="language"):
        render_hand(records[0], "fr")


def test_text_shows_corrections_and_penalties():
    _, records, _ = build()
    record = records[0]
    events = (*record.events, Correction("undo", reason="misread"), Play(2, C("BJ RJ")), End(),
              Penalty(0, 2, "dropped card"))
    fixed = RecordedHand(record.rules, record.players, events)
    zh = render_hand(fixed, "zh")
    assert "撤销上一步（王五 Wang: 小王 大王） · misread" in zh and "罚分 -2 dropped card" in zh
    assert "张三 Zhang -26" in zh and "undo" not in zh
    assert "undid the last step (王五 Wang: small joker big joker) · misread" in render_hand(fixed, "en")


def _numbered(text: str) -> dict[str, int]:
    """The record's numbered lines: their text (time left off) to their number."""
    found = {}
    for line in text.splitlines():
        head, _, rest = line.strip().partition(". ")
        if head.isdigit():
            found[rest.split("] ", 1)[-1]] = int(head)
    return found


def test_corrections_name_plays_by_the_records_numbers_in_the_records_language():
    _, records, _ = build()
    record = records[0]
    events = list(record.hand().events)
    bomb, last = 8, len(events) - 1  # the 10s bomb, and the rocket that ends the hand
    fixes = (Correction("replace", bomb, events[bomb], reason="camera misread"), Correction("delete", last),
             Correction("insert", last, events[last]), Correction("replace", 3, Bid(2, "bid", 3)))
    fixed = RecordedHand(record.rules, record.players, (*record.events, *fixes))
    zh = render_hand(fixed, "zh")
    numbers = _numbered(zh)
    n_bomb, n_rocket = numbers["王五 Wang: 10♠ 10♥ 10♦ 10♣  炸弹"], numbers["王五 Wang: 小王 大王  王炸"]
    assert n_bomb != bomb and n_rocket != last  # the record's numbers, not the event indexes
    assert f"更正：第 {n_bomb} 手出牌改为 10♠ 10♥ 10♦ 10♣ · camera misread" in zh
    assert f"删除：第 {n_rocket} 手（王五 Wang: 小王 大王）" in zh
    assert f"补录：第 {n_rocket} 手 王五 Wang: 小王 大王" in zh
    assert "更正：叫分改为 叫分: 王五 Wang 3分" in zh
    assert "#" not in zh and "replace" not in zh and "delete" not in zh
    en = render_hand(fixed, "en")
    assert f"correction: play {n_bomb} changed to 10♠ 10♥ 10♦ 10♣ · camera misread" in en
    assert f"deleted play {n_rocket} (王五 Wang: small joker big joker)" in en
    assert f"added as play {n_rocket}: 王五 Wang: small joker big joker" in en
    assert "更正" not in en and "#" not in en


def test_times_print_into_the_hand_from_a_film_and_on_the_clock_from_a_wall_clock():
    import time as clock

    _, records, _ = build()
    record = records[0]
    film = list(record.events)
    film[0] = dataclasses.replace(film[0], time=600.0)  # the deal ten minutes into a film
    film = [dataclasses.replace(e, time=600.0 + e.time) if i and e.time is not None else e
            for i, e in enumerate(film)]
    text = render_hand(RecordedHand(record.rules, record.players, tuple(film)), "zh")
    assert "[00:31] 王五 Wang: 3♠ 3♥ 3♦ 4♠" in text  # 31 s after the deal, not 10:31 into the film
    wall = [dataclasses.replace(e, time=1_796_285_238.0 + (e.time or 0)) for e in record.events]
    wall.append(Correction("undo", time=1_796_285_400.0))
    old = os.environ.get("TZ")
    os.environ["TZ"] = "CST-8"  # China Standard Time, written so that no zone database is needed
    clock.tzset()
    try:
        text = render_hand(RecordedHand(record.rules, record.players, tuple(wall)), "zh")
    finally:
        if old is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = old
        clock.tzset()
    # 1796285238 is 2026-12-03 08:07:18 UTC, 16:07:18 in Beijing; the first play is 31 s later.
    assert "[16:07:49] 王五 Wang: 3♠ 3♥ 3♦ 4♠" in text
    assert "[16:10:00] 撤销上一步" in text and "[29938087" not in text


def test_match_text_and_verdict():
    match, _, _ = build()
    text = render_match(match, "en")
    assert "Hand 1: landlord wins; x8" in text and "Total: 张三 Zhang -16, 李四 Li -28, 王五 Wang 44" in text
    assert "状态: 进行中" in render_match(match, "zh")


def test_csv_score_sheet_one_row_per_hand_a_column_per_player_and_totals():
    match, _, _ = build()
    match.penalise(0, 2, "dropped card")
    rows = list(csv.reader(io.StringIO(csv_sheet(match, "en"))))
    assert rows[0][-3:] == list(match.players)
    hands = [r for r in rows[1:] if r[0].isdigit()]
    assert len(hands) == 2
    total = rows[-1]
    assert total[0] == "total" and [int(x) for x in total[-3:]] == match.totals() == [-18, -28, 44]
    body = [r for r in rows[1:-1]]
    assert [sum(int(r[5 + i]) for r in body) for i in range(3)] == match.totals()


@pytest.mark.parametrize(("lang", "heads", "words"), [
    ("zh", ["局", "结果", "地主", "底分", "倍数"], {"landlord_won": "地主胜", "farmers_won": "农民胜",
                                                  "abandoned": "作废", "penalty": "罚分", "total": "合计"}),
    ("en", ["hand", "result", "landlord", "base", "multiplier"],
     {"landlord_won": "landlord won", "farmers_won": "farmers won", "abandoned": "abandoned",
      "penalty": "penalty", "total": "total"}),
])
def test_csv_sheet_speaks_its_language_and_still_neutralises_formulas(lang, heads, words):
    hands = [HandRecord(tuple(random_hand("classic", s).log)) for s in (1, 2, 3)]
    abandoned = (*random_hand("classic", 4).log[:3], End(abandoned=True))
    match = Match("classic", ("=A1", "Bo", "Cy"), [*hands, HandRecord(abandoned)])
    match.penalise(1, 2, reason="=HYPERLINK(1)")
    rows = list(csv.reader(io.StringIO(csv_sheet(match, lang))))
    assert rows[0] == [*heads, "'=A1", "Bo", "Cy"]
    outcomes = [row.outcome for row in match.settlements()]
    assert "abandoned" in outcomes and len(set(outcomes)) >= 2
    assert [r[1] for r in rows[1:1 + len(outcomes)]] == [words[o] for o in outcomes]
    assert [words["penalty"], "'=HYPERLINK(1)"] == rows[-2][:2] and rows[-1][0] == words["total"]
    with pytest.raises(ValueError, match="language"):
        csv_sheet(match, "fr")


def test_score_sheet_for_the_cli():
    match, records, _ = build()
    hand_text = dumps(records[1])
    assert "春天" in score_sheet(hand_text, "txt", "zh")
    assert score_sheet(hand_text, "csv").splitlines()[-1].endswith("8,-4,-4")
    data = json.loads(score_sheet(dumps(match), "json"))
    assert data["totals"] == [-16, -28, 44] and data["hands"][0]["multiplier"] == 8
    assert "Total" in score_sheet(dumps(match), "txt", "en")
    with pytest.raises(ValueError, match="format"):
        score_sheet(hand_text, "pdf")
