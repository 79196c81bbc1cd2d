"""Close-up photos: one to three cards filling a frame, indices 80-250 px tall, with their truth.

What a referee's phone sends of a disputed play; ``bench/detector.py closeup`` and the detector's
close-up tests read them.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from sim.synth import layout
from sim.synth.decks import load_deck
from sim.synth.scene import render_full
from vision.cards import CARD_IDS, CARD_INDEX

#: (frame (h, w), index heights (px) drawn from) of the close-ups: a photo cut down to 1280 px
#: (what a phone app or a chat sends) and a phone's own 3000x4000, portrait.
CLOSEUP_FRAMES = (((960, 1280), (80.0, 250.0)), ((4000, 3000), (80.0, 250.0)))
#: The index-size bins the close-up figures are given by (longer side of the index box, px).
CLOSEUP_BINS = ((80, 120), (120, 180), (180, 250))
#: Close-ups are rendered at most this long side, then enlarged to the frame: a 4000 px table
#: plane would take gigabytes, and the deck art is no finer than this anyway.
CLOSEUP_RENDER_MAX = 1600


def render_closeup(rng: np.random.Generator, deck, shape: tuple[int, int] = (960, 1280),
                   index_px: float = 120.0, n_cards: int | None = None) -> tuple[np.ndarray, list[dict]]:
    """A close-up photo of ``n_cards`` (one to three) cards of ``deck`` filling a frame of
    ``shape`` (h, w), their indices ``index_px`` tall, and its cards: ``[{"card", "boxes",
    "visible"}]``, every corner index box of the card in image pixels and which of them show
    whole in the frame. Drawn by ``sim.synth.scene.render_full`` with the cards laid side by
    side at the plane's centre (each covering part of the one before, its own left index
    showing), at most ``CLOSEUP_RENDER_MAX`` px, then cut to the frame's shape and enlarged."""
    deck = load_deck(deck) if isinstance(deck, str) else deck
    h, w = shape
    grow = max(1.0, max(h, w) / CLOSEUP_RENDER_MAX)
    side = int(round(max(h, w) / grow))
    ch, cw = int(round(h / grow)), int(round(w / grow))
    index_h = float(np.median([b[0][3] - b[0][1] for b in deck.boxes.values()]))
    scale = index_px / grow / index_h
    face_w = deck.size[0] * scale
    # Each card covers the one before but for a strip at least 0.3 of a card wide, its index
    # showing; the indices' row takes at most 0.6 of the frame's short side.
    n = int(rng.integers(1, 4)) if n_cards is None else n_cards
    n = max(1, min(n, 1 + int(0.6 * min(ch, cw) / (0.3 * face_w))))
    step = min(rng.uniform(0.3, 0.5) * face_w, 0.6 * min(ch, cw) / max(n - 1, 1))
    plane = int(side * 1.7)
    angle = float(rng.normal(0, 0.12)) + (np.pi if rng.random() < 0.3 else 0.0)
    along = np.array([np.cos(angle), np.sin(angle)])
    middle = np.array([plane / 2, plane / 2]) + rng.normal(0, 0.05 * min(ch, cw), 2)
    cards = [str(c) for c in rng.choice([c for c in CARD_IDS if c in deck.faces], n, replace=False)]
    poses = []
    for i, card in enumerate(cards):
        # The card's centre placed so that its upper-left index lies on the row through the middle.
        (x1, y1, x2, y2), _ = deck.boxes[card]
        offset = (np.array([(x1 + x2) / 2, (y1 + y2) / 2]) - np.array(deck.size) / 2) * scale
        turn = angle + float(rng.normal(0, 0.05))
        rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
        index_at = middle + (i - (n - 1) / 2) * step * along
        poses.append(layout.CardPose(card, 0, True, tuple(index_at - rot @ offset), turn, scale))
    drawn = render_full(rng, [deck], side, poses=poses, index_px=index_px / grow, max_tilt=12.0,
                        hands_p=0.0, clutter_p=0.0)
    top, left = (side - ch) // 2, (side - cw) // 2
    image = drawn.image[top:top + ch, left:left + cw]
    if grow > 1:
        image = cv2.resize(image, (w, h), interpolation=cv2.INTER_CUBIC)
    out: dict[str, dict[str, Any]] = {card: {"card": card, "boxes": [], "visible": []} for card in cards}
    for corner, shown in [(c, True) for c in drawn.corners] + [(c, False) for c in drawn.hidden]:
        x1, y1, x2, y2 = corner["box"]
        inside = left <= x1 and x2 <= left + cw and top <= y1 and y2 <= top + ch
        box = [(x1 - left) * w / cw, (y1 - top) * h / ch, (x2 - left) * w / cw, (y2 - top) * h / ch]
        out[corner["card"]]["boxes"].append(box)
        out[corner["card"]]["visible"].append(shown and inside)
    return image, list(out.values())


def score_closeup(dets, cards: list[dict]) -> tuple[list[tuple[float, bool]], int, int]:
    """Per readable card (a corner showing whole) its index size (longer side of its largest
    showing corner, px) and whether a detection of its id has its centre on one of its corners;
    then how many detections there are and how many lie on no corner of a card of their id."""
    centres = (dets.boxes[:, :2] + dets.boxes[:, 2:]) / 2 if len(dets) else np.zeros((0, 2))
    ids = np.asarray(dets.class_ids)
    right = np.zeros(len(dets), bool)
    found = []
    for card in cards:
        mine = ids == CARD_INDEX[card["card"]]
        on = np.zeros(len(dets), bool)
        for x1, y1, x2, y2 in card["boxes"]:
            on |= (centres[:, 0] >= x1) & (centres[:, 0] <= x2) & (centres[:, 1] >= y1) & (centres[:, 1] <= y2)
        right |= mine & on
        shown = [max(b[2] - b[0], b[3] - b[1]) for b, v in zip(card["boxes"], card["visible"], strict=True) if v]
        if shown:
            found.append((max(shown), bool((mine & on).any())))
    return found, len(dets), int((~right).sum())
