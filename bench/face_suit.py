"""The suit from the card's face (``vision.face_suit``) against the index's, on held-out decks.

Rendered tables of the held-out decks (one deck each, in turn, no camera chain: each
degradation of ``sim.synth.degrade`` is the only one), read by the shipped detector (PHOTO
settings). The tables hold loose cards (four to eight, at any angle, overlapping a little at
most: :func:`loose_table`), since on the training scenes' plays (spreads, fans, piles) only
about one card in five shows both corners; ``--layout scene`` renders those instead. For every card whose two corners grouping pairs (``vision.grouping``) and whose
corners both lie on the same labelled card (a suit card, not a joker): the suit read by the
indices alone, by the face alone (``FaceSuitReader.read``; "none" when it finds no pip it is
sure of), and jointly (``CardDetector.group``: the face asked where the index suit is unsure);
club->spade and spade->club counts for each. Clean, then each degradation at each strength::

    python -m bench.face_suit --scenes 120 --strength 0.5 1

``--sweep`` also prints the joint read for other ``face_suit_below`` and ``face_weight`` values
(the face is read once per card and reused). ``--decks`` renders other decks instead (the
training decks, to set those two values without looking at the held-out ones).
"""

from __future__ import annotations

import argparse
import json
import time
import zlib
from collections import defaultdict
from pathlib import Path

import numpy as np

from sim.synth.decks import HELD_OUT_DECKS, load_deck
from sim.synth.degrade import DEGRADATIONS
from sim.synth.degrade import apply as degrade_image
from sim.synth.layout import CardPose
from sim.synth.scene import render_full, render_scene
from sim.training.evaluate import iou_matrix
from vision.detections import Detections
from vision.detector import DEFAULT_FINDER, DEFAULT_READER, CardDetector
from vision.face_suit import DEFAULT_PIPS
from vision.grouping import FaceVote, group_corners
from vision.settings import INDEX_PX, PHOTO

#: The degradations run by default: the blurs and the coarse sensor that turn clubs into
#: spades most (models/README.md, Known weaknesses), and the noise and JPEG a cheap camera adds.
DEFAULT_DEGRADATIONS = ("defocus", "motion_blur", "downscale", "low_light", "jpeg")
WAYS = ("index", "face", "joint")


class SuitTally:
    """Per way of reading (index, face, joint): cards, right, club->spade, spade->club."""

    def __init__(self) -> None:
        self.n = 0
        self.clubs = self.spades = 0
        self.right: dict[str, int] = defaultdict(int)
        self.read: dict[str, int] = defaultdict(int)
        self.club_spade: dict[str, int] = defaultdict(int)
        self.spade_club: dict[str, int] = defaultdict(int)
        self.asked = self.fixed = self.broken = 0

    def add(self, true: str, reads: dict[str, str | None], asked: bool) -> None:
        self.n += 1
        self.clubs += true == "c"
        self.spades += true == "s"
        for way, suit in reads.items():
            self.read[way] += suit is not None
            self.right[way] += suit == true
            self.club_spade[way] += true == "c" and suit == "s"
            self.spade_club[way] += true == "s" and suit == "c"
        self.asked += asked
        self.fixed += reads["index"] != true and reads["joint"] == true
        self.broken += reads["index"] == true and reads["joint"] != true

    def row(self) -> dict:
        return {"cards": self.n, "clubs": self.clubs, "spades": self.spades, "face_asked": self.asked,
                "fixed": self.fixed, "broken": self.broken,
                **{way: {"right": self.right[way], "read": self.read[way], "club_spade": self.club_spade[way],
                         "spade_club": self.spade_club[way]} for way in WAYS}}


def loose_table(rng: np.random.Generator, deck_name: str, imgsz: int,
                index_range: tuple[float, float]) -> tuple[np.ndarray, list[dict]]:
    """A table of four to eight loose cards of one deck, face up at any angle, their centres at
    least 0.8 of a card's height apart (so most show both corners), seen by the scenes' tilted
    camera; no camera chain, no hands. Returns the image and its labelled corners."""
    deck = load_deck(deck_name)
    index_px = float(np.exp(rng.uniform(*np.log(index_range))))
    scale = index_px / float(np.median([b[0][3] - b[0][1] for b in deck.boxes.values()]))
    height = deck.size[1] * scale
    plane = int(imgsz * 1.7)
    cards = list(rng.permutation(sorted(deck.faces)))
    poses: list[CardPose] = []
    for _ in range(200):
        if len(poses) == 8 or not cards:
            break
        centre = plane / 2 + rng.uniform(-0.36, 0.36, 2) * imgsz
        if all(np.hypot(*(centre - p.centre)) >= 0.8 * height for p in poses):
            poses.append(CardPose(str(cards.pop()), 0, True, (float(centre[0]), float(centre[1])),
                                  float(rng.uniform(0, 2 * np.pi)), scale))
    scene = render_full(rng, [deck], imgsz, poses=poses, index_px=index_px, hands_p=0.0, camera_effects=False)
    return scene.image, scene.corners


