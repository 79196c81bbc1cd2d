"""A second look for jokers: the corners of the cards lying in a zone, read one by one.

A deck's jokers carry no rank glyph in their corners: a star, an emblem or a word, different
in every deck, which the finder (stage 1 of :mod:`vision.detector`) scores lowest of all and on
some decks does not box at all. The reader (stage 2) is sure of such a corner once it is given a
crop of it. This look finds the crops without the finder:

1. **card corners**: the outlines of the cards on the mat (edges, closed, outer contours of at
   least a share of a card's area), simplified to polygons; a convex vertex whose two sides
   meet at about a right angle and run long enough is a card's corner (:func:`card_corners`);
2. **read**: each corner not already holding a sure read is turned upright (its two sides along
   the axes: a card's index corner then shows its index the right way up) and squares at a few
   places along the corner's diagonal, where a joker's mark lies, go through the reader in one
   batch (:meth:`JokerLook.read`);
3. **accept**: a corner read as a joker (either one: the two jokers' probabilities summed) at
   least :attr:`JokerLookSettings.bar` sure at two neighbouring places along its diagonal is a
   joker, the one of the two the reader gives more to at those places (:class:`JokerRead`); every
   other read is dropped, so the look adds jokers only. (A deck whose two jokers carry the same
   mark in two colours, as tigullio's stars, splits the reader between them: the mark is sure
   to be a joker's before its colour is.)

It needs the card's width in the image's pixels (a mounted camera's zone crops are made at a
known scale: ``tracker.reader``); a lone photo has none, and ``detect`` does not look again.

>>> JokerLookSettings().replace(bar=0.8).bar
0.8
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

#: The width of a playing card on the table (poker size; a bridge card's 57 mm reads the same,
#: the look's places being shares of it with room either way).
CARD_WIDTH_MM = 63.0
JOKERS = ("BJ", "RJ")
#: The grey past a crop's edge, as the reader's training crops have it.
PAD_GREY = 114


@dataclass(frozen=True)
class JokerLookSettings:
    """Where the look reads and what it accepts; places and sizes are shares of a card's width."""

    #: A corner read at least this sure of a joker (either) at two neighbouring places is a joker:
    #: a joker's mark fills squares a little apart alike (orell's read 0.9-0.98 at three places on
    #: the acceptance films; tigullio's black star, beside a red joker, 0.88-0.94 as a joker, 0.4-0.65
    #: as the black one), while the top of a rank's taller index, caught in one square, can pass for
    #: a joker's mark there and reads as its own rank at the next place.
    bar: float = 0.75
    #: Centres of the index squares read, from the card's corner along each side: jokers' marks
    #: sit 0.13-0.18 of the width in (orell 0.14, plastic 0.13, tigullio 0.18).
    places: tuple[float, ...] = (0.10, 0.12, 0.14, 0.16, 0.18, 0.20)
    #: The side of each square read (the reader pads it by its own margin).
    side: float = 0.12
    #: A corner's two sides each run at least this far (overlapping cards leave short ones).
    min_side: float = 0.2
    #: Its sides meet at about a right angle: |cos| of the angle at most this.
    right_angle: float = 0.35
    #: An outline holds at least this share of a card's area (width squared).
    min_area: float = 0.3
    #: Outlines are simplified to polygons within this (a card's rounded corner is one vertex);
    #: each side is then a line fitted to the outline between two vertices, and a corner's tip is
    #: where two such lines meet.
    simplify: float = 0.08
    #: Pixels at the crop's edges left out: a zone's printed frame is one long outline.
    margin_px: int = 8
    #: A corner whose first side (clockwise) runs at least this many card widths, clearly the
    #: longer, is a card's blank corner and is not read: a court card's art there (a sceptre's
    #: knob) can read as a joker's mark.
    long_side: float = 1.2
    #: A corner with a sure read this near the middle of its index places is read already: its own
    #: index's read lies about 0.1 of a card's width from there, the index of the next card of a
    #: fanned play (13-20 mm along, a fifth to a third of the width) further: a joker lying under
    #: another card of the play is still read at its corner.
    covered: float = 0.16

    def __post_init__(self) -> None:
        if not 0 < self.bar <= 1:
            raise ValueError(f"bar must be in (0, 1], got {self.bar}")
        if len(self.places) < 2 or any(not 0 < p < 0.5 for p in self.places) or list(self.places) != sorted(self.places):
            raise ValueError(f"places must be two or more shares of a card's width in (0, 0.5), in order, got {self.places}")
        for name in ("side", "min_side", "min_area", "simplify", "covered"):
            if not 0 < getattr(self, name) < 1:
                raise ValueError(f"{name} must be in (0, 1), got {getattr(self, name)}")
        if not 0 < self.right_angle < 1 or self.margin_px < 0 or self.long_side <= 1:
            raise ValueError(f"right_angle must be in (0, 1), margin_px not negative and long_side over 1, "
                             f"got {self.right_angle}, {self.margin_px}, {self.long_side}")

    def replace(self, **changes: object) -> JokerLookSettings:
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True)
class CardCorner:
    """A card's corner in image pixels: its tip ``point`` and the unit vectors ``along`` its two
    sides (``along[0]`` then ``along[1]`` turn clockwise on screen, y pointing down); ``outline``
    numbers the outline it lies on."""

    point: tuple[float, float]
    along: tuple[tuple[float, float], tuple[float, float]]
    outline: int
    #: How far the outline runs along each side from the tip (pixels, ``along``'s order).
    sides: tuple[float, float] = (0.0, 0.0)

    def blank(self, card_px: float, long: float) -> bool:
        """Whether this is a card's blank corner: its first side (clockwise) is a card's long
        side, at least ``long`` card widths and clearly the longer of the two. A card's index
        corners have the short side first (top-left and bottom-right of an upright card)."""
        return self.sides[0] >= long * card_px and self.sides[0] >= 1.3 * self.sides[1]

    def to_image(self, x: float, y: float) -> tuple[float, float]:
        """A point ``x`` along the first side and ``y`` along the second, in image pixels."""
        (ux, uy), (vx, vy) = self.along
        return self.point[0] + x * ux + y * vx, self.point[1] + x * uy + y * vy


