"""The suit from a card's face: its large pips, read when both of its corners are found.

A corner index's suit mark is small, and blur or a coarse sensor turns a club into a spade
there first. The face between a card's two corner indices carries the same suit three to
five times larger: 2-10 pips on a number card, one large pip on an ace, a suit mark beside
the figure on most court cards. Given the two corner boxes of one card (a card diagonal
apart, the card at any angle), :func:`find_pips` finds pip-sized ink blobs on the face
between them, and :class:`FaceSuitReader` classifies each blob's square crop with a tiny CNN
(``models/pips.onnx``, trained by ``sim.training.pips``: spades, hearts, diamonds, clubs, or
not a pip) and combines them into the face's suit probabilities (:class:`FaceSuit`), or
None when the face shows no pip it is sure of (a court card's figure, a joker).

Where the face goes: only the card's two index boxes are known. Their centres are opposite
corners of the pip area, a rectangle of about known shape (:data:`ASPECT`); of the two such
rectangles on that diagonal, mirror images of each other, the card is always the same one,
since its indices sit top-left and bottom-right and a camera does not mirror
(:class:`FaceRegion`). Blobs are found there as ink on the paper colour, with the index boxes
left out, and kept when their size (relative to the index's), fill and shape are a pip's.

Only ONNX Runtime runs here (no torch). ``vision.grouping`` asks the face only for cards
whose corners were grouped and whose index suit is unsure (``DetectorSettings.face_suit_below``),
through :meth:`FaceSuitReader.vote` (``vision.detector.CardDetector.group``).

>>> reader = FaceSuitReader()                                       # doctest: +SKIP
>>> reader.read(image, [40, 30, 52, 58], [150, 190, 162, 218])     # doctest: +SKIP
FaceSuit(probs={'s': 0.02, 'h': 0.0, 'd': 0.0, 'c': 0.98}, pips=5)
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import ArrayLike

from models import MODELS_DIR
from vision.backends import ModelFileError, OnnxBackend
from vision.boxes import crop_squares, to_blob
from vision.cards import SUITS  # the classifier's suits, in the order of FaceSuit.probs
from vision.detections import Detections
from vision.grouping import FaceVote

DEFAULT_PIPS = MODELS_DIR / "pips.onnx"
#: The classifier's for a blob that is no pip (a piece of a figure, a rank glyph, an edge).
NOT_A_PIP = "none"
#: The pip area's shape: the rectangle whose opposite corners are the two index centres, its
#: width over its height. On the 27 decks here 0.65-1.03, median 0.77.
ASPECT = 0.77
#: The rectangle read is this much larger than the index centres' (pips reach a little past).
GROW = 1.08
#: Blobs whose centre lies this near an index box (in index sizes, past the box) are the
#: index's own ink (its rank glyph and small suit), not pips.
INDEX_MARGIN = 0.15
#: A pip's longer side, in index sizes (the index box's longer side): on the training decks'
#: number cards 0.3-0.9 (an ace's single pip up to about 1.6); smaller blobs are specks or a
#: court card's detail, larger ones a figure or two cards' ink run together.
PIP_SIZE = (0.22, 1.8)
#: A pip fills at least this share of its bounding box (a heart about 0.6, a club 0.55); a
#: thin line or frame fills far less.
PIP_FILL = 0.25
#: A pip's bounding box is no longer than this many times its width (two pips run together by
#: blur still are; a figure's frame is not).
PIP_ASPECT = 2.6
#: Ink: a pixel whose colour lies at least this share of the way from the paper to the
#: region's strongest ink (per image, so a blurred or dim face still gives its pips) ...
INK_SHARE = 0.45
#: ... and at least this far from the paper (0-255 levels), so a blank face gives no ink.
INK_FLOOR = 28.0
#: Margin around a blob's box when it is cut for the classifier.
CROP_PAD = 0.2
#: A blob counts towards the suit when the classifier gives "not a pip" less than this.
PIP_SURE = 0.5
#: At most this many blobs are classified per card (the largest): a 10 has ten pips.
MAX_PIPS = 12


@dataclass(frozen=True)
class FaceSuit:
    """The suit a card's face shows: probabilities of ``s h d c`` (summing to 1) and how many
    pips gave them."""

    probs: dict[str, float]
    pips: int

    @property
    def suit(self) -> str:
        return max(self.probs, key=lambda s: self.probs[s])

    @property
    def confidence(self) -> float:
        return self.probs[self.suit]


def _rotate(v: np.ndarray, angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def inside_polygon(points: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """Which points lie inside a convex polygon (either winding)."""
    points = np.asarray(points, np.float64).reshape(-1, 2)
    sides = []
    for a, b in zip(polygon, np.roll(polygon, -1, axis=0), strict=True):
        edge = b - a
        sides.append(edge[0] * (points[:, 1] - a[1]) - edge[1] * (points[:, 0] - a[0]))
    signs = np.array(sides)
    return np.asarray((signs >= 0).all(axis=0) | (signs <= 0).all(axis=0))


@dataclass(frozen=True)
class FaceRegion:
    """Where a card's pips lie, from its two index boxes: the rectangle whose opposite corners
    are the two index centres (:data:`ASPECT`).

    A rectangle of known shape on a diagonal has two places, mirror images about it; a card's
    indices sit in its top-left and bottom-right corners, and a camera (unlike a mirror) keeps
    the turn from the diagonal to the card's width the same at any angle of the card, so only
    ``side`` +1 is a card. Whichever of the two boxes comes first gives the same rectangle.
    (-1, the mirror image, lies off the card: the training data's "not a pip" blobs come from
    there.)"""

    start: np.ndarray
    end: np.ndarray
    #: The index size (mean longer side of the two boxes), the unit of every pip measure.
    index: float
    boxes: np.ndarray
    side: int = 1

    @property
    def length(self) -> float:
        return float(np.linalg.norm(self.end - self.start))

    def polygon(self) -> np.ndarray:
        """The four corners (x, y) of the region read, grown by :data:`GROW` about its middle."""
        axis = self.end - self.start
        middle = (self.start + self.end) / 2
        beta = np.arctan2(1.0, ASPECT)  # between the diagonal and the rectangle's width
        width = _rotate(axis, -self.side * beta) * np.cos(beta)
        corners = np.array([self.start, self.start + width, self.end, self.end - width])
        grown: np.ndarray = middle + (corners - middle) * GROW
        return grown

    def contains(self, points: np.ndarray) -> np.ndarray:
        """Which points lie inside the region and clear of both index boxes."""
        points = np.asarray(points, np.float64).reshape(-1, 2)
        inside = inside_polygon(points, self.polygon())
        margin = INDEX_MARGIN * self.index
        for x1, y1, x2, y2 in self.boxes:
            near = ((points[:, 0] > x1 - margin) & (points[:, 0] < x2 + margin)
                    & (points[:, 1] > y1 - margin) & (points[:, 1] < y2 + margin))
            inside &= ~near
        return inside


def face_region(box_a: ArrayLike, box_b: ArrayLike, side: int = 1) -> FaceRegion:
    """The face region of a card whose two corner indices lie in these boxes (``x1 y1 x2 y2``)."""
    boxes = np.asarray([box_a, box_b], np.float64).reshape(2, 4)
    if not (boxes[:, 2:] > boxes[:, :2]).all():
        raise ValueError(f"corner boxes must be x1 < x2, y1 < y2, got {boxes.tolist()}")
    if side not in (1, -1):
        raise ValueError(f"side must be 1 (a card) or -1 (its mirror image), got {side}")
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    index = float((boxes[:, 2:] - boxes[:, :2]).max(axis=1).mean())
    return FaceRegion(centres[0], centres[1], index, boxes, side)


def _mask(shape: tuple[int, int], polygon: np.ndarray, origin: tuple[int, int]) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round(polygon - origin).astype(np.int32)], 1)
    return mask.astype(bool)


def paper_distance(patch: np.ndarray, on_card: np.ndarray) -> tuple[np.ndarray, float]:
    """Each pixel's colour distance (0-255, largest channel) from the paper, and the strongest
    ink's distance, judged on the pixels ``on_card``.

    The paper is the median colour of the brighter half of those pixels (a face is mostly
    paper; a court card's figure may not be, and then little is read)."""
    pixels = patch[on_card]
    if len(pixels) < 16:
        return np.zeros(patch.shape[:2], np.uint8), 0.0
    grey = pixels.astype(np.uint16).sum(axis=1)
    paper = np.median(pixels[grey >= np.median(grey)], axis=0)
    colour = np.full_like(patch, 0)
    colour[:] = np.round(paper).astype(np.uint8)
    distance = cv2.absdiff(patch, colour).max(axis=2)
    return distance, float(np.percentile(distance[on_card], 99.5))


def find_pips(image: np.ndarray, box_a: ArrayLike, box_b: ArrayLike, side: int = 1) -> np.ndarray:
    """Boxes ``(K, 4)`` (image pixels, ``x1 y1 x2 y2``) of the pip-sized ink blobs on the face of
    the card whose two corner indices lie in ``box_a`` and ``box_b``, largest first, at most
    :data:`MAX_PIPS`. A blob counts when its centre lies in the face region (:class:`FaceRegion`;
    ``side`` as it takes it) and its size and shape are a pip's (:data:`PIP_SIZE`,
    :data:`PIP_FILL`, :data:`PIP_ASPECT`); blobs are found on the region's bounding box grown by
    the largest pip, so one cut by the region's edge is found whole."""
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"expected an HxWx3 uint8 BGR image, got {getattr(image, 'shape', type(image))}")
    region = face_region(box_a, box_b, side)
    corners = region.polygon()
    h, w = image.shape[:2]
    grow = PIP_SIZE[1] * region.index / 2
    x1, y1 = np.floor(np.maximum(corners.min(axis=0) - grow, 0)).astype(int)
    x2, y2 = np.ceil(np.minimum(corners.max(axis=0) + grow, (w, h))).astype(int)
    if region.length < 2 * region.index * INDEX_MARGIN or x2 - x1 < 4 or y2 - y1 < 4:
        return np.zeros((0, 4), np.float32)
    patch = image[y1:y2, x1:x2]
    ph, pw = patch.shape[:2]
    distance, strongest = paper_distance(patch, _mask((ph, pw), region.polygon(), (x1, y1)))
    ink = distance >= max(INK_FLOOR, INK_SHARE * strongest)
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    if count <= 1:
        return np.zeros((0, 4), np.float32)
    stats = stats[1:]
    bw, bh, area = stats[:, 2].astype(float), stats[:, 3].astype(float), stats[:, 4].astype(float)
    long_side, short_side = np.maximum(bw, bh), np.maximum(np.minimum(bw, bh), 1.0)
    lo, hi = PIP_SIZE
    centres = stats[:, :2] + np.column_stack([bw, bh]) / 2 + (x1, y1)
    keep = ((long_side >= lo * region.index) & (long_side <= hi * region.index)
            & (area >= PIP_FILL * bw * bh) & (long_side <= PIP_ASPECT * short_side)
            & region.contains(centres))
    # A blob touching the patch's edge runs on past it: the table, another card.
    keep &= (stats[:, 0] > 0) & (stats[:, 1] > 0) & (stats[:, 0] + bw < pw) & (stats[:, 1] + bh < ph)
    idx = np.flatnonzero(keep)
    idx = idx[np.argsort(-area[idx], kind="stable")][:MAX_PIPS]
    boxes = np.column_stack([stats[idx, 0], stats[idx, 1], stats[idx, 0] + bw[idx], stats[idx, 1] + bh[idx]])
    found: np.ndarray = (boxes + (x1, y1, x1, y1)).astype(np.float32).reshape(-1, 4)
    return found


