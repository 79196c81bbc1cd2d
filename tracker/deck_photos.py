"""A walk-through's confirmed batches as a labelled photo folder: what a box without torch
hands to a computer that can train the deck's own reader.

:func:`write_photos` writes the YOLO folder :func:`vision.labels.read_label_folder` reads
(``data.yaml`` whose ``names`` are the 54 cards, ``images/batch-K.png``, ``labels/batch-K.txt``
with one ``class cx cy w h`` line per corner index box), so that on a computer with the ``train``
extra

    ddz-table enroll --from-labels NAME-photos --deck NAME

fine-tunes the reader on exactly the corners the referee confirmed on the box. The images are
PNG: the crops trained on are the pixels the box read, not a second JPEG's.

>>> folder = write_photos(tmp / "club-photos", "club", batches)     # doctest: +SKIP
>>> [i.cards[:2] for i in read_label_folder(folder).images][:1]     # doctest: +SKIP
[['3s', '3s']]
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.cards import CARD_IDS
from vision.labels import card_names_yaml, label_lines

#: The folder's classes, in order: every card, so any batch's labels index into one list.
CLASSES: tuple[str, ...] = CARD_IDS
#: What a folder of photos is called beside its deck's profile: ``decks/NAME-photos/``.
PHOTOS_SUFFIX = "-photos"


def photos_folder(decks: str | Path, name: str) -> Path:
    """Where the labelled photos of deck ``name`` go in the decks folder ``decks``."""
    return Path(decks) / f"{name}{PHOTOS_SUFFIX}"


def yolo_lines(boxes: np.ndarray, cards: Sequence[str], width: int, height: int) -> list[str]:
    """One ``class cx cy w h`` line (0-1, of the image's size) per box, clipped to the image; a
    box with nothing left inside it is left out (the reader's label check refuses an empty one)."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    x1, x2 = np.clip(boxes[:, 0], 0, width), np.clip(boxes[:, 2], 0, width)
    y1, y2 = np.clip(boxes[:, 1], 0, height), np.clip(boxes[:, 3], 0, height)
    rows = []
    for k, card in enumerate(cards):
        w, h = (x2[k] - x1[k]) / width, (y2[k] - y1[k]) / height
        if w > 0 and h > 0:
            rows.append((card, (x1[k] + x2[k]) / 2 / width, (y1[k] + y2[k]) / 2 / height, w, h))
    return label_lines(rows).splitlines()


def write_photos(folder: str | Path, name: str,
                 batches: Iterable[tuple[np.ndarray, np.ndarray, Sequence[str]]]) -> Path:
    """Write ``batches`` (``(image BGR, corner boxes in image px, card of each box)``) as the YOLO
    folder ``folder`` (see the module's text) and return it. The images and labels of an earlier
    folder of the same name are replaced, never mixed with the new ones; an ``OSError`` if it
    cannot be written."""
    folder = Path(folder)
    for sub in ("images", "labels"):
        shutil.rmtree(folder / sub, ignore_errors=True)
        (folder / sub).mkdir(parents=True)
    count = 0
    for image, boxes, cards in batches:
        count += 1
        h, w = image.shape[:2]
        stem = f"batch-{count}"
        ok, png = cv2.imencode(".png", np.ascontiguousarray(image))
        if not ok:
            raise OSError(f"cannot encode the image of {stem}")
        (folder / "images" / f"{stem}.png").write_bytes(png.tobytes())
        lines = yolo_lines(boxes, cards, w, h)
        (folder / "labels" / f"{stem}.txt").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    (folder / "data.yaml").write_text(card_names_yaml(
        f"牌组 {name} 在本机录入时确认过的牌角 / the corner indices of deck {name} confirmed on the box.",
        "在装有训练组件的电脑上 / on a computer with the train extra:",
        f"  ddz-table enroll --from-labels {folder.name} --deck {name}"), encoding="utf-8")
    return folder
