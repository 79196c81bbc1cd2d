"""A deck laid out for enrollment: cards face up in rows, photographed by the box's camera.

What a club lays on the mat to teach the box its deck (``ddz-table enroll``, the referee page's
deck walk-through): the cards of one batch in rows of ``per_row``, in the order asked for, each
index ``index_px`` tall, seen by a camera tilted at most ``max_tilt`` degrees, with the usual
camera effects. ``bench/detector.py profile`` enrolls the held-out decks from it, and the tests
of :mod:`tracker.enroll` read it as a camera frame.

>>> image, corners = render_layout(np.random.default_rng(1), load_deck("orell"), 24, ["3s", "BJ"])  # doctest: +SKIP
>>> sorted({c["card"] for c in corners})  # doctest: +SKIP
['3s', 'BJ']
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sim.synth.layout import CardPose
from sim.synth.scene import render_full
from vision.cards import CARD_IDS

#: Room around each card, as a share of its width and height: the gaps between cards in a row
#: and between rows.
GAP = (0.12, 0.08)


def render_layout(rng: np.random.Generator, deck, index_px: float = 26.0, cards: Sequence[str] | None = None,
                  per_row: int = 9, max_tilt: float = 10.0, jitter: float = 0.03) -> tuple[np.ndarray, list[dict]]:
    """One photo of ``cards`` (default: all of ``deck``'s, in :data:`vision.cards.CARD_IDS` order)
    face up in rows of ``per_row``, left to right then top to bottom, indices ``index_px`` tall;
    each card turned by a normal angle of ``jitter`` radians, as hands lay cards. The image is
    square, just large enough for the rows. Returns the image and its labelled corners (each
    ``{"card", "box", ...}`` as :func:`sim.synth.scene.render_full` gives them)."""
    cards = [c for c in CARD_IDS if c in deck.faces] if cards is None else list(cards)
    missing = [c for c in cards if c not in deck.faces]
    if missing:
        raise ValueError(f"deck {deck.name} has no face for {missing[:6]}")
    if not cards or per_row < 1:
        raise ValueError("a layout needs at least one card and one card a row")
    index_h = float(np.median([b[0][3] - b[0][1] for b in deck.boxes.values()]))
    scale = index_px / index_h
    w, h = deck.size[0] * scale * (1 + GAP[0]), deck.size[1] * scale * (1 + GAP[1])
    cols = min(per_row, len(cards))
    rows = -(-len(cards) // per_row)
    imgsz = max(64, int(np.ceil(max(cols * w, rows * h) * 1.12 / 32) * 32))
    plane = int(imgsz * 1.7)
    x0, y0 = plane / 2 - cols * w / 2 + w / 2, plane / 2 - rows * h / 2 + h / 2
    poses = [CardPose(card, 0, True, (x0 + (k % per_row) * w, y0 + (k // per_row) * h),
                      float(rng.normal(0, jitter)), scale)
             for k, card in enumerate(cards)]
    scene = render_full(rng, [deck], imgsz, poses=poses, index_px=index_px, max_tilt=max_tilt, clutter_p=0.0,
                        hands_p=0.0)
    return scene.image, scene.corners
