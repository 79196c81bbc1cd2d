"""Scoring detections against labelled corners: AP, recall and precision, F1-best threshold.

Matching is greedy by confidence at an IoU threshold, one truth per detection, as in COCO;
AP uses COCO's 101-point interpolated precision. Two views of the same detections:

- *finder* (class-agnostic): did we box every visible index? (``mAP50`` of a one-class model)
- *cards*: a hit must also read the right card (what the referee needs).

:class:`ReadTally` says what the corners found were read as: rank right, and which suit was
taken for which (clubs read as spades is the commonest confusion on real photographs).

:class:`TableTally` counts cards on the table instead of corners; :func:`grouped_points`
gives it the cards that grouping makes of a frame's corners (what the tracker sees).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.boxes import iou_matrix, longer_sides
from vision.cards import CARD_IDS, CARD_INDEX, JOKERS, SUITS
from vision.detections import Detections
from vision.grouping import FUSE_SHARE, group_corners
from vision.settings import GOOD_INDEX_PX

IOU_THRESHOLDS = np.linspace(0.5, 0.95, 10)
CONF_GRID = np.linspace(0.05, 0.95, 91)
#: Index sizes (longer side of the box, pixels) that :meth:`Tally.lost_by_size` groups by.
SIZE_EDGES = (0, 12, 16, 20, 25, 32, 40, 50, 70, 10_000)


def load_truth(data: Path, split: str, limit: int | None = None) -> list[dict]:
    """The labelled scenes of a generated set's split (``truth/<split>.jsonl``), image paths absolute."""
    path = Path(data) / "truth" / f"{split}.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"no truth file {path}")
    rows = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path} line {number} is not JSON: {exc.msg}") from None
        if not isinstance(row, dict) or "image" not in row or not isinstance(row.get("corners"), list):
            raise ValueError(f"{path} line {number} has no image and corners")
        rows.append(row)
    for row in rows:
        image = Path(row["image"])
        row["image"] = str(image if image.is_absolute() else Path(data) / image)
    return rows[:limit] if limit else rows


def match(pred_boxes, pred_scores, true_boxes, iou: float, same: np.ndarray | None = None) -> np.ndarray:
    """For each prediction (any order) the index of its truth, or -1; best scores match first.

    ``same`` (P, T) bool restricts matches to pairs of the same class.
    """
    pred_boxes = np.asarray(pred_boxes).reshape(-1, 4)
    matched = np.full(len(pred_boxes), -1, np.int64)
    if not len(pred_boxes) or not len(true_boxes):
        return matched
    overlaps = iou_matrix(pred_boxes, true_boxes)
    if same is not None:
        overlaps = np.where(same, overlaps, 0.0)
    taken = np.zeros(len(true_boxes), bool)
    for p in np.argsort(-np.asarray(pred_scores), kind="stable"):
        candidates = np.where(taken, -1.0, overlaps[p])
        t = int(candidates.argmax())
        if candidates[t] >= iou:
            matched[p] = t
            taken[t] = True
    return matched


def average_precision(scores: np.ndarray, hits: np.ndarray, n_true: int) -> float:
    """COCO-style AP from every prediction's score and whether it hit a truth."""
    if n_true == 0:
        return float("nan")
    if len(scores) == 0:
        return 0.0
    order = np.argsort(-np.asarray(scores), kind="stable")
    hits = np.asarray(hits, bool)[order]
    tp = np.cumsum(hits)
    fp = np.cumsum(~hits)
    recall = tp / n_true
    precision = tp / np.maximum(tp + fp, 1)
    precision = np.maximum.accumulate(precision[::-1])[::-1]  # the envelope
    grid = np.linspace(0, 1, 101)
    at = np.searchsorted(recall, grid, side="left")
    return float(np.where(at < len(precision), precision[np.minimum(at, len(precision) - 1)], 0).mean())


