"""Corner detections to card instances.

A face-up card shows its index in two opposite corners, so the detector may report one
card twice. Two detections are the same card when they agree in id and sit about a card
diagonal apart, measured in index sizes (a corner index is a fixed fraction of its card, so
the ratio holds at any camera distance). Two detections of one id almost on top of each
other are one corner found twice.

The two corners of one card are read apart, and now and then one of them is misread (an
ace of spades whose other corner reads Ac). Two corners left unpaired are one card when they
sit as far apart as the corners of this deck's cards do (its *span*, in index sizes: the
median over the cards paired in the same image, or the span the caller has measured on
earlier frames, within ``FUSE_SPAN_TOLERANCE``) and their reads agree on a card: the card
both give is at least ``FUSE_SHARE`` as likely, as one card, as the two cards their best
reads name (the product of the reader's probabilities; see :func:`fuse`). The span matters:
every deck has its own (measured 3.1-3.5 on plastic, 5.0-5.4 on atlasnye), and on a crowded
table two cards' corners often sit at some card-like distance. With no span known nothing
is fused. A fused card carries the joint reading and the other cards as its alternatives.

In a one-deck game (``decks=1``) a card id left in two places after pairing is impossible:
it is reported as an :class:`DuplicateCard` (a misread, or a card from another deck). With two decks
up to two instances of an id are fine and geometry alone decides which corners pair up.

A card whose two corners are grouped shows its face between them, and the face's pips carry
the suit far larger than the index does (:mod:`vision.face_suit`). Given a :class:`FaceVote`,
a paired card whose index suit is unsure (its likeliest suit under ``FaceVote.below``) asks
its face, and where the face gives a suit the card's probabilities become the product of
the index's and the face's (:func:`with_face`): its id, confidence and alternatives follow.

>>> import numpy as np
>>> from vision.detections import Detections
>>> dets = Detections(np.array([[0, 0, 10, 20], [60, 80, 70, 100]]), np.ones(2), np.zeros(2)).with_cards(["Qs", "Qs"])
>>> [(c.card, c.corners) for c in group_corners(dets).cards]
[('Qs', (0, 1))]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vision.cards import CARD_IDS, JOKERS
from vision.detections import Detections

#: Distance between the two index centres of one card, in index box sizes (longest side): on
#: the 18 synthetic decks' art its median is 4.65 and 90 % lie in 1.95-5.5 (decks with big
#: indices sit near 2; joker emblems are small, up to ~15); tilt and box jitter widen it.
#: The detector's joker pairs use the same range (``vision.detector.joker_pairs``).
PAIR_RANGE = (1.6, 12.0)
#: A joker's two corners pair up to this far apart (index sizes): its mark is small for its card
#: (orell's joker's two stars, 99 mm apart on the four-seat film, lie 14 of their sizes apart).
JOKER_PAIR_MAX = 16.0
#: A joker's mark found in pieces that abut along a row (plastic's "◆ Joker ◆" across the card's
#: top: three boxes, each touching the next) is one corner: same-joker boxes whose gap along the
#: row is at most this share of the smaller box's short side, and that overlap across the row by
#: at least ``ABUT_ACROSS`` of it. Two jokers fanned (two decks) lie a fan's step (14-21 mm) apart,
#: leaving a gap between their marks.
ABUT_GAP = 0.1
ABUT_ACROSS = 0.6
#: A joker's card lies inside the circle through its two paired corners (a rectangle sits in
#: the circle on its diagonal): another read of that joker, read weakly beside that card (its
#: best score at most ``JOKER_WEAK`` of the card's), whose corners all lie within this share of
#: the circle's radius from its middle is a piece of the same card (a third corner's mark, the
#: emblem on its face), not a second joker. A second joker fanned under it shows only what lies
#: outside its outline, 1.2 radii or more from the middle at a fan's 14 mm step; its marks read
#: as surely as the first's (their pairing is not always right, hence the bar on the score).
#: (Plastic's joker lying sideways pairs the words on its long sides: its corner marks lie 1.06-1.11
#: radii from their middle.)
JOKER_WITHIN = 1.15
JOKER_WEAK = 0.5
#: The distance most cards' corners sit apart: of two ways to pair corners, the nearer wins.
PAIR_EXPECTED = 4.7
#: With two decks and the deck's span known (``group_corners``' ``span``), two corners of one id
#: pair up only within this share beyond it: tilt, perspective and box jitter spread a deck's spans
#: by about a tenth (:data:`FUSE_SPAN_TOLERANCE`), two copies of a card far apart are two cards.
PAIR_SPAN_SLACK = 0.4
#: Closer than this (in index sizes) two same-id boxes are one corner found twice.
SAME_CORNER = 0.6
#: A long index in pieces (:func:`_end_to_end`): each piece this many times longer than wide,
#: at most this share of the shorter piece's length apart (atlasnye's JOKER, split between its K
#: and E, leaves a third of a piece: 17 px between pieces of 49 and 52 on the four-seat film; two
#: cards' tall indices a row apart lie at least 0.4 of their length apart).
PIECE_ASPECT = 1.8
PIECE_GAP = 0.36
#: With two decks, two same-id boxes this many times longer than wide that lie side by side
#: across their width without overlapping are two cards in a fan (:func:`_side_by_side`), not
#: one corner found twice: a fan's 17-21 mm step puts two identical tall indices about 0.5-0.6
#: of their length apart, inside :data:`SAME_CORNER`.
BESIDE_ASPECT = 1.5
#: Two corners of one card are about the same size on the frame.
MAX_SIZE_RATIO = 1.8
#: Two single corners of different reads are one card when the likeliest card for both is at
#: least this share as likely as the two best reads being two cards ...
FUSE_SHARE = 0.2
#: ... and they sit within this share of the deck's span (a card's corners, in index sizes).
FUSE_SPAN_TOLERANCE = 0.12
#: The probability a corner is given for a card outside its listed reads (best + alternatives).
UNLISTED = 1e-3


@dataclass(frozen=True)
class CardInstance:
    """One physical card: its id, the detections that show it, and where it is."""

    card: str
    corners: tuple[int, ...]
    center: tuple[float, float]
    confidence: float
    #: Other cards it may be, likeliest first, with their probabilities.
    alternatives: tuple[tuple[str, float], ...] = ()
    #: Its corners were read as different cards and agree on this one (:func:`fuse`).
    fused: bool = False
    #: Two corners: how far apart, in index sizes (their mean longest side).
    span: float | None = None
    #: The suit its face gave, where the index's suit was unsure and the face was asked
    #: (:class:`FaceVote`); the card's reading is then the joint one.
    face: str | None = None

    @property
    def paired(self) -> bool:
        return len(self.corners) >= 2


@dataclass(frozen=True)
class FaceVote:
    """How a card's face is asked for its suit (:mod:`vision.face_suit` makes one per image).

    ``read(i, j)``: the suit probabilities (``s h d c``) the face between detections ``i`` and
    ``j`` shows, or None when it shows none surely. ``below``: the index's suit is unsure, and
    the face asked, when the likeliest suit of the card's reading has less than this.
    ``weight``: the face's exponent in the product (1: its probabilities as they come)."""

    read: Callable[[int, int], dict[str, float] | None]
    below: float = 0.9
    weight: float = 1.0

    def __post_init__(self) -> None:
        if not 0 < self.below <= 1 or not self.weight > 0:
            raise ValueError(f"below must be in (0, 1] and weight above 0, got {self.below}, {self.weight}")


