"""The Pi camera source against a fake ``picamera2`` with the API subset the source uses.

The fake mimics a Camera Module 3 (IMX708): its three sensor modes with libcamera's crop
limits, autofocus and flicker controls, metadata that drifts while the automatics run, and a
camera that stops delivering frames after a set number.
"""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from vision.sources import PiCameraSource, Reconnecting, SourceError, open_source

IMX708_MODES = [
    {"format": "SRGGB10_CSI2P", "bit_depth": 10, "size": (1536, 864), "fps": 120.13,
     "crop_limits": (768, 432, 3072, 1728)},
    {"format": "SRGGB10_CSI2P", "bit_depth": 10, "size": (2304, 1296), "fps": 56.03,
     "crop_limits": (0, 0, 4608, 2592)},
    {"format": "SRGGB10_CSI2P", "bit_depth": 10, "size": (4608, 2592), "fps": 14.35,
     "crop_limits": (0, 0, 4608, 2592)},
]
CONTROLS = {"AfMode": (0, 2, 0), "LensPosition": (0.0, 15.0, 1.0), "AeEnable": (False, True, True),
            "AwbEnable": (False, True, True), "ExposureTime": (26, 112015443, 20000),
            "AnalogueGain": (1.1, 16.0, 1.0), "ColourGains": (0.0, 32.0, None),
            "AeFlickerMode": (0, 1, 0), "AeFlickerPeriod": (100, 1000000, 10000)}


class FakePicamera2:
    """Records what the source asks for; ``frames`` captures per camera, then it times out."""

    instances: list[FakePicamera2] = []
    frames = 1000
    model = "imx708"
    controls_available = CONTROLS
    fail_start = 0  # the next N cameras fail to start

    def __init__(self, camera_num=0):
        self.camera_num = camera_num
        self.set, self.started, self.stopped, self.closed, self.captured = [], False, False, False, 0
        self.camera_properties = {"Model": self.model, "PixelArraySize": (4608, 2592)}
        self.camera_controls = dict(self.controls_available)
        self.mode_listings = 0
        FakePicamera2.instances.append(self)

    @property
    def sensor_modes(self):
        self.mode_listings += 1
        return [dict(m) for m in IMX708_MODES]

    def create_video_configuration(self, main, buffer_count=6, sensor=None, controls=None):
        return {"use_case": "video", "main": dict(main), "buffer_count": buffer_count, "sensor": sensor}

    def create_still_configuration(self, main=None, buffer_count=1, sensor=None, controls=None):
        return {"use_case": "still", "main": dict(main or {}), "buffer_count": buffer_count, "sensor": sensor}

    def configure(self, config):
        self.config = config

    def set_controls(self, controls):
        unknown = set(controls) - set(self.camera_controls)
        if unknown:  # libcamera refuses controls the camera does not advertise
            raise RuntimeError(f"Control {sorted(unknown)[0]} is not advertised by libcamera")
        self.set.append(dict(controls))

    def start(self):
        if FakePicamera2.fail_start:
            FakePicamera2.fail_start -= 1
            raise RuntimeError("Failed to start camera: Device or resource busy")
        self.started = True

    def capture_array(self, name="main"):
        if not self.started or self.captured >= self.frames:
            raise TimeoutError("Camera frontend has timed out!")
        self.captured += 1
        w, h = self.config["main"]["size"]
        image = np.zeros((h, w, 3), np.uint8)
        image[..., 0] = 200  # B first in memory, as picamera2's RGB888
        return image

    def capture_metadata(self):
        if not self.started:
            raise TimeoutError("Camera frontend has timed out!")
        # Settled values, with the automatics' last small wobble in them.
        return {"ExposureTime": 19342, "AnalogueGain": 2.0, "ColourGains": (1.91, 1.62),
                "LensPosition": 2.75 + 0.01 * self.captured, "SensorTimestamp": 123456789}

    def stop(self):
        self.stopped, self.started = True, False

    def close(self):
        self.closed = True


