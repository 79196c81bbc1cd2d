"""Synthetic table figures: rendering speed and what the labels look like.

    .venv/bin/python -m bench.synth --scenes 100            # render here and measure
    .venv/bin/python -m bench.synth --truth datasets/generated/v2/truth/train.jsonl

Prints scenes per second (one process), labelled corner indices per image, index height
percentiles (image pixels), the share of face-up corners left unlabelled as hidden, and
how often each card appears, so a change to the generator shows its effect in numbers.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

import numpy as np


def _height(quad) -> float:
    q = np.asarray(quad, float)
    return float(np.linalg.norm(q[3] - q[0]))


def summarise(corners_per_image: list[list[dict]], hidden: int | None = None) -> None:
    counts = [len(c) for c in corners_per_image]
    heights = [_height(c["quad"]) for cs in corners_per_image for c in cs]
    cards = Counter(c["card"] for cs in corners_per_image for c in cs)
    print(f"images {len(counts)}  labelled corners {sum(counts)}  per image mean {np.mean(counts):.1f}"
          f"  median {np.median(counts):.0f}  empty {sum(n == 0 for n in counts)}")
    if heights:
        p = np.percentile(heights, [5, 25, 50, 75, 95])
        print("index height px  p5 {:.1f}  p25 {:.1f}  p50 {:.1f}  p75 {:.1f}  p95 {:.1f}".format(*p))
    if hidden is not None:
        total = hidden + sum(counts)
        print(f"face-up corners hidden (under cards, hands, clutter or out of frame): {hidden / max(total, 1):.0%}")
    if cards:
        least = cards.most_common()[-3:]
        print(f"cards seen {len(cards)}/54  most {cards.most_common(3)}  least {least}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=60)
    parser.add_argument("--imgsz", type=int, default=416)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--unseen", action="store_true", help="render with the held-out decks")
    parser.add_argument("--truth", help="summarise a built dataset's truth/<split>.jsonl instead")
    args = parser.parse_args()
    if args.truth:
        with open(args.truth) as f:
            records = [json.loads(line) for line in f]
        summarise([r["corners"] for r in records])
        return
    from sim.synth.decks import HELD_OUT_DECKS, load_deck, training_decks
    from sim.synth.scene import render_full

    decks = [load_deck(d) for d in (HELD_OUT_DECKS if args.unseen else training_decks())]
    render_full(np.random.default_rng(args.seed), decks, args.imgsz)  # warm caches
    corners, hidden = [], 0
    started = time.perf_counter()
    for i in range(args.scenes):
        scene = render_full(np.random.default_rng([args.seed, i]), decks, args.imgsz)
        corners.append(scene.corners)
        hidden += len(scene.hidden)
    took = time.perf_counter() - started
    print(f"{args.scenes / took:.1f} scenes/s at {args.imgsz} px in one process ({took / args.scenes * 1000:.0f} ms each)")
    summarise(corners, hidden)


if __name__ == "__main__":
    main()
