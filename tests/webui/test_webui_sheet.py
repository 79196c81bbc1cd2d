"""The printable score sheet (/history/<id>/sheet) and the history's sums, winners and hand counts.

The match is played through the referee's API (with the PIN), as at a real table: a hand with a
rocket, a bomb and a spring; a concession; an abandoned hand; a dropped-card penalty; a hand a
farmer wins with a bomb and an anti-spring, with a penalty entered inside it by the camera's
referee (``store.append``, as the tracker writes).
"""

from __future__ import annotations

import re
import time
from html.parser import HTMLParser

import pytest

from engine.events import Penalty
from tests.kit.table_site import PIN, PLAYERS, LiveSite, new_match, play_hands
from tracker.state import TableState

#: 2026-12-03 19:30 on this machine's clock: the sheet prints the local time.
STARTED = time.mktime((2026, 12, 3, 19, 30, 0, 0, 0, -1))


def act(client, action: str, **fields) -> None:
    response = client.post(f"/api/referee/{action}", json=fields, headers={"X-Referee-PIN": PIN})
    assert response.status_code == 200, (action, fields, response.get_json())


def plays(client, *steps: str) -> None:
    """``"0:3s 3h"`` plays cards for seat 0, ``"1:pass"`` passes for seat 1."""
    for step in steps:
        seat, what = step.split(":", 1)
        if what == "pass":
            act(client, "pass", seat=int(seat))
        else:
            act(client, "play", seat=int(seat), cards=what)


def play_the_match(client, store) -> int:
    """Four hands and two penalties; the match stays open."""
    mid = store.create_match(PLAYERS, "classic", meta={"name": "周五夜赛", "started": STARTED})
    # Hand 1: 张三 bids 3, plays the rocket, a bomb, then goes out with no farmer card: spring, x8.
    act(client, "new_hand")
    act(client, "bid", seat=0, bid="3")
    plays(client, "0:BJ RJ", "1:pass", "2:pass", "0:3s 3h 3d 3c", "1:pass", "2:pass",
          "0:4s 5s 6s 7s 8s 9s 10s Js Qs Ks As", "1:pass", "2:pass", "0:2s 2h 2d")
    # Hand 2: 李四 bids 2 and concedes.
    act(client, "new_hand")
    act(client, "bid", seat=1, bid="2")
    act(client, "bid", seat=2, bid="pass")
    act(client, "bid", seat=0, bid="pass")
    plays(client, "1:3s", "2:4s", "0:pass")
    act(client, "concede", seat=1)
    # Hand 3: 王五 is landlord at 1; the hand is abandoned before the first play.
    act(client, "new_hand")
    act(client, "bid", seat=2, bid="1")
    act(client, "bid", seat=0, bid="pass")
    act(client, "bid", seat=1, bid="pass")
    act(client, "abandon", reason="misdeal")
    # Between hands: 李四 drops a card.
    act(client, "penalty", seat=1, points=2, reason="掉牌")
    # Hand 4: 张三 bids 1, leads once; 李四 goes out with a straight and a bomb: anti-spring, x4.
    act(client, "new_hand")
    act(client, "bid", seat=0, bid="1")
    act(client, "bid", seat=1, bid="pass")
    act(client, "bid", seat=2, bid="pass")
    plays(client, "0:3d", "1:5d", "2:pass", "0:pass", "1:3c 4c 5c 6c 7c 8c 9c 10c Jc Qc Kc Ac", "2:pass", "0:pass")
    store.append(mid, 4, Penalty(seat=2, points=1, reason="说话"), source="referee")
    plays(client, "1:2c 2d 2h 2s")
    return mid


@pytest.fixture
def played(client, store) -> int:
    return play_the_match(client, store)


#: Elements with no end tag.
VOID = {"br", "hr", "img", "input", "link", "meta", "source", "col", "wbr"}


class Rows(HTMLParser):
    """The text of each row of the table with ``id`` (cells in order), and the text of elements by id."""

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id, self.depth, self.cell = table_id, 0, None
        self.rows: list[list[str]] = []
        self.ids: dict[str, str] = {}
        self._open: list[tuple[str, str | None, list[str]]] = []
        self.row_classes: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and (self.depth or a.get("id") == self.table_id):
            self.depth += 1
        if self.depth and tag == "tr":
            self.rows.append([])
            self.row_classes.append(a.get("class") or "")
        if self.depth and tag in ("td", "th"):
            self.cell = []
        if tag not in VOID:
            self._open.append((tag, a.get("id"), []))

    def handle_endtag(self, tag):
        if self.depth and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(" ".join("".join(self.cell).split()))
            self.cell = None
        if tag == "table" and self.depth:
            self.depth -= 1
        while self._open and any(t == tag for t, _, _ in self._open):
            closed, name, parts = self._open.pop()
            if name:
                self.ids[name] = " ".join("".join(parts).split())
            if closed == tag:
                break

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)
        for _, name, parts in self._open:
            if name:
                parts.append(data)


