"""A club day walked in Chromium, in Chinese and in English, on a 390 px phone and a 1280 px
laptop: the director draws and runs the clock, two boxes report, time is called with a hand in
play at one table and a tie at the other, the tie is played off, a tie at the round robin's cut
is played off and recorded, and the results are published. On every screen: nothing wider than
the screen, no word of the other language, and the hall, the director and a player's page
saying the same counts, status and winner for each table.

Set ``DDZ_SCREENSHOTS=1`` to refresh the club's pictures in ``docs/screenshots/``.
"""

from __future__ import annotations

import os
import re
import time
import zlib
from pathlib import Path

import pytest
from playwright import sync_api

from club.sqlite import SqliteStorage
from tests.kit.browser import ARGS, CHROMIUM, require_chromium
from tests.kit.club_day import Box, end_session
from tests.kit.club_server import PIN, ThreadServer

pytestmark = pytest.mark.browser
require_chromium()

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
NAMES = ("赵敏", "张三", "李四", "王五", "孙六", "周七")
EVENT = "周五俱乐部赛"
#: Words a page may show in either language: names, the language switch, file formats, the paper size.
ANY_LANGUAGE = (*NAMES, EVENT, "English", "中文", "JSON", "CSV", "A4")
CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1280, "height": 800}}
VISIBLE_TEXT = """() => {
  const skip = new Set(['SCRIPT', 'STYLE', 'CODE', 'TEXTAREA']);
  const walk = (node) => node.nodeType === 3 ? node.textContent
    : skip.has(node.nodeName) ? '' : Array.from(node.childNodes).map(walk).join(' ');
  return walk(document.body);
}"""


def other_language(page, lang: str) -> list[str]:
    """Words of the other language in the page's visible text (names and formats aside)."""
    text = page.evaluate(VISIBLE_TEXT)
    for word in ANY_LANGUAGE:
        text = text.replace(word, " ")
    return CJK.findall(text) if lang == "en" else LATIN_WORD.findall(text)