@dataclass(frozen=True)
class DuplicateCard:
    """A card id seen in more places than the decks in play allow."""

    card: str
    instances: int
    message: str


@dataclass(frozen=True)
class Grouping:
    cards: list[CardInstance] = field(default_factory=list)
    alerts: list[DuplicateCard] = field(default_factory=list)

    @property
    def card_ids(self) -> list[str]:
        return [c.card for c in self.cards]

    @property
    def spans(self) -> list[float]:
        """The spans of the cards paired from corners read alike (a measure of the deck)."""
        return [c.span for c in self.cards if c.span is not None and not c.fused]


def group_corners(detections: Detections, decks: int = 1, pair_range: tuple[float, float] = PAIR_RANGE,
                  expected: float = PAIR_EXPECTED, fuse_share: float | None = FUSE_SHARE,
                  span: float | None = None, face: FaceVote | None = None) -> Grouping:
    """Group read corner detections into cards; unread detections (id -1) are left out.

    ``fuse_share``: see :data:`FUSE_SHARE`; ``None`` pairs only corners read alike. ``span``:
    the deck's span measured on earlier frames (:attr:`Grouping.spans`), used when no card of
    this image pairs, and with two decks as the distance a pair of one id's corners lies at
    (:data:`PAIR_SPAN_SLACK`). ``face``: ask the face of a paired card whose index suit is unsure
    (:class:`FaceVote`); None reads the indices alone."""
    if decks < 1:
        raise ValueError(f"decks must be at least 1, got {decks}")
    lo, hi = pair_range
    if not 0 < lo < hi:
        raise ValueError(f"pair_range must be increasing and positive, got {pair_range}")
    if fuse_share is not None and not 0 < fuse_share <= 1:
        raise ValueError(f"fuse_share must be in (0, 1], got {fuse_share}")
    if span is not None and not span > 0:
        raise ValueError(f"span must be positive (index sizes), got {span}")
    centers, sizes = detections.centers, np.maximum(detections.sizes, 1e-6)
    groups: list[list[list[int]]] = []
    beside = detections.boxes if decks > 1 else None  # two copies of a card may lie side by side
    for class_id in np.unique(detections.class_ids):
        if class_id < 0:
            continue
        joker = CARD_IDS[class_id] in JOKERS
        members = _merge_duplicates(np.flatnonzero(detections.class_ids == class_id), centers, sizes,
                                    detections.scores, detections.boxes, decks, joker)
        if joker:
            paired_here = _pair(members, centers, sizes, lo, max(hi, JOKER_PAIR_MAX), expected)
        elif decks > 1 and span is not None:
            # two copies of one card far apart are not one card's corners: with the deck's span
            # known, a pair lies about that far apart (two 7h ending one row and starting the
            # next of a hand shown after the hand lie 11 index sizes apart, the deck's span 5)
            paired_here = _pair(members, centers, sizes, lo, min(hi, span * (1 + PAIR_SPAN_SLACK)), span, beside)
        else:
            paired_here = _pair(members, centers, sizes, lo, hi, expected, beside)
        groups += _within_joker(paired_here, centers, detections.scores) if joker else paired_here
    readings = [reading(detections, i) for i in range(len(detections))]
    paired: list[tuple[list[list[int]], str, dict[str, float] | None]] = [
        (g, CARD_IDS[detections.class_ids[g[0][0]]], None) for g in groups if len(g) > 1]
    cards = [_instance(g, card, detections, readings) for g, card, _ in paired]
    singles = [g for g in groups if len(g) == 1]
    spans = [c.span for c in cards if c.span is not None]  # a paired card has its span
    reference = float(np.median(spans)) if spans else span
    if fuse_share is not None and reference is not None:
        window = (reference * (1 - FUSE_SPAN_TOLERANCE), reference * (1 + FUSE_SPAN_TOLERANCE))
        tops = [CARD_IDS[c] if c >= 0 else "" for c in detections.class_ids]
        singles, fused = _fuse_singles(singles, Counter(c.card for c in cards), tops, readings, centers, sizes,
                                       window, fuse_share, decks, detections.boxes)
        cards += [_instance(group, card, detections, readings, joint) for group, card, joint in fused]
        paired += fused
    if face is not None:
        # Pairing, spans and fusing go by the indices' reads alone; the face only changes what
        # a paired card is read as.
        cards = [_with_face(card, group, joint, detections, readings, face)
                 for card, (group, _, joint) in zip(cards, paired, strict=True)]
    cards += [_instance(g, CARD_IDS[detections.class_ids[g[0][0]]], detections, readings) for g in singles]
    alerts: list[DuplicateCard] = []
    for card, count in sorted(Counter(c.card for c in cards).items()):
        if count > decks:
            alerts.append(DuplicateCard(card, count,
                                f"{card} seen in {count} places; a {decks}-deck game has "
                                f"{decks} {'copy' if decks == 1 else 'copies'}"))
    cards.sort(key=lambda c: (c.center[1], c.center[0]))
    return Grouping(cards, alerts)


