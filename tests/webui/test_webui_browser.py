"""The site in headless Chromium: live updates, a referee's correction, a download, a phone.

Needs Debian's ``chromium`` (and ``fonts-noto-cjk`` so Chinese renders) and the ``playwright``
package; Playwright's own browser download is never used. One browser for the module.
Set ``DDZ_SCREENSHOTS=1`` to refresh ``docs/screenshots/`` from the last test.
"""

from __future__ import annotations

import csv
import os
import re
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from playwright import sync_api

from engine.events import Announce, Bid, Deal, Play
from engine.record import load
from sim.scripted import random_hand
from tests.kit.browser import ARGS, CHROMIUM, require_chromium
from tests.kit.table_site import PIN, LiveSite, card_tuple, new_match, play_hands
from tracker.records import Alert

pytestmark = pytest.mark.browser

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"

require_chromium()


JOIN = "http://192.168.1.20:8000/"


@pytest.fixture(scope="module")
def site():
    with LiveSite({"JOIN_URL": JOIN}) as s:
        yield s


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    yield context.new_page()
    context.close()



def test_live_page_updates_when_an_event_is_appended(site, page):
    mid = new_match(site.store)
    site.store.append(mid, 1, Deal(counts=(17, 17, 17)))
    site.store.append(mid, 1, Bid(0, "bid", 3))
    page.goto(f"{site.url}/?match={mid}")
    page.wait_for_function("document.getElementById('conn').classList.contains('on')")
    left = page.locator('.seat.s0 [data-cards-left]')
    assert left.inner_text() == "20"
    started = time.monotonic()
    site.store.append(mid, 1, Play(0, card_tuple("3s 3h 3d 4c")))
    page.wait_for_function("document.querySelector('.seat.s0 [data-cards-left]').textContent === '16'",
                           timeout=5000)
    print(f"append-to-screen {1000 * (time.monotonic() - started):.0f} ms")
    assert "三带一" in page.locator(".seat.s0 .last").inner_text()
    assert page.locator(".seat.s1").get_attribute("class").split().count("turn") == 1


def test_live_page_reconnects_when_its_stream_ends(browser):
    with LiveSite({"SSE_LIFETIME": 0.5}) as short:  # the server ends every stream after half a second
        mid = new_match(short.store)
        short.store.append(mid, 1, Deal(counts=(17, 17, 17)))
        page = browser.new_page()
        page.goto(f"{short.url}/?match={mid}")
        page.wait_for_timeout(2500)  # several streams have ended and been reopened by now
        short.store.append(mid, 1, Bid(0, "bid", 3))
        page.wait_for_function("document.querySelector('.seat.s0 [data-cards-left]').textContent === '20'",
                               timeout=5000)
        page.close()


def test_referee_corrects_a_misread_play_and_the_live_page_follows(site, browser, page):
    mid = new_match(site.store)
    for e in (Deal(counts=(17, 17, 1)), Bid(0, "pass"), Bid(1, "pass"), Bid(2, "bid", 1),
              Play(2, card_tuple("5s 5h 5d 4c"))):
        site.store.append(mid, 1, e)
    viewer = browser.new_page(viewport={"width": 1280, "height": 800})
    viewer.goto(f"{site.url}/?match={mid}")
    assert viewer.locator("#multiplier").inner_text() == "×2"  # the spring

    page.goto(f"{site.url}/referee")
    page.fill("input[name=pin]", PIN)
    page.click("button[type=submit]")
    page.wait_for_url("**/referee")
    field = page.locator('input[data-play-index="4"]')
    assert field.input_value() == "5s 5h 5d 4c"
    field.fill("5s 5h 5d 5c")
    page.locator("li", has=field).locator("button.fix").click()
    page.wait_for_load_state()
    assert page.locator("#ref-multiplier").inner_text() == "×4"

    viewer.wait_for_function("document.getElementById('multiplier').textContent === '×4'", timeout=5000)
    totals = [c.inner_text() for c in viewer.locator("[data-total]").all()]
    assert totals == ["-4", "-4", "8"]
    assert "炸弹" in viewer.locator(".causes").inner_text()
    viewer.close()


