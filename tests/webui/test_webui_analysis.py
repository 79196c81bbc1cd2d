"""The replay's 复盘 / Analysis block: the turning points once the cards left are shown, solved in
the background as soon as they are (no one has to ask), a mark on the decisive mistake, a hint
before the cards are shown, a progress line while the solver runs, and nothing while the hand is
played."""

from __future__ import annotations

import threading
import time

import pytest

import webui.analysis
from engine.cards import parse_cards
from engine.events import Deal, Landlord, Pass, Play, Shown
from tests.kit.table_site import PIN, new_match
from webui import create_app


def C(text: str):
    return tuple(parse_cards(text))


#: The landlord (3 cards, all from the kitty) leads 5 instead of 33 and the first farmer goes out.
PLAYED = (Deal(counts=(0, 3, 3)), Landlord(0), Play(0, C("5s")), Play(1, C("10s")), Pass(2), Pass(0),
          Play(1, C("9s")), Pass(2), Pass(0), Play(1, C("4s")))


def add(store, mid, events):
    for e in events:
        store.append(mid, 1, e, source="referee")


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
    key = (mid, 1, len(PLAYED) + 2)
    found = analyst.result(key, wait=10)  # the watcher looks at the store every second
    assert found is not None and [s.number for s in found.mistakes] == [1]


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
    assert app.extensions["ddz_analysis"].result((mid, 1, len(PLAYED) + 2), wait=10) is not None
    done = client.get(f"/history/{mid}/1?lang=zh").get_data(as_text=True)
    assert 'id="analysis-progress"' not in done and done.count("✗ 由胜转负") == 1
