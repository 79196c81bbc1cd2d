"""The table site in tests: a logged-in referee client and its form and JSON posts, the live
page's fragment and state, a real site on a free port (waitress in a thread) for browser, SSE and
screenshot tests, matches with played hands, a detector that sees nothing, and a phone in
chromium begun on the deck walk-through."""

from __future__ import annotations

import html
import http.client
import json
import threading

import numpy as np
from waitress.server import create_server

from engine.cards import parse_cards
from sim.scripted import random_hand
from tests.kit.browser import CHROMIUM
from tests.kit.serving import stop_server
from tracker.store import EventStore
from vision.detections import Detections
from vision.protocol import CornerDetector
from webui import create_app

PIN = "246810"
PLAYERS = ("张三", "李四", "王五")


def referee_client(app):
    """A test client of ``app`` logged in as the referee; ``client.csrf`` is its form token."""
    c = app.test_client()
    c.get("/referee/login")
    with c.session_transaction() as s:
        token = s["csrf"]
    assert c.post("/referee/login", data={"pin": PIN, "csrf": token}).status_code == 302
    with c.session_transaction() as s:
        c.csrf = s["csrf"]  # a new token from the login on
    return c


def act(client, action: str, **fields):
    """The referee's form post for ``action`` on a logged-in test client (``client.csrf`` set)."""
    return client.post(f"/referee/act/{action}", data={"csrf": client.csrf, **{k: str(v) for k, v in fields.items()}})


def api(client, action: str, body: dict, pin: str = PIN):
    """The referee's JSON call for ``action``, signed by the PIN header (no login needed)."""
    return client.post(f"/api/referee/{action}", json=body, headers={"X-Referee-PIN": pin})


def referee_post(client, action: str, **fields) -> None:
    """The referee's JSON call for ``action``, which must be accepted."""
    response = api(client, action, fields)
    assert response.status_code == 200, (action, fields, response.get_json())


def ended_mid_hand(client, store: EventStore, name: str = "周五夜赛", started: float = 1000.0) -> int:
    """A classic match as a referee keys it in: hand 1 (a penalty, a rocket, then conceded), hand 2
    abandoned (a misdeal), hand 3 bid and then the match ended by the referee."""
    mid = store.create_match(PLAYERS, "classic", meta={"name": name, "started": started})
    referee_post(client, "new_hand")
    referee_post(client, "bid", seat=0, bid="3")
    referee_post(client, "penalty", seat=1, points=2, reason="掉牌")
    for seat, cards in ((0, "BJ RJ"), (1, "pass"), (2, "pass"), (0, "3s 3h 3d 3c")):
        if cards == "pass":
            referee_post(client, "pass", seat=seat)
        else:
            referee_post(client, "play", seat=seat, cards=cards)
    referee_post(client, "concede", seat=1)
    referee_post(client, "new_hand")
    referee_post(client, "bid", seat=1, bid="1")
    referee_post(client, "abandon", reason="misdeal")
    referee_post(client, "new_hand")
    referee_post(client, "bid", seat=2, bid="2")
    referee_post(client, "end_match", match=mid)
    return mid


def card_tuple(text: str) -> tuple:
    return tuple(parse_cards(text))


def fragment_html(client, lang: str = "zh") -> str:
    """The live page's fragment as the page shows it (entities unescaped)."""
    return html.unescape(client.get("/live/fragment", query_string={"lang": lang}).get_json()["html"])


def api_state(client) -> dict:
    return client.get("/api/state").get_json()


class LiveSite:
    """``with LiveSite() as site:`` serves ``site.url`` until the block ends."""

    def __init__(self, config: dict | None = None, store: EventStore | None = None, pipeline_status=None) -> None:
        self.store = store or EventStore(":memory:")
        self.app = create_app({"REFEREE_PIN": PIN, "SSE_KEEPALIVE": 1.0, **(config or {})}, store=self.store,
                              pipeline_status=pipeline_status)
        self.server = create_server(self.app, host="127.0.0.1", port=0, threads=24, ident="test")
        self.url = f"http://127.0.0.1:{self.server.effective_port}"
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveSite:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.app.extensions["ddz"].watcher.stop()
        stop_server(self.server, self.thread)


def play_hands(store: EventStore, match_id: int, seeds: list[int], first: int = 1) -> None:
    """Append finished random hands (known cards) as the camera would."""
    for offset, seed in enumerate(seeds):
        for event in random_hand("classic", seed).log:
            store.append(match_id, first + offset, event)


def new_match(store: EventStore, preset: str = "classic") -> int:
    return store.create_match(PLAYERS, preset, meta={"name": "test", "started": 1000.0})


#: Frames small enough for quick camera-feed tests.
SMALL = (320, 180)


class Blind(CornerDetector):
    """A detector that sees no card: the wiring runs without a model."""

    def __init__(self) -> None:
        self.calls = 0

    def detect(self, image: np.ndarray) -> Detections:
        self.calls += 1
        z = np.zeros((0,))
        return Detections(np.zeros((0, 4), np.float32), z.astype(np.float32), z.astype(np.int64),
                          alt_ids=np.zeros((0, 1), np.int64), alt_probs=np.zeros((0, 1)))


def next_sse_data(response: http.client.HTTPResponse) -> dict:
    """Read a live stream's lines until one whole message has arrived; its ``data`` as JSON."""
    data = None
    while True:
        line = response.readline().decode()
        if line.startswith("data: "):
            data = json.loads(line[6:])
        elif line == "\n" and data is not None:
            return data


def phone_deck_walk_through(playwright, site: LiveSite, name: str = "phone", batch: int = 9, per_row: int = 9):
    """Chromium as a 390 x 844 phone, logged in as the referee at ``site``, with the deck
    walk-through begun (``name``, ``batch`` cards a batch, ``per_row`` a row): ``(browser, page)``.
    The caller closes the browser."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                         args=["--headless", "--no-sandbox", "--disable-gpu"])
    page = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True).new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(f"{site.url}/referee/login")
    page.fill("input[name=pin]", PIN)
    page.click("button[type=submit]")
    page.goto(f"{site.url}/referee/deck")
    page.fill("input[name=name]", name)
    page.fill("input[name=batch]", str(batch))
    page.fill("input[name=per_row]", str(per_row))
    page.click("#deck-start")
    return browser, page
