"""Deck enrollment on the live box: the club's own deck taught to the reader from the camera.

The referee lays the deck out on the mat a batch at a time, in rows, in the order the page asks
for (:class:`EnrollPlan`: 18 cards a batch, 9 a row by default). :meth:`DeckEnroller.read` takes
the pipeline's latest frame (the mat, rectified, when the pipeline is calibrated; else the whole
frame), reads it with the pipeline's own detector, groups corners into cards as the pipeline
does (:func:`vision.grouping.group_corners`) and returns them in reading order, rows top to
bottom and each row left to right, with each card's read, its alternatives, its corner boxes and
its place in the layout (:mod:`tracker.deck_layout`).
The referee fixes what was misread; :meth:`DeckEnroller.confirm` (over :meth:`add_batch`) keeps
the frame, the boxes and the true cards. :meth:`DeckEnroller.finish` fits the deck profile from
every batch (:func:`vision.profile.fit_profile`, numpy only: no torch on the box), saves it as
``NAME.npz`` in the decks folder (:func:`tracker.paths.decks_dir`, or the box's own) and makes
the running detector read with it from its next frame on.

While a walk-through is under way the pipeline is paused (:meth:`tracker.pipeline.Pipeline.pause`):
a deck laid out on the mat is no play. It referees again, starting afresh, once the profile is
saved or the walk-through is given up, or by itself :data:`PAUSE_S` after the last step.

Every refusal is an :class:`EnrollError` whose message is Chinese, then English.

>>> enroller = DeckEnroller(pipeline)                         # doctest: +SKIP
>>> plan = enroller.begin("club")                             # doctest: +SKIP
>>> layout = enroller.read(); enroller.confirm([c.card for c in layout.cards])   # doctest: +SKIP
>>> enroller.finish()                                         # doctest: +SKIP
PosixPath('/home/pi/.local/share/ddz-table/decks/club.npz')
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tracker.deck_layout import ReadCard, layout_cards
from tracker.paths import decks_dir
from tracker.zones import LABEL_INSIDE, LABEL_SURE, zone_label
from vision.cards import CARD_IDS
from vision.detections import Detections
from vision.grouping import group_corners
from vision.profile import NAME_PATTERN, SUFFIX, DeckProfile, ProfileError, fit_profile, saved_profiles

#: The cards a deck is enrolled with, in the order batches ask for them (3♠ 3♥ 3♦ 3♣ 4♠ ... 小王 大王).
DECK_CARDS: tuple[str, ...] = CARD_IDS
#: Cards a batch, and a row of it, unless the referee picks others (a small mat takes fewer).
BATCH_SIZE = 18
PER_ROW = 9
#: What the page may send for a card that is no card of the batch (a mark on the mat read as one).
NOT_A_CARD = ""
#: Areas a frame is read in: the calibrated mat, rectified, or the camera's whole frame.
AREAS = ("auto", "mat", "frame")
#: A walk-through pauses refereeing for this long after each step: one left half done gives the
#: table back to the pipeline by itself.
PAUSE_S = 600.0


class EnrollError(ValueError):
    """Why a walk-through step cannot be done; ``zh`` and ``en`` say it in each language, and
    ``str()`` gives both, Chinese first."""

    def __init__(self, zh: str, en: str) -> None:
        super().__init__(f"{zh} / {en}")
        self.zh, self.en = zh, en


@dataclass(frozen=True)
class EnrollPlan:
    """The walk-through's plan: the deck's name, and the 54 cards cut into batches of
    ``batch_size`` (laid out ``per_row`` a row)."""

    name: str
    batch_size: int = BATCH_SIZE
    per_row: int = PER_ROW

    def __post_init__(self) -> None:
        check_name(self.name)
        if not 1 <= self.batch_size <= len(DECK_CARDS):
            raise EnrollError(f"每批张数须在 1 到 {len(DECK_CARDS)} 之间，不是 {self.batch_size}",
                              f"a batch is 1 to {len(DECK_CARDS)} cards, not {self.batch_size}")
        if not 1 <= self.per_row <= self.batch_size:
            raise EnrollError(f"每行张数须在 1 到每批张数（{self.batch_size}）之间，不是 {self.per_row}",
                              f"a row is 1 to the batch's {self.batch_size} cards, not {self.per_row}")

    @property
    def batches(self) -> tuple[tuple[str, ...], ...]:
        """The cards of each batch, in the order they are laid out."""
        size = self.batch_size
        return tuple(DECK_CARDS[i:i + size] for i in range(0, len(DECK_CARDS), size))

    def rows(self, batch: int) -> list[tuple[str, ...]]:
        """Batch ``batch``'s cards as the rows they are laid out in."""
        cards = self.batches[batch]
        return [cards[i:i + self.per_row] for i in range(0, len(cards), self.per_row)]


