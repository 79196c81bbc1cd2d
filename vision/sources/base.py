"""The frame-source interface: :class:`Frame`, :class:`SourceStatus` and :class:`FrameSource`."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

import cv2
import numpy as np

BACKOFF_S = (0.5, 1.0, 2.0, 5.0, 10.0)
#: A live source that has sent no frame for this many seconds is reported ``stalled``: a stream
#: whose server stops sending leaves a read blocked until the network gives up (FFmpeg: about
#: 30 s), and the page and the doctor should not call it running meanwhile.
STALL_S = 5.0


class SourceError(RuntimeError):
    """A source that cannot be opened or stopped delivering frames."""


@dataclass(frozen=True)
class Frame:
    image: np.ndarray
    time: float
    index: int


@dataclass
class SourceStatus:
    """What the page shows about the camera. ``state``: starting, running, stalled (a live source
    that has sent nothing for ``FrameSource.stall_s``; ``error`` says for how long), reconnecting,
    ended, error.

    ``camera`` holds what a real camera settled on (sensor mode, focus, exposure) for the page
    and ``ddz-table doctor``; empty for files and streams.
    """

    source: str
    kind: str
    state: str = "starting"
    fps: float = 0.0
    last_frame_time: float | None = None  # wall clock (Unix seconds)
    frames: int = 0
    error: str | None = None
    reconnects: int = 0
    size: tuple[int, int] | None = None
    camera: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class FrameSource:
    """Base of every source: subclasses implement ``_open``, ``_grab`` and ``_close``.

    ``_grab`` returns an image and an optional timestamp, ``None`` at the end, or raises.
    """

    kind = "source"
    live = True
    #: Seconds without a frame before a live source's status says ``stalled``.
    stall_s = STALL_S

    def __init__(self, name: str) -> None:
        self.name = name
        self._status = SourceStatus(name, self.kind)
        self._opened = False
        self._index = 0
        self._t_prev: float | None = None

    def open(self) -> FrameSource:
        if not self._opened:
            try:
                self._open()
            except SourceError as exc:
                self._status.state, self._status.error = "error", str(exc)
                raise
            self._opened = True
        return self

    def read(self) -> Frame | None:
        self.open()
        try:
            got = self._grab()
            if got is None:
                self._status.state = "ended"
                return None
            image, stamp = got
            image = as_bgr(image, self.name)
        except SourceError as exc:
            self._status.state, self._status.error = "error", str(exc)
            raise
        now = time.time()
        frame = Frame(image, now if stamp is None else stamp, self._index)
        self._index += 1
        self._account(now, image)
        return frame

    def close(self) -> None:
        if self._opened:
            self._opened = False
            self._close()

    def status(self) -> SourceStatus:
        status = SourceStatus(**asdict(self._status))
        return stalled(status, self.live, self.stall_s)

    def lock_focus(self) -> bool:
        """Fix the focus where it is now (after calibration). False: this source has none to fix."""
        return False

    def _account(self, now: float, image: np.ndarray) -> None:
        s = self._status
        if self._t_prev is not None and now > self._t_prev:
            rate = 1.0 / (now - self._t_prev)
            s.fps = rate if s.fps == 0 else 0.9 * s.fps + 0.1 * rate
        self._t_prev = now
        s.state, s.error, s.frames, s.last_frame_time = "running", None, s.frames + 1, now
        s.size = (image.shape[1], image.shape[0])

    def __enter__(self) -> FrameSource:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # subclass hooks
    def _open(self) -> None: ...

    def _grab(self) -> tuple[np.ndarray, float | None] | None:
        raise NotImplementedError

    def _close(self) -> None: ...


def stalled(status: SourceStatus, live: bool, stall_s: float, now: float | None = None) -> SourceStatus:
    """``status`` as ``stalled`` when a live source said ``running`` but its last frame is older
    than ``stall_s`` seconds (a read still blocked on a silent camera or stream)."""
    if not live or status.state != "running" or status.last_frame_time is None:
        return status
    quiet = (time.time() if now is None else now) - status.last_frame_time
    if quiet > stall_s:
        status.state, status.error = "stalled", f"no frame for {quiet:.0f} s"
    return status


def as_bgr(image: Any, name: str) -> np.ndarray:
    """A source's image as ``HxWx3`` BGR ``uint8`` (grey is expanded, alpha dropped)."""
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim not in (2, 3):
        raise SourceError(f"{name} delivered something that is not an 8-bit image")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return image[..., :3]
    return image
