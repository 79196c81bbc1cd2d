"""The rpicam-vid MJPEG/TCP source against a local server that speaks like ``rpicam-vid --listen``."""

from __future__ import annotations

import socket
import threading

import cv2
import numpy as np
import pytest

from vision.sources import MjpegStreamSource, Reconnecting, SourceError, open_source


def jpeg(value: int, size=(64, 48)) -> bytes:
    image = np.full((size[1], size[0], 3), value, np.uint8)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    return data.tobytes()


class Server:
    """Serves each connection one payload (in small, oddly sized pieces), then hangs up."""

    def __init__(self, payloads: list[bytes]):
        self.payloads, self.connections = list(payloads), 0
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while self.payloads:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            data = self.payloads.pop(0)
            with conn:
                for i in range(0, len(data), 777):  # frames straddle the reads
                    conn.sendall(data[i:i + 777])

    def close(self):
        self.sock.close()


@pytest.fixture
def server():
    made = []

    def make(payloads):
        made.append(Server(payloads))
        return made[-1]

    yield make
    for s in made:
        s.close()


def test_frames_are_cut_at_jpeg_markers(server):
    srv = server([b"junk before the first frame" + jpeg(10) + jpeg(120) + jpeg(250)])
    src = open_source(f"tcp://127.0.0.1:{srv.port}", reconnect=False)
    assert isinstance(src, MjpegStreamSource) and src.live
    frames = [src.read() for _ in range(3)]
    assert [int(f.image[5, 5, 1]) for f in frames] == pytest.approx([10, 120, 250], abs=3)
    assert frames[0].image.shape == (48, 64, 3) and [f.index for f in frames] == [0, 1, 2]
    with pytest.raises(SourceError, match="closed the stream"):
        src.read()  # rpicam-vid hung up
    src.close()


def test_a_torn_frame_is_skipped(server):
    torn = jpeg(60)[:200] + b"\xff\xd9"  # start and end markers, nothing decodable between
    srv = server([torn + jpeg(200)])
    src = MjpegStreamSource(f"tcp://127.0.0.1:{srv.port}")
    assert int(src.read().image[5, 5, 0]) == pytest.approx(200, abs=3)
    src.close()


def test_dropped_stream_is_reopened(server):
    srv = server([jpeg(50), jpeg(90) + jpeg(91)])
    sleeps = []
    src = Reconnecting(MjpegStreamSource(f"tcp://127.0.0.1:{srv.port}"), sleep=sleeps.append)
    values = [int(src.read().image[5, 5, 2]) for _ in range(3)]
    assert values == pytest.approx([50, 90, 91], abs=3)
    assert srv.connections == 2 and sleeps == [0.5] and src.status().reconnects == 1
    src.close()


def test_h264_stream_says_to_use_mjpeg(server):
    srv = server([b"\x00\x00\x00\x01\x67\x64\x00\x28" + b"\x00" * 64])
    with pytest.raises(SourceError, match="--codec mjpeg"):
        MjpegStreamSource(f"tcp://127.0.0.1:{srv.port}").read()


def test_nobody_listening_and_bad_urls_are_clear():
    probe = socket.create_server(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # a port where nothing listens now
    with pytest.raises(SourceError, match="rpicam-vid"):
        MjpegStreamSource(f"tcp://127.0.0.1:{port}", timeout=1).read()
    with pytest.raises(SourceError, match="tcp://HOST:PORT"):
        MjpegStreamSource("tcp://nohost")


def test_silent_stream_times_out(server):
    listener = socket.create_server(("127.0.0.1", 0))  # accepts (backlog) but never sends
    try:
        src = MjpegStreamSource(f"tcp://127.0.0.1:{listener.getsockname()[1]}", timeout=0.3)
        with pytest.raises(SourceError, match="sent nothing"):
            src.read()
        src.close()
    finally:
        listener.close()
