"""Frame sources: one interface for cameras, streams, files, image folders and the synthetic table.

Every source yields :class:`Frame` objects (a BGR ``uint8`` image, a timestamp in seconds
and a running index) from ``read()``; ``read()`` returns ``None`` when a finite source
(a video file, an image folder) is over, and raises :class:`SourceError` when a live one
drops. :class:`Reconnecting` wraps a live source and reopens it with back-off, and every
source reports a :class:`SourceStatus` (what, state, fps, last frame time, error, and for
a Pi camera its mode, focus and exposure) for the page.

``open_source(spec)`` picks the source from a string:

- ``picamera`` / ``picamera2``: a Raspberry Pi camera through picamera2 (guarded import),
  :mod:`vision.sources.picamera`;
- ``0``, ``1``, ...: a USB webcam (an OpenCV capture device);
- ``tcp://HOST:PORT``: an ``rpicam-vid --codec mjpeg --listen`` stream, :mod:`vision.sources.mjpeg`;
- ``rtsp://``, ``http(s)://``, ``udp://``: a network stream OpenCV (FFmpeg) reads;
- a folder: its images in name order; any other path: a video file;
- a prefix registered with :func:`register_source` (the synthetic table registers one).

>>> import numpy as np
>>> src = CallableSource(lambda i: None if i == 2 else np.zeros((4, 4, 3), np.uint8), name="demo")
>>> [f.index for f in iter_frames(src)], src.status().state
([0, 1], 'ended')
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from vision.files import IMAGE_SUFFIXES
from vision.sources.base import BACKOFF_S, Frame, FrameSource, SourceError, SourceStatus
from vision.sources.live import LatestFrame, Reconnecting
from vision.sources.mjpeg import MjpegStreamSource
from vision.sources.opencv import (
    STREAM_PREFIXES,
    CallableSource,
    ImageFolderSource,
    OpenCVSource,
)
from vision.sources.picamera import PiCameraSource

__all__ = [
    "BACKOFF_S", "IMAGE_SUFFIXES", "STREAM_PREFIXES", "CallableSource", "Frame", "FrameSource",
    "ImageFolderSource", "LatestFrame", "MjpegStreamSource", "OpenCVSource", "PiCameraSource", "Reconnecting",
    "SourceError", "SourceStatus", "iter_frames", "open_source", "register_source",
]

#: ``open_source`` options each kind of source takes (others are ignored, so one set of
#: options from the config file serves whichever camera is plugged in).
PICAMERA_OPTIONS = ("size", "settle_s", "height_mm", "camera", "mains_hz", "camera_num", "target_index_px", "mat")
DEVICE_OPTIONS = ("size", "fourcc")

SourceFactory = Callable[[str], FrameSource]
_FACTORIES: dict[str, SourceFactory] = {}


def register_source(prefix: str, factory: SourceFactory) -> None:
    """``open_source("<prefix>...")`` calls ``factory(spec)`` (e.g. ``synthetic:seed=3``)."""
    _FACTORIES[prefix] = factory


def open_source(spec: str | int, reconnect: bool = True, **options: Any) -> FrameSource:
    """The source a command-line ``--source`` names; live ones reconnect by themselves.

    options: ``size`` (width, height) for a camera; for a Pi camera also ``height_mm``,
    ``camera``, ``settle_s``, ``mains_hz`` (see :class:`PiCameraSource`); ``fourcc`` for a
    webcam; ``fps`` for an image folder.
    """
    if isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit()):
        # Most USB webcams give their full resolution at full frame rate only as MJPG.
        source: FrameSource = OpenCVSource(int(spec), **{"fourcc": "MJPG", **_pick(options, DEVICE_OPTIONS)})
    elif not isinstance(spec, str) or not spec:
        raise SourceError(f"bad source {spec!r}")
    elif any(spec.startswith(p) for p in _FACTORIES):
        prefix = next(p for p in _FACTORIES if spec.startswith(p))
        source = _FACTORIES[prefix](spec)
    elif spec.lower() in ("picamera", "picamera2", "pi"):
        source = PiCameraSource(**_pick(options, PICAMERA_OPTIONS))
    elif spec.lower().startswith("tcp://"):
        source = MjpegStreamSource(spec)
    elif spec.lower().startswith(STREAM_PREFIXES):
        source = OpenCVSource(spec)
    elif Path(spec).is_dir():
        source = ImageFolderSource(spec, options.get("fps", 10.0))
    elif Path(spec).is_file():
        source = OpenCVSource(spec)
    else:
        raise SourceError(f"no such camera, stream, folder or file: {spec!r}")
    return Reconnecting(source) if reconnect and source.live else source


def _pick(options: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in options.items() if k in names and v is not None}


def iter_frames(source: FrameSource) -> Iterator[Frame]:
    """Every frame until the source ends (closing it afterwards)."""
    try:
        while (frame := source.read()) is not None:
            yield frame
    finally:
        source.close()