def main_corners(card, dets: Detections) -> tuple[int, int]:
    """The best-scored detection of each of a paired card's two corners (as grouping takes them)."""
    idx = list(card.corners)
    centers = dets.centers[idx]
    d = np.linalg.norm(centers[:, None] - centers[None], axis=2)
    a, b = np.unravel_index(int(d.argmax()), d.shape)
    ends: list[list[int]] = [[], []]
    for k, i in enumerate(idx):
        ends[int(d[k, b] < d[k, a])].append(i)
    first, second = (max(end, key=lambda i: dets.scores[i]) for end in ends)
    return first, second


def true_card(corners: tuple[int, ...], dets: Detections, truth: list[dict]) -> str | None:
    """The labelled card both corner detections lie on (IoU 0.5 with one of its corners), else None."""
    if not truth:
        return None
    boxes = np.array([t["box"] for t in truth], np.float32)
    overlaps = iou_matrix(dets.boxes[list(corners)], boxes)
    best = overlaps.argmax(axis=1)
    if (overlaps[np.arange(len(best)), best] < 0.5).any():
        return None
    cards = {truth[t]["card"] for t in best}
    return cards.pop() if len(cards) == 1 and len(set(best)) == 2 else None


def read_scene(detector: CardDetector, image: np.ndarray, truth: list[dict], tallies: dict, votes: list) -> None:
    """Score one (degraded) image into ``tallies`` (keyed by (below, weight), the settings' first)."""
    dets = detector.detect(image)
    cache: dict[tuple[int, int], dict | None] = {}

    def face(i: int, j: int) -> dict | None:
        key = (min(i, j), max(i, j))
        if key not in cache:
            assert detector.face is not None  # the bench loads the pip classifier
            suit = detector.face.read(image, dets.boxes[i], dets.boxes[j])
            cache[key] = None if suit is None else suit.probs
        return cache[key]

    alone = group_corners(dets)
    joint = {key: {c.corners: c for c in group_corners(dets, face=FaceVote(face, *key)).cards} for key in votes}
    for card in alone.cards:
        if not card.paired or card.card in ("BJ", "RJ"):
            continue
        true = true_card(main_corners(card, dets), dets, truth)
        if true is None or true in ("BJ", "RJ"):
            continue
        shown = face(*main_corners(card, dets))
        for key in votes:
            read = joint[key][card.corners]
            reads = {"index": card.card[-1], "face": max(shown, key=lambda s: shown[s]) if shown else None,
                     "joint": read.card[-1] if read.card not in ("BJ", "RJ") else None}
            tallies[key].add(true[-1], reads, read.face is not None)


