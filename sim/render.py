"""How the synthetic table is drawn fast: static layers kept, only what changed redrawn.

A frame is the table (mat and cards, warped into the camera) with arms over it, lit by the
sitting's lamp and white balance, a slow lighting drift, sensor noise and JPEG. Profiling
(``python -m cProfile``) showed where a 1280x720 frame went: drawing every card again and
warping the whole canvas whenever a card moved, full-frame masks and blurs for each arm,
and ~3 M fresh normal draws per frame for the noise. So:

- :class:`TableLayer` keeps the canvas with the cards; a card put down is drawn on top,
  a swept zone is restored from the bare table and its neighbours redrawn, and only the
  changed rectangle is warped into the cached camera view (lit once by the fixed lamp).
- :func:`draw_arm` works in the arm's bounding box only.
- :class:`Noise` draws from a few pre-drawn normal fields at a random offset; the noise
  level still follows brightness and varies frame to frame as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import cv2
import numpy as np

from sim.synth import clutter
from sim.synth.scene import place_card

SHADOW = (1, 2, 0.35, 1.5)  # a card's drop shadow on the canvas: dx, dy, strength, blur


class TableLayer:
    """The table with its cards: canvas (plane pixels) and camera view, both cached."""

    def __init__(self, base: np.ndarray, h_canvas: np.ndarray, size: tuple[int, int], light: np.ndarray) -> None:
        self.base, self.h_canvas, self.size = base, h_canvas, size
        self.canvas = base.copy()
        self.labels: np.ndarray = np.zeros(base.shape[:2], np.int16)
        self.light = light
        self.view = self._warp((0, 0, base.shape[1], base.shape[0]), whole=True)

    def _warp(self, rect: tuple[int, int, int, int], whole: bool = False) -> np.ndarray:
        w, h = self.size
        if whole:
            return cv2.warpPerspective(self.canvas, self.h_canvas, (w, h), flags=cv2.INTER_LINEAR,
                                       borderMode=cv2.BORDER_REFLECT) * self.light
        x1, y1, x2, y2 = rect
        corners = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64).reshape(-1, 1, 2)
        frame = cv2.perspectiveTransform(corners, self.h_canvas).reshape(-1, 2)
        fx1, fy1 = np.maximum(np.floor(frame.min(0)).astype(int) - 2, 0)
        fx2, fy2 = np.minimum(np.ceil(frame.max(0)).astype(int) + 3, (w, h))
        if fx2 <= fx1 or fy2 <= fy1:
            return self.view
        shift = np.array([[1, 0, -fx1], [0, 1, -fy1], [0, 0, 1]], float)
        patch = cv2.warpPerspective(self.canvas, shift @ self.h_canvas, (int(fx2 - fx1), int(fy2 - fy1)),
                                    flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        self.view[fy1:fy2, fx1:fx2] = patch * self.light[fy1:fy2, fx1:fx2]
        return self.view

    def _bounds(self, items: Sequence[dict]) -> tuple[int, int, int, int] | None:
        boxes = [item["bounds"] for item in items]
        if not boxes:
            return None
        x1, y1 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        x2, y2 = max(b[2] for b in boxes), max(b[3] for b in boxes)
        return x1, y1, x2, y2

    def put(self, items: Sequence[dict], affine: Callable[[dict], np.ndarray]) -> None:
        """Draw cards on top of what lies there (``item["face"]`` BGRA, ``affine(item)`` face -> canvas)."""
        for item in items:
            self._draw(item, affine)
        rect = self._bounds(items)
        if rect is not None:
            self._warp(rect)

    def _draw(self, item: dict, affine: Callable[[dict], np.ndarray]) -> None:
        art = item["face"]
        m = affine(item)
        h, w = art.shape[:2]
        corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], float) @ m[:, :2].T + m[:, 2]
        pad = 8  # the shadow's reach
        x1, y1 = np.floor(corners.min(0)).astype(int) - pad
        x2, y2 = np.ceil(corners.max(0)).astype(int) + pad
        ph, pw = self.labels.shape
        item["bounds"] = (max(int(x1), 0), max(int(y1), 0), min(int(x2), pw), min(int(y2), ph))
        place_card(self.canvas, self.labels, art, m, 1, SHADOW)

    def remove(self, gone: Sequence[dict], staying: Sequence[dict], affine: Callable[[dict], np.ndarray]) -> None:
        """Take cards away: the bare table comes back there, and cards still lying across
        that area are drawn again in their order."""
        rect = self._bounds(gone)
        if rect is None:
            return
        x1, y1, x2, y2 = rect
        self.canvas[y1:y2, x1:x2] = self.base[y1:y2, x1:x2]
        area, labels = self.canvas[y1:y2, x1:x2], self.labels[y1:y2, x1:x2]
        for item in staying:
            bx1, by1, bx2, by2 = item["bounds"]
            if bx1 < x2 and bx2 > x1 and by1 < y2 and by2 > y1:
                # drawn into the restored area only: outside it the canvas is already right
                m = affine(item).copy()
                m[:, 2] -= (x1, y1)
                place_card(area, labels, item["face"], m, 1, SHADOW)
        self._warp(rect)


def draw_arm(img: np.ndarray, light: np.ndarray, pts: np.ndarray, ppm: float, skin: np.ndarray,
             sleeve: np.ndarray) -> None:
    """A forearm in a sleeve from ``pts[0]`` (off the table) to a hand at ``pts[1]`` (frame px),
    with a soft shadow on the table: what the tracker's motion check has to see.

    ``img`` is lit by ``light``; the arm is drawn unlit in its box and lit with the table."""
    h, w = img.shape[:2]
    start, tip = np.asarray(pts[0], float), np.asarray(pts[1], float)
    d = tip - start
    d = d / max(1e-6, float(np.linalg.norm(d)))
    n = np.array([-d[1], d[0]])
    s = 75 * ppm  # a palm about 75 mm across
    wrist = tip - d * 0.9 * s
    reach = 1.8 * s  # sleeve width, palm, fingers, and the shadow's offset and blur
    lo = np.floor(np.minimum(start - d * s, tip) - reach).astype(int)
    hi = np.ceil(np.maximum(start - d * s, tip) + reach).astype(int)
    x1, y1 = max(int(lo[0]), 0), max(int(lo[1]), 0)
    x2, y2 = min(int(hi[0]), w), min(int(hi[1]), h)
    if x2 <= x1 or y2 <= y1:
        return
    o = np.array([x1, y1], float)

    def pt(p: np.ndarray) -> tuple[int, int]:
        q = p - o
        return int(round(float(q[0]))), int(round(float(q[1])))

    bh, bw = y2 - y1, x2 - x1
    mask = np.zeros((bh, bw), np.uint8)
    cloth = np.zeros((bh, bw), np.uint8)
    cv2.line(cloth, pt(start - d * s), pt(wrist - d * 0.4 * s), 1, max(2, int(1.1 * s)), cv2.LINE_AA)
    cv2.line(mask, pt(start), pt(wrist), 1, max(2, int(0.75 * s)), cv2.LINE_AA)
    cv2.ellipse(mask, pt(wrist + d * 0.45 * s), (max(1, int(0.6 * s)), max(1, int(0.5 * s))),
                float(np.degrees(np.arctan2(d[1], d[0]))), 0, 360, 1, -1, cv2.LINE_AA)
    for i in range(4):
        base = wrist + d * 0.8 * s + n * (i - 1.5) * 0.22 * s
        cv2.line(mask, pt(base), pt(base + d * (0.75 - 0.1 * abs(i - 1.5)) * s), 1, max(2, int(0.2 * s)),
                 cv2.LINE_AA)
    cv2.line(mask, pt(wrist + n * 0.4 * s), pt(wrist + d * 0.5 * s + n * 0.8 * s), 1, max(2, int(0.22 * s)))
    cover = ((mask | cloth) > 0).astype(np.float32)
    dy, dx = int(0.25 * s), int(0.15 * s)
    moved = np.zeros_like(cover)
    moved[dy:, dx:] = cover[:bh - dy or None, :bw - dx or None]
    # the shadow is soft: blurred at a quarter of the resolution, it looks the same
    small = cv2.resize(moved, (max(1, bw // 4), max(1, bh // 4)), interpolation=cv2.INTER_AREA)
    shadow = cv2.resize(cv2.GaussianBlur(small, (0, 0), max(0.5, 0.15 * s / 4)), (bw, bh),
                        interpolation=cv2.INTER_LINEAR)
    roi = img[y1:y2, x1:x2] / light[y1:y2, x1:x2]
    roi *= (1 - 0.35 * shadow)[..., None]
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    shade = 0.8 + 0.25 * np.clip(dist / max(1.0, 0.2 * s), 0, 1)
    clutter._paint(roi, clutter._soft(mask, 0.8), skin.astype(np.float32), shade)
    clutter._paint(roi, clutter._soft(cloth & (1 - mask), 0.8), sleeve)
    img[y1:y2, x1:x2] = roi * light[y1:y2, x1:x2]


class Noise:
    """Sensor noise as in ``sim.synth.effects.sensor_noise`` (read noise, shot noise growing
    with brightness, luminance-correlated half the time), from pre-drawn normal fields."""

    FIELDS, MARGIN = 2, 48

    def __init__(self, rng: np.random.Generator, size: tuple[int, int]) -> None:
        w, h = size
        m = self.MARGIN
        self.rng = rng
        self.size = size
        self.plain = [rng.standard_normal((h + m, w + m, 3), np.float32) for _ in range(self.FIELDS)]
        self.correlated = [0.6 * f + 0.4 * f.mean(axis=2, keepdims=True) for f in self.plain]

    def __call__(self, img: np.ndarray) -> np.ndarray:
        w, h = self.size
        sigma_read = self.rng.uniform(1, 8)
        shot = self.rng.uniform(0, 0.6)
        bank = self.correlated if self.rng.random() < 0.5 else self.plain
        field = bank[int(self.rng.integers(len(bank)))]
        dy, dx = (int(v) for v in self.rng.integers(0, self.MARGIN, 2))
        # shot noise follows the pixel's brightness (grey: the channels are alike enough)
        std: np.ndarray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        np.clip(std, 0, 255, out=std)
        std *= shot
        std += sigma_read**2
        cv2.sqrt(std, std)
        spread = cv2.merge([std, std, std])
        cv2.multiply(field[dy:dy + h, dx:dx + w], spread, dst=spread)
        cv2.add(img, spread, dst=img)
        return img


def to_jpeg_frame(img: np.ndarray, quality: int) -> np.ndarray:
    """The float frame as the camera's JPEG would give it back (uint8 BGR)."""
    np.clip(img, 0, 255, out=img)
    ok, buf = cv2.imencode(".jpg", img.astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, quality])
    frame = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if frame is None:
        raise ValueError(f"OpenCV could not decode the JPEG of a {img.shape} frame")
    return frame
