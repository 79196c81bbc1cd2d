"""Server-Sent Events on a real waitress server: an append reaches an open stream."""

from __future__ import annotations

import http.client
import json
import time

from engine.events import Bid, Deal
from tests.kit.table_site import LiveSite, new_match, next_sse_data


def _open(site: LiveSite, path: str = "/api/events") -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection(site.url.removeprefix("http://"), timeout=10)
    conn.request("GET", path)
    response = conn.getresponse()
    def close() -> None:
        http.client.HTTPResponse.close(response)
        conn.close()

    response.close = close  # type: ignore[method-assign]  # the connection closes with its response
    return response



def test_an_appended_event_is_pushed_to_an_open_stream():
    with LiveSite() as site:
        mid = new_match(site.store)
        site.store.append(mid, 1, Deal(counts=(17, 17, 17)))
        response = _open(site)
        assert response.status == 200 and response.getheader("Content-Type").startswith("text/event-stream")
        first = next_sse_data(response)
        assert first["state"]["hand"]["phase"] == "bidding" and "board" in first["html"]
        seq = site.store.append(mid, 1, Bid(0, "bid", 3))
        pushed = next_sse_data(response)
        assert pushed["seq"] == seq and pushed["state"]["hand"]["landlord"] == 0
        assert "地主" in pushed["html"]
        response.close()


def test_streams_over_the_cap_get_503_and_slots_come_back():
    # a closed stream frees its slot at the server's next write: keep-alives a fifth of a second apart
    with LiveSite({"SSE_LIMIT": 1, "SSE_KEEPALIVE": 0.2}) as site:
        new_match(site.store)
        first = _open(site)
        next_sse_data(first)
        second = _open(site)
        assert second.status == 503 and "poll" in json.loads(second.read())["error"]
        second.close()
        first.close()
        deadline = time.time() + 10
        status = None
        while time.time() < deadline:  # the server notices the closed stream at its next write
            third = _open(site)
            status = third.status
            third.close()
            if status == 200:
                break
            time.sleep(0.3)
        assert status == 200