def pip_crops(image: np.ndarray, boxes: np.ndarray, size: int) -> np.ndarray:
    """Square ``size`` x ``size`` BGR crops around pip boxes, as the classifier was trained on."""
    return crop_squares(image, boxes, size, CROP_PAD)


def combine(probs: np.ndarray, classes: tuple[str, ...]) -> FaceSuit | None:
    """One suit from the classifier's probabilities ``(K, classes)`` of a face's blobs.

    Blobs it calls a pip (not-a-pip under :data:`PIP_SURE`) count, each weighted by how sure it
    is that it is a pip; the face's suit probabilities are the weighted mean of their suit
    probabilities (renormalised over the four suits). A mean, not a product: the pips of one
    card are drawn alike and blurred alike, so their reads are not independent evidence.
    None when no blob counts."""
    probs = np.asarray(probs, np.float64).reshape(-1, len(classes))
    suits = probs[:, [classes.index(s) for s in SUITS]]
    none = probs[:, classes.index(NOT_A_PIP)] if NOT_A_PIP in classes else np.zeros(len(probs))
    counted = none < PIP_SURE
    if not counted.any():
        return None
    weights = 1 - none[counted]
    per_blob = suits[counted] / np.maximum(suits[counted].sum(axis=1, keepdims=True), 1e-9)
    mean = (per_blob * weights[:, None]).sum(axis=0) / max(weights.sum(), 1e-9)
    mean = mean / mean.sum()
    return FaceSuit({s: float(p) for s, p in zip(SUITS, mean, strict=True)}, int(counted.sum()))