@pytest.fixture
def camera(monkeypatch):
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2
    monkeypatch.setitem(sys.modules, "picamera2", module)
    # Tests change these class settings; monkeypatch puts them back afterwards.
    for name, value in (("instances", []), ("frames", 1000), ("model", "imx708"),
                        ("controls_available", CONTROLS), ("fail_start", 0)):
        monkeypatch.setattr(FakePicamera2, name, value)
    return FakePicamera2


def test_mode_is_the_smallest_that_makes_indices_big_enough(camera):
    # 1.0 m above the table: 2304x1296 gives a 12 mm index ~21 px; the cropped 1536x864 mode
    # gives the same density but only 866 mm of view, too narrow for an A1 mat.
    src = PiCameraSource(height_mm=1000, mat="A1", settle_s=99)
    frame = src.read()
    cam = camera.instances[0]
    assert cam.config["main"] == {"size": (2304, 1296), "format": "RGB888"}
    assert cam.config["sensor"] == {"output_size": (2304, 1296), "bit_depth": 10}
    assert frame.image.shape == (1296, 2304, 3) and frame.image[0, 0, 0] == 200  # BGR, unconverted
    info = src.status().camera
    assert info["camera"] == "Camera Module 3" and info["sensor_mode"] == "2304x1296"
    assert 20 <= info["index_px"] <= 22


def test_high_mount_takes_the_full_sensor_and_low_mount_the_fast_crop(camera):
    PiCameraSource(height_mm=1500, settle_s=99).read()
    assert camera.instances[-1].config["main"]["size"] == (4608, 2592)  # 2304 gives only ~14 px
    PiCameraSource(height_mm=600, settle_s=99).read()
    assert camera.instances[-1].config["main"]["size"] == (1536, 864)  # 35 px already, A2 not asked
    camera.model = "imx708_wide"
    PiCameraSource(height_mm=1000, settle_s=99).read()  # the Wide sees more table: needs more pixels
    assert camera.instances[-1].config["main"]["size"] == (4608, 2592)


def test_asked_size_streams_from_the_smallest_mode_that_holds_it(camera):
    PiCameraSource(size=(1920, 1080), settle_s=99).read()
    cam = camera.instances[-1]
    assert cam.config["main"]["size"] == (1920, 1080)
    assert cam.config["sensor"]["output_size"] == (2304, 1296)  # no upscaling from 1536x864


def test_autofocus_and_automatic_exposure_then_locked_exposure(camera):
    src = PiCameraSource(height_mm=1000, settle_s=0.0)
    src.read()
    cam = camera.instances[0]
    assert cam.set[0] == {"AfMode": 2, "AeEnable": True, "AwbEnable": True,
                          "AeFlickerMode": 1, "AeFlickerPeriod": 10000}  # 50 Hz mains: lights flicker at 100 Hz
    # After the settle period: automatics off, exposure rounded to whole 10 ms flicker periods,
    # the gain raised to keep the same brightness (19342 us x 2.0 == 20000 us x 1.934).
    assert cam.set[-1] == {"AeEnable": False, "AwbEnable": False, "ExposureTime": 20000,
                           "AnalogueGain": 1.934, "ColourGains": (1.91, 1.62)}
    assert src.locked and src.status().camera["exposure"] == "locked"
    n = len(cam.set)
    src.read()
    assert len(cam.set) == n  # locked once, not on every frame


def test_sixty_hertz_mains_and_bright_rooms(camera):
    src = PiCameraSource(size=(640, 480), settle_s=0.0, mains_hz=60)
    assert src.flicker_period_us == 8333
    assert src._whole_flicker_periods(19342, 2.0) == (16666, 2.321)
    assert src._whole_flicker_periods(3000, 1.2) == (3000, 1.2)  # shorter than a period: kept
    with pytest.raises(SourceError, match="mains_hz"):
        PiCameraSource(mains_hz=0)


def test_lock_focus_fixes_the_lens_where_autofocus_left_it(camera):
    src = Reconnecting(PiCameraSource(height_mm=1000, settle_s=99), sleep=lambda s: None)
    src.read()
    cam = camera.instances[0]
    assert src.lock_focus() is True  # the tracker calls it on whatever source it holds
    assert cam.set[-1] == {"AfMode": 0, "LensPosition": pytest.approx(2.76)}
    assert src.status().camera["focus"] == "locked at 2.76"


