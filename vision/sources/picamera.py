"""A Raspberry Pi camera through picamera2, set up for reading cards from above.

picamera2 comes with Raspberry Pi OS (``sudo apt install python3-picamera2``), not from
PyPI, so the venv there is made with ``--system-site-packages`` and the import is guarded.

What the source does with the camera:

- **Sensor mode.** Given the mounting height, it takes the smallest sensor mode whose
  corner indices come out at least ``target_index_px`` tall (:mod:`vision.camera_geometry`),
  and streams it unscaled: smaller modes give more frames and less work per zone crop.
- **Focus.** Continuous autofocus while the table is set up; :meth:`lock_focus` (called
  after calibration) fixes the lens at the position it found, so a hand over the table
  does not pull the focus away from the cards. Cameras without autofocus are left alone.
- **Exposure and white balance.** Automatic for ``settle_s`` seconds (with the mains
  flicker period, where libcamera supports it), then fixed at the values they settled on,
  so the picture stops pumping when a dark sleeve or a white card enters the view; the
  exposure time is rounded to whole flicker periods (gain makes up the difference) so
  mains-powered lights do not roll bands through the frame.
- **Frames** are BGR ``uint8`` arrays (picamera2's ``RGB888`` is B, G, R in memory).

Locked values survive a reopening (``Reconnecting`` after the camera stopped delivering).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from vision.camera_geometry import (
    MATS_MM,
    SENSOR_PX,
    GeometryError,
    Lens,
    choose_mode,
    coverage,
    lens,
    lens_for_model,
)
from vision.settings import GOOD_INDEX_PX
from vision.sources.base import FrameSource, SourceError

#: libcamera's AfMode values.
AF_MANUAL, AF_CONTINUOUS = 0, 2
#: AeFlickerMode 1: cancel a flicker period we name.
AE_FLICKER_MANUAL = 1
DEFAULT_SIZE = (2304, 1296)


class PiCameraSource(FrameSource):
    """A Pi camera through picamera2.

    size: the frames' size; by default the sensor mode's own (chosen from ``height_mm``),
        else 2304x1296. camera: a :data:`vision.camera_geometry.LENSES` key; by default
        the one the sensor reports (``imx708`` / ``imx708_wide``).
    height_mm: lens to table, for choosing the sensor mode; mat: the printed mat (``A2``,
        ``A1``) that mode must hold in view.
    settle_s: seconds of automatic exposure and white balance before they are fixed.
    mains_hz: the local mains frequency (50 in mainland China, 60 in Taiwan); lights flicker at twice it.
    """

    kind = "picamera"

    def __init__(self, size: tuple[int, int] | None = None, settle_s: float = 2.0, camera_num: int = 0,
                 height_mm: float | None = None, camera: str | None = None, mains_hz: float | None = 50.0,
                 target_index_px: float = GOOD_INDEX_PX, mat: str | None = None, buffer_count: int = 4) -> None:
        super().__init__(f"picamera:{camera_num}")
        if size is not None and (len(size) != 2 or min(size) <= 0):
            raise SourceError(f"a camera size is (width, height) in pixels, not {size!r}")
        if height_mm is not None and height_mm <= 0:
            raise SourceError(f"the mounting height must be positive, not {height_mm!r}")
        if mat is not None and mat not in MATS_MM:
            raise SourceError(f"unknown mat {mat!r}; known: {', '.join(MATS_MM)}")
        if mains_hz is not None and mains_hz <= 0:
            raise SourceError(f"mains_hz must be positive (50 or 60), not {mains_hz!r}")
        self.requested_size: tuple[int, int] | None = (size[0], size[1]) if size is not None else None
        self.settle_s, self.camera_num, self.height_mm = settle_s, camera_num, height_mm
        try:
            self.lens: Lens | None = lens(camera) if camera is not None else None
        except GeometryError as exc:
            raise SourceError(str(exc)) from None
        self.mains_hz, self.target_index_px, self.buffer_count = mains_hz, target_index_px, buffer_count
        self.mat = mat
        self.size: tuple[int, int] | None = None
        self.sensor_mode: dict[str, Any] | None = None
        self._cam: Any = None
        self._controls: dict[str, Any] = {}
        self._started = 0.0
        self._modes: list[dict[str, Any]] | None = None
        self._full_width = SENSOR_PX[0]
        self._exposure: dict[str, Any] | None = None  # fixed exposure, gain and colour gains
        self._lens_position: float | None = None  # fixed focus

    @property
    def locked(self) -> bool:
        """Whether exposure and white balance are fixed."""
        return self._exposure is not None

    @property
    def focus_locked(self) -> bool:
        return self._lens_position is not None

    # ------------------------------------------------------------------ opening
    def _open(self) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError:
            raise SourceError("picamera2 is not installed: on Raspberry Pi OS run `sudo apt install "
                              "python3-picamera2` and create the venv with --system-site-packages") from None
        cam = None
        try:
            cam = Picamera2(self.camera_num)
            props = dict(getattr(cam, "camera_properties", {}) or {})
            if self.lens is None:
                self.lens = lens_for_model(props.get("Model"))
            if self._modes is None:  # listing the modes restarts the sensor once per mode: do it once
                self._modes = [dict(m) for m in (getattr(cam, "sensor_modes", None) or [])]
            self.sensor_mode, self.size = self._choose(props)
            sensor = ({"output_size": tuple(self.sensor_mode["size"]), "bit_depth": self.sensor_mode["bit_depth"]}
                      if self.sensor_mode and "bit_depth" in self.sensor_mode else None)
            config = cam.create_video_configuration(main={"size": self.size, "format": "RGB888"},
                                                    buffer_count=self.buffer_count,
                                                    **({"sensor": sensor} if sensor else {}))
            cam.configure(config)
            self._controls = dict(getattr(cam, "camera_controls", {}) or {})
            cam.set_controls(self._start_controls())
            cam.start()
        except Exception as exc:  # noqa: BLE001 - picamera2 raises many kinds; all mean "no camera"
            if cam is not None:
                _quietly(cam.close)
            raise SourceError(f"cannot start the Pi camera: {exc}") from None
        self._cam, self._started = cam, time.monotonic()
        self._update_status()

    def _choose(self, props: dict[str, Any]) -> tuple[dict[str, Any] | None, tuple[int, int]]:
        """(sensor mode, frame size): by mounting height, else the mode that holds the asked size."""
        self._full_width = int((props.get("PixelArraySize") or SENSOR_PX)[0])
        modes = [m for m in self._modes or [] if "size" in m]
        if not modes:
            return None, self.requested_size or DEFAULT_SIZE
        if self.height_mm is not None and self.lens is not None and self.requested_size is None:
            fractions = [_crop_fraction(m, self._full_width) for m in modes]
            size = choose_mode(self.lens, self.height_mm, [m["size"] for m in modes],
                               target_px=self.target_index_px, crop_fractions=fractions, mat=self.mat)
            mode = next(m for m in modes if tuple(m["size"]) == size)
            return mode, size
        wanted = self.requested_size or DEFAULT_SIZE
        # The smallest mode at least as big as the frames (no upscaling), else the biggest.
        big_enough = [m for m in modes if m["size"][0] >= wanted[0] and m["size"][1] >= wanted[1]]
        pool = big_enough or modes
        pick = min if big_enough else max
        mode = pick(pool, key=lambda m: m["size"][0] * m["size"][1])
        return mode, wanted

    def _start_controls(self) -> dict[str, Any]:
        controls: dict[str, Any] = {}
        if "AfMode" in self._controls:
            if self._lens_position is None:
                controls["AfMode"] = AF_CONTINUOUS
            else:
                controls.update(AfMode=AF_MANUAL, LensPosition=self._lens_position)
        if self._exposure is not None:
            controls.update(AeEnable=False, AwbEnable=False, **self._exposure)
        else:
            controls.update(AeEnable=True, AwbEnable=True)
            if self.mains_hz and "AeFlickerMode" in self._controls:
                controls.update(AeFlickerMode=AE_FLICKER_MANUAL, AeFlickerPeriod=self.flicker_period_us)
        return controls

    @property
    def flicker_period_us(self) -> int:
        return round(1e6 / (2 * self.mains_hz)) if self.mains_hz else 0

    # ------------------------------------------------------------------ frames
    def _grab(self) -> tuple[np.ndarray, float | None] | None:
        try:
            image = self._cam.capture_array("main")  # "RGB888" is B, G, R in memory: already BGR
        except Exception as exc:  # noqa: BLE001
            raise SourceError(f"the Pi camera stopped delivering frames: {exc}") from None
        if image is None:
            raise SourceError("the Pi camera stopped delivering frames")
        if self._exposure is None and time.monotonic() - self._started >= self.settle_s:
            self.lock_exposure()
        return image, None

    # ------------------------------------------------------------------ locking
    def lock_exposure(self) -> None:
        """Fix exposure, gain and white balance at the values the camera settled on."""
        meta = self._metadata()
        fixed: dict[str, Any] = {}
        if "ExposureTime" in meta and "AnalogueGain" in meta:
            fixed["ExposureTime"], fixed["AnalogueGain"] = self._whole_flicker_periods(
                int(meta["ExposureTime"]), float(meta["AnalogueGain"]))
        if "ColourGains" in meta:
            fixed["ColourGains"] = tuple(meta["ColourGains"])
        self._cam.set_controls({"AeEnable": False, "AwbEnable": False, **fixed})
        self._exposure = fixed
        self._update_status()

    def _whole_flicker_periods(self, exposure_us: int, gain: float) -> tuple[int, float]:
        """The exposure rounded to whole flicker periods, the gain scaled to keep the brightness.

        Shorter than about one period there is nothing to round to (a bright room); it stays.
        """
        period = self.flicker_period_us
        if not period or exposure_us < 0.75 * period:
            return exposure_us, gain
        rounded = max(1, round(exposure_us / period)) * period
        low, high = _limits(self._controls.get("AnalogueGain"), 1.0, 16.0)
        return rounded, round(min(max(gain * exposure_us / rounded, low), high), 3)

    def lock_focus(self) -> bool:
        """Stop autofocus at the lens position it found (call after calibration).

        False when the camera has no autofocus or is not running (nothing was changed).
        """
        if self._cam is None or "AfMode" not in self._controls:
            return False
        position = self._metadata().get("LensPosition")
        if position is None:
            return False
        self._cam.set_controls({"AfMode": AF_MANUAL, "LensPosition": position})
        self._lens_position = float(position)
        self._update_status()
        return True

    def unlock(self) -> None:
        """Back to autofocus and automatic exposure (the camera was moved or the light changed)."""
        self._lens_position, self._exposure = None, None
        if self._cam is not None:
            self._cam.set_controls(self._start_controls())
            self._started = time.monotonic()
        self._update_status()

    def _metadata(self) -> dict[str, Any]:
        try:
            return dict(self._cam.capture_metadata())
        except Exception as exc:  # noqa: BLE001
            raise SourceError(f"the Pi camera stopped delivering frames: {exc}") from None

    def _update_status(self) -> None:
        info: dict[str, Any] = {
            "camera": self.lens.label if self.lens else "unknown",
            "sensor_mode": "x".join(map(str, self.sensor_mode["size"])) if self.sensor_mode else None,
            "size": list(self.size) if self.size else None,
            "focus": ("none" if "AfMode" not in self._controls else
                      f"locked at {self._lens_position:.2f}" if self._lens_position is not None else "auto"),
            "exposure": "locked" if self._exposure is not None else "auto",
        }
        if self._exposure:
            info.update({k: v for k, v in self._exposure.items() if k in ("ExposureTime", "AnalogueGain")})
        if self.height_mm is not None and self.lens is not None and self.sensor_mode and self.size:
            frac = _crop_fraction(self.sensor_mode, self._full_width)
            info["index_px"] = round(coverage(self.lens, self.height_mm, self.size, crop_fraction=frac).index_px, 1)
        self._status.camera = info

    def _close(self) -> None:
        cam, self._cam = self._cam, None
        if cam is not None:
            _quietly(cam.stop)
            _quietly(cam.close)


def _crop_fraction(mode: dict[str, Any], full_width: int) -> float:
    crop = mode.get("crop_limits")
    return min(1.0, crop[2] / full_width) if crop and full_width else 1.0


def _limits(entry: Any, low: float, high: float) -> tuple[float, float]:
    """(min, max) of a ``camera_controls`` entry ``(min, max, default)``; the fallbacks when absent."""
    try:
        return float(entry[0]), float(entry[1])
    except (TypeError, IndexError, ValueError):
        return low, high


def _quietly(fn: Callable[[], object]) -> None:
    try:
        fn()
    except Exception:  # noqa: BLE001, S110 - releasing a camera that already failed
        pass
