"""Real photographs: the shipped detector on a labelled folder of card photos.

    python -m bench.real FOLDER [--whole-cards] [--limit N] [--scale S] [--json FILE]

``FOLDER`` is a folder of photos each named after the one card it shows (``10c.png``: scored
as whole cards, the whole photo the card's box), or in YOLO format: ``data.yaml`` whose ``names`` spell cards (``10c``, ``QS``, ``TC``,
``10 of clubs``, ``ace_of_spades``, ``black joker`` ...; :func:`vision.labels.card_from_name`),
``images/`` (subfolders allowed, such as ``images/test``) and ``labels/`` with one ``class cx cy w h``
line per box at the same place; :func:`vision.labels.read_label_folder` reads it. Classes that
spell no card (a bare ``joker``, ``card``) are listed and their boxes left out. Images are taken in sorted path order; ``--limit`` scores the first N.
``--scale`` shrinks every photo (and its boxes) by that factor before it is read, area-averaged,
to see the same real cards at the index sizes a table camera gives.

Every image is read by :class:`vision.detector.CardDetector` with the PHOTO settings at their
threshold. With corner labels (the default) it prints:

- *corners found*: labelled boxes that a detection overlaps at IoU 0.5 or more, whatever it
  reads (best scores first, one detection a box);
- *card recall*: labelled boxes with a detection of their own card at IoU 0.5 or more;
- *card precision*: of the detections on a labelled box of their own card, on a labelled box of
  another card, or naming a card no box of the image is labelled with, the share of the first.
  A detection on no labelled box whose card is labelled elsewhere in the image is set aside and
  counted (public sets often label one corner of a card and not the other);
- *rank right* and *card right*, of the corners found, and which suit is read for which
  (club->spade, spade->club, heart->diamond, diamond->heart with counts, and the whole table);
- the same by index size (the labelled box's longer side, px).

With ``--whole-cards`` the labels are whole cards: a card is read when a detection's centre
lies in its box, the best-scored such detection being its read; precision counts detections
whose centre lies in a box of their own card against those in boxes of other cards only and
those naming a card not in the image. Nothing is said about corners.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from sim.training.evaluate import (
    JOKER_SUIT,
    WATCHED_SUIT_PAIRS,
    ReadTally,
    match,
)
from vision.cards import CARD_IDS, CARD_INDEX, SUITS
from vision.detector import DEFAULT_FINDER, DEFAULT_READER, CardDetector, ImageError, read_image
from vision.labels import (
    LabelError,
    LabelledFolder,
    LabelledImage,
    photos_named_by_card,
    read_label_folder,
)
from vision.settings import PHOTO

#: Index size bins (longer side of the labelled box, px): under the working scale, the sizes
#: where clubs and spades were mixed up on rendered tables, and larger.
SIZE_EDGES = (0, 18, 25, 32, 45, 70, 100_000)
SUIT_WORDS = {"s": "spade", "h": "heart", "d": "diamond", "c": "club", JOKER_SUIT: "joker"}


@dataclass
class CardTally:
    """Card precision and recall over photos: labelled boxes named right, detections right, wrong,
    naming a card absent from the photo, and set aside (see the module's text)."""

    boxes: int = 0
    named: int = 0
    right: int = 0
    wrong: int = 0
    absent: int = 0
    set_aside: int = 0

    def recall(self) -> float:
        return self.named / self.boxes if self.boxes else float("nan")

    def precision(self) -> float:
        judged = self.right + self.wrong + self.absent
        return self.right / judged if judged else float("nan")

    def as_dict(self) -> dict:
        return {"boxes": self.boxes, "named": self.named, "recall": round(self.recall(), 4),
                "right": self.right, "wrong": self.wrong, "absent_card": self.absent,
                "set_aside": self.set_aside, "precision": round(self.precision(), 4)}


def size_bin(px: float) -> str:
    """The :data:`SIZE_EDGES` bin a box's longer side falls in, as ``lo-hi px``."""
    for lo, hi in zip(SIZE_EDGES[:-1], SIZE_EDGES[1:], strict=True):
        if lo <= px < hi:
            return f"{lo}-{hi} px" if hi < SIZE_EDGES[-1] else f"{lo}+ px"
    return f"{SIZE_EDGES[-1]}+ px"


def score_corners(boxes: np.ndarray, cards: list[str], dets_boxes: np.ndarray, dets_ids: np.ndarray,
                  dets_scores: np.ndarray, conf: float, reads: ReadTally, tally: CardTally) -> None:
    """Add one photo's corner labels and detections (ids index ``CARD_IDS``) to ``reads`` and
    ``tally``."""
    keep = (dets_scores >= conf) & (dets_ids >= 0)
    dboxes, dids, dscores = dets_boxes[keep].reshape(-1, 4), dets_ids[keep], dets_scores[keep]
    true_ids = np.array([CARD_INDEX[c] for c in cards], np.int64)
    reads.add(dboxes, dids, dscores, boxes, true_ids, conf)
    tally.boxes += len(cards)
    same = dids[:, None] == true_ids[None, :]
    tally.named += int((match(dboxes, dscores, boxes, 0.5, same=same) >= 0).sum())
    on_box = match(dboxes, dscores, boxes, 0.5)
    labelled = set(true_ids.tolist())
    for k, card in enumerate(dids.tolist()):
        if on_box[k] >= 0:
            if card == true_ids[on_box[k]]:
                tally.right += 1
            else:
                tally.wrong += 1
        elif card not in labelled:
            tally.absent += 1
        else:
            # Another corner of a labelled card that is not labelled itself, or a second
            # detection on a box already matched.
            tally.set_aside += 1


def score_whole_cards(boxes: np.ndarray, cards: list[str], dets_boxes: np.ndarray, dets_ids: np.ndarray,
                      dets_scores: np.ndarray, conf: float, reads: ReadTally, tally: CardTally) -> None:
    """Add one photo's whole-card labels and detections to ``reads`` (each card's read: the
    best-scored detection whose centre lies in its box) and ``tally``."""
    keep = (dets_scores >= conf) & (dets_ids >= 0)
    dboxes, dids, dscores = dets_boxes[keep].reshape(-1, 4), dets_ids[keep], dets_scores[keep]
    centres = (dboxes[:, :2] + dboxes[:, 2:]) / 2
    inside = ((centres[:, None, 0] >= boxes[None, :, 0]) & (centres[:, None, 0] <= boxes[None, :, 2])
              & (centres[:, None, 1] >= boxes[None, :, 1]) & (centres[:, None, 1] <= boxes[None, :, 3]))
    true_ids = np.array([CARD_INDEX[c] for c in cards], np.int64)
    tally.boxes += len(cards)
    for t, card in enumerate(cards):
        reads.true_cards[card] += 1
        on = np.flatnonzero(inside[:, t])
        if len(on):
            best = on[np.argmax(dscores[on])]
            reads.pairs[(card, CARD_IDS[int(dids[best])])] += 1
        tally.named += int((dids[on] == true_ids[t]).any())
    labelled = set(true_ids.tolist())
    for k, card in enumerate(dids.tolist()):
        holders = true_ids[inside[k]]
        if card in holders.tolist():
            tally.right += 1
        elif card not in labelled:
            tally.absent += 1
        elif len(holders):
            tally.wrong += 1
        else:
            tally.set_aside += 1


def watched(reads: ReadTally) -> dict[str, dict]:
    """The watched suit pairs' rates, ``club->spade`` and so on, rates rounded."""
    out = {}
    for t, r in WATCHED_SUIT_PAIRS:
        rate = reads.suit_rate(t, r)
        out[f"{SUIT_WORDS[t]}->{SUIT_WORDS[r]}"] = {**rate, "rate": round(rate["rate"], 4)}
    return out


def summary(reads: ReadTally, tally: CardTally, corners: bool) -> dict:
    out = {"cards": tally.as_dict(), "rank_right": round(reads.rank_right(), 4),
           "card_right": round(reads.card_right(), 4), "suit_pairs": watched(reads),
           "suit_table": reads.suit_table()}
    if corners:
        out["corners_found"] = {"found": reads.n_found, "of": reads.n_true, "rate": round(reads.found(), 4)}
    else:
        out["cards_read"] = {"read": reads.n_found, "of": reads.n_true, "rate": round(reads.found(), 4)}
    return out


def _rate(v: dict) -> str:
    return f"{v['rate']:.3f} ({v['count']}/{v['of']})"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", help="YOLO folder: data.yaml (names), images/, labels/")
    parser.add_argument("--whole-cards", action="store_true",
                        help="the labels box whole cards, not corner indices (card-level figures only)")
    parser.add_argument("--limit", type=int, default=None, help="score the first N images (sorted by path)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="shrink every photo by this factor (0-1] before reading it (default 1)")
    parser.add_argument("--finder", default=str(DEFAULT_FINDER))
    parser.add_argument("--reader", default=str(DEFAULT_READER))
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--deck", default=None, help="read with this deck profile file (ddz-table enroll)")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        raise SystemExit("--limit must be 1 or more")
    if not 0 < args.scale <= 1:
        raise SystemExit("--scale must lie in (0, 1]")
    named = photos_named_by_card(args.folder) if not (Path(args.folder) / "data.yaml").is_file() else []
    if named:
        # One photo per card, named after it: each photo is one whole-card box, the whole image.
        images = []
        for path, card in named[:args.limit]:
            h, w = read_image(path).shape[:2]
            images.append(LabelledImage(path, np.array([[0, 0, w, h]], np.float64), [card]))
        folder = LabelledFolder(images, {}, {})
        args.whole_cards = True
    else:
        try:
            folder = read_label_folder(args.folder, limit=args.limit, skip_unknown=True)
        except LabelError as exc:
            raise SystemExit(str(exc)) from None
    corners = not args.whole_cards
    profile = None
    if args.deck:
        from vision.profile import DeckProfile

        profile = DeckProfile.load(args.deck)
    detector = CardDetector(args.finder, args.reader, threads=args.threads, settings=PHOTO, profile=profile)
    conf = PHOTO.conf
    what = "corner indices" if corners else "whole cards"
    n_boxes = sum(len(p.cards) for p in folder.images)
    scaled = f", photos scaled by {args.scale:g}" if args.scale != 1 else ""
    print(f"# {args.folder}: {len(folder.images)} images, {n_boxes} labelled boxes ({what}){scaled}; "
          f"finder {args.finder}, reader {args.reader}, PHOTO settings, threshold {conf}", flush=True)
    if folder.ignored:
        print("# classes that spell no card, boxes left out: "
              + ", ".join(f"{name!r} x{n}" for name, n in sorted(folder.ignored.items())))
    reads, tally = ReadTally(), CardTally()
    by_size: dict[str, tuple[ReadTally, CardTally]] = {}
    score = score_corners if corners else score_whole_cards
    start = time.perf_counter()
    for photo in folder.images:
        try:
            image = read_image(photo.path)
        except ImageError as exc:
            raise SystemExit(f"unreadable image: {exc}") from None
        boxes = photo.boxes
        if args.scale != 1:
            h, w = image.shape[:2]
            size = (max(1, round(w * args.scale)), max(1, round(h * args.scale)))
            image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
            boxes = boxes * np.array([size[0] / w, size[1] / h] * 2)
        dets = detector.detect(image, conf=conf)
        score(boxes, photo.cards, dets.boxes, dets.class_ids, dets.scores, conf, reads, tally)
        sizes = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
        for name in sorted({size_bin(px) for px in sizes.tolist()}):
            chosen = np.array([size_bin(px) == name for px in sizes.tolist()])
            bin_reads, bin_tally = by_size.setdefault(name, (ReadTally(), CardTally()))
            # Scored against this bin's boxes only; precision is not kept per bin (a detection
            # off every box of the bin may sit on a box of another).
            score(boxes[chosen], [c for c, k in zip(photo.cards, chosen, strict=True) if k],
                  dets.boxes, dets.class_ids, dets.scores, conf, bin_reads, bin_tally)
    seconds = time.perf_counter() - start
    result = summary(reads, tally, corners)
    c = result["cards"]
    print(f"# {len(folder.images)} images in {seconds:.0f} s")
    if corners:
        print(f"corners found (IoU >= 0.5, any card): {reads.found():.3f} ({reads.n_found}/{reads.n_true})")
    else:
        print(f"cards with a detection on them: {reads.found():.3f} ({reads.n_found}/{reads.n_true})")
    print(f"card recall: {c['recall']:.3f} ({c['named']}/{c['boxes']})   card precision: {c['precision']:.3f} "
          f"(right {c['right']}, wrong card {c['wrong']}, card not in the photo {c['absent_card']}; "
          f"set aside {c['set_aside']})")
    print(f"of those found: rank right {reads.rank_right():.3f}, card right {reads.card_right():.3f}")
    print("suit read for suit: " + ", ".join(f"{k} {_rate(v)}" for k, v in result["suit_pairs"].items()))
    table = result["suit_table"]
    print(f"{'true / read':>12} " + " ".join(f"{SUIT_WORDS[r]:>8}" for r in table))
    for t, row in table.items():
        if t in SUITS or sum(row.values()):
            print(f"{SUIT_WORDS[t]:>12} " + " ".join(f"{n:>8}" for n in row.values()))
    print(f"\nby index size (labelled box's longer side):\n{'size':>10} {'boxes':>6} {'found':>6} {'recall':>6} "
          f"{'rank':>6} {'club->spade':>16} {'spade->club':>16}")
    sizes_out = {}
    for name in sorted(by_size, key=lambda n: int(n.split("-")[0].split("+")[0])):
        bin_reads, bin_tally = by_size[name]
        pairs = watched(bin_reads)
        sizes_out[name] = {"boxes": bin_tally.boxes, "found": round(bin_reads.found(), 4),
                           "recall": round(bin_tally.recall(), 4), "rank_right": round(bin_reads.rank_right(), 4),
                           "suit_pairs": pairs}
        print(f"{name:>10} {bin_tally.boxes:>6} {bin_reads.found():>6.3f} {bin_tally.recall():>6.3f} "
              f"{bin_reads.rank_right():>6.3f} {_rate(pairs['club->spade']):>16} {_rate(pairs['spade->club']):>16}")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "folder": str(args.folder), "labels": what, "images": len(folder.images), "boxes": n_boxes,
            "ignored_classes": folder.ignored, "scale": args.scale, "conf": conf, "finder": str(args.finder),
            "reader": str(args.reader), "seconds": round(seconds, 1), **result, "by_size": sizes_out}, indent=1))
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