def check_screen(page, lang: str, size: str, what: str) -> None:
    width = SIZES[size]["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width, f"{what} ({lang}, {size}) is wider than the screen"
    assert not other_language(page, lang), f"{what} ({lang}): {other_language(page, lang)}"


#: The pictures docs/club.md and the README show.
PICTURES = {"club-hall-time-laptop-zh.png", "club-hall-time-laptop-en.png", "club-hall-playoff-phone-zh.png",
            "club-director-time-laptop-zh.png", "club-director-time-phone-en.png", "club-player-time-phone-zh.png"}


def shot(page, name: str) -> None:
    if os.environ.get("DDZ_SCREENSHOTS") and name in PICTURES:
        page.screenshot(path=str(SHOTS / name), full_page=True)


def dark_fills(pdf: bytes) -> list[tuple[float, float, float]]:
    """The dark colours a PDF fills areas with (Chromium's PDFs: zlib streams, ``r g b rg`` then
    a ``re`` rectangle and ``f``): a near-black page frame shows here."""
    found = []
    for stream in re.findall(rb"stream\r?\n(.*?)\r?\nendstream", pdf, re.S):
        try:
            text = zlib.decompress(stream).decode("latin-1")
        except zlib.error:
            continue
        for r, g, b in re.findall(r"([\d.]+) ([\d.]+) ([\d.]+) rg\s*\n/G\d+ gs\s*\n[\d. ]+ re\s*\nf", text):
            if max(float(r), float(g), float(b)) < 0.3:
                found.append((float(r), float(g), float(b)))
    return found


def table_lines(page, rows: str) -> dict[int, tuple[str, str]]:
    """Each table's hands and status as a screen words them (``rows``: one element per table)."""
    return {int(el.get_attribute("data-table")): (el.query_selector(".hands").inner_text().strip(),
                                                  el.query_selector(".status").inner_text().strip())
            for el in page.query_selector_all(rows)}


def test_a_club_day_tells_one_story_on_every_screen_in_both_languages(tmp_path):
    storage = SqliteStorage(str(tmp_path / "club.db"))
    with ThreadServer(storage) as server, sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        pages = {size: browser.new_page(viewport=SIZES[size], is_mobile=size == "phone", has_touch=size == "phone")
                 for size in SIZES}
        asked: list[str] = []
        for page in pages.values():
            page.on("dialog", lambda d: (asked.append(d.message), d.accept()))
        director, phone = pages["laptop"], pages["phone"]
        for page in pages.values():
            page.goto(f"{server.url}/director?lang=zh")
            page.fill("input[name=pin]", PIN)
            page.click("button[type=submit]")

        # The director creates the event, registers six players, draws and starts the clock.
        director.fill("input[name=name]", EVENT)
        director.fill("input[name=seed]", "42")
        director.click("#do-create")
        assert director.inner_text("#notice") == f"已新建「{EVENT}」，抽签种子 42"
        director.fill("textarea[name=lines]", "\n".join(NAMES))
        director.click("#do-players")
        director.click("#do-next")
        assert director.inner_text("#notice") == "已抽签：淘汰赛 第 1 节"
        director.click("#do-start")
        state = server.app.extensions["club"].live.state
        key, seating = state.current.key, state.current.seating
        name = {pl.player_no: pl.name for pl in state.players.values()}
        seats = {t: tuple(name[p] for p in seating[t]) for t in seating}

        # Two boxes report. Table 1: its landlord wins hand 1, hand 2 is in play when time is
        # called. Table 2: a hand each way, so its three players are level: a tie.
        one, two = Box(storage, 1, key, seats[1]), Box(storage, 2, key, seats[2])
        start = state.current.clock.start
        one.deal("won", at=time.time())
        one.deal("open", at=time.time())
        two.deal("won", at=time.time())
        two.deal("lost", at=time.time())
        director.goto(f"{server.url}/director")
        director.click("#do-end")
        assert asked and "结束淘汰赛 第 1 节？" in asked[-1]
        assert director.inner_text("#notice").startswith("淘汰赛 第 1 节 已结束")
        director.click("#do-publish")  # refused: no table is decided yet
        assert director.inner_text("#notice").startswith("还不能公布：第 1 桌：时间到，打完手上这局")

        def every_screen(lang: str, tag: str) -> dict[int, tuple[str, str]]:
            """The hall, the director and a player of each table, checked on both screens; what
            they say of each table (all three must agree)."""
            said: dict[int, tuple[str, str]] = {}
            for size, page in pages.items():
                page.goto(f"{server.url}/director?lang={lang}")
                check_screen(page, lang, size, "director")
                director_said = table_lines(page, "#seating tr[data-table]")
                shot(page, f"club-director-{tag}-{size}-{lang}.png")
                page.goto(f"{server.url}/?lang={lang}")
                page.wait_for_function("document.querySelectorAll('.tcard .hands').length === 2")
                # The hall's picture is rebuilt within a quarter of a second of a change and
                # pushed to the screen: give it a moment to show the boxes' last posts.
                deadline = time.time() + 5.0
                while (hall := table_lines(page, ".tcard")) != director_said and time.time() < deadline:
                    page.wait_for_timeout(200)
                check_screen(page, lang, size, "hall")
                assert hall == director_said, f"director and hall disagree ({lang})"
                shot(page, f"club-hall-{tag}-{size}-{lang}.png")
                for table in (1, 2):
                    code = next(pl.code for pl in state.players.values() if pl.name == seats[table][0])
                    page.goto(f"{server.url}/p/{code}?lang={lang}")
                    check_screen(page, lang, size, "player")
                    assert table_lines(page, "#my-tables tr[data-table]") == {table: hall[table]}
                    if table == 1:
                        shot(page, f"club-player-{tag}-{size}-{lang}.png")
                said = hall
            return said

        said = every_screen("zh", "time")
        assert said[1] == ("已完成 1 局 · 第 2 局进行中", "时间到，打完手上这局")
        assert said[2] == ("已完成 2 局", "同分：加赛一局")
        said = every_screen("en", "time")
        assert said[1] == ("1 hand finished · hand 2 in play", "Time is up: the hand in play is finished first")

        # Table 1's hand in play is won by its landlord; table 2 plays its extra hand.
        one.finish("won", at=time.time())
        two.deal("open", at=time.time(), landlord=2)
        two.finish("won", at=time.time(), landlord=2)
        said = every_screen("zh", "decided")
        assert said[1] == ("已完成 2 局", f"时间到 · 胜者 {seats[1][0]}")
        assert said[2] == ("已完成 3 局", f"时间到 · 胜者 {seats[2][2]}")
        every_screen("en", "decided")

        # The round robin's last period with a tie at the cut (third place goes on): the
        # director holds the play-off and records it, then publishes.
        storage.act(state.tournament.id, "session", {"key": f"{state.tournament.id}/round_robin-3", "stage": "round_robin",
                                                     "number": 3, "salt": "round_robin-3",
                                                     "seating": {"1": [1, 2, 3], "2": [4, 5, 6]}}, now=start + 4000)
        rr = f"{state.tournament.id}/round_robin-3"
        storage.act(state.tournament.id, "start", {"session": rr, "at": start + 4000}, now=start + 4000)
        for table, players in ((1, (1, 2, 3)), (2, (4, 5, 6))):
            box = Box(storage, table, rr, tuple(name[p] for p in players))
            box.deal("won", at=start + 4010)
            box.deal("lost", at=start + 4020, landlord=1)
        end_session(storage, state.tournament.id, rr, at=start + 4100)
        director.goto(f"{server.url}/director?lang=zh")
        director.click("#do-publish")
        assert director.inner_text("#notice").startswith("还不能公布：") and "还没有加赛" in director.inner_text("#notice")
        tied = [o.get_attribute("value") for o in director.query_selector_all("#playoff select[name=order] >> nth=0 >> option")
                if o.get_attribute("value")]
        for i, select in enumerate(director.query_selector_all("#playoff select[name=order]")):
            select.select_option(tied[i])
        director.click("#do-playoff")
        assert director.inner_text("#notice").startswith("已登记加赛名次：")
        for lang in ("zh", "en"):
            for size, page in pages.items():
                page.goto(f"{server.url}/?lang={lang}")
                page.wait_for_function("document.querySelectorAll('#leaderboard tbody tr').length === 6")
                check_screen(page, lang, size, "hall")
                # Each table: +6, -6, 0 for its seats 1, 2, 3; the two on 0 played off for third.
                rows = [[td.inner_text() for td in tr.query_selector_all("td")]
                        for tr in page.query_selector_all("#leaderboard tbody tr")]
                assert [r[0] for r in rows] == ["1=", "1=", "3", "4", "5=", "5="]
                assert rows[2][1] == name[int(tied[0])] and rows[3][1] == name[int(tied[1])]
                shot(page, f"club-hall-playoff-{size}-{lang}.png")
                code = state.players[int(tied[0])].code
                page.goto(f"{server.url}/p/{code}?lang={lang}")
                assert "3 / 6" in page.inner_text("#my-standing")
        director.goto(f"{server.url}/director?lang=zh")
        director.click("#do-publish")
        assert director.inner_text("#notice") == "成绩已公布" and f"公布{EVENT}的成绩？" in asked[-1]

        # The printed results: white to the paper's edge, in one language.
        for lang in ("zh", "en"):
            phone.goto(f"{server.url}/export/results?lang={lang}")
            check_screen(phone, lang, "phone", "results")
            phone.emulate_media(media="print")
            paper = phone.evaluate("[getComputedStyle(document.documentElement).backgroundColor,"
                                   " getComputedStyle(document.documentElement).colorScheme]")
            assert paper == ["rgb(255, 255, 255)", "light"]
            phone.emulate_media(media="screen")
            assert not dark_fills(phone.pdf(format="A4", print_background=True, prefer_css_page_size=True))
        browser.close()
    storage.close()
