"""Card art for synthetic tables: Debian's card decks, rendered once and cached.

The art comes from ``gnome-cards-data`` (aisleriot sheets: a 13x5 grid per deck, rows
clubs, diamonds, hearts, spades, then black joker, red joker, back). Only decks with
Anglo-American indices (A K Q J 10 ... 2, the ones Chinese club decks use) and two jokers
with a corner word or emblem are kept; see ``datasets/README.md`` for the decks dropped.

Each card's corner index (rank glyph + small suit under it) is found automatically by
:mod:`vision.synth.locate`; faces, back and boxes are cached under ``datasets/cards/<deck>/``.

>>> deck = load_deck("anglo")              # doctest: +SKIP
>>> deck.faces["10h"].shape, deck.boxes["10h"][0]   # doctest: +SKIP
((364, 256, 4), (9, 11, 40, 84))
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.cards import CARD_IDS, JOKERS
from vision.synth.locate import Box, fit_to_window, locate_index

SHEET_DIR = Path("/usr/share/aisleriot/cards")
REPO_ROOT = Path(__file__).resolve().parents[2]
CACHE_DIR = REPO_ROOT / "datasets" / "cards"
#: Bump when rendering or locating changes, so stale caches are rebuilt.
CACHE_VERSION = 4
CARD_WIDTH = 256  # face pixels; indices in scenes are at most ~60 px tall, so this is ample

#: Kept decks: Anglo-American indices and usable jokers.
DECKS: tuple[str, ...] = (
    "anglo",
    "anglo_bitmap",
    "anglo_modern",
    "anglo_modern_4_color",
    "anglo_poker",
    "atlasnye",
    "bellot",
    "gnomangelo",
    "gnomangelo_bitmap",
    "neoclassical",
    "neoclassical_4_color",
    "orell",
    "ornamental",
    "paris",
    "plastic",
    "simplistic",
    "tango",
    "tigullio",
)

#: Never used for training scenes; they make the ``test_unseen`` split. Mixed in style:
#: Russian satin (atlasnye), cream paper with engraved art (orell), bold modern (plastic),
#: Italian (tigullio). None has a near-twin (``*_bitmap``, ``*_4_color``) left in training.
HELD_OUT_DECKS: tuple[str, ...] = ("atlasnye", "orell", "plastic", "tigullio")

_SUIT_ROWS = ("c", "d", "h", "s")
_RANK_COLS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")



class DeckError(ValueError):
    """A deck that is unknown, missing on this machine, or whose art cannot be used."""


@dataclass(frozen=True)
class Deck:
    """One deck's art in face pixels.

    ``faces`` maps card id to a BGRA image (alpha 0 outside the rounded card);
    ``boxes`` maps card id to its two corner index boxes ``(x1, y1, x2, y2)``:
    top-left first, then bottom-right (the 180 degree turn of the first).
    """

    name: str
    faces: dict[str, np.ndarray]
    back: np.ndarray
    boxes: dict[str, tuple[Box, Box]]

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of every face."""
        h, w = self.back.shape[:2]
        return w, h


def list_decks() -> list[str]:
    """Names of the kept decks whose art is installed here (all of DECKS on a full machine)."""
    return [d for d in DECKS if _sheet_path(d).exists()]


def training_decks() -> list[str]:
    return [d for d in list_decks() if d not in HELD_OUT_DECKS]


def _sheet_path(name: str) -> Path:
    return SHEET_DIR / f"{name}.svgz"


def render_sheet(name: str) -> np.ndarray:
    """The deck's whole sheet as BGRA, 13 cards of CARD_WIDTH across (deterministic)."""
    src = _sheet_path(name)
    if not src.exists():
        raise DeckError(f"deck {name!r}: {src} is missing (apt-get install gnome-cards-data)")
    if shutil.which("rsvg-convert") is None:
        raise DeckError("rsvg-convert is missing (apt-get install librsvg2-bin)")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "sheet.png"
        subprocess.run(
            ["rsvg-convert", "-w", str(13 * CARD_WIDTH), str(src), "-o", str(out)],
            check=True,
            capture_output=True,
        )
        sheet = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    if sheet is None or sheet.ndim != 3 or sheet.shape[2] != 4:
        raise DeckError(f"deck {name!r}: rsvg-convert gave no RGBA image")
    return sheet


