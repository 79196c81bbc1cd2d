"""The hall's screens served by a second process, so the boxes' posts keep the server's interpreter.

One Python process runs one thread at a time (the interpreter lock). With 300 hall screens
polling ``/api/hall`` once a second and 16 streaming ``/api/hall/stream``, the club server spends
about half its interpreter on them, and a box's post waits for it. ``ddz-table club`` therefore
starts a *screens process* beside itself (:class:`Screens`), over the same store:

- the server still accepts every connection on its one port. Before it reads a new
  connection's first request it peeks at its first bytes; when they are ``GET /api/hall`` (the
  data or the stream, :func:`wants_hall`), it hands the connection over to the screens process
  (the socket itself, passed over a Unix socket) and forgets it. That screen's later requests on
  the same keep-alive connection are the screens process's: the server pays once per
  connection, not once per poll. Every other connection (boxes, the director, the pages) stays
  with the server;
- the screens process builds the same app over the same store (the same director PIN, club
  key and session secret) and keeps its own projection (:class:`club.live.Live`): it folds what
  the boxes' posts committed, as the server's own would. Anything but a GET or HEAD on a
  connection it was handed (a browser reusing it for a form) is sent back to the server by a
  307 to the same address on a new connection (``Connection: close``), so logins, the director's
  actions and the boxes' posts are all the server's;
- when it cannot be handed a connection (not started yet, gone, its queue full), the server
  serves the screen itself, as a single process does; a screens process that exits is started
  again within a second (a connection on its way to it as it died is closed: the screen asks
  again, as ``hall.js`` does). It stops with the server: it exits when the Unix socket to the
  server closes (the server stopped, or was killed), and the server stops it on its way out.

An in-memory store (``:memory:``) has nothing a second process could read: the server serves
its screens itself. ``ddz-table club --no-hall-process`` does so too, for any store.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[1]

#: What a connection's first bytes start with when a hall screen opens it.
HALL_REQUEST = b"GET /api/hall"
#: Bytes peeked at: the request line's method and path up to what follows ``/api/hall``.
PEEK = len(HALL_REQUEST) + len(b"/stream ")
#: Seconds between looks at whether the screens process is still running.
WATCH_S = 1.0


def wants_hall(head: bytes) -> bool:
    """Whether a connection whose first bytes are ``head`` asks for the hall's data or stream:
    ``GET /api/hall`` or ``GET /api/hall/stream``, with or without a query.

    >>> wants_hall(b"GET /api/hall HTTP/1.1"), wants_hall(b"GET /api/hall/stream?x HTTP/1.1")
    (True, True)
    >>> wants_hall(b"POST /api/tables/1/events HTTP/1.1"), wants_hall(b"GET /api/hallway HTTP/1.1")
    (False, False)
    """
    if not head.startswith(HALL_REQUEST):
        return False
    rest = head[len(HALL_REQUEST):]
    return rest[:1] in (b" ", b"?") or rest.startswith((b"/stream ", b"/stream?"))


class Screens:
    """The screens process of one club server: started, watched, started again, stopped.

    ``config``: the app's configuration the process builds its app with (the PIN, key and
    session secret included: it is sent over the Unix socket, never on a command line);
    ``db``: the store's address; ``server``: waitress's adjustments and the per-address cap."""

    def __init__(self, db: str, config: dict[str, Any], server: dict[str, Any]) -> None:
        self.setup = {"db": db, "config": config, "server": server}
        self._sock: socket.socket | None = None
        self.process: subprocess.Popen | None = None
        self.handed = 0  # connections handed over (all processes together)
        self.starts = 0
        self._stopping = threading.Event()
        self._watcher: threading.Thread | None = None

    def start(self) -> Screens:
        self._spawn()
        self._watcher = threading.Thread(target=self._watch, name="screens-watch", daemon=True)
        self._watcher.start()
        return self

    def _spawn(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(
                p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
            process = subprocess.Popen([sys.executable, "-m", "club.screens", str(theirs.fileno())],
                                       pass_fds=[theirs.fileno()], env=env, stdin=subprocess.DEVNULL)
        except OSError:
            ours.close()
            raise
        finally:
            theirs.close()
        ours.send(json.dumps(self.setup).encode("utf-8"))  # the process's first read
        ours.setblocking(False)  # a handover never waits: a full queue and the server serves it
        self.process, self._sock = process, ours
        self.starts += 1

    def hand_over(self, sock: socket.socket, addr: tuple) -> bool:
        """Pass the connection ``sock`` (from ``addr``) to the screens process; ``False`` when it
        cannot take it now (the caller serves it)."""
        ours = self._sock
        if ours is None:
            return False
        try:
            socket.send_fds(ours, [json.dumps([str(addr[0]), int(addr[1])]).encode("ascii")], [sock.fileno()])
        except (OSError, ValueError, IndexError, TypeError):
            return False
        self.handed += 1
        return True

    def _watch(self) -> None:
        while not self._stopping.wait(WATCH_S):
            process = self.process
            if process is None or process.poll() is None:
                continue
            log.warning("the hall screens process exited (%s): starting it again", process.returncode)
            self._close_socket()
            try:
                self._spawn()
            except OSError as exc:
                log.error("cannot start the hall screens process: %s (the server serves the screens)", exc)

    def _close_socket(self) -> None:
        ours, self._sock = self._sock, None
        if ours is not None:
            ours.close()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the process (it also stops by itself when the server's end of the socket closes)."""
        self._stopping.set()
        self._close_socket()
        process = self.process
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def handing_over(channel_class: type, screens: Screens) -> type:
    """``channel_class`` (waitress's HTTP connection) that hands a hall screen's connection to
    ``screens`` before reading it (see the module's docstring)."""

    class HandingOver(channel_class):
        looked = False

        def handle_read(self) -> None:
            if not self.looked:
                self.looked = True
                if self._hand_over():
                    return
            super().handle_read()

        def _hand_over(self) -> bool:
            try:
                head = self.socket.recv(PEEK, socket.MSG_PEEK)
            except OSError:
                return False
            if not wants_hall(head) or not isinstance(self.addr, tuple):
                return False
            if not screens.hand_over(self.socket, self.addr):
                return False
            self.handle_close()  # our copy of the socket only: the screens process holds it open
            return True

    return HandingOver


