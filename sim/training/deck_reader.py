"""A club's own deck taught to the reader itself: fine-tune a copy of the shipped reader on the
deck's labelled index crops (``ddz-table enroll``, the deck page's walk-through).

A deck profile's prototypes and bias (:mod:`vision.profile`) only move the reader's scores; a
reader sure of the wrong suit stays wrong. Fitting the reader's weights on the deck itself does
not have that limit. :func:`tune_reader`:

1. cuts the reader's crops (:func:`vision.boxes.crop_squares`, the runtime's recipe) from every
   labelled corner in every view of :data:`vision.profile.VIEWS` (turned, smaller, blurred,
   noisier: what a table camera does to a photo of the deck laid out), each box once as
   labelled and once jittered as the finder draws it;
2. holds out a share of the corners (whole photos where there are enough, else single corners;
   every view of a held-out corner goes with it) and fine-tunes all layers of ``models/reader.pt``
   on the rest, batch-norm statistics frozen (a few hundred crops of one deck would drag them
   to that deck), with the training augmentation (:func:`sim.training.reader_net.augment`) and
   the camera degradations of :mod:`sim.synth.degrade`;
3. keeps what the reader did on boxes that are no labelled corner (the finder's other boxes on the
   same photos: court art, big pips, the corners a folder left unlabelled): their target is the
   base reader's own output, so enrollment does not teach it to call them cards;
4. reads the held-out corners as photographed with the base reader and the tuned one, refuses
   (:class:`EnrollRefused`) a tuned reader that reads them worse, and otherwise returns a
   :class:`vision.profile.DeckProfile` carrying the tuned reader (ONNX bytes). The profile's
   prototypes and bias are fitted on the tuned reader's outputs and kept switched on only where
   they read the held-out corners better still.

About a minute for a 54-card deck on 2 CPU cores (``bench/enroll.py``). Needs torch (the train
extra).
"""

from __future__ import annotations

import math
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from models import MODELS_DIR
from sim.synth.crops import jittered_boxes
from sim.synth.degrade import apply_chain, random_chain
from sim.training.reader_net import (
    IndexReader,
    augment,
    export_classifier,
    freeze_norms,
    load_weights,
    to_tensor,
)
from vision.boxes import crop_squares, iou_matrix
from vision.cards import CARD_INDEX
from vision.profile import VIEWS, DeckProfile, ProfileError, enrollment_views, fit, labelled_samples
from vision.settings import PHOTO

#: The shipped reader's training checkpoint, the start of every deck's reader.
BASE_CHECKPOINT = MODELS_DIR / "reader.pt"
#: ``progress(fraction, zh, en)``: how far enrollment is (0-1) and what it is doing.
Progress = Callable[[float, str, str], None]


class EnrollRefused(ProfileError):
    """The tuned reader read the held-out corners worse than the base reader: nothing is saved."""


@dataclass(frozen=True)
class TuneSettings:
    """How a deck's reader is fine-tuned. ``epochs`` passes over the training crops (all views);
    ``held_out``: share of corners (or photos) kept out to judge the result; ``jitter``: the
    finder-like box shift and size change of the second crop of each box."""

    epochs: int = 8
    #: At most this many steps, whatever the number of crops: a folder of hundreds of photos
    #: trains as long as a few decks' worth would.
    max_steps: int = 600
    batch: int = 64
    lr: float = 1e-3
    weight_decay: float = 1e-4
    held_out: float = 0.2
    min_photos_to_split: int = 4
    jitter_shift: float = 0.07
    jitter_scale: float = 0.12
    degrade_p: float = 0.5
    keep_weight: float = 0.5
    keep_floor: float = 0.1
    #: torch's threads while it trains (None: as many as the machine has, the fastest on an idle
    #: box: 62 s against 93 s with one on this 2-core PC); restored afterwards.
    threads: int | None = None


@dataclass
class DeckCrops:
    """Crops (N, S, S, 3) BGR with their card class (the reader's column), the corner each
    comes from (``corner``: one number per labelled box of the input), whether it is the view as
    photographed and not jittered (``plain``), and the crops of the other boxes (``others``)."""

    crops: np.ndarray
    labels: np.ndarray
    corner: np.ndarray
    photo: np.ndarray
    plain: np.ndarray
    others: np.ndarray