def reading(detections: Detections, i: int) -> dict[str, float]:
    """What the reader gave detection ``i``: its card and alternatives with their probabilities."""
    if detections.class_ids[i] < 0:
        return {}
    finder = float(detections.finder_scores[i])
    best = float(detections.scores[i]) / finder if finder > 0 else float(detections.scores[i])
    out = {CARD_IDS[detections.class_ids[i]]: min(best, 1.0)}
    for card, p in detections.alternatives(i):
        out.setdefault(card, p)
    return out


def fuse(a: dict[str, float], b: dict[str, float]) -> tuple[str, float, dict[str, float]] | None:
    """The one card two differently read corners agree on, if they agree on one.

    ``a`` and ``b`` are readings (:func:`reading`). The joint probability of a card is the
    product of what each corner gives it (:data:`UNLISTED` where a corner lists it not), so a
    corner read Ac at 0.6 with As at 0.35, beside one read As at 0.9 with Ac at 0.05, is As
    (0.32 against 0.03 for Ac). Returns the card, the ratio of its joint probability to that of the two best reads
    as two cards, and the joint probabilities of every listed card normalised (``None`` when
    no card is listed by both)."""
    shared = set(a) & set(b)
    if not shared or not a or not b:
        return None
    joint = {c: a.get(c, UNLISTED) * b.get(c, UNLISTED) for c in set(a) | set(b)}
    card = max(sorted(shared), key=lambda c: joint[c])
    apart = max(a.values()) * max(b.values())
    total = sum(joint.values())
    return card, joint[card] / max(apart, 1e-12), {c: p / total for c, p in joint.items()}


