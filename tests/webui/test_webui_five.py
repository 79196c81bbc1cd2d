"""The live and referee pages for the five-player game (open and hidden landlord) and 斗帝主:
five seats laid out, the marker card shown, the hidden landlord named only once revealed, and
the referee's marker, reveal, double and kitty-pick entries."""

from __future__ import annotations

import html
import shutil

import pytest

from engine.cards import Card
from engine.events import Bid, Deal, Marker, Play
from tests.kit.table_site import LiveSite, act, api_state, card_tuple, fragment_html

FIVE_PLAYERS = ("张三", "李四", "王五", "赵六", "钱七")






def five_match(store) -> int:
    mid = store.create_match(FIVE_PLAYERS, "five", meta={"name": "five", "started": 1000.0})
    store.append(mid, 1, Deal(counts=(21,) * 5))
    return mid


def test_five_seats_and_the_hidden_landlord_only_once_revealed(client, referee, store):
    mid = five_match(store)
    store.append(mid, 1, Marker(1, Card.parse("7h")))
    page = fragment_html(client)
    assert "seats-5" in page and page.count('class="seat s') == 5
    assert "标记牌" in page and "role hidden_landlord" not in page
    assert "暗地主未明 · 每位地主与每位农民输赢 1 分" in html.unescape(page.replace('<span class="nowrap">', "").replace("</span>", ""))
    roles = [s["role"] for s in api_state(client)["hand"]["seats"]]
    assert roles == ["farmer", "landlord", "farmer", "farmer", "farmer"]
    assert api_state(client)["hand"]["stakes"] is None  # the split waits for the hidden landlord
    assert act(referee, "reveal", seat=3).status_code in (302, 303)
    h = api_state(client)["hand"]
    assert h["hidden"] == 3 and h["multiplier"] == 2
    assert [s["role"] for s in h["seats"]][3] == "hidden_landlord"
    assert "暗地主" in fragment_html(client) and "Hidden landlord" in fragment_html(client, "en")


def test_the_hidden_landlord_shows_when_the_twin_is_played(client, store):
    mid = five_match(store)
    for event in (Marker(1, Card.parse("7h")), Play(1, card_tuple("3s")), Play(2, card_tuple("7h"))):
        store.append(mid, 1, event)
    assert api_state(client)["hand"]["hidden"] == 2
    assert api_state(client)["hand"]["hidden_shown"] == "play"


def test_the_referee_enters_the_marker_and_the_doubles(referee, client, store):
    five_match(store)
    page = html.unescape(referee.get("/referee").get_data(as_text=True))
    assert 'id="marker-form"' in page
    act(referee, "marker", seat=0, cards="BJ")
    assert api_state(client)["hand"]["landlord"] is None  # a joker is no marker
    act(referee, "marker", seat=0, cards="Qs")
    act(referee, "double", seat=4)
    h = api_state(client)["hand"]
    assert h["landlord"] == 0 and h["marker"] == "Qs" and h["multiplier"] == 2
    assert [c["cause"] for c in h["causes"]] == ["double"]


def test_the_di_zhu_pick_of_the_kitty_from_the_referee_page(referee, client, store):
    mid = store.create_match(("张三", "李四", "王五"), "dizhu", meta={"name": "dz", "started": 1000.0})
    for event in (Deal(counts=(34, 34, 34)), Bid(0, "bid", 3)):
        store.append(mid, 1, event)
    assert 'id="pick-form"' in referee.get("/referee").get_data(as_text=True)
    act(referee, "kitty_pick", cards="2s BJ")
    h = api_state(client)["hand"]
    assert [s["cards_left"] for s in h["seats"]] == [36, 34, 34]
    assert 'id="pick-form"' not in referee.get("/referee").get_data(as_text=True)


@pytest.mark.browser
def test_five_seats_fit_a_phone_without_sideways_scrolling():
    from playwright import sync_api

    chromium = "/usr/bin/chromium"
    if not shutil.which(chromium):
        raise RuntimeError(f"{chromium} is missing: run deploy/system-deps.sh")
    with LiveSite() as site, sync_api.sync_playwright() as p:
        mid = site.store.create_match(FIVE_PLAYERS, "five", meta={"name": "five", "started": 1000.0})
        for event in (Deal(counts=(21,) * 5), Marker(1, Card.parse("7h")), Play(1, card_tuple("3s 3h"))):
            site.store.append(mid, 1, event)
        browser = p.chromium.launch(executable_path=chromium, args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
            for lang in ("zh", "en"):
                page.goto(f"{site.url}/?lang={lang}")
                page.wait_for_selector(".seat")
                width = page.evaluate("document.documentElement.scrollWidth")
                seats = page.evaluate("[...document.querySelectorAll('.seat')].map(s => {"
                                      "const r = s.getBoundingClientRect(); return [r.left, r.right, r.width]; })")
                assert width <= 390, (lang, width)
                assert len(seats) == 5 and all(0 <= left and right <= 390 and w > 60 for left, right, w in seats), seats
                assert "钱七" in page.inner_text("body") or "钱七" in page.content()
        finally:
            browser.close()
