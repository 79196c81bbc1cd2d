"""How unsure the reader is on each deck: what the tracker's unfamiliar-deck hint is set from.

For rendered tables of every installed deck (held-out decks first), the share of real corner
indices (finder score >= ``tracker.reader.FAMILIAR_FINDER``) the reader reads under
``FAMILIAR_SURE``, with the tracker's settings. The tracker raises ``unfamiliar_deck`` when
``ReaderConfig.unfamiliar_share`` of the last ``unfamiliar_window`` such indices were unsure::

    python -m bench.unfamiliar --scenes 6 --seed 3
"""

from __future__ import annotations

import argparse

import numpy as np

from sim.synth.decks import HELD_OUT_DECKS, list_decks
from sim.synth.scene import render_scene
from tracker.reader import FAMILIAR_FINDER, FAMILIAR_SURE, ReaderConfig
from vision.detector import CardDetector
from vision.settings import TRACKER


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenes", type=int, default=6, help="rendered tables per deck")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--imgsz", type=int, default=640)
    parser.add_argument("--index-px", type=float, nargs=2, default=[18.0, 40.0], help="corner index heights")
    args = parser.parse_args(argv)
    detector = CardDetector(settings=TRACKER)
    rng = np.random.default_rng(args.seed)
    hint = ReaderConfig().unfamiliar_share
    print(f"# {args.scenes} tables a deck, {args.imgsz} px, indices {args.index_px[0]:g}-{args.index_px[1]:g} px; "
          f"unsure: reader < {FAMILIAR_SURE} on finder >= {FAMILIAR_FINDER}; the hint fires at {hint:.0%}")
    print(f"{'deck':>24} {'set':>9} {'indices':>7} {'unsure':>7}")
    decks = [*HELD_OUT_DECKS, *(d for d in list_decks() if d not in HELD_OUT_DECKS)]
    for deck in decks:
        reads = []
        for _ in range(args.scenes):
            image, _ = render_scene(rng, [deck], imgsz=args.imgsz, index_range=tuple(args.index_px))
            dets = detector.detect(image)
            real = dets.finder_scores >= FAMILIAR_FINDER
            reads += list(dets.scores[real] / np.maximum(dets.finder_scores[real], 1e-6))
        share = float(np.mean(np.array(reads) < FAMILIAR_SURE)) if reads else float("nan")
        kind = "held out" if deck in HELD_OUT_DECKS else "training"
        print(f"{deck:>24} {kind:>9} {len(reads):>7} {share:>7.3f}{'  <- hint' if share >= hint else ''}", flush=True)


if __name__ == "__main__":
    main()