def parsed(client, path: str, table_id: str) -> Rows:
    response = client.get(path)
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    rows = Rows(table_id)
    rows.feed(response.get_data(as_text=True))
    return rows


def number(cell: str) -> int:
    return int(cell) if cell not in ("", "–") else 0


def sheet_points(rows: Rows, players: int = 3) -> tuple[list[list[int]], list[int]]:
    """The point cells of every body row, and the totals row."""
    body = [r for r, c in zip(rows.rows, rows.row_classes, strict=True) if c.endswith("-row") and c != "totals-row"]
    totals = next(r for r, c in zip(rows.rows, rows.row_classes, strict=True) if c == "totals-row")
    return [[number(x) for x in r[-players:]] for r in body], [int(x) for x in totals[-players:]]


def by_hand(rows: Rows) -> dict[str, list[str]]:
    return {r[0]: r for r, c in zip(rows.rows, rows.row_classes, strict=True) if c == "hand-row"}


def penalty_rows(rows: Rows) -> list[list[str]]:
    return [r for r, c in zip(rows.rows, rows.row_classes, strict=True) if c == "penalty-row"]


# ---------------------------------------------------------------------- the sheet
def test_the_sheet_in_chinese_gives_each_hand_its_bid_doubles_ending_and_points(client, store, played):
    rows = parsed(client, f"/history/{played}/sheet?lang=zh", "sheet-table-rows")
    hands = by_hand(rows)
    assert hands["1"][1:6] == ["3分", "张三", "张三 王炸 ×2，张三 炸弹 ×2，春天 ×2", "×8", "打完 · 地主胜"]
    assert hands["1"][6:] == ["+48", "-24", "-24"]
    assert hands["2"][1:] == ["2分", "李四", "–", "×1", "李四认输 · 农民胜", "+2", "-4", "+2"]
    assert hands["3"][1:] == ["1分", "王五", "–", "×1", "作废", "0", "0", "0"]
    assert hands["4"][1:] == ["1分", "张三", "李四 炸弹 ×2，反春 ×2", "×4", "打完 · 农民胜", "-8", "+4", "+4"]
    assert penalty_rows(rows) == [["", "罚分 · 王五 · 说话 · 第 4 局中", "", "", "-1"],
                                  ["", "罚分 · 李四 · 掉牌", "", "-2", ""]]
    body, totals = sheet_points(rows)
    assert totals == [42, -26, -19]
    assert [sum(col) for col in zip(*body, strict=True)] == totals
    assert totals == TableState.load(store, played).match.totals()
    assert rows.ids["sheet-date"] == "2026-12-03 19:30"
    assert "周五夜赛" in rows.ids["sheet-table"]
    assert rows.ids["sheet-seats"] == "座位：1 号位 张三 2 号位 李四 3 号位 王五"
    assert rows.ids["sheet-status"].startswith("进行中") and "已完成 3 局" in rows.ids["sheet-status"]
    assert rows.ids["sheet-winner"] == "进行中"


def test_the_sheet_in_english(client, played):
    rows = parsed(client, f"/history/{played}/sheet?lang=en", "sheet-table-rows")
    hands = by_hand(rows)
    assert hands["1"][1:6] == ["bid 3", "张三", "张三 rocket ×2, 张三 bomb ×2, spring ×2", "×8",
                               "played out · landlord wins"]
    assert hands["2"][5] == "李四 conceded · farmers win"
    assert hands["3"][5] == "abandoned"
    assert hands["4"][3] == "李四 bomb ×2, anti-spring ×2"
    assert penalty_rows(rows)[1][1] == "Penalty · 李四 · 掉牌"
    assert rows.ids["sheet-seats"] == "Seats: seat 1 张三 seat 2 李四 seat 3 王五"
    page = client.get(f"/history/{played}/sheet?lang=en").get_data(as_text=True)
    assert "Dou Dizhu score sheet" in page and "Referee&#39;s signature" in page and "Totals" in page
    assert not re.search(r"[打罚叫炸春]", "".join("".join(r[1:6]) for r in by_hand(rows).values()))


