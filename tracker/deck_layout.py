"""A deck laid out in rows, read: corner detections into cards, in reading order, each at its place.

What the deck walk-through (:mod:`tracker.enroll`) reads off the camera. Grouping
(:func:`vision.grouping.group_corners`) is made for a table, where cards overlap and lie any way;
a layout is simpler, and the rows say more. Every card lies the same way up, so the step from a
card's upper corner index to its lower one is the same for all (:func:`corner_step`): two corners
grouping paired that lie otherwise are two cards (:func:`unpair_astray`), and two cards found by
one corner each that lie one step apart are one card whose corners read differently
(:func:`join_split`). A card found by one corner only is put half a step off it, where its centre
lies (:func:`card_centers`). Rows are read top to bottom, each left to right
(:func:`reading_order`), and each card's place in its row is counted in steps between neighbours
from the left end (:func:`row_slots`), so a card missing from a row, or a mark read as a card,
leaves the others at their places: the place says which card the referee laid there.

>>> cards = layout_cards(grouping.cards, detections)   # doctest: +SKIP
>>> [(c.card, c.row, c.slot) for c in cards][:2]        # doctest: +SKIP
[('3s', 0, 0), ('3h', 0, 1)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision.cards import CARD_IDS
from vision.detections import Detections
from vision.grouping import CardInstance, fuse, reading

#: Without a card found by both corners to measure the step between them, a card is in a row when
#: its centre lies within this many index sizes (the median corner's longest side) of the row's
#: mean height: a card's two corners sit 2.5-5 index sizes apart vertically, so a card found by
#: one corner only still falls in its own row, while rows lie a card's height apart.
ROW_TOLERANCE = 2.5


@dataclass(frozen=True, eq=False)
class ReadCard:
    """One card of a layout as read: its card id (the reader's best), confidence, the other
    cards it may be (likeliest first), its corner boxes (k, 4) in pixels of the image read, its
    centre there, and its place in the layout: ``row`` and ``column`` (its rank in the row),
    counted from 0, and ``slot``, the place in the row it lies at (:func:`row_slots`), which
    says the card the plan puts there; None for a read that another, nearer, holds."""

    card: str
    confidence: float
    alternatives: tuple[tuple[str, float], ...]
    boxes: np.ndarray
    center: tuple[float, float]
    row: int
    column: int
    slot: int | None = None


def reading_order(centers: np.ndarray, size: float, tolerance: float = ROW_TOLERANCE) -> list[tuple[int, int, int]]:
    """``(index, row, column)`` for points ``centers`` (N, 2) in reading order: rows top to
    bottom, each left to right. A point joins the row whose mean height it lies within
    ``tolerance * size`` pixels of (``size``: an index's size, or what the caller measured), else
    starts one.

    >>> reading_order(np.array([[50, 12], [10, 10], [12, 60], [30, 9]]), 10)
    [(1, 0, 0), (3, 0, 1), (0, 0, 2), (2, 1, 0)]
    """
    centers = np.asarray(centers, np.float64).reshape(-1, 2)
    rows: list[list[int]] = []
    for i in np.argsort(centers[:, 1], kind="stable"):
        if rows and abs(centers[i, 1] - centers[rows[-1], 1].mean()) <= tolerance * size:
            rows[-1].append(int(i))
        else:
            rows.append([int(i)])
    out = []
    for r, members in enumerate(rows):
        for c, i in enumerate(sorted(members, key=lambda k: centers[k, 0])):
            out.append((i, r, c))
    return out


def corner_step(cards: Sequence[CardInstance], dets: Detections) -> np.ndarray | None:
    """The step (x, y) from a card's upper corner index to its lower one, the median over the
    cards found by two corners, or None without any: in a layout every card lies the same way up."""
    steps = []
    for card in cards:
        centers = dets.centers[list(card.corners)]
        if len(centers) < 2:
            continue
        far = np.linalg.norm(centers[:, None] - centers[None, :], axis=2)
        i, j = np.unravel_index(np.argmax(far), far.shape)
        upper, lower = (centers[i], centers[j]) if centers[i, 1] <= centers[j, 1] else (centers[j], centers[i])
        if far[i, j] > float(np.median(dets.sizes[list(card.corners)])):
            steps.append(lower - upper)
    return np.median(steps, axis=0) if steps else None


def _places(card: CardInstance, dets: Detections) -> list[list[int]]:
    """A card's corner detections by where they lie: one list per corner (a corner found twice
    is one place), surest first in each."""
    size = float(np.median(dets.sizes[list(card.corners)]))
    places: list[list[int]] = []
    for i in sorted(card.corners, key=lambda i: -float(dets.scores[i])):
        home = next((p for p in places if np.linalg.norm(dets.centers[p[0]] - dets.centers[i]) < size), None)
        if home is None:
            places.append([i])
        else:
            home.append(i)
    return places


def _alone(place: list[int], dets: Detections) -> CardInstance:
    """The card one corner (found once or more) shows by itself."""
    main = place[0]
    card = CARD_IDS[int(dets.class_ids[main])]
    others = sorted(((c, round(p, 4)) for c, p in reading(dets, main).items() if c != card), key=lambda x: -x[1])
    x, y = dets.centers[main]
    center = (float(x), float(y))
    return CardInstance(card, tuple(sorted(place)), center, float(dets.scores[main]), tuple(others))


def unpair_astray(cards: Sequence[CardInstance], dets: Detections, step: np.ndarray | None) -> list[CardInstance]:
    """``cards`` with each one whose two corners do not lie ``step`` apart (within an index size)
    split into its corners: grouping pairs corners read alike up to a dozen index sizes apart in
    any direction, so in a row of cards the corner of one card misread as its neighbour's card
    may pair with the neighbour's. In a layout every card's corners lie one step apart."""
    if step is None or not len(dets):
        return list(cards)
    tolerance = max(float(np.median(dets.sizes)), 0.15 * float(np.linalg.norm(step)))
    out: list[CardInstance] = []
    for card in cards:
        places = _places(card, dets)
        if len(places) != 2:
            out += [card] if len(places) < 2 else [_alone(p, dets) for p in places]
            continue
        a, b = (dets.centers[p[0]] for p in places)
        upper, lower = (a, b) if a[1] <= b[1] else (b, a)
        if np.linalg.norm(lower - upper - step) <= tolerance:
            out.append(card)
        else:
            out += [_alone(p, dets) for p in places]
    return out


def join_split(cards: Sequence[CardInstance], dets: Detections, step: np.ndarray | None) -> list[CardInstance]:
    """``cards`` with each two found by one corner each, lying ``step`` (:func:`corner_step`) apart
    within an index size, joined into one: a card whose two corners were read as different cards
    (a club read as a spade in one corner). Grouping fuses such corners only when their reads
    agree enough, since on a table two cards' corners may lie that far apart; in a layout, cards
    lie side by side, so the place alone says they are one card. The joined card is what both
    reads agree on most (:func:`vision.grouping.fuse`), else the surer read."""
    if step is None or not len(dets):
        return list(cards)
    size = float(np.median(dets.sizes))
    tolerance = max(size, 0.15 * float(np.linalg.norm(step)))
    alone = [k for k, c in enumerate(cards) if len(_places(c, dets)) == 1]
    used: set[int] = set()
    out = [c for k, c in enumerate(cards) if k not in alone]
    for k in sorted(alone, key=lambda k: cards[k].center[1]):
        if k in used:
            continue
        here = np.array(cards[k].center)
        found = [(float(np.linalg.norm(np.array(cards[m].center) - here - step)), m) for m in alone
                 if m != k and m not in used]
        near = min((f for f in found if f[0] <= tolerance), default=None)
        if near is None:
            out.append(cards[k])
            continue
        used |= {k, near[1]}
        out.append(_joined(cards[k], cards[near[1]], dets))
    return out


def _joined(a: CardInstance, b: CardInstance, dets: Detections) -> CardInstance:
    corners = tuple(sorted(a.corners + b.corners))
    x, y = dets.centers[list(corners)].mean(axis=0)
    center = (float(x), float(y))
    agreed = fuse(reading(dets, a.corners[0]), reading(dets, b.corners[0]))
    if agreed is not None:
        card, _, joint = agreed
        alternatives = tuple(sorted(((c, round(p, 4)) for c, p in joint.items() if c != card), key=lambda x: -x[1]))
        return CardInstance(card, corners, center, max(a.confidence, b.confidence) * joint[card], alternatives, True)
    sure, other = (a, b) if a.confidence >= b.confidence else (b, a)
    return CardInstance(sure.card, corners, center, sure.confidence,
                        ((other.card, round(other.confidence, 4)), *sure.alternatives), True)


def card_centers(cards: Sequence[CardInstance], dets: Detections, step: np.ndarray | None) -> np.ndarray:
    """(N, 2) where each card's centre lies: a card found by both corners, midway; one found by
    one corner, half a ``step`` below or above it (:func:`corner_step`), whichever lies level with
    a card found by both (so it takes its place in its row, not between two)."""
    centers = np.array([c.center for c in cards], np.float64).reshape(-1, 2)
    alone = np.array([len(_places(c, dets)) == 1 for c in cards], bool)
    if step is None or alone.all() or not alone.any():
        return centers
    levels = centers[~alone, 1]
    for k in np.flatnonzero(alone):
        below, above = centers[k] + step / 2, centers[k] - step / 2
        off = [float(np.abs(levels - p[1]).min()) for p in (below, above)]
        centers[k] = below if off[0] <= off[1] else above
    return centers


def row_slots(centers: np.ndarray, order: list[tuple[int, int, int]],
              firm: np.ndarray | None = None) -> dict[int, int | None]:
    """Index -> the place in its row each point lies at, from its distance to the left end of the
    rows in steps of the usual distance between neighbours (the median one): a card missing from
    a row, or a mark read between two cards, leaves the others' places as laid out. Of two points
    at one place, a ``firm`` one (a card found by both corners) holds it over one that is not,
    else the nearer to it; the other has none.

    >>> row_slots(np.array([[0, 0], [10, 0], [30, 0], [34, 0], [0, 20]]), reading_order(np.array(
    ...     [[0, 0], [10, 0], [30, 0], [34, 0], [0, 20]]), 2))
    {0: 0, 1: 1, 2: 3, 3: None, 4: 0}
    """
    centers = np.asarray(centers, np.float64).reshape(-1, 2)
    rows: dict[int, list[int]] = {}
    for i, row, _ in order:
        rows.setdefault(row, []).append(i)
    steps = [d for members in rows.values() for d in np.diff(centers[members, 0]) if d > 0]
    if not steps:
        return {i: column for i, _, column in order}
    step = float(np.median(steps))
    left = min(centers[members[0], 0] for members in rows.values())
    out: dict[int, int | None] = {}
    for members in rows.values():
        at = (centers[members, 0] - left) / step
        places = np.maximum(np.round(at), 0).astype(int)
        off = np.abs(at - places)
        loose = np.array([firm is not None and not firm[i] for i in members], bool)
        for k, i in enumerate(members):
            rivals = np.flatnonzero(places == places[k])
            best = min(rivals, key=lambda r: (loose[r], off[r]))
            out[i] = int(places[k]) if k == best else None
    return out


def layout_cards(cards: Sequence[CardInstance], dets: Detections) -> tuple[ReadCard, ...]:
    """The cards of a layout (``cards`` grouped from ``dets``, one image's detections) in
    reading order, each with its corner boxes and its place (see the module docstring)."""
    if not cards:
        return ()
    step = corner_step(cards, dets)
    found = join_split(unpair_astray(cards, dets, step), dets, step)
    centers = card_centers(found, dets, step)
    # A card found by one corner lies half a step off its card's centre: still its row, while the
    # next row lies more than a step further.
    size = float(np.median(dets.sizes))
    row_px = max(size, 0.6 * abs(float(step[1]))) if step is not None else ROW_TOLERANCE * size
    order = reading_order(centers, row_px, 1.0)
    slots = row_slots(centers, order, np.array([len(_places(c, dets)) > 1 for c in found], bool))
    return tuple(
        ReadCard(found[i].card, float(found[i].confidence), tuple(found[i].alternatives),
                 dets.boxes[list(found[i].corners)].copy(), (float(centers[i, 0]), float(centers[i, 1])),
                 row, column, slots[i])
        for i, row, column in order)
