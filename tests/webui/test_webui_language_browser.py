"""Each table page in Chromium, in both languages, on a 390 px phone and a 1280 px laptop: no
sideways overflow, and no word of the other language in the rendered text (issue 46).

The pages are those a club meets: the live page, the referee's page, the history, a match, its
printed sheet and a hand's replay, for a classic match (a rocket, a penalty, an abandoned hand,
ended mid-hand), a five-player hand (the marker card) and a 斗帝主 hand (the kitty pick). Player
names, the match's name and typed reasons are what people wrote and are left out of the check;
so are card codes on a Chinese page (a card is read as ``7♥`` there too), the language switch
(it names the other language in that language).

Set ``DDZ_SCREENSHOTS=1`` to write each page's screenshot to ``docs/screenshots/``.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from engine.cards import Card
from engine.events import Bid, Deal, KittyPick, Marker, Play
from tests.kit.browser import ARGS, CHROMIUM, require_chromium
from tests.kit.table_site import PIN, PLAYERS, LiveSite, card_tuple, ended_mid_hand, referee_post

pytestmark = pytest.mark.browser

FIVE = ("孙三", "周四", "吴五", "郑六", "冯七")
#: What people typed: names, the match's name, a penalty's reason.
TYPED = (*PLAYERS, *FIVE, "周五夜赛", "掉牌", "misdeal")
#: Latin a Chinese page may show: the language switch, download formats, a preset's own name,
#: the kind of address a phone opens.
LATIN_ON_ZH = ("English", "JSON", "CSV", "TXT", "QQ", "PIN", "Wi-Fi", "http", "localhost", "host", "ddz-table")
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
#: A Friday evening at the club (the pages print the box's local time).
STARTED = time.mktime((2026, 12, 4, 19, 30, 0, 0, 0, -1))


def matches(site: LiveSite) -> dict[str, int]:
    """A five-player hand, a 斗帝主 hand, and last (the live page's) a classic match ended mid-hand."""
    store, client = site.store, site.app.test_client()
    five = store.create_match(FIVE, "five", meta={"name": "周五夜赛", "started": STARTED})
    for event in (Deal(counts=(21,) * 5), Marker(4, Card.parse("7h")), Play(4, card_tuple("3s 3h"))):
        store.append(five, 1, event)
    dizhu = store.create_match(PLAYERS, "dizhu", meta={"name": "周五夜赛", "started": STARTED})
    for step in (Deal(counts=(34, 34, 34)), Bid(0, "bid", 3), KittyPick(0, card_tuple("2s BJ"))):
        store.append(dizhu, 1, step)
    classic = ended_mid_hand(client, store, started=STARTED)
    return {"five": five, "dizhu": dizhu, "classic": classic}


def pages(ids: dict[str, int]) -> list[str]:
    c = ids["classic"]
    return ["/", "/referee", "/history", f"/history/{c}", f"/history/{c}/sheet", f"/history/{c}/1",
            f"/history/{ids['five']}/1", f"/history/{ids['dizhu']}/1", f"/?match={ids['five']}",
            f"/?match={ids['dizhu']}"]


def foreign_words(text: str, lang: str) -> list[str]:
    """Words of the other language in a page's ``text``, once what people typed is taken out."""
    for typed in TYPED:
        text = text.replace(typed, " ")
    if lang == "en":
        text = text.replace("中文", " ")  # the language switch
        return re.findall(r"[\u3400-\u9fff\uff00-\uffef\u3000-\u303f]+", text)
    for allowed in LATIN_ON_ZH:
        text = text.replace(allowed, " ")
    text = re.sub(r"\b(?:10|[2-9JQKA])[shdc]\b|\b[BR]J\b", " ", text)  # card codes
    return re.findall(r"[A-Za-z]{2,}", text)


def test_every_table_page_fits_and_speaks_one_language_on_a_phone_and_a_laptop():
    from playwright import sync_api

    require_chromium()
    shots = os.environ.get("DDZ_SCREENSHOTS") == "1"
    with LiveSite() as site, sync_api.sync_playwright() as p:
        ids = matches(site)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        found: list[str] = []
        try:
            for width, height, mobile in ((390, 844, True), (1280, 800, False)):
                context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=mobile,
                                              has_touch=mobile)
                page = context.new_page()
                page.goto(f"{site.url}/referee/login")
                page.fill("input[name=pin]", PIN)
                page.click("button[type=submit]")
                for lang in ("zh", "en"):
                    for path in pages(ids):
                        page.goto(f"{site.url}{path}{'&' if '?' in path else '?'}lang={lang}")
                        overflow = page.evaluate("document.documentElement.scrollWidth") - width
                        if overflow > 0:
                            found.append(f"{width}px {lang} {path}: {overflow}px too wide")
                        shown = page.evaluate("(() => { const b = document.body.cloneNode(true);"
                                              " document.documentElement.append(b); const t = b.innerText;"
                                              " b.remove(); return t; })()")
                        foreign = foreign_words(shown, lang)
                        if foreign:
                            found.append(f"{width}px {lang} {path}: {sorted(set(foreign))}")
                        if path == "/history":  # a cell never squeezed to a character a line
                            narrow = page.evaluate("Math.min(...[...document.querySelectorAll('#matches tbody td')]"
                                                   ".map(td => td.getBoundingClientRect().width))")
                            heads = page.evaluate("[...document.querySelectorAll('#matches thead th')]"
                                                  ".map(th => th.innerText)")
                            if narrow < 120 or len(heads) != 5 or not all(heads):
                                found.append(f"{width}px {lang} history list: narrowest cell {narrow}px, heads {heads}")
                        if path == f"/history/{ids['classic']}":  # every player's column without scrolling
                            ends = page.evaluate("[...document.querySelectorAll('#match-sheet thead th.pts')]"
                                                 ".map(th => th.getBoundingClientRect().right)")
                            right = max(ends, default=width + 1)
                            if right > width or len(ends) != len(PLAYERS):
                                found.append(f"{width}px {lang} match table: players' columns end at {right}px")
                        if shots and mobile and path in ("/history", f"/history/{ids['classic']}"):
                            name = "history" if path == "/history" else "match"
                            page.screenshot(path=str(SHOTS / f"{name}-phone-{lang}.png"),
                                            full_page=True)
                context.close()
        finally:
            browser.close()
    assert not found, "\n".join(found)


def test_the_referees_confirmations_name_the_seat_chosen_and_what_was_typed():
    from playwright import sync_api

    require_chromium()
    with LiveSite() as site, sync_api.sync_playwright() as p:
        site.store.create_match(PLAYERS, "classic", meta={"name": "周五夜赛", "started": STARTED})
        client = site.app.test_client()
        referee_post(client, "new_hand")
        referee_post(client, "bid", seat=0, bid="3")
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844})
            asked: list[str] = []
            page.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
            page.goto(f"{site.url}/referee/login")
            page.fill("input[name=pin]", PIN)
            page.click("button[type=submit]")
            concede = page.locator("#concede").locator("xpath=ancestor::form")
            concede.locator("select[name=seat]").select_option("1")
            page.click("#concede")
            penalty = page.locator("#penalty").locator("xpath=ancestor::form")
            penalty.locator("select[name=seat]").select_option("2")
            penalty.locator("input[name=points]").fill("3")
            penalty.locator("input[name=reason]").fill("说话")
            page.click("#penalty")
            assert asked == ["记录 李四 认输？第 1 局就此结束，按认输结算。", "罚 王五 3 分（说话）？"]
            assert site.store.events(None)[-1].kind == "bid"  # both dismissed: nothing recorded
        finally:
            browser.close()
