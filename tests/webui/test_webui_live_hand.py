"""The live page during a hand: what is at stake, the play to beat and whose turn, the bids
in words, penalties and concessions, the chart against the table, a match ended mid-hand,
and (one browser test) the menu on one line on a phone."""

from __future__ import annotations

import re
import shutil

import pytest

from engine.events import Bid, Deal, Pass, Play
from engine.hand import Hand
from engine.scoring import at_stake
from tests.kit.table_site import (
    PLAYERS,
    LiveSite,
    act,
    api_state,
    card_tuple,
    fragment_html,
    new_match,
    play_hands,
)
from webui.live import hand_lines


def _deal(store, mid, hand, *events):
    for event in (Deal(counts=(17, 17, 17)), *events):
        store.append(mid, hand, event)


#: 张三 bids 1, 李四 passes, 王五 bids 3 and is landlord.
BIDS = (Bid(0, "bid", 1), Bid(1, "pass"), Bid(2, "bid", 3))


def test_classic_stake_is_the_landlords_own_figure_at_base_times_multiplier(client, store):
    mid = new_match(store)
    # 张三 bids 2 and is landlord; a bomb and the rocket make it x4: 2 x 4 = 8 from each farmer.
    _deal(store, mid, 1, Bid(0, "bid", 2), Bid(1, "pass"), Bid(2, "pass"), Play(0, card_tuple("5s 5h 5d 5c")),
          Pass(1), Pass(2), Play(0, card_tuple("BJ RJ")))
    h = api_state(client)["hand"]
    assert (h["base"], h["multiplier"]) == (2, 4)
    assert h["stakes"] == {"landlord": {"win": 16, "loss": -16}, "farmer": {"win": 8, "loss": -8}}
    zh = fragment_html(client)
    assert "地主赢 +16 / 输 −16" in zh and "农民各赢 +8 / 输 −8" in zh
    assert "landlord wins +16 / loses −16" in fragment_html(client, "en")


def test_fixed_scoring_stakes_come_from_its_own_scoring_not_from_bombs(client, store):
    mid = new_match(store, "fixed")
    _deal(store, mid, 1, Bid(0, "bid", 3), Play(0, card_tuple("5s 5h 5d 5c")))
    h = api_state(client)["hand"]
    assert h["multiplier"] == 2  # the bomb doubles, but a fixed-score hand ignores it
    hand = Hand.from_events("fixed", [Deal(counts=(17, 17, 17)), Bid(0, "bid", 3), Play(0, card_tuple("5s 5h 5d 5c"))])
    win, loss = at_stake(hand)
    assert h["stakes"]["landlord"] == {"win": win[0], "loss": loss[0]} == {"win": 3, "loss": -3}
    assert "地主赢 +3 / 输 −3" in fragment_html(client) and "农民各赢 +1 / 输 −1" in fragment_html(client)


def test_the_play_to_beat_names_its_player_and_reading_and_whose_turn_it_is(client, store):
    mid = new_match(store)
    _deal(store, mid, 1, *BIDS, Play(2, card_tuple("5s 5h")))
    zh, en = fragment_html(client), fragment_html(client, "en")
    assert "要管：王五的对 5" in zh and "轮到 张三 出牌" in zh
    assert "to beat: 王五's pair of 5s" in en and "张三 to play" in en
    store.append(mid, 1, Pass(0))
    store.append(mid, 1, Pass(1))  # the trick is 王五's: a lead, nothing to beat
    zh = fragment_html(client)
    assert "要管" not in zh and "轮到 王五 首出" in zh
    store.append(mid, 1, Play(2, card_tuple("3s 4h 5d 6c 7s")))
    assert "要管：王五的顺子 3–7" in fragment_html(client)
    assert "to beat: 王五's straight 3–7" in fragment_html(client, "en")


def test_the_bids_read_as_said_at_the_table_in_both_languages(client, store):
    mid = new_match(store)
    _deal(store, mid, 1, *BIDS[:2])
    zh = fragment_html(client)
    assert "张三 叫1分 · 李四 不叫" in zh and "轮到 王五 叫分" in zh
    store.append(mid, 1, BIDS[2])
    assert "张三 叫1分 · 李四 不叫 · 王五 叫3分" in fragment_html(client)
    assert "张三 bids 1 · 李四 no bid · 王五 bids 3" in fragment_html(client, "en")


def test_call_and_grab_bids_read_as_called_grabbed_and_declined(client, store):
    mid = new_match(store, "grab")
    _deal(store, mid, 1, Bid(0, "call"), Bid(1, "grab"), Bid(2, "pass"))
    assert "张三 叫地主 · 李四 抢地主 · 王五 不抢" in fragment_html(client)
    assert "张三 calls · 李四 grabs · 王五 no grab" in fragment_html(client, "en")


