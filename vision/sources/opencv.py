"""Sources OpenCV reads (capture devices, network streams, video files), image folders and callables."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.files import IMAGE_SUFFIXES
from vision.sources.base import FrameSource, SourceError

STREAM_PREFIXES = ("rtsp://", "rtsps://", "http://", "https://", "tcp://", "udp://")
#: A network stream that sends nothing for this long fails its read (and is reopened by
#: ``Reconnecting``) instead of blocking for FFmpeg's own 30 s; opening one may take longer.
STREAM_READ_TIMEOUT_S = 3.0
STREAM_OPEN_TIMEOUT_S = 10.0


#: A video may end this many frames (or this share of its frames) short of the count its header
#: gives before it counts as cut short: some containers only estimate the count.
FRAMES_SHORT_OK = (2, 0.02)


class OpenCVSource(FrameSource):
    """A capture device (int: a USB webcam), a stream URL, or a video file through ``cv2.VideoCapture``.

    ``size`` asks a webcam for that resolution (it may pick the nearest it has; the status
    reports what came); ``fourcc`` (e.g. ``"MJPG"``) asks for compressed frames, which is how
    most USB webcams deliver 1080p at full frame rate over USB 2.
    """

    def __init__(self, target: int | str, size: tuple[int, int] | None = None, fourcc: str | None = None) -> None:
        self.target = target
        self.size = size
        self.fourcc = fourcc
        self.kind = "device" if isinstance(target, int) else (
            "stream" if str(target).lower().startswith(STREAM_PREFIXES) else "file")
        self.live = self.kind != "file"
        super().__init__(str(target))
        self._cap: cv2.VideoCapture | None = None
        self._expected: int | None = None  # frames a video file's header says it holds

    def _open(self) -> None:
        if self.kind == "file" and not Path(str(self.target)).is_file():
            raise SourceError(f"video file not found: {self.target}")
        if self.fourcc is not None and len(self.fourcc) != 4:
            raise SourceError(f"a fourcc is four letters (e.g. MJPG), not {self.fourcc!r}")
        cap = _stream_capture(str(self.target)) if self.kind == "stream" else cv2.VideoCapture(self.target)
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"cannot open {self.kind} {self.target}")
        if self.fourcc is not None:
            cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter.fourcc(*self.fourcc))
        if self.size is not None:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        self._cap = cap
        count = cap.get(cv2.CAP_PROP_FRAME_COUNT) if self.kind == "file" else 0
        self._expected = int(count) if count and count > 0 else None

    def _grab(self) -> tuple[np.ndarray, float | None] | None:
        assert self._cap is not None
        ok, image = self._cap.read()
        if not ok:
            if self.live:
                raise SourceError(f"{self.kind} {self.target} stopped delivering frames")
            # OpenCV reports a broken frame as the end: a video ending short of its header's count
            # is cut short or damaged.
            read, expected = self._status.frames, self._expected
            if expected is not None and expected - read > max(FRAMES_SHORT_OK[0], FRAMES_SHORT_OK[1] * expected):
                raise SourceError(f"the video ended after {read} of its {expected} frames (cut short or damaged)")
            return None
        # A file's frames carry the video's own clock, so replays are reproducible.
        stamp = self._cap.get(cv2.CAP_PROP_POS_MSEC) / 1000.0 if not self.live else None
        return image, stamp

    def _close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


def _stream_capture(url: str) -> cv2.VideoCapture:
    """A network stream through FFmpeg with open and read timeouts (a silent stream fails in
    seconds); a plain capture when this OpenCV has no FFmpeg (another backend may read it)."""
    if not cv2.videoio_registry.hasBackend(cv2.CAP_FFMPEG):
        return cv2.VideoCapture(url)
    timeouts = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, int(STREAM_OPEN_TIMEOUT_S * 1000),
                cv2.CAP_PROP_READ_TIMEOUT_MSEC, int(STREAM_READ_TIMEOUT_S * 1000)]
    return cv2.VideoCapture(url, cv2.CAP_FFMPEG, timeouts)


class ImageFolderSource(FrameSource):
    """The images of a folder in name order; timestamps ``index / fps``."""

    kind = "folder"
    live = False

    def __init__(self, folder: str | os.PathLike[str], fps: float = 10.0) -> None:
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
