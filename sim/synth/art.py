"""Render Debian's card decks to face images with ``rsvg-convert`` (deterministic).

Two sources:

- ``gnome-cards-data`` (aisleriot): one SVG sheet per deck, a 13x5 grid, rows clubs,
  diamonds, hearts, spades (A..K), then black joker, red joker, back.
- ``kdegames-card-data-kf5``: one SVG per deck with an element per card (``1_club``,
  ``10_heart``, ``king_spade``, ``black_joker``, ``back``). ``rsvg-convert -i ID -z Z``
  renders one element in place at zoom Z; its opaque bounding box is the card.
"""

from __future__ import annotations

import gzip
import shutil
import subprocess
import tempfile
from pathlib import Path

import cv2
import numpy as np

GNOME_DIR = Path("/usr/share/aisleriot/cards")
KDE_DIR = Path("/usr/share/carddecks")
CARD_WIDTH = 256  # face pixels; indices in scenes are at most ~60 px tall, so this is ample

_SUIT_ROWS = ("c", "d", "h", "s")
_RANK_COLS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_KDE_RANKS = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}
_KDE_SUITS = {"c": "club", "d": "diamond", "h": "heart", "s": "spade"}


class ArtError(ValueError):
    """Card art that is missing on this machine or cannot be rendered."""


def _rsvg() -> str:
    exe = shutil.which("rsvg-convert")
    if exe is None:
        raise ArtError("rsvg-convert is missing (apt-get install librsvg2-bin)")
    return exe


def _run_rsvg(args: list[str]) -> np.ndarray:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "art.png"
        done = subprocess.run([_rsvg(), *args, "-o", str(out)], capture_output=True)
        img = cv2.imread(str(out), cv2.IMREAD_UNCHANGED) if done.returncode == 0 else None
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        raise ArtError(f"rsvg-convert {' '.join(args)} gave no RGBA image")
    return img


def gnome_path(name: str) -> Path:
    return GNOME_DIR / f"{name}.svgz"


def kde_path(folder: str) -> Path | None:
    d = KDE_DIR / folder
    found = sorted(d.glob("*.svgz")) if d.is_dir() else []
    return found[0] if found else None


def _common_crop(cells: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Crop every cell to the union of where any of them is opaque."""
    shape = next(iter(cells.values())).shape[:2]
    opaque = np.zeros(shape, bool)
    for cell in cells.values():
        opaque |= cell[..., 3] > 128
    rows, cols = np.flatnonzero(opaque.any(1)), np.flatnonzero(opaque.any(0))
    y1, y2, x1, x2 = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
    return {k: np.ascontiguousarray(v[y1:y2, x1:x2]) for k, v in cells.items()}


def render_gnome(name: str) -> dict[str, np.ndarray]:
    """Faces by card id (54) plus ``"back"``, BGRA, one common size."""
    src = gnome_path(name)
    if not src.exists():
        raise ArtError(f"deck {name!r}: {src} is missing (apt-get install gnome-cards-data)")
    sheet = _run_rsvg(["-w", str(13 * CARD_WIDTH), str(src)])
    h, w = sheet.shape[:2]
    xs = [round(i * w / 13) for i in range(14)]
    ys = [round(j * h / 5) for j in range(6)]
    cw, ch = min(np.diff(xs)), min(np.diff(ys))

    def cell(row: int, col: int) -> np.ndarray:
        return sheet[ys[row] : ys[row] + ch, xs[col] : xs[col] + cw]

    cells = {rank + suit: cell(r, c) for r, suit in enumerate(_SUIT_ROWS) for c, rank in enumerate(_RANK_COLS)}
    cells.update(BJ=cell(4, 0), RJ=cell(4, 1), back=cell(4, 2))
    return _common_crop(cells)


def _kde_ids(svg_text: str) -> dict[str, str]:
    """Card id -> element id for the cards this kdegames file holds."""
    ids = {}
    for suit, s_name in _KDE_SUITS.items():
        for rank in _RANK_COLS:
            ids[rank + suit] = f"{_KDE_RANKS.get(rank, rank)}_{s_name}"
    ids.update(BJ="black_joker", RJ="red_joker", back="back")
    return {card: el for card, el in ids.items() if f'id="{el}"' in svg_text}


def render_kde(folder: str) -> dict[str, np.ndarray]:
    """Faces by card id (jokers only where the file has them) plus ``"back"``."""
    src = kde_path(folder)
    if src is None:
        raise ArtError(f"deck {folder!r}: missing (apt-get install kdegames-card-data-kf5)")
    text = gzip.decompress(src.read_bytes()).decode("utf-8", "replace")
    ids = _kde_ids(text)
    if "back" not in ids or len(ids) < 53:
        raise ArtError(f"deck {folder!r}: {src} lacks some of the 52 cards or the back")
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / "deck.svg"
        plain.write_text(text)
        probe = _run_rsvg(["-i", ids["2s"], str(plain)])
        zoom = CARD_WIDTH / _opaque_box(probe)[2]
        cells = {}
        for card, el in ids.items():
            img = _run_rsvg(["-i", el, "-z", f"{zoom:.5f}", str(plain)])
            x, y, w, h = _opaque_box(img)
            cells[card] = img[y : y + h, x : x + w]
    size = cells["2s"].shape[1], cells["2s"].shape[0]
    return {k: cv2.resize(v, size, interpolation=cv2.INTER_AREA) if v.shape[:2] != size[::-1] else v
            for k, v in cells.items()}


def _opaque_box(img: np.ndarray) -> tuple[int, int, int, int]:
    x, y, w, h = cv2.boundingRect((img[..., 3] > 20).astype(np.uint8))
    if w == 0 or h == 0:
        raise ArtError("rendered card is empty")
    return x, y, w, h
