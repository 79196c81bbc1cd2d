"""Deck profiles: a club's own deck taught to the index reader, in numpy, on the box itself.

The reader (``models/reader.onnx``) was trained on other decks; on a deck it has never seen it
misreads some cards, and the same way every time (a deck whose clubs look like spades). A
:class:`DeckProfile` holds, for every card of one deck it was shown, a *prototype* in the
reader's output space: the mean, over that card's labelled index crops, of the reader's
log-probabilities (every class, ``none`` included, floored at :data:`LOG_FLOOR`). A 7 of clubs
the reader calls a spade still lands nearer the deck's own 7 of clubs than its 7 of spades,
since the whole vector of second guesses differs between the two. It also holds a *bias* per
enrolled card, a sum of one term per suit and one per rank fitted to the deck's crops (the
reader's leaning, on this deck, towards spades over clubs, say): shared by 13 cards a suit, it
is learnt from a few crops of each without learning any one card's accidents.

At read time :meth:`DeckProfile.blend` takes, for the enrolled cards, the reader's
log-probabilities plus the bias (a softmax over them), mixed with a softmax over the negative
distances to the prototypes (a temperature and a weight, the detector settings'
``profile_temperature`` and ``profile_weight``). The profile only moves the
probability the reader gave the enrolled cards among them: ``none`` and the cards not enrolled
keep the reader's scores, so a box the reader calls no index stays no index.

Fitting is a mean per card (:func:`fit_profile` reads the crops through the detector's own
reader, as ``detect`` crops them, with a few views of each: turned, smaller, blurred), so it
takes seconds and needs no torch. One ``.npz`` file holds a profile, with a format name and
version; anything else is a :class:`ProfileError`.

>>> profile = fit_profile(detector, [(image, boxes, cards)], "club")   # doctest: +SKIP
>>> profile.save("club.npz"); DeckProfile.load("club.npz").cards[:3]  # doctest: +SKIP
('3s', '3h', '3d')
"""

from __future__ import annotations

import json
import os
import re
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from vision.cards import CARD_IDS, CARD_INDEX, JOKERS, RANKS, SUITS

if TYPE_CHECKING:
    from vision.backends import OnnxBackend
    from vision.detector import CardDetector

#: The file's format name and version: a file without them, or of another version, is refused.
FORMAT = "ddz-table-deck-profile"
VERSION = 2
#: Versions this program reads: 1 (prototypes and bias only) and 2 (with a fine-tuned reader).
READABLE_VERSIONS = (1, 2)
#: Reader probabilities under this count as this: the differences among the tiniest ones are
#: noise, not evidence, and would dominate distances between log-probabilities.
LOG_FLOOR = 1e-4
#: A profile's name: letters (any script), digits, ``_ - .``, not starting with a dot.
NAME_PATTERN = re.compile(r"[^\W_.][\w.\-]{0,63}")
SUFFIX = ".npz"
#: L2 weight on the suit and rank terms of the bias (:func:`fit_bias`): smaller lets one deck's
#: few crops pull the reader around (the bench's held-out decks lost right reads), larger
#: leaves the reader's leanings as they are.
BIAS_L2 = 0.1


class ProfileError(ValueError):
    """A deck profile that cannot be used: missing, corrupt, of another format or version, or
    fitted for another reader."""


def features(probs: np.ndarray, floor: float = LOG_FLOOR) -> np.ndarray:
    """The reader's probabilities (N, C) as the profile compares them: floored log-probabilities."""
    return np.log(np.clip(np.asarray(probs, np.float64), floor, 1.0))


