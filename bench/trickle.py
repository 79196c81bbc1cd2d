"""Many connections from one address that trickle half a request and wait, against a real
server (waitress, as deployed): how many get the per-address 503, and whether a page from
another address is still answered, and how fast (webkit.server).

    .venv/bin/python -m bench.trickle --connections 1100            # the table site
    .venv/bin/python -m bench.trickle --connections 1100 --site club
    .venv/bin/python -m bench.trickle --connections 1100 --no-cap   # without the cap

Prints one line per site; exits 1 when the other address is not answered 200.
"""

from __future__ import annotations

import argparse
import logging
import socket
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

OTHER = "127.0.0.2"  # another address of the loopback, as another machine


def serve(site: str, stack: ExitStack, per_address: int | None) -> tuple[Any, int]:
    """The site on a free port, its loop on a thread; closed when ``stack`` closes."""
    if site == "table":
        from cli.site import PER_ADDRESS, make_server
        from tracker.store import EventStore
        from webui import create_app

        store = EventStore(":memory:")
        app = create_app({"REFEREE_PIN": "246810"}, store=store)
        server = make_server(app, "127.0.0.1", 0, threads=16, per_address=per_address or PER_ADDRESS)
        stack.callback(app.extensions["ddz"].watcher.stop)
    else:
        from cli.club import PER_ADDRESS as CLUB_PER_ADDRESS
        from cli.club import make_club_server
        from club.app import build_app
        from club.sqlite import SqliteStorage

        folder = stack.enter_context(tempfile.TemporaryDirectory())
        app = build_app({"DIRECTOR_PIN": "135790", "CLUB_KEY": "k" * 12},
                        storage=SqliteStorage(str(Path(folder) / "club.db")))
        server = make_club_server(app, "127.0.0.1", 0, 8, per_address=per_address or CLUB_PER_ADDRESS)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    stack.callback(server.close)
    return server, int(server.effective_port)


def first_line(port: int, source: str) -> str:
    """The status line of ``/healthz`` asked from ``source``, or why there was none."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0)) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return sock.recv(64).split(b"\r\n")[0].decode() or "closed without an answer"
    except OSError as exc:
        return f"no answer ({type(exc).__name__})"


def trickle(site: str, connections: int, per_address: int | None = None) -> bool:
    with ExitStack() as stack:
        _server, port = serve(site, stack, per_address)
        socks = []
        for _ in range(connections):
            sock = stack.enter_context(socket.create_connection(("127.0.0.1", port), timeout=5))
            sock.sendall(b"GET / HT")
            socks.append(sock)
        time.sleep(0.5)  # the server's loop answers the ones past the cap
        refused = 0
        for sock in socks:
            sock.settimeout(0.01)
            try:
                refused += sock.recv(16).startswith(b"HTTP/1.1 503")
            except OSError:
                pass
        started = time.perf_counter()
        answer = first_line(port, OTHER)
        took = time.perf_counter() - started
    print(f"{site}: {connections} trickling connections from 127.0.0.1: {connections - refused} not refused, {refused} "
          f"refused with 503; /healthz from {OTHER}: {answer} in {took:.2f} s")
    return answer.split()[1:2] == ["200"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=1100)
    parser.add_argument("--site", choices=("table", "club", "both"), default="both")
    parser.add_argument("--no-cap", action="store_true", help="no per-address cap: what one address did before it")
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)
    sites = ("table", "club") if args.site == "both" else (args.site,)
    per_address = 10**6 if args.no_cap else None
    return 0 if all([trickle(site, args.connections, per_address) for site in sites]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
