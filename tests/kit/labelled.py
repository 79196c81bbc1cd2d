"""Tiny labelled YOLO folders written on disk: what ``ddz-table enroll``, ``vision.labels`` and
``bench/real.py`` read."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from vision.cards import CARD_IDS, CARD_INDEX


def write_yolo(folder: Path, image: np.ndarray, corners: list[dict], spell=lambda card: card) -> Path:
    """A YOLO folder of one image: data.yaml naming the 54 cards through ``spell``, images/, labels/."""
    (folder / "images").mkdir(parents=True)
    (folder / "labels").mkdir(parents=True)
    cv2.imwrite(str(folder / "images" / "layout.png"), image)
    h, w = image.shape[:2]
    lines = [f"{CARD_INDEX[c['card']]} {(c['box'][0] + c['box'][2]) / 2 / w:.6f} {(c['box'][1] + c['box'][3]) / 2 / h:.6f} "
             f"{(c['box'][2] - c['box'][0]) / w:.6f} {(c['box'][3] - c['box'][1]) / h:.6f}" for c in corners]
    (folder / "labels" / "layout.txt").write_text("\n".join(lines) + "\n")
    names = "".join(f"  {i}: {json.dumps(spell(card))}\n" for i, card in enumerate(CARD_IDS))
    (folder / "data.yaml").write_text(f"nc: {len(CARD_IDS)}\nnames:\n{names}")
    return folder


def write_folder(root: Path, names: str, labels: dict[str, str], size=(200, 100)) -> Path:
    """A YOLO folder: data.yaml with these ``names``, white images under images/test and their
    label files under labels/test."""
    (root / "images" / "test").mkdir(parents=True)
    (root / "labels" / "test").mkdir(parents=True)
    (root / "data.yaml").write_text(f"path: .\ntest: images/test\nnames: {names}\n")
    for stem, text in labels.items():
        cv2.imwrite(str(root / "images" / "test" / f"{stem}.png"), np.full((size[1], size[0], 3), 255, np.uint8))
        (root / "labels" / "test" / f"{stem}.txt").write_text(text)
    return root