def test_an_export_downloads_and_parses(site, page, tmp_path):
    mid = new_match(site.store)
    play_hands(site.store, mid, [1, 2])
    page.goto(f"{site.url}/history/{mid}")
    with page.expect_download() as info:
        page.click(f'a[href="/export/{mid}.json"]')
    record = load(Path(info.value.path()).read_text(encoding="utf-8"))
    assert len(record.hands) == 2
    with page.expect_download() as info:
        page.click(f'a[href="/export/{mid}.csv"]')
    rows = list(csv.reader(Path(info.value.path()).read_text(encoding="utf-8").splitlines()))
    assert [int(x) for x in rows[-1][-3:]] == record.totals()


def test_pages_fit_a_phone_without_sideways_scrolling(site, browser, tmp_path):
    mid = _showcase(site)
    phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                has_touch=True)
    page = phone.new_page()
    for path in (f"/?match={mid}", f"/?match={mid}&lang=en", f"/history/{mid}", f"/history/{mid}/1",
                 f"/history/{mid}/sheet", "/referee/login", "/join", "/referee", "/referee?lang=en"):
        if path == "/referee":
            _login(page, site)
        page.goto(site.url + path)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{path} is {width} px wide on a 390 px phone"
    page.goto(f"{site.url}/?match={mid}&lang=zh")
    page.screenshot(path=str(_shot_path(tmp_path, "live-phone-zh.png")), full_page=True)
    page.goto(f"{site.url}/referee?lang=zh")
    page.locator("#play-form").scroll_into_view_if_needed()
    page.screenshot(path=str(_shot_path(tmp_path, "referee-phone-zh.png")))  # the keypad, as a referee holds it
    phone.close()
    sheet = browser.new_page(viewport={"width": 900, "height": 1270})
    sheet.emulate_media(media="print")
    sheet.goto(f"{site.url}/history/{mid}/sheet?lang=zh")
    sheet.screenshot(path=str(_shot_path(tmp_path, "score-sheet-zh.png")), full_page=True)
    sheet.close()
    referee = browser.new_page(viewport={"width": 1280, "height": 800})
    _login(referee, site)
    referee.goto(f"{site.url}/referee?lang=zh")
    referee.screenshot(path=str(_shot_path(tmp_path, "referee-tablet-zh.png")), full_page=True)
    referee.close()
    for lang in ("zh", "en"):
        tablet = browser.new_page(viewport={"width": 1280, "height": 800})
        tablet.goto(f"{site.url}/?match={mid}&lang={lang}")
        target = _shot_path(tmp_path, f"live-tablet-{lang}.png")
        tablet.screenshot(path=str(target), full_page=True)
        assert target.stat().st_size > 10_000
        tablet.close()


def _login(page, site: LiveSite) -> None:
    page.on("dialog", lambda dialog: dialog.accept())  # the confirm() on undo, penalties, ...
    page.goto(f"{site.url}/referee/login?lang=en")
    page.fill("input[name=pin]", PIN)
    page.click("button[type=submit]")
    page.wait_for_url("**/referee")


def _submit(page, button, ok: bool = True) -> None:
    """Click a control; the page comes back with a flash (done) or the refusal (4xx)."""
    with page.expect_navigation():
        button.click()
    assert page.locator("#refusal").count() == (0 if ok else 1), page.locator("main").inner_text()[:400]


def _state(page, site: LiveSite) -> dict:
    return page.request.get(f"{site.url}/api/state").json()