def test_a_penalty_is_named_with_its_points_and_reason_and_the_chart_agrees_with_the_table(referee, store):
    mid = new_match(store)
    play_hands(store, mid, [1])
    _deal(store, mid, 2, *BIDS)
    assert act(referee, "penalty", seat=1, points=2, reason="掉牌").status_code == 303
    data = api_state(referee)
    totals = data["scores"]["match"]
    assert data["progress"][-1] == totals
    zh = fragment_html(referee)
    assert "罚分：李四 −2（掉牌）" in zh
    assert "penalty: 李四 −2 (掉牌)" in fragment_html(referee, "en")
    table = [int(x) for x in re.findall(r"data-total>(-?\d+)<", zh)]
    chart = [int(x) for x in re.findall(r'<text class="end"[^>]*>([+-]?\d+)<', zh)]
    assert table == totals and sorted(chart) == sorted(totals)
    before = api_state(referee)["scores"]["match"]
    assert act(referee, "penalty", seat=0, points=3, reason="").status_code == 303
    after = api_state(referee)
    assert after["scores"]["match"][0] == before[0] - 3 and after["progress"][-1] == after["scores"]["match"]


def test_a_concession_names_who_conceded_with_the_result(referee, store):
    mid = new_match(store)
    _deal(store, mid, 1, *BIDS)
    assert act(referee, "concede", seat=1).status_code == 303
    zh = fragment_html(referee)
    assert "农民胜" not in zh and "地主胜" in zh and "李四 认输" in zh
    assert "李四 conceded" in fragment_html(referee, "en")


def test_ending_the_match_mid_hand_says_so_and_leaves_nobody_to_play(referee, store):
    mid = new_match(store)
    play_hands(store, mid, [1])
    _deal(store, mid, 2, *BIDS, Play(2, card_tuple("5s 5h")))
    assert 'class="turn-flag"' in fragment_html(referee)
    assert act(referee, "end_match").status_code == 303
    zh = fragment_html(referee)
    banner = re.search(r'<div class="banner over"[^>]*>(.*?)</div>', zh).group(1)
    assert banner.startswith("比赛结束 · 裁判结束了比赛") and "进行中" not in zh
    assert 'class="turn-flag"' not in zh and " turn" not in re.findall(r'<article class="([^"]*)"', zh)[0]
    assert "未打完 · 作废" in zh and "本局输赢" not in zh and "要管" not in zh
    en = fragment_html(referee, "en")
    assert "Match over · ended by the referee" in en and "playing" not in en
    h = api_state(referee)["hand"]
    assert h["void"] is True and h["turn"] is None and not any(s["turn"] for s in h["seats"])


def test_hand_lines_are_empty_without_a_match():
    assert hand_lines({"match": None, "hand": None}, "zh") == {
        "stakes": "", "to_beat": "", "turn": "", "bids": "", "penalties": [], "ended_by": "", "show_hands": ""}


@pytest.mark.browser
def test_on_a_phone_the_english_menu_is_one_line_and_the_stake_shows():
    from playwright import sync_api

    chromium = "/usr/bin/chromium"
    if not shutil.which(chromium):
        raise RuntimeError(f"{chromium} is missing: run deploy/system-deps.sh")
    with LiveSite() as site, sync_api.sync_playwright() as p:
        mid = site.store.create_match(PLAYERS, "classic", meta={"name": "t", "started": 1000.0})
        _deal(site.store, mid, 1, *BIDS, Play(2, card_tuple("5s 5h")))
        browser = p.chromium.launch(executable_path=chromium, args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
            for lang in ("en", "zh"):
                page.goto(f"{site.url}/?lang={lang}")
                # One line: every link's middle lies within the shortest link's height of the others'.
                boxes = page.evaluate("[...document.querySelectorAll('nav.top a')].map(a => {"
                                      "const r = a.getBoundingClientRect(); return [r.top + r.height / 2, r.height]; })")
                middles = [m for m, _ in boxes]
                assert len(boxes) == 5 and max(middles) - min(middles) < min(h for _, h in boxes) / 2, (lang, boxes)
            stake = page.locator("#stakes")
            assert stake.is_visible() and "地主赢 +6 / 输 −6" in stake.inner_text()
            page.goto(f"{site.url}/?lang=en")
            assert "landlord wins +6 / loses −6" in page.locator("#stakes").inner_text()
        finally:
            browser.close()