def suit_probabilities(reading: dict[str, float]) -> dict[str, float]:
    """A reading's probability of each suit (its cards' summed, over the whole reading)."""
    total = sum(reading.values())
    out: dict[str, float] = {}
    for card, p in reading.items():
        if card not in JOKERS:
            out[card[-1]] = out.get(card[-1], 0.0) + p / max(total, 1e-12)
    return out


def with_face(reading: dict[str, float], face: dict[str, float], weight: float = 1.0) -> dict[str, float]:
    """A card's reading joined with its face's suit probabilities: each card's probability
    times its suit's face probability to the ``weight``, normalised. The face says nothing of
    a joker (it shows no pips), so a joker is given an even share of the four suits."""
    even = 0.25 ** weight
    joint = {c: p * (even if c in JOKERS else max(face.get(c[-1], 0.0), 1e-6) ** weight)
             for c, p in reading.items()}
    total = sum(joint.values())
    return {c: p / max(total, 1e-12) for c, p in joint.items()}


def _with_face(card: CardInstance, group: list[list[int]], joint: dict[str, float] | None,
               detections: Detections, readings: list[dict[str, float]], face: FaceVote) -> CardInstance:
    """A paired card read with its face, where its likeliest card has a suit, the index's suit
    is unsure and the face gives one. ``joint``: the fused reading of corners read differently."""
    if card.card in JOKERS:
        return card
    main = [g[0] for g in group]
    if joint is None:
        # Corners read alike: the mean of their two reads. Not their product: the two indices
        # are printed and blurred alike, so a deck whose clubs look like spades to the reader
        # reads both corners so, and a product would call that sure.
        both = [readings[i] for i in main]
        joint = {c: sum(r.get(c, 0.0) for r in both) / len(both) for c in set().union(*both)}
    suits = suit_probabilities(joint)
    if not suits or max(suits.values()) >= face.below:
        return card
    shown = face.read(main[0], main[1])
    if not shown:
        return card
    read = with_face(joint, shown, face.weight)
    best = max(sorted(read), key=lambda c: read[c])
    finder = float(detections.finder_scores[main].max())
    alternatives = {c: p for c, p in read.items() if c != best}
    return CardInstance(best, card.corners, card.center, finder * read[best], _ranked(alternatives),
                        fused=card.fused, span=card.span, face=max(shown, key=lambda s: shown[s]))


