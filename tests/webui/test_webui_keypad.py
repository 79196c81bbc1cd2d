"""The referee page on a phone: the card keypad, seats counted from 1, entries kept after a
refusal, corrections named in words, and the small things (明牌 before play, 已更正, undo's
question, the start form folded mid-match). The browser tests (marked ``browser``) run Debian's
chromium as test_webui_browser.py does; the rest use Flask's test client."""

from __future__ import annotations

import html
import re
import shutil

import pytest
from playwright import sync_api

from engine.events import Bid, Deal, Play
from tests.kit.table_site import PIN, PLAYERS, LiveSite, act, api, card_tuple, new_match

PHONE = {"width": 390, "height": 844}
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]



def _hand(store, *events) -> int:
    """A match whose first hand has seat 0 (张三) as landlord at base 3, then ``events``."""
    mid = new_match(store)
    for e in (Deal(counts=(17, 17, 17)), Bid(0, "bid", 3), *events):
        store.append(mid, 1, e)
    return mid


def _page(c, path="/referee", **query) -> str:
    return html.unescape(c.get(path, query_string=query).get_data(as_text=True))


# ---------------------------------------------------------------------- the type endpoint
def test_the_combination_endpoint_names_the_type_in_the_readers_language(client):
    def ask(cards, **more):
        response = client.get("/api/combination", query_string={"cards": cards, **more})
        assert response.status_code == 200, response.get_json()
        return response.get_json()

    assert ask("5 5")["text"] == "对子 5" and ask("5 5")["valid"] is True
    assert ask("3 4 5 6 7")["text"] == "顺子 3-7"
    assert ask("5s 5h", lang="en")["text"] == "pair 5"
    assert ask("333 4")["text"] == "三带一 3 + 4"
    assert ask("小王 大王")["text"] == "王炸" and ask("小王 大王")["cards"] == "BJ RJ"
    invalid = ask("3 5")
    assert invalid["valid"] is False and invalid["text"] == "不成牌型" and invalid["readings"] == []
    twice = ask("3s 3s")
    assert twice["valid"] is False and "3s" in twice["text"] and "同一张牌" in twice["text"]


def test_the_combination_endpoint_reads_the_matchs_rules(client, store):
    assert client.get("/api/combination", query_string={"cards": "3 3 3 4"}).get_json()["valid"] is True
    mid = store.create_match((*PLAYERS, "赵六"), "four")  # no trio + single in the four-player game
    answer = client.get("/api/combination", query_string={"cards": "3 3 3 4", "match": mid}).get_json()
    assert answer["valid"] is False and answer["text"] == "不成牌型"
    six = client.get("/api/combination", query_string={"cards": "5 5 5 5 5 5", "match": mid}).get_json()
    assert six["text"] == "炸弹 5 6 张"


@pytest.mark.parametrize(("query", "status", "words"), [
    ({}, 400, "请写出要判定的牌"),
    ({"cards": "  "}, 400, "请写出要判定的牌"),
    ({"cards": "5 x"}, 400, "看不懂这些牌"),
    ({"cards": "3" * 401}, 400, "太长"),
    ({"cards": "3 3", "match": "abc"}, 400, "match"),
    ({"cards": "3 3", "match": "99"}, 404, "没有第 99 场比赛"),
])
def test_bad_input_to_the_combination_endpoint_gets_a_clear_refusal(client, query, status, words):
    response = client.get("/api/combination", query_string=query)
    assert response.status_code == status
    assert words in response.get_json()["error"]
    english = client.get("/api/combination", query_string={**query, "lang": "en"}).get_json()
    assert english["error"] and not re.search("[\u4e00-\u9fff]", english["error"])


# ---------------------------------------------------------------------- the page's words
def test_seat_selects_count_from_one_and_name_the_player(referee, store):
    _hand(store, Play(0, card_tuple("3s")))
    page = _page(referee)
    options = re.findall(r'<option value="(\d)"[^>]*>([^<]*)</option>', page)
    assert ("0", f"1 · {PLAYERS[0]}") in options and ("2", f"3 · {PLAYERS[2]}") in options
    assert not any(text.startswith("0 ·") for _, text in options)
    # the play form preselects the seat whose turn it is (李四, seat 1), shown as 2
    play_form = page.split('id="play-form"')[1].split("</form>")[0]
    assert re.search(rf'<option value="1" selected>2 · {PLAYERS[1]}</option>', play_form)


