"""Contact sheets: every card of a deck with its located corner index boxes drawn on.

Green is the top-left index, magenta the bottom-right one. Look at these after changing
the locator or adding a deck: a box that misses the rank or swallows a pip shows at once.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from sim.synth.decks import HELD_OUT_DECKS, Deck, list_decks, load_deck
from vision.cards import CARD_IDS

TOP_COLOUR = (0, 170, 0)
BOTTOM_COLOUR = (255, 0, 255)


def _flatten(art: np.ndarray, grey: int = 128) -> np.ndarray:
    a = art[..., 3:4].astype(np.float32) / 255
    return (art[..., :3] * a + grey * (1 - a)).astype(np.uint8)


def _corners(face: np.ndarray) -> np.ndarray:
    """The top-left corner beside the bottom-right one turned upright: where the boxes are."""
    h, w = face.shape[:2]
    cw, ch = round(0.36 * w), round(0.42 * h)
    return np.hstack([face[:ch, :cw], face[::-1, ::-1][:ch, :cw], np.full((ch, 2, 3), 60, np.uint8)])


def deck_sheet(deck: Deck, card_width: int = 96, columns: int = 14, corners: bool = False) -> np.ndarray:
    """All 54 faces and the back in rank order, boxes drawn at full size before shrinking.

    ``corners`` shows each card's two index corners instead of the whole face (a smaller
    sheet that still shows every box).
    """
    w, h = deck.size
    tiles = []
    for card in CARD_IDS:
        if card not in deck.faces:  # partial decks have no jokers
            tiles.append(np.full((h, w, 3), 60, np.uint8) if not corners else _corners(np.full((h, w, 3), 60, np.uint8)))
            continue
        face = _flatten(deck.faces[card])
        for box, colour in zip(deck.boxes[card], (TOP_COLOUR, BOTTOM_COLOUR), strict=True):
            cv2.rectangle(face, box[:2], (box[2] - 1, box[3] - 1), colour, max(2, w // 100))
        tiles.append(_corners(face) if corners else face)
    tiles.append(_corners(_flatten(deck.back)) if corners else _flatten(deck.back))
    th, tw = round(tiles[0].shape[0] * card_width / tiles[0].shape[1]), card_width
    tiles = [cv2.resize(t, (tw, th), interpolation=cv2.INTER_AREA) for t in tiles]
    while len(tiles) % columns:
        tiles.append(np.full((th, tw, 3), 60, np.uint8))
    rows = [np.hstack(tiles[i : i + columns]) for i in range(0, len(tiles), columns)]
    sheet = np.vstack(rows)
    title = deck.name + ("  (held out)" if deck.name in HELD_OUT_DECKS else "")
    band = np.full((22, sheet.shape[1], 3), 255, np.uint8)
    cv2.putText(band, title, (4, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 0, 0), 1, cv2.LINE_AA)
    return np.vstack([band, sheet])


def write_contact_sheet(
    path, decks: list[str] | None = None, card_width: int = 64, corners: bool = True
) -> Path:
    """One PNG with a block per deck (all kept decks by default)."""
    path = Path(path)
    names = decks or list_decks(partial=True)
    blocks = [deck_sheet(load_deck(n), card_width, corners=corners) for n in names]
    width = max(b.shape[1] for b in blocks)
    blocks = [np.pad(b, ((0, 4), (0, width - b.shape[1]), (0, 0))) for b in blocks]
    path.parent.mkdir(parents=True, exist_ok=True)
    sheet = np.vstack(blocks)
    # 32 levels per channel look the same here and make the committed PNG a third the size.
    sheet = (sheet // 8) * 8 + 4
    if not cv2.imwrite(str(path), sheet, [cv2.IMWRITE_PNG_COMPRESSION, 9]):
        raise OSError(f"could not write {path}")
    return path