def _instance(group: list[list[int]], card: str, detections: Detections, readings: list[dict[str, float]],
              joint: dict[str, float] | None = None) -> CardInstance:
    """The card a group of corners shows; ``joint``: its corners were read differently and fused,
    with this joint reading (:func:`fuse`)."""
    main = [g[0] for g in group]
    corners = tuple(sorted(i for g in group for i in g))
    center = detections.centers[main].mean(axis=0)
    span = _distance(main[0], main[1], detections.centers, detections.sizes) if len(main) > 1 else None
    if joint is not None:
        confidence = float(detections.finder_scores[main].max()) * joint[card]
        alternatives = {c: p for c, p in joint.items() if c != card}
    else:
        confidence = float(detections.scores[list(corners)].max())
        alternatives = {}
        for i in corners:
            for alt, p in readings[i].items():
                if alt != card:
                    alternatives[alt] = max(p, alternatives.get(alt, 0.0))
    return CardInstance(card, corners, (float(center[0]), float(center[1])), confidence, _ranked(alternatives),
                        fused=joint is not None, span=span)


def _ranked(probs: dict[str, float]) -> tuple[tuple[str, float], ...]:
    return tuple(sorted(((c, round(float(p), 4)) for c, p in probs.items()), key=lambda a: (-a[1], a[0])))


def _fuse_singles(singles: list[list[list[int]]], count: Counter[str], tops: list[str],
                  readings: list[dict[str, float]], centers: np.ndarray, sizes: np.ndarray,
                  window: tuple[float, float], share: float, decks: int, boxes: np.ndarray) -> tuple[
                      list[list[list[int]]], list[tuple[list[list[int]], str, dict[str, float]]]]:
    """Pair single corners of different reads that sit the deck's span apart and agree on a card,
    never two side by side in one row (:func:`_side_by_side`: two cards fanned).

    ``count``: how many cards of each id the paired corners already make; ``tops``: each
    detection's card. Returns the singles left and the fused (group, card, joint reading)."""
    expected = sum(window) / 2
    candidates = []
    for a in range(len(singles)):
        for b in range(a + 1, len(singles)):
            i, j = singles[a][0][0], singles[b][0][0]
            distance = card_distance(i, j, centers, sizes)
            if distance is None or not window[0] <= distance <= window[1] or _side_by_side(boxes[i], boxes[j]):
                continue
            agreed = fuse(readings[i], readings[j])
            if agreed is not None and agreed[1] >= share:
                candidates.append((abs(distance - expected), -agreed[1], a, b, agreed))
    # In a one-deck game a card seen elsewhere is not what two other corners agree on.
    count = count + Counter(tops[g[0][0]] for g in singles)
    used: set[int] = set()
    fused = []
    for _, _, a, b, (card, _, joint) in sorted(candidates, key=lambda c: c[:4]):
        if a in used or b in used:
            continue
        pair = {tops[singles[a][0][0]], tops[singles[b][0][0]]}
        if count[card] - sum(t == card for t in pair) >= decks:
            continue
        used.update((a, b))
        for t in pair:
            count[t] -= 1
        count[card] += 1
        fused.append(([singles[a][0], singles[b][0]], card, joint))
    return [singles[a] for a in range(len(singles)) if a not in used], fused


