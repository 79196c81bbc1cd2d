"""The site's words and small things a club referee meets: bids as 叫分, presets and scoring
formats named in the reader's language, flashes in words, replays in words with sorted cards,
the undo confirmation naming what it undoes, the favicon, a new match confirmed mid-match."""

from __future__ import annotations

import html
import re

from engine.events import Announce, Bid, Correction, Deal, Play
from engine.hand import Hand
from engine.rules import PRESETS, SCORING_FORMATS
from tests.kit.table_site import PLAYERS, act, card_tuple, new_match
from webui import i18n
from webui.view import corrected_indexes


def _page(c, path, **query):
    return html.unescape(c.get(path, query_string=query).get_data(as_text=True))



def test_point_bids_read_as_jiao_fen_with_each_value_in_words(referee, store):
    mid = new_match(store)
    store.append(mid, 1, Deal(counts=(17, 17, 17)))
    page = _page(referee, "/referee")
    buttons = re.findall(r'<button type="submit" class="bid-option">([^<]*)</button>', page)
    assert sorted(buttons) == sorted(["叫1分", "叫2分", "叫3分", "不叫"])
    assert "叫牌" not in page and "<h3>叫分" in page
    english = _page(referee, "/referee", lang="en")
    assert sorted(re.findall(r'class="bid-option">([^<]*)<', english)) == ["Bid 1", "Bid 2", "Bid 3", "No bid"]
    store.append(mid, 1, Bid(0, "bid", 2))
    timeline = _page(referee, "/referee", lang="zh").split('id="timeline"')[1]
    assert '<span class="what">叫2分</span>' in timeline


def test_rules_presets_and_scoring_formats_are_named_in_chinese_on_the_chinese_page(referee):
    page = _page(referee, "/referee")
    presets = dict(re.findall(r'<option value="(\w+)">([^<]*)</option>', page.split('name="preset"')[1].split("</select>")[0]))
    assert set(presets) == set(PRESETS)
    assert presets["classic"].startswith("经典")
    for name, words in presets.items():
        assert words == i18n.t(f"preset_{name}", "zh") and not re.search("[A-Za-z]{3}", words.replace("QQ", ""))
    scorings = re.findall(r'<option value="(\w*)">([^<]*)</option>', page.split('name="scoring"')[1].split("</select>")[0])
    assert [v for v, _ in scorings] == ["", *SCORING_FORMATS]
    assert all(re.search("[\u4e00-\u9fff]", words) for _, words in scorings)
    english = _page(referee, "/referee", lang="en")
    assert '<option value="classic">Classic three-player game</option>' in english


def test_the_history_names_the_preset_in_the_readers_language(client, store):
    new_match(store, "chips")
    assert "筹码赛" in _page(client, "/history")
    assert "Chips: 20 each" in _page(client, "/history", lang="en")


def test_a_flash_says_what_was_done_in_words_not_the_action_name(referee, store):
    response = act(referee, "start_match", players="\n".join(PLAYERS), preset="classic")
    mid = store.matches()[-1].id
    page = _page(referee, response.headers["Location"])
    assert f"已开始新比赛 #{mid}" in page and "start_match" not in page.split("<main>")[1].split("<form")[0]
    act(referee, "new_hand")
    assert "已发新一局" in _page(referee, "/referee")
    act(referee, "bid", seat=0, bid="3")
    referee.get("/referee", query_string={"lang": "en"})  # the language is remembered for the next flash
    act(referee, "play", seat=0, cards="3s")
    english = _page(referee, "/referee", lang="en")
    assert "Play recorded" in english and "play (#" not in english


def test_an_announcement_is_in_words_in_the_replay(client, store):
    mid = new_match(store)
    for e in (Deal(counts=(17, 3, 17)), Bid(0, "bid", 3), Play(0, card_tuple("3s")), Play(1, card_tuple("4s")), Announce(1)):
        store.append(mid, 1, e)
    steps = _page(client, f"/history/{mid}/1").split('class="steps"')[1]
    assert f"{PLAYERS[1]} 报牌" in steps and "announce" not in steps
    english = _page(client, f"/history/{mid}/1", lang="en").split('class="steps"')[1]
    assert f"{PLAYERS[1]} announces" in english


def test_replay_cards_are_sorted_and_jokers_named_in_the_readers_language(client, store):
    mid = new_match(store)
    for e in (Deal(counts=(17, 17, 17)), Bid(0, "bid", 3), Play(0, card_tuple("7s 3h 5d 4c 6h")),
              Play(1, card_tuple("RJ BJ"))):
        store.append(mid, 1, e)
    steps = _page(client, f"/history/{mid}/1").split('class="steps"')[1]
    titles = re.findall(r'title="([^"]+)"', steps)
    assert titles[:5] == ["3h", "4c", "5d", "6h", "7s"]
    assert titles[5:7] == ["BJ", "RJ"]
    assert "小王" in steps and "大王" in steps
    english = _page(client, f"/history/{mid}/1", lang="en").split('class="steps"')[1]
    assert "小王" not in english and "大王" not in english
    faces = re.findall(r'title="(BJ|RJ)">([^<]*)<', english)
    assert faces == [("BJ", "BJ"), ("RJ", "RJ")]


def test_the_undo_confirmation_names_the_event_it_undoes(referee, store):
    mid = new_match(store)
    for e in (Deal(counts=(17, 17, 17)), Bid(0, "bid", 3), Play(0, card_tuple("3s 3h"))):
        store.append(mid, 1, e)
    undo = re.search(r'<button[^>]*id="undo"[^>]*>', _page(referee, "/referee")).group(0)
    assert f'data-confirm="撤销：{PLAYERS[0]} 出 3♠ 3♥"' in undo
    english = re.search(r'<button[^>]*id="undo"[^>]*>', _page(referee, "/referee", lang="en")).group(0)
    assert f'data-confirm="Undo: {PLAYERS[0]} plays 3♠ 3♥"' in english


def test_the_favicon_is_served_and_linked(client):
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.mimetype == "image/svg+xml" and b"<svg" in icon.data
    page = _page(client, "/")
    link = re.search(r'<link rel="icon"[^>]*href="([^"]+)"', page)
    assert link and client.get(link.group(1)).status_code == 200


def test_starting_a_match_while_one_is_in_progress_says_so_and_asks_first(referee, store):
    def start_button(page):
        return re.search(r'<button[^>]*id="start-match"[^>]*>', page.split('id="start-form"')[1]).group(0)

    page = _page(referee, "/referee")
    assert "data-confirm=" not in start_button(page) and 'id="start-running"' not in page
    mid = new_match(store)
    page = _page(referee, "/referee")
    assert f'data-confirm="{i18n.t("new_match_confirm", "zh")}"' in start_button(page)
    assert 'id="start-running"' in page
    act(referee, "end_match", match=mid)
    page = _page(referee, "/referee")
    assert "data-confirm=" not in start_button(page) and 'id="start-running"' not in page


def test_corrected_events_are_found_by_what_the_correction_put_in_the_hand():
    events = [Deal(counts=(17, 17, 17)), Bid(0, "bid", 3), Play(0, card_tuple("3s")), Play(1, card_tuple("4s"))]
    hand = Hand.from_events("classic", events)
    assert corrected_indexes(hand) == set()
    hand.apply(Correction("replace", 2, Play(0, card_tuple("3h"))))
    hand.apply(Correction("insert", 4, Play(2, card_tuple("5s"))))
    assert corrected_indexes(hand) == {2, 4}
    hand.apply(Correction("undo"))
    assert corrected_indexes(hand) == {2}