def test_every_referee_control_works_from_the_page(site, page):
    _login(page, site)
    if page.locator("#start-details[open]").count() == 0:  # mid-match the form is folded away
        page.click("#start-details summary")
    form = page.locator("#start-form")
    form.locator("input[name=name]").fill("周六赛")
    form.locator("textarea[name=players]").fill("甲\n乙\n丙")
    form.locator("select[name=preset]").select_option("classic")
    form.locator("input[name=time_limit]").fill("45")
    _submit(page, form.locator("button[type=submit]"))
    mid = _state(page, site)["match"]["id"]
    info = site.store.match(mid)
    assert info.players == ("甲", "乙", "丙") and info.rules.time_limit_min == 45

    _submit(page, page.locator("#new-hand"))
    bid3 = page.locator("form[action$='/act/bid']", has=page.locator("input[name=bid][value='3']"))
    _submit(page, bid3.locator("button"))
    assert _state(page, site)["hand"]["landlord"] == 0

    def play(cards: str, ok: bool = True, seat: int | None = None) -> None:
        if seat is not None:
            page.locator("#play-form select[name=seat]").select_option(str(seat))
        page.fill("#play-form input[name=cards]", cards)
        _submit(page, page.locator("#play-form button[type=submit]"), ok)

    kitty = page.locator("form[action$='/act/kitty']")
    kitty.locator("input[name=cards]").fill("BJ 2s 7h")
    _submit(page, kitty.locator("button[type=submit]"))  # event 2
    assert _state(page, site)["hand"]["kitty"] == "BJ 2s 7h"
    _submit(page, page.locator("#open-hand"))  # 3: the landlord shows his hand before the first play
    assert page.locator("#ref-multiplier").inner_text() == "×2"
    play("3s 3h")  # 4
    assert page.locator("#open-hand").count() == 0  # play has started
    _submit(page, page.locator("#mark-pass"))  # 5: seat 1 passes
    play("5s 5h", ok=False, seat=0)  # out of turn: refused with a message, nothing stored
    play("5s 5h", seat=2)  # 6
    # Seat 1 had played 4s 4h, unseen: the pass becomes that play.
    row = page.locator("li[data-event-index='5']")
    row.locator("input[name=cards]").fill("4s 4h")
    _submit(page, row.locator("button.to-play"))
    assert [s["cards_left"] for s in _state(page, site)["hand"]["seats"]] == [18, 15, 15]
    # A correction that breaks the hand is refused: without seat 1's play, seat 2 is out of turn.
    _submit(page, page.locator("li[data-event-index='5'] button.del"), ok=False)
    # Insert a pass at the end (the seat to play: the landlord), then delete it again.
    insert = page.locator("#insert-form")
    insert.locator("select[name=what]").select_option("pass")
    _submit(page, insert.locator("button[type=submit]"))
    assert _state(page, site)["hand"]["seats"][0]["last"]["kind"] == "pass"
    _submit(page, page.locator("li[data-event-index='7'] button.del"))
    assert _state(page, site)["hand"]["turn"] == 0
    # A misread: the landlord's lead was 3s 3d.
    row = page.locator("li[data-event-index='4']")
    row.locator("input[name=cards]").fill("3s 3d")
    _submit(page, row.locator("button.fix"))
    assert _state(page, site)["hand"]["seats"][0]["last"]["cards"] == "3s 3d"

    _submit(page, page.locator("#announce"), ok=False)  # nobody is down to two cards
    assert re.search("announce at 2|报牌|2 or fewer", page.locator("#refusal").inner_text())
    _submit(page, page.locator("#mark-pass"))  # seat 0 passes
    _submit(page, page.locator("#undo"))
    assert _state(page, site)["hand"]["turn"] == 0

    penalty = page.locator("form[action$='/act/penalty']")
    penalty.locator("select[name=seat]").select_option("2")
    _submit(page, page.locator("#penalty"))
    page.locator("form[action$='/act/concede'] select[name=seat]").select_option("1")
    _submit(page, page.locator("#concede"))
    state = _state(page, site)
    assert state["hand"]["outcome"] == "landlord_won" and state["scores"]["hand"] == [12, -6, -6]
    assert state["scores"]["match"] == [12, -6, -8]

    _submit(page, page.locator("#new-hand"))
    landlord = page.locator("form[action$='/act/landlord']")
    landlord.locator("select[name=seat]").select_option("1")
    landlord.locator("input[name=base]").fill("2")
    _submit(page, landlord.locator("button[type=submit]"))
    assert _state(page, site)["hand"]["landlord"] == 1 and _state(page, site)["hand"]["base"] == 2
    page.locator("form[action$='/act/concede'] select[name=seat]").select_option("2")
    _submit(page, page.locator("#escape"))
    assert _state(page, site)["hand"]["outcome"] == "escape"
    _submit(page, page.locator("#new-hand"))
    _submit(page, page.locator("#abandon"))
    assert _state(page, site)["hand"]["outcome"] == "abandoned"

    _submit(page, page.locator("#end-match"))
    assert _state(page, site)["match"]["status"]["over"] is True
    assert page.locator("#new-hand").count() == 0
    kinds = [r.kind for r in site.store.events(mid)]
    assert kinds.count("correction") == 5 and "open_hand" in kinds and "penalty" in kinds
    assert {r.source for r in site.store.events(mid)} == {"referee"}

    page.fill("#judge-form input[name=cards]", "BJ RJ")
    page.fill("#judge-form input[name=after]", "2s 2h 2d 2c")
    with page.expect_navigation():
        page.click("#judge-form button")
    verdict = page.locator("#verdict").inner_text()
    assert "rocket" in verdict and "beats" in verdict


