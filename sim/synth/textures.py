"""Table surfaces: procedural felt, wood, cloth, paper, desk, and wallpaper photographs.

Every texture is a function of a numpy Generator and a size, so a seed fixes the table.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

PHOTO_DIR = Path("/usr/share/backgrounds")
_PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".svg")


def smooth_noise(rng: np.random.Generator, h: int, w: int, cell: float) -> np.ndarray:
    """Zero-mean, unit-ish noise with features about ``cell`` pixels wide."""
    gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
    grid = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)


def _colour(rng: np.random.Generator, base: tuple[int, int, int], spread: float) -> np.ndarray:
    return np.clip(np.array(base, np.float32) + rng.normal(0, spread, 3), 0, 255)


def felt(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    bases = [(40, 110, 30), (35, 90, 20), (110, 60, 20), (40, 40, 130), (30, 30, 30), (60, 50, 90)]
    base = _colour(rng, bases[rng.integers(len(bases))], 18)
    grain: np.ndarray = rng.normal(0, 1, (h, w)).astype(np.float32)
    grain = cv2.GaussianBlur(grain, (0, 0), 0.7)
    mottled = smooth_noise(rng, h, w, rng.uniform(20, 90))
    shade = 1 + 0.05 * mottled[..., None] + 0.06 * grain[..., None]
    return np.clip(base * shade, 0, 255)


def wood(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Planks: long fibre streaks and wavy growth rings along the grain, seams between planks."""
    bases = [(40, 80, 140), (30, 60, 100), (60, 110, 170), (20, 35, 60), (90, 140, 190), (70, 90, 110)]
    base = _colour(rng, bases[rng.integers(len(bases))], 15)
    d = int(np.ceil(np.hypot(h, w))) + 2
    # Drawn with the grain along x, then turned.
    fibre = cv2.resize(rng.normal(0, 1, (max(2, d // 2), max(2, d // 60))).astype(np.float32), (d, d))
    fibre = cv2.GaussianBlur(fibre, (0, 0), 0.6)
    yy = np.mgrid[0:d, 0:d][0].astype(np.float32)
    wobble = smooth_noise(rng, d, d, rng.uniform(80, 250)) * rng.uniform(6, 30)
    rings = np.sin((yy + wobble) * rng.uniform(0.08, 0.3))
    rings = np.sign(rings) * np.abs(rings) ** 0.5  # sharper latewood lines
    shade = 1 + 0.07 * rings + 0.06 * fibre
    period = rng.uniform(50, 220)
    plank = np.floor(yy / period)
    tint = rng.normal(0, 0.06, int(d / period) + 2)[plank.astype(int)]
    shade *= 1 + tint
    if rng.random() < 0.7:
        seam = (np.mod(yy, period) < 1.2).astype(np.float32)
        shade *= 1 - 0.4 * cv2.GaussianBlur(seam, (0, 0), 0.7)
    turn: np.ndarray = cv2.getRotationMatrix2D((d / 2, d / 2), rng.uniform(0, 180), 1.0)
    turn[:, 2] -= ((d - w) / 2, (d - h) / 2)
    shade = cv2.warpAffine(shade, turn, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    return np.clip(base * shade[..., None], 0, 255)


def cloth(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Woven cloth, sometimes checked or striped like a tablecloth."""
    a = _colour(rng, tuple(rng.integers(30, 230, 3)), 10)
    b = _colour(rng, tuple(rng.integers(30, 230, 3)), 10)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, np.pi)
    u = xx * np.cos(angle) + yy * np.sin(angle)
    v = -xx * np.sin(angle) + yy * np.cos(angle)
    weave_p = rng.uniform(2.0, 4.0)
    weave = 0.5 + 0.5 * np.sin(2 * np.pi * u / weave_p) * np.sin(2 * np.pi * v / weave_p)
    kind = rng.integers(3)
    if kind == 0:
        mix = np.zeros((h, w), np.float32)
    else:
        p = rng.uniform(15, 70)
        mix = ((np.mod(u, p) < p / 2) ^ (np.mod(v, p) < p / 2)) if kind == 1 else (np.mod(u, p) < p / 3)
        mix = cv2.GaussianBlur(mix.astype(np.float32), (0, 0), 0.8)
    img = a * (1 - mix[..., None]) + b * mix[..., None]
    return np.clip(img * (0.9 + 0.12 * weave[..., None]), 0, 255)


def paper(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    base = _colour(rng, (200, 215, 225), 20)
    fibres = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 1.5)
    blotch = smooth_noise(rng, h, w, rng.uniform(40, 150))
    return np.clip(base * (1 + 0.03 * fibres + 0.04 * blotch)[..., None], 0, 255)


def desk(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Laminate, stone or plastic: a flat colour with faint speckle."""
    base = _colour(rng, tuple(rng.integers(20, 240, 3)), 5)
    speckle: np.ndarray = rng.normal(0, 1, (h, w)).astype(np.float32)
    speckle = cv2.GaussianBlur(speckle, (0, 0), rng.uniform(0.5, 2.0))
    blotch = smooth_noise(rng, h, w, rng.uniform(50, 200))
    return np.clip(base * (1 + 0.04 * speckle + 0.03 * blotch)[..., None], 0, 255)


@lru_cache(maxsize=1)
def photo_paths() -> tuple[Path, ...]:
    if not PHOTO_DIR.is_dir():
        return ()
    return tuple(sorted(p for p in PHOTO_DIR.rglob("*") if p.suffix.lower() in _PHOTO_SUFFIXES))


def _photo_cache(path: Path) -> Path:
    from sim.synth.decks import CACHE_DIR  # the card cache folder, git-ignored

    return CACHE_DIR / "_tables" / (path.stem + ".png")


@lru_cache(maxsize=64)
def _load_photo(path: Path) -> np.ndarray | None:
    """The wallpaper at 1024 px, decoded once and kept as PNG (big WebPs decode slowly)."""
    cached = _photo_cache(path)
    if cached.exists():
        return cv2.imread(str(cached), cv2.IMREAD_COLOR)
    img = _decode_photo(path)
    if img is not None:
        from sim.synth.decks import write_atomically

        write_atomically(cached, lambda tmp: _write_png(tmp, img))
    return img


def _write_png(path: Path, img: np.ndarray) -> None:
    if not cv2.imwrite(str(path), img):
        raise OSError(f"could not write {path}")


def preload_photos() -> int:
    """Decode every wallpaper now (before worker processes fork, so they share them)."""
    return sum(_load_photo(p) is not None for p in photo_paths())


def _decode_photo(path: Path) -> np.ndarray | None:
    if path.suffix.lower() == ".svg":
        if shutil.which("rsvg-convert") is None:
            return None
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "bg.png"
            done = subprocess.run(["rsvg-convert", "-w", "1024", str(path), "-o", str(out)], capture_output=True)
            img = cv2.imread(str(out), cv2.IMREAD_COLOR) if done.returncode == 0 else None
    else:
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        return None
    scale = 1024 / max(img.shape[:2])
    if scale < 1:
        img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return img


def photo(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    paths = photo_paths()
    img = _load_photo(paths[rng.integers(len(paths))]) if paths else None
    if img is None:
        return felt(rng, h, w)
    # A random crop at a random zoom, so one wallpaper gives many tables.
    zoom = rng.uniform(1.0, 2.5) * max(h / img.shape[0], w / img.shape[1])
    big = cv2.resize(img, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_LINEAR)
    y = rng.integers(0, big.shape[0] - h + 1)
    x = rng.integers(0, big.shape[1] - w + 1)
    return big[y : y + h, x : x + w].astype(np.float32)


KINDS = {"felt": felt, "wood": wood, "cloth": cloth, "paper": paper, "desk": desk, "photo": photo}
_WEIGHTS = {"felt": 0.24, "wood": 0.22, "cloth": 0.16, "paper": 0.08, "desk": 0.18, "photo": 0.12}


def table_surface(rng: np.random.Generator, h: int, w: int, kind: str | None = None) -> np.ndarray:
    """A float32 BGR table of the given kind (chosen at random when None)."""
    if kind is None:
        names = list(_WEIGHTS)
        kind = names[rng.choice(len(names), p=np.array(list(_WEIGHTS.values())) / sum(_WEIGHTS.values()))]
    if kind not in KINDS:
        raise ValueError(f"unknown table surface {kind!r}; known: {', '.join(KINDS)}")
    return KINDS[kind](rng, h, w).astype(np.float32)
