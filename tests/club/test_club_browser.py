"""The director's pages and the hall screen in headless Chromium (Debian's, never Playwright's)."""

from __future__ import annotations

import shutil

import pytest
from playwright import sync_api

from club.sqlite import SqliteStorage
from club.storage import BoxEvent, BoxMatch
from tests.kit.club_server import PIN, ThreadServer, hand_payloads

pytestmark = pytest.mark.browser
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]

if not shutil.which(CHROMIUM):
    raise RuntimeError(f"{CHROMIUM} is missing: run deploy/system-deps.sh (apt-get install chromium fonts-noto-cjk)")


def test_the_director_draws_and_starts_the_clock_and_the_hall_shows_every_table(tmp_path):
    storage = SqliteStorage(str(tmp_path / "club.db"))
    with ThreadServer(storage) as server, sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"{server.url}/director")
        page.fill("input[name=pin]", "000000")
        page.click("button[type=submit]")
        assert "密码不对" in page.inner_text("#login-error")
        page.fill("input[name=pin]", PIN)
        page.click("button[type=submit]")
        page.fill("input[name=name]", "周五俱乐部赛")
        page.fill("input[name=seed]", "4")
        page.click("#do-create")
        assert page.inner_text("#event-title") == "周五俱乐部赛"
        page.fill("textarea[name=lines]", "\n".join(f"选手{i}, C{i:03d}" for i in range(1, 7)))
        page.click("#do-players")
        page.click("#do-next")
        assert page.inner_text("#notice") == "已抽签：淘汰赛 第 1 节"
        page.click("#do-start")
        assert page.inner_text("#clock-state") == "计时中"

        # Table 1's box reports a hand; the hall screen shows both tables, the hand and the clock.
        session = server.app.extensions["club"].live.state.current
        storage.register(1, "box-0000aaaa", "hash")
        payloads = hand_payloads(21)
        events = [BoxEvent(1, "box-0000aaaa", i + 1, i, 1, 1, 1000.0 + i, pl["kind"], "camera", pl)
                  for i, pl in enumerate(payloads[:8])]
        storage.ingest(1, "box-0000aaaa", events, [BoxMatch(1, "box-0000aaaa", 1, ("a", "b", "c"),
                                                             {"name": "chips", "changes": {}},
                                                             {"club_session": session.key}, 999.0)])
        hall = browser.new_page(viewport={"width": 1920, "height": 1080})
        hall.goto(server.url + "/")
        hall.wait_for_selector(".tcard[data-table='2']")
        hall.wait_for_function("document.querySelector(\".tcard[data-table='1']\").dataset.hand === '1'")
        assert "第 1 局进行中" in hall.inner_text(".tcard[data-table='1']")
        assert hall.locator("#leaderboard tbody tr").count() == 6
        assert hall.inner_text("#clock").startswith(("44:", "45:"))
        hall.click("#lang-switch")
        hall.wait_for_function("document.querySelector(\".tcard[data-table='1']\") !== null")
        hall.wait_for_function("document.documentElement.lang === 'en' && document.querySelector(\".tcard[data-table='1']\") !== null")
        assert "hand 1 in play" in hall.inner_text(".tcard[data-table='1']")

        # A player's own page (the QR code on the table card) and the director's, on a phone:
        # nothing wider than the screen.
        phone = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        first = min(server.app.extensions["club"].live.state.players.values(), key=lambda pl: pl.player_no)
        phone.goto(f"{server.url}/p/{first.code}?lang=zh")
        assert first.name in phone.inner_text("body") and "我的桌次" in phone.inner_text("body")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        phone.goto(f"{server.url}/director/login?lang=en")  # the switch back, 中文, is one line, not a column
        switch = phone.locator("#lang-switch")
        assert switch.inner_text() == "中文"
        assert switch.bounding_box()["height"] < 1.5 * phone.evaluate(
            "parseFloat(getComputedStyle(document.getElementById('lang-switch')).lineHeight) || 24")
        phone.goto(f"{server.url}/director")
        phone.fill("input[name=pin]", PIN)
        phone.click("button[type=submit]")
        assert phone.inner_text("#event-title") == "周五俱乐部赛"
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        browser.close()
    storage.close()


def test_a_hall_screen_refused_a_stream_polls_and_still_follows_the_tables(tmp_path):
    from club.tournament import fold, next_session

    storage = SqliteStorage(str(tmp_path / "club.db"))
    tid = storage.create_tournament("t", "seed004", {}, seed=2)
    for p in range(1, 7):
        storage.add_player(tid, f"P{p}", "", f"code-{p}")
    data = next_session(fold(storage.tournament(tid), storage.players(tid), storage.actions(tid)), {}, 0.0)
    storage.act(tid, "session", data)
    storage.register(1, "box-0000aaaa", "hash")
    payloads = hand_payloads(22)
    events = [BoxEvent(1, "box-0000aaaa", i + 1, i, 1, 1, 1000.0 + i, pl["kind"], "camera", pl)
              for i, pl in enumerate(payloads)]
    info = BoxMatch(1, "box-0000aaaa", 1, ("a", "b", "c"), {"name": "chips", "changes": {}},
                    {"club_session": data["key"]}, 999.0)
    storage.ingest(1, "box-0000aaaa", events[:3], [info])
    with ThreadServer(storage, HALL_STREAMS=0) as server, sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        hall = browser.new_page(viewport={"width": 1920, "height": 1080})
        asked: list[str] = []
        hall.on("response", lambda r: asked.append(f"{r.status} {r.url.split('/', 3)[-1]}"))
        hall.goto(server.url + "/")
        hall.wait_for_function("document.querySelector(\".tcard[data-table='1']\")?.dataset.acked === '3'")
        storage.ingest(1, "box-0000aaaa", events[3:9], [])
        hall.wait_for_function("document.querySelector(\".tcard[data-table='1']\").dataset.acked === '9'",
                               timeout=10_000)
        assert "503 api/hall/stream" in asked and asked.count("200 api/hall") >= 2  # refused, then polled
        browser.close()
    storage.close()