def test_the_sheet_names_the_winner_once_the_match_is_over(client, played):
    act(client, "end_match", match=played)
    rows = parsed(client, f"/history/{played}/sheet?lang=zh", "sheet-table-rows")
    assert rows.ids["sheet-winner"] == "张三"
    assert rows.ids["sheet-status"].startswith("比赛结束")
    page = client.get(f"/history/{played}/sheet?lang=zh").get_data(as_text=True)
    assert "裁判签名：" in page and "@page" not in page  # the print rules live in sheet.css
    assert 'href="/static/sheet.css"' in page


def test_grab_rules_show_the_grabs_as_the_bid_and_each_grab_as_a_double(client, store):
    mid = store.create_match(PLAYERS, "grab", meta={"started": STARTED})
    act(client, "new_hand", match=mid)
    act(client, "bid", match=mid, seat=0, bid="call")
    act(client, "bid", match=mid, seat=1, bid="grab")
    act(client, "bid", match=mid, seat=2, bid="grab")
    act(client, "concede", match=mid, seat=0)
    hand = by_hand(parsed(client, f"/history/{mid}/sheet?lang=zh", "sheet-table-rows"))["1"]
    assert hand[1:] == ["抢地主 2 次", "王五", "抢地主 ×2，抢地主 ×2", "×4", "张三认输 · 地主胜", "-4", "-4", "+8"]


def test_chips_start_in_a_row_of_their_own_so_the_rows_add_up(client, store):
    mid = store.create_match(PLAYERS, "chips", meta={"started": STARTED})
    act(client, "new_hand", match=mid)
    act(client, "bid", match=mid, seat=0, bid="3")
    act(client, "concede", match=mid, seat=0)
    act(client, "penalty", match=mid, seat=2, points=2, reason="掉牌")
    rows = parsed(client, f"/history/{mid}/sheet?lang=zh", "sheet-table-rows")
    assert rows.rows[1][1] == "起始筹码"
    body, totals = sheet_points(rows)
    assert totals == [16, 22, 20] and [sum(col) for col in zip(*body, strict=True)] == totals


def test_an_unfinished_hand_is_listed_without_points(client, store, played):
    act(client, "new_hand", match=played)
    act(client, "bid", match=played, seat=1, bid="2")
    rows = parsed(client, f"/history/{played}/sheet?lang=zh", "sheet-table-rows")
    assert by_hand(rows)["5"][5:] == ["进行中", "–", "–", "–"]
    body, totals = sheet_points(rows)
    assert [sum(col) for col in zip(*body, strict=True)] == totals == [42, -26, -19]


def test_a_missing_match_is_a_404_in_the_pages_language_and_a_bad_id_a_400(client, played):
    missing = client.get("/history/999/sheet?lang=zh")
    assert missing.status_code == 404 and "没有第 999 场比赛" in missing.get_data(as_text=True)
    english = client.get("/history/999/sheet?lang=en")
    assert english.status_code == 404 and "no match 999" in english.get_data(as_text=True)
    for raw in ("abc", "0", "01", str(2**63)):
        assert client.get(f"/history/{raw}/sheet").status_code == 400, raw


def test_the_match_page_links_the_sheet(client, played):
    zh = client.get(f"/history/{played}?lang=zh").get_data(as_text=True)
    assert f'href="/history/{played}/sheet"' in zh and "打印记分表" in zh
    assert "Print score sheet" in client.get(f"/history/{played}?lang=en").get_data(as_text=True)


def test_the_print_css_is_a4_and_hides_the_nav(client):
    css = client.get("/static/sheet.css").get_data(as_text=True)
    assert re.search(r"@page\s*{[^}]*size:\s*A4", css)
    printing = css[css.index("@media print"):]
    assert re.search(r"nav\.top[^{]*{\s*display:\s*none", printing)
    assert re.search(r"thead\s*{\s*display:\s*table-header-group", printing)


# ---------------------------------------------------------------------- the history pages
def test_history_rows_with_penalties_add_up_to_the_total(client, played):
    rows = parsed(client, f"/history/{played}?lang=zh", "match-sheet")
    body = [[number(x) for x in r[-4:-1]] for r, c in zip(rows.rows, rows.row_classes, strict=True)
            if c in ("hand-row", "penalty-row")]
    totals = [int(x) for x in rows.rows[-1][1:4]]
    assert totals == [42, -26, -19]
    assert [sum(col) for col in zip(*body, strict=True)] == totals
    assert ["", "罚分 · 李四 · 掉牌", "", "-2", "", ""] in penalty_rows(rows)