@dataclass(frozen=True, eq=False)
class DeckProfile:
    """One deck's prototypes in the reader's output space.

    ``reader_classes``: the reader's class names in its output order (the profile is only good
    for a reader with these); ``cards``: the enrolled card ids, one per row of ``prototypes``
    (K, len(reader_classes)); ``counts``: crops each prototype was fitted from (views included);
    ``bias``: (K,) added to the reader's log-probabilities of the enrolled cards."""

    name: str
    reader_classes: tuple[str, ...]
    cards: tuple[str, ...]
    prototypes: np.ndarray
    counts: np.ndarray
    bias: np.ndarray
    log_floor: float = LOG_FLOOR
    #: The deck's own reader: an ONNX model (bytes) fine-tuned from the base reader on this deck's
    #: crops (``ddz-table enroll``), with the base reader's classes; None: read with the base reader.
    reader_model: bytes | None = None
    #: Whether :meth:`blend` moves the reads (prototypes and bias): kept on only where enrollment
    #: measured it to add to the deck's own reader on held-out crops.
    blend_reads: bool = True
    #: What enrollment measured on crops it held out from fitting: ``{"crops", "before", "after",
    #: "seconds", ...}`` (before: the base reader's share read right; after: this profile's).
    report: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        k, c = len(self.cards), len(self.reader_classes)
        if not k:
            raise ProfileError("a deck profile needs at least one card")
        unknown = [card for card in self.cards if card not in CARD_INDEX]
        if unknown or len(set(self.cards)) != k:
            raise ProfileError(f"profile cards must be distinct card ids, got {list(self.cards)[:6]}")
        missing = [card for card in self.cards if card not in self.reader_classes]
        if missing:
            raise ProfileError(f"profile cards {missing[:6]} are not among the reader's classes")
        if self.prototypes.shape != (k, c) or self.counts.shape != (k,) or self.bias.shape != (k,):
            raise ProfileError(f"profile arrays have shapes {self.prototypes.shape}, {self.counts.shape}, "
                               f"{self.bias.shape}; expected ({k}, {c}), ({k},) and ({k},)")
        if not np.isfinite(self.prototypes).all() or not np.isfinite(self.bias).all() or (self.counts < 1).any() or not 0 < self.log_floor < 1:
            raise ProfileError("profile prototypes must be finite, counts positive and the floor in (0, 1)")
        if self.reader_model is not None and not isinstance(self.reader_model, bytes | bytearray):
            raise ProfileError("a profile's reader must be the ONNX model's bytes")

    def reader_backend(self, threads: int | None = None) -> OnnxBackend | None:
        """The deck's own reader, loaded once (ONNX Runtime), or None when the profile has none. A
        model that does not load, or whose classes differ from :attr:`reader_classes`, is a
        :class:`ProfileError`."""
        if self.reader_model is None:
            return None
        cached: OnnxBackend | None = self.__dict__.get("_reader")
        if cached is not None:
            return cached
        from vision.backends import ModelFileError, OnnxBackend

        try:
            backend = OnnxBackend(f"<deck profile {self.name}>", threads, data=bytes(self.reader_model))
        except ModelFileError as exc:
            raise ProfileError(f"deck profile {self.name!r}: its reader does not load ({exc})") from None
        names = tuple(backend.names[i] for i in sorted(backend.names))
        if names != self.reader_classes:
            raise ProfileError(f"deck profile {self.name!r}: its reader's classes differ from the profile's")
        object.__setattr__(self, "_reader", backend)
        return backend

    @property
    def columns(self) -> np.ndarray:
        """The reader's output column of each enrolled card."""
        return np.array([self.reader_classes.index(card) for card in self.cards], np.int64)

    def check_reader(self, reader_classes: Sequence[str]) -> None:
        """A :class:`ProfileError` unless a reader with these classes (in this order) is the
        one the profile was fitted with: its prototypes live in that reader's output space."""
        if tuple(reader_classes) != self.reader_classes:
            raise ProfileError(f"deck profile {self.name!r} was fitted for a reader with {len(self.reader_classes)} "
                               f"classes in another order or of other names than this one's ({len(reader_classes)}); "
                               "enroll the deck again with this reader")

    def card_probs(self, probs: np.ndarray, temperature: float) -> np.ndarray:
        """(N, K): a softmax over the enrolled cards of minus each crop's distance to their
        prototypes, over ``temperature``."""
        if temperature <= 0:
            raise ValueError(f"temperature must be positive, got {temperature}")
        x = features(probs, self.log_floor)
        d = np.sqrt(np.maximum(
            (x * x).sum(axis=1, keepdims=True) - 2 * x @ self.prototypes.T
            + (self.prototypes * self.prototypes).sum(axis=1)[None, :], 0.0))
        z = -d / temperature
        z -= z.max(axis=1, keepdims=True, initial=-np.inf) if len(z) else 0.0
        e = np.exp(z)
        softmax: np.ndarray = e / e.sum(axis=1, keepdims=True)
        return softmax

    def biased_probs(self, probs: np.ndarray) -> np.ndarray:
        """(N, K): a softmax over the enrolled cards of the reader's log-probabilities plus the bias."""
        z = features(probs, self.log_floor)[:, self.columns] + self.bias[None, :]
        z -= z.max(axis=1, keepdims=True) if len(z) else 0.0
        e = np.exp(z)
        softmax: np.ndarray = e / e.sum(axis=1, keepdims=True)
        return softmax

    def blend(self, probs: np.ndarray, weight: float, temperature: float) -> np.ndarray:
        """The reader's probabilities (N, C) with the enrolled cards' columns replaced: ``1 - weight``
        of :meth:`biased_probs` and ``weight`` of :meth:`card_probs` (the prototypes), scaled to
        the probability the reader gave the enrolled cards together. Other columns (``none``, the
        cards not enrolled) are left as they are, and each row keeps its sum."""
        if not 0 <= weight <= 1:
            raise ValueError(f"weight must be in [0, 1], got {weight}")
        probs = np.asarray(probs, np.float32)
        if not self.blend_reads:
            return probs
        if probs.ndim != 2 or probs.shape[1] != len(self.reader_classes):
            raise ValueError(f"expected reader probabilities (N, {len(self.reader_classes)}), got {probs.shape}")
        if not len(probs):
            return probs
        columns = self.columns
        mass = probs[:, columns].astype(np.float64).sum(axis=1, keepdims=True)
        mixed = (1 - weight) * self.biased_probs(probs)
        if weight > 0:
            mixed += weight * self.card_probs(probs, temperature)
        out: np.ndarray = probs.copy()
        out[:, columns] = mass * mixed
        return out

    # -- file --------------------------------------------------------------------------
    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the profile to ``path`` (one ``.npz``), through a temporary file beside it, so a
        failed write never leaves half a profile under the name."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        try:
            with open(tmp, "wb") as f:
                np.savez(f, format=np.array(FORMAT), version=np.array(VERSION), name=np.array(self.name),
                         reader_classes=np.array(self.reader_classes), cards=np.array(self.cards),
                         prototypes=self.prototypes.astype(np.float32), counts=self.counts.astype(np.int64),
                         bias=self.bias.astype(np.float32), log_floor=np.array(self.log_floor),
                         reader_model=np.frombuffer(bytes(self.reader_model or b""), np.uint8),
                         blend_reads=np.array(self.blend_reads),
                         report=np.array(json.dumps(self.report, sort_keys=True)))
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        return path

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> DeckProfile:
        """The profile in ``path``, or a :class:`ProfileError` saying why not."""
        path = Path(path)
        if not path.is_file():
            raise ProfileError(f"no deck profile file {path}")
        try:
            with np.load(path, allow_pickle=False) as data:
                fields = {k: data[k] for k in data.files}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            raise ProfileError(f"{path} is not a deck profile (unreadable: {exc})") from None
        if str(fields.get("format", "")) != FORMAT:
            raise ProfileError(f"{path} is not a deck profile (no {FORMAT!r} format mark)")
        try:
            version = int(fields["version"])
        except (KeyError, TypeError, ValueError):
            raise ProfileError(f"{path}: deck profile without a version") from None
        if version not in READABLE_VERSIONS:
            raise ProfileError(f"{path}: deck profile version {version}; this program reads versions "
                               f"{', '.join(map(str, READABLE_VERSIONS))} (enroll the deck again)")
        try:
            extra: dict[str, Any] = {}
            if version >= 2:
                model = np.asarray(fields["reader_model"], np.uint8).tobytes()
                report = json.loads(str(fields["report"]))
                if not isinstance(report, dict):
                    raise ValueError("its report is not a table")
                extra = {"reader_model": model or None, "blend_reads": bool(fields["blend_reads"]), "report": report}
            return cls(str(fields["name"]), tuple(str(c) for c in fields["reader_classes"]),
                       tuple(str(c) for c in fields["cards"]), np.asarray(fields["prototypes"], np.float32),
                       np.asarray(fields["counts"], np.int64), np.asarray(fields["bias"], np.float32),
                       float(fields["log_floor"]), **extra)
        except KeyError as exc:
            raise ProfileError(f"{path}: deck profile lacks {exc.args[0]!r}") from None
        except ProfileError as exc:
            raise ProfileError(f"{path}: {exc}") from None
        except (TypeError, ValueError) as exc:
            raise ProfileError(f"{path}: deck profile has a malformed field ({exc})") from None


