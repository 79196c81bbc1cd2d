"""Things on a card table that are not cards: hands and fingers, chips, coins, phones, paper.

Each painter draws into a float32 BGR image in place and returns the mask it covered, so
the scene can tell which corner indices it hides.
"""

from __future__ import annotations

import cv2
import numpy as np

SKIN_TONES = np.array(
    [(95, 135, 200), (80, 120, 185), (120, 160, 220), (60, 95, 150), (45, 70, 115), (105, 150, 210)],
    np.float32,
)


def _paint(img: np.ndarray, mask: np.ndarray, colour: np.ndarray, shade: np.ndarray | None = None) -> None:
    """Blend a colour (optionally shaded per pixel) through a soft 0..1 mask."""
    rows, cols = np.flatnonzero(mask.any(1)), np.flatnonzero(mask.any(0))
    if len(rows) == 0:
        return
    y1, y2, x1, x2 = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1  # only where the mask is
    m = mask[y1:y2, x1:x2, None]
    fill = colour if shade is None else colour * shade[y1:y2, x1:x2, None]
    roi = img[y1:y2, x1:x2]
    roi *= 1 - m
    roi += m * fill


def _soft(mask: np.ndarray, sigma: float) -> np.ndarray:
    return cv2.GaussianBlur(mask.astype(np.float32), (0, 0), sigma) if sigma > 0 else mask.astype(np.float32)


def _pt(p) -> tuple[int, int]:
    return int(round(p[0])), int(round(p[1]))


def _hand_mask(rng: np.random.Generator, h: int, w: int, scale: float) -> tuple[np.ndarray, np.ndarray, tuple]:
    """Masks of a hand (forearm, palm, thumb, fingers) and its sleeve, in real proportions:
    a palm is about 1.3 card widths across, a finger about 0.27 wide and 1.1 long."""
    side = rng.integers(4)
    t = rng.uniform(0.1, 0.9)
    edge = np.array([(t * w, -10), (w + 10, t * h), (t * w, h + 10), (-10, t * h)][side], float)
    inward = np.array([(0, 1), (-1, 0), (0, -1), (1, 0)][side], float)
    d = inward + rng.normal(0, 0.45, 2)
    d /= np.linalg.norm(d)
    n = np.array([-d[1], d[0]]) * (1 if rng.random() < 0.5 else -1)  # thumb side
    s = scale * rng.uniform(0.85, 1.2)
    wrist = edge + d * s * rng.uniform(0.3, 2.2)
    palm_w, palm_l = 1.25 * s, 1.45 * s
    knuckles = wrist + d * palm_l
    mask = np.zeros((h, w), np.uint8)
    cv2.line(mask, _pt(edge - d * s), _pt(wrist), 1, max(2, int(1.05 * s)), cv2.LINE_AA)
    palm = np.array(
        [wrist - n * palm_w * 0.42, wrist + n * palm_w * 0.42, knuckles + n * palm_w * 0.5, knuckles - n * palm_w * 0.5]
    )
    cv2.fillConvexPoly(mask, np.round(palm).astype(np.int32), 1, cv2.LINE_AA)
    cv2.circle(mask, _pt(wrist + d * palm_l * 0.5), int(palm_w * 0.5), 1, -1, cv2.LINE_AA)
    tips = []
    curl = rng.uniform(0.3, 1.0)  # 1: fingers straight out, low: curled under the palm
    lengths = (0.95, 1.1, 1.0, 0.78)
    for i, length in enumerate(lengths):
        off = (i - 1.5) / 1.5 * palm_w * 0.38
        fan = d + n * (off / palm_w) * rng.uniform(0.2, 0.9)
        fan /= np.linalg.norm(fan)
        base = knuckles + n * off
        thick = 0.25 * s * (0.85 if i == 3 else 1.0)
        mid = base + fan * length * s * 0.55 * curl
        bend = fan + rng.normal(0, 0.15, 2)
        bend /= np.linalg.norm(bend)
        tip = mid + bend * length * s * 0.5 * curl
        cv2.line(mask, _pt(base), _pt(mid), 1, max(2, int(thick)), cv2.LINE_AA)
        cv2.line(mask, _pt(mid), _pt(tip), 1, max(2, int(thick * 0.9)), cv2.LINE_AA)
        cv2.circle(mask, _pt(tip), max(1, int(thick * 0.45)), 1, -1, cv2.LINE_AA)
        tips.append((tip, bend, thick))
    thumb_base = wrist + d * palm_l * 0.25 + n * palm_w * 0.4
    thumb_dir = d * rng.uniform(0.3, 1.0) + n * rng.uniform(0.4, 1.0)
    thumb_dir /= np.linalg.norm(thumb_dir)
    thumb_tip = thumb_base + thumb_dir * s * rng.uniform(0.6, 1.0)
    cv2.line(mask, _pt(thumb_base), _pt(thumb_tip), 1, max(2, int(0.3 * s)), cv2.LINE_AA)
    cv2.circle(mask, _pt(thumb_tip), max(1, int(0.14 * s)), 1, -1, cv2.LINE_AA)
    tips.append((thumb_tip, thumb_dir, 0.3 * s))
    sleeve = np.zeros((h, w), np.uint8)
    if rng.random() < 0.65:
        cuff = wrist - d * s * rng.uniform(0.0, 0.8)
        cv2.line(sleeve, _pt(edge - d * s), _pt(cuff), 1, max(2, int(1.5 * s)), cv2.LINE_AA)
    return mask, sleeve, (d, tips)


