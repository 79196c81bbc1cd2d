"""Find a card's corner index (rank glyph + small suit under it) from its ink.

The index is the ink cluster nearest the top-left corner: a rank glyph (one or two
components, "10" has two), then the small suit just under it. Jokers carry a word
(often written top to bottom) or an emblem, so their cluster may grow further down.
Frame lines and picture art that run off the corner region are ignored.
"""

from __future__ import annotations

import cv2
import numpy as np

Box = tuple[int, int, int, int]

#: Corner region as fractions of the card (width, height); indices sit well inside it.
REGION = (0.30, 0.45)
#: A joker's word may run past that region: written top to bottom it may reach past half the
#: card (atlasnye's R, tango's r), written across past a third of it (bellot's and
#: gnomangelo_bitmap's R). A joker box that comes out as a word along one edge of the region
#: and ends near it is looked for again with the region stretched that way only; an emblem
#: (square) never is, as the art under it is no part of the corner (paris's "THE JOKER").
JOKER_REGION = (0.45, 0.75)
#: How close to the region's edge a joker word must end to be looked for further, and how
#: long it must be for its width (vertical) or height (across) to count as a word.
JOKER_NEAR_EDGE = 0.1
JOKER_WORD = 1.3
INK_DIFF = 70  # max channel difference from paper that counts as ink


def ink_mask(face: np.ndarray, paper: np.ndarray) -> np.ndarray:
    """Pixels clearly unlike the paper, away from the card's own outline."""
    h, w = face.shape[:2]
    diff = np.abs(face[..., :3].astype(np.int16) - paper.astype(np.int16)).max(axis=2)
    inside: np.ndarray = (face[..., 3] > 200).astype(np.uint8)
    edge = max(3, round(0.022 * w))
    inside = cv2.erode(inside, np.ones((2 * edge + 1, 2 * edge + 1), np.uint8))
    return (diff > INK_DIFF) & (inside > 0)


def _components(mask: np.ndarray, min_area: int) -> list[Box]:
    """Boxes of blobs that end inside the region (not frame lines or picture art)."""
    rh, rw = mask.shape
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    out = []
    for x, y, bw, bh, area in stats[1:n]:
        if area < min_area:
            continue
        if x + bw >= rw - 1 or y + bh >= rh - 1:
            continue
        out.append((int(x), int(y), int(x + bw), int(y + bh)))
    return out


def _union(a: Box, b: Box) -> Box:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _overlap(a1: int, a2: int, b1: int, b2: int) -> int:
    return min(a2, b2) - max(a1, b1)


def locate_index(face: np.ndarray, paper: np.ndarray, *, joker: bool = False) -> Box | None:
    """Tight box ``(x1, y1, x2, y2)`` of the top-left index in face pixels, or None."""
    ink = ink_mask(face, paper)
    box = _locate(ink, REGION, joker)
    if not joker or box is None:
        return box
    h, w = ink.shape
    bw, bh = box[2] - box[0], box[3] - box[1]
    down = bh >= JOKER_WORD * bw and box[3] >= (REGION[1] - JOKER_NEAR_EDGE) * h
    across = bw >= JOKER_WORD * bh and box[2] >= (REGION[0] - JOKER_NEAR_EDGE) * w
    if not (down or across):
        return box
    region = (JOKER_REGION[0] if across else REGION[0], JOKER_REGION[1] if down else REGION[1])
    longer = _locate(ink, region, joker)
    # The same word found further, never another cluster.
    return longer if longer is not None and longer[:2] == box[:2] else box


def _locate(ink: np.ndarray, region: tuple[float, float], joker: bool) -> Box | None:
    """The index box found in the ``region`` (fractions of the card) of a face's ink mask."""
    h, w = ink.shape
    rw, rh = round(region[0] * w), round(region[1] * h)
    mask = ink[:rh, :rw]
    comps = _components(mask, min_area=max(4, (w * h) // 20000))
    min_glyph = 0.035 * h
    seeds = [c for c in comps if c[3] - c[1] >= min_glyph]
    if not seeds:
        return None
    # The rank glyph: the tall blob nearest the corner.
    box = min(seeds, key=lambda c: c[0] + c[1])
    rank_h = box[3] - box[1]
    used = {box}
    # The rank row: glyph pieces side by side ("10", "Joker" written across).
    grew = True
    while grew:
        grew = False
        for c in comps:
            if c in used:
                continue
            ch = c[3] - c[1]
            gap = c[0] - box[2]
            if (
                _overlap(c[1], c[3], box[1], box[3]) > 0.5 * min(ch, rank_h)
                and -2 <= gap <= 0.3 * rank_h
                and ch <= 1.3 * rank_h
            ):
                box, grew = _union(box, c), True
                used.add(c)
    # The small suit under the rank (jokers: the rest of the word or the emblem's parts).
    steps = 12 if joker else 1
    for _ in range(steps):
        bw = box[2] - box[0]
        below = [
            c
            for c in comps
            if c not in used
            and 0 <= c[1] - box[3] + 2 <= 0.6 * rank_h
            and box[0] - 0.3 * bw <= (c[0] + c[2]) / 2 <= box[2] + 0.3 * bw
            and (c[2] - c[0]) <= 1.6 * max(bw, rank_h)
        ]
        if not below:
            break
        # Pieces of one suit (a club's stem) all start near the same line.
        top = min(c[1] for c in below)
        for c in below:
            if c[1] <= top + 0.3 * rank_h:
                box = _union(box, c)
                used.add(c)
    return box


def _fits(box: Box, window: Box) -> bool:
    wx1, wy1, wx2, wy2 = window
    ww, wh = wx2 - wx1, wy2 - wy1
    x1, y1, x2, y2 = box
    return (
        abs(x1 - wx1) <= 0.35 * ww
        and abs(y1 - wy1) <= 0.25 * wh
        and 0.55 * wh <= y2 - y1 <= 1.3 * wh
        and x2 - x1 <= 1.45 * ww
    )


def fit_to_window(face: np.ndarray, paper: np.ndarray, box: Box | None, window: Box) -> Box | None:
    """Keep a box that looks like the deck's usual index, else the ink inside that window."""
    if box is not None and _fits(box, window):
        return box
    wx1, wy1, wx2, wy2 = window
    pad_x, pad_y = round(0.15 * (wx2 - wx1)), round(0.08 * (wy2 - wy1))
    x1, y1 = max(0, wx1 - pad_x // 2), max(0, wy1 - pad_y)
    x2, y2 = wx2 + pad_x, wy2 + pad_y
    ink = ink_mask(face, paper)[y1:y2, x1:x2]
    rows, cols = np.flatnonzero(ink.any(1)), np.flatnonzero(ink.any(0))
    if len(rows) == 0:
        return None
    return (x1 + int(cols[0]), y1 + int(rows[0]), x1 + int(cols[-1]) + 1, y1 + int(rows[-1]) + 1)
