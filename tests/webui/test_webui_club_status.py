"""The referee page's club server line (run --club): in step, sending, unreachable with the count
of events waiting, refused; and no line at all for a box that replicates to no club."""

from __future__ import annotations

import argparse
import json
import time
import urllib.request

import pytest

from cli import table as cli
from club.pglocal import free_port
from club.sqlite import SqliteStorage
from sim.scripted import random_hand
from sim.toy_table import ToyDetector, ToyTable
from tests.kit.club_server import KEY, ThreadServer
from tests.kit.table_site import PIN, referee_client
from tracker.replicate import Replicator
from tracker.session import TableSession
from tracker.store import EventStore
from webui import create_app


def play(store: EventStore, match_id: int, hand: int, seed: int, count: int | None = None) -> None:
    for event in random_hand("chips", seed).log[:count]:
        store.append(match_id, hand, event)


@pytest.fixture
def box():
    store = EventStore(":memory:")
    mid = store.create_match(("甲", "乙", "丙"), "chips")
    yield store, mid
    store.close()


def site_with(store, replicator):
    app = create_app({"REFEREE_PIN": PIN, "TESTING": True}, store=store, replicator=replicator)
    return app, referee_client(app)


def line(client, lang: str = "zh") -> str:
    page = client.get(f"/referee?lang={lang}").get_data(as_text=True)
    start = page.find('id="club-state"')
    return "" if start < 0 else page[start:page.index("</p>", start)]


def test_a_box_without_a_club_shows_no_club_line(box):
    store, _mid = box
    app, referee = site_with(store, None)
    assert line(referee) == "" and "俱乐部服务器" not in referee.get("/referee").get_data(as_text=True)
    assert referee.get("/live/fragment").json["club"] is None
    assert referee.get("/healthz").json["club"] is None
    app.extensions["ddz"].watcher.stop()


def test_the_line_follows_the_copy_in_step_then_unreachable_with_the_events_waiting(box):
    store, mid = box
    play(store, mid, 1, 7)
    storage = SqliteStorage(":memory:")
    with ThreadServer(storage) as server:
        rep = Replicator(store, server.url, table=3, key=KEY, timeout=2.0)
        app, referee = site_with(store, rep)
        assert "正在连接" in line(referee)  # nothing asked yet
        while rep.attempt() == 0.0:  # full batches: no pause until caught up
            pass
        assert rep.status()["state"] == "in_step"
        shown = line(referee)
        assert 'data-state="in_step"' in shown and "俱乐部服务器" in shown and "已同步" in shown
        assert "in step" in line(referee, "en")
    # The server is gone (the Wi-Fi dropped); the table keeps scoring five more events.
    play(store, mid, 2, 8, count=5)
    assert rep.attempt() > 0  # failed: it waits before the next try
    shown = line(referee)
    assert 'data-state="unreachable"' in shown and "未连接，待上传 5 条" in shown and "上次同步" in shown
    assert "unreachable, 5 events waiting" in line(referee, "en")
    fragment = referee.get("/live/fragment?lang=en").json["club"]
    assert 'id="club-state"' in fragment and "5 events waiting" in fragment
    health = referee.get("/healthz").json["club"]
    assert health["state"] == "unreachable" and health["pending"] == 5 and health["error"]
    app.extensions["ddz"].watcher.stop()
    storage.close()


def test_a_box_catching_up_shows_what_is_still_to_send(box):
    store, mid = box
    play(store, mid, 1, 9)
    total = store.last_seq()
    storage = SqliteStorage(":memory:")
    with ThreadServer(storage) as server:
        rep = Replicator(store, server.url, table=4, key=KEY, batch=10, timeout=2.0)
        app, referee = site_with(store, rep)
        rep.attempt()
        shown = line(referee)
        assert 'data-state="sending"' in shown and f"待上传 {total - 10} 条" in shown
    app.extensions["ddz"].watcher.stop()
    storage.close()


def test_a_server_that_was_never_reached_and_a_refusal_say_so(box):
    store, mid = box
    play(store, mid, 1, 10, count=3)
    rep = Replicator(store, f"http://127.0.0.1:{free_port()}", table=5, key=KEY, timeout=1.0)  # nothing listens
    app, referee = site_with(store, rep)
    rep.attempt()
    assert "未连接（还没有连上过）" in line(referee)
    app.extensions["ddz"].watcher.stop()
    storage = SqliteStorage(":memory:")
    with ThreadServer(storage) as server:
        wrong = Replicator(store, server.url, table=5, key="not-the-club-key", timeout=2.0, state_path=None)
        app, referee = site_with(store, wrong)
        wrong.attempt()
        shown = line(referee, "en")
        assert 'data-state="refused"' in shown and "refused by the server" in shown and "wrong club key" in shown
    app.extensions["ddz"].watcher.stop()
    storage.close()


def test_run_with_a_club_gives_the_site_its_replicator():
    store = EventStore(":memory:")
    mid = store.create_match(("a", "b", "c"))
    play(store, mid, 1, 12, count=4)
    pipeline = TableSession(None, ToyTable().calibration(), ToyDetector(), store, mid)
    args = argparse.Namespace(camera_view=False, pin=PIN, host="127.0.0.1", port=0,
                              club=f"http://127.0.0.1:{free_port()}", club_table=2, club_key=KEY)
    replicator = cli.start_replicator(store, args)  # run --club: nothing listens there, the table goes on
    server = cli._serve(store, pipeline, args, None, replicator)
    try:
        url = f"http://127.0.0.1:{server.effective_port}"
        deadline = time.monotonic() + 10
        while replicator.status()["state"] == "connecting" and time.monotonic() < deadline:
            time.sleep(0.05)
        health = json.loads(urllib.request.urlopen(url + "/healthz", timeout=10).read())
        assert health["club"]["state"] == "unreachable" and health["club"]["table"] == 2
        fragment = json.loads(urllib.request.urlopen(url + "/live/fragment?lang=en", timeout=10).read())
        assert "Club server" in fragment["club"] and "unreachable" in fragment["club"]
    finally:
        replicator.stop()
        server.close()
        store.close()
