"""Card decks for synthetic tables: faces, back and corner index boxes, cached on disk.

Art comes from Debian's ``gnome-cards-data`` and ``kdegames-card-data-kf5`` (see
:mod:`sim.synth.art`). Only decks with Anglo-American indices (A K Q J 10 ... 2, the
ones Chinese club decks use) are kept; ``datasets/README.md`` lists the ones dropped and
why. Each card's corner index (rank glyph + small suit under it) is found automatically
by :mod:`sim.synth.locate`; faces and boxes are cached under ``datasets/cards/<deck>/``.

>>> deck = load_deck("anglo")              # doctest: +SKIP
>>> deck.faces["10h"].shape, deck.boxes["10h"][0]   # doctest: +SKIP
((364, 256, 4), (9, 11, 40, 84))
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.synth import art, procedural
from sim.synth.locate import Box, fit_to_window, locate_index
from vision.cards import CARD_IDS, JOKERS

SHEET_DIR = art.GNOME_DIR
REPO_ROOT = Path(__file__).resolve().parents[2]
CACHE_DIR = REPO_ROOT / "datasets" / "cards"
#: Bump when rendering or locating changes, so stale caches are rebuilt.
CACHE_VERSION = 6

#: Kept gnome-cards-data decks: Anglo-American indices and both jokers.
GNOME_DECKS: tuple[str, ...] = (
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
#: Kept kdegames decks (name -> folder under /usr/share/carddecks). Only nicu-white has
#: jokers; the others add their 52 cards to training scenes ("partial" decks).
KDE_DECKS: dict[str, str] = {
    "kde_ancient_egyptians": "svg-ancient-egyptians",
    "kde_gm_paris": "svg-gm-paris",
    "kde_jolly_royal": "svg-jolly-royal",
    "kde_nicu_white": "svg-nicu-white",
    "kde_penguins": "svg-penguins",
    "kde_standard": "svg-standard",
}
DECKS: tuple[str, ...] = GNOME_DECKS + tuple(KDE_DECKS)

#: Never used for training scenes; they make the ``test_unseen`` split. Mixed in style:
#: Russian satin (atlasnye), cream paper with engraved art (orell), bold modern (plastic),
#: Italian (tigullio). None has a near-twin left in training (kdegames'
#: tigullio-international is not used for that reason).
HELD_OUT_DECKS: tuple[str, ...] = ("atlasnye", "orell", "plastic", "tigullio")


class DeckError(ValueError):
    """A deck that is unknown, missing on this machine, or whose art cannot be used."""


@dataclass(frozen=True)
class Deck:
    """One deck's art in face pixels.

    ``faces`` maps card id to a BGRA image (alpha 0 outside the rounded card): all 54
    cards, except partial decks, which lack the jokers (``is_partial``);
    ``boxes`` maps card id to its two corner index boxes ``(x1, y1, x2, y2)``:
    top-left first, then bottom-right (the 180 degree turn of the first).
    """

    name: str
    faces: dict[str, np.ndarray]
    back: np.ndarray
    boxes: dict[str, tuple[Box, Box]]

    @property
    def is_partial(self) -> bool:
        return len(self.faces) < len(CARD_IDS)

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of every face."""
        h, w = self.back.shape[:2]
        return w, h


def _installed(name: str) -> bool:
    if name in KDE_DECKS:
        return art.kde_path(KDE_DECKS[name]) is not None
    return art.gnome_path(name).exists()


def list_decks(partial: bool = False) -> list[str]:
    """Kept decks installed here. By default only full decks (all 54 cards); with
    ``partial`` also the kdegames decks that have no jokers."""
    full = [d for d in DECKS if d not in KDE_DECKS or d == "kde_nicu_white"]
    return [d for d in (DECKS if partial else full) if _installed(d)]


def training_decks(generated: int = 0) -> list[str]:
    """Every installed deck that is not held out, partial ones included, then ``generated``
    procedural decks (``proc_0`` ...)."""
    real = [d for d in list_decks(partial=True) if d not in HELD_OUT_DECKS]
    return real + [f"proc_{n}" for n in range(generated)]


def _paper_colour(faces: dict[str, np.ndarray]) -> np.ndarray:
    """Median colour of low-pip cards: mostly paper, whatever the deck's tint."""
    samples = []
    for card in ("2s", "3h", "4d", "2c"):
        f = faces[card]
        samples.append(f[..., :3][f[..., 3] > 250])
    return np.median(np.concatenate(samples), axis=0)


