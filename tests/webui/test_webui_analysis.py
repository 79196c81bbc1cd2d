"""The replay's 复盘 / Analysis block: offered as a link, then the turning points once the cards
left are shown, a mark on the decisive mistake, a hint before the cards are shown, and nothing
while the hand is played."""

from __future__ import annotations

from engine.cards import parse_cards
from engine.events import Deal, Landlord, Pass, Play, Shown
from tests.kit.table_site import new_match


def C(text: str):
    return tuple(parse_cards(text))


#: The landlord (3 cards, all from the kitty) leads 5 instead of 33 and the first farmer goes out.
PLAYED = (Deal(counts=(0, 3, 3)), Landlord(0), Play(0, C("5s")), Play(1, C("10s")), Pass(2), Pass(0),
          Play(1, C("9s")), Pass(2), Pass(0), Play(1, C("4s")))


def add(store, mid, events):
    for e in events:
        store.append(mid, 1, e, source="referee")


def test_before_the_cards_are_shown_the_block_says_how_to_get_the_analysis(client, store):
    mid = new_match(store)
    add(store, mid, PLAYED)
    page = client.get(f"/history/{mid}/1?analyse=1").get_data(as_text=True)
    assert 'id="analysis"' in page and "亮牌后" in page and "✗" not in page


def test_once_shown_the_turning_point_is_named_and_marked_on_its_step(client, store):
    mid = new_match(store)
    add(store, mid, PLAYED + (Shown(0, C("3s 3h")), Shown(2, C("6s 7s 8s"))))
    offered = client.get(f"/history/{mid}/1").get_data(as_text=True)
    assert 'id="analyse"' in offered and "由胜转负" not in offered  # nothing solved until asked
    page = client.get(f"/history/{mid}/1?analyse=1").get_data(as_text=True)
    assert "复盘" in page and "第 1 手：张三出单张 5♠ 后由胜转负；出对子 3♠ 3♥ 可保持胜势" in page
    assert page.count("✗ 由胜转负") == 1
    english = client.get(f"/history/{mid}/1?lang=en&step=3").get_data(as_text=True)  # kept: shown at once
    assert "Analysis" in english and "turned a win into a loss" in english and "won → lost" in english


def test_a_hand_in_play_is_never_judged(client, store):
    mid = new_match(store)
    add(store, mid, PLAYED[:4])
    page = client.get(f"/history/{mid}/1?analyse=1").get_data(as_text=True)
    assert 'id="analysis"' not in page


def test_the_text_export_carries_the_analysis_once_the_hand_was_analysed(client, store):
    mid = new_match(store)
    add(store, mid, PLAYED + (Shown(0, C("3s 3h")), Shown(2, C("6s 7s 8s"))))
    before = client.get(f"/export/{mid}/1.txt?view=1").get_data(as_text=True)
    assert "复盘" not in before  # an export never waits for the solver
    client.get(f"/history/{mid}/1?analyse=1")
    after = client.get(f"/export/{mid}/1.txt?view=1").get_data(as_text=True)
    assert after.startswith(before) and "复盘:\n" in after and "由胜转负" in after