def test_history_shows_no_winner_while_the_match_is_played(client, played):
    page = client.get(f"/history/{played}?lang=zh").get_data(as_text=True)
    assert "进行中" in page and 'id="winners"' not in page and "胜者" not in page
    listing = client.get("/history?lang=zh").get_data(as_text=True)
    assert "进行中" in listing and "胜者" not in listing
    act(client, "end_match", match=played)
    page = client.get(f"/history/{played}?lang=zh").get_data(as_text=True)
    assert re.search(r'胜者: <span id="winners">张三</span>', page)
    listing = client.get("/history?lang=zh").get_data(as_text=True)
    assert "胜者: 张三" in listing and "进行中" not in listing


def test_an_abandoned_hand_is_not_counted_among_finished_hands(client, played):
    page = parsed(client, f"/history/{played}?lang=zh", "match-sheet")
    assert "已完成 3 局" in page.ids["match-status"]  # hands 1, 2 and 4; hand 3 was abandoned
    listing = client.get("/history?lang=en").get_data(as_text=True)
    assert "3 hands" in listing and "4 hands" not in listing


# ---------------------------------------------------------------------- in a browser, printed
@pytest.fixture(scope="module")
def printed():
    """A live site with one played match, and a Chromium to print its sheet: (site, match id, browser)."""
    from playwright import sync_api

    from tests.kit.browser import ARGS, CHROMIUM, require_chromium

    require_chromium()
    with LiveSite() as site:
        mid = play_the_match(site.app.test_client(), site.store)
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                yield site, mid, browser
            finally:
                browser.close()


@pytest.mark.browser
def test_printed_the_sheet_hides_the_nav_and_shows_the_table(printed):
    site, mid, browser = printed
    page = browser.new_page()
    page.goto(f"{site.url}/history/{mid}/sheet?lang=zh")
    assert page.locator("nav.top").is_visible()  # on screen the site's nav stays
    page.emulate_media(media="print")
    assert page.locator("nav.top").evaluate("e => getComputedStyle(e).display") == "none"
    assert page.locator("#print-button").is_hidden()
    assert page.locator("#sheet-table-rows").is_visible()
    assert page.locator("tr.totals-row").is_visible()
    pdf = page.pdf(format="A4", prefer_css_page_size=True)
    assert pdf.startswith(b"%PDF")
    assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 1  # one match fits one page
    box = re.search(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", pdf)
    assert box and (round(float(box[1])), round(float(box[2]))) == (595, 842)  # A4 in points
    phone = browser.new_page(viewport={"width": 390, "height": 844})
    phone.goto(f"{site.url}/history/{mid}/sheet?lang=en")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways page scroll
    long = new_match(site.store)
    play_hands(site.store, long, list(range(1, 46)))
    page.goto(f"{site.url}/history/{long}/sheet?lang=en")
    pages = len(re.findall(rb"/Type\s*/Page[^s]", page.pdf(format="A4", prefer_css_page_size=True)))
    assert pages >= 2  # 45 hands run over pages (the column heads repeat: thead, see the CSS test)


def _fill_colours(pdf: bytes) -> set[tuple[float, ...]]:
    """Every fill colour (``r g b rg``) the PDF's page streams paint with."""
    import zlib

    colours = set()
    for raw in re.findall(rb"stream\r?\n(.*?)\r?\nendstream", pdf, re.S):
        try:
            content = zlib.decompress(raw)
        except zlib.error:
            continue  # a font or an image, not a page's drawing
        colours |= {tuple(float(v) for v in m.split()) for m in re.findall(rb"([\d.]+ [\d.]+ [\d.]+) rg", content)}
    return colours


@pytest.mark.browser
def test_printed_with_backgrounds_the_sheet_has_no_dark_frame_in_either_language(printed):
    """The site's dark colour scheme must not reach the paper: with backgrounds printed, nothing
    is filled darker than grey but the ink (black text and rules, drawn as 0 0 0)."""
    site, mid, browser = printed
    page = browser.new_page()
    for lang in ("zh", "en"):
        page.goto(f"{site.url}/history/{mid}/sheet?lang={lang}")
        colours = _fill_colours(page.pdf(format="A4", prefer_css_page_size=True, print_background=True))
        dark = {c for c in colours if max(c) < 0.3 and c != (0.0, 0.0, 0.0)}
        assert (1.0, 1.0, 1.0) in colours and not dark, (lang, dark)
