"""``CardDetector``: find corner indices, read each into a card.

Stage 1 (finder) is a YOLO detector over the whole image at its input size (letterbox,
decode, NMS, boxes back to image pixels); an image whose indices come out small there is
looked at again closer up, and a small image enlarged so far that they come out large is
looked at again nearer its own pixels (``zoom``). Stage 2 (reader) classifies a square crop
around every found index, all crops in one batch, into a card or ``none`` (not an index).
A detection's confidence is the finder's score times the reader's probability of its
card, so a box the reader calls ``none`` fades below the threshold by itself.

A single-stage model (one class per card) also works: give it as the finder and no reader.

>>> detector = CardDetector()                      # doctest: +SKIP
>>> detections = detector.detect_file("table.jpg")  # doctest: +SKIP
>>> detections.cards                                 # doctest: +SKIP
['10h', 'BJ']
"""

from __future__ import annotations

import functools
import math
import os
import warnings
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models import MODELS_DIR
from vision.backends import Backend, ModelFileError, load_backend
from vision.boxes import crop_squares, decode_yolo, iou_matrix, letterbox, nested, nms, rect_size, to_blob
from vision.cards import CARD_IDS, CARD_INDEX
from vision.detections import Detections
from vision.face_suit import DEFAULT_PIPS, FaceSuitReader
from vision.grouping import PAIR_RANGE, Grouping, card_distance, group_corners
from vision.joker_look import JokerLook
from vision.profile import DeckProfile, ProfileError
from vision.settings import PHOTO, DetectorSettings

DEFAULT_FINDER = MODELS_DIR / "finder.onnx"
DEFAULT_READER = MODELS_DIR / "reader.onnx"
#: The reader's class for a crop that is no corner index.
NOT_AN_INDEX = "none"

JOKER_IDS = np.array([CARD_INDEX["BJ"], CARD_INDEX["RJ"]])
#: What the finder found: boxes in image pixels, its scores and its classes.
Found = tuple[np.ndarray, np.ndarray, np.ndarray]

__all__ = ["CardDetector", "DetectorSettings", "ImageError", "ModelFileError", "PHOTO", "read_image"]


def joker_pairs(dets: Detections, among: np.ndarray) -> np.ndarray:
    """Which detections have another of the same card, of those ``among``, a card's two corners
    apart (``vision.grouping.card_distance`` within ``PAIR_RANGE``)."""
    out = np.zeros(len(dets), bool)
    idx = np.flatnonzero(among)
    sizes = np.maximum(dets.sizes, 1e-6)
    lo, hi = PAIR_RANGE
    for a in idx:
        for b in idx:
            if a != b and dets.class_ids[a] == dets.class_ids[b]:
                distance = card_distance(a, b, dets.centers, sizes)
                out[a] |= distance is not None and lo <= distance <= hi
    return out


