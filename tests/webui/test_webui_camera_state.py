"""The camera's state on the live and referee pages, for every state a feed's status() can give."""

from __future__ import annotations

import http.client
import time

import pytest

from tests.kit.table_site import PIN, LiveSite, new_match, next_sse_data, referee_client
from webui import create_app, live
from webui.sse import Watcher, stream
from webui.view import camera_state


class FakeFeed:
    """A pipeline hook whose status the test sets; ``ago`` sets the last frame that long before now."""

    def __init__(self, **status) -> None:
        self.data = status

    def status(self) -> dict:
        data = dict(self.data)
        if "ago" in data:
            data["last_frame"] = time.time() - data.pop("ago")
        return data


SINCE = time.time() - 125
HHMMSS = time.strftime("%H:%M:%S", time.localtime(SINCE))

#: (status, state, Chinese words, English words)
CASES = [
    (None, "manual", "手动记录（没有摄像头）", "fed by hand (no camera)"),
    ({"source": "simulated table (bots, no camera)", "fps": None, "last_frame": SINCE, "running": True},
     "feed", "程序录入（没有摄像头）", "fed by a program (no camera)"),
    ({"source": "0", "source_state": "starting", "fps": 0.0, "last_frame": None, "running": True},
     "starting", "正在启动", "starting"),
    ({"source": "0", "source_state": "running", "fps": 9.5, "ago": 0.2, "running": True},
     "connected", "已连接", "connected"),
    ({"source": "0", "source_state": "running", "fps": 9.5, "ago": 12.4, "running": True},
     "stalled", "10 秒没有画面", "no frames for 10 s"),
    ({"source": "rtsp://cam", "source_state": "reconnecting", "fps": 0.0, "last_frame": SINCE, "running": True,
      "error": "stream dropped"},
     "reconnecting", f"断开了，{HHMMSS} 起正在重连", f"disconnected, reconnecting since {HHMMSS}"),
    ({"source": "rtsp://cam", "source_state": "reconnecting", "last_frame": None, "running": True},
     "reconnecting", "断开了，正在重连", "disconnected, reconnecting"),
    ({"source": "0", "source_state": "running", "fps": 9.5, "ago": 0.0, "running": True,
      "calibration_lost": True},
     "calibration_lost", "找不到桌垫（校准丢失）", "calibration lost"),
    ({"source": "table.mp4", "source_state": "ended", "fps": 0.0, "last_frame": SINCE, "running": False},
     "ended", "视频源已结束", "the source has ended"),
    ({"source": "0", "source_state": "error", "last_frame": SINCE, "running": False,
      "error": "SourceError: camera 0 <gone>"},
     "error", "出错停止：SourceError: camera 0 &lt;gone&gt;", "stopped on an error: SourceError"),
]


def _app(store, status):
    hook = None if status is None else FakeFeed(**status)
    return create_app({"REFEREE_PIN": PIN, "TESTING": True}, store=store, pipeline_status=hook)


@pytest.mark.parametrize(("status", "state", "zh", "en"), CASES, ids=[c[1] for c in CASES])
def test_each_state_is_on_the_live_and_referee_pages(store, status, state, zh, en):
    new_match(store)
    app = _app(store, status)
    try:
        c = app.test_client()
        page = c.get("/").get_data(as_text=True)
        assert f'data-state="{state}"' in page and zh in page and "摄像头" in page
        assert en in c.get("/?lang=en").get_data(as_text=True)
        fragment = c.get("/live/fragment?lang=zh").get_json()
        assert f'data-state="{state}"' in fragment["html"] and zh in fragment["camera"]
        panel = referee_client(app).get("/referee").get_data(as_text=True)
        assert f'data-state="{state}"' in panel and zh in panel and "data-refresh=" in panel
        assert c.get("/healthz").get_json()["camera"]["state"] == state
    finally:
        app.extensions["ddz"].watcher.stop()


def test_the_state_shows_before_any_match(store):
    app = _app(store, CASES[3][0])
    try:
        assert 'data-state="connected"' in app.test_client().get("/").get_data(as_text=True)
    finally:
        app.extensions["ddz"].watcher.stop()


def test_the_state_follows_the_feed_between_store_updates(store):
    new_match(store)
    feed = FakeFeed(source="0", source_state="running", fps=9.0, ago=0.0, running=True)
    app = create_app({"REFEREE_PIN": PIN}, store=store, pipeline_status=feed)
    try:
        c = app.test_client()
        first = c.get("/live/fragment").get_json()
        feed.data = {"source": "0", "source_state": "reconnecting", "last_frame": SINCE, "running": True}
        second = c.get("/live/fragment").get_json()
        assert first["seq"] == second["seq"]  # nothing new in the store ...
        assert 'data-state="connected"' in first["html"] and 'data-state="reconnecting"' in second["html"]
    finally:
        app.extensions["ddz"].watcher.stop()


def test_the_seconds_without_frames_move_in_steps():
    status = {"source": "0", "source_state": "running", "fps": 5.0, "last_frame": 100.0, "running": True}
    assert camera_state(status, now=104.0)["state"] == "connected"
    assert [camera_state(status, now=100.0 + d)["seconds"] for d in (6, 9.9, 10, 27)] == [5, 5, 10, 25]


def test_a_stream_sends_a_change_that_is_not_in_the_store(store):
    watcher = Watcher(store, interval=60)
    shown = iter([(1, "a"), (1, "a"), (2, "b")])
    body = stream(watcher, lambda: next(shown), keepalive=60, lifetime=30, tick=0.01)
    assert next(body).startswith("retry:")
    assert next(body) == "a"
    assert next(body) == "b"  # the second look found nothing new, the third the change
    watcher.stop()


def test_an_open_live_stream_pushes_the_camera_state(monkeypatch):
    monkeypatch.setattr(live, "CAMERA_TICK_S", 0.05)
    feed = FakeFeed(source="0", source_state="running", fps=9.0, ago=0.0, running=True)
    with LiveSite(pipeline_status=feed) as site:
        new_match(site.store)
        conn = http.client.HTTPConnection(site.url.removeprefix("http://"), timeout=10)
        try:
            conn.request("GET", "/api/events")
            response = conn.getresponse()
            assert 'data-state="connected"' in next_sse_data(response)["html"]
            feed.data = {"source": "0", "source_state": "reconnecting", "last_frame": SINCE, "running": True}
            pushed = next_sse_data(response)
            assert 'data-state="reconnecting"' in pushed["html"] and HHMMSS in pushed["html"]
        finally:
            conn.close()