def fit(name: str, reader_classes: Sequence[str], probs: np.ndarray, cards: Sequence[str],
        log_floor: float = LOG_FLOOR) -> DeckProfile:
    """A profile from reader probabilities (N, C) of labelled crops and their cards: one
    prototype per card seen, the mean of its crops' :func:`features`, and the bias
    (:func:`fit_bias`)."""
    probs = np.asarray(probs, np.float64)
    cards = list(cards)
    if probs.ndim != 2 or probs.shape != (len(cards), len(reader_classes)):
        raise ProfileError(f"expected reader probabilities ({len(cards)}, {len(reader_classes)}), got {probs.shape}")
    x = features(probs, log_floor)
    seen = [c for c in CARD_IDS if c in set(cards)]
    labels = np.array([CARD_INDEX.get(c, -1) for c in cards])
    prototypes = np.stack([x[labels == CARD_INDEX[c]].mean(axis=0) for c in seen]) if seen else np.zeros((0, 0))
    counts = np.array([int((labels == CARD_INDEX[c]).sum()) for c in seen], np.int64)
    if not seen:
        raise ProfileError("no card to enroll")
    columns = [list(reader_classes).index(c) for c in seen]
    where = {c: k for k, c in enumerate(seen)}
    bias = fit_bias(x[:, columns], np.array([where[c] for c in cards]), seen)
    return DeckProfile(name, tuple(reader_classes), tuple(seen), prototypes.astype(np.float32), counts,
                       bias.astype(np.float32), log_floor)


