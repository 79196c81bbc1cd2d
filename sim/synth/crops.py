"""Index crops for the reader, cut the way a finder box gives them.

At run time the finder returns an axis-aligned box; the reader sees the square around
the box centre, ``(1 + 2 * margin)`` times the box's longer side, resized to the reader
size (outside the frame: grey 114, as Ultralytics letterboxes). Training crops take the
true box and jitter it (shifted, loose, tight, sometimes the rank alone), so the reader
forgives an imperfect finder. ``none`` crops teach it what is not an index.
"""

from __future__ import annotations

import cv2
import numpy as np

MARGIN = 0.15
PAD_VALUE = (114, 114, 114)
NONE_CLASS = "none"


def square_crop(image: np.ndarray, box, size: int, margin: float = MARGIN) -> np.ndarray:
    """The reader's input for ``box`` = ``[x1, y1, x2, y2]`` in image pixels."""
    x1, y1, x2, y2 = (float(v) for v in box)
    if x2 <= x1 or y2 <= y1:
        raise ValueError(f"empty box {box}")
    side = max(x2 - x1, y2 - y1) * (1 + 2 * margin)
    s = size / side
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    m = np.array([[s, 0, size / 2 - s * cx], [0, s, size / 2 - s * cy]])
    flags = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(image, m, (size, size), flags=flags, borderValue=PAD_VALUE)


def _bbox(quad: np.ndarray) -> np.ndarray:
    return np.concatenate([quad.min(0), quad.max(0)])


def jittered_box(rng: np.random.Generator, quad) -> np.ndarray:
    """A finder-like box for an index quad (see :func:`sim.synth.scene.render_scene`)."""
    q = np.asarray(quad, float)
    if rng.random() < 0.15:  # the finder sometimes boxes the rank glyph alone
        keep = rng.uniform(0.45, 0.65)
        q = np.array([q[0], q[1], q[1] + (q[2] - q[1]) * keep, q[0] + (q[3] - q[0]) * keep])
    x1, y1, x2, y2 = _bbox(q)
    w, h = x2 - x1, y2 - y1
    cx = (x1 + x2) / 2 + rng.normal(0, 0.07) * w
    cy = (y1 + y2) / 2 + rng.normal(0, 0.07) * h
    w *= float(np.exp(rng.normal(0, 0.12)))
    h *= float(np.exp(rng.normal(0, 0.12)))
    return np.array([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2])


def jittered_boxes(boxes: np.ndarray, rng: np.random.Generator, shift: float = 0.07,
                   scale: float = 0.12) -> np.ndarray:
    """Finder-like boxes (N, 4) for labelled boxes (N, 4) ``[x1, y1, x2, y2]``: each centre moved
    by a normal ``shift`` of its width and height, each side scaled by up to ``exp(+-scale)``."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    wh = boxes[:, 2:] - boxes[:, :2]
    centre = (boxes[:, :2] + boxes[:, 2:]) / 2 + rng.normal(0, shift, (len(boxes), 2)) * wh
    wh = wh * np.exp(rng.uniform(-scale, scale, (len(boxes), 2)))
    return np.concatenate([centre - wh / 2, centre + wh / 2], axis=1)


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over the smaller box."""
    iw = min(a[2], b[2]) - max(a[0], b[0])
    ih = min(a[3], b[3]) - max(a[1], b[1])
    if iw <= 0 or ih <= 0:
        return 0.0
    return iw * ih / min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))


def negative_boxes(rng: np.random.Generator, scene, count: int) -> list[np.ndarray]:
    """Boxes on card art, big pips, backs and table clutter, away from every index."""
    imgsz = scene.image.shape[0]
    indices = [_bbox(np.asarray(c["quad"], float)) for c in scene.corners + scene.hidden]
    # Indices clipped to a sliver at the frame edge say nothing about the scale.
    sizes = [b[3] - b[1] for b in indices if b[3] - b[1] >= 4] or [imgsz / 12]
    out: list[np.ndarray] = []
    for _ in range(count * 6):
        if len(out) >= count:
            break
        side = float(np.median(sizes)) * rng.uniform(0.6, 1.6)
        aspect = rng.uniform(0.5, 1.0)
        if scene.cards and rng.random() < 0.75:
            card = scene.cards[rng.integers(len(scene.cards))]
            q = np.asarray(card["quad"], float)
            a, b = rng.random(2)
            top = q[0] + (q[1] - q[0]) * a
            bottom = q[3] + (q[2] - q[3]) * a
            c = top + (bottom - top) * b
        else:
            c = rng.uniform(0, imgsz, 2)
        box = np.array([c[0] - side * aspect / 2, c[1] - side / 2, c[0] + side * aspect / 2, c[1] + side / 2])
        if box[0] < 0 or box[1] < 0 or box[2] > imgsz or box[3] > imgsz:
            continue
        if any(_overlap(box, b) > 0.2 for b in indices):
            continue
        out.append(box)
    return out