def inside_share(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(len(a), len(b)): how much of each box of ``a`` (its area's share) lies inside each of ``b``."""
    a, b = np.asarray(a, np.float64).reshape(-1, 4), np.asarray(b, np.float64).reshape(-1, 4)
    wh = np.clip(np.minimum(a[:, None, 2:], b[None, :, 2:]) - np.maximum(a[:, None, :2], b[None, :, :2]), 0, None)
    area = np.maximum((a[:, 2:] - a[:, :2]).prod(axis=1), 1e-9)
    share: np.ndarray = wh.prod(axis=2) / area[:, None]
    return share


class ImageError(ValueError):
    """An image that cannot be read or has the wrong shape."""


def read_image(path: str | os.PathLike[str]) -> np.ndarray:
    """A BGR image from disk, or :class:`ImageError` saying why not.

    A JPEG's Exif orientation is applied (OpenCV does it on decoding): a phone photo comes out
    the way up it is shown, and boxes are in that picture's pixels."""
    path = Path(path)
    if not path.is_file():
        raise ImageError(f"image not found: {path}")
    data = np.fromfile(str(path), dtype=np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise ImageError(f"not a readable image: {path}")
    return image


def check_image(image: object) -> np.ndarray:
    if not isinstance(image, np.ndarray):
        raise ImageError(f"expected a numpy image, got {type(image).__name__}")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim != 3 or image.shape[2] not in (3, 4) or min(image.shape[:2]) < 8:
        raise ImageError(f"expected an HxWx3 BGR image at least 8 px wide, got shape {image.shape}")
    if image.dtype != np.uint8:
        raise ImageError(f"expected a uint8 image, got {image.dtype}")
    return image[..., :3] if image.shape[2] == 4 else image


class CardDetector:
    """Two-stage card reader over ONNX Runtime (or OpenVINO / NCNN, same interface).

    finder: path of the index finder (``.onnx``; for NCNN its ``*_ncnn_model`` folder).
    reader: path of the index reader, or None when ``finder`` is a single-stage card model.
    settings: every threshold it runs with (:class:`vision.settings.DetectorSettings`):
    :data:`~vision.settings.PHOTO` for single photos, :data:`~vision.settings.TRACKER` for the
    live tracker. Any further keyword names a field of it to change
    (``CardDetector(turns=1)`` is ``CardDetector(settings=PHOTO.replace(turns=1))``).
    rect: letterbox each image only to the next multiple of 32 (a 16:9 frame goes in as
    640x384, not 640x640). Needs a finder exported with a free input size (the default
    export); None uses it whenever the finder allows it. Square images read the same either way.
    The settings' ``zoom`` (a second look at the size that brings the indices to about
    ``zoom_target`` px, :meth:`zoom_size`) also needs a free input size: ``self.zoom`` says
    whether this finder takes it.
    profile: a club's own deck (:class:`vision.profile.DeckProfile`, ``ddz-table enroll``): the
    reader's probabilities of its enrolled cards are blended with the profile's
    (``profile_weight``, ``profile_temperature``); None reads as the reader alone.
    pips: the pip classifier that reads a grouped card's suit from its face (the settings'
    ``face_suit``; :meth:`group`). A missing or broken file does not stop the detector: it reads
    the indices alone, with a warning naming the file (``self.face`` is then None).
    """

    def __init__(self, finder: str | os.PathLike[str] = DEFAULT_FINDER,
                 reader: str | os.PathLike[str] | None = DEFAULT_READER, *, backend: str = "auto",
                 settings: DetectorSettings = PHOTO, threads: int | None = None, imgsz: int | None = None,
                 rect: bool | None = None, profile: DeckProfile | None = None,
                 pips: str | os.PathLike[str] | None = DEFAULT_PIPS, **changes: Any) -> None:
        self.settings = settings.replace(**changes) if changes else settings
        self.finder = load_backend(finder, backend, threads)
        self.reader = load_backend(reader, backend, threads) if reader is not None else None
        if self.finder.input_shape[1] not in (3, None):
            raise ModelFileError(f"{finder} takes {self.finder.input_shape[1]} channels, not a BGR image's 3")
        fixed = self.finder.input_shape[2:] if None not in self.finder.input_shape[2:] else None
        if imgsz is not None:
            if imgsz < 32 or imgsz % 32:
                raise ValueError(f"imgsz must be a positive multiple of 32, got {imgsz}")
            if fixed and tuple(fixed) != (imgsz, imgsz):
                raise ValueError(f"{finder} takes {fixed[0]}x{fixed[1]} input, not {imgsz}; "
                                 "export it again without --fixed to run at another size")
            self.imgsz = (imgsz, imgsz)
        elif self.finder.imgsz is None:
            raise ModelFileError(f"{finder} has no input size; pass imgsz or export it with one")
        else:
            self.imgsz = self.finder.imgsz
        if rect and fixed:
            raise ValueError(f"{finder} takes only {fixed[0]}x{fixed[1]} input; export it again "
                             "(ddz-table export-model) to letterbox frames to their own shape")
        self.rect = fixed is None if rect is None else rect
        self.zoom = self.settings.zoom and fixed is None
        self.smaller = self.settings.smaller and fixed is None
        finder_names = self.finder.names
        if self.reader is None:
            missing = [n for n in finder_names.values() if n not in CARD_INDEX]
            if missing:
                raise ModelFileError(f"{finder} does not name cards ({missing[:3]}...): it needs a reader model")
            self._finder_cards: np.ndarray | None = np.array([CARD_INDEX[finder_names[i]] for i in sorted(finder_names)])
        else:
            self._finder_cards = None
            self._reader_cards = self._reader_classes(self.reader.names, reader)
            #: The reader's columns that are cards (not ``none``), worked out once, not per frame.
            self._card_columns = self._reader_cards >= 0
            shape = self.reader.input_shape
            self.read_size = self.reader.imgsz[0] if self.reader.imgsz else 96
            if shape[2] is not None and shape[2] != shape[3]:
                raise ModelFileError(f"{reader} must take square crops, input shape is {shape}")
        #: The second look for jokers at the cards' corners (:mod:`vision.joker_look`), through this
        #: detector's reader; None for a single-stage finder, which has no reader to look with.
        self.joker_look: JokerLook | None = None
        if self.reader is not None and all(j in self.reader_classes for j in ("BJ", "RJ")):
            # A card's corner is turned upright before it is read: one turn of each crop is enough.
            self.joker_look = JokerLook(functools.partial(self.read, turns=1), self.reader_classes)
        self._threads = threads
        self._profile: DeckProfile | None = None
        #: The reader crops go through: the deck profile's own reader when it has one, else :attr:`reader`.
        self.active_reader = self.reader
        self.profile = profile
        #: The face's pip classifier (:mod:`vision.face_suit`), or None: the indices alone.
        self.face: FaceSuitReader | None = None
        if self.settings.face_suit and pips is not None:
            try:
                self.face = FaceSuitReader(pips, threads)
            except ModelFileError as exc:
                warnings.warn(f"reading suits from the indices alone, not the card faces: {exc}", stacklevel=2)

    @property
    def profile(self) -> DeckProfile | None:
        """The deck profile read with (None: the base reader alone). Setting it checks it fits this
        reader and loads its own reader (a :class:`vision.profile.ProfileError` if it does not);
        a read sees the old profile and reader or the new ones."""
        return self._profile

    @profile.setter
    def profile(self, profile: DeckProfile | None) -> None:
        if profile is None:
            self._profile, self.active_reader = None, self.reader
            return
        if self.reader is None:
            raise ValueError("a deck profile needs the two-stage detector (finder + reader)")
        profile.check_reader(self.reader_classes)
        own = profile.reader_backend(self._threads)
        if own is not None and own.imgsz and self.reader.imgsz and tuple(own.imgsz) != tuple(self.reader.imgsz):
            raise ProfileError(f"deck profile {profile.name!r}: its reader takes {own.imgsz[0]} px crops, "
                               f"this detector's {self.reader.imgsz[0]} px")
        self._profile, self.active_reader = profile, own if own is not None else self.reader

    @staticmethod
    def _reader_classes(names: dict[int, str], path: object) -> np.ndarray:
        """Reader class index -> card class index (-1 for ``none``)."""
        cards = []
        for i in sorted(names):
            name = names[i]
            if name == NOT_AN_INDEX:
                cards.append(-1)
            elif name in CARD_INDEX:
                cards.append(CARD_INDEX[name])
            else:
                raise ModelFileError(f"{path}: reader class {name!r} is neither a card id nor {NOT_AN_INDEX!r}")
        return np.array(cards, np.int64)

    @property
    def reader_classes(self) -> tuple[str, ...]:
        """The reader's class names in its output order (card ids and ``none``)."""
        assert self.reader is not None, "a single-stage detector has no reader"
        names = self.reader.names
        return tuple(names[i] for i in sorted(names))

    # -- stage 1 -------------------------------------------------------------------------
    def input_size(self, height: int, width: int) -> tuple[int, int]:
        """The finder's (h, w) input for an image of this size: its own shape (``rect``) or the
        square; an image smaller than the input enlarged at most ``enlarge_max`` times (the
        settings', with ``rect``)."""
        if not self.rect:
            return self.imgsz
        most = self.settings.enlarge_max
        if most is not None and max(height, width) * most < max(self.imgsz):
            side = math.ceil(max(height, width) * most / 32 - 1e-9) * 32
            return rect_size(height, width, min(side, max(self.imgsz)))
        return rect_size(height, width, self.imgsz)

    def find(self, image: np.ndarray, floor: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Index boxes (image pixels), finder scores and finder classes above ``floor`` (None: the
        settings' ``finder_floor``); with ``zoom``, a second look at another size where the indices came out too small or, in an
        enlarged image, too large (:meth:`zoom_size`)."""
        image = check_image(image)
        floor = self.settings.finder_floor if floor is None else floor
        size = self.input_size(*image.shape[:2])
        found = self._find_at(image, size, floor)
        large = self._find_smaller(image, size, found, floor)
        if large is not None:
            return large
        again = self.zoom_size(image.shape[:2], size, found[0], found[1])
        if again is None:
            return found
        near = self._find_at(image, again, floor)
        # The second look's boxes, and the first look's where the second look found nothing
        # (an index near the camera may come out too large to find at a closer size).
        alone = iou_matrix(found[0], near[0]).max(axis=1, initial=0.0) < self.settings.zoom_alone
        boxes, scores, classes = (np.concatenate([n, f[alone]]) for n, f in zip(near, found, strict=True))
        return boxes, scores, classes

    def smaller_sizes(self, shape: tuple[int, int], size: tuple[int, int], boxes: np.ndarray,
                      scores: np.ndarray) -> list[tuple[int, int]]:
        """The (h, w) inputs of the smaller views of an image of ``shape`` whose look at ``size``
        found ``boxes``, largest first, or none when the first look is enough: it found at least
        ``smaller_few`` sure indices (the settings') and none came out longer than
        ``smaller_above`` px, or it enlarged the image (too large indices there are the second
        look's to find, at the image's own pixels: :meth:`zoom_size`). Each view halves the one
        before, down to ``smaller_floor`` px."""
        h, w = shape
        ratio = min(size[0] / h, size[1] / w)
        if not self.smaller or ratio > 1:
            return []
        s = self.settings
        sure = scores >= s.zoom_sure
        if sure.sum() >= max(s.smaller_few, 1):
            if float((boxes[sure, 2:] - boxes[sure, :2]).max()) * ratio < s.smaller_above:
                return []
        views = []
        side = max(size) // 2
        while side >= s.smaller_floor:
            square = max(32, round(side / 32) * 32)
            views.append(rect_size(h, w, square) if self.rect else (square, square))
            side //= 2
        return views

    def _find_smaller(self, image: np.ndarray, size: tuple[int, int], found: Found, floor: float) -> Found | None:
        """The first look's boxes with those of the first smaller view (:meth:`smaller_sizes`)
        that finds sure indices too large for the first look (``smaller_keep``), or None when none does.

        A first-look box lying mostly inside such an index (``nested``) but much smaller (its IoU
        under ``iou``) is a piece of it (a rank glyph) and is dropped; the rest and the view's boxes
        go through one NMS (``iou``), so an index both looks found keeps its better-scored box."""
        s = self.settings
        h, w = image.shape[:2]
        first = min(size[0] / h, size[1] / w)
        for view in self.smaller_sizes((h, w), size, found[0], found[1]):
            boxes, scores, classes = self._find_at(image, view, floor)
            large = (boxes[:, 2:] - boxes[:, :2]).max(axis=1, initial=0.0) * first >= s.smaller_keep
            if not (large & (scores >= s.zoom_sure)).any():
                continue
            boxes, scores, classes = boxes[large], scores[large], classes[large]
            piece = ((inside_share(found[0], boxes) >= s.nested) & (iou_matrix(found[0], boxes) < s.iou)).any(axis=1)
            both = tuple(np.concatenate([f[~piece], v]) for f, v in zip(found, (boxes, scores, classes), strict=True))
            keep = nms(both[0], both[1], s.iou, both[2] if self._finder_cards is not None else None)
            return both[0][keep], both[1][keep], both[2][keep]
        return None

    def zoom_size(self, shape: tuple[int, int], size: tuple[int, int], boxes: np.ndarray,
                  scores: np.ndarray) -> tuple[int, int] | None:
        """The (h, w) input of a second look at an image of ``shape`` whose look at ``size``
        found ``boxes``, or None when one look is enough: its indices came out at
        ``zoom_below``-``zoom_above`` px (the settings'), the image is no larger than the input and nothing sure
        was found, or the most a second look may change the scale is not worth it."""
        if not self.zoom:
            return None
        s = self.settings
        h, w = shape
        ratio = min(size[0] / h, size[1] / w)
        sure = scores >= s.zoom_sure
        if sure.any():
            index_px = float(np.median((boxes[sure, 2:] - boxes[sure, :2]).max(axis=1))) * ratio
            want = ratio * s.zoom_target / max(index_px, 1.0)
            if index_px < s.zoom_below:
                # Closer, at most zoom_up times the larger of its own pixels and the first scale.
                want = min(want, s.zoom_up * max(ratio, 1.0))
            elif index_px > s.zoom_above and ratio > 1:
                # Farther, but never under the image's own pixels (camera zones read worse
                # shrunk): only a small image that the first look enlarged.
                want = max(want, 1.0)
            else:
                return None
        elif ratio < 1:
            want = 1.0
        else:
            return None
        long_side = max(h, w)
        first = long_side * ratio
        side = min(long_side * want, s.zoom_max)
        if first / s.zoom_gain < side < first * s.zoom_gain:
            return None
        side = math.ceil(side / 32) * 32
        return rect_size(h, w, side) if self.rect else (side, side)

    def _find_at(self, image: np.ndarray, size: tuple[int, int], floor: float) -> Found:
        # A finder of one input size (an NCNN export) takes a small image at most
        # ``enlarge_max`` times enlarged, in a wider border (:meth:`input_size` does it by
        # the input's size for a finder that takes any).
        padded, fit = letterbox(image, size, None if self.rect else self.settings.enlarge_max)
        raw = self.finder(to_blob(padded))
        boxes, scores, classes = decode_yolo(raw, floor)
        keep = nms(boxes, scores, self.settings.iou, classes if self._finder_cards is not None else None)
        boxes = fit.to_image(boxes[keep])
        wh = boxes[:, 2:] - boxes[:, :2]
        ok = (wh > 1).all(axis=1)  # boxes squashed to nothing by the frame edge
        return boxes[ok], scores[keep][ok], classes[keep][ok]

    # -- stage 2 -------------------------------------------------------------------------
    def read(self, image: np.ndarray, boxes: np.ndarray, base: bool = False, turns: int | None = None) -> np.ndarray:
        """Reader probabilities (N, reader classes) of the index in each box: one batch, then
        the crops read less than the settings' ``sure`` again at the other quarter-turns, averaged.
        ``base``: read with the shipped reader even where a deck profile brings its own (what a
        profile is fitted on). ``turns``: in place of the settings' (1: each crop as it lies)."""
        crops = crop_squares(check_image(image), boxes, self.read_size, self.settings.reader_pad)
        if not len(crops):
            return np.zeros((0, len(self._reader_cards)), np.float32)
        reader = self.reader if base else self.active_reader
        assert reader is not None, "a single-stage detector has no reader"
        probs = self._read_crops(crops, reader)
        turns, sure = self.settings.turns if turns is None else turns, self.settings.sure
        if turns > 1:
            best = probs[:, self._card_columns].max(axis=1)
            unsure = np.ones(len(crops), bool) if sure >= 1 else best < sure
            if unsure.any():
                again = crops[unsure]
                turned = np.concatenate([np.rot90(again, k, axes=(1, 2)) for k in range(1, turns)])
                more = self._read_crops(turned, reader).reshape(turns - 1, len(again), -1)
                probs[unsure] = (probs[unsure] + more.sum(axis=0)) / turns
        return probs

    @staticmethod
    def _read_crops(crops: np.ndarray, reader: Backend) -> np.ndarray:
        if reader.input_shape[0] is None:
            probs = reader(to_blob(crops))
        else:  # a fixed-batch export reads one crop at a time
            probs = np.concatenate([reader(to_blob(c)) for c in crops])
        return np.asarray(probs, np.float32).reshape(len(crops), -1)

    def detect(self, image: np.ndarray, conf: float | None = None) -> Detections:
        """All corner indices of one BGR image with their cards, above ``conf``."""
        dets, keep = self._read_all(image, conf)
        return self._without_nested(dets[keep])

    def detect_faint(self, image: np.ndarray, faint: float) -> tuple[Detections, Detections]:
        """What :meth:`detect` finds, and the reads it leaves out that still score at least
        ``faint``: an index half under the next card of a play (its finder score or its read
        pulled down by what covers it) is no card, but a hint of one that the referee may add
        to a play the rules refuse as read. The finder's floor is ``faint`` at most."""
        dets, keep = self._read_all(image, None, faint)
        return self._without_nested(dets[keep]), dets[~keep & (dets.scores >= faint)]

    def _read_all(self, image: np.ndarray, conf: float | None, faint: float | None = None
                  ) -> tuple[Detections, np.ndarray]:
        """Every box the finder scores at the floor ``conf`` (the settings' when None), the
        joker floors and ``faint`` call for, with its read, and which of them :meth:`detect` keeps."""
        s = self.settings
        conf = s.conf if conf is None else conf
        image = check_image(image)
        # A read multiplies the finder's score by a probability, so a box the finder scores
        # under ``conf`` never reaches it: the finder keeps only boxes at ``conf`` or more
        # (or at a joker floor, for the reader to find the jokers among them).
        single, pair = (f if self.reader is not None and f is not None and f < conf else None
                        for f in (s.joker_floor, s.joker_pair_floor))
        floor = min(f for f in (conf, single, pair, faint) if f is not None)
        boxes, finder_scores, classes = self.find(image, floor if floor > 0 else 1e-3)
        if self._finder_cards is not None:  # a single-stage finder: no reader
            cards = self._finder_cards[classes]
            dets = Detections(boxes, finder_scores, cards, finder_scores,
                              np.full((len(boxes), 0), -1), np.zeros((len(boxes), 0)))
            return dets, dets.scores >= conf
        probs = raw = self.read(image, boxes)
        if self.profile is not None:
            probs = self.profile.blend(probs, s.profile_weight, s.profile_temperature)
        card_probs = probs[:, self._card_columns]
        card_ids = self._reader_cards[self._card_columns]
        order = np.argsort(-card_probs, axis=1)[:, : s.top_k + 1]
        ranked = np.take_along_axis(card_probs, order, axis=1)
        best = ranked[:, 0] if len(boxes) else np.zeros(0, np.float32)
        # The joker floors ask how sure the reader itself is of a joker: a profile's blend
        # softens every read a little, which would drop the faint jokers those floors keep.
        sure = best if raw is probs or not len(boxes) else \
            np.maximum(best, np.take_along_axis(raw[:, self._card_columns], order[:, :1], axis=1)[:, 0])
        dets = Detections(
            boxes,
            finder_scores * best,
            card_ids[order[:, 0]] if len(boxes) else np.zeros(0, np.int64),
            finder_scores,
            card_ids[order[:, 1:]],
            ranked[:, 1:],
        )
        keep = dets.scores >= conf
        joker = np.isin(dets.class_ids, JOKER_IDS)
        if single is not None:
            keep |= joker & (sure >= s.joker_sure) & (finder_scores >= single)
        if pair is not None:
            weak = joker & ~keep & (sure >= s.joker_pair_sure) & (finder_scores >= pair)
            keep |= weak & joker_pairs(dets, keep | weak)
        return dets, keep

    def group(self, image: np.ndarray, detections: Detections, decks: int = 1, span: float | None = None) -> Grouping:
        """The cards ``detections`` (of ``image``) show: :func:`vision.grouping.group_corners`,
        with the suit of each paired card whose index suit is unsure read from its face too
        (the settings' ``face_suit``, ``face_suit_below``, ``face_weight``) when the pip
        classifier is loaded. ``decks`` and ``span`` as ``group_corners`` takes them."""
        s = self.settings
        face = None
        if self.face is not None and s.face_suit:
            face = self.face.vote(check_image(image), detections, s.face_suit_below, s.face_weight)
        return group_corners(detections, decks, span=span, face=face)

    def _without_nested(self, dets: Detections) -> Detections:
        return dets[nested(dets.boxes, dets.scores, dets.class_ids, self.settings.nested)]

    def detect_file(self, path: str | os.PathLike[str], conf: float | None = None) -> Detections:
        return self.detect(read_image(path), conf)

    @property
    def card_names(self) -> tuple[str, ...]:
        return CARD_IDS
