"""The toy deck: cards whose corner is a colour code the tracker can read exactly.

A self-test of everything but the card reader. ``ddz-table simulate --style toy`` films a
game with toy cards (white cards with a code patch where each of the two indices would be,
the card's name printed for people), and ``ddz-table run --detector toy`` reads the patches
back with :class:`ToyDetector` instead of the trained model. Zones, calibration, motion,
settling, covering, turn inference, the referee, the store and the record are then tested
exactly: any play read wrong is the tracker's fault, not the detector's.

The code: each of blue, green and red at one of five levels (10 % to 90 % of the paper's
white, 20 % apart), two of them at least 40 % apart so a patch is clearly coloured; the
54 most saturated such colours name the 54 cards. The detector divides the crop by the
local paper white (the brightest nearby, after a blur), so a lamp's fall-off, a colour
cast, drift and noise cancel out; it keeps coloured blobs the size of a patch (the mat's
thin coloured lines are opened away) and reads each one's median colour. A colour between
levels, or not in the code, is not read at all rather than read wrong.

>>> code_colour("3s"), len({code_colour(c) for c in CARD_IDS})
((25, 25, 225), 54)
"""

from __future__ import annotations

import cv2
import numpy as np

from tracker.zones import CROP_PX_PER_MM
from vision.cards import CARD_IDS, CARD_INDEX
from vision.detections import Detections
from vision.protocol import CornerDetector

LEVELS = (0.1, 0.3, 0.5, 0.7, 0.9)  # of the paper's white, per channel
STEP = 0.2
#: Where the code patch sits on a 63 mm card, in mm from its top-left corner: x, y, w, h.
PATCH_MM = (2.0, 2.0, 13.0, 20.0)
PAPER = (250, 250, 250)


def _codes() -> list[tuple[int, int, int]]:
    """Level triples (b, g, r) with a spread of at least two steps, most saturated first."""
    n = len(LEVELS)
    triples = [(b, g, r) for b in range(n) for g in range(n) for r in range(n) if max(b, g, r) - min(b, g, r) >= 2]
    return sorted(triples, key=lambda c: (-(max(c) - min(c)), c))[:len(CARD_IDS)]


CODES = _codes()
CODE_INDEX = {code: i for i, code in enumerate(CODES)}
assert len(CODES) == len(CARD_IDS)


def code_colour(card: str) -> tuple[int, int, int]:
    """The BGR colour of a card's code patch (on paper of ``PAPER`` white)."""
    blue, green, red = (round(LEVELS[v] * PAPER[0]) for v in CODES[CARD_INDEX[card]])
    return blue, green, red


def toy_face(card: str, size: tuple[int, int], card_mm: float = 63.0) -> np.ndarray:
    """A toy card face, BGRA, ``size`` = (width, height) pixels of a ``card_mm`` wide card."""
    w, h = size
    ppm = w / card_mm
    face = np.zeros((h, w, 4), np.uint8)
    radius = max(1, int(3 * ppm))
    cv2.rectangle(face, (radius, 0), (w - 1 - radius, h - 1), (*PAPER, 255), -1)
    cv2.rectangle(face, (0, radius), (w - 1, h - 1 - radius), (*PAPER, 255), -1)
    for cx, cy in ((radius, radius), (w - 1 - radius, radius), (radius, h - 1 - radius), (w - 1 - radius, h - 1 - radius)):
        cv2.circle(face, (cx, cy), radius, (*PAPER, 255), -1, cv2.LINE_AA)
    x, y, pw, ph = (round(v * ppm) for v in PATCH_MM)
    # two opposite corners, as printed indices are: one shows whichever way cards overlap
    cv2.rectangle(face, (x, y), (x + pw - 1, y + ph - 1), (*code_colour(card), 255), -1)
    cv2.rectangle(face, (w - x - pw, h - y - ph), (w - x - 1, h - y - 1), (*code_colour(card), 255), -1)
    scale = ppm / 22  # Hershey glyphs are ~22 px tall at scale 1: this is 1 mm
    thick = max(1, round(0.5 * ppm))
    cv2.putText(face, card, (x, y + ph + round(6 * ppm)), cv2.FONT_HERSHEY_SIMPLEX, 4 * scale, (40, 40, 40, 255),
                thick, cv2.LINE_AA)
    cv2.putText(face, card, (round(w * 0.35), round(h * 0.6)), cv2.FONT_HERSHEY_SIMPLEX, 12 * scale,
                (90, 90, 90, 255), 2 * thick, cv2.LINE_AA)
    return face