def fit_bias(z: np.ndarray, labels: np.ndarray, cards: Sequence[str], l2: float = BIAS_L2,
             steps: int = 300, rate: float = 0.5) -> np.ndarray:
    """(K,): per card, its suit's term plus its rank's (a joker is its own rank, of no suit),
    fitted by gradient descent on the cross-entropy of softmax(``z`` + bias) against ``labels``
    (indices into ``cards``), with ``l2`` on the terms: ``z`` (N, K) the crops' floored
    log-probabilities of those cards."""
    groups = [*(f"suit {s}" for s in SUITS), *(f"rank {r}" for r in RANKS), *JOKERS]
    design = np.zeros((len(cards), len(groups)))
    for k, card in enumerate(cards):
        if card in JOKERS:
            design[k, groups.index(card)] = 1
        else:
            design[k, groups.index(f"suit {card[-1]}")] = 1
            design[k, groups.index(f"rank {card[:-1]}")] = 1
    target = np.eye(len(cards))[labels]
    terms = np.zeros(len(groups))
    for _ in range(steps):
        s = z + design @ terms
        s -= s.max(axis=1, keepdims=True)
        p = np.exp(s)
        p /= p.sum(axis=1, keepdims=True)
        terms -= rate * (design.T @ (p - target).mean(axis=0) + l2 * terms)
    return design @ terms


#: The views each labelled crop is read in when a profile is fitted (:func:`enrollment_views`):
#: ``(index px, turn, blur, noise, jpeg)``: the index long side the view brings the boxes to
#: (None: as photographed), a turn of the whole photo (degrees), a Gaussian blur (sigma, px of
#: the view), sensor noise (grey levels) and a JPEG quality (0: none). What a table camera's frames
#: do to a corner (any angle, smaller, softer, noisier) that a photo of the deck laid out does not.
View = tuple[float | None, float, float, float, int]
VIEWS: tuple[View, ...] = (
    (None, 0, 0.0, 0, 0), (None, 30, 0.0, 0, 0), (24.0, 60, 0.7, 4, 80), (22.0, 15, 0.0, 6, 60),
    (20.0, 45, 1.0, 0, 0), (18.0, 80, 0.5, 5, 70), (18.0, 120, 1.2, 3, 0), (16.0, 0, 0.6, 6, 50),
    (15.0, 150, 0.0, 4, 70), (14.0, 35, 0.8, 0, 0), (30.0, 100, 1.5, 3, 60), (13.0, 70, 0.0, 5, 0),
)