def cut_crops(detector, samples: Sequence[tuple[np.ndarray, np.ndarray, Sequence[str]]], settings: TuneSettings,
              seed: int = 0, views: Sequence[tuple] = VIEWS) -> DeckCrops:
    """Every labelled corner of ``samples`` cut in every view, as plain and jittered crops, and
    the finder's boxes on no labelled corner of each photo (as photographed) as ``others``."""
    rng = np.random.default_rng(seed)
    classes = list(detector.reader_classes)
    size, pad = detector.read_size, detector.settings.reader_pad
    crops, labels, corner, photo, plain, others = [], [], [], [], [], []
    first = 0
    for k, image, boxes, cards in labelled_samples(samples):
        label = np.array([classes.index(c) for c in cards])
        ids = np.arange(first, first + len(boxes))
        first += len(boxes)
        for v, (view, moved) in enumerate(enrollment_views(image, boxes, seed + k, views)):
            for jitter in (False, True):
                use = jittered_boxes(moved, rng, settings.jitter_shift, settings.jitter_scale) if jitter else moved
                crops.append(crop_squares(view, use, size, pad))
                labels.append(label)
                corner.append(ids)
                photo.append(np.full(len(ids), k))
                plain.append(np.full(len(ids), v == 0 and not jitter))
        found, _, _ = detector.find(image, settings.keep_floor)
        if len(found):
            off = iou_matrix(found, boxes).max(axis=1) < 0.1
            if off.any():
                others.append(crop_squares(image, found[off], size, pad))
    if not crops:
        raise ProfileError("no labelled index to enroll")
    return DeckCrops(np.concatenate(crops), np.concatenate(labels), np.concatenate(corner),
                     np.concatenate(photo), np.concatenate(plain),
                     np.concatenate(others) if others else np.zeros((0, size, size, 3), np.uint8))


def split_held_out(crops: DeckCrops, share: float, min_photos: int, seed: int = 0) -> np.ndarray:
    """A mask of the crops held out: whole photos when there are ``min_photos`` or more, else
    single corners; about ``share`` of them, at least one, never all."""
    rng = np.random.default_rng(seed + 1)
    unit = crops.photo if len(np.unique(crops.photo)) >= min_photos else crops.corner
    units = np.unique(unit)
    if len(units) < 2 or share <= 0:
        return np.zeros(len(unit), bool)
    count = min(len(units) - 1, max(1, round(share * len(units))))
    return np.isin(unit, rng.choice(units, count, replace=False))


def _base_model(checkpoint: Path, classes: Sequence[str]) -> tuple[IndexReader, dict]:
    if not checkpoint.is_file():
        raise ProfileError(f"没有基础识别模型 {checkpoint} / no base reader checkpoint {checkpoint} "
                           "(training a deck's reader needs the source tree's models/reader.pt)")
    ckpt = torch.load(checkpoint, map_location="cpu", weights_only=False)
    if list(ckpt.get("names", [])) != list(classes):
        raise ProfileError(f"{checkpoint}: its classes differ from the running reader's; "
                           "the base reader and models/reader.onnx must be the same model")
    model = IndexReader(ckpt["names"], ckpt["imgsz"], ckpt.get("width", 32), ckpt.get("blocks", 0))
    load_weights(model, ckpt)
    return model, ckpt


def _probs(model: IndexReader, crops: np.ndarray, batch: int = 256) -> np.ndarray:
    model.eval()
    model.softmax = True
    out = []
    with torch.no_grad():
        for i in range(0, len(crops), batch):
            out.append(model(to_tensor(crops[i:i + batch])).numpy())
    model.softmax = False
    return np.concatenate(out) if out else np.zeros((0, len(model.rank_of)), np.float32)


@dataclass
class TuneResult:
    """The profile (with the tuned reader) and what was measured on the held-out corners."""

    profile: DeckProfile
    before: float
    after: float
    with_blend: float
    held_out: int
    trained_on: int
    seconds: float


def _right(probs: np.ndarray, labels: np.ndarray) -> float:
    return float((probs.argmax(axis=1) == labels).mean()) if len(labels) else float("nan")


def tune_reader(detector, samples: Sequence[tuple[np.ndarray, np.ndarray, Sequence[str]]], name: str, *,
                settings: TuneSettings = TuneSettings(), seed: int = 0, checkpoint: str | Path = BASE_CHECKPOINT,
                progress: Progress | None = None, refuse_worse: bool = True) -> TuneResult:
    """Fine-tune the base reader on ``samples`` (``(image, boxes, cards)``, boxes on corner
    indices in image pixels) and return the deck's profile with it (see the module's text).
    ``detector``: the :class:`vision.detector.CardDetector` whose finder and crop recipe the
    deck is read with. A :class:`EnrollRefused` when the tuned reader reads the held-out corners
    worse than the base reader (``refuse_worse``)."""
    threads = torch.get_num_threads()
    if settings.threads:
        torch.set_num_threads(settings.threads)
    try:
        return _tune(detector, samples, name, settings, seed, Path(checkpoint), progress, refuse_worse)
    finally:
        torch.set_num_threads(threads)


