"""Telling systemd the table is alive (sd_notify), without libsystemd.

The service unit is ``Type=notify`` with ``WatchdogSec=``: systemd waits for ``READY=1``
before it counts the service as started, then expects ``WATCHDOG=1`` more often than the
watchdog interval, and restarts the service when the pings stop. The pings come from the
table session's main loop (``TableSession.heartbeat``), not from a timer thread, so a loop stuck in
the detector or the camera driver stops pinging and gets restarted; a camera that is merely
reconnecting keeps the loop turning and is shown on the page instead.

The protocol is one datagram of ``KEY=VALUE`` lines to the unix socket named by
``$NOTIFY_SOCKET`` (a leading ``@`` means Linux's abstract namespace). Outside systemd the
variable is unset and every call is a no-op.

>>> Notifier(None).ready("reading picamera:0")
False
"""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Callable, Mapping
from typing import Any


class Notifier:
    """Sends sd_notify messages; ``ping()`` is cheap enough to call every frame."""

    def __init__(self, address: str | None, watchdog_s: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.address = address or None
        self.watchdog_s = watchdog_s if watchdog_s and watchdog_s > 0 else None
        self.clock = clock
        self.sent = 0
        self._last_ping: float | None = None
        self._socket: socket.socket | None = None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, pid: int | None = None) -> Notifier:
        """The notifier systemd set up for this process (a no-op one outside systemd)."""
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET")
        usec = env.get("WATCHDOG_USEC", "")
        owner = env.get("WATCHDOG_PID", "")
        watchdog_s = None
        # WATCHDOG_PID names the process the watchdog is meant for (not a child we started).
        if usec.isdigit() and (not owner.isdigit() or int(owner) == (pid or os.getpid())):
            watchdog_s = int(usec) / 1e6
        return cls(address, watchdog_s)

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def notify(self, *fields: str) -> bool:
        """Send ``KEY=VALUE`` fields in one datagram; False when not under systemd or it failed."""
        if self.address is None:
            return False
        target = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        try:
            if self._socket is None:
                self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._socket.sendto("\n".join(fields).encode("utf-8"), target)
        except OSError:
            # systemd gone or the socket replaced: never let the referee die of a status message.
            self.close()
            return False
        self.sent += 1
        return True

    def ready(self, status: str | None = None) -> bool:
        fields = ["READY=1"] + ([f"STATUS={status}"] if status else [])
        ok = self.notify(*fields)
        self._last_ping = self.clock()
        return ok

    def status(self, text: str) -> bool:
        return self.notify(f"STATUS={text}")

    def stopping(self) -> bool:
        return self.notify("STOPPING=1")

    def ping(self) -> bool:
        """``WATCHDOG=1``, at most four times per watchdog interval (systemd asks for at least two)."""
        if self.watchdog_s is None or self.address is None:
            return False
        now = self.clock()
        if self._last_ping is not None and now - self._last_ping < self.watchdog_s / 4:
            return False
        self._last_ping = now
        return self.notify("WATCHDOG=1")

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None


def stop_on_sigterm(stop: Callable[[], Any]) -> Callable[[], None]:
    """``systemctl stop`` sends SIGTERM: end the loop as Ctrl-C would (the store is safe either way).

    Returns what puts the previous handler back (a no-op off the main thread, where Python
    cannot set handlers)."""
    def handler(signum: int, frame: Any) -> None:
        stop()

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:
        return lambda: None

    def restore() -> None:
        signal.signal(signal.SIGTERM, previous)

    return restore