def hand(rng: np.random.Generator, img: np.ndarray, scale: float) -> np.ndarray:
    """A hand reaching in from an edge, with its shadow, nails and sleeve; ``scale`` is a
    card width in pixels. Returns the covered mask."""
    h, w = img.shape[:2]
    mask, sleeve, (d, tips) = _hand_mask(rng, h, w, scale)
    cover = (mask | sleeve) > 0
    # The hand hovers, so its shadow falls offset and soft on whatever is below.
    shift = rng.normal(0, 0.25, 2) * scale
    m = np.array([[1, 0, shift[0]], [0, 1, shift[1]]], np.float32)
    shadow = cv2.warpAffine(cover.astype(np.float32), m, (w, h))
    shadow = cv2.GaussianBlur(shadow, (0, 0), max(1.0, 0.12 * scale))
    img *= (1 - rng.uniform(0.2, 0.5) * shadow)[..., None]
    # Roundness from the distance to the outline lights the fingers like cylinders.
    # Each part is a rounded solid: the finger's own half-width sets its curvature.
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
    k = 2 * max(1, int(0.15 * scale)) + 1
    radius = cv2.GaussianBlur(cv2.dilate(dist, np.ones((k, k), np.uint8)), (0, 0), 0.1 * scale + 1)
    height = np.sqrt(np.clip(dist / np.maximum(radius, 1.0), 0, 1))
    height = cv2.GaussianBlur(height, (0, 0), max(1.0, 0.03 * scale))
    gy, gx = np.gradient(height)
    light = rng.normal(0, 1, 2)
    light /= np.linalg.norm(light)
    relief = (gx * light[0] + gy * light[1]) * np.maximum(radius, 1.0) * rng.uniform(0.3, 0.6)
    shade = np.clip(0.75 + 0.25 * height + relief, 0.55, 1.2)
    skin = SKIN_TONES[rng.integers(len(SKIN_TONES))] * rng.uniform(0.85, 1.12)
    texture = 1 + 0.04 * cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 1.2)
    _paint(img, _soft(mask, 0.9), skin, shade * texture)
    nails = np.zeros((h, w), np.uint8)
    for tip, direction, thick in tips:
        c = tip - direction * thick * 0.35
        ang = float(np.degrees(np.arctan2(direction[1], direction[0])))
        cv2.ellipse(nails, _pt(c), (max(1, int(thick * 0.3)), max(1, int(thick * 0.25))), ang, 0, 360, 1, -1)
    nails &= mask
    _paint(img, _soft(nails, 0.6) * 0.35, np.minimum(skin * 1.25 + 15, 255))
    if sleeve.any():
        cloth_colour = rng.uniform(10, 210, 3).astype(np.float32)
        folds = 1 + 0.15 * cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 0.15 * scale)
        _paint(img, _soft(sleeve, 0.9), cloth_colour, folds)
    return cover