def card_distance(i: int | np.integer[Any], j: int | np.integer[Any], centers: np.ndarray,
                  sizes: np.ndarray) -> float | None:
    """Distance between two corners in index sizes; ``None`` when their sizes differ too much."""
    if max(sizes[i], sizes[j]) / min(sizes[i], sizes[j]) > MAX_SIZE_RATIO:
        return None
    return _distance(i, j, centers, sizes)


def _distance(i: int | np.integer[Any], j: int | np.integer[Any], centers: np.ndarray, sizes: np.ndarray) -> float:
    return float(np.linalg.norm(centers[i] - centers[j]) / ((sizes[i] + sizes[j]) / 2))


def _merge_duplicates(idx: np.ndarray, centers: np.ndarray, sizes: np.ndarray, scores: np.ndarray,
                      boxes: np.ndarray | None = None, decks: int = 1, joker: bool = False) -> list[list[int]]:
    """Same-id detections closer than ``SAME_CORNER`` sizes (with two decks, unless side by side:
    :func:`_side_by_side`), or a long index found in pieces (:func:`_end_to_end`; a joker's mark
    also in pieces that abut, :func:`_abutting`): one corner, best score first."""
    order = idx[np.argsort(-scores[idx], kind="stable")]
    corners: list[list[int]] = []

    def near(i: int, j: int) -> bool:
        if np.linalg.norm(centers[i] - centers[j]) >= SAME_CORNER * max(sizes[i], sizes[j]):
            return False
        return boxes is None or decks < 2 or not _side_by_side(boxes[i], boxes[j])

    for i in order:
        for corner in corners:
            if any(near(i, j) or (boxes is not None and (_end_to_end(boxes[i], boxes[j])
                                                         or (joker and _abutting(boxes[i], boxes[j]))))
                   for j in corner):
                corner.append(int(i))
                break
        else:
            corners.append([int(i)])
    return corners


def _side_by_side(a: np.ndarray, b: np.ndarray) -> bool:
    """Two boxes elongated the same way that lie beside each other across their width with no
    overlap there, and overlap along their length by at least half the shorter: the indices of
    two cards of one id next to each other in a fan (two decks). One corner boxed twice overlaps
    itself across too."""
    shape = _elongated(a, b, BESIDE_ASPECT)
    if shape is None:
        return False
    long_a, _, long_b, _, axis = shape
    across = 1 - axis
    apart = max(a[across], b[across]) - min(a[across + 2], b[across + 2])
    along = min(a[axis + 2], b[axis + 2]) - max(a[axis], b[axis])
    return bool(apart > 0 and along >= 0.5 * min(long_a, long_b))


def _elongated(a: np.ndarray, b: np.ndarray, aspect: float) -> tuple[float, float, float, float, int] | None:
    """``(long_a, short_a, long_b, short_b, axis)`` when both boxes are at least ``aspect`` times
    longer than wide along the same axis (1: upright, 0: lying; never both), else ``None``."""
    wa, ha = a[2] - a[0], a[3] - a[1]
    wb, hb = b[2] - b[0], b[3] - b[1]
    for long_a, short_a, long_b, short_b, axis in ((ha, wa, hb, wb, 1), (wa, ha, wb, hb, 0)):
        if long_a >= aspect * short_a and long_b >= aspect * short_b:
            return float(long_a), float(short_a), float(long_b), float(short_b), axis
    return None


