"""The replay's 复盘 / Analysis block: the turning points once the cards left are shown, solved in
the background as soon as they are (no one has to ask), a mark on the decisive mistake, a hint
before the cards are shown, a progress line while the solver runs, nothing while the hand is
played; the answer kept in the store (a restart shows it without solving again, a correction
solves it again), and the presets open-hand analysis does not apply to say why."""

from __future__ import annotations

import threading
import time

import pytest

import webui.analysis
from engine.cards import parse_cards
from engine.events import Concede, Correction, Deal, Landlord, Pass, Play, Shown
from engine.hand import Hand
from engine.rules import get_rules
from tests.kit.table_site import PIN, new_match
from tracker.store import EventStore
from webui import create_app
from webui.analysis import key_of


def C(text: str):
    return tuple(parse_cards(text))


#: The landlord (3 cards, all from the kitty) leads 5 instead of 33 and the first farmer goes out.
PLAYED = (Deal(counts=(0, 3, 3)), Landlord(0), Play(0, C("5s")), Play(1, C("10s")), Pass(2), Pass(0),
          Play(1, C("9s")), Pass(2), Pass(0), Play(1, C("4s")))


SHOWN = (Shown(0, C("3s 3h")), Shown(2, C("6s 7s 8s")))


def add(store, mid, events):
    for e in events:
        store.append(mid, 1, e, source="referee")


def key(mid, events, preset="classic"):
    return key_of(mid, 1, Hand.from_events(get_rules(preset), list(events)))


def test_before_the_cards_are_shown_the_block_says_how_to_get_the_analysis(client, store):
    mid = new_match(store)
    add(store, mid, PLAYED)
    page = client.get(f"/history/{mid}/1?analyse=1").get_data(as_text=True)
    assert 'id="analysis"' in page and "亮牌后" in page and "✗" not in page


def test_once_shown_the_turning_point_is_named_and_marked_on_its_step(client, store):
    mid = new_match(store)
    add(store, mid, PLAYED + (Shown(0, C("3s 3h")), Shown(2, C("6s 7s 8s"))))
    page = client.get(f"/history/{mid}/1").get_data(as_text=True)  # solved without being asked
    assert "复盘" in page and "第 1 手：张三出单张 5♠ 后由胜转负；出对子 3♠ 3♥ 可保持胜势" in page
    assert page.count("✗ 由胜转负") == 1
    english = client.get(f"/history/{mid}/1?lang=en&step=3").get_data(as_text=True)  # kept: shown at once
    assert "Analysis" in english and "turned a win into a loss" in english and "won → lost" in english


def test_a_hand_in_play_is_never_judged(client, store):
    mid = new_match(store)
    add(store, mid, PLAYED[:4])
    page = client.get(f"/history/{mid}/1?analyse=1").get_data(as_text=True)
    assert 'id="analysis"' not in page


@pytest.fixture
def unwatched(store):
    """A site whose analyst does not watch the store: a hand is solved when its replay is opened."""
    app = create_app({"REFEREE_PIN": PIN, "TESTING": True, "ANALYSIS_WATCH": False}, store=store)
    yield app.test_client()
    app.extensions["ddz"].watcher.stop()
    app.extensions["ddz_analysis"].stop()


def test_the_text_export_carries_the_analysis_once_the_hand_was_analysed(unwatched, store):
    client = unwatched
    mid = new_match(store)
    add(store, mid, PLAYED + (Shown(0, C("3s 3h")), Shown(2, C("6s 7s 8s"))))
    before = client.get(f"/export/{mid}/1.txt?view=1").get_data(as_text=True)
    assert "复盘" not in before  # an export never waits for the solver
    client.get(f"/history/{mid}/1?analyse=1")
    after = client.get(f"/export/{mid}/1.txt?view=1").get_data(as_text=True)
    assert after.startswith(before) and "复盘:\n" in after and "由胜转负" in after


def test_a_finished_hand_is_solved_in_the_background_before_anyone_opens_it(app, store):
    mid = new_match(store)
    add(store, mid, PLAYED + (Shown(0, C("3s 3h")), Shown(2, C("6s 7s 8s"))))
    analyst = app.extensions["ddz_analysis"]
    found = analyst.result(key(mid, PLAYED + SHOWN), wait=10)  # the watcher looks at the store every second
    assert found is not None and found["mistakes"] == [1]


def test_while_the_solver_runs_the_replay_shows_how_far_it_got(client, app, store, monkeypatch):
    release = threading.Event()
    real = webui.analysis.analyse

    def slow(record, seconds, bid_seconds, *, progress=None, **kw):
        progress(2, 5)
        release.wait(10)
        return real(record, seconds, bid_seconds, progress=progress, **kw)

    monkeypatch.setattr(webui.analysis, "analyse", slow)
    mid = new_match(store)
    add(store, mid, PLAYED + (Shown(0, C("3s 3h")), Shown(2, C("6s 7s 8s"))))
    started = time.perf_counter()
    page = client.get(f"/history/{mid}/1").get_data(as_text=True)
    assert time.perf_counter() - started < 3  # the replay does not wait for the solver
    assert 'id="analysis-progress"' in page and "✗" not in page
    deadline = time.perf_counter() + 5
    while "已解出 2 / 5 个局面" not in client.get(f"/history/{mid}/1").get_data(as_text=True):
        assert time.perf_counter() < deadline
        time.sleep(0.05)
    english = client.get(f"/history/{mid}/1?lang=en").get_data(as_text=True)
    assert "Analysing: 2 of 5 positions solved" in english
    release.set()
    assert app.extensions["ddz_analysis"].result(key(mid, PLAYED + SHOWN), wait=10) is not None
    done = client.get(f"/history/{mid}/1?lang=zh").get_data(as_text=True)
    assert 'id="analysis-progress"' not in done and done.count("✗ 由胜转负") == 1


