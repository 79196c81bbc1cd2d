"""Keeping a live source going: reopen it with back-off, and hand a slow consumer only the newest frame."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from vision.sources.base import BACKOFF_S, Frame, FrameSource, SourceError, SourceStatus


class Reconnecting(FrameSource):
    """Wraps a live source: when it fails, close it and reopen with back-off, for ever.

    ``read()`` blocks while reconnecting (``sleep`` is injectable for tests) and never raises
    for a dropped camera; the status says ``reconnecting`` with the error meanwhile.
    """

    def __init__(self, inner: FrameSource, backoff: tuple[float, ...] = BACKOFF_S,
                 sleep: Callable[[float], None] = time.sleep, max_attempts: int | None = None) -> None:
        super().__init__(inner.name)
        self.inner, self.backoff, self.sleep, self.max_attempts = inner, backoff, sleep, max_attempts
        self.kind, self.live = inner.kind, inner.live
        self._status = SourceStatus(inner.name, inner.kind)
        self._stop = threading.Event()
        self._failures = 0  # in a row: the back-off grows until a frame comes through

    def read(self) -> Frame | None:
        while not self._stop.is_set():
            try:
                frame = self.inner.read()
            except SourceError as exc:
                self.inner.close()
                self._status.state, self._status.error = "reconnecting", str(exc)
                if self.max_attempts is not None and self._failures >= self.max_attempts:
                    self._status.state = "error"
                    raise
                self.sleep(self.backoff[min(self._failures, len(self.backoff) - 1)])
                self._failures += 1
                self._status.reconnects += 1
                continue
            self._failures = 0
            if frame is None:
                self._status.state = "ended"
                return None
            self._account(time.time(), frame.image)
            return frame
        return None

    def status(self) -> SourceStatus:
        status = super().status()
        status.camera = self.inner.status().camera
        return status

    def lock_focus(self) -> bool:
        return self.inner.lock_focus()

    def stop(self) -> None:
        """Make a blocked ``read()`` give up (at the end of its current sleep)."""
        self._stop.set()

    def close(self) -> None:
        self.inner.close()


@dataclass
class LatestFrame:
    """Reads a live source on a thread and keeps only the newest frame, so a slow consumer
    always gets the present, never a backlog of old frames."""

    source: FrameSource
    _frame: Frame | None = field(default=None, init=False)
    _done: bool = field(default=False, init=False)
    _cond: threading.Condition = field(default_factory=threading.Condition, init=False)
    _thread: threading.Thread | None = field(default=None, init=False)
    dropped: int = field(default=0, init=False)

    def start(self) -> LatestFrame:
        self._thread = threading.Thread(target=self._run, name=f"frames:{self.source.name}", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            while not self._done:
                frame = self.source.read()
                with self._cond:
                    if frame is None:
                        self._done = True
                    elif self._frame is not None:
                        self.dropped += 1
                    self._frame = frame if frame is not None else self._frame
                    self._cond.notify_all()
        except SourceError:
            with self._cond:
                self._done = True
                self._cond.notify_all()

    @property
    def ended(self) -> bool:
        """No frame will come any more: the source ended or failed, or :meth:`stop` was called.
        ``read()`` returning None before then only means no frame came within its timeout (a
        live source reconnecting)."""
        return self._done

    def read(self, timeout: float | None = None) -> Frame | None:
        """The newest unseen frame; ``None`` once the source has ended and all is read (or no
        frame came within ``timeout``: :attr:`ended` tells the two apart)."""
        with self._cond:
            if not self._cond.wait_for(lambda: self._frame is not None or self._done, timeout):
                return None
            frame, self._frame = self._frame, None
            return frame

    def stop(self) -> None:
        self._done = True
        if isinstance(self.source, Reconnecting):
            self.source.stop()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self.source.close()

    def status(self) -> SourceStatus:
        return self.source.status()

    def lock_focus(self) -> bool:
        return self.source.lock_focus()