def cut_sheet(sheet: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Faces by card id and the back, all cropped to one common card rectangle."""
    h, w = sheet.shape[:2]
    xs = [round(i * w / 13) for i in range(14)]
    ys = [round(j * h / 5) for j in range(6)]
    cw, ch = min(np.diff(xs)), min(np.diff(ys))
    cells: dict[str, np.ndarray] = {}
    for row, suit in enumerate(_SUIT_ROWS):
        for col, rank in enumerate(_RANK_COLS):
            cells[rank + suit] = sheet[ys[row] : ys[row] + ch, xs[col] : xs[col] + cw]
    cells["BJ"] = sheet[ys[4] : ys[4] + ch, xs[0] : xs[0] + cw]
    cells["RJ"] = sheet[ys[4] : ys[4] + ch, xs[1] : xs[1] + cw]
    cells["back"] = sheet[ys[4] : ys[4] + ch, xs[2] : xs[2] + cw]
    # One rectangle for all cells: the union of where any card is opaque.
    opaque = np.zeros((ch, cw), bool)
    for cell in cells.values():
        opaque |= cell[..., 3] > 128
    rows, cols = np.flatnonzero(opaque.any(1)), np.flatnonzero(opaque.any(0))
    y1, y2, x1, x2 = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
    crop = {k: np.ascontiguousarray(v[y1:y2, x1:x2]) for k, v in cells.items()}
    back = crop.pop("back")
    return crop, back


def _paper_colour(faces: dict[str, np.ndarray]) -> np.ndarray:
    """Median colour of low-pip cards: mostly paper, whatever the deck's tint."""
    samples = []
    for card in ("2s", "3h", "4d", "2c"):
        f = faces[card]
        samples.append(f[..., :3][f[..., 3] > 250])
    return np.median(np.concatenate(samples), axis=0)


def _turn(box: Box, w: int, h: int) -> Box:
    x1, y1, x2, y2 = box
    return (w - x2, h - y2, w - x1, h - y1)


def build_deck(name: str) -> Deck:
    """Render and locate from scratch (slow: about a second); :func:`load_deck` caches."""
    faces, back = cut_sheet(render_sheet(name))
    paper = _paper_colour(faces)
    h, w = back.shape[:2]
    turned = {c: np.ascontiguousarray(f[::-1, ::-1]) for c, f in faces.items()}
    found: dict[str, list[Box | None]] = {}
    for card in CARD_IDS:
        joker = card in JOKERS
        found[card] = [locate_index(faces[card], paper, joker=joker), locate_index(turned[card], paper, joker=joker)]
    # Number cards fix where this deck prints its index; a court card whose letter runs
    # into the picture or a big pip is cut from that window instead.
    numbers = [b for c in CARD_IDS if c[:-1] in "2 3 4 5 6 7 8 9 10".split() for b in found[c] if b]
    if len(numbers) < 30:
        raise DeckError(f"deck {name!r}: corner indices not found on most number cards")
    window = tuple(int(v) for v in np.median(np.array(numbers), axis=0))
    boxes: dict[str, tuple[Box, Box]] = {}
    for card in CARD_IDS:
        pair = []
        for side, box in enumerate(found[card]):
            face = faces[card] if side == 0 else turned[card]
            if card not in JOKERS:
                box = fit_to_window(face, paper, box, window)
            if box is None:
                raise DeckError(f"deck {name!r}: no corner index found on {card}")
            pair.append(box)
        boxes[card] = (pair[0], _turn(pair[1], w, h))
    return Deck(name, faces, back, boxes)


def _cache_dir(name: str) -> Path:
    return Path(os.environ.get("DDZ_CARD_CACHE", CACHE_DIR)) / name


def save_deck(deck: Deck, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    stack = np.stack([deck.faces[c] for c in CARD_IDS] + [deck.back])
    tmp = folder / "faces.tmp.npy"
    np.save(tmp, stack)
    tmp.replace(folder / "faces.npy")
    meta = {"version": CACHE_VERSION, "boxes": {c: [list(b) for b in deck.boxes[c]] for c in CARD_IDS}}
    (folder / "boxes.json").write_text(json.dumps(meta, indent=1))


def load_deck(name: str, *, refresh: bool = False) -> Deck:
    """The deck's faces, back and index boxes; rendered on first use, then cached on disk."""
    if name not in DECKS:
        raise DeckError(f"unknown deck {name!r}; known: {', '.join(DECKS)}")
    folder = _cache_dir(name)
    meta_path, faces_path = folder / "boxes.json", folder / "faces.npy"
    if not refresh and meta_path.exists() and faces_path.exists():
        try:
            meta = json.loads(meta_path.read_text())
            if meta.get("version") == CACHE_VERSION:
                stack = np.load(faces_path, mmap_mode="r")  # shared between worker processes
                faces = {c: stack[i] for i, c in enumerate(CARD_IDS)}
                boxes = {c: tuple(tuple(int(v) for v in b) for b in meta["boxes"][c]) for c in CARD_IDS}
                return Deck(name, faces, stack[-1], boxes)  # type: ignore[arg-type]
        except (OSError, ValueError, KeyError):
            pass  # a broken cache is rebuilt below
    deck = build_deck(name)
    save_deck(deck, folder)
    return deck