def test_camera_without_autofocus_is_left_alone(camera):
    camera.controls_available = {k: v for k, v in CONTROLS.items() if k not in ("AfMode", "LensPosition")}
    src = PiCameraSource(size=(640, 480), settle_s=99)
    src.read()
    assert "AfMode" not in camera.instances[0].set[0]
    assert src.lock_focus() is False and src.status().camera["focus"] == "none"


def test_no_flicker_control_on_older_libcamera(camera):
    camera.controls_available = {k: v for k, v in CONTROLS.items() if not k.startswith("AeFlicker")}
    src = PiCameraSource(size=(640, 480), settle_s=99)
    src.read()
    assert camera.instances[0].set[0] == {"AfMode": 2, "AeEnable": True, "AwbEnable": True}


def test_camera_that_stops_is_reopened_with_back_off_and_keeps_its_locks(camera):
    camera.frames = 3
    sleeps, states = [], []
    src = Reconnecting(PiCameraSource(height_mm=1000, settle_s=0.0), backoff=(0.5, 1.0, 2.0),
                       sleep=lambda s: (sleeps.append(s), states.append(src.status())))
    src.read()
    assert src.lock_focus()
    first = camera.instances[0]
    camera.fail_start = 2  # the first two reopenings find the camera busy
    frames = [src.read() for _ in range(4)]
    assert all(f is not None for f in frames)
    assert sleeps == [0.5, 1.0, 2.0]  # grows while the camera stays away
    assert states[0].state == "reconnecting" and "stopped delivering" in states[0].error
    assert "busy" in states[1].error
    assert first.stopped and first.closed  # released before reopening
    assert len(camera.instances) == 4 and camera.instances[0].mode_listings == 1
    assert all(c.mode_listings == 0 for c in camera.instances[1:])  # the mode list is kept
    reopened = camera.instances[-1]
    lens = first.set[-1]["LensPosition"]
    # The new camera starts with the locked lens, exposure and white balance: no refocus, no pumping.
    assert reopened.set[0] == {"AfMode": 0, "LensPosition": lens, "AeEnable": False, "AwbEnable": False,
                               "ExposureTime": 20000, "AnalogueGain": 1.934, "ColourGains": (1.91, 1.62)}
    status = src.status()
    assert status.state == "running" and status.reconnects == 3 and status.camera["focus"].startswith("locked")


def test_open_source_passes_camera_options(camera):
    src = open_source("picamera", height_mm=1500, camera="module3_wide", settle_s=99, fps=3, fourcc="MJPG")
    assert isinstance(src, Reconnecting) and isinstance(src.inner, PiCameraSource)
    src.read()
    assert src.inner.lens.name == "module3_wide"  # named explicitly, whatever the sensor says
    assert camera.instances[0].config["main"]["size"] == (4608, 2592)


def test_unlock_goes_back_to_the_automatics(camera):
    src = PiCameraSource(size=(640, 480), settle_s=0.0)
    src.read()
    src.lock_focus()
    src.unlock()
    assert not src.locked and not src.focus_locked
    assert camera.instances[0].set[-1]["AfMode"] == 2 and camera.instances[0].set[-1]["AeEnable"] is True


def test_bad_options_and_missing_picamera2_are_clear(camera, monkeypatch):
    with pytest.raises(SourceError, match="mounting height"):
        PiCameraSource(height_mm=-5)
    with pytest.raises(SourceError, match="width, height"):
        PiCameraSource(size=(640,))
    with pytest.raises(SourceError, match="unknown camera"):
        PiCameraSource(camera="module9")
    with pytest.raises(SourceError, match="unknown mat 'B4'"):
        PiCameraSource(mat="B4")
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(SourceError, match="python3-picamera2"):
        PiCameraSource().read()


def test_camera_that_never_starts_reports_why(camera):
    camera.fail_start = 1
    src = PiCameraSource(size=(640, 480))
    with pytest.raises(SourceError, match="cannot start the Pi camera: Failed to start"):
        src.read()
    assert src.status().state == "error" and camera.instances[0].closed
