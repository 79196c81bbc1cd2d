"""Reader crops cut from the finder's own boxes (``ddz-table dataset mine``).

The synthetic reader crops jitter the true index box the way a finder might; this cuts
them from the boxes the shipped finder actually draws on a labelled set's scenes, with the
reader's own crop recipe (:func:`vision.boxes.crop_squares`), so the reader trains on what
it will be shown: the finder's offsets, its loose and tight boxes on small indices, and its
false alarms (a big pip, a court card's face, a chip), which become ``none`` crops.

A box is labelled with the card of the visible corner it overlaps (IoU >= ``match_iou``),
``none`` when it overlaps no labelled corner at all (IoU < ``none_iou``), and skipped in
between (a rank-only box, a box half on an index): a wrong label would teach more harm than
the crop is worth. The generated sets label only corners at least 70 % visible, so a box on a
more covered index is cut as ``none``, as the benchmark would count it a false alarm; corners
given with ``visible`` 0 are never matched but keep their boxes out of ``none``.

>>> counts = mine_crops(CardDetector(), "datasets/generated/v2", "train", "runs/mined")  # doctest: +SKIP
>>> counts["none"], counts["skipped"]  # doctest: +SKIP
(2113, 977)
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from sim.synth.crops import NONE_CLASS
from sim.training.evaluate import iou_matrix, load_truth
from vision.boxes import crop_squares
from vision.detector import read_image

MATCH_IOU = 0.5
NONE_IOU = 0.1
FLOOR = 0.05


def label_boxes(boxes: np.ndarray, corners: list[dict], match_iou: float = MATCH_IOU,
                none_iou: float = NONE_IOU) -> list[str | None]:
    """Per finder box: the card of the visible corner it sits on, ``none``, or None (skip)."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    if not len(boxes):
        return []
    if not corners:
        return [NONE_CLASS] * len(boxes)
    overlap = iou_matrix(boxes, [c["box"] for c in corners])
    visible = np.array([bool(c.get("visible", True)) for c in corners])
    labels: list[str | None] = []
    for row in overlap:
        best = int(np.argmax(np.where(visible, row, -1.0)))
        if visible[best] and row[best] >= match_iou:
            labels.append(corners[best]["card"])
        elif row.max() < none_iou:
            labels.append(NONE_CLASS)
        else:
            labels.append(None)
    return labels


def mine_crops(detector, data: str | os.PathLike, split: str, out: str | os.PathLike, *, floor: float = FLOOR,
               prefix: str = "m", limit: int | None = None, progress=None) -> Counter:
    """Write ``out/<card or none>/<prefix><scene>_<k>.png`` for every finder box above ``floor``
    on the scenes of ``data``'s ``truth/<split>.jsonl``; returns the count per label (and ``skipped``).

    ``detector`` is a :class:`vision.detector.CardDetector`; only its finder runs, and the
    crops are cut at its reader's size and margin.
    """
    if not 0 < floor < 1:
        raise ValueError(f"floor must be in (0, 1), got {floor}")
    out = Path(out)
    rows = load_truth(Path(data), split, limit)
    counts: Counter = Counter()
    for n, row in enumerate(rows):
        image = read_image(row["image"])
        boxes, _, _ = detector.find(image, floor)
        labels = label_boxes(boxes, row["corners"])
        named = {i: label for i, label in enumerate(labels) if label is not None}
        keep = list(named)
        counts["skipped"] += len(labels) - len(keep)
        crops = crop_squares(image, boxes[keep], detector.read_size, detector.settings.reader_pad)
        stem = Path(row["image"]).stem
        for crop, i in zip(crops, keep, strict=True):
            folder = out / named[i]
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / f"{prefix}{stem}_{i}.png"
            if not cv2.imwrite(str(target), crop):
                raise OSError(f"could not write {target}")
            counts[named[i]] += 1
        if progress:
            progress(n + 1, len(rows))
    return counts
