"""A stand-in for Raspberry Pi OS's ``picamera2``, for the arm64 check (``pi-check.sh``).

Debian has no ``python3-picamera2`` (it is Raspberry Pi OS's own package), so the check's
arm64 root gets this module instead, installed as ``picamera2`` beside Debian's Python
packages where Raspberry Pi OS puts the real one. It films a video file in place of the
camera, behind the part of picamera2's interface that ``vision.sources.picamera`` uses:
``Picamera2(camera_num)``, ``camera_properties``, ``sensor_modes``, ``camera_controls``,
``create_video_configuration``, ``configure``, ``set_controls``, ``start``,
``capture_array("main")``, ``capture_metadata``, ``stop`` and ``close``.

- The film is ``$PICAMERA2_STANDIN_FILM``, else :data:`DEFAULT_FILM`; it plays from the start
  at its own frame rate (``capture_array`` waits for the next frame, as a camera does) and
  starts again at its end.
- The camera it claims to be is a Camera Module 3 (IMX708): its sensor modes, properties and
  controls, so the source chooses a mode and locks focus and exposure as on a Pi.
- Frames come at the configured ``main`` size (scaled, as the Pi's ISP does), ``RGB888``:
  B, G, R in memory, as picamera2 gives them.

OpenCV reads the film: it is imported when the camera starts, from the program's own venv
(created with ``--system-site-packages``, so it sees both this module and its own packages).
"""

from __future__ import annotations

import os
import time
from typing import Any

DEFAULT_FILM = "/usr/share/picamera2-standin/film.mp4"
MODEL = "imx708"
PIXEL_ARRAY = (4608, 2592)
#: The IMX708's modes as libcamera lists them (size, bit depth, crop in sensor pixels, fps).
SENSOR_MODES: list[dict[str, Any]] = [
    {"size": (1536, 864), "bit_depth": 10, "crop_limits": (768, 432, 3072, 1728), "fps": 120.13,
     "format": "SRGGB10_CSI2P"},
    {"size": (2304, 1296), "bit_depth": 10, "crop_limits": (0, 0, 4608, 2592), "fps": 56.03,
     "format": "SRGGB10_CSI2P"},
    {"size": (4608, 2592), "bit_depth": 10, "crop_limits": (0, 0, 4608, 2592), "fps": 14.35,
     "format": "SRGGB10_CSI2P"},
]
#: The controls the source sets, with libcamera's (min, max, default).
CAMERA_CONTROLS: dict[str, tuple[Any, Any, Any]] = {
    "AfMode": (0, 2, 0),
    "LensPosition": (0.0, 32.0, 1.0),
    "AeEnable": (False, True, True),
    "AwbEnable": (False, True, True),
    "AeFlickerMode": (0, 1, 0),
    "AeFlickerPeriod": (100, 1000000, None),
    "ExposureTime": (26, 112015443, None),
    "AnalogueGain": (1.0, 16.0, None),
    "ColourGains": (0.0, 32.0, None),
}


class Picamera2:
    """One camera filming :data:`DEFAULT_FILM` (or ``$PICAMERA2_STANDIN_FILM``)."""

    def __init__(self, camera_num: int = 0) -> None:
        if camera_num != 0:
            raise IndexError(f"camera {camera_num} not found (the stand-in has one camera)")
        self.camera_num = camera_num
        self.film = os.environ.get("PICAMERA2_STANDIN_FILM", DEFAULT_FILM)
        if not os.path.isfile(self.film):
            raise RuntimeError(f"no camera: the picamera2 stand-in's film {self.film} is missing")
        self.camera_properties = {"Model": MODEL, "PixelArraySize": PIXEL_ARRAY, "Location": 2, "Rotation": 0}
        self.sensor_modes = [dict(m) for m in SENSOR_MODES]
        self.camera_controls = dict(CAMERA_CONTROLS)
        self.controls: dict[str, Any] = {}
        self.config: dict[str, Any] | None = None
        self.started = False
        self._capture: Any = None
        self._frame_s = 0.1
        self._next_at = 0.0

    # ------------------------------------------------------------------ configuration
    def create_video_configuration(self, main: dict[str, Any] | None = None, buffer_count: int = 6,
                                   sensor: dict[str, Any] | None = None, **_: Any) -> dict[str, Any]:
        main = {"size": (1280, 720), "format": "XBGR8888"} | dict(main or {})
        return {"use_case": "video", "main": main, "buffer_count": buffer_count, "sensor": dict(sensor or {})}

    def configure(self, config: dict[str, Any]) -> None:
        if self.started:
            raise RuntimeError("configure the camera before starting it")
        size = tuple(config["main"]["size"])
        if len(size) != 2 or min(size) <= 0:
            raise ValueError(f"bad main size {size!r}")
        if config["main"].get("format", "RGB888") not in ("RGB888", "BGR888"):
            raise ValueError(f"the stand-in gives RGB888 or BGR888 frames, not {config['main']['format']}")
        self.config = config

    def set_controls(self, controls: dict[str, Any]) -> None:
        unknown = sorted(set(controls) - set(self.camera_controls))
        if unknown:
            raise KeyError(f"controls not supported by this camera: {', '.join(unknown)}")
        self.controls.update(controls)

    # ------------------------------------------------------------------ running
    def start(self) -> None:
        if self.config is None:
            self.configure(self.create_video_configuration(main={"format": "RGB888"}))
        self._open_film()
        self.started = True

    def _open_film(self) -> None:
        import cv2

        capture = cv2.VideoCapture(self.film)
        if not capture.isOpened():
            raise RuntimeError(f"the picamera2 stand-in cannot read {self.film}")
        fps = capture.get(cv2.CAP_PROP_FPS) or 10.0
        self._capture, self._frame_s, self._next_at = capture, 1.0 / fps, time.monotonic()

    def capture_array(self, name: str = "main") -> Any:
        """The next frame of the film at the configured size, when it is due."""
        import cv2

        if name != "main" or not self.started or self.config is None:
            raise RuntimeError("capture_array('main') needs a started camera")
        wait = self._next_at - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self._next_at = max(self._next_at + self._frame_s, time.monotonic() - self._frame_s)
        ok, image = self._capture.read()
        if not ok:  # the end of the film: from the start again
            self._capture.release()
            self._open_film()
            ok, image = self._capture.read()
            if not ok:
                raise RuntimeError(f"the picamera2 stand-in read no frame from {self.film}")
        width, height = self.config["main"]["size"]
        if image.shape[1] != width or image.shape[0] != height:
            image = cv2.resize(image, (int(width), int(height)), interpolation=cv2.INTER_LINEAR)
        return image

    def capture_metadata(self) -> dict[str, Any]:
        """What libcamera reports with each frame: fixed values once locked, else those it settled on."""
        if not self.started:
            raise RuntimeError("capture_metadata needs a started camera")
        return {
            "ExposureTime": int(self.controls.get("ExposureTime", 19800)),
            "AnalogueGain": float(self.controls.get("AnalogueGain", 2.0)),
            "ColourGains": tuple(self.controls.get("ColourGains", (1.9, 1.6))),
            "LensPosition": float(self.controls.get("LensPosition", 1.25)),
            "FrameDuration": int(self._frame_s * 1e6),
        }

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        self.started = False
        if self._capture is not None:
            self._capture.release()
            self._capture = None
