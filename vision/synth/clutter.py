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


def hand(rng: np.random.Generator, img: np.ndarray, scale: float) -> np.ndarray:
    """A hand reaching in from an edge: palm, sleeve and one to four fingers.

    ``scale`` is a card width in pixels, which sets the finger size.
    """
    h, w = img.shape[:2]
    side = rng.integers(4)
    t = rng.uniform(0.1, 0.9)
    edge = [(t * w, -5), (w + 5, t * h), (t * w, h + 5), (-5, t * h)][side]
    inward = np.array([(0, 1), (-1, 0), (0, -1), (1, 0)][side], np.float32)
    direction = inward + rng.normal(0, 0.5, 2)
    direction /= np.linalg.norm(direction)
    reach = rng.uniform(0.6, 1.8) * scale
    palm_c = np.array(edge) + direction * reach
    palm_r = scale * rng.uniform(0.35, 0.6)
    mask = np.zeros((h, w), np.uint8)
    angle = float(np.degrees(np.arctan2(direction[1], direction[0])))
    cv2.ellipse(mask, tuple(int(v) for v in palm_c), (int(palm_r * 1.3), int(palm_r)), angle, 0, 360, 1, -1)
    # The forearm back to the edge keeps the hand attached to someone.
    cv2.line(mask, tuple(int(v) for v in edge), tuple(int(v) for v in palm_c), 1, int(palm_r * 1.5))
    normal = np.array([-direction[1], direction[0]])
    n_fingers = rng.integers(1, 5)
    thick = max(3, int(scale * rng.uniform(0.1, 0.16)))
    for i in range(n_fingers):
        off = (i - (n_fingers - 1) / 2) * thick * 1.2
        spread = direction + normal * rng.normal(0, 0.25)
        spread /= np.linalg.norm(spread)
        base = palm_c + normal * off + direction * palm_r * 0.8
        tip = base + spread * scale * rng.uniform(0.4, 0.85)
        cv2.line(mask, tuple(int(v) for v in base), tuple(int(v) for v in tip), 1, thick, cv2.LINE_AA)
        cv2.circle(mask, tuple(int(v) for v in tip), thick // 2, 1, -1)
    skin = SKIN_TONES[rng.integers(len(SKIN_TONES))] * rng.uniform(0.85, 1.15)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    shade = 0.8 + 0.3 * np.clip(((xx - palm_c[0]) * normal[0] + (yy - palm_c[1]) * normal[1]) / (2 * scale) + 0.5, 0, 1)
    soft = _soft(mask, 1.2)
    _paint(img, soft, skin, shade)
    # Sleeve over the forearm near the edge.
    if rng.random() < 0.6:
        sleeve = np.zeros((h, w), np.uint8)
        cuff = np.array(edge) + direction * reach * rng.uniform(0.2, 0.5)
        cv2.line(sleeve, tuple(int(v) for v in edge), tuple(int(v) for v in cuff), 1, int(palm_r * 2.2))
        _paint(img, _soft(sleeve, 1.0), rng.uniform(10, 200, 3).astype(np.float32))
        mask |= sleeve
    return mask > 0


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