def enrollment_views(image: np.ndarray, boxes: np.ndarray, seed: int = 0,
                     views: Sequence[View] = VIEWS) -> Iterable[tuple[np.ndarray, np.ndarray]]:
    """``(image, boxes)`` for each view of ``views`` (:data:`VIEWS`): the photo resized so the
    boxes' median long side comes out at the view's size (never enlarged past 2x), turned about
    its centre (each box becomes the upright box around its turned corners, as a turned index is
    labelled and found), blurred, noised and JPEG-coded; seeded, so a fit is repeatable."""
    rng = np.random.default_rng(seed)
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    long_side = float(np.median((boxes[:, 2:] - boxes[:, :2]).max(axis=1))) if len(boxes) else 1.0
    h, w = image.shape[:2]
    for size, turn, sigma, noise, quality in views:
        scale = 1.0 if size is None else min(2.0, size / max(long_side, 1e-3))
        a = np.radians(turn)
        c, s = abs(np.cos(a)), abs(np.sin(a))
        out_w, out_h = int(np.ceil((w * c + h * s) * scale)), int(np.ceil((w * s + h * c) * scale))
        m = cv2.getRotationMatrix2D((w / 2, h / 2), turn, scale)
        m[:, 2] += (out_w / 2 - w / 2, out_h / 2 - h / 2)
        view = cv2.warpAffine(image, m, (max(out_w, 8), max(out_h, 8)),
                              flags=cv2.INTER_AREA if scale < 1 and not turn else cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
        if sigma > 0:
            view = cv2.GaussianBlur(view, (0, 0), sigma)
        if noise > 0:
            view = np.clip(view + rng.normal(0, noise, view.shape), 0, 255).astype(np.uint8)
        if quality:
            ok, data = cv2.imencode(".jpg", view, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
            decoded = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else None
            view = decoded if decoded is not None else view
        corners = boxes[:, [0, 1, 2, 1, 2, 3, 0, 3]].reshape(-1, 4, 2)
        turned = corners @ m[:, :2].T + m[:, 2]
        yield view, np.concatenate([turned.min(axis=1), turned.max(axis=1)], axis=1)


def labelled_samples(samples: Iterable[tuple[np.ndarray, np.ndarray, Sequence[str]]]) -> Iterable[
        tuple[int, np.ndarray, np.ndarray, list[str]]]:
    """``(k, image, boxes (n, 4) float, cards)`` for each sample with a box, ``k`` its place in
    ``samples``; a :class:`ProfileError` where the boxes and cards do not pair up."""
    for k, (image, boxes, cards) in enumerate(samples):
        boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
        if len(boxes) != len(cards):
            raise ProfileError(f"{len(boxes)} boxes but {len(cards)} cards")
        if len(boxes):
            yield k, image, boxes, list(cards)


def fit_profile(detector: CardDetector, samples: Iterable[tuple[np.ndarray, np.ndarray, Sequence[str]]], name: str,
                seed: int = 0, views: Sequence[View] = VIEWS) -> tuple[
                    DeckProfile, np.ndarray, list[str]]:
    """Fit a profile named ``name`` from ``samples``: ``(image, boxes (n, 4) in its pixels, card
    ids)`` each, every box a corner index of that card. Each box is read by ``detector.read``
    (the crops ``detect`` cuts, at its settings' pad and quarter-turns) in every view of
    ``views``. Returns the profile, and the reader's probabilities of the crops as
    photographed (the first view) with their cards, to say what the profile changes."""
    if not NAME_PATTERN.fullmatch(name or ""):
        raise ProfileError(f"a deck name is letters, digits, '_', '-' or '.', up to 64, not {name!r}")
    if getattr(detector, "reader", None) is None:
        raise ProfileError("a deck profile needs the two-stage detector (finder + reader)")
    classes = detector.reader_classes
    all_probs, all_cards, plain, plain_cards = [], [], [], []
    for k, image, boxes, cards in labelled_samples(samples):
        for v, (view, moved) in enumerate(enrollment_views(image, boxes, seed + k, views)):
            probs = detector.read(view, moved, base=True)  # the shipped reader's space, whatever is in use
            all_probs.append(probs)
            all_cards += list(cards)
            if v == 0:
                plain.append(probs)
                plain_cards += list(cards)
    if not all_cards:
        raise ProfileError("no labelled index to enroll")
    profile = fit(name, classes, np.concatenate(all_probs), all_cards)
    return profile, np.concatenate(plain), plain_cards


def find_profile(spec: str | os.PathLike[str], folder: str | os.PathLike[str]) -> Path:
    """The profile file ``spec`` names: a path to a file, else a name in ``folder``
    (``folder/NAME.npz``); a :class:`ProfileError` listing where it looked when neither is there."""
    path = Path(spec)
    if path.is_file():
        return path
    text = str(spec)
    if NAME_PATTERN.fullmatch(text):
        named = Path(folder) / f"{text}{SUFFIX}"
        if named.is_file():
            return named
        raise ProfileError(f"no deck profile {text!r}: no file {named} (and no file {text} here); "
                           "ddz-table enroll --list shows the enrolled decks")
    raise ProfileError(f"no deck profile file {path}")


def saved_profiles(folder: str | os.PathLike[str]) -> list[Path]:
    """The profile files in ``folder`` (``*.npz``), by name."""
    folder = Path(folder)
    return sorted(p for p in folder.glob(f"*{SUFFIX}") if p.is_file()) if folder.is_dir() else []