def test_an_early_announcement_is_refused_naming_the_player_not_a_seat_number(referee, store):
    _hand(store)
    refusal = html.unescape(act(referee, "announce", seat=0).get_data(as_text=True))
    assert f"{PLAYERS[0]} 还有 20 张牌" in refusal and "0 号位" not in refusal


def test_open_hand_is_offered_only_before_the_first_play(referee, store):
    mid = new_match(store)
    store.append(mid, 1, Deal(counts=(17, 17, 17)))
    assert 'id="open-hand"' not in _page(referee)  # bidding: no landlord yet
    store.append(mid, 1, Bid(0, "bid", 3))
    assert 'id="open-hand"' in _page(referee)
    store.append(mid, 1, Play(0, card_tuple("3s")))
    assert 'id="open-hand"' not in _page(referee)


def test_the_undo_question_names_the_play_in_cards_as_printed(referee, store):
    _hand(store, Play(0, card_tuple("BJ RJ")))
    undo = re.search(r'<button[^>]*id="undo"[^>]*>', _page(referee)).group(0)
    assert f'data-confirm="撤销：{PLAYERS[0]} 出 小王 大王"' in undo
    english = re.search(r'<button[^>]*id="undo"[^>]*>', _page(referee, lang="en")).group(0)
    assert f'data-confirm="Undo: {PLAYERS[0]} plays BJ RJ"' in english


def test_corrected_rows_of_the_hand_are_marked(referee, store):
    _hand(store, Play(0, card_tuple("9s")), Play(1, card_tuple("10s")))
    assert "已更正" not in _page(referee)
    assert act(referee, "correct", index=3, cards="Js").status_code == 303
    page = _page(referee)
    rows = re.findall(r'<li data-event-index="(\d+)"[^>]*>(.*?)</li>', page, re.S)
    marked = [index for index, body in rows if "corrected-tag" in body]
    assert marked == ["3"] and "已更正" in dict(rows)["3"]


def test_a_refused_correction_names_the_later_event_in_words(referee, store, client):
    mid = _hand(store, Play(0, card_tuple("3s 3h")), Play(1, card_tuple("5s 5h")), Play(2, card_tuple("7s 7h")))
    before = store.last_seq()
    response = act(referee, "correct", index=2, cards="3s 3h 3d")  # 李四's pair then follows a trio
    assert response.status_code == 409
    text = html.unescape(response.get_data(as_text=True))
    refusal = re.search(r'id="refusal">([^<]*)<', text).group(1)
    assert f"与之后 {PLAYERS[1]} 出 5♠ 5♥ 冲突" in refusal and "管不上" in refusal
    assert "第 3 步" not in refusal
    # what was entered stays in the row's field, with the keypad to go on it
    row = text.split('data-event-index="2"')[1].split("</li>")[0]
    assert 'value="3s 3h 3d"' in row and "data-kp-start" in row
    # a fix that fails by itself says so; the API words it in English too
    fails = api(client, "correct", {"index": 3, "cards": "2s"})
    assert fails.status_code == 409
    assert fails.get_json()["message"] == f"the corrected {PLAYERS[1]} plays 2♠ is refused (does not beat)"
    assert store.last_seq() == before and store.events(mid)[-1].kind == "play"


def test_a_refused_typed_play_keeps_the_cards_and_the_seat(referee, store):
    _hand(store)
    response = act(referee, "play", seat=2, cards="9s 9h")
    assert response.status_code == 409
    form = html.unescape(response.get_data(as_text=True)).split('id="play-form"')[1].split("</form>")[0]
    assert 'value="9s 9h"' in form and re.search(r'<option value="2" selected>3 · ', form)


def test_the_start_form_is_folded_away_while_a_match_runs(referee, store):
    assert re.search(r'<details id="start-details" open>', _page(referee))
    new_match(store)
    page = _page(referee)
    assert re.search(r'<details id="start-details">', page) and 'id="start-running"' in page