def hand_hall_over(server: Any, screens: Screens) -> None:
    """Make every listener of the waitress ``server`` hand hall screens to ``screens``."""
    from webkit.server import listeners

    for listener in listeners(server):
        listener.channel_class = handing_over(listener.channel_class, screens)


# ---------------------------------------------------------------------- the screens process
def reads_only(channel_class: type) -> type:
    """``channel_class`` (waitress's HTTP connection) answering only GET and HEAD: anything else
    is sent back to the club server, a 307 to the same address with this connection closed, so
    the browser sends it again on a new connection, which the server keeps."""
    from waitress.task import WSGITask

    class ReadsOnlyTask(WSGITask):
        def execute(self) -> None:
            if self.request.command in ("GET", "HEAD"):
                super().execute()
                return
            target = (self.request.first_line or b"").split(b" ")
            self.status = "307 Temporary Redirect"
            self.response_headers = [("Location", (target[1] if len(target) > 2 else b"/").decode("latin-1")),
                                     ("Content-Length", "0")]
            self.complete = True  # what start_response marks: the answer's status and headers are set
            self.set_close_on_finish()  # the new connection starts with this request: the server keeps it

    class ReadsOnly(channel_class):
        task_class = ReadsOnlyTask

    return ReadsOnly


def receiver(sock: socket.socket, server: Any) -> Any:
    """The dispatcher, in the waitress ``server``'s own loop, that takes the connections the
    club server hands over on ``sock`` and serves them as if ``server`` had accepted them; the
    socket closing (the club server stopped or was killed) ends the loop."""
    from waitress import wasyncore

    class Receiver(wasyncore.dispatcher):
        def readable(self) -> bool:
            return True

        def writable(self) -> bool:
            return False

        def handle_read(self) -> None:
            try:
                message, fds, _flags, _addr = socket.recv_fds(self.socket, 256, 4)
            except BlockingIOError:
                return
            except OSError:
                message, fds = b"", []
            if not message and not fds:
                raise SystemExit(0)  # the club server is gone: so are its screens
            try:
                host, port = json.loads(message)
                addr: tuple = (str(host), int(port))
            except (ValueError, TypeError):
                addr = ("", 0)
            for fd in fds:
                conn = socket.socket(fileno=fd)
                try:
                    server.channel_class(server, conn, addr, server.adj, map=server._map)
                except OSError:
                    conn.close()

        def handle_close(self) -> None:
            raise SystemExit(0)

    return Receiver(sock, map=server._map)


def main(argv: list[str]) -> int:
    """``python -m club.screens FD``: serve the hall screens handed over on the Unix socket FD."""
    from club.app import build_app
    from club.storage import StorageError, open_storage
    from webkit.server import create_server

    sock = socket.socket(fileno=int(argv[0]))
    setup = json.loads(sock.recv(1 << 20))
    server_setup = dict(setup["server"])
    per_address = int(server_setup.pop("per_address"))
    db = setup["db"]
    try:
        storage = open_storage(db, **({"max_size": 4} if db.startswith(("postgresql://", "postgres://")) else {}))
    except (StorageError, OSError) as exc:
        print(f"ddz-table club (hall screens): {exc}", file=sys.stderr)
        return 1
    app = build_app({**setup["config"], "PROCESS": "screens"}, storage=storage)
    # the listener is never used: every connection comes over the socket
    server = create_server(app, per_address=per_address, host="127.0.0.1", port=0, **server_setup)
    server.channel_class = reads_only(server.channel_class)
    receiver(sock, server)
    live = app.extensions["club"].live
    threading.Thread(target=live.snapshot, name="screens-fold", daemon=True).start()  # fold before the first ask
    try:
        server.run()
    finally:
        storage.close()
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    os._exit(code)  # the waitress threads still serving streams are not waited for