def _end_to_end(a: np.ndarray, b: np.ndarray) -> bool:
    """Two boxes that continue one another along their long side: a long index (a joker's
    JOKER written down the card) found as two pieces. Both are elongated the same way, lie
    side by side across it, and the gap between them along it is under ``PIECE_GAP`` of the
    shorter one's length. Two cards' indices in a fan lie beside each other across their long
    side, or a row apart along it, and stay two."""
    shape = _elongated(a, b, PIECE_ASPECT)
    if shape is None:
        return False
    long_a, short_a, long_b, short_b, axis = shape
    across = 1 - axis
    overlap = min(a[across + 2], b[across + 2]) - max(a[across], b[across])
    gap = max(a[axis], b[axis]) - min(a[axis + 2], b[axis + 2])
    return bool(overlap >= 0.5 * min(short_a, short_b) and gap <= PIECE_GAP * min(long_a, long_b))


def _abutting(a: np.ndarray, b: np.ndarray) -> bool:
    """Two boxes in one row, touching or overlapping along it (a gap of at most ``ABUT_GAP`` of
    the smaller box's short side) and lying across it mostly over each other (``ABUT_ACROSS``):
    pieces of one joker's mark. The row runs along the axis where they lie further apart."""
    short = min(a[2] - a[0], a[3] - a[1], b[2] - b[0], b[3] - b[1])
    if short <= 0:
        return False
    dx, dy = abs((a[0] + a[2]) - (b[0] + b[2])), abs((a[1] + a[3]) - (b[1] + b[3]))
    axis = 0 if dx >= dy else 1
    across = 1 - axis
    gap = max(a[axis], b[axis]) - min(a[axis + 2], b[axis + 2])
    overlap = min(a[across + 2], b[across + 2]) - max(a[across], b[across])
    return bool(gap <= ABUT_GAP * short and overlap >= ABUT_ACROSS * short)


def _within_joker(groups: list[list[list[int]]], centers: np.ndarray, scores: np.ndarray) -> list[list[list[int]]]:
    """Groups of one joker, less those read weakly inside the card of another one's paired
    corners (:data:`JOKER_WITHIN`, :data:`JOKER_WEAK`): their detections join that card's first
    corner. The surest pair stands first (a weak pair of a card's other two corners can lie wider
    than its surely read pair)."""
    def circle(g: list[list[int]]) -> tuple[np.ndarray, float]:
        a, b = centers[g[0][0]], centers[g[1][0]]
        return (a + b) / 2, float(np.linalg.norm(a - b)) / 2

    def best(g: list[list[int]]) -> float:
        return float(max(scores[i] for c in g for i in c))

    order = sorted(range(len(groups)), key=lambda k: (len(groups[k]) < 2, -best(groups[k])))
    kept: list[list[list[int]]] = []
    for k in order:
        group = groups[k]
        host = None
        for card in kept:
            if len(card) < 2:
                continue
            middle, radius = circle(card)
            weak = best(group) <= JOKER_WEAK * best(card)
            if weak and all(np.linalg.norm(centers[c[0]] - middle) <= JOKER_WITHIN * radius for c in group):
                host = card
                break
        if host is None:
            kept.append([list(c) for c in group])
        else:
            host[0].extend(i for c in group for i in c)
    return kept


def _pair(corners: list[list[int]], centers: np.ndarray, sizes: np.ndarray, lo: float, hi: float,
          expected: float, beside: np.ndarray | None = None) -> list[list[list[int]]]:
    """Greedy pairing, most card-like distance first; the rest stay single corners. With
    ``beside`` (the boxes, where two copies of a card may lie on the table), two corners side by
    side in one row (:func:`_side_by_side`) never pair: one card's corners lie a card's length
    apart along their index, two copies fanned in one row lie across it (a hand shown with two
    Q♠ four cards apart in one row, 2.6 index sizes apart, inside the deck's span)."""
    candidates = []
    for a in range(len(corners)):
        for b in range(a + 1, len(corners)):
            distance = card_distance(corners[a][0], corners[b][0], centers, sizes)
            if distance is None or not lo <= distance <= hi:
                continue
            if beside is not None and _side_by_side(beside[corners[a][0]], beside[corners[b][0]]):
                continue
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