class ToyDetector(CornerDetector):
    """Reads toy code patches in a crop of ``px_per_mm`` (one detection per visible patch);
    grouped into cards by their places alone (:class:`vision.protocol.CornerDetector`)."""

    def __init__(self, confidence: float = 0.97, px_per_mm: float = CROP_PX_PER_MM) -> None:
        self.confidence = confidence
        self.px_per_mm = px_per_mm
        self.calls = 0

    def detect(self, image: np.ndarray) -> Detections:
        self.calls += 1
        img = image.astype(np.float32)
        ppm = self.px_per_mm
        # the paper white: the brightest nearby (a patch's middle reaches paper within 18 mm),
        # found on a quarter-size copy, which also averages the noise away
        h0, w0 = img.shape[:2]
        small = cv2.resize(img, (max(1, w0 // 4), max(1, h0 // 4)), interpolation=cv2.INTER_AREA)
        reach = int(18 * ppm / 4) | 1
        white = cv2.resize(cv2.dilate(small, np.ones((reach, reach), np.uint8)), (w0, h0),
                           interpolation=cv2.INTER_LINEAR)
        white = np.maximum(white, 20.0)
        norm = cv2.GaussianBlur(img, (3, 3), 0) / white
        # max - min over the three channels, taken plane by plane: the same numbers as a reduction
        # over the last axis, several times quicker on a whole crop
        b, g, r = norm[..., 0], norm[..., 1], norm[..., 2]
        spread = np.maximum(np.maximum(b, g), r) - np.minimum(np.minimum(b, g), r)
        mask = (spread > 0.3).astype(np.uint8)
        # the mat's coloured outlines and numbers are thin strokes: opened away; a patch is not
        side = max(3, int(2.2 * ppm)) | 1
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((side, side), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
        min_area = 50 * ppm * ppm  # a patch is 260 mm^2; slivers of covered ones are left out
        boxes, ids = [], []
        for i in range(1, n):
            x, y, w, h, area = stats[i]
            if area < min_area:
                continue
            blob = (labels[y:y + h, x:x + w] == i).astype(np.uint8)
            if not _patch_shaped(blob, area, ppm):
                continue
            # the middle only: JPEG's halved colour resolution bleeds the paper into the rim
            core = max(3, int(0.35 * min(w, h))) | 1
            inside = cv2.erode(blob, np.ones((core, core), np.uint8)) > 0
            if inside.sum() < 6:
                continue
            around = _paper_around(img, spread, labels == i, (x, y, w, h), ppm)
            if around is None:
                continue
            colour = np.median(img[y:y + h, x:x + w][inside], axis=0) / around  # a share of the paper white
            levels = np.rint((colour - LEVELS[0]) / STEP).astype(int)
            off = np.abs(colour - LEVELS[0] - STEP * levels).max()
            code = tuple(int(v) for v in levels)
            if off > 0.4 * STEP or code not in CODE_INDEX:
                continue
            boxes.append([x, y, x + w, y + h])
            ids.append(CODE_INDEX[code])
        count = len(ids)
        return Detections(np.array(boxes, np.float32).reshape(-1, 4), np.full(count, self.confidence, np.float32),
                          np.array(ids, np.int64), alt_ids=np.full((count, 1), -1), alt_probs=np.zeros((count, 1)))


def _patch_shaped(blob: np.ndarray, area: int, ppm: float) -> bool:
    """A code patch is a filled rectangle 13 x 20 mm (a covered one a little less); the
    mat's printed letters and digits are not."""
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return False
    (_, _), (a, b), _ = cv2.minAreaRect(max(contours, key=cv2.contourArea))
    short, long = sorted((a / ppm, b / ppm))
    return 7.0 <= short <= 16.0 and 10.0 <= long <= 23.0 and area >= 0.8 * a * b


def _paper_around(img: np.ndarray, spread: np.ndarray, blob: np.ndarray, box: tuple[int, int, int, int],
                  ppm: float) -> np.ndarray | None:
    """The paper's colour in a ring 1.5-4 mm around a patch (its own card, lit as it is):
    the median of the ring's plainest, not dark pixels, per channel."""
    x, y, w, h = box
    pad = int(4 * ppm) + 1
    H, W = blob.shape
    x1, y1, x2, y2 = max(0, x - pad), max(0, y - pad), min(W, x + w + pad), min(H, y + h + pad)
    local = blob[y1:y2, x1:x2].astype(np.uint8)
    outer = cv2.dilate(local, np.ones((2 * pad + 1, 2 * pad + 1), np.uint8))
    inner = cv2.dilate(local, np.ones((int(3 * ppm) | 1, int(3 * ppm) | 1), np.uint8))
    ring = (outer > 0) & (inner == 0)
    pixels, plain = img[y1:y2, x1:x2][ring], spread[y1:y2, x1:x2][ring]
    if len(pixels) < 20:
        return None
    # the white card is the plainest thing there: the mat's tinted fill, its printing, a
    # neighbour's patch and the card's own printed name all have more colour or are darker
    grey = pixels.mean(axis=1)
    paper = (plain <= np.percentile(plain, 35)) & (grey >= np.percentile(grey, 30))
    if paper.sum() < 8:
        return None
    return np.maximum(np.median(pixels[paper], axis=0), 20.0)
