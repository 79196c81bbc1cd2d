"""Frame sources: one interface for cameras, streams, files, image folders and the synthetic table.

Every source yields :class:`Frame` objects (a BGR ``uint8`` image, a timestamp in seconds
and a running index) from ``read()``; ``read()`` returns ``None`` when a finite source
(a video file, an image folder) is over, and raises :class:`SourceError` when a live one
drops. :class:`Reconnecting` wraps a live source and reopens it with back-off, and every
source reports a :class:`SourceStatus` (what, state, fps, last frame time, error) for the page.

``open_source(spec)`` picks the source from a string:

- ``picamera`` / ``picamera2``: a Raspberry Pi camera through picamera2 (guarded import);
- ``0``, ``1``, ...: an OpenCV capture device;
- ``rtsp://``, ``http(s)://``, ``tcp://``, ``udp://``: a network stream (``rpicam-vid`` MJPEG/TCP);
- a folder: its images in name order; any other path: a video file;
- a prefix registered with :func:`register_source` (the synthetic table registers one).

>>> import numpy as np
>>> src = CallableSource(lambda i: None if i == 2 else np.zeros((4, 4, 3), np.uint8), name="demo")
>>> [f.index for f in iter_frames(src)], src.status().state
([0, 1], 'ended')
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
STREAM_PREFIXES = ("rtsp://", "rtsps://", "http://", "https://", "tcp://", "udp://")
BACKOFF_S = (0.5, 1.0, 2.0, 5.0, 10.0)


class SourceError(RuntimeError):
    """A source that cannot be opened or stopped delivering frames."""


@dataclass(frozen=True)
class Frame:
    image: np.ndarray
    time: float
    index: int


@dataclass
class SourceStatus:
    """What the page shows about the camera. ``state``: starting, running, reconnecting, ended, error."""

    source: str
    kind: str
    state: str = "starting"
    fps: float = 0.0
    last_frame_time: float | None = None  # wall clock (Unix seconds)
    frames: int = 0
    error: str | None = None
    reconnects: int = 0
    size: tuple[int, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class FrameSource:
    """Base of every source: subclasses implement ``_open``, ``_grab`` and ``_close``.

    ``_grab`` returns an image and an optional timestamp, ``None`` at the end, or raises.
    """

    kind = "source"
    live = True

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
            image = _as_bgr(image, self.name)
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
        return SourceStatus(**asdict(self._status))

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


def _as_bgr(image: Any, name: str) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim not in (2, 3):
        raise SourceError(f"{name} delivered something that is not an 8-bit image")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return image[..., :3]
    return image


# ---------------------------------------------------------------------- OpenCV
class OpenCVSource(FrameSource):
    """A capture device (int), a stream URL, or a video file through ``cv2.VideoCapture``."""

    def __init__(self, target: int | str, size: tuple[int, int] | None = None) -> None:
        self.target = target
        self.size = size
        self.kind = "device" if isinstance(target, int) else (
            "stream" if str(target).lower().startswith(STREAM_PREFIXES) else "file")
        self.live = self.kind != "file"
        super().__init__(str(target))
        self._cap: cv2.VideoCapture | None = None

    def _open(self) -> None:
        if self.kind == "file" and not Path(str(self.target)).is_file():
            raise SourceError(f"video file not found: {self.target}")
        cap = cv2.VideoCapture(self.target)
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"cannot open {self.kind} {self.target}")
        if self.size is not None:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        self._cap = cap

    def _grab(self) -> tuple[np.ndarray, float | None] | None:
        assert self._cap is not None
        ok, image = self._cap.read()
        if not ok:
            if self.live:
                raise SourceError(f"{self.kind} {self.target} stopped delivering frames")
            return None
        # A file's frames carry the video's own clock, so replays are reproducible.
        stamp = self._cap.get(cv2.CAP_PROP_POS_MSEC) / 1000.0 if not self.live else None
        return image, stamp

    def _close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


# ---------------------------------------------------------------------- folders, callables
class ImageFolderSource(FrameSource):
    """The images of a folder in name order; timestamps ``index / fps``."""

    kind = "folder"
    live = False

    def __init__(self, folder: str | os.PathLike, fps: float = 10.0) -> None:
        super().__init__(str(folder))
        self.folder, self.fps = Path(folder), fps
        self._files: list[Path] = []

    def _open(self) -> None:
        if not self.folder.is_dir():
            raise SourceError(f"not a folder: {self.folder}")
        self._files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self._files:
            raise SourceError(f"no images ({', '.join(IMAGE_SUFFIXES)}) in {self.folder}")

    def _grab(self) -> tuple[np.ndarray, float | None] | None:
        if self._index >= len(self._files):
            return None
        path = self._files[self._index]
        image = cv2.imdecode(np.fromfile(str(path), np.uint8), cv2.IMREAD_COLOR)
        if image is None:
            raise SourceError(f"cannot read image {path}")
        return image, self._index / self.fps


class CallableSource(FrameSource):
    """Frames from ``render(index)`` (an image, ``(image, time)``, or ``None`` at the end).

    The synthetic table plugs in here; so do tests."""

    kind = "callable"

    def __init__(self, render: Callable[[int], Any], name: str = "synthetic", live: bool = False,
                 fps: float | None = None) -> None:
        super().__init__(name)
        self.render, self.live, self.fps = render, live, fps

    def _grab(self) -> tuple[np.ndarray, float | None] | None:
        got = self.render(self._index)
        if got is None:
            return None
        if isinstance(got, tuple):
            return got[0], float(got[1])
        return got, (self._index / self.fps if self.fps else None)


# ---------------------------------------------------------------------- picamera2
class PiCameraSource(FrameSource):
    """A Raspberry Pi camera through picamera2 (``python3-picamera2`` from Raspberry Pi OS).

    Autofocus runs continuously and exposure and white balance automatically for ``settle_s``
    seconds; then they are locked at the values the camera settled on (no flicker between
    frames), and ``lock_focus()`` fixes the lens where it is (call it after calibration).
    """

    kind = "picamera"

    def __init__(self, size: tuple[int, int] = (2304, 1296), settle_s: float = 2.0, camera_num: int = 0) -> None:
        super().__init__(f"picamera:{camera_num}")
        self.size, self.settle_s, self.camera_num = size, settle_s, camera_num
        self._cam: Any = None
        self._started = 0.0
        self.locked = False

    def _open(self) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError:
            raise SourceError("picamera2 is not installed: on Raspberry Pi OS run `sudo apt install "
                              "python3-picamera2` and create the venv with --system-site-packages") from None
        try:
            cam = Picamera2(self.camera_num)
            config = cam.create_video_configuration(main={"size": tuple(self.size), "format": "RGB888"},
                                                    buffer_count=4)
            cam.configure(config)
            cam.set_controls({"AfMode": 2, "AeEnable": True, "AwbEnable": True})  # 2: continuous AF
            cam.start()
        except Exception as exc:  # noqa: BLE001 - picamera2 raises many kinds; all mean "no camera"
            raise SourceError(f"cannot start the Pi camera: {exc}") from None
        self._cam, self._started, self.locked = cam, time.monotonic(), False

    def _grab(self) -> tuple[np.ndarray, float | None] | None:
        try:
            image = self._cam.capture_array("main")  # "RGB888" is B, G, R in memory: already BGR
        except Exception as exc:  # noqa: BLE001
            raise SourceError(f"the Pi camera stopped delivering frames: {exc}") from None
        if image is None:
            raise SourceError("the Pi camera stopped delivering frames")
        if not self.locked and time.monotonic() - self._started >= self.settle_s:
            self.lock_exposure()
        return image, None

    def lock_exposure(self) -> None:
        """Fix exposure, gain and white balance at their current values."""
        meta = self._cam.capture_metadata()
        controls: dict[str, Any] = {"AeEnable": False, "AwbEnable": False}
        for key in ("ExposureTime", "AnalogueGain", "ColourGains"):
            if key in meta:
                controls[key] = meta[key]
        self._cam.set_controls(controls)
        self.locked = True

    def lock_focus(self) -> None:
        """Stop autofocus at the lens position it found (after calibration)."""
        meta = self._cam.capture_metadata()
        controls: dict[str, Any] = {"AfMode": 0}
        if "LensPosition" in meta:
            controls["LensPosition"] = meta["LensPosition"]
        self._cam.set_controls(controls)

    def _close(self) -> None:
        if self._cam is not None:
            try:
                self._cam.stop()
                self._cam.close()
            finally:
                self._cam = None


# ---------------------------------------------------------------------- reconnecting
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

    def stop(self) -> None:
        """Make a blocked ``read()`` give up (at the end of its current sleep)."""
        self._stop.set()

    def close(self) -> None:
        self.inner.close()


# ---------------------------------------------------------------------- choosing one
SourceFactory = Callable[[str], FrameSource]
_FACTORIES: dict[str, SourceFactory] = {}


def register_source(prefix: str, factory: SourceFactory) -> None:
    """``open_source("<prefix>...")`` calls ``factory(spec)`` (e.g. ``synthetic:seed=3``)."""
    _FACTORIES[prefix] = factory


def open_source(spec: str | int, reconnect: bool = True, **options: Any) -> FrameSource:
    """The source a command-line ``--source`` names; live ones reconnect by themselves."""
    if isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit()):
        source: FrameSource = OpenCVSource(int(spec), options.get("size"))
    elif not isinstance(spec, str) or not spec:
        raise SourceError(f"bad source {spec!r}")
    elif any(spec.startswith(p) for p in _FACTORIES):
        prefix = next(p for p in _FACTORIES if spec.startswith(p))
        source = _FACTORIES[prefix](spec)
    elif spec.lower() in ("picamera", "picamera2", "pi"):
        source = PiCameraSource(**{k: v for k, v in options.items() if k in ("size", "settle_s")})
    elif spec.lower().startswith(STREAM_PREFIXES):
        source = OpenCVSource(spec)
    elif Path(spec).is_dir():
        source = ImageFolderSource(spec, options.get("fps", 10.0))
    elif Path(spec).is_file():
        source = OpenCVSource(spec)
    else:
        raise SourceError(f"no such camera, stream, folder or file: {spec!r}")
    return Reconnecting(source) if reconnect and source.live else source


def iter_frames(source: FrameSource) -> Iterator[Frame]:
    """Every frame until the source ends (closing it afterwards)."""
    try:
        while (frame := source.read()) is not None:
            yield frame
    finally:
        source.close()


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

    def read(self, timeout: float | None = None) -> Frame | None:
        """The newest unseen frame; ``None`` once the source has ended and all is read."""
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