def cell(right: int, n: int) -> str:
    return f"{right / n:.3f}" if n else "  -  "


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes", type=int, default=120, help="rendered tables (held-out decks in turn)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the rendering and the degradations")
    parser.add_argument("--imgsz", type=int, default=416, help="rendered table size, px")
    parser.add_argument("--index-px", nargs=2, type=float, default=list(INDEX_PX), metavar=("MIN", "MAX"))
    parser.add_argument("--degradations", nargs="+", default=list(DEFAULT_DEGRADATIONS), metavar="NAME",
                        help=f"default: {' '.join(DEFAULT_DEGRADATIONS)}; known: {', '.join(DEGRADATIONS)}")
    parser.add_argument("--strength", nargs="+", type=float, default=[0.5, 1.0])
    parser.add_argument("--layout", choices=("loose", "scene"), default="loose",
                        help="loose cards (default) or the training scenes' plays, fans and piles")
    parser.add_argument("--decks", nargs="+", default=list(HELD_OUT_DECKS), help="decks to render (default: held out)")
    parser.add_argument("--finder", default=str(DEFAULT_FINDER))
    parser.add_argument("--reader", default=str(DEFAULT_READER))
    parser.add_argument("--pips", default=str(DEFAULT_PIPS))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--sweep", action="store_true", help="also other face_suit_below / face_weight values")
    parser.add_argument("--json", default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    unknown = [n for n in args.degradations if n not in DEGRADATIONS]
    if unknown:
        raise SystemExit(f"unknown degradation(s) {', '.join(unknown)}; known: {', '.join(DEGRADATIONS)}")
    if not all(0 <= s <= 1 for s in args.strength):
        raise SystemExit("--strength values must lie between 0 and 1")
    detector = CardDetector(args.finder, args.reader, threads=args.threads, settings=PHOTO, pips=args.pips)
    if detector.face is None:
        raise SystemExit(f"no pip classifier at {args.pips}")
    votes = [(PHOTO.face_suit_below, PHOTO.face_weight)]
    if args.sweep:
        votes += [(b, w) for b in (0.8, 0.9, 0.97, 1.0) for w in (1.0, 1.5, 2.0, 3.0) if (b, w) != votes[0]]
    runs = [("none", 0.0)] + [(n, s) for s in args.strength for n in args.degradations]
    tallies = {run: {key: SuitTally() for key in votes} for run in runs}
    rng = np.random.default_rng(args.seed)
    print(f"# {args.scenes} rendered {args.layout} tables of {', '.join(args.decks)}, seed {args.seed}, {args.imgsz} px, index "
          f"{args.index_px[0]:g}-{args.index_px[1]:g} px, no camera chain; PHOTO settings (face_suit_below "
          f"{PHOTO.face_suit_below}, face_weight {PHOTO.face_weight}); pips {args.pips}", flush=True)
    start = time.perf_counter()
    for k in range(args.scenes):
        deck = args.decks[k % len(args.decks)]
        if args.layout == "loose":
            image, truth = loose_table(rng, deck, args.imgsz, tuple(args.index_px))
        else:
            image, truth = render_scene(rng, [deck], imgsz=args.imgsz, index_range=tuple(args.index_px),
                                        camera_effects=False)
        for name, strength in runs:
            local = np.random.default_rng([args.seed, k, zlib.crc32(name.encode())])
            read_scene(detector, degrade_image(image, name, local, strength), truth, tallies[(name, strength)], votes)
    print(f"# {args.scenes} scenes x {len(runs)} runs in {time.perf_counter() - start:.0f} s")
    print("cards: paired cards on one labelled suit card; asked: the face was read for the joint (index unsure); "
          "face: its suit right (of the cards it gave one for: read); fixed / broken: index wrong and joint right, "
          "and the other way")
    print(f"{'degradation':>16} {'cards':>5} {'asked':>5} | {'right: index':>12} {'face':>6} {'read':>5} {'joint':>6} | "
          f"{'club->spade: index':>18} {'face':>5} {'joint':>5} | {'spade->club: index':>18} {'face':>5} {'joint':>5}"
          f" | {'fixed':>5} {'broken':>6}")
    results = []
    for (name, strength), by_vote in tallies.items():
        t = by_vote[votes[0]]
        label = name if name == "none" else f"{name}@{strength:g}"
        print(f"{label:>16} {t.n:>5} {t.asked:>5} | {cell(t.right['index'], t.n):>12} "
              f"{cell(t.right['face'], t.read['face']):>6} {cell(t.read['face'], t.n):>5} "
              f"{cell(t.right['joint'], t.n):>6} | "
              f"{t.club_spade['index']:>12}/{t.clubs:<5} {t.club_spade['face']:>5} {t.club_spade['joint']:>5} | "
              f"{t.spade_club['index']:>12}/{t.spades:<5} {t.spade_club['face']:>5} {t.spade_club['joint']:>5} | "
              f"{t.fixed:>5} {t.broken:>6}")
        results.append({"degradation": name, "strength": strength,
                        "by_setting": [{"face_suit_below": b, "face_weight": w, **v.row()} for (b, w), v in by_vote.items()]})
    total = {key: [sum(by_vote[key].right["joint"] for by_vote in tallies.values()),
                   sum(by_vote[key].club_spade["joint"] + by_vote[key].spade_club["joint"] for by_vote in tallies.values()),
                   sum(by_vote[key].broken for by_vote in tallies.values())] for key in votes}
    cards = sum(by_vote[votes[0]].n for by_vote in tallies.values())
    index_right = sum(by_vote[votes[0]].right["index"] for by_vote in tallies.values())
    print(f"\nall runs: {cards} cards, index alone right {cell(index_right, cards)}")
    for (b, w), (right, swaps, broken) in total.items():
        print(f"  joint, face_suit_below {b:g}, face_weight {w:g}: right {cell(right, cards)}, club<->spade {swaps}, "
              f"right index reads turned wrong {broken}")
    if args.json:
        Path(args.json).write_text(json.dumps({"scenes": args.scenes, "seed": args.seed, "decks": args.decks,
                                               "results": results}, indent=1))
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
