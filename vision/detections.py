"""One detections type that flows from the detector to grouping and the tracker.

A :class:`Detections` holds N corner-index detections as parallel numpy arrays, in the
spirit of supervision's ``Detections``: index it with a mask or an index array to filter,
and every array stays aligned. Card classes are indices into :data:`vision.cards.CARD_IDS`;
``-1`` means the index was found but not read (finder only).

>>> import numpy as np
>>> d = Detections(boxes=np.array([[10, 10, 30, 50]], np.float32), scores=np.array([0.9], np.float32),
...                class_ids=np.array([CARD_INDEX["10h"]]))
>>> d.cards, len(d[d.scores > 0.95])
(['10h'], 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from vision.cards import CARD_IDS, CARD_INDEX, split_card


def _column(values: ArrayLike, dtype: DTypeLike, n: int, name: str, width: int | None = None) -> np.ndarray:
    arr = np.asarray(values, dtype=dtype)
    expected = (n,) if width is None else (n, width)
    if arr.size == 0 and n == 0:
        return arr.reshape(expected)
    if arr.shape != expected:
        raise ValueError(f"{name} has shape {arr.shape}, expected {expected}")
    return arr


@dataclass(frozen=True, eq=False, init=False)
class Detections:
    """N detections; all arrays share their first axis.

    boxes: (N, 4) float32 ``x1, y1, x2, y2`` in pixels of the image that was read.
    scores: (N,) float32 final confidence (finder score x reader probability).
    class_ids: (N,) int64 card class, index into ``CARD_IDS``; -1 when unread.
    finder_scores: (N,) float32 the finder's own score (defaults to ``scores``).
    alt_ids / alt_probs: (N, K) the reader's next guesses, best first; -1 / 0 pad.

    Any array-like is taken and stored as the array described; ``finder_scores``, ``alt_ids``
    and ``alt_probs`` may be left out.
    """

    boxes: NDArray[np.float32]
    scores: NDArray[np.float32]
    class_ids: NDArray[np.int64]
    finder_scores: NDArray[np.float32]
    alt_ids: NDArray[np.int64]
    alt_probs: NDArray[np.float32]
    extra: dict[str, Any]

    def __init__(self, boxes: ArrayLike, scores: ArrayLike, class_ids: ArrayLike,
                 finder_scores: ArrayLike | None = None, alt_ids: ArrayLike | None = None,
                 alt_probs: ArrayLike | None = None, extra: dict[str, Any] | None = None) -> None:
        object.__setattr__(self, "extra", {} if extra is None else extra)
        boxes = np.asarray(boxes, dtype=np.float32)
        if boxes.size == 0:
            boxes = boxes.reshape(0, 4)
        if boxes.ndim != 2 or boxes.shape[1] != 4:
            raise ValueError(f"boxes must be (N, 4), got {boxes.shape}")
        n = len(boxes)
        set_ = object.__setattr__
        set_(self, "boxes", boxes)
        set_(self, "scores", _column(scores, np.float32, n, "scores"))
        set_(self, "class_ids", _column(class_ids, np.int64, n, "class_ids"))
        finder = scores if finder_scores is None else finder_scores
        set_(self, "finder_scores", _column(finder, np.float32, n, "finder_scores"))
        ids = np.full((n, 0), -1) if alt_ids is None else np.asarray(alt_ids, np.int64)
        if ids.ndim != 2:
            ids = ids.reshape(n, -1) if ids.size else np.zeros((n, 0), np.int64)
        k = ids.shape[1]
        probs = np.zeros((n, k)) if alt_probs is None else alt_probs
        set_(self, "alt_ids", _column(ids, np.int64, n, "alt_ids", k))
        set_(self, "alt_probs", _column(probs, np.float32, n, "alt_probs", k))
        if n and (self.class_ids.min() < -1 or self.class_ids.max() >= len(CARD_IDS)):
            raise ValueError("class_ids must be -1 or an index into CARD_IDS")

    @classmethod
    def empty(cls, k: int = 0) -> Detections:
        return cls(np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64),
                   alt_ids=np.zeros((0, k), np.int64), alt_probs=np.zeros((0, k), np.float32))

    @classmethod
    def concat(cls, parts: list[Detections]) -> Detections:
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty()
        k = max(p.alt_ids.shape[1] for p in parts)

        def pad(a: np.ndarray, fill: float) -> np.ndarray:
            return np.pad(a, ((0, 0), (0, k - a.shape[1])), constant_values=fill)

        return cls(
            np.concatenate([p.boxes for p in parts]),
            np.concatenate([p.scores for p in parts]),
            np.concatenate([p.class_ids for p in parts]),
            np.concatenate([p.finder_scores for p in parts]),
            np.concatenate([pad(p.alt_ids, -1) for p in parts]),
            np.concatenate([pad(p.alt_probs, 0.0) for p in parts]),
        )

    def __len__(self) -> int:
        return len(self.boxes)

    def __getitem__(self, index: int | np.integer[Any] | slice | list[int] | np.ndarray) -> Detections:
        """Subset by boolean mask, index array or slice (an int keeps one row)."""
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        return Detections(self.boxes[index], self.scores[index], self.class_ids[index],
                          self.finder_scores[index], self.alt_ids[index], self.alt_probs[index])

    @property
    def cards(self) -> list[str]:
        """Card id per detection ('?' when unread)."""
        return [CARD_IDS[i] if i >= 0 else "?" for i in self.class_ids]

    @property
    def centers(self) -> np.ndarray:
        return (self.boxes[:, :2] + self.boxes[:, 2:]) / 2

    @property
    def sizes(self) -> np.ndarray:
        """Longest side of each box, the scale grouping measures distances in."""
        wh = self.boxes[:, 2:] - self.boxes[:, :2]
        return wh.max(axis=1) if len(self) else np.zeros(0, np.float32)

    def with_cards(self, cards: list[str]) -> Detections:
        """Same boxes with the given card ids (for tests and hand-made detections)."""
        ids = np.array([CARD_INDEX[c] for c in cards], np.int64)
        return Detections(self.boxes, self.scores, ids, self.finder_scores, self.alt_ids, self.alt_probs)

    def moved(self, dx: float = 0.0, dy: float = 0.0, scale: float = 1.0) -> Detections:
        """Boxes mapped by ``p * scale + (dx, dy)``: a zone crop's detections back on the frame."""
        boxes = self.boxes * scale + np.array([dx, dy, dx, dy], np.float32)
        return Detections(boxes, self.scores, self.class_ids, self.finder_scores, self.alt_ids, self.alt_probs)

    def alternatives(self, i: int) -> list[tuple[str, float]]:
        return [(CARD_IDS[c], float(p)) for c, p in zip(self.alt_ids[i], self.alt_probs[i], strict=True) if c >= 0]

    def to_records(self, digits: int = 1) -> list[dict[str, Any]]:
        """The CLI's JSON detections: card, rank, suit, box, confidence, alternatives."""
        records = []
        for i in range(len(self)):
            card = self.cards[i]
            rank, suit = split_card(card) if card != "?" else ("?", "")
            records.append({
                "card": card,
                "rank": rank,
                "suit": suit,
                "box": [round(float(v), digits) for v in self.boxes[i]],
                "confidence": round(float(self.scores[i]), 4),
                "alternatives": [{"card": c, "p": round(p, 4)} for c, p in self.alternatives(i)],
            })
        return records
