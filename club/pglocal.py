"""A private PostgreSQL server in a folder: to try the club store on PostgreSQL without
setting one up, and what the tests and ``bench/club.py`` run against.

``initdb`` and ``postgres`` refuse to run as root, so as root they run as an unprivileged
system user (``postgres`` from Debian's package, else ``nobody``) that owns the folder. The
server listens only on a Unix socket in the folder, on a free port number, with ``trust``
authentication for its own user; :meth:`LocalPostgres.stop` shuts it down and removes the folder.

    with LocalPostgres() as pg:
        storage = open_storage(pg.url)
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

#: Debian keeps the server programs out of PATH.
SEARCH = ("/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin")


def find_program(name: str) -> str:
    found = shutil.which(name)
    for folder in SEARCH:
        if found is None and Path(folder, name).exists():
            found = str(Path(folder, name))
    if found is None:
        raise FileNotFoundError(f"{name} not found: install PostgreSQL (apt-get install postgresql)")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalPostgres:
    def __init__(self, durable: bool = True, user: str | None = None) -> None:
        self.durable = durable  # False: no fsync (tests), True: the server's defaults (benchmarks)
        self.folder = Path(tempfile.mkdtemp(prefix="ddz-club-pg-"))
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.user = user or (("postgres" if _exists("postgres") else "nobody") if os.geteuid() == 0 else None)

    @property
    def url(self) -> str:
        role = self.user or pwd.getpwuid(os.geteuid()).pw_name
        return f"postgresql://{role}@/postgres?host={self.folder}&port={self.port}"

    def _as_user(self) -> dict:
        if self.user is None:
            return {}
        entry = pwd.getpwnam(self.user)
        return {"user": entry.pw_uid, "group": entry.pw_gid}

    def start(self, timeout: float = 30.0) -> LocalPostgres:
        data = self.folder / "data"
        if self.user is not None:
            entry = pwd.getpwnam(self.user)
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
        subprocess.run([find_program("initdb"), "-D", str(data), "-A", "trust", "-E", "UTF8", "--no-locale"],
                       check=True, capture_output=True, cwd=self.folder, **self._as_user())
        settings = ["-c", "listen_addresses=", "-c", f"unix_socket_directories={self.folder}",
                    "-c", "max_connections=200"]
        if not self.durable:
            settings += ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
        self.process = subprocess.Popen([find_program("postgres"), "-D", str(data), "-p", str(self.port), *settings],
                                        stdout=subprocess.DEVNULL, stderr=open(self.folder / "server.log", "wb"),
                                        cwd=self.folder, **self._as_user())
        deadline = time.monotonic() + timeout
        while not (self.folder / f".s.PGSQL.{self.port}").exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                log = (self.folder / "server.log").read_text(errors="replace")[-2000:]
                self.stop()
                raise RuntimeError(f"PostgreSQL did not start:\n{log}")
            time.sleep(0.05)
        time.sleep(0.2)  # the socket file appears just before the server accepts connections
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(2)  # SIGINT: "fast" shutdown (SIGTERM's "smart" one waits for clients)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> LocalPostgres:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _exists(user: str) -> bool:
    try:
        pwd.getpwnam(user)
    except KeyError:
        return False
    return True