@dataclass(frozen=True)
class JokerRead:
    """A joker the look read: ``card`` (``BJ`` or ``RJ``), the reader's ``probability`` of it,
    its mark's ``center`` in image pixels and the ``outline`` of the corner it was read at."""

    card: str
    probability: float
    center: tuple[float, float]
    outline: int


def card_corners(image: np.ndarray, card_px: float, settings: JokerLookSettings | None = None) -> list[CardCorner]:
    """The corners of the cards lying in ``image`` (BGR, a card ``card_px`` wide): see the module
    docstring. A corner hidden under another card is not one; an empty mat gives none."""
    s = settings or JokerLookSettings()
    grey = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    edges = cv2.morphologyEx(cv2.Canny(grey, 40, 120), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    m = s.margin_px
    if m:
        edges[:m], edges[-m:], edges[:, :m], edges[:, -m:] = 0, 0, 0, 0
    outlines, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    corners: list[CardCorner] = []
    for number, outline in enumerate(outlines):
        if cv2.contourArea(outline) < s.min_area * card_px * card_px:
            continue
        points = outline[:, 0, :]
        poly = cv2.approxPolyDP(outline, s.simplify * card_px, True)[:, 0, :]
        # where each vertex lies on the outline, in the outline's order
        at = sorted({int(np.flatnonzero((points == v).all(axis=1))[0]) for v in poly})
        if len(at) < 3:
            continue
        vertices = points[at].astype(np.float64)
        sides = [_side(points, at[i], at[(i + 1) % len(at)]) for i in range(len(at))]
        turning = np.sign(cv2.contourArea(vertices.astype(np.float32), oriented=True))
        for i, vertex in enumerate(vertices):
            u, v = vertices[i - 1] - vertex, vertices[(i + 1) % len(vertices)] - vertex
            if min(np.hypot(*u), np.hypot(*v)) < s.min_side * card_px:
                continue
            (a, da), (b, db) = sides[i - 1], sides[i]
            tip = _meet(a, da, b, db)
            if tip is None:
                continue
            # each side's direction, pointing from the tip along it
            u, v = (da if da @ u > 0 else -da), (db if db @ v > 0 else -db)
            cross = float(u[0] * v[1] - u[1] * v[0])
            if abs(float(u @ v)) > s.right_angle or cross * turning > 0:  # not square, or a notch
                continue
            lengths = (float(np.hypot(*(vertices[i - 1] - vertex))),
                       float(np.hypot(*(vertices[(i + 1) % len(vertices)] - vertex))))
            if cross < 0:
                u, v, lengths = v, u, lengths[::-1]
            corners.append(CardCorner((float(tip[0]), float(tip[1])),
                                      ((float(u[0]), float(u[1])), (float(v[0]), float(v[1]))), number, lengths))
    return corners


def _side(points: np.ndarray, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """A point on the straight line the outline ``points`` follow from index ``start`` to
    ``stop`` (wrapping round), and its unit direction: fitted to the middle of that stretch,
    clear of the rounded corners at its ends (a short stretch: its two ends)."""
    run = points[start:stop + 1] if start < stop else np.concatenate([points[start:], points[:stop + 1]])
    trim = len(run) // 5
    middle = run[trim:len(run) - trim] if len(run) - 2 * trim >= 5 else run
    dx, dy, x, y = cv2.fitLine(middle.astype(np.float32), cv2.DIST_L2, 0, 0.01, 0.01)[:, 0]
    return np.array([x, y], np.float64), np.array([dx, dy], np.float64)


#: Reads square crops: (image, boxes (N, 4) in its pixels) -> probabilities (N, classes).
ReadCrops = Callable[[np.ndarray, np.ndarray], np.ndarray]


class JokerLook:
    """The second look (module docstring). ``read``: the detector's reader over boxes of an
    image (:meth:`vision.detector.CardDetector.read`); ``classes``: its output's class names."""

    def __init__(self, read: ReadCrops, classes: Sequence[str], settings: JokerLookSettings | None = None) -> None:
        missing = [j for j in JOKERS if j not in classes]
        if missing:
            raise ValueError(f"the reader has no class for {', '.join(missing)}: it cannot look for jokers")
        self._read, self.settings = read, settings or JokerLookSettings()
        self._columns = np.array([list(classes).index(j) for j in JOKERS])

    def look(self, image: np.ndarray, card_px: float, sure_centers: np.ndarray | None = None) -> list[JokerRead]:
        """The jokers read at the corners of the cards in ``image`` that have no sure read
        (``sure_centers``: the centres of the indices the detector read surely, image pixels)."""
        s = self.settings
        corners = [c for c in card_corners(image, card_px, s) if not c.blank(card_px, s.long_side)]
        if sure_centers is not None and len(sure_centers):
            corners = [c for c in corners if not self._covered(c, card_px, np.asarray(sure_centers, np.float64))]
        return self.read(image, corners, card_px)

    def read(self, image: np.ndarray, corners: Sequence[CardCorner], card_px: float) -> list[JokerRead]:
        """Read each corner's index squares in one batch; the jokers read at least ``bar`` sure
        (either joker) at two neighbouring places, one per corner: the joker given more there, at
        the mean of its probabilities at the two places."""
        if not corners:
            return []
        s = self.settings
        size = int(np.ceil((max(s.places) + s.side) * card_px)) + 2
        half = s.side * card_px / 2
        patches, boxes = [], []
        for corner in corners:
            patches.append(_upright(image, corner, size))
            boxes.append([[p * card_px - half, p * card_px - half, p * card_px + half, p * card_px + half]
                          for p in s.places])
        # The squares of all corners, side by side in one strip, go through the reader at once.
        strip = np.concatenate(patches, axis=1)
        shift = np.repeat(np.arange(len(corners)) * size, len(s.places)).astype(np.float64)
        flat = np.asarray(boxes, np.float64).reshape(-1, 4)
        flat[:, [0, 2]] += shift[:, None]
        probs = self._read(strip, flat)[:, self._columns].reshape(len(corners), len(s.places), len(JOKERS))
        out = []
        for corner, p, patch in zip(corners, probs, patches, strict=True):
            # the surest pair of neighbouring places for a joker, either one: the less sure of the two counts
            either = p.sum(axis=1)
            pairs = np.minimum(either[:-1], either[1:])
            place = int(np.argmax(pairs))
            if pairs[place] >= s.bar:
                both = p[place:place + 2]
                joker = _by_colour(patch, s.places[place] * card_px - half, s.places[place + 1] * card_px + half)
                if joker is None:
                    joker = int(np.argmax(both.sum(axis=0)))
                at = (s.places[place] + s.places[place + 1]) / 2 * card_px
                out.append(JokerRead(JOKERS[joker], float(both[:, joker].mean()), corner.to_image(at, at),
                                     corner.outline))
        return out

    def _covered(self, corner: CardCorner, card_px: float, centers: np.ndarray) -> bool:
        mid = np.array(corner.to_image(*(2 * [float(np.mean(self.settings.places)) * card_px])))
        return bool((np.hypot(*(centers - mid).T) <= self.settings.covered * card_px).any())


def cards_of(reads: Sequence[JokerRead], decks: int = 1) -> list[JokerRead]:
    """The jokers ``reads`` make: the two index corners of one card (same outline, same joker)
    are one card, so an outline shows one of a joker for every two corners read as it (at least
    one), and no more than ``decks`` of each; the surest read stands for each card."""
    out: list[JokerRead] = []
    for joker in JOKERS:
        found: list[JokerRead] = []
        for outline in sorted({r.outline for r in reads if r.card == joker}):
            mine = sorted((r for r in reads if r.card == joker and r.outline == outline),
                          key=lambda r: -r.probability)
            found += mine[: max(1, len(mine) // 2)]
        out += sorted(found, key=lambda r: -r.probability)[:decks]
    return out


#: The mark's ink (pixels well darker or more coloured than the card) is a red joker's when at
#: least this share of it is red, a black joker's when at most ``BLACK_INK`` is; in between the
#: reader's colour stands.
RED_INK, BLACK_INK = 0.6, 0.15


def _by_colour(patch: np.ndarray, lo: float, hi: float) -> int | None:
    """Which joker (an index into :data:`JOKERS`) the ink of the square ``lo``..``hi`` (both
    axes, pixels) of an upright corner ``patch`` says: a red joker's mark is printed red, a black
    one's black, grey or blue; None where the ink is too little or mixed. The reader, which sees
    the mark's shape first, can split between two jokers whose marks differ in colour alone."""
    a, b = max(0, int(lo)), int(np.ceil(hi))
    square = patch[a:b, a:b]
    if square.size == 0:
        return None
    hsv = cv2.cvtColor(square, cv2.COLOR_BGR2HSV).reshape(-1, 3).astype(np.float64)
    paper = float(np.percentile(hsv[:, 2], 90))
    red = ((hsv[:, 0] <= 10) | (hsv[:, 0] >= 165)) & (hsv[:, 1] >= 90) & (hsv[:, 2] >= 60)
    ink = red | (hsv[:, 2] <= 0.6 * paper)
    if ink.sum() < 0.03 * len(hsv):
        return None
    share = float(red.sum() / ink.sum())
    if share >= RED_INK:
        return JOKERS.index("RJ")
    if share <= BLACK_INK:
        return JOKERS.index("BJ")
    return None


def _meet(a: np.ndarray, r: np.ndarray, c: np.ndarray, q: np.ndarray) -> np.ndarray | None:
    """Where the line through ``a`` along ``r`` meets the line through ``c`` along ``q`` (unit
    directions; None: they run nearly parallel)."""
    den = float(r[0] * q[1] - r[1] * q[0])
    if abs(den) < 1e-3:
        return None
    t = float((c - a)[0] * q[1] - (c - a)[1] * q[0]) / den
    out: np.ndarray = a + t * r
    return out


def _upright(image: np.ndarray, corner: CardCorner, size: int) -> np.ndarray:
    """The ``size`` square inside ``corner``, turned so that its sides run along the axes."""
    (ux, uy), (vx, vy) = corner.along
    to_image = np.array([[ux, vx, corner.point[0]], [uy, vy, corner.point[1]]], np.float64)
    return cv2.warpAffine(image, to_image, (size, size), flags=cv2.WARP_INVERSE_MAP | cv2.INTER_LINEAR,
                          borderValue=(PAD_GREY,) * 3)
