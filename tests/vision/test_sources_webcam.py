"""USB webcams through OpenCV: options reach the capture, bad ones are clear errors, camera status."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.sources import CallableSource, OpenCVSource, Reconnecting, SourceError, open_source


class FakeCapture:
    """cv2.VideoCapture for a webcam that gives ``frames`` frames then unplugs."""

    made: list[FakeCapture] = []

    def __init__(self, target):
        self.target, self.props, self.reads = target, {}, 0
        FakeCapture.made.append(self)

    def isOpened(self):  # noqa: N802 - OpenCV's name
        return True

    def set(self, prop, value):
        self.props[prop] = value
        return True

    def get(self, prop):
        return self.props.get(prop, 0.0)

    def read(self):
        self.reads += 1
        if self.reads > 2:
            return False, None
        return True, np.zeros((int(self.props.get(cv2.CAP_PROP_FRAME_HEIGHT, 48)),
                                int(self.props.get(cv2.CAP_PROP_FRAME_WIDTH, 64)), 3), np.uint8)

    def release(self):
        pass


@pytest.fixture
def capture(monkeypatch):
    monkeypatch.setattr(FakeCapture, "made", [])
    monkeypatch.setattr(cv2, "VideoCapture", FakeCapture)
    return FakeCapture


def test_webcam_gets_size_and_fourcc_and_reconnects(capture):
    sleeps = []
    src = open_source("0", size=(1280, 720), fourcc="MJPG", height_mm=1000)  # Pi-only options ignored
    assert isinstance(src, Reconnecting) and isinstance(src.inner, OpenCVSource) and src.kind == "device"
    src.sleep = sleeps.append
    frames = [src.read() for _ in range(3)]
    assert frames[0].image.shape == (720, 1280, 3)
    cap = capture.made[0]
    assert cap.target == 0 and cap.props[cv2.CAP_PROP_FOURCC] == cv2.VideoWriter_fourcc(*"MJPG")
    assert len(capture.made) == 2 and sleeps == [0.5]  # unplugged after two frames, reopened


def test_webcam_asks_for_mjpg_unless_told_otherwise(capture):
    open_source(0, reconnect=False).read()
    open_source(0, reconnect=False, fourcc="YUYV").read()
    assert [c.props[cv2.CAP_PROP_FOURCC] for c in capture.made] == [
        cv2.VideoWriter_fourcc(*"MJPG"), cv2.VideoWriter_fourcc(*"YUYV")]


def test_bad_fourcc_is_clear(capture):
    with pytest.raises(SourceError, match="four letters"):
        OpenCVSource(0, fourcc="MJPEG").read()


def test_sources_without_a_lens_have_no_focus_to_lock():
    src = CallableSource(lambda i: np.zeros((4, 4, 3), np.uint8))
    assert src.lock_focus() is False and Reconnecting(src).lock_focus() is False
    assert src.status().camera == {}