def _box(values: list[int]) -> Box:
    """A box as the cache's JSON lists it."""
    x1, y1, x2, y2 = (int(v) for v in values)
    return x1, y1, x2, y2


def _turn(box: Box, w: int, h: int) -> Box:
    x1, y1, x2, y2 = box
    return (w - x2, h - y2, w - x1, h - y1)


def build_deck(name: str) -> Deck:
    """Render and locate from scratch (seconds); :func:`load_deck` caches."""
    try:
        faces = art.render_kde(KDE_DECKS[name]) if name in KDE_DECKS else art.render_gnome(name)
    except art.ArtError as exc:
        raise DeckError(str(exc)) from exc
    back = faces.pop("back")
    paper = _paper_colour(faces)
    h, w = back.shape[:2]
    turned = {c: np.ascontiguousarray(f[::-1, ::-1]) for c, f in faces.items()}
    found: dict[str, list[Box | None]] = {}
    for card in faces:
        joker = card in JOKERS
        found[card] = [locate_index(faces[card], paper, joker=joker), locate_index(turned[card], paper, joker=joker)]
    # Number cards fix where this deck prints its index; a court card whose letter runs
    # into the picture or a big pip is cut from that window instead.
    numbers = [b for c in faces if c[:-1] in "2 3 4 5 6 7 8 9 10".split() for b in found[c] if b]
    if len(numbers) < 30:
        raise DeckError(f"deck {name!r}: corner indices not found on most number cards")
    x1, y1, x2, y2 = (int(v) for v in np.median(np.array(numbers), axis=0))
    window = (x1, y1, x2, y2)
    boxes: dict[str, tuple[Box, Box]] = {}
    for card in faces:
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


def write_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """Have ``write(tmp)`` fill a temporary file beside ``path``, then rename it into place.

    A reader never sees half a file, and each writer has a temporary file of its own, so
    processes caching the same file at once (dataset workers, a test beside a running build)
    do not rename one another's away.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=path.suffix)
    os.close(fd)
    tmp = Path(name)
    try:
        write(tmp)
        tmp.chmod(0o644)  # mkstemp makes it private; a cache file is for every user
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def save_deck(deck: Deck, folder: Path, version: int | str = CACHE_VERSION) -> None:
    cards = [c for c in CARD_IDS if c in deck.faces]
    stack = np.stack([deck.faces[c] for c in cards] + [deck.back])
    write_atomically(folder / "faces.npy", lambda tmp: np.save(tmp, stack))
    meta = {"version": version, "cards": cards, "boxes": {c: [list(b) for b in deck.boxes[c]] for c in cards}}
    write_atomically(folder / "boxes.json", lambda tmp: tmp.write_text(json.dumps(meta, indent=1)))


def load_deck(name: str, *, refresh: bool = False) -> Deck:
    """The deck's faces, back and index boxes; rendered on first use, then cached on disk.

    ``proc_<n>`` names a procedural deck (:mod:`sim.synth.procedural`)."""
    generated = procedural.is_procedural(name)
    if name not in DECKS and not generated:
        raise DeckError(f"unknown deck {name!r}; known: {', '.join(DECKS)}, or proc_<n>")
    version = f"{CACHE_VERSION}.{procedural.DESIGN_VERSION}" if generated else CACHE_VERSION
    folder = _cache_dir(name)
    meta_path, faces_path = folder / "boxes.json", folder / "faces.npy"
    if not refresh and meta_path.exists() and faces_path.exists():
        try:
            meta = json.loads(meta_path.read_text())
            if meta.get("version") == version:
                stack = np.load(faces_path, mmap_mode="r")  # shared between worker processes
                faces = {c: stack[i] for i, c in enumerate(meta["cards"])}
                boxes = {c: (_box(meta["boxes"][c][0]), _box(meta["boxes"][c][1])) for c in meta["cards"]}
                return Deck(name, faces, stack[-1], boxes)
        except (OSError, ValueError, KeyError):
            pass  # a broken cache is rebuilt below
    deck = procedural.build_procedural(int(name[5:])) if generated else build_deck(name)
    save_deck(deck, folder, version)
    return deck