def test_the_join_code_on_the_live_page_reads_back_as_the_address(site, page, tmp_path):
    new_match(site.store)
    page.goto(f"{site.url}/")
    assert JOIN in page.locator("#join").inner_text()
    shot = tmp_path / "qr.png"
    page.locator("#join .qr svg").screenshot(path=str(shot))
    image = cv2.imread(str(shot))
    image = cv2.copyMakeBorder(image, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=(255, 255, 255))
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    assert text == JOIN
    big = page.request.get(f"{site.url}/join")
    assert big.ok and JOIN in big.text()
    assert np.asarray(image).std() > 50  # black modules on white, not a blank box


def test_the_demo_camera_feed_shows_its_annotated_frames(browser):
    from sim.demo.camera_feed import CameraTable
    from tests.kit.table_site import SMALL, Blind
    from tracker.store import EventStore

    store = EventStore(":memory:")
    feed = CameraTable(store, new_match(store), speed=1000, seed=2, size=SMALL, fps=2, detector=Blind())
    feed.start()
    try:
        with LiveSite({"CAMERA_VIEW": True, "CAMERA_SHOWN": True, "SSE_LIFETIME": 5.0}, store, feed) as demo:
            page = browser.new_page()
            page.goto(f"{demo.url}/")
            page.wait_for_function("document.getElementById('camera-view').naturalWidth > 0", timeout=60000)
            assert page.evaluate("document.getElementById('camera-view').naturalWidth") == SMALL[0]
            page.click("#camera-toggle")
            assert page.locator("#camera-view").is_hidden()
            page.close()
    finally:
        feed.stop()


def _shot_path(tmp_path: Path, name: str) -> Path:
    if os.environ.get("DDZ_SCREENSHOTS"):
        SHOTS.mkdir(parents=True, exist_ok=True)
        return SHOTS / name
    return tmp_path / name


def _showcase(site: LiveSite) -> int:
    """A match worth a screenshot: a few hands played, one in progress, an alert."""
    mid = site.store.create_match(("张三", "李四", "王五"), "classic", meta={"name": "周五俱乐部", "started": time.time()})
    play_hands(site.store, mid, [3, 4, 5, 6])
    hand = random_hand("classic", 38)  # two bombs and a rocket by event 39: x8
    for event in hand.log[:39]:
        site.store.append(mid, 5, event)
    site.store.append(mid, 5, Announce(2))  # 王五, down to two cards, says so (报双)
    site.store.append(mid, 5, Alert("uncertain_read", seat=1, cards="7h 7d", suggestion="10h 10d",
                                    data={"cause": "does_not_beat"}))
    return mid
