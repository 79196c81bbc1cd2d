"""The pip classifier behind :mod:`vision.face_suit`: data cut from rendered card faces, a tiny
CNN, training and export to ``models/pips.onnx``.

Data: each sample is one card face of a training deck (the Debian decks not held out, and
procedural decks, :mod:`sim.synth.procedural`), drawn as a camera would see it on a table:
at an index height drawn log-uniformly over the scenes' range (``vision.settings.INDEX_PX``),
at any angle, a little squashed (a tilted camera), tinted like the scenes' cards, on a table
surface, then through the scenes' camera chain (:func:`sim.synth.effects.camera`) or a random
chain of the named degradations (:mod:`sim.synth.degrade`). The two corner boxes are the
index boxes' outlines there, jittered as the finder's boxes are. The blobs are then found
exactly as at run time (:func:`vision.face_suit.find_pips`) and cut as it cuts them:

- on a number card (A, 2-10) every blob is labelled with the card's suit (pips, now and then
  a pip and the index's small suit run together: the same suit);
- on a joker every blob is "not a pip" (``none``), and so is every blob of the mirror image
  of the face region (:class:`vision.face_suit.FaceRegion`, ``side=-1``) whose centre lies off
  the card: the table, its patterns, the card's edge;
- on a court card (J, Q, K) a few blobs, drawn at random, are "not a pip" too: most are pieces
  of the figure, which must not read as a suit. Now and then one is the suit mark beside the
  figure, a pip like any other; thousands of number-card pips of the same shape outweigh it,
  and such a blob is left with no sure class rather than a wrong suit (tried otherwise: with
  court cards left out, held-out court faces gave a suit for 2 in 3 cards, a third of them wrong).

Held-out decks (``sim.synth.decks.HELD_OUT_DECKS``) are never drawn for training:
:func:`training_set` refuses them. :func:`held_out_set` cuts the same kind of crops from them,
for the tests.

Training (torch, the ``train`` extra; CPU, one thread is enough)::

    ddz-table train pips --cards 18000 --epochs 12 --threads 1   # -> runs/pips/pips.onnx (+ weights/best.pt)
    cp runs/pips/pips.onnx models/pips.onnx
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import cv2
import numpy as np

from sim.synth import effects
from sim.synth.decks import HELD_OUT_DECKS, Deck, load_deck, training_decks
from sim.synth.degrade import apply_chain, random_chain
from sim.synth.layout import CardPose
from sim.synth.scene import card_affine, place_card, scaled_art, tint
from sim.synth.textures import table_surface
from vision.cards import JOKERS, SUITS
from vision.face_suit import NOT_A_PIP, find_pips, inside_polygon, pip_crops
from vision.settings import INDEX_PX

#: The classifier's classes, in its output order.
CLASSES: tuple[str, ...] = (*SUITS, NOT_A_PIP)
NONE = CLASSES.index(NOT_A_PIP)
#: Crop side (px): a pip is 8-40 px on a table photo; 32 keeps its lobes and stem.
IMGSZ = 32
#: Ranks whose faces show pips of their suit (an ace one large pip).
NUMBER_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")
#: Procedural decks drawn by default: every fourth of the first 720, and all from 720 to 980,
#: which draw the wider range of suit shapes (``procedural.SUIT_DECKS_FROM``: squat fat-lobed
#: clubs like plastic's, open thin-stemmed ones): with every fourth of the first 800 only, the
#: classifier read plastic's clubs as spades half the time.
PROCEDURAL = tuple(range(0, 720, 4)) + tuple(range(720, 980))
#: Share of samples drawn from a procedural deck (the rest from the Debian training decks).
PROCEDURAL_SHARE = 0.6
#: Share of samples whose camera is the scenes' own chain (the rest a random degradation chain).
SCENE_CAMERA = 0.5
#: Share of samples that are jokers (every blob "none").
JOKER_SHARE = 0.06
#: A court card gives at most this many "not a pip" blobs.
COURT_NONE = 3


def render_card(rng: np.random.Generator, deck: Deck, card: str,
                index_px: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One card face up on a table patch, at any angle, its indices ``index_px`` tall.

    Returns the BGR float32 image, the two corner boxes as a finder gives them (the index
    outlines' bounding boxes, each side jittered by up to about a tenth of the box) and the
    card's outline (4, 2)."""
    fw, fh = deck.size
    index_h = float(np.median([b[0][3] - b[0][1] for b in deck.boxes.values()]))
    scale = index_px / index_h
    side = int(math.ceil(math.hypot(fw, fh) * scale * 1.35)) + 8
    canvas = table_surface(rng, side, side)
    pose = CardPose(card, 0, True, (side / 2, side / 2), float(rng.uniform(0, 2 * np.pi)), scale)
    m = card_affine(pose, fw, fh)
    # A tilted camera squashes the card along some direction.
    squash = float(rng.uniform(0.85, 1.15))
    turn = float(rng.uniform(0, np.pi))
    c, s = np.cos(turn), np.sin(turn)
    rot = np.array([[c, -s], [s, c]])
    warp = rot @ np.diag([1.0, squash]) @ rot.T
    m = np.column_stack([warp @ m[:, :2], warp @ (m[:, 2] - side / 2) + side / 2])
    art, f = scaled_art(deck.faces[card], scale)
    art = tint(rng, art)
    m_art = m.copy()
    m_art[:, :2] /= f
    shadow = (int(rng.integers(-2, 3)), int(rng.integers(-2, 3)), float(rng.uniform(0.15, 0.5)),
              float(rng.uniform(0.8, 2.5)))
    place_card(canvas, np.zeros((side, side), np.int16), art, m_art, 1, shadow)
    boxes = []
    for x1, y1, x2, y2 in deck.boxes[card]:
        quad = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], float) @ m[:, :2].T + m[:, 2]
        box = np.concatenate([quad.min(axis=0), quad.max(axis=0)])
        size = box[2:] - box[:2]
        box = box + rng.normal(0, 0.05, 4) * np.tile(size, 2)
        box[2:] = np.maximum(box[2:], box[:2] + 2)
        boxes.append(box)
    outline = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], float) @ m[:, :2].T + m[:, 2]
    return canvas, np.array(boxes), outline