def _tune(detector, samples, name: str, settings: TuneSettings, seed: int, checkpoint: Path,
          progress: Progress | None, refuse_worse: bool) -> TuneResult:
    started = time.perf_counter()
    say = progress or (lambda *_: None)
    torch.manual_seed(seed)
    classes = list(detector.reader_classes)
    unknown = {c for _, _, cards in samples for c in cards if c not in CARD_INDEX}
    if unknown:
        raise ProfileError(f"not card ids: {sorted(unknown)[:6]}")
    say(0.0, "正在裁剪牌角", "cutting the corner crops")
    data = cut_crops(detector, samples, settings, seed)
    held = split_held_out(data, settings.held_out, settings.min_photos_to_split, seed)
    train = ~held
    model, ckpt = _base_model(checkpoint, classes)
    base_held = _probs(model, data.crops[held & data.plain])
    keep_x = data.others
    keep_y = _probs(model, keep_x) if len(keep_x) else np.zeros((0, len(classes)), np.float32)
    x, y = data.crops[train], data.labels[train]
    rng = np.random.default_rng(seed)
    steps = min(settings.max_steps, settings.epochs * max(1, math.ceil(len(x) / settings.batch)))
    optimiser = torch.optim.AdamW(model.parameters(), lr=settings.lr, weight_decay=settings.weight_decay)
    for step in range(steps):
        for group in optimiser.param_groups:  # cosine from lr to 5% of it
            group["lr"] = settings.lr * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * step / steps)))
        model.train()
        freeze_norms(model)
        idx = rng.choice(len(x), min(settings.batch, len(x)), replace=False)
        batch = augment(x[idx], rng)
        for i in np.flatnonzero(rng.random(len(batch)) < settings.degrade_p):
            batch[i] = apply_chain(batch[i], random_chain(rng, max_strength=0.6), rng)
        loss = model.loss(to_tensor(batch), torch.from_numpy(y[idx]))
        if len(keep_x) and settings.keep_weight > 0:
            kidx = rng.choice(len(keep_x), min(settings.batch // 4 or 1, len(keep_x)), replace=False)
            log_p = model(to_tensor(augment(keep_x[kidx], rng)))
            target = torch.from_numpy(keep_y[kidx]).clamp_min(1e-6)
            loss = loss + settings.keep_weight * (target * (target.log() - log_p)).sum(1).mean()
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
        if step % 5 == 0 or step == steps - 1:
            say(0.05 + 0.85 * (step + 1) / steps, f"正在训练 {step + 1}/{steps}", f"training {step + 1}/{steps}")
    say(0.92, "正在检验", "checking on the corners held out")
    tuned_held = _probs(model, data.crops[held & data.plain])
    held_labels = data.labels[held & data.plain]
    before, after = _right(base_held, held_labels), _right(tuned_held, held_labels)
    if refuse_worse and len(held_labels) and after < before:
        raise EnrollRefused(f"训练后留出的牌角读得更差（{after:.1%} 对 {before:.1%}），未保存 / the deck's reader read "
                            f"the held-out corners worse than the base reader ({after:.1%} against {before:.1%}): "
                            "not saved")
    all_probs = _probs(model, data.crops)
    profile = fit(name, classes, all_probs[train], [classes[i] for i in data.labels[train]])
    blended = profile.blend(tuned_held, PHOTO.profile_weight, PHOTO.profile_temperature)
    with_blend = _right(blended, held_labels)
    model.eval()
    model.softmax = True
    with tempfile.TemporaryDirectory() as tmp:
        exported = export_classifier(model, ckpt["imgsz"], classes, Path(tmp) / "reader.onnx",
                                     f"ddz-table deck reader for {name}")
        model_bytes = exported.read_bytes()
    seconds = time.perf_counter() - started
    report = {"crops": int(len(held_labels)), "before": round(before, 4), "after": round(after, 4),
              "with_blend": round(with_blend, 4), "trained_on": int(train.sum()), "seconds": round(seconds, 1),
              "photos": int(len(np.unique(data.photo)))}
    blend_on = bool(len(held_labels)) and with_blend > after
    # The saved prototypes are fitted on every crop, the held-out ones too: every card enrolled.
    profile = fit(name, classes, all_probs, [classes[i] for i in data.labels])
    profile = DeckProfile(profile.name, profile.reader_classes, profile.cards, profile.prototypes, profile.counts,
                          profile.bias, profile.log_floor, reader_model=model_bytes, blend_reads=blend_on,
                          report=report)
    say(1.0, "完成", "done")
    return TuneResult(profile, before, after, with_blend, int(len(held_labels)), int(train.sum()), seconds)

