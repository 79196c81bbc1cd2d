"""Slow and silent clients cannot take the site down (the waitress limits of ``make_server``)."""

from __future__ import annotations

import http.client
import socket
import threading
import urllib.request
from contextlib import ExitStack, contextmanager

from cli.site import CHANNEL_TIMEOUT, CONNECTION_LIMIT, make_server
from engine.events import Bid, Deal
from tests.kit.serving import stop_server
from tests.kit.table_site import PIN, new_match, next_sse_data
from tracker.store import EventStore
from webui import create_app


@contextmanager
def served(config: dict | None = None, **limits):
    store = EventStore(":memory:")
    app = create_app({"REFEREE_PIN": PIN, "SSE_KEEPALIVE": 0.5, **(config or {})}, store=store)
    server = make_server(app, host="127.0.0.1", port=0, **limits)
    assert server is not None
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield store, server, f"127.0.0.1:{server.effective_port}"
    finally:
        app.extensions["ddz"].watcher.stop()
        stop_server(server, thread)
        store.close()


def half_requests(stack: ExitStack, address: str, count: int) -> list[socket.socket]:
    """``count`` connections that send half a request line and then nothing."""
    host, port = address.split(":")
    socks = []
    for _ in range(count):
        sock = stack.enter_context(socket.create_connection((host, int(port)), timeout=10))
        sock.sendall(b"GET / HT")
        socks.append(sock)
    return socks


def test_the_limits_are_the_documented_ones(capsys):
    with served() as (_store, server, _address):
        assert server.adj.connection_limit == CONNECTION_LIMIT >= 500
        assert server.adj.channel_timeout == CHANNEL_TIMEOUT <= 30
        assert server.adj.asyncore_use_poll is True
        assert server.adj.max_request_body_size < 10 * 1024 * 1024


def test_two_hundred_half_open_connections_do_not_block_a_page(capsys):
    with served() as (store, _server, address), ExitStack() as stack:
        new_match(store)
        half_requests(stack, address, 200)
        with urllib.request.urlopen(f"http://{address}/", timeout=5) as response:
            assert response.status == 200 and "board" in response.read().decode()


def test_a_live_stream_works_beside_half_open_connections_and_outlives_the_idle_timeout(capsys):
    with served(channel_timeout=1) as (store, _server, address), ExitStack() as stack:
        mid = new_match(store)
        store.append(mid, 1, Deal(counts=(17, 17, 17)))
        socks = half_requests(stack, address, 200)
        conn = stack.enter_context(_closing(http.client.HTTPConnection(address, timeout=10)))
        conn.request("GET", "/api/events")
        stream = conn.getresponse()
        assert stream.status == 200
        assert next_sse_data(stream)["state"]["hand"]["phase"] == "bidding"
        # The idle connections are closed after the (here one-second) timeout ...
        for sock in socks[:5]:
            assert sock.recv(1) == b""
        # ... while the stream, a request still being answered, stays open and gets the next update.
        seq = store.append(mid, 1, Bid(0, "bid", 3))
        assert next_sse_data(stream)["seq"] == seq


class _closing:
    def __init__(self, conn: http.client.HTTPConnection) -> None:
        self.conn = conn

    def __enter__(self) -> http.client.HTTPConnection:
        return self.conn

    def __exit__(self, *exc: object) -> None:
        self.conn.close()

