"""Reader crops from real photographs, for the base reader's training beside the rendered ones.

    python -m sim.training.real_crops --out DIR --split train FOLDER [FOLDER ...] [--views N]

Each ``FOLDER`` is a labelled folder as ``ddz-table enroll`` takes it (a YOLO folder with boxes on
corner indices or on whole cards, or photos named by card: :func:`vision.labels.enrollment_samples`,
which finds the corners inside whole cards with the shipped finder). Every corner is cut with the
runtime's crop recipe (:func:`vision.boxes.crop_squares`) in the first ``--views`` views of
:data:`vision.profile.VIEWS` (as photographed, turned, brought down to the 13-30 px indices a table
camera gives, blurred, noised, JPEG-coded), each once as labelled and once jittered as the finder
draws boxes, and written as ``DIR/<split>/<card>/<prefix><photo>_<corner>_<view><j>.png``: the
layout :func:`sim.training.reader_net.load_split` reads. Counts are printed as JSON.

Only sets whose license allows training go in a training split (``datasets/README.md``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from sim.synth.crops import jittered_boxes
from vision.boxes import crop_squares
from vision.profile import VIEWS, enrollment_views

#: The views used by default: as photographed, and the smaller, softer ones a table camera gives.
DEFAULT_VIEWS = (0, 2, 3, 5, 7, 9, 11)


def write_crops(samples, out: Path, prefix: str, size: int, pad: float, views=DEFAULT_VIEWS,
                seed: int = 0) -> Counter:
    """Cut and write every corner of ``samples`` (``(image, boxes, cards)``) in ``views``; returns
    crops written per card."""
    rng = np.random.default_rng(seed)
    chosen = [VIEWS[v] for v in views]
    written: Counter = Counter()
    for k, (image, boxes, cards) in enumerate(samples):
        for v, (view, moved) in enumerate(enrollment_views(image, boxes, seed + k, chosen)):
            for j, use in enumerate((moved, jittered_boxes(moved, rng))):
                for c, (crop, card) in enumerate(zip(crop_squares(view, use, size, pad), cards, strict=True)):
                    folder = out / card
                    folder.mkdir(parents=True, exist_ok=True)
                    cv2.imwrite(str(folder / f"{prefix}{k}_{c}_{v}{j}.png"), crop)
                    written[card] += 1
    return written


def main(argv: list[str] | None = None) -> int:
    from vision.detector import CardDetector
    from vision.labels import LabelError, enrollment_samples

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--out", required=True)
    parser.add_argument("--split", default="train")
    parser.add_argument("--views", default=",".join(map(str, DEFAULT_VIEWS)),
                        help="indices into vision.profile.VIEWS, comma-separated")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    detector = CardDetector()
    views = tuple(int(v) for v in args.views.split(",") if v.strip())
    report = {}
    for n, folder in enumerate(args.folders):
        try:
            samples = enrollment_samples(folder, detector)
        except LabelError as exc:
            print(f"real_crops: {exc}", file=sys.stderr)
            return 2
        written = write_crops(samples.items, Path(args.out) / args.split, f"r{n}_", detector.read_size,
                              detector.settings.reader_pad, views, args.seed + 1000 * n)
        c = samples.corners
        report[folder] = {"photos": samples.photos, "corners": sum(len(b) for _, b, _ in samples.items),
                          "crops": sum(written.values()), "skipped_classes": samples.skipped,
                          "whole_card_boxes": c.card_boxes, "corners_found_in_cards": c.corners_found,
                          "cards_without_corner": c.cards_without_corner, "ambiguous": c.ambiguous,
                          "not_an_index": c.not_an_index}
    print(json.dumps(report, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