@dataclass(frozen=True, eq=False)
class LayoutRead:
    """One read of the laid-out cards: the image read (the rectified mat or the whole frame)
    and its cards in reading order."""

    image: np.ndarray
    cards: tuple[ReadCard, ...]
    area: str
    #: Which read of the enroller this is (1, 2, ...): a page confirms the read it showed.
    number: int = 0


@dataclass(frozen=True, eq=False)
class Batch:
    """A confirmed batch: the image, every corner box of its cards and each box's true card."""

    image: np.ndarray
    boxes: np.ndarray
    cards: tuple[str, ...]

    @property
    def card_ids(self) -> list[str]:
        """The batch's cards, once each, in the order of their boxes."""
        return list(dict.fromkeys(self.cards))


def check_name(name: Any) -> str:
    """``name`` if it can name a deck profile (:data:`vision.profile.NAME_PATTERN`)."""
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise EnrollError("牌组名只能用字母、数字、_ - .（最多 64 个，不以符号开头）",
                          "a deck name is letters, digits, '_', '-' or '.' (up to 64, not starting with a sign)")
    return name


class DeckEnroller:
    """The walk-through on the live pipeline (see the module docstring).

    ``pipeline``: the running :class:`tracker.pipeline.Pipeline` (or anything with
    ``detector`` and ``latest_frame()``; ``calibration``, ``config.px_per_mm``, ``span``,
    ``detector_lock``, ``pause()`` and ``resume()`` are used when there), a callable returning
    the one running now (the demo starts a new one per rendered table), or None (no camera).
    ``folder``: where profiles are saved (default :func:`tracker.paths.decks_dir`).
    ``area``: ``mat`` reads the calibrated mat rectified, ``frame`` the whole frame, ``auto``
    the mat when the pipeline is calibrated. ``pause``: pause the pipeline while enrolling."""

    def __init__(self, pipeline: Any = None, folder: str | os.PathLike | None = None, area: str = "auto",
                 pause: bool = True) -> None:
        if area not in AREAS:
            raise ValueError(f"area must be one of {', '.join(AREAS)}, not {area!r}")
        self._pipeline = pipeline
        self.folder = Path(folder) if folder is not None else None
        self.area, self.pause = area, pause
        self.plan: EnrollPlan | None = None
        #: One per batch of the plan done so far: confirmed, or None when skipped.
        self.batches: list[Batch | None] = []
        self.last: LayoutRead | None = None
        #: The profile file the last finished walk-through saved, and its name.
        self.saved: Path | None = None
        self.saved_name: str | None = None
        self._reads = 0
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ what it works on
    @property
    def pipeline(self) -> Any:
        p = self._pipeline
        return p() if callable(p) and not hasattr(p, "detector") else p

    def unavailable(self) -> EnrollError | None:
        """Why nothing can be enrolled here (no camera, or a detector without a reader), or None."""
        pipeline = self.pipeline
        if pipeline is None or getattr(pipeline, "detector", None) is None:
            return EnrollError("录入牌组要用摄像头：请用 ddz-table run 启动（不是 serve）",
                               "enrolling a deck needs the camera: start the box with ddz-table run (not serve)")
        if getattr(pipeline.detector, "reader", None) is None:
            return EnrollError("这个识别器没有牌角读取模型（例如 toy 测试识别器），不能录入牌组",
                               "this detector has no index reader (the toy detector, say): it cannot enroll a deck")
        return None

    def _ready(self) -> Any:
        why = self.unavailable()
        if why is not None:
            raise why
        return self.pipeline

    def _detector_lock(self, pipeline: Any):
        lock = getattr(pipeline, "detector_lock", None)
        return lock if lock is not None else contextlib.nullcontext()

    def saved_folder(self) -> Path:
        return self.folder if self.folder is not None else decks_dir()

    # ------------------------------------------------------------------ the walk-through
    def begin(self, name: str, batch_size: int = BATCH_SIZE, per_row: int = PER_ROW) -> EnrollPlan:
        """Start a walk-through for deck ``name`` (any earlier one is dropped) and pause the
        pipeline's refereeing."""
        with self._lock:
            pipeline = self._ready()
            plan = EnrollPlan(name, batch_size, per_row)
            self.plan, self.batches, self.last = plan, [], None
            self.saved = self.saved_name = None
            self._pause(pipeline)
            return plan

    def cancel(self) -> None:
        """Give the walk-through up; the pipeline referees again."""
        with self._lock:
            self.plan, self.batches, self.last = None, [], None
            self._resume()

    def _pause(self, pipeline: Any) -> None:
        """Pause refereeing for :data:`PAUSE_S` more, while a walk-through is under way."""
        if self.pause and self.plan is not None and hasattr(pipeline, "pause"):
            pipeline.pause(PAUSE_S)

    def _resume(self) -> None:
        pipeline = self.pipeline
        if self.pause and pipeline is not None and hasattr(pipeline, "resume"):
            pipeline.resume()

    @property
    def batch_number(self) -> int:
        """The batch to lay out now (counted from 0); the plan's count once all are confirmed."""
        return len(self.batches)

    def expected(self) -> tuple[str, ...] | None:
        """The cards of the batch to lay out now; None without a plan or once all are confirmed."""
        plan = self.plan
        if plan is None or self.batch_number >= len(plan.batches):
            return None
        return plan.batches[self.batch_number]

    def expected_at(self, card: ReadCard) -> str | None:
        """The card the plan puts where ``card`` lies (its row and slot), or None."""
        plan, cards = self.plan, self.expected()
        if plan is None or cards is None or card.slot is None or card.slot >= plan.per_row:
            return None
        k = card.row * plan.per_row + card.slot
        return cards[k] if k < len(cards) else None

    # ------------------------------------------------------------------ reading
    def read(self) -> LayoutRead:
        """Read the latest frame (see the module docstring); kept as :attr:`last` for :meth:`confirm`."""
        with self._lock:
            pipeline = self._ready()
            self._pause(pipeline)
            frame = pipeline.latest_frame() if hasattr(pipeline, "latest_frame") else None
            if frame is None:
                raise EnrollError("还没有摄像头画面，请稍等再读取", "no camera frame yet: wait a moment and read again")
            image, area = self._area_image(pipeline, frame.image)
            with self._detector_lock(pipeline):
                dets: Detections = pipeline.detector.detect(image)
            dets = dets[~self._on_labels(pipeline, area, dets)]
            span = getattr(pipeline, "span", None)
            span = span if isinstance(span, float) and span > 0 else None
            # Grouped as the pipeline groups: by the detector itself where it reads card faces too.
            group = getattr(pipeline.detector, "group", None)
            if callable(group):
                with self._detector_lock(pipeline):
                    grouping = group(image, dets, 1, span=span)
            else:
                grouping = group_corners(dets, 1, span=span)
            if not grouping.cards:
                raise EnrollError("一张牌也没读到：请把牌正面朝上摆在桌垫上，摄像头能看清牌角",
                                  "no card read: lay the cards face up on the mat where the camera sees their corners")
            cards = layout_cards(grouping.cards, dets)
            self._reads += 1
            self.last = LayoutRead(image, cards, area, self._reads)
            return self.last

    def _area_image(self, pipeline: Any, frame: np.ndarray) -> tuple[np.ndarray, str]:
        calibration = getattr(pipeline, "calibration", None)
        area = self.area if self.area != "auto" else ("mat" if calibration is not None else "frame")
        if area == "frame":
            return frame, area
        if calibration is None:
            raise EnrollError("没有标定桌垫，只能读整个画面", "the mat is not calibrated: only the whole frame can be read")
        return calibration.rectify(frame, self._px_per_mm(pipeline)), area

    def _px_per_mm(self, pipeline: Any) -> float:
        return float(getattr(getattr(pipeline, "config", None), "px_per_mm", 2.5))

    def _on_labels(self, pipeline: Any, area: str, dets: Detections) -> np.ndarray:
        """Which detections are the mat's printed zone names (a seat number reads like a rank), as
        the pipeline drops them: those inside a name, but for a sure read of another rank."""
        calibration = getattr(pipeline, "calibration", None)
        out = np.zeros(len(dets), bool)
        if calibration is None or not len(dets):
            return out
        area_of = np.maximum((dets.boxes[:, 2] - dets.boxes[:, 0]) * (dets.boxes[:, 3] - dets.boxes[:, 1]), 1e-6)
        for zone in calibration.zones:
            x1, y1, x2, y2 = calibration.layout.label_box(zone)
            corners = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64)
            if area == "mat":
                corners = corners * self._px_per_mm(pipeline)
            else:
                corners = calibration.table_to_image(corners)
            (a1, b1), (a2, b2) = corners.min(axis=0), corners.max(axis=0)
            w = np.clip(np.minimum(dets.boxes[:, 2], a2) - np.maximum(dets.boxes[:, 0], a1), 0, None)
            h = np.clip(np.minimum(dets.boxes[:, 3], b2) - np.maximum(dets.boxes[:, 1], b1), 0, None)
            printed = zone_label(zone)
            own = np.array([card[:-1] == printed for card in dets.cards], bool)
            out |= (w * h / area_of >= LABEL_INSIDE) & ((dets.scores < LABEL_SURE) | own)
        return out

    # ------------------------------------------------------------------ confirming
    def add_batch(self, image: np.ndarray, cards_with_labels: Iterable[tuple[ReadCard, str]],
                  expected: int | None = None) -> Batch:
        """Keep a confirmed batch: ``image`` and, for each ``(card read, its true card)``, the
        card's corner boxes labelled with the true card; a true card of :data:`NOT_A_CARD` leaves
        that read out. One card may label two reads (its two corners, read apart as two cards).
        ``expected``: how many different cards the batch must hold."""
        boxes, labels = [], []
        for card, label in cards_with_labels:
            if label == NOT_A_CARD:
                continue
            if label not in DECK_CARDS:
                raise EnrollError(f"不认识的牌：{str(label)[:12]!r}", f"not a card: {str(label)[:12]!r}")
            for box in np.asarray(card.boxes, np.float64).reshape(-1, 4):
                boxes.append(box)
                labels.append(label)
        named = set(labels)
        if expected is not None and len(named) != expected:
            raise EnrollError(f"这一批应有 {expected} 张牌，现在标了 {len(named)} 张：请摆好后重新读取，或改正标记",
                              f"this batch has {expected} cards, not {len(named)}: lay them out and read again, "
                              "or fix the labels")
        if not named:
            raise EnrollError("这一批没有牌", "this batch holds no card")
        batch = Batch(np.asarray(image), np.array(boxes, np.float64).reshape(-1, 4), tuple(labels))
        with self._lock:
            self.batches.append(batch)
        return batch

    def confirm(self, labels: Sequence[str]) -> Batch:
        """Confirm the last read (:attr:`last`) with the true card of each of its cards, in its
        reading order; the batch must hold the plan's batch's count of cards."""
        with self._lock:
            cards = self.expected()
            if self.plan is None or cards is None:
                raise EnrollError("没有待确认的批次：请先开始录入", "no batch to confirm: start an enrollment first")
            last = self.last
            if last is None:
                raise EnrollError("请先读取这一批", "read this batch first")
            if len(labels) != len(last.cards):
                raise EnrollError(f"读到 {len(last.cards)} 张牌，却给了 {len(labels)} 个标记",
                                  f"{len(last.cards)} cards were read but {len(labels)} labels were given")
            batch = self.add_batch(last.image, zip(last.cards, labels, strict=True), expected=len(cards))
            self.last = None
            self._pause(self.pipeline)
            return batch

    def skip(self) -> None:
        """Leave the batch to lay out now unenrolled (its cards read as before): for cards the
        finder cannot box on this deck, which no read would ever count right."""
        with self._lock:
            if self.plan is None or self.expected() is None:
                raise EnrollError("没有可跳过的批次", "no batch to skip")
            self.batches.append(None)
            self.last = None
            self._pause(self.pipeline)

    @property
    def confirmed(self) -> list[Batch]:
        return [b for b in self.batches if b is not None]

    # ------------------------------------------------------------------ finishing
    def finish(self, name: str | None = None, folder: str | os.PathLike | None = None) -> Path:
        """Fit the profile on every confirmed batch, save it as ``NAME.npz`` in ``folder`` (default:
        :attr:`folder`, else :func:`tracker.paths.decks_dir`) and make the running detector read
        with it. ``name`` defaults to the plan's. Returns the file written."""
        with self._lock:
            pipeline = self._ready()
            name = check_name(name if name is not None else (self.plan.name if self.plan else None))
            if not self.confirmed:
                raise EnrollError("还没有确认任何一批牌", "no batch confirmed yet")
            detector = pipeline.detector
            samples = [(b.image, b.boxes, b.cards) for b in self.confirmed]
            try:
                profile, _, _ = fit_profile(_LockedReads(detector, self._detector_lock(pipeline)), samples, name)
            except ProfileError as exc:
                raise EnrollError("无法生成牌组档案", f"cannot fit the deck profile: {exc}") from None
            path = Path(folder if folder is not None else self.saved_folder()) / f"{name}{SUFFIX}"
            try:
                profile.save(path)
            except OSError as exc:
                raise EnrollError(f"写不了牌组档案 {path}", f"cannot write the profile {path}: {exc.strerror or exc}") from None
            self.use(profile, pipeline)
            self.plan, self.batches, self.last = None, [], None
            self.saved, self.saved_name = path, name
            self._resume()
            return path

    def use(self, profile: DeckProfile | None, pipeline: Any = None) -> None:
        """Make the running detector read with ``profile`` (None: the reader alone) from its next
        read on. The swap is one attribute, made while the pipeline's detector is idle: a read
        sees the old profile or the new one, never a mix."""
        pipeline = pipeline if pipeline is not None else self._ready()
        detector = pipeline.detector
        if profile is not None:
            profile.check_reader(detector.reader_classes)
        with self._detector_lock(pipeline):
            detector.profile = profile

    # ------------------------------------------------------------------ switching decks
    def profiles(self) -> list[str]:
        """The names of the decks saved in :meth:`saved_folder`, to switch between."""
        return [p.name[: -len(SUFFIX)] for p in saved_profiles(self.saved_folder())]

    def in_use(self) -> str | None:
        """The name of the profile the running detector reads with, or None."""
        profile = getattr(getattr(self.pipeline, "detector", None), "profile", None)
        return None if profile is None else profile.name

    def switch(self, name: str) -> str | None:
        """Read with the saved deck ``name`` from the next read on (``""``: with none, the reader
        alone): a table that changes decks between matches. Returns the name now in use."""
        with self._lock:
            pipeline = self._ready()
            if not name:
                self.use(None, pipeline)
                return None
            name = check_name(name)
            path = Path(self.saved_folder()) / f"{name}{SUFFIX}"
            if not path.is_file():
                raise EnrollError(f"没有保存过牌组 {name}", f"no saved deck {name}")
            try:
                self.use(DeckProfile.load(path), pipeline)
            except ProfileError as exc:
                raise EnrollError(f"牌组档案 {name} 用不了：请重新录入", f"the deck profile {name} cannot be used: {exc}") from None
            return name


@dataclass
class _LockedReads:
    """The detector as :func:`vision.profile.fit_profile` uses it, each read taken under the
    pipeline's detector lock, so the live loop goes on reading between the fit's reads."""

    detector: Any
    lock: Any
    reader: Any = field(init=False)

    def __post_init__(self) -> None:
        self.reader = self.detector.reader

    @property
    def reader_classes(self) -> tuple[str, ...]:
        return self.detector.reader_classes

    @property
    def settings(self) -> Any:
        return self.detector.settings

    def read(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        with self.lock:
            return self.detector.read(image, boxes)