@dataclass
class Tally:
    """Everything needed to score a set of images, accumulated one image at a time."""

    finder: dict[float, list] = field(default_factory=lambda: defaultdict(list))  # iou -> [(score, hit)]
    cards: dict[int, list] = field(default_factory=lambda: defaultdict(list))  # class -> [(score, hit)]
    true_per_class: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    n_true: int = 0
    n_images: int = 0
    #: Per true corner: the best final score of a box on it (IoU >= 0.5) whatever it reads,
    #: and the best of one that reads the right card (where a missed card was lost).
    boxed: list = field(default_factory=list)
    read_right: list = field(default_factory=list)
    #: Per true corner, the longer side of its box in pixels (recall by index size).
    sizes: list = field(default_factory=list)

    def add(self, pred_boxes, finder_scores, pred_classes, scores, true_boxes, true_classes) -> None:
        pred_boxes = np.asarray(pred_boxes, np.float32).reshape(-1, 4)
        true_boxes = np.asarray(true_boxes, np.float32).reshape(-1, 4)
        pred_classes, true_classes = np.asarray(pred_classes), np.asarray(true_classes)
        self.n_images += 1
        self.n_true += len(true_boxes)
        for c in true_classes:
            self.true_per_class[int(c)] += 1
        for t in IOU_THRESHOLDS:
            hit = match(pred_boxes, finder_scores, true_boxes, t) >= 0
            self.finder[round(float(t), 2)].extend(zip(np.asarray(finder_scores).tolist(), hit.tolist(),
                                                       strict=True))
        same = pred_classes[:, None] == true_classes[None, :]
        if len(true_boxes):
            on = iou_matrix(pred_boxes, true_boxes) >= 0.5
            score = np.asarray(scores, np.float64).reshape(-1, 1)
            self.boxed.extend(np.where(on, score, 0.0).max(axis=0, initial=0.0).tolist())
            self.read_right.extend(np.where(on & same, score, 0.0).max(axis=0, initial=0.0).tolist())
            self.sizes.extend(longer_sides(true_boxes).tolist())
        hit = match(pred_boxes, scores, true_boxes, 0.5, same) >= 0
        for c, s, h in zip(pred_classes.tolist(), np.asarray(scores).tolist(), hit.tolist(), strict=True):
            self.cards[int(c)].append((s, h))

    def finder_ap(self, iou: float = 0.5) -> float:
        rows = np.array(self.finder[round(iou, 2)], np.float64).reshape(-1, 2)
        return average_precision(rows[:, 0], rows[:, 1] > 0, self.n_true)

    def finder_ap50_95(self) -> float:
        return float(np.mean([self.finder_ap(round(float(t), 2)) for t in IOU_THRESHOLDS]))

    def card_map50(self) -> float:
        aps = [average_precision(*self._card_rows(c), n) for c, n in self.true_per_class.items()]
        return float(np.nanmean(aps)) if aps else float("nan")

    def _card_rows(self, c: int) -> tuple[np.ndarray, np.ndarray]:
        rows = np.array(self.cards.get(c, []), np.float64).reshape(-1, 2)
        return rows[:, 0], rows[:, 1] > 0

    def at_threshold(self, conf: float) -> dict[str, float]:
        """Card precision, recall and F1 keeping detections scored at least ``conf``."""
        rows = np.array([r for v in self.cards.values() for r in v], np.float64).reshape(-1, 2)
        kept = rows[rows[:, 0] >= conf]
        tp = float(kept[:, 1].sum())
        precision = tp / len(kept) if len(kept) else 1.0
        recall = tp / self.n_true if self.n_true else float("nan")
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return {"conf": conf, "precision": precision, "recall": recall, "f1": f1}

    def lost(self, conf: float) -> dict[str, float]:
        """Share of true corners with a box scored ``conf`` or more on them, and with one that
        also reads the right card: the gap between the two is the reader's, the rest the finder's."""
        boxed, right = np.asarray(self.boxed), np.asarray(self.read_right)
        n = max(len(boxed), 1)
        return {"boxed": float((boxed >= conf).sum() / n), "boxed_read_right": float((right >= conf).sum() / n)}

    def lost_by_size(self, conf: float, edges=SIZE_EDGES) -> list[dict]:
        """:meth:`lost` for true corners grouped by the longer side of their box (pixels):
        ``[{"from": a, "to": b, "corners": n, "boxed": .., "boxed_read_right": ..}, ...]``."""
        boxed, right, sizes = np.asarray(self.boxed), np.asarray(self.read_right), np.asarray(self.sizes)
        out = []
        for a, b in zip(edges[:-1], edges[1:], strict=True):
            inside = (sizes >= a) & (sizes < b)
            n = int(inside.sum())
            if n:
                out.append({"from": a, "to": b, "corners": n, "boxed": float((boxed[inside] >= conf).mean()),
                            "boxed_read_right": float((right[inside] >= conf).mean())})
        return out

    def best_f1(self, grid=CONF_GRID) -> dict[str, float]:
        return max((self.at_threshold(float(c)) for c in grid), key=lambda r: r["f1"])

    def recall_per_class(self, conf: float) -> dict[int, float]:
        out = {}
        for c, n in self.true_per_class.items():
            scores, hits = self._card_rows(c)
            out[c] = float((hits & (scores >= conf)).sum() / n)
        return out


