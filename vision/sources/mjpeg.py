"""An MJPEG stream over plain TCP, as ``rpicam-vid --codec mjpeg --listen -o tcp://0.0.0.0:8888`` sends it.

The stream is bare JPEG images back to back (no HTTP, no container), so frames are cut at
the JPEG start and end markers and decoded with OpenCV. This lets a camera Pi (or any
machine with ``rpicam-vid``) feed a ``ddz-table`` running elsewhere: ``--source tcp://pi:8888``.
``rpicam-vid --listen`` serves one client and exits when it leaves, so run it in a loop;
this source reopens the connection with back-off when it drops (see ``Reconnecting``).
"""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import cv2
import numpy as np

from vision.sources.base import FrameSource, SourceError

SOI, EOI = b"\xff\xd8", b"\xff\xd9"
#: A frame bigger than this without an end marker means the stream is not MJPEG.
MAX_FRAME_BYTES = 16 << 20
#: Undecodable frames in a row before the stream counts as broken.
MAX_BAD_FRAMES = 5


class MjpegStreamSource(FrameSource):
    """Frames of a ``tcp://host:port`` MJPEG stream; ``timeout``: seconds without data before it fails."""

    kind = "stream"
    live = True

    def __init__(self, url: str, timeout: float = 5.0, chunk: int = 1 << 16) -> None:
        super().__init__(url)
        parts = urlsplit(url)
        if parts.scheme != "tcp" or not parts.hostname or not parts.port:
            raise SourceError(f"an MJPEG stream is tcp://HOST:PORT, not {url!r}")
        self.host, self.port, self.timeout, self.chunk = parts.hostname, parts.port, timeout, chunk
        self._sock: socket.socket | None = None
        self._buffer = bytearray()
        self._checked = False

    def _open(self) -> None:
        try:
            self._sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        except OSError as exc:
            raise SourceError(f"cannot connect to {self.name} ({exc.strerror or exc}); is `rpicam-vid "
                              "--codec mjpeg --listen -o tcp://0.0.0.0:PORT` running there?") from None
        self._buffer.clear()
        self._checked = False

    def _grab(self) -> tuple[np.ndarray, float | None] | None:
        bad = 0
        while True:
            data = self._next_jpeg()
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
            if image is not None:
                return image, None
            bad += 1  # a frame torn by a network hiccup: skip it, but not for ever
            if bad >= MAX_BAD_FRAMES:
                raise SourceError(f"{self.name}: {bad} undecodable JPEG frames in a row")

    def _next_jpeg(self) -> bytes:
        while True:
            start = self._buffer.find(SOI)
            if start >= 0:
                end = self._buffer.find(EOI, start + 2)
                if end >= 0:
                    data = bytes(self._buffer[start:end + 2])
                    del self._buffer[:end + 2]
                    return data
                if start > 0:
                    del self._buffer[:start]
            elif len(self._buffer) > 1:
                del self._buffer[:-1]  # no frame starts here; keep a byte that may begin a marker
            self._receive()

    def _receive(self) -> None:
        assert self._sock is not None
        try:
            data = self._sock.recv(self.chunk)
        except TimeoutError:
            raise SourceError(f"{self.name} sent nothing for {self.timeout:.0f} s") from None
        except OSError as exc:
            raise SourceError(f"{self.name} dropped: {exc}") from None
        if not data:
            raise SourceError(f"{self.name} closed the stream (rpicam-vid stopped?)")
        if not self._checked:
            self._check_codec(data)
        self._buffer += data
        if len(self._buffer) > MAX_FRAME_BYTES:
            raise SourceError(f"{self.name}: no complete JPEG in {MAX_FRAME_BYTES >> 20} MB; is it MJPEG?")

    def _check_codec(self, data: bytes) -> None:
        # rpicam-vid's default codec is H.264, whose byte stream opens with a start code.
        if data.startswith((b"\x00\x00\x00\x01", b"\x00\x00\x01")):
            raise SourceError(f"{self.name} sends H.264, not MJPEG: start rpicam-vid with --codec mjpeg")
        self._checked = True

    def _close(self) -> None:
        if self._sock is not None:
            try:
                self._sock.close()
            finally:
                self._sock = None
