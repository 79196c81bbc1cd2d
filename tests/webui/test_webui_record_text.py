"""Downloads in the page's language: the text and CSV records, and a download never switching the site."""

from __future__ import annotations

import csv
import io

import pytest

from tests.kit.table_site import new_match, play_hands


@pytest.fixture
def played(store):
    mid = new_match(store)
    play_hands(store, mid, [1, 2, 3])
    return mid


def _page_lang(client, path: str = "/history") -> str:
    page = client.get(path).get_data(as_text=True)
    return "zh" if '<html lang="zh-CN">' in page else "en" if '<html lang="en">' in page else "?"


@pytest.mark.parametrize("path", ["/export/{mid}.txt?lang=en", "/export/{mid}/1.txt?lang=en&view=1",
                                  "/export/{mid}.csv?lang=en", "/api/state?lang=en"])
def test_a_download_in_english_leaves_the_site_in_chinese(client, played, path):
    response = client.get(path.format(mid=played))
    assert response.status_code == 200
    assert "lang=" not in response.headers.get("Set-Cookie", "")
    assert _page_lang(client) == "zh"


def test_the_language_switch_on_a_page_is_remembered(client, played):
    response = client.get("/history?lang=en")
    assert "lang=en" in response.headers.get("Set-Cookie", "")
    assert _page_lang(client) == "en"
    client.get(f"/export/{played}.txt?lang=zh")  # a Chinese download from the English site
    assert _page_lang(client) == "en"


@pytest.mark.parametrize(("lang", "word"), [("zh", "斗地主对局记录"), ("en", "Dou Dizhu hand record")])
def test_the_hand_text_link_carries_the_pages_language(client, played, lang, word):
    page = client.get(f"/history/{played}?lang={lang}").get_data(as_text=True)
    link = f"/export/{played}/1.txt?lang={lang}"
    assert link in page
    assert word in client.get(link).get_data(as_text=True)


def test_the_match_text_links_keep_their_own_language(client, played):
    page = client.get(f"/history/{played}?lang=en").get_data(as_text=True)
    assert f"/export/{played}.txt?lang=zh" in page and f"/export/{played}.txt?lang=en" in page


@pytest.mark.parametrize(("query", "outcomes", "total"), [
    ("", {"地主胜", "农民胜"}, "合计"), ("?lang=en", {"landlord won", "farmers won"}, "total")])
def test_the_csv_sheet_is_written_in_its_language(client, played, query, outcomes, total):
    response = client.get(f"/export/{played}.csv{query}")
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert {row[1] for row in rows[1:-1]} <= outcomes and rows[1][1] in outcomes
    assert rows[-1][0] == total
    assert "_won" not in response.get_data(as_text=True)


def test_the_text_record_prints_cards_and_times_for_a_reader(client, played):
    zh = client.get(f"/export/{played}/1.txt?lang=zh").get_data(as_text=True)
    en = client.get(f"/export/{played}/1.txt?lang=en").get_data(as_text=True)
    assert "♠" in zh or "♥" in zh or "♦" in zh or "♣" in zh
    for text in (zh, en):
        plays = [line for line in text.splitlines() if line.strip()[:3].strip(". ").isdigit()]
        assert plays and all(" BJ" not in line and " RJ" not in line for line in plays)
        # Every time reads mm:ss or HH:MM:SS, never minutes counted from 1970.
        for line in plays:
            if "[" in line:
                stamp = line.split("[", 1)[1].split("]", 1)[0]
                assert len(stamp.split(":")[0]) <= 2, line
