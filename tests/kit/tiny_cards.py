"""A tiny hand-drawn card dataset for training smoke tests (no synthetic renderer needed).

White "cards" on a grey table, each with a rank letter in its top-left corner: the index.
Written in the dataset contract's layout (finder data.yaml, reader class folders).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

GLYPHS = {"As": "A", "7h": "7"}


def draw_scene(rng: np.random.Generator, size: int = 160) -> tuple[np.ndarray, list[tuple[str, list[float]]]]:
    """One image and its (card, index box xyxy) pairs."""
    image = np.full((size, size, 3), rng.integers(60, 120), np.uint8)
    labels: list[tuple[str, list[float]]] = []
    for slot in range(2):
        card = list(GLYPHS)[int(rng.integers(len(GLYPHS)))]
        x = int(rng.integers(4, size // 2 - 44)) + slot * size // 2
        y = int(rng.integers(4, size - 70))
        cv2.rectangle(image, (x, y), (x + 42, y + 62), (245, 245, 245), -1)
        colour = (0, 0, 200) if card.endswith("h") else (20, 20, 20)
        cv2.putText(image, GLYPHS[card], (x + 3, y + 17), cv2.FONT_HERSHEY_SIMPLEX, 0.55, colour, 2)
        labels.append((card, [x + 2, y + 2, x + 18, y + 20]))
    return image, labels


def make_dataset(root: Path, n_train: int = 12, n_val: int = 4, seed: int = 0) -> dict[str, Path]:
    """Write the finder and reader datasets under ``root``; returns their paths."""
    rng = np.random.default_rng(seed)
    finder = root / "finder"
    for split, n in (("train", n_train), ("val", n_val)):
        (finder / "images" / split).mkdir(parents=True, exist_ok=True)
        (finder / "labels" / split).mkdir(parents=True, exist_ok=True)
        for i in range(n):
            image, labels = draw_scene(rng)
            h, w = image.shape[:2]
            cv2.imwrite(str(finder / "images" / split / f"{i:03d}.png"), image)
            lines = []
            for card, (x1, y1, x2, y2) in labels:
                lines.append(f"0 {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}")
                for kind, crop_box in (("index", (x1 - 3, y1 - 3, x2 + 3, y2 + 3)),
                                       ("none", (x1 + 10, y1 + 30, x1 + 30, y1 + 50))):
                    a, b, c, d = crop_box
                    side = max(c - a, d - b)
                    crop = image[max(b, 0):b + side, max(a, 0):a + side]
                    name = card if kind == "index" else "none"
                    folder = root / "reader" / split / name
                    folder.mkdir(parents=True, exist_ok=True)
                    cv2.imwrite(str(folder / f"{i:03d}_{len(lines)}.png"), cv2.resize(crop, (32, 32)))
            (finder / "labels" / split / f"{i:03d}.txt").write_text("\n".join(lines) + "\n")
    yaml = finder / "data.yaml"
    yaml.write_text(f"path: {finder.resolve()}\ntrain: images/train\nval: images/val\nnames:\n  0: index\n")
    return {"finder": yaml, "reader": root / "reader"}
