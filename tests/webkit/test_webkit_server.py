"""One address cannot hold every connection of either site: past the per-address cap its new
connections get a 503 and are closed, while other addresses are served (webkit.server)."""

from __future__ import annotations

import socket
import threading
from contextlib import ExitStack, contextmanager

import pytest

from cli.club import make_club_server
from cli.site import make_server
from club.app import build_app
from club.sqlite import SqliteStorage
from tests.kit.serving import stop_server
from tracker.store import EventStore
from webkit.server import REFUSED_BODY, create_server
from webui import create_app

CAP = 8


@contextmanager
def table_site(per_address: int = CAP):
    store = EventStore(":memory:")
    app = create_app({"REFEREE_PIN": "246810"}, store=store)
    server = make_server(app, host="127.0.0.1", port=0, threads=16, per_address=per_address)
    assert server is not None
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield server.effective_port
    finally:
        app.extensions["ddz"].watcher.stop()
        stop_server(server, thread)
        store.close()


@contextmanager
def club_site(tmp_path, per_address: int = CAP):
    storage = SqliteStorage(str(tmp_path / "club.db"))
    app = build_app({"DIRECTOR_PIN": "135790", "CLUB_KEY": "k" * 12}, storage=storage)
    server = make_club_server(app, "127.0.0.1", 0, 8, per_address=per_address)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield server.effective_port
    finally:
        stop_server(server, thread)
        storage.close()


def trickling(stack: ExitStack, port: int, count: int, source: str = "127.0.0.1") -> list[socket.socket]:
    """``count`` connections from ``source`` that send half a request line and wait."""
    socks = []
    for _ in range(count):
        sock = stack.enter_context(socket.create_connection(("127.0.0.1", port), timeout=5,
                                                            source_address=(source, 0)))
        sock.sendall(b"GET / HT")
        socks.append(sock)
    return socks


def read_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(4096):
        data += chunk
    return data


def get(port: int, path: str, source: str) -> int:
    """The status of GET ``path`` sent from the address ``source``."""
    with socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0)) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        head = read_all(sock).split(b"\r\n", 1)[0]
    return int(head.split()[1])


@pytest.mark.parametrize("site", ["table", "club"])
def test_an_address_past_its_cap_is_refused_while_others_are_served(site, tmp_path):
    served = table_site() if site == "table" else club_site(tmp_path)
    with served as port, ExitStack() as stack:
        trickling(stack, port, CAP)
        with socket.create_connection(("127.0.0.1", port), timeout=5) as extra:
            refused = read_all(extra)
        assert refused.startswith(b"HTTP/1.1 503") and REFUSED_BODY.encode() in refused
        assert get(port, "/healthz", "127.0.0.2") == 200  # another address is served
        assert get(port, "/healthz", "127.0.0.3") == 200


def test_the_address_is_served_again_once_its_connections_close(tmp_path):
    with table_site() as port, ExitStack() as stack:
        socks = trickling(stack, port, CAP)
        socks[0].close()
        socks[1].close()
        for _ in range(50):  # the server notices the closes on its next turn
            try:
                if get(port, "/healthz", "127.0.0.1") == 200:
                    break
            except (ValueError, IndexError, OSError):
                pass
        else:
            raise AssertionError("the address was never let in again")


def test_many_trickling_connections_from_one_address_do_not_shut_out_the_rest():
    with table_site(per_address=100) as port, ExitStack() as stack:
        trickling(stack, port, 100)
        for _ in range(20):  # the 101st and on: refused one by one, each closed
            with socket.create_connection(("127.0.0.1", port), timeout=5) as extra:
                assert read_all(extra).startswith(b"HTTP/1.1 503")
        assert get(port, "/", "127.0.0.9") == 200


def test_a_cap_below_one_is_refused():
    with pytest.raises(ValueError, match="per_address"):
        create_server(object(), per_address=0)


def test_the_table_site_leaves_most_of_its_connections_to_other_addresses():
    from cli.site import CONNECTION_LIMIT, PER_ADDRESS

    assert 4 * PER_ADDRESS <= CONNECTION_LIMIT  # four addresses at least to fill it


def test_the_club_server_polls_so_sockets_past_1023_work(tmp_path):
    storage = SqliteStorage(str(tmp_path / "club.db"))
    server = make_club_server(build_app({"DIRECTOR_PIN": "135790"}, storage=storage), "127.0.0.1", 0, 8)
    try:
        # 300 tables' boxes and 300 hall screens, each holding a connection, fit with room to spare
        assert server.adj.asyncore_use_poll is True and server.adj.connection_limit >= 650
    finally:
        server.close()
        storage.close()