def test_the_analysis_is_kept_with_the_hand_and_shown_after_a_restart_without_solving(tmp_path, monkeypatch):
    path = tmp_path / "table.db"
    store = EventStore(path)
    mid = new_match(store)
    add(store, mid, PLAYED + SHOWN)
    first = create_app({"REFEREE_PIN": PIN, "TESTING": True}, store=store)
    assert first.extensions["ddz_analysis"].result(key(mid, PLAYED + SHOWN), wait=10) is not None
    first.extensions["ddz"].watcher.stop()
    first.extensions["ddz_analysis"].stop()
    store.close()

    def never(*args, **kw):
        raise AssertionError("a kept analysis is not solved again")

    monkeypatch.setattr(webui.analysis, "analyse", never)
    again = EventStore(path)
    second = create_app({"REFEREE_PIN": PIN, "TESTING": True, "ANALYSIS_WATCH": False}, store=again)
    try:
        page = second.test_client().get(f"/history/{mid}/1").get_data(as_text=True)
        assert "第 1 手：张三出单张 5♠ 后由胜转负" in page and page.count("✗ 由胜转负") == 1
        assert 'id="analysis-progress"' not in page
    finally:
        second.extensions["ddz"].watcher.stop()
        second.extensions["ddz_analysis"].stop()
        again.close()


def test_a_hand_finished_before_a_restart_is_solved_by_the_next_site(tmp_path):
    store = EventStore(tmp_path / "table.db")
    mid = new_match(store)
    add(store, mid, PLAYED + SHOWN)  # written while no site ran (the camera alone, or a crash)
    app = create_app({"REFEREE_PIN": PIN, "TESTING": True}, store=store)
    try:
        found = app.extensions["ddz_analysis"].result(key(mid, PLAYED + SHOWN), wait=10)
        assert found is not None and found["mistakes"] == [1]
        assert store.analysis(*key(mid, PLAYED + SHOWN)) == found
    finally:
        app.extensions["ddz"].watcher.stop()
        app.extensions["ddz_analysis"].stop()
        store.close()


def test_a_corrected_hand_is_analysed_again(app, client, store):
    mid = new_match(store)
    add(store, mid, PLAYED + SHOWN)
    analyst = app.extensions["ddz_analysis"]
    assert analyst.result(key(mid, PLAYED + SHOWN), wait=10)["mistakes"] == [1]
    # The third seat's cards were misread: it held a pair of 4s, which beats the landlord's 3s.
    add(store, mid, (Correction("replace", len(PLAYED) + 1, Shown(2, C("4h 4d 6s"))),))
    hand = app.extensions["ddz"].tables.state(mid).hand_of(1)
    again = analyst.result(key_of(mid, 1, hand), wait=10)
    assert again is not None and again["start"] is False and again["mistakes"] == []
    assert store.analysis(*key_of(mid, 1, hand)) == again
    page = client.get(f"/history/{mid}/1").get_data(as_text=True)
    assert "开局：农民必胜" in page and "✗ 由胜转负" not in page


def test_a_preset_without_open_hand_analysis_says_why_on_the_replay(unwatched, store):
    mid = store.create_match(("甲", "乙", "丙"), "dizhu")
    for e in (Deal(counts=(34, 34, 34)), Landlord(0), Concede(0)):  # 斗帝主: the landlord takes from the kitty
        store.append(mid, 1, e, source="referee")
    page = unwatched.get(f"/history/{mid}/1?analyse=1").get_data(as_text=True)
    assert "斗帝主（三人两副牌）：不做明牌复盘。地主从底牌中任意挑牌，起手牌本身就是一个选择" in page
    english = unwatched.get(f"/history/{mid}/1?lang=en").get_data(as_text=True)
    assert "no open-hand analysis. The landlord picks any cards of the kitty" in english
    assert "亮牌" not in page.split('id="analysis"')[1]  # not told to show cards that would not help


def test_a_store_closed_while_a_hand_is_solved_ends_the_thread_quietly(tmp_path, monkeypatch, caplog):
    """The site shuts down (its store closed) while the thread still solves a hand: the answer
    cannot be kept, and the thread ends without a warning; the next site solves it again."""
    release = threading.Event()
    real = webui.analysis.analyse

    def slow(record, seconds, bid_seconds, *, progress=None, **kw):
        release.wait(10)
        return real(record, seconds, bid_seconds, progress=progress, **kw)

    monkeypatch.setattr(webui.analysis, "analyse", slow)
    store = EventStore(tmp_path / "table.db")
    mid = new_match(store)
    add(store, mid, PLAYED + SHOWN)
    analyst = webui.analysis.Analyst(store=store)
    hand = Hand.from_events(get_rules("classic"), list(PLAYED + SHOWN))
    analyst.submit(key(mid, PLAYED + SHOWN), get_rules("classic"), ("张三", "李四", "王五"), tuple(hand.events))
    deadline = time.perf_counter() + 5
    while analyst.progress(key(mid, PLAYED + SHOWN)) != (0, 0) or analyst._running is None:
        assert time.perf_counter() < deadline
        time.sleep(0.02)
    store.close()
    with caplog.at_level("WARNING", logger="webui.analysis"):
        release.set()
        analyst._thread.join(10)
    assert not analyst._thread.is_alive()
    assert not [r for r in caplog.records if r.levelname == "WARNING"]
