"""The replay's 复盘 block in headless Chromium while the background solver runs: a progress line
that follows it, then the turning points without anyone reloading the page.

Needs Debian's ``chromium`` (see tests/webui/test_webui_browser.py).
"""

from __future__ import annotations

import threading

import pytest
from playwright import sync_api

import webui.analysis
from engine.cards import parse_cards
from engine.events import Deal, Landlord, Pass, Play, Shown
from tests.kit.browser import ARGS, CHROMIUM, require_chromium
from tests.kit.table_site import LiveSite, new_match

pytestmark = pytest.mark.browser

require_chromium()


def C(text: str):
    return tuple(parse_cards(text))


#: The landlord leads 5 instead of 33 and the first farmer goes out; the cards left are shown.
HAND = (Deal(counts=(0, 3, 3)), Landlord(0), Play(0, C("5s")), Play(1, C("10s")), Pass(2), Pass(0),
        Play(1, C("9s")), Pass(2), Pass(0), Play(1, C("4s")), Shown(0, C("3s 3h")), Shown(2, C("6s 7s 8s")))


def test_the_progress_line_follows_the_solver_and_turns_into_the_answer(monkeypatch):
    release = threading.Event()
    real = webui.analysis.analyse

    def slow(record, seconds, bid_seconds, *, progress=None, **kw):  # a hand that takes a while
        progress(3, 8)
        release.wait(20)
        return real(record, seconds, bid_seconds, progress=progress, **kw)

    monkeypatch.setattr(webui.analysis, "analyse", slow)
    with LiveSite() as site, sync_api.sync_playwright() as p:
        mid = new_match(site.store)
        for event in HAND:
            site.store.append(mid, 1, event, source="referee")
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page()
        page.goto(f"{site.url}/history/{mid}/1?lang=zh")
        page.wait_for_selector("#analysis-progress", timeout=5000)
        page.wait_for_function("document.getElementById('analysis-progress').textContent.includes('3 / 8')",
                               timeout=10000)
        release.set()
        page.wait_for_selector(".mistake-tag", timeout=15000)  # the page showed the answer by itself
        assert "由胜转负" in page.locator("#analysis").inner_text()
        assert page.locator("#analysis-progress").count() == 0
        browser.close()