class FaceSuitReader:
    """The pip classifier (``models/pips.onnx``) and the face reading around it.

    A missing, empty or broken file, or one that does not classify square crops into the four
    suits (and ``none``), is a :class:`vision.backends.ModelFileError` naming the file."""

    def __init__(self, path: str | os.PathLike[str] = DEFAULT_PIPS, threads: int | None = None) -> None:
        self.path = Path(path)
        self.model = OnnxBackend(self.path, threads)
        names = self.model.names
        self.classes = tuple(names[i] for i in sorted(names))
        if not set(SUITS) <= set(self.classes) or not set(self.classes) <= {*SUITS, NOT_A_PIP}:
            raise ModelFileError(f"{self.path}: classes {self.classes} are not the four suits "
                                 f"{' '.join(SUITS)} (and {NOT_A_PIP!r}): not a pip classifier")
        shape = self.model.input_shape
        size = self.model.imgsz[0] if self.model.imgsz else shape[2]
        if not size or (shape[2] is not None and shape[2] != shape[3]):
            raise ModelFileError(f"{self.path} must take square crops, input shape is {shape}")
        self.size: int = size

    def classify(self, crops: np.ndarray) -> np.ndarray:
        """Probabilities ``(N, classes)`` of BGR crops of the model's size."""
        if not len(crops):
            return np.zeros((0, len(self.classes)), np.float32)
        if self.model.input_shape[0] is None:
            out = self.model(to_blob(crops))
        else:
            out = np.concatenate([self.model(to_blob(c)) for c in crops])
        return np.asarray(out, np.float32).reshape(len(crops), -1)

    def read(self, image: np.ndarray, box_a: ArrayLike, box_b: ArrayLike) -> FaceSuit | None:
        """The suit on the face of the card whose corner indices lie in ``box_a`` and ``box_b``."""
        boxes = find_pips(image, box_a, box_b)
        if not len(boxes):
            return None
        return combine(self.classify(pip_crops(image, boxes, self.size)), self.classes)

    def vote(self, image: np.ndarray, detections: Detections, below: float, weight: float) -> FaceVote:
        """What :func:`vision.grouping.group_corners` asks a paired card's face through:
        detections ``i`` and ``j`` of ``image`` are its two corners."""

        def read(i: int, j: int) -> dict[str, float] | None:
            suit = self.read(image, detections.boxes[i], detections.boxes[j])
            return None if suit is None else suit.probs

        return FaceVote(read, below, weight)

