"""Frame sources: files, folders, callables, a fake picamera2, reconnect with back-off."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.sources import (
    CallableSource,
    ImageFolderSource,
    LatestFrame,
    OpenCVSource,
    Reconnecting,
    SourceError,
    iter_frames,
    open_source,
    register_source,
)


def gradient(i, size=(64, 48)):
    img = np.zeros((size[1], size[0], 3), np.uint8)
    img[..., 1] = (i * 20) % 255
    return img


def test_video_file_frames_carry_the_video_clock(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48))
    for i in range(6):
        writer.write(gradient(i))
    writer.release()
    src = open_source(str(path))
    assert isinstance(src, OpenCVSource) and not src.live  # a file is not wrapped for reconnects
    frames = list(iter_frames(src))
    assert len(frames) == 6
    assert [round(f.time, 2) for f in frames[:3]] == [0.0, 0.1, 0.2]
    assert frames[0].image.shape == (48, 64, 3)
    assert src.status().state == "ended" and src.status().frames == 6


def test_image_folder_in_name_order(tmp_path):
    for i in (2, 0, 1):
        cv2.imwrite(str(tmp_path / f"f{i:03d}.png"), gradient(i))
    (tmp_path / "notes.txt").write_text("not an image")
    src = open_source(str(tmp_path), fps=5.0)
    assert isinstance(src, ImageFolderSource)
    frames = list(iter_frames(src))
    assert [int(f.image[0, 0, 1]) for f in frames] == [0, 20, 40]
    assert [f.time for f in frames] == [0.0, 0.2, 0.4]


def test_unreadable_sources_are_clear_errors(tmp_path):
    with pytest.raises(SourceError, match="no such camera"):
        open_source(str(tmp_path / "nothing.mp4"))
    with pytest.raises(SourceError, match="no images"):
        ImageFolderSource(tmp_path).read()
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"garbage" * 10)
    with pytest.raises(SourceError, match="cannot open"):
        OpenCVSource(str(junk)).read()
    bad = CallableSource(lambda i: "not an image")
    with pytest.raises(SourceError, match="not an 8-bit image"):
        bad.read()
    assert bad.status().state == "error"


def test_registered_prefix_builds_the_source():
    register_source("fake:", lambda spec: CallableSource(lambda i: None if i >= 3 else gradient(i), name=spec))
    src = open_source("fake:seed=1")
    assert src.name == "fake:seed=1" and len(list(iter_frames(src))) == 3


class Flaky:
    """A live camera that fails after ``fail_after`` frames; the next ``outages`` openings fail."""

    def __init__(self, fail_after=2, outages=2):
        self.opened, self.fail_after, self.outages = 0, fail_after, outages

    def source(self):
        flaky = self

        class Src(CallableSource):
            def _open(self):
                flaky.opened += 1
                if 1 < flaky.opened <= 1 + flaky.outages:
                    raise SourceError("camera unplugged")
                self.n = 0

            def _grab(self):
                self.n += 1
                if flaky.opened == 1 and self.n > flaky.fail_after:
                    raise SourceError("camera unplugged")
                return gradient(self.n), None

        return Src(lambda i: None, name="usb", live=True)


def test_dropped_live_source_is_reopened_with_back_off():
    flaky, sleeps = Flaky(), []
    src = Reconnecting(flaky.source(), backoff=(0.5, 1.0, 2.0), sleep=sleeps.append)
    frames = [src.read() for _ in range(8)]
    assert all(f is not None for f in frames)
    assert flaky.opened == 4 and sleeps == [0.5, 1.0, 2.0]  # back-off grows with consecutive failures
    status = src.status()
    assert status.reconnects == 3 and status.state == "running" and status.error is None
    assert status.frames == 8 and status.last_frame_time is not None


def test_status_tells_the_page_while_reconnecting():
    flaky, seen = Flaky(fail_after=1, outages=10), []
    src = Reconnecting(flaky.source(), backoff=(0.1,), max_attempts=3)
    src.sleep = lambda s: seen.append(src.status())
    src.read()
    with pytest.raises(SourceError):
        src.read()
    assert seen and seen[0].state == "reconnecting" and "unplugged" in seen[0].error
    assert src.status().state == "error"


def test_latest_frame_drops_the_backlog():
    src = CallableSource(lambda i: None if i >= 50 else gradient(i), name="fast")
    latest = LatestFrame(src).start()
    frames = []
    while (f := latest.read(timeout=2)) is not None:
        frames.append(f.index)
        import time
        time.sleep(0.01)
    latest.stop()
    assert frames == sorted(frames) and frames[-1] == 49
    assert len(frames) + latest.dropped == 50