def chip(rng: np.random.Generator, img: np.ndarray, scale: float) -> np.ndarray:
    h, w = img.shape[:2]
    c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
    r = max(4, int(scale * rng.uniform(0.2, 0.35)))
    mask = np.zeros((h, w), np.uint8)
    cv2.circle(mask, c, r, 1, -1, cv2.LINE_AA)
    colour = rng.uniform(20, 230, 3).astype(np.float32)
    _paint(img, _soft(mask, 0.8), colour)
    stripes = np.zeros((h, w), np.uint8)
    for k in range(6):
        a = k * 60 + rng.uniform(0, 60)
        cv2.ellipse(stripes, c, (r, r), a, 0, 18, 1, -1)
    cv2.circle(stripes, c, int(r * 0.65), 0, -1)
    _paint(img, _soft(stripes, 0.6), np.full(3, 235, np.float32))
    return mask > 0


def coin(rng: np.random.Generator, img: np.ndarray, scale: float) -> np.ndarray:
    h, w = img.shape[:2]
    c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
    r = max(3, int(scale * rng.uniform(0.12, 0.22)))
    mask = np.zeros((h, w), np.uint8)
    cv2.circle(mask, c, r, 1, -1, cv2.LINE_AA)
    metal = np.array([(60, 150, 190), (170, 170, 170), (40, 100, 160)][rng.integers(3)], np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    shade = 0.75 + 0.5 * np.clip(((xx - c[0]) - (yy - c[1])) / (2 * r) + 0.5, 0, 1)
    _paint(img, _soft(mask, 0.7), metal, shade)
    return mask > 0


def _rotated_rect(h: int, w: int, centre, size, angle) -> np.ndarray:
    mask = np.zeros((h, w), np.uint8)
    pts = cv2.boxPoints((centre, size, angle)).astype(np.int32)
    cv2.fillPoly(mask, [pts], 1, cv2.LINE_AA)
    return mask


def phone(rng: np.random.Generator, img: np.ndarray, scale: float) -> np.ndarray:
    h, w = img.shape[:2]
    centre = (rng.uniform(0, w), rng.uniform(0, h))
    size = (scale * rng.uniform(0.9, 1.1), scale * rng.uniform(1.8, 2.2))
    angle = rng.uniform(0, 180)
    body = _rotated_rect(h, w, centre, size, angle)
    _paint(img, _soft(body, 0.8), rng.uniform(10, 60, 3).astype(np.float32))
    screen = _rotated_rect(h, w, centre, (size[0] * 0.88, size[1] * 0.85), angle)
    glow = rng.uniform(15, 120, 3).astype(np.float32)
    _paint(img, _soft(screen, 0.6), glow)
    return body > 0


def paper_note(rng: np.random.Generator, img: np.ndarray, scale: float) -> np.ndarray:
    """A score sheet: pale paper with lines of scribbled writing (ink that is not an index)."""
    h, w = img.shape[:2]
    centre = (rng.uniform(0, w), rng.uniform(0, h))
    size = (scale * rng.uniform(1.5, 3.0), scale * rng.uniform(2.0, 3.5))
    angle = rng.uniform(0, 180)
    sheet = _rotated_rect(h, w, centre, size, angle)
    _paint(img, _soft(sheet, 0.8), np.clip(rng.normal(235, 12, 3), 150, 255).astype(np.float32))
    ink = np.zeros((h, w), np.uint8)
    rot = cv2.getRotationMatrix2D((0, 0), -angle, 1.0)[:, :2]
    n_lines = rng.integers(2, 8)
    for i in range(n_lines):
        y = -size[1] * 0.4 + i * size[1] * 0.8 / n_lines
        x = -size[0] * 0.4
        pts = []
        while x < size[0] * 0.35:
            pts.append((x, y + rng.normal(0, size[1] * 0.01)))
            x += rng.uniform(2, 6)
        p = np.array(pts) @ rot.T + np.array(centre)
        cv2.polylines(ink, [p.astype(np.int32)], False, 1, 1, cv2.LINE_AA)
    ink &= sheet
    _paint(img, _soft(ink, 0.4) * 0.8, np.array(rng.choice([(30, 30, 30), (140, 40, 20), (30, 30, 160)]), np.float32))
    return sheet > 0


DISTRACTORS = (chip, chip, coin, coin, phone, paper_note)
