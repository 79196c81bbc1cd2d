"""Drawing detections on images, kept apart from the detection logic."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.detections import Detections

RED_SUITS = ("h", "d")


def draw_detections(image: np.ndarray, detections: Detections) -> np.ndarray:
    """A copy of ``image`` with each index box and its card and confidence."""
    out: np.ndarray = image.copy()
    thickness = max(1, round(max(image.shape[:2]) / 600))
    for (x1, y1, x2, y2), card, score in zip(detections.boxes.astype(int), detections.cards,
                                             detections.scores, strict=True):
        red = card.endswith(RED_SUITS) or card == "RJ"
        colour = (40, 40, 230) if red else (230, 120, 30)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, thickness)
        label = f"{card} {score:.2f}"
        scale = 0.4 * thickness
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        top = max(y1 - th - 4, 0)
        cv2.rectangle(out, (x1, top), (x1 + tw + 2, top + th + 4), colour, -1)
        cv2.putText(out, label, (x1 + 1, top + th + 1), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), 1,
                    cv2.LINE_AA)
    return out


def save_annotated(folder: Path, source: str, image: np.ndarray) -> Path:
    """Write ``image`` as ``folder/<source stem>.jpg`` (creating the folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{Path(source).stem}.jpg"
    if not cv2.imwrite(str(target), image):
        raise OSError(f"cannot write {target}")
    return target
