"""Deck enrollment on the live box: the club's own deck taught to the reader from the camera.

The referee lays the deck out on the mat a batch at a time, in rows, in the order the page asks
for (:class:`EnrollPlan`: 18 cards a batch, 9 a row by default). :meth:`DeckEnroller.read` takes
the table session's latest frame (the mat, rectified, when the mat is calibrated; else the whole
frame), reads it with the session's own detector, groups corners into cards as the table reader
does (the detector's ``group``) and returns them in reading order, rows top to
bottom and each row left to right, with each card's read, its alternatives, its corner boxes and
its place in the layout (:mod:`tracker.deck_layout`).
The referee fixes what was misread; :meth:`DeckEnroller.confirm` (over :meth:`add_batch`) keeps
the frame, the boxes and the true cards. :meth:`DeckEnroller.finish` then makes the deck's profile
from every batch, saves it as ``NAME.npz`` in the decks folder (:func:`tracker.paths.decks_dir`,
or the box's own) and makes the running detector read with it from its next frame on:

- with a ``trainer`` (a :data:`Trainer`; ``ddz-table run`` passes one where torch is installed,
  the tracker itself never imports the lab) it fine-tunes a copy of the reader on the batches'
  corners in a thread of its own, about a minute, while :attr:`DeckEnroller.training` says how
  far it is; a trainer that refuses (a :class:`vision.profile.ProfileError`: the tuned reader read
  the corners it held out worse than the base reader) saves nothing, and the walk-through stays
  for another try or to be given up;
- without one it fits the numpy profile there and then (:func:`vision.profile.fit_profile`) and
  also writes the batches as a labelled photo folder ``NAME-photos/`` beside it
  (:mod:`tracker.deck_photos`), from which a computer with the train extra trains the deck's
  reader (``ddz-table enroll --from-labels``).

While a walk-through is under way the session is paused (:meth:`tracker.session.TableSession.pause`):
a deck laid out on the mat is no play. It referees again, starting afresh, once the profile is
saved or the walk-through is given up, or by itself :data:`PAUSE_S` after the last step (a
training renews the pause at each step it reports).

Every refusal is an :class:`EnrollError` whose message is Chinese, then English.

>>> enroller = DeckEnroller(session)                         # doctest: +SKIP
>>> plan = enroller.begin("club")                             # doctest: +SKIP
>>> layout = enroller.read(); enroller.confirm([c.card for c in layout.cards])   # doctest: +SKIP
>>> job = enroller.finish(); job.wait(); job.state, job.path   # doctest: +SKIP
('saved', PosixPath('/home/pi/.local/share/ddz-table/decks/club.npz'))
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tracker.deck_layout import ReadCard, layout_cards
from tracker.deck_photos import photos_folder, write_photos
from tracker.paths import decks_dir
from tracker.zones import CROP_PX_PER_MM, LABEL_INSIDE, LABEL_SURE, zone_label
from vision.cards import CARD_IDS
from vision.detections import Detections
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
#: table back to the session by itself.
PAUSE_S = 600.0
#: ``progress(fraction 0-1, what it is doing in Chinese, in English)``, as a trainer reports.
Progress = Callable[[float, str, str], None]
#: ``trainer(detector, samples, name, progress) -> DeckProfile``: fine-tunes the deck's own reader
#: on ``samples`` (``(image, corner boxes (n, 4) in image px, card of each box)``) and returns the
#: profile carrying it, its ``report`` holding what it measured on the corners it held out
#: (``{"crops", "before", "after", ...}``); a :class:`vision.profile.ProfileError` when it
#: refuses (words Chinese, then English, as ``"zh / en"``). ``detector`` reads under the
#: session's detector lock. Injected by the command (``cli.table``), never imported here.
Trainer = Callable[[Any, list, str, Progress], DeckProfile]
#: Where a finish stands (:class:`Training`): under way, saved, refused (nothing saved), given up.
TRAINING_STATES = ("training", "saved", "refused", "cancelled")

log = logging.getLogger(__name__)


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


@dataclass(eq=False)
class Training:
    """One finish of a walk-through (:meth:`DeckEnroller.finish`) and where it stands, as the page
    shows it: ``state`` (one of :data:`TRAINING_STATES`), how far (``fraction``, 0-1, and what it
    is doing, ``zh`` and ``en``), since when (``started``, epoch seconds), and once done the
    profile file written (``path``), the labelled photo folder written without a trainer
    (``photos``), what the trainer measured (``report``), or why it was refused (``zh``, ``en``).
    ``trained``: whether a trainer made the profile (the deck's own reader)."""

    name: str
    trained: bool
    started: float = field(default_factory=time.time)
    state: str = "training"
    fraction: float = 0.0
    zh: str = "正在准备"
    en: str = "getting ready"
    ended: float | None = None
    path: Path | None = None
    photos: Path | None = None
    report: dict = field(default_factory=dict)
    _done: threading.Event = field(default_factory=threading.Event, init=False, repr=False)
    _stop: bool = field(default=False, init=False, repr=False)

    @property
    def running(self) -> bool:
        return self.state == "training"

    @property
    def seconds(self) -> float:
        """How long it has run (or ran)."""
        return (self.ended if self.ended is not None else time.time()) - self.started

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until it is done (saved, refused or given up); False if ``timeout`` ran out first."""
        return self._done.wait(timeout)

    @property
    def given_up(self) -> bool:
        return self._stop

    def give_up(self) -> None:
        """End it as given up: a trainer still running stops at its next report, saving nothing."""
        self._stop = True
        if self.running:
            self._end("cancelled", "已放弃录入", "enrollment given up")

    def report_progress(self, fraction: float, zh: str, en: str) -> None:
        """A trainer's :data:`Progress`; raises :class:`_Stopped` once the walk-through is given up,
        which ends the trainer at its next report."""
        if self._stop:
            raise _Stopped
        self.fraction, self.zh, self.en = min(max(float(fraction), 0.0), 1.0), str(zh), str(en)

    def _end(self, state: str, zh: str = "", en: str = "") -> None:
        self.state, self.ended = state, time.time()
        if state == "saved":
            self.fraction = 1.0
        if zh or en:
            self.zh, self.en = zh, en
        self._done.set()


class _Stopped(Exception):
    """The walk-through was given up while its reader trained."""


def _words(exc: Exception) -> tuple[str, str]:
    """A refusal's words, Chinese and English: a message written ``"zh / en"`` split at its first
    `` / `` (its Chinese half holds Chinese), else the same words in each, introduced."""
    text = str(exc)
    zh, sep, en = text.partition(" / ")
    if sep and re.search("[\u4e00-\u9fff]", zh):
        return zh.strip(), en.strip()
    return f"没能生成牌组档案：{text}", f"the deck profile could not be made: {text}"


def check_name(name: Any) -> str:
    """``name`` if it can name a deck profile (:data:`vision.profile.NAME_PATTERN`)."""
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise EnrollError("牌组名只能用字母、数字、_ - .（最多 64 个，不以符号开头）",
                          "a deck name is letters, digits, '_', '-' or '.' (up to 64, not starting with a sign)")
    return name


class DeckEnroller:
    """The walk-through on the live session (see the module docstring).

    ``session``: the running :class:`tracker.session.TableSession` (or anything with
    ``detector`` and ``latest_frame()``; ``calibration``, ``px_per_mm``, ``span``,
    ``detector_lock``, ``pause()`` and ``resume()`` are used when there), a callable returning
    the one running now (the demo starts a new one per rendered table), or None (no camera).
    ``folder``: where profiles are saved (default :func:`tracker.paths.decks_dir`).
    ``area``: ``mat`` reads the calibrated mat rectified, ``frame`` the whole frame, ``auto``
    the mat when the session is calibrated. ``pause``: pause the session while enrolling.
    ``trainer``: fine-tunes the deck's own reader on finishing (a :data:`Trainer`); None (no
    torch on this box): the numpy profile and the labelled photos instead."""

    def __init__(self, session: Any = None, folder: str | os.PathLike | None = None, area: str = "auto",
                 pause: bool = True, trainer: Trainer | None = None) -> None:
        if area not in AREAS:
            raise ValueError(f"area must be one of {', '.join(AREAS)}, not {area!r}")
        self._session = session
        self.folder = Path(folder) if folder is not None else None
        self.area, self.pause = area, pause
        self.trainer = trainer
        #: The last finish (under way, or how it ended), for the page; None before any.
        self.training: Training | None = None
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
    def session(self) -> Any:
        p = self._session
        return p() if callable(p) and not hasattr(p, "detector") else p

    def unavailable(self) -> EnrollError | None:
        """Why nothing can be enrolled here (no camera, or a detector without a reader), or None."""
        session = self.session
        if session is None or getattr(session, "detector", None) is None:
            return EnrollError("录入牌组要用摄像头：请用 ddz-table run 启动（不是 serve）",
                               "enrolling a deck needs the camera: start the box with ddz-table run (not serve)")
        if getattr(session.detector, "reader", None) is None:
            return EnrollError("这个识别器没有牌角读取模型（例如 toy 测试识别器），不能录入牌组",
                               "this detector has no index reader (the toy detector, say): it cannot enroll a deck")
        return None

    def _ready(self) -> Any:
        why = self.unavailable()
        if why is not None:
            raise why
        if self.training is not None and self.training.running:
            raise EnrollError("正在训练本牌组的识别模型，请等它完成（或放弃录入）",
                              "the deck's reader is training: wait for it to finish (or give the enrollment up)")
        return self.session

    def _detector_lock(self, session: Any):
        lock = getattr(session, "detector_lock", None)
        return lock if lock is not None else contextlib.nullcontext()

    def saved_folder(self) -> Path:
        return self.folder if self.folder is not None else decks_dir()

    # ------------------------------------------------------------------ the walk-through
    def begin(self, name: str, batch_size: int = BATCH_SIZE, per_row: int = PER_ROW) -> EnrollPlan:
        """Start a walk-through for deck ``name`` (any earlier one is dropped) and pause the
        session's refereeing."""
        with self._lock:
            session = self._ready()
            plan = EnrollPlan(name, batch_size, per_row)
            self.plan, self.batches, self.last = plan, [], None
            self.saved = self.saved_name = self.training = None
            self._pause(session)
            return plan

    def cancel(self) -> None:
        """Give the walk-through up (a reader training stops at its next step and nothing is
        saved); the session referees again."""
        with self._lock:
            if self.training is not None and self.training.running:
                self.training.give_up()
            self.plan, self.batches, self.last = None, [], None
            self._resume()

    def _pause(self, session: Any) -> None:
        """Pause refereeing for :data:`PAUSE_S` more, while a walk-through is under way."""
        if self.pause and self.plan is not None and hasattr(session, "pause"):
            session.pause(PAUSE_S)

    def _resume(self) -> None:
        session = self.session
        if self.pause and session is not None and hasattr(session, "resume"):
            session.resume()

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
            session = self._ready()
            self._pause(session)
            frame = session.latest_frame() if hasattr(session, "latest_frame") else None
            if frame is None:
                raise EnrollError("还没有摄像头画面，请稍等再读取", "no camera frame yet: wait a moment and read again")
            image, area = self._area_image(session, frame.image)
            with self._detector_lock(session):
                dets: Detections = session.detector.detect(image)
            dets = dets[~self._on_labels(session, area, dets)]
            span = getattr(session, "span", None)
            span = span if isinstance(span, float) and span > 0 else None
            # Grouped as the table reader groups: by the detector (vision.protocol.Detector).
            with self._detector_lock(session):
                grouping = session.detector.group(image, dets, 1, span=span)
            if not grouping.cards:
                raise EnrollError("一张牌也没读到：请把牌正面朝上摆在桌垫上，摄像头能看清牌角",
                                  "no card read: lay the cards face up on the mat where the camera sees their corners")
            cards = layout_cards(grouping.cards, dets)
            self._reads += 1
            self.last = LayoutRead(image, cards, area, self._reads)
            return self.last

    def _area_image(self, session: Any, frame: np.ndarray) -> tuple[np.ndarray, str]:
        calibration = getattr(session, "calibration", None)
        area = self.area if self.area != "auto" else ("mat" if calibration is not None else "frame")
        if area == "frame":
            return frame, area
        if calibration is None:
            raise EnrollError("没有标定桌垫，只能读整个画面", "the mat is not calibrated: only the whole frame can be read")
        return calibration.rectify(frame, self._px_per_mm(session)), area

    def _px_per_mm(self, session: Any) -> float:
        return float(getattr(session, "px_per_mm", CROP_PX_PER_MM))

    def _on_labels(self, session: Any, area: str, dets: Detections) -> np.ndarray:
        """Which detections are the mat's printed zone names (a seat number reads like a rank), as
        the table reader drops them: those inside a name, but for a sure read of another rank."""
        calibration = getattr(session, "calibration", None)
        out = np.zeros(len(dets), bool)
        if calibration is None or not len(dets):
            return out
        area_of = np.maximum((dets.boxes[:, 2] - dets.boxes[:, 0]) * (dets.boxes[:, 3] - dets.boxes[:, 1]), 1e-6)
        for zone in calibration.zones:
            x1, y1, x2, y2 = calibration.layout.label_box(zone)
            corners = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64)
            if area == "mat":
                corners = corners * self._px_per_mm(session)
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
            self._pause(self.session)
            return batch

    def skip(self) -> None:
        """Leave the batch to lay out now unenrolled (its cards read as before): for cards the
        finder cannot box on this deck, which no read would ever count right."""
        with self._lock:
            if self.plan is None or self.expected() is None:
                raise EnrollError("没有可跳过的批次", "no batch to skip")
            self.batches.append(None)
            self.last = None
            self._pause(self.session)

    @property
    def confirmed(self) -> list[Batch]:
        return [b for b in self.batches if b is not None]

    # ------------------------------------------------------------------ finishing
    def finish(self, name: str | None = None, folder: str | os.PathLike | None = None) -> Training:
        """Make the deck's profile from every confirmed batch (see the module's text), save it as
        ``NAME.npz`` in ``folder`` (default: :attr:`folder`, else :func:`tracker.paths.decks_dir`)
        and make the running detector read with it. ``name`` defaults to the plan's. Returns the
        :class:`Training` (also :attr:`training`): with a trainer still under way in its thread
        (:meth:`Training.wait`), without one already saved. A refusal before anything starts (no
        batch, a name that names no deck, a training under way) is an :class:`EnrollError`."""
        with self._lock:
            session = self._ready()
            name = check_name(name if name is not None else (self.plan.name if self.plan else None))
            if not self.confirmed:
                raise EnrollError("还没有确认任何一批牌", "no batch confirmed yet")
            detector = _LockedReads(session.detector, self._detector_lock(session))
            samples = [(b.image, b.boxes, b.cards) for b in self.confirmed]
            path = Path(folder if folder is not None else self.saved_folder()) / f"{name}{SUFFIX}"
            if self.trainer is None:
                return self._fit(session, detector, samples, name, path)
            training = self.training = Training(name, trained=True)
            self._pause(session)
            threading.Thread(target=self._train, args=(training, session, detector, samples, path),
                             name=f"enroll-{name}", daemon=True).start()
            return training

    def _fit(self, session: Any, detector: Any, samples: list, name: str, path: Path) -> Training:
        """The finish without a trainer: the numpy profile, saved and read with, and the batches
        as labelled photos beside it for a computer that can train the deck's reader."""
        try:
            profile, _, _ = fit_profile(detector, samples, name)
        except ProfileError as exc:
            raise EnrollError("无法生成牌组档案", f"cannot fit the deck profile: {exc}") from None
        photos = photos_folder(path.parent, name)
        try:
            write_photos(photos, name, samples)
        except OSError as exc:
            raise EnrollError(f"写不了标注照片文件夹 {photos}",
                              f"cannot write the labelled photos {photos}: {exc.strerror or exc}") from None
        self._save(profile, path, session)
        training = self.training = Training(name, trained=False, photos=photos)
        self._saved(session, training, path)
        return training

    def _train(self, training: Training, session: Any, detector: Any, samples: list, path: Path) -> None:
        """The trainer's thread: train, then (unless refused or given up) save and switch on."""
        def progress(fraction: float, zh: str, en: str) -> None:
            training.report_progress(fraction, zh, en)
            with self._lock:
                self._pause(session)  # the walk-through is not left half done while it trains

        try:
            assert self.trainer is not None  # a training starts only with a trainer
            profile = self.trainer(detector, samples, training.name, progress)
            with self._lock:
                if training.given_up:
                    raise _Stopped
                self._save(profile, path, session)
                training.report = dict(getattr(profile, "report", None) or {})
                self._saved(session, training, path)
        except _Stopped:
            pass
        except (ProfileError, EnrollError) as exc:
            zh, en = (exc.zh, exc.en) if isinstance(exc, EnrollError) else _words(exc)
            self._refused(session, training, zh, en)
        except Exception as exc:  # a trainer's fault must not leave the page training for ever
            log.exception("training the deck's reader failed")
            self._refused(session, training, f"训练出错：{exc}", f"training failed: {exc!r}")

    def _save(self, profile: DeckProfile, path: Path, session: Any) -> None:
        """Switch ``profile`` on, then save it; a profile the detector cannot read with (a
        :class:`vision.profile.ProfileError`) is not saved, and one that cannot be saved (an
        :class:`EnrollError`) is switched off again: saved and read with, or neither."""
        before = session.detector.profile
        self.use(profile, session)
        try:
            profile.save(path)
        except OSError as exc:
            self.use(before, session)
            raise EnrollError(f"写不了牌组档案 {path}", f"cannot write the profile {path}: {exc.strerror or exc}") from None

    def _saved(self, session: Any, training: Training, path: Path) -> None:
        with self._lock:
            self.plan, self.batches, self.last = None, [], None
            self.saved, self.saved_name = path, training.name
            training.path = path
            training._end("saved", "已启用", "switched on")
            self._resume()

    def _refused(self, session: Any, training: Training, zh: str, en: str) -> None:
        """Nothing saved; the walk-through stays (its batches kept, to train again or give up)."""
        with self._lock:
            if training.running:
                training._end("refused", zh, en)
                self._pause(session)

    def use(self, profile: DeckProfile | None, session: Any = None) -> None:
        """Make the running detector read with ``profile`` (None: the reader alone) from its next
        read on. The swap is one attribute, made while the session's detector is idle: a read
        sees the old profile or the new one, never a mix."""
        session = session if session is not None else self._ready()
        detector = session.detector
        if profile is not None:
            profile.check_reader(detector.reader_classes)
        with self._detector_lock(session):
            detector.profile = profile

    # ------------------------------------------------------------------ switching decks
    def profiles(self) -> list[str]:
        """The names of the decks saved in :meth:`saved_folder`, to switch between."""
        return [p.name[: -len(SUFFIX)] for p in saved_profiles(self.saved_folder())]

    def in_use(self) -> str | None:
        """The name of the profile the running detector reads with, or None."""
        profile = getattr(getattr(self.session, "detector", None), "profile", None)
        return None if profile is None else profile.name

    def switch(self, name: str) -> str | None:
        """Read with the saved deck ``name`` from the next read on (``""``: with none, the reader
        alone): a table that changes decks between matches. Returns the name now in use."""
        with self._lock:
            session = self._ready()
            if not name:
                self.use(None, session)
                return None
            name = check_name(name)
            path = Path(self.saved_folder()) / f"{name}{SUFFIX}"
            if not path.is_file():
                raise EnrollError(f"没有保存过牌组 {name}", f"no saved deck {name}")
            try:
                self.use(DeckProfile.load(path), session)
            except ProfileError as exc:
                raise EnrollError(f"牌组档案 {name} 用不了：请重新录入", f"the deck profile {name} cannot be used: {exc}") from None
            return name


@dataclass
class _LockedReads:
    """The detector as :func:`vision.profile.fit_profile` and a :data:`Trainer` use it, each read
    (and each search for indices) taken under the session's detector lock, so the live loop goes
    on reading between theirs."""

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

    @property
    def read_size(self) -> int:
        return self.detector.read_size

    def read(self, image: np.ndarray, boxes: np.ndarray, base: bool = False) -> np.ndarray:
        with self.lock:
            return self.detector.read(image, boxes, base=base)

    def find(self, image: np.ndarray, floor: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        with self.lock:
            return self.detector.find(image, floor)

