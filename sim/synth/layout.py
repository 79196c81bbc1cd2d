"""Where cards lie on the table: plays spread in a row, fans, piles, loose cards, stacks.

Poses are in table-plane pixels; later cards lie on top of earlier ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class CardPose:
    card: str
    deck: int  # index into the scene's deck list
    face_up: bool
    centre: tuple[float, float]
    angle: float  # radians; the card's x axis in the plane is (cos, sin)
    scale: float  # plane pixels per face pixel


def _rot(a: float) -> np.ndarray:
    return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])


def spread(rng, n, anchor, size, angle) -> list[tuple]:
    """A play laid down as a row (or a column): each card shifted so its index shows."""
    w, h = size
    if rng.random() < 0.75:
        step = _rot(angle) @ np.array([rng.uniform(0.17, 0.5) * w, rng.normal(0, 0.03) * h])
    else:
        step = _rot(angle) @ np.array([rng.normal(0, 0.03) * w, rng.uniform(0.22, 0.45) * h])
    start = np.array(anchor) - step * (n - 1) / 2
    return [
        (tuple(start + i * step + rng.normal(0, 0.01 * w, 2)), angle + rng.normal(0, 0.04)) for i in range(n)
    ]


def fan(rng, n, anchor, size, angle) -> list[tuple]:
    """Cards held or dropped as a fan around a pivot below them."""
    w, h = size
    delta = np.radians(rng.uniform(4, 14))
    radius = rng.uniform(0.25, 0.6) * h
    pivot = np.array(anchor) + _rot(angle) @ np.array([0, radius])
    out = []
    for i in range(n):
        a = angle + (i - (n - 1) / 2) * delta
        out.append((tuple(pivot + _rot(a) @ np.array([0, -radius])), a))
    return out


def pile(rng, n, anchor, size, angle) -> list[tuple]:
    """Cards thrown onto a heap: most indices end up covered."""
    w, h = size
    return [(tuple(np.array(anchor) + rng.normal(0, 0.28 * h, 2)), rng.uniform(0, 2 * np.pi)) for _ in range(n)]


def loose(rng, n, anchor, size, angle, region=None) -> list[tuple]:
    out = []
    for _ in range(n):
        p = region(rng) if region is not None else np.array(anchor) + rng.normal(0, 0.8 * size[1], 2)
        out.append((tuple(p), rng.uniform(0, 2 * np.pi)))
    return out


def stack(rng, n, anchor, size, angle) -> list[tuple]:
    """A squared-up stack (the kitty, a hand lying face down): small offsets only."""
    d = rng.normal(0, 0.6, 2) + 0.5
    return [(tuple(np.array(anchor) + i * d), angle + rng.normal(0, 0.01)) for i in range(n)]


def plays(rng, n, anchor, size, angle, plane: float) -> list[tuple]:
    """Plays and shown hands as a table lays them: rows of cards 0.15-0.33 of a card apart.

    A card's index is about a sixth of its width, so the tightest rows leave each index just
    clear of the next card's edge, as a played straight or a hand shown at the end does. The
    row is turned as a whole, each card a few degrees off its neighbours (a fan laid down);
    more cards than fit across ``plane`` wrap into further rows half a card lower, each on top of
    the one before (a shown hand of 20 or more cards).
    """
    w, h = size
    frac = rng.uniform(0.15, 0.33)
    per_row = max(2, min(n, int((0.85 * plane / w - 1) / frac) + 1))
    rows = -(-n // per_row)
    drop = rng.uniform(0.4, 0.6) * h
    along = _rot(angle) @ np.array([frac * w, rng.normal(0, 0.015) * h])
    down = _rot(angle) @ np.array([0.0, drop])
    out = []
    for i in range(n):
        r, c = divmod(i, per_row)
        in_row = min(per_row, n - r * per_row)
        offset = (c - (in_row - 1) / 2) * along + (r - (rows - 1) / 2) * down
        out.append((tuple(np.array(anchor) + offset + rng.normal(0, 0.012 * w, 2)), angle + rng.normal(0, 0.04)))
    return out


def _pools(rng: np.random.Generator, n_cards: int, deck_cards: list[list[str]],
           favour: tuple[str, ...]) -> list[list[str]]:
    """Each deck's cards shuffled, the cards in ``favour`` moved among the first ``n_cards`` dealt."""
    pools = [list(rng.permutation(cards)) for cards in deck_cards]
    for pool in pools if favour else []:
        for card in favour:
            if card in pool:  # cards are popped from the end: move it into the last n_cards
                pool.remove(card)
                pool.insert(len(pool) - int(rng.integers(0, min(n_cards, len(pool) + 1))), card)
    return pools