def camera(rng: np.random.Generator, image: np.ndarray, index_px: float) -> np.ndarray:
    """A float32 BGR patch as a camera gives it (uint8): the scenes' chain or a degradation chain."""
    if rng.random() < SCENE_CAMERA:
        return effects.camera(rng, image, index_px)
    out = np.clip(image, 0, 255).astype(np.uint8)
    return apply_chain(out, random_chain(rng, p=0.35), rng)


def card_crops(rng: np.random.Generator, deck: Deck, card: str, index_px: float,
               size: int = IMGSZ) -> tuple[np.ndarray, np.ndarray]:
    """The classifier's crops of one rendered card and their labels (class indices of
    :data:`CLASSES`); see the module's notes for which blobs get which label."""
    image, boxes, outline = render_card(rng, deck, card, index_px)
    image = camera(rng, image, index_px)
    crops, labels = [], []
    rank = card[:-1]
    pips = find_pips(image, boxes[0], boxes[1])
    if card not in JOKERS and rank not in NUMBER_RANKS and len(pips) > COURT_NONE:
        pips = pips[np.sort(rng.choice(len(pips), COURT_NONE, replace=False))]
    label = CLASSES.index(card[-1]) if rank in NUMBER_RANKS else NONE
    crops.append(pip_crops(image, pips, size))
    labels += [label] * len(pips)
    off = find_pips(image, boxes[0], boxes[1], side=-1)
    if len(off):
        off = off[~inside_polygon((off[:, :2] + off[:, 2:]) / 2, outline)][:3]
        crops.append(pip_crops(image, off, size))
        labels += [NONE] * len(off)
    if not labels:
        return np.zeros((0, size, size, 3), np.uint8), np.zeros(0, np.int64)
    return np.concatenate(crops), np.array(labels, np.int64)


def _draw_card(rng: np.random.Generator, deck: Deck) -> str:
    jokers = [c for c in JOKERS if c in deck.faces]
    if jokers and rng.random() < JOKER_SHARE:
        return jokers[int(rng.integers(len(jokers)))]
    cards = [c for c in deck.faces if c not in JOKERS]
    return cards[int(rng.integers(len(cards)))]