# ---------------------------------------------------------------------- in a browser
@pytest.fixture(scope="module")
def site():
    with LiveSite() as s:
        yield s


@pytest.fixture(scope="module")
def browser():
    # A missing browser is a failure, not a skip: `make test` installs it (deploy/system-deps.sh).
    if not shutil.which(CHROMIUM):
        raise RuntimeError(f"{CHROMIUM} is missing: run deploy/system-deps.sh (apt-get install chromium fonts-noto-cjk)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def _login(page, site: LiveSite) -> None:
    """Log the page's browser in through its request API: not one key is pressed."""
    form = page.request.get(f"{site.url}/referee/login").text()
    found = re.search(r'name="csrf" value="([^"]+)"', form)
    assert found is not None
    token = found.group(1)
    assert page.request.post(f"{site.url}/referee/login", form={"pin": PIN, "csrf": token}).ok


@pytest.fixture
def phone(browser, site):
    """A logged-in phone (390 x 844, touch) that counts every key pressed on its pages."""
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    context.add_init_script("window.__keys = 0; window.addEventListener('keydown', () => window.__keys++, true);")
    page = context.new_page()
    _login(page, site)
    yield page
    context.close()


def _go(page, button, ok: bool = True) -> None:
    """Tap a control that posts; the page comes back with a flash (done) or the refusal."""
    with page.expect_navigation():
        button.tap()
    assert page.locator("#refusal").count() == (0 if ok else 1), page.locator("main").inner_text()[:400]


def _keys(page, *ranks: str) -> None:
    for rank in ranks:
        page.locator(f"#keypad .kp-rank[data-rank='{rank}']").tap()


def _shows(page, words: str) -> None:
    page.wait_for_function("w => document.getElementById('kp-type').textContent === w", arg=words, timeout=5000)


def _state(page, site: LiveSite, mid: int) -> dict:
    return page.request.get(f"{site.url}/api/state?match={mid}").json()


@pytest.mark.browser
def test_a_whole_hand_is_refereed_on_a_phone_with_taps_alone(site, phone):
    page = phone
    mid = new_match(site.store)
    page.goto(f"{site.url}/referee")
    _go(page, page.locator("#new-hand"))
    _go(page, page.locator("button.bid-option", has_text="叫3分"))
    hand = _state(page, site, mid)["hand"]
    landlord = hand["landlord"]
    assert hand["phase"] == "play" and landlord is not None
    seat = [landlord, (landlord + 1) % 3, (landlord + 2) % 3]  # the landlord, then the farmers in turn
    steps = [(0, "3 4 5 6 7", "顺子 3-7"), (1, "8 9 10 J Q", "顺子 8-Q"), (2, None, None),
             (0, "2 2 2 2", "炸弹 2"), (1, None, None), (2, None, None),
             (0, "3 4 5 6 7 8 9 10 J Q K", "顺子 3-K")]
    for who, ranks, words in steps:
        # the seat whose turn it is comes preselected
        assert page.locator("#play-form select[name=seat]").input_value() == str(seat[who])
        if ranks is None:
            _go(page, page.locator("#kp-pass"))
            continue
        _keys(page, *ranks.split())
        _shows(page, words)
        _go(page, page.locator("#kp-record"))
    state = _state(page, site, mid)
    assert state["hand"]["phase"] == "finished" and state["hand"]["outcome"] == "landlord_won"
    assert state["hand"]["multiplier"] == 2  # the bomb
    points = [-6, -6, -6]
    points[landlord] = 12  # base 3 x 2, from each farmer
    assert state["scores"]["hand"] == points == state["scores"]["match"]
    assert [int(x) for x in page.locator("[data-ref-total]").all_inner_texts()] == points
    assert page.locator("#new-hand").count() == 1
    assert page.evaluate("window.__keys") == 0
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


@pytest.mark.browser
def test_the_keypad_shows_the_type_as_the_play_is_built(site, phone):
    page = phone
    _hand(site.store)
    page.goto(f"{site.url}/referee")
    field = page.locator("#play-form input[name=cards]")
    sizes = page.evaluate("Array.from(document.querySelectorAll('#keypad button')).filter(b => b.offsetParent)"
                          ".map(b => [b.getBoundingClientRect().width, b.getBoundingClientRect().height])")
    assert len(sizes) >= 20 and min(min(w, h) for w, h in sizes) >= 40
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    _keys(page, "5", "5")
    _shows(page, "对子 5")
    assert field.input_value() == "5 5"
    page.locator("#kp-clear").tap()
    assert field.input_value() == ""
    _keys(page, "3", "4", "5", "6", "7")
    _shows(page, "顺子 3-7")
    for _ in range(3):
        page.locator("#kp-back").tap()
    _shows(page, "不成牌型")  # 3 4
    # suits when they matter: a suit goes on the card just tapped
    page.locator("#kp-clear").tap()
    page.locator("#kp-suit-toggle").tap()
    _keys(page, "5")
    page.locator(".kp-suit[data-suit='s']").tap()
    _keys(page, "5")
    page.locator(".kp-suit[data-suit='h']").tap()
    _shows(page, "对子 5")
    assert field.input_value() == "5s 5h"
    assert page.locator("#kp-cards").inner_text().split() == ["5♠", "5♥"]
    # one deck holds one 小王: its key goes dead once it is in the play
    page.locator("#kp-clear").tap()
    _keys(page, "BJ", "RJ")
    _shows(page, "王炸")
    assert page.locator(".kp-rank[data-rank='BJ']").is_disabled()
    assert page.evaluate("window.__keys") == 0


@pytest.mark.browser
def test_a_refused_play_keeps_what_was_entered_with_the_keypad_and_typed(site, phone):
    page = phone
    mid = _hand(site.store)
    page.goto(f"{site.url}/referee")
    seat = page.locator("#play-form select[name=seat]")
    field = page.locator("#play-form input[name=cards]")
    seat.select_option("1")  # not 李四's turn: refused
    _keys(page, "9", "9")
    _go(page, page.locator("#kp-record"), ok=False)
    assert "没轮到" in page.locator("#refusal").inner_text()
    assert field.input_value() == "9 9" and seat.input_value() == "1"
    _shows(page, "对子 9")
    assert page.locator("#kp-cards .card").count() == 2
    field.fill("9s 9h")  # typed this time
    _go(page, page.locator("#play-form button[data-kp-record]"), ok=False)
    assert field.input_value() == "9s 9h" and seat.input_value() == "1"
    # a correction refused: its row keeps the cards, the keypad stays on it, the reason names the later play
    site.store.append(mid, 1, Play(0, card_tuple("3s")))
    site.store.append(mid, 1, Play(1, card_tuple("5s")))
    page.goto(f"{site.url}/referee")
    row = page.locator("li[data-event-index='2']")
    row.locator(".kp-open").tap()
    assert row.locator("#keypad").is_visible()
    page.locator("#kp-clear").tap()
    _keys(page, "A")
    _go(page, page.locator("#kp-record"), ok=False)
    assert f"与之后 {PLAYERS[1]} 出 5♠ 冲突" in page.locator("#refusal").inner_text()
    row = page.locator("li[data-event-index='2']")
    assert row.locator("input[name=cards]").input_value() == "A" and row.locator("#keypad").is_visible()
    assert site.store.events(mid)[-1].kind == "play"


@pytest.mark.browser
def test_the_correction_field_shows_a_whole_long_play_at_1024_px(site, browser):
    _hand(site.store, Play(0, card_tuple("10s 10h 10d Js Jh Jd")), Play(1, card_tuple("Qs Qh Qd Ks Kh Kd")))
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = context.new_page()
    _login(page, site)
    page.goto(f"{site.url}/referee")
    fits = "i => i.scrollWidth <= i.clientWidth && i.clientWidth > 0"
    for index in (2, 3):
        field = page.locator(f"input[data-play-index='{index}']")
        assert field.input_value().count(" ") == 5
        assert field.evaluate(fits), field.evaluate("i => [i.scrollWidth, i.clientWidth]")
    longer = page.locator("input[data-play-index='2']")
    longer.fill("3s 3h 3d 4s 4h 4d 5s 5h 5d 6s 6h 6d")  # the field widens as it is typed into
    assert longer.evaluate(fits), longer.evaluate("i => [i.scrollWidth, i.clientWidth]")
    context.close()