#: A joker's "suit" in :func:`suit_of` and :class:`ReadTally`'s suit pairs.
JOKER_SUIT = "joker"
#: The suit pairs worth watching, (true, read): the shapes drawn alike (club and spade) and the
#: red pair (heart and diamond), both ways.
WATCHED_SUIT_PAIRS = (("c", "s"), ("s", "c"), ("h", "d"), ("d", "h"))


def suit_of(card: str) -> str:
    """A card id's suit letter (``s h d c``), or :data:`JOKER_SUIT` for either joker."""
    return JOKER_SUIT if card in JOKERS else card[-1]


def rank_of(card: str) -> str:
    """A card id's rank (``10``, ``Q``), or the id itself for a joker."""
    return card if card in JOKERS else card[:-1]


@dataclass
class ReadTally:
    """What the corners found at a threshold were read as, one image at a time.

    A true corner is *found* when a detection scored ``conf`` or more is matched to it
    (:func:`match`, class-agnostic, IoU 0.5, best scores first); its read is that detection's
    card. Unmatched detections are the precision's business (:class:`Tally`), not this one's.
    """

    #: (true card, read card) -> corners found
    pairs: Counter = field(default_factory=Counter)
    #: true card -> corners labelled
    true_cards: Counter = field(default_factory=Counter)

    def add(self, pred_boxes, pred_classes, scores, true_boxes, true_classes, conf: float) -> None:
        boxes = np.asarray(pred_boxes, np.float32).reshape(-1, 4)
        classes, scores = np.asarray(pred_classes).reshape(-1), np.asarray(scores, np.float64).reshape(-1)
        true_classes = np.asarray(true_classes).reshape(-1)
        keep = scores >= conf
        matched = match(boxes[keep], scores[keep], np.asarray(true_boxes, np.float32).reshape(-1, 4), 0.5)
        for c in true_classes.tolist():
            self.true_cards[CARD_IDS[c]] += 1
        for read, t in zip(classes[keep].tolist(), matched.tolist(), strict=True):
            if t >= 0:
                self.pairs[(CARD_IDS[int(true_classes[t])], CARD_IDS[read])] += 1

    @property
    def n_true(self) -> int:
        return sum(self.true_cards.values())

    @property
    def n_found(self) -> int:
        return sum(self.pairs.values())

    def found(self) -> float:
        """Share of labelled corners found (nan with none labelled)."""
        return self.n_found / self.n_true if self.n_true else float("nan")

    def rank_right(self) -> float:
        """Share of the corners found whose rank was read right (a joker must be read as itself)."""
        right = sum(n for (t, r), n in self.pairs.items() if rank_of(t) == rank_of(r))
        return right / self.n_found if self.n_found else float("nan")

    def card_right(self) -> float:
        """Share of the corners found read as exactly the right card."""
        right = sum(n for (t, r), n in self.pairs.items() if t == r)
        return right / self.n_found if self.n_found else float("nan")

    def suit_pairs(self) -> Counter:
        """(true suit, read suit) -> corners found, jokers as :data:`JOKER_SUIT`."""
        out: Counter = Counter()
        for (t, r), n in self.pairs.items():
            out[(suit_of(t), suit_of(r))] += n
        return out

    def suit_rate(self, true: str, read: str) -> dict:
        """Of the corners of suit ``true`` found, how many were read as suit ``read``:
        ``{"count", "of", "rate"}`` (rate nan when none of that suit was found)."""
        pairs = self.suit_pairs()
        of = sum(n for (t, _), n in pairs.items() if t == true)
        count = pairs[(true, read)]
        return {"count": count, "of": of, "rate": count / of if of else float("nan")}

    def suit_table(self) -> dict[str, dict[str, int]]:
        """The whole suit confusion: true suit -> read suit -> corners found (every suit and the
        jokers, zeros included)."""
        pairs = self.suit_pairs()
        suits = (*SUITS, JOKER_SUIT)
        return {t: {r: pairs[(t, r)] for r in suits} for t in suits}