def crops_from(decks: list[str], samples: int, seed: int, size: int = IMGSZ,
               weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Crops and labels of ``samples`` rendered cards, each from one of ``decks`` (drawn with
    ``weights``), byte-identical under ``seed``."""
    if not decks:
        raise ValueError("crops_from needs at least one deck")
    rng = np.random.default_rng(seed)
    loaded: dict[str, Deck] = {}
    xs, ys = [], []
    lo, hi = np.log(INDEX_PX)
    for _ in range(samples):
        name = decks[int(rng.choice(len(decks), p=weights))]
        if name not in loaded:
            loaded[name] = load_deck(name)
        deck = loaded[name]
        x, y = card_crops(rng, deck, _draw_card(rng, deck), float(np.exp(rng.uniform(lo, hi))), size)
        xs.append(x)
        ys.append(y)
    return np.concatenate(xs), np.concatenate(ys)


def training_set(samples: int, seed: int = 0, procedural: tuple[int, ...] = PROCEDURAL,
                 size: int = IMGSZ, decks: list[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Crops and labels cut from ``samples`` rendered cards of the training decks (the Debian
    decks not held out, and the ``procedural`` decks ``proc_<n>``), byte-identical under
    ``seed``. ``decks`` names the decks instead (never a held-out one)."""
    if decks is None:
        real = training_decks(0)
        names = real + [f"proc_{n}" for n in procedural]
        share = PROCEDURAL_SHARE if procedural else 0.0
        weights = np.array([(1 - share) / len(real)] * len(real) + [share / max(len(procedural), 1)] * len(procedural))
    else:
        names, weights = list(decks), None
    held = sorted(set(names) & set(HELD_OUT_DECKS))
    if held:
        raise ValueError(f"held-out decks are never trained on: {', '.join(held)}")
    return crops_from(names, samples, seed, size, weights)


def held_out_set(samples: int, seed: int = 1, size: int = IMGSZ) -> tuple[np.ndarray, np.ndarray]:
    """The same kind of crops cut from ``samples`` rendered cards of the held-out decks."""
    return crops_from(list(HELD_OUT_DECKS), samples, seed, size)


# -- the network (torch from here on) ------------------------------------------------------
def build_net(classes: int = len(CLASSES), width: int = 12):
    """A tiny CNN: 32 px BGR->RGB crop, four 3x3 convolutions at three grids (32, 16, 8, 4 px),
    global average pooling, one linear layer: about 39 thousand weights (160 kB as ONNX)."""
    from torch import nn

    def conv(c_in: int, c_out: int, stride: int = 1):
        return nn.Sequential(nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False), nn.BatchNorm2d(c_out), nn.SiLU())

    w = width
    return nn.Sequential(conv(3, w), conv(w, 2 * w, 2), conv(2 * w, 2 * w), conv(2 * w, 4 * w, 2),
                         conv(4 * w, 4 * w, 2), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1),
                         nn.Linear(4 * w, classes))


