"""Both sites served by waitress with a cap on the connections one address may hold.

Waitress caps the connections of the whole server (``connection_limit``), not those of one
client: a script opening a thousand connections that trickle a request a byte at a time holds
every slot, and the referee's phone and the hall screen are shut out. :func:`create_server`
builds the same waitress server and refuses a connection from an address that already holds
``per_address`` of them: it gets a short 503 and is closed, while every other address is
served. Behind a reverse proxy every visitor shares the proxy's address: raise the cap there.

    server = create_server(app, per_address=PER_ADDRESS, host="0.0.0.0", port=8000, threads=32)
    server.run()
"""

from __future__ import annotations

import socket
from typing import Any

from waitress import create_server as waitress_server
from waitress.server import BaseWSGIServer

#: Connections one address may hold at once unless the server says otherwise: far more than a
#: browser opens (six or so, and one per live page).
PER_ADDRESS = 100

#: What a refused connection reads before it is closed.
REFUSED = ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
           "Connection: close\r\nRetry-After: 10\r\nContent-Length: {length}\r\n\r\n{body}")
REFUSED_BODY = "同一地址的连接太多，请稍后再试 / too many connections from one address: try again later\n"


def held_by(server: BaseWSGIServer, host: str) -> int:
    """How many open connections of ``server`` come from ``host``."""
    return sum(1 for channel in list(server.active_channels.values())
               if isinstance(channel.addr, tuple) and channel.addr[0] == host)


def refuse(sock: socket.socket) -> None:
    """Answer 503 without waiting (the socket buffer takes it whole) and close."""
    body = REFUSED_BODY.encode("utf-8")
    try:
        sock.setblocking(False)
        sock.send(REFUSED.format(length=len(body), body="").encode("ascii") + body)
    except OSError:
        pass  # the client is gone or its buffer is full: closing is answer enough
    finally:
        sock.close()


def capped(channel_class: type, per_address: int) -> type:
    """``channel_class`` (waitress's HTTP connection) refusing an address past ``per_address``."""

    class AddressCapped(channel_class):
        refused = False

        def __init__(self, server: BaseWSGIServer, sock: socket.socket, addr: Any, adj: Any,
                     map: Any = None) -> None:  # noqa: A002 - waitress's own name
            if isinstance(addr, tuple) and held_by(server, addr[0]) >= per_address:
                self.refused = True
                refuse(sock)  # never registered: the server forgets it at once
                return
            super().__init__(server, sock, addr, adj, map=map)

    return AddressCapped


def listeners(server: Any) -> list[BaseWSGIServer]:
    """The listening servers of what waitress's ``create_server`` returns (one, or several
    when the host name resolves to more than one address)."""
    if isinstance(server, BaseWSGIServer):
        return [server]
    return [s for s in server.map.values() if isinstance(s, BaseWSGIServer)]


def create_server(app: Any, per_address: int = PER_ADDRESS, **adjustments: Any) -> Any:
    """Waitress's ``create_server(app, **adjustments)``, each address held to ``per_address``
    open connections."""
    if per_address < 1:
        raise ValueError(f"per_address must be 1 or more, not {per_address}")
    server = waitress_server(app, **adjustments)
    for listener in listeners(server):
        listener.channel_class = capped(listener.channel_class, per_address)
    return server
