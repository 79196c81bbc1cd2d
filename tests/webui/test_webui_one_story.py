"""Every table page tells one story (issue 46): a hand's standing (finished, void, in play) and
the hands counted the same way on the live page, the history, the match page, the printed sheet
and the text download; the chart without void hands and with its penalties and the match's end
marked; the stake counted from one 底分; the game's words in the page's language."""

from __future__ import annotations

import html
import re

from engine.cards import Card
from engine.events import Bid, Deal, KittyPick, Marker, Play
from tests.kit.table_site import (
    PLAYERS,
    act,
    api_state,
    card_tuple,
    ended_mid_hand,
    fragment_html,
    referee_post,
)

post = referee_post


def text_of(page: str) -> str:
    """A page's words as a reader sees them: no tags, scripts or styles, spaces collapsed."""
    page = re.sub(r"<script.*?</script>|<style.*?</style>", " ", page, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_a_hand_left_when_the_match_ended_is_void_on_every_page_and_download(client, store):
    mid = ended_mid_hand(client, store)
    for path in (f"/history/{mid}?lang=zh", f"/history/{mid}/sheet?lang=zh"):
        page = text_of(client.get(path).get_data(as_text=True))
        assert "未打完 · 作废" in page and "进行中" not in page, path
        assert "已完成 1 局 · 作废 2 局" in page, path
    listing = text_of(client.get("/history?lang=zh").get_data(as_text=True))
    assert "已完成 1 局 · 作废 2 局 · 比赛结束" in listing and "进行中" not in listing
    assert "1 hand finished · 2 void · Match over" in text_of(client.get("/history?lang=en").get_data(as_text=True))
    live = fragment_html(client)
    assert "未打完 · 作废" in live and "已完成 1 局 · 作废 2 局" in live
    zh = client.get(f"/export/{mid}.txt?lang=zh&view=1").get_data(as_text=True)
    assert "状态: 比赛结束; 胜者: 张三" in zh and "第3局: 未打完 · 作废" in zh and "进行中" not in zh
    en = client.get(f"/export/{mid}.txt?lang=en&view=1").get_data(as_text=True)
    assert "Status: match over; Winner: 张三" in en and "Hand 3: not finished · void" in en and "playing" not in en
    one = client.get(f"/export/{mid}/3.txt?lang=zh&view=1").get_data(as_text=True)
    assert "结果: 未打完 · 作废" in one


def test_the_hands_are_counted_once_and_the_hand_in_play_is_named(client, store):
    mid = store.create_match(PLAYERS, "classic", meta={"started": 1000.0})
    post(client, "new_hand")
    post(client, "bid", seat=0, bid="1")
    post(client, "abandon")
    post(client, "new_hand")
    post(client, "bid", seat=1, bid="1")
    assert api_state(client)["counts"] == {"finished": 0, "void": 1, "in_play": 2}
    said = "已完成 0 局 · 作废 1 局 · 第 2 局进行中"
    assert said in fragment_html(client)
    for path in (f"/history/{mid}", f"/history/{mid}/sheet", "/history"):
        assert said in text_of(client.get(path, query_string={"lang": "zh"}).get_data(as_text=True)), path
    assert "0 hands finished · 1 void · hand 2 in play" in fragment_html(client, "en")


def test_an_abandoned_hand_asks_nobody_to_show_cards_and_is_no_point_on_the_chart(client, store):
    store.create_match(PLAYERS, "classic", meta={"started": 1000.0})
    post(client, "new_hand")
    post(client, "bid", seat=0, bid="3")
    post(client, "concede", seat=0)
    post(client, "new_hand")
    post(client, "bid", seat=1, bid="1")
    post(client, "abandon", reason="misdeal")
    state = api_state(client)
    assert len(state["progress"]) == 2  # the opening totals and hand 1: the void hand 2 is not plotted
    live = fragment_html(client)
    assert "本局作废" in live and "请输家" not in live
    assert "losers" not in fragment_html(client, "en")


def test_the_chart_marks_each_penalty_and_the_end_of_the_match(client, store):
    mid = ended_mid_hand(client, store)
    marks = api_state(client)["chart_marks"]
    assert {"kind": "penalty", "row": 1, "seat": 1, "points": 2} in marks
    assert {"kind": "end", "row": 1} in marks
    chart = fragment_html(client)
    assert re.search(r'<g class="mark penalty" data-seat="1" data-row="1"><title>罚分 · 李四 −2</title>', chart)
    assert '<g class="mark match-end" data-row="1"><title>比赛结束</title>' in chart
    assert "<title>Match over</title>" in fragment_html(client, "en")
    assert client.get(f"/history/{mid}").status_code == 200


def test_under_chips_the_base_shown_is_the_one_the_stake_is_counted_from(client, store):
    store.create_match(PLAYERS, "chips", meta={"started": 1000.0})
    post(client, "new_hand")
    post(client, "bid", seat=0, bid="3")
    page = fragment_html(client)
    base = re.search(r'id="base">([^<]*)<', page)[1]
    stake = api_state(client)["hand"]["stakes"]
    assert base == "2" and stake["farmer"]["loss"] == -int(base) and stake["landlord"]["win"] == 2 * int(base)  # the bid (3) is not the base


def test_english_pages_name_jokers_in_english_and_count_one_card(client, store):
    mid = store.create_match(PLAYERS, "classic", meta={"started": 1000.0})
    store.append(mid, 1, Deal(counts=(17, 17, 17)))
    store.append(mid, 1, Bid(0, "bid", 3))
    store.append(mid, 1, Play(0, card_tuple("BJ RJ")))
    en = fragment_html(client, "en")
    assert "小王" not in en and "大王" not in en and ">BJ<" in en and ">RJ<" in en
    assert "小王" in fragment_html(client, "zh")


def test_english_counts_one_card_and_one_hand_in_the_singular(client, store):
    mid = store.create_match(PLAYERS, "classic", meta={"started": 1000.0})
    store.append(mid, 1, Deal(counts=(17, 17, 1)))
    store.append(mid, 1, Bid(0, "bid", 3))
    en = fragment_html(client, "en")
    assert re.search(r'data-cards-left="1">1</span><span class="u">card</span>', en)
    assert re.search(r'data-cards-left="20">20</span><span class="u">cards</span>', en)


def test_the_referee_timeline_and_replay_name_cards_and_the_di_zhu_pick(referee, client, store):
    mid = store.create_match(PLAYERS, "dizhu", meta={"name": "dz", "started": 1000.0})
    for event in (Deal(counts=(34, 34, 34)), Bid(0, "bid", 3), KittyPick(0, card_tuple("2s BJ"))):
        store.append(mid, 1, event)
    page = text_of(referee.get("/referee?lang=zh").get_data(as_text=True))
    assert "张三 取底牌 2♠ 小王" in page and "kitty_pick" not in page
    replay = text_of(client.get(f"/history/{mid}/1?lang=en").get_data(as_text=True))
    assert "张三: Di Zhu takes from the kitty" in replay and "kitty_pick" not in replay


def test_five_players_referee_page_the_marker_card_is_named_apart_from_the_open_hand(referee, store):
    mid = store.create_match(("张三", "李四", "王五", "赵六", "孙三"), "five", meta={"name": "dizhu night",
                                                                                 "started": 1000.0})
    store.append(mid, 1, Deal(counts=(21,) * 5))
    page = referee.get("/referee?lang=zh").get_data(as_text=True)
    assert "<h3>叫分" not in page and 'id="marker-form"' in page  # no bids in this game: no empty 叫分 heading
    store.append(mid, 1, Marker(4, Card.parse("7h")))
    page = text_of(referee.get("/referee?lang=zh").get_data(as_text=True))
    assert "标记牌 7♥，孙三 为明地主" in page and "标记牌 7♥" in page
    assert "孙三 明牌 ×2" in page  # the open hand keeps 明牌: one word, one meaning
    assert "本局输赢 暗地主未明 · 每位地主与每位农民输赢 1 分" in page  # the referee sees the stake
    raw = referee.get("/referee?lang=en").get_data(as_text=True)
    assert '<span class="keep-case" id="ref-match-name">#1 · dizhu night</span>' in raw
    assert ".keep-case" in referee.get("/static/site.css").get_data(as_text=True)


def test_confirmations_name_who_and_what_and_acknowledgements_say_what_was_recorded(referee, store):
    store.create_match(PLAYERS, "classic", meta={"name": "Dizhu Night", "started": 1000.0})
    act(referee, "new_hand")
    response = act(referee, "bid", seat=0, bid="3")
    page = html.unescape(referee.get(response.headers["Location"]).get_data(as_text=True))
    assert "已记录叫分：张三 叫3分" in page
    asks = dict(re.findall(r'data-confirm="([^"]*)" id="([\w-]+)"', page))
    asks = {button: text for text, button in asks.items()}
    assert asks["concede"] == "记录 {who} 认输？第 1 局就此结束，按认输结算。"  # {who}: the seat chosen (site.js)
    assert asks["abandon"] == "第 1 局作废？本局不计分，要重新发牌。"
    assert asks["penalty"] == "罚 {who} {points} 分（{reason}）？"
    assert asks["end-match"] == "结束第 1 场比赛？第 1 局还没打完，将作废。按现在的总分，胜者：张三、李四、王五。"
    assert "confirmText" in referee.get("/static/site.js").get_data(as_text=True)
    response = act(referee, "penalty", seat=1, points=2, reason="掉牌")
    page = html.unescape(referee.get(response.headers["Location"]).get_data(as_text=True))
    assert "已记录罚分：李四 罚 2 分（掉牌）" in page
    response = act(referee, "end_match")
    page = html.unescape(referee.get(response.headers["Location"]).get_data(as_text=True))
    assert "比赛已结束：胜者 张三、王五" in page


def test_the_camera_view_writes_the_last_play_in_no_language(monkeypatch):
    """The annotated frame serves the Chinese and the English page alike: seat number and card codes."""
    import numpy as np

    from tracker import session

    written: list[str] = []
    monkeypatch.setattr(session.cv2, "putText", lambda image, text, *args, **kw: written.append(text))
    session.draw_table(np.zeros((40, 60, 3), np.uint8), None, (), [Play(0, card_tuple("8c 8d"))])
    assert written and written[0] == "#1: 8c 8d" and not re.search(r"[A-Za-z]{2,}", written[0])


def test_a_replay_says_each_bid_as_the_live_page_does(client, store):
    mid = store.create_match(PLAYERS, "classic", meta={"started": 1000.0})
    for event in (Deal(counts=(17, 17, 17)), Bid(0, "pass", 0), Bid(1, "bid", 3)):
        store.append(mid, 1, event)
    live = text_of(fragment_html(client, "en"))
    replay = text_of(client.get(f"/history/{mid}/1?lang=en").get_data(as_text=True))
    assert "张三 no bid · 李四 bids 3" in live
    assert "张三 no bid" in replay and "李四 bids 3" in replay and "No bid" not in replay


def test_the_one_count_both_sites_read_is_its_own_example():
    import doctest

    from webkit import counts

    assert doctest.testmod(counts).failed == 0 and doctest.testmod(counts).attempted >= 4
