"""Corner detections to card instances.

A face-up card shows its index in two opposite corners, so the detector may report one
card twice. Two detections are the same card when they agree in id and sit about a card
diagonal apart, measured in index sizes (a corner index is a fixed fraction of its card, so
the ratio holds at any camera distance). Two detections of one id almost on top of each
other are one corner found twice.

In a one-deck game (``decks=1``) a card id left in two places after pairing is impossible:
it is reported as an :class:`Alert` (a misread, or a card from another deck). With two decks
up to two instances of an id are fine and geometry alone decides which corners pair up.

>>> import numpy as np
>>> from vision.detections import Detections
>>> dets = Detections(np.array([[0, 0, 10, 20], [60, 80, 70, 100]]), np.ones(2), np.zeros(2)).with_cards(["Qs", "Qs"])
>>> [(c.card, c.corners) for c in group_corners(dets).cards]
[('Qs', (0, 1))]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vision.cards import CARD_IDS
from vision.detections import Detections

#: Distance between the two index centres of one card, in index box sizes (longest side).
#: Measured on the 18 synthetic decks' art: median 4.65, 5-95% 1.95-5.5 (decks with big
#: indices sit near 2; joker emblems are small, up to ~15); tilt and box jitter widen it.
PAIR_RANGE = (1.6, 12.0)
PAIR_EXPECTED = 4.7
#: Closer than this (in index sizes) two same-id boxes are one corner found twice.
SAME_CORNER = 0.6
#: Two corners of one card are about the same size on the frame.
MAX_SIZE_RATIO = 1.8


@dataclass(frozen=True)
class CardInstance:
    """One physical card: its id, the detections that show it, and where it is."""

    card: str
    corners: tuple[int, ...]
    center: tuple[float, float]
    confidence: float

    @property
    def paired(self) -> bool:
        return len(self.corners) >= 2


@dataclass(frozen=True)
class Alert:
    """A card id seen in more places than the decks in play allow."""

    card: str
    instances: int
    message: str


@dataclass(frozen=True)
class Grouping:
    cards: list[CardInstance] = field(default_factory=list)
    alerts: list[Alert] = field(default_factory=list)

    @property
    def card_ids(self) -> list[str]:
        return [c.card for c in self.cards]


def group_corners(detections: Detections, decks: int = 1, pair_range: tuple[float, float] = PAIR_RANGE,
                  expected: float = PAIR_EXPECTED) -> Grouping:
    """Group read corner detections into cards; unread detections (id -1) are left out."""
    if decks < 1:
        raise ValueError(f"decks must be at least 1, got {decks}")
    lo, hi = pair_range
    if not 0 < lo < hi:
        raise ValueError(f"pair_range must be increasing and positive, got {pair_range}")
    centers, sizes = detections.centers, np.maximum(detections.sizes, 1e-6)
    cards: list[CardInstance] = []
    alerts: list[Alert] = []
    for class_id in np.unique(detections.class_ids):
        if class_id < 0:
            continue
        members = _merge_duplicates(np.flatnonzero(detections.class_ids == class_id), centers, sizes,
                                    detections.scores)
        groups = _pair(members, centers, sizes, lo, hi, expected)
        card = CARD_IDS[class_id]
        for group in groups:
            main = [g[0] for g in group]
            center = centers[main].mean(axis=0)
            all_corners = tuple(sorted(i for g in group for i in g))
            conf = float(detections.scores[list(all_corners)].max())
            cards.append(CardInstance(card, all_corners, (float(center[0]), float(center[1])), conf))
        if len(groups) > decks:
            alerts.append(Alert(card, len(groups),
                                f"{card} seen in {len(groups)} places; a {decks}-deck game has "
                                f"{decks} {'copy' if decks == 1 else 'copies'}"))
    cards.sort(key=lambda c: (c.center[1], c.center[0]))
    return Grouping(cards, alerts)


def _merge_duplicates(idx: np.ndarray, centers, sizes, scores) -> list[list[int]]:
    """Same-id detections closer than ``SAME_CORNER`` sizes: one corner, best score first."""
    order = idx[np.argsort(-scores[idx], kind="stable")]
    corners: list[list[int]] = []
    for i in order:
        for corner in corners:
            j = corner[0]
            if np.linalg.norm(centers[i] - centers[j]) < SAME_CORNER * max(sizes[i], sizes[j]):
                corner.append(int(i))
                break
        else:
            corners.append([int(i)])
    return corners


def _pair(corners: list[list[int]], centers, sizes, lo, hi, expected) -> list[list[list[int]]]:
    """Greedy pairing, most card-like distance first; the rest stay single corners."""
    candidates = []
    for a in range(len(corners)):
        for b in range(a + 1, len(corners)):
            i, j = corners[a][0], corners[b][0]
            ratio = max(sizes[i], sizes[j]) / min(sizes[i], sizes[j])
            if ratio > MAX_SIZE_RATIO:
                continue
            distance = np.linalg.norm(centers[i] - centers[j]) / ((sizes[i] + sizes[j]) / 2)
            if lo <= distance <= hi:
                candidates.append((abs(distance - expected), a, b))
    used: set[int] = set()
    groups = []
    for _, a, b in sorted(candidates):
        if a in used or b in used:
            continue
        used.update((a, b))
        groups.append([corners[a], corners[b]])
    groups.extend([corners[a]] for a in range(len(corners)) if a not in used)
    return groups