def _group_sizes(rng: np.random.Generator, n_cards: int, n_groups: int) -> np.ndarray:
    """``n_cards`` cut at random into ``n_groups`` groups of at least one card."""
    cuts: np.ndarray | list[int] = (
        np.sort(rng.choice(np.arange(1, n_cards), n_groups - 1, replace=False)) if n_groups > 1 else [])
    return np.diff(np.concatenate([[0], cuts, [n_cards]])).astype(int)


def deal_plays(
    rng: np.random.Generator,
    n_cards: int,
    deck_cards: list[list[str]],
    face_size: tuple[int, int],
    scale: float,
    region,
    plane: float,
    favour: tuple[str, ...] = (),
) -> list[CardPose]:
    """Poses for ``n_cards`` cards laid as one to three plays (:func:`plays`), all face up.

    The cards are drawn as in :func:`deal`; a play's cards keep one deck where they can.
    """
    size = (face_size[0] * scale, face_size[1] * scale)
    pools = _pools(rng, n_cards, deck_cards, favour)
    counts = _group_sizes(rng, n_cards, 1 if n_cards < 6 else int(rng.integers(1, 4)))
    poses: list[CardPose] = []
    for count in counts:
        placed = plays(rng, int(count), region(rng), size, rng.uniform(0, 2 * np.pi), plane)
        deck = int(rng.integers(len(pools)))
        for centre, a in placed:
            if not pools[deck]:
                deck = max(range(len(pools)), key=lambda i: len(pools[i]))
                if not pools[deck]:
                    return poses
            poses.append(CardPose(str(pools[deck].pop()), deck, True, centre, float(a), scale))
    return poses


GROUPS = {"spread": spread, "fan": fan, "pile": pile, "loose": loose, "stack": stack}
_WEIGHTS = {"spread": 0.38, "fan": 0.2, "pile": 0.14, "loose": 0.2, "stack": 0.08}


def deal(
    rng: np.random.Generator,
    n_cards: int,
    deck_cards: list[list[str]],
    face_size: tuple[int, int],
    scale: float,
    region,
    favour: tuple[str, ...] = (),
) -> list[CardPose]:
    """Poses for ``n_cards`` cards in one to three groups.

    ``deck_cards`` lists the card ids still available in each of the scene's decks;
    ``region(rng)`` samples a plane point that the camera sees. Cards in ``favour`` are
    dealt among the first ``n_cards`` of each deck (rare cards, such as the jokers, shown
    more often than a shuffled deck would).
    """
    size = (face_size[0] * scale, face_size[1] * scale)
    pools = _pools(rng, n_cards, deck_cards, favour)
    counts = _group_sizes(rng, n_cards, 1 if n_cards < 4 else int(rng.integers(1, 5)))
    names = list(_WEIGHTS)
    probs = np.array([_WEIGHTS[k] for k in names])
    poses: list[CardPose] = []
    for count in counts:
        kind = names[rng.choice(len(names), p=probs / probs.sum())]
        anchor = region(rng)
        angle = rng.uniform(0, 2 * np.pi)
        if kind == "loose":
            placed = loose(rng, count, anchor, size, angle, region)
        else:
            placed = GROUPS[kind](rng, count, anchor, size, angle)
        down_p = 1.0 if kind == "stack" else (0.2 if kind in ("pile", "loose") else 0.04)
        for centre, a in placed:
            deck = int(rng.integers(len(pools)))
            if not pools[deck]:
                deck = max(range(len(pools)), key=lambda i: len(pools[i]))
                if not pools[deck]:
                    return poses
            card = str(pools[deck].pop())
            poses.append(CardPose(card, deck, bool(rng.random() >= down_p), centre, float(a), scale))
    return poses