def box_centres(boxes) -> np.ndarray:
    """Centres (N, 2) of boxes (N, 4) given as x1, y1, x2, y2."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    return (boxes[:, :2] + boxes[:, 2:]) / 2


def inside_quad(points: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Which points (N, 2) lie inside a convex quadrilateral (4, 2), corners in either turning order."""
    edges = np.roll(quad, -1, axis=0) - quad  # (4, 2)
    rel = points[:, None, :] - quad[None, :, :]  # (N, 4, 2)
    cross = edges[None, :, 0] * rel[..., 1] - edges[None, :, 1] * rel[..., 0]
    return (cross >= 0).all(axis=1) | (cross <= 0).all(axis=1)


def table_cards(row: dict) -> list[tuple[int, np.ndarray, bool]]:
    """A labelled scene's face-up cards for :class:`TableTally`: readable when a visible
    labelled corner of the same card sits on it."""
    visible = [c for c in row["corners"] if c.get("visible", True)]
    out = []
    for card in row.get("cards", []):
        if not card.get("face_up", True):
            continue
        quad = np.asarray(card["quad"], np.float64)
        centres = box_centres([c["box"] for c in visible if c["card"] == card["card"]])
        out.append((CARD_INDEX[card["card"]], quad, bool(inside_quad(centres, quad).any())))
    return out


def joker_marks(pred_boxes, pred_classes, row: dict) -> np.ndarray:
    """Which detections read a joker on that face-up joker, away from every labelled corner.

    A joker's corner marks are a word, an emblem or both, and many decks repeat the emblem in
    the other two corners and the middle (plastic draws five), while the labels box one mark
    per corner. A read of the right joker on the part of its card that no later card covers,
    overlapping no labelled corner (IoU under 0.5), is then a true mark the labels leave out:
    ``bench/detector.py`` also gives precision with these set aside, neither hit nor false
    alarm, as it sets aside hidden corners. ``row``: a labelled scene (its ``cards`` in the
    order they were laid, its ``corners``)."""
    boxes = np.asarray(pred_boxes, np.float64).reshape(-1, 4)
    classes = np.asarray(pred_classes).reshape(-1)
    out = np.zeros(len(boxes), bool)
    if not len(boxes):
        return out
    centres = box_centres(boxes)
    cards = row.get("cards", [])
    # Which cards each box centre lies on, in the order they were laid.
    on = np.array([inside_quad(centres, np.asarray(c["quad"], np.float64)) for c in cards]).reshape(-1, len(boxes))
    for k, card in enumerate(cards):
        if card["card"] in JOKERS and card.get("face_up", True):
            out |= (classes == CARD_INDEX[card["card"]]) & on[k] & ~on[k + 1:].any(axis=0)
    corners = [c["box"] for c in row.get("corners", [])]
    if corners and out.any():
        out &= iou_matrix(boxes, np.asarray(corners, np.float64).reshape(-1, 4)).max(axis=1) < 0.5
    return out