def augment(batch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Free variety on top of the rendering's: quarter-turns, mirror images (every suit is
    symmetric about its stem), a little rotation and scale, brightness and contrast."""
    n, s = batch.shape[:2]
    out = np.empty_like(batch)
    for i in range(n):
        img = np.rot90(batch[i], int(rng.integers(4)))
        if rng.random() < 0.5:
            img = img[:, ::-1]
        m: np.ndarray = cv2.getRotationMatrix2D((s / 2, s / 2), float(rng.normal(0, 8)), float(np.exp(rng.normal(0, 0.08))))
        m[:, 2] += rng.normal(0, 0.03 * s, 2)
        out[i] = cv2.warpAffine(np.ascontiguousarray(img), m, (s, s), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    x = out.astype(np.float32) * rng.uniform(0.75, 1.25, (n, 1, 1, 1)) + rng.uniform(-20, 20, (n, 1, 1, 1))
    return np.clip(x, 0, 255).astype(np.uint8)


def to_tensor(batch: np.ndarray):
    import torch

    return torch.from_numpy(np.ascontiguousarray(batch[..., ::-1].transpose(0, 3, 1, 2))).float() / 255.0


def accuracy(predict, images: np.ndarray, labels: np.ndarray, batch: int = 512) -> dict[str, float]:
    """Top-1 accuracy of ``predict`` (BGR crops -> probabilities) over all crops, over the pips
    (suits only, "none" left out) and the share of clubs read as spades."""
    probs = np.concatenate([predict(images[i:i + batch]) for i in range(0, len(images), batch)]) if len(images) \
        else np.zeros((0, len(CLASSES)))
    top = probs.argmax(axis=1)
    pips = labels != NONE
    clubs = labels == CLASSES.index("c")
    return {"top1": float((top == labels).mean()) if len(labels) else float("nan"),
            "pips_top1": float((top[pips] == labels[pips]).mean()) if pips.any() else float("nan"),
            "club_as_spade": float((top[clubs] == CLASSES.index("s")).mean()) if clubs.any() else float("nan"),
            "crops": int(len(labels))}


def train_pips(out_dir: str | Path = "runs/pips", samples: int = 18000, val_samples: int = 1500, epochs: int = 12,
               batch: int = 128, lr: float = 3e-3, seed: int = 0, threads: int | None = 1,
               procedural: tuple[int, ...] = PROCEDURAL, log=print) -> Path:
    """Render the training crops (``samples`` cards; validation on ``val_samples`` other cards of
    the same decks), train, keep the epoch best on validation and export it; returns the ONNX
    file ``out_dir/pips.onnx`` (the checkpoint is ``out_dir/weights/best.pt``)."""
    import torch

    if samples < 1 or val_samples < 1 or epochs < 1:
        raise ValueError("samples, val_samples and epochs must be at least 1")
    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(seed)
    out_dir = Path(out_dir)
    (out_dir / "weights").mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    train_x, train_y = training_set(samples, seed, procedural)
    val_x, val_y = training_set(val_samples, seed + 10_000, procedural)
    counts = {c: int((train_y == i).sum()) for i, c in enumerate(CLASSES)}
    log(f"pips: {len(train_x)} train crops {counts} / {len(val_x)} val, rendered in {time.time() - t0:.0f} s")
    model = build_net()
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
    steps = math.ceil(len(train_x) / batch)
    total = epochs * steps
    rng = np.random.default_rng(seed)
    best, best_path = -1.0, out_dir / "weights" / "best.pt"

    def predict(x: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return model(to_tensor(x)).softmax(1).numpy()

    for epoch in range(epochs):
        model.train()
        order = rng.permutation(len(train_x))
        started, running = time.time(), 0.0
        for k in range(steps):
            step = epoch * steps + k
            for group in optimiser.param_groups:  # cosine to 5 %
                group["lr"] = lr * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * step / total)))
            idx = order[k * batch:(k + 1) * batch]
            loss = torch.nn.functional.cross_entropy(model(to_tensor(augment(train_x[idx], rng))),
                                                     torch.from_numpy(train_y[idx]), label_smoothing=0.05)
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            optimiser.step()
            running += loss.item()
        model.eval()
        scores = accuracy(predict, val_x, val_y)
        log(f"epoch {epoch + 1}/{epochs} loss {running / steps:.4f} val top1 {scores['top1']:.4f} "
            f"pips {scores['pips_top1']:.4f} club->spade {scores['club_as_spade']:.4f} ({time.time() - started:.0f} s)")
        with open(out_dir / "results.jsonl", "a") as f:
            f.write(json.dumps({"epoch": epoch + 1, "loss": round(running / steps, 4), **scores}) + "\n")
        if scores["top1"] > best:
            best = scores["top1"]
            torch.save({"model": model.state_dict(), "classes": CLASSES, "imgsz": IMGSZ, "epoch": epoch + 1,
                        "samples": samples, "seed": seed}, best_path)
    return export_pips(best_path, out_dir / "pips.onnx")


def export_pips(weights: str | Path, target: str | Path) -> Path:
    """A checkpoint of :func:`train_pips` as ONNX: dynamic batch, softmax output, its classes
    and input size in the metadata (``names``, ``imgsz``), as :class:`vision.face_suit.FaceSuitReader` reads them."""
    import torch

    from sim.training.reader_net import export_classifier

    ckpt = torch.load(weights, map_location="cpu", weights_only=False)
    model = torch.nn.Sequential(build_net(len(ckpt["classes"])), torch.nn.Softmax(dim=1))
    model[0].load_state_dict(ckpt["model"])
    model.eval()
    return export_classifier(model, ckpt["imgsz"], ckpt["classes"], target,
                             "ddz-table pip classifier (sim.training.pips)")
