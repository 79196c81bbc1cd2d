"""The site in headless Chromium: live updates, a referee's correction, a download, a phone.

Needs Debian's ``chromium`` (and ``fonts-noto-cjk`` so Chinese renders) and the ``playwright``
package; Playwright's own browser download is never used. One browser for the module.
Set ``DDZ_SCREENSHOTS=1`` to refresh ``docs/screenshots/`` from the last test.
"""

from __future__ import annotations

import csv
import os
import shutil
import time
from pathlib import Path

import pytest
from playwright import sync_api
from webui_site import PIN, LiveSite, new_match, play_hands

from engine.cards import parse_cards
from engine.demo import random_hand
from engine.events import Bid, Deal, Play
from engine.record import load
from tracker.records import Alert

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"

# Missing browser parts are a failure, not a skip: `make test` installs them (deploy/system-deps.sh).
if not shutil.which(CHROMIUM):
    raise RuntimeError(f"{CHROMIUM} is missing: run deploy/system-deps.sh (apt-get install chromium fonts-noto-cjk)")


@pytest.fixture(scope="module")
def site():
    with LiveSite() as s:
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


def _cards(text):
    return tuple(parse_cards(text))


def test_live_page_updates_when_an_event_is_appended(site, page):
    mid = new_match(site.store)
    site.store.append(mid, 1, Deal(counts=(17, 17, 17)))
    site.store.append(mid, 1, Bid(0, "bid", 3))
    page.goto(f"{site.url}/?match={mid}")
    page.wait_for_function("document.getElementById('conn').classList.contains('on')")
    left = page.locator('.seat.s0 [data-cards-left]')
    assert left.inner_text() == "20"
    started = time.monotonic()
    site.store.append(mid, 1, Play(0, _cards("3s 3h 3d 4c")))
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
              Play(2, _cards("5s 5h 5d 4c"))):
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
                 "/referee/login"):
        page.goto(site.url + path)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{path} is {width} px wide on a 390 px phone"
    page.goto(f"{site.url}/?match={mid}&lang=zh")
    page.screenshot(path=str(_shot_path(tmp_path, "live-phone-zh.png")), full_page=True)
    phone.close()
    for lang in ("zh", "en"):
        tablet = browser.new_page(viewport={"width": 1280, "height": 800})
        tablet.goto(f"{site.url}/?match={mid}&lang={lang}")
        target = _shot_path(tmp_path, f"live-tablet-{lang}.png")
        tablet.screenshot(path=str(target), full_page=True)
        assert target.stat().st_size > 10_000
        tablet.close()


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
    site.store.append(mid, 5, Alert("uncertain_read", "read 7h 7d: does not beat 9s 9c; most likely 10h 10d",
                                    "读到 7h 7d（管不上），应为 10h 10d", seat=1, cards="7h 7d", suggestion="10h 10d"))
    return mid