def at_working_scale(pred_boxes, true_boxes, min_px: float = GOOD_INDEX_PX) -> tuple[np.ndarray, np.ndarray]:
    """Which detections and which labelled corners count when only corners of ``min_px`` or
    more (longer side) are scored (by default the index size a mounted camera is set up to give,
    :data:`vision.settings.GOOD_INDEX_PX`): the smaller corners are set aside, and so is a
    detection on one of them (IoU 0.5 or more) or, matching no larger corner, itself under
    ``min_px``; a detection on a larger corner always counts. Returns ``(detections kept,
    corners kept)``."""
    pred = np.asarray(pred_boxes, np.float64).reshape(-1, 4)
    true = np.asarray(true_boxes, np.float64).reshape(-1, 4)
    large = longer_sides(true) >= min_px
    if not len(pred):
        return np.zeros(0, bool), large
    on = iou_matrix(pred, true) >= 0.5 if len(true) else np.zeros((len(pred), 0), bool)
    on_large = (on & large).any(axis=1)
    on_small = (on & ~large).any(axis=1)
    return on_large | (~on_small & (longer_sides(pred) >= min_px)), large


@dataclass
class TableTally:
    """Cards on the table, not corners: what a referee reads off a frame.

    A face-up card with at least one visible labelled corner is *named* when a detection of
    its id has its box centre on the card, at any place: a joker's emblem read as that joker
    counts even where the deck's labelled corner box is its word. A *false name* is an id a
    detection gives that no face-up card under its centre has, counted once per image and id
    (the same misread in both corners of a card is one wrong card for the referee).
    """

    named: list = field(default_factory=list)  # per readable card: best score of a detection naming it
    false: list = field(default_factory=list)  # (image, id, score) of detections on no card of their id
    n_images: int = 0

    def add(self, pred_boxes, pred_classes, scores, cards) -> None:
        """``cards``: ``[(class, quad (4, 2), readable)]`` for every card in the image, face-up
        ones only; ``readable`` when at least one of its corners is labelled visible."""
        centres = box_centres(pred_boxes)
        classes, scores = np.asarray(pred_classes).reshape(-1), np.asarray(scores, np.float64).reshape(-1)
        on_own_card = np.zeros(len(centres), bool)
        for card, quad, readable in cards:
            mine = (classes == card) & inside_quad(centres, np.asarray(quad, np.float64).reshape(4, 2))
            on_own_card |= mine
            if readable:
                self.named.append(float(scores[mine].max(initial=0.0)))
        self.false.extend((self.n_images, int(c), float(s))
                          for c, s in zip(classes[~on_own_card], scores[~on_own_card], strict=True))
        self.n_images += 1

    def at_threshold(self, conf: float) -> dict[str, float]:
        """Share of readable cards named, false names, and their precision, at ``conf``."""
        named = int((np.asarray(self.named) >= conf).sum())
        false = len({(i, c) for i, c, s in self.false if s >= conf})
        cards = len(self.named)
        return {"cards": cards, "named": named / cards if cards else float("nan"), "false_names": false,
                "precision": named / (named + false) if named + false else 1.0}


def grouped_points(dets: Detections, conf: float, fuse_share: float | None = FUSE_SHARE) -> tuple[
        np.ndarray, np.ndarray]:
    """The cards grouping makes of the detections at ``conf``, for :meth:`TableTally.add`: boxes
    of no size at each card's centre, and the cards' classes."""
    cards = group_corners(dets[dets.scores >= conf], fuse_share=fuse_share).cards
    centres = np.array([c.center for c in cards], np.float32).reshape(-1, 2)
    return np.hstack([centres, centres]), np.array([CARD_INDEX[c.card] for c in cards], np.int64)
