"""Server-Sent Events: one watcher thread polls the store, every viewer's stream waits on it.

The pipeline may write the store from another process, so the only change signal that
always works is the store's global ``last_seq``; one thread polls it every ``interval``
seconds (50 ms by default: a cheap indexed ``MAX``) and wakes every waiting stream at once.
Writes made by this process call :meth:`Watcher.poke` to wake the streams without waiting
for the next poll.

Each stream holds one server thread (waitress is threaded), so the number of open streams
is capped (``limit``); a viewer over the cap gets 503 and the page falls back to polling
``/api/state``. Streams send a comment every ``keepalive`` seconds so a vanished phone is
noticed, and close after ``lifetime`` seconds (the browser reconnects by itself), which
keeps threads from being held forever by tabs left open.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from tracker.store import EventStore


class Watcher:
    """Wakes waiting streams when the store's ``last_seq`` moves."""

    def __init__(self, store: EventStore, interval: float = 0.05, limit: int = 200) -> None:
        self.store = store
        self.interval = interval
        self.limit = limit
        self.seq = store.last_seq()
        self.streams = 0
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def _ensure_running(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="ddz-sse-watcher", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                seq = self.store.last_seq()
            except Exception:  # noqa: BLE001 - a closed or busy store: try again next tick
                continue
            if seq != self.seq:
                self._set(seq)

    def _set(self, seq: int) -> None:
        with self._cond:
            self.seq = seq
            self._cond.notify_all()

    def poke(self) -> None:
        """Something was appended in this process: wake the streams now."""
        self._set(self.store.last_seq())

    def wait(self, seen: int, timeout: float) -> int:
        """Block until ``seq`` differs from ``seen`` (or ``timeout``); return the current seq."""
        with self._cond:
            self._cond.wait_for(lambda: self.seq != seen or self._stop.is_set(), timeout)
            return self.seq

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def stop(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()

    def acquire(self) -> bool:
        """Take a stream slot (False when the cap is reached)."""
        with self._cond:
            if self.streams >= self.limit:
                return False
            self.streams += 1
        self._ensure_running()
        return True

    def release(self) -> None:
        with self._cond:
            self.streams = max(0, self.streams - 1)


def message(data: Any, event: str = "state", ident: int | None = None) -> str:
    """One SSE message; ``data`` is sent as one line of JSON."""
    head = f"event: {event}\n" + (f"id: {ident}\n" if ident is not None else "")
    return head + "data: " + json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n\n"


def stream(watcher: Watcher, render: Callable[[], tuple[Any, str]], keepalive: float = 15.0,
           lifetime: float = 600.0, retry_ms: int = 1000, tick: float | None = None) -> Iterator[str]:
    """The body of one viewer's stream: the state now, then again after every change.

    ``render()`` returns a key for what it shows (the store's seq, say) and the whole message
    for it (see :func:`message`); it should be cached, since every viewer asks for the same
    one at the same moment. The watcher may lag the store by one poll, so a wake-up that
    renders what was already sent sends nothing. With ``tick``, ``render()`` is also asked
    every ``tick`` seconds, for what changes without the store (the camera's state). The
    caller releases the slot taken with :meth:`Watcher.acquire` when the response closes
    (the server closes it whether the body ran to its end, the viewer went away, or it never
    started).
    """
    yield f"retry: {retry_ms}\n\n"
    seen = watcher.seq
    sent, text = render()
    yield text
    opened = written = time.monotonic()
    wait = keepalive if tick is None else min(tick, keepalive)
    while time.monotonic() - opened < lifetime and not watcher.stopped:
        seq = watcher.wait(seen, wait)
        if seq == seen and tick is None:
            yield ": keepalive\n\n"
            continue
        seen = seq
        current, text = render()
        now = time.monotonic()
        if current != sent:
            sent, written = current, now
            yield text
        elif now - written >= keepalive:
            written = now
            yield ": keepalive\n\n"
