"""A stand-in for the live session whose camera frame is a rendered layout of a deck, and the
true card of each read of it (what a careful referee picks on the deck page); a stand-in
detector and a trainer to watch a finish train (:class:`StubDetector`, :class:`GatedTrainer`)."""

from __future__ import annotations

import dataclasses
import threading

import numpy as np

from sim.synth.enroll_layout import render_layout
from tracker.enroll import NOT_A_CARD, LayoutRead
from vision.cards import CARD_IDS
from vision.profile import DeckProfile, ProfileError, fit
from vision.sources import Frame

#: Indices this tall in the rendered layouts: small images, read in a fraction of a second.
INDEX_PX = 24.0


class FrameSession:
    """What :class:`tracker.enroll.DeckEnroller` uses of a session: a detector, the latest frame,
    the detector lock, pause and resume (counted). No calibration: the whole frame is read."""

    def __init__(self, detector) -> None:
        self.detector = detector
        self.detector_lock = threading.Lock()
        self.frame: Frame | None = None
        self.paused = False
        self.resumed = 0

    def show(self, image: np.ndarray) -> None:
        self.frame = Frame(image, 0.0, 0)

    def lay_out(self, deck, cards, per_row: int, seed, index_px: float = INDEX_PX) -> list[dict]:
        """Render ``cards`` laid out ``per_row`` a row as the camera's frame; their corners."""
        image, corners = render_layout(np.random.default_rng(seed), deck, index_px, cards, per_row)
        self.show(image)
        return corners

    def latest_frame(self) -> Frame | None:
        return self.frame

    def pause(self, for_s: float | None = None) -> None:
        self.paused = True
        self.pause_s = for_s

    def resume(self) -> None:
        self.paused = False
        self.resumed += 1


def _iou(a, b) -> float:
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
    return w * h / union if union > 0 else 0.0


def true_labels(layout: LayoutRead, corners: list[dict]) -> list[str]:
    """Per card read, the rendered card most of its corner boxes lie on (IoU 0.3 or more), or
    :data:`NOT_A_CARD` for a read on no card's corner."""
    labels = []
    for card in layout.cards:
        votes: dict[str, int] = {}
        for box in card.boxes:
            best = max(corners, key=lambda c: _iou(box, c["box"]))
            if _iou(box, best["box"]) >= 0.3:
                votes[best["card"]] = votes.get(best["card"], 0) + 1
        labels.append(max(votes, key=lambda c: votes[c]) if votes else NOT_A_CARD)
    return labels


READER_CLASSES = ("none", *CARD_IDS)


class StubDetector:
    """What the enroller needs of a detector to be taught a deck: a reader, its classes, and the
    profile it reads with (the trainer below never reads through it)."""

    reader = object()
    reader_classes = READER_CLASSES

    def __init__(self) -> None:
        self.profile: DeckProfile | None = None


class GatedTrainer:
    """A trainer that reports each of :attr:`STEPS` and then waits until the test lets it go on
    (:meth:`go`): the test looks at the enroller, and the page, while it trains. It returns a
    profile of the batches' cards for the detector's reader (with a report of held-out reads,
    80% before and 95% after); ``refuse``: the words it refuses with instead; ``fail``: an
    exception it raises."""

    STEPS = ((0.25, "正在训练 1/4", "training 1/4"), (0.92, "正在检验", "checking on the corners held out"))

    def __init__(self, refuse: str | None = None, fail: Exception | None = None) -> None:
        self.refuse, self.fail = refuse, fail
        self.reported = [threading.Event() for _ in self.STEPS]
        self.ended = threading.Event()
        self._gate = threading.Semaphore(0)
        self.calls: list[tuple] = []

    def go(self, steps: int = len(STEPS)) -> None:
        """Let it go on past ``steps`` more of its steps (all, by default)."""
        for _ in range(steps):
            self._gate.release()

    def __call__(self, detector, samples, name, progress) -> DeckProfile:
        try:
            self.calls.append((detector, samples, name))
            for k, step in enumerate(self.STEPS):
                progress(*step)
                self.reported[k].set()
                assert self._gate.acquire(timeout=20), "the test never let the trainer go on"
            if self.fail is not None:
                raise self.fail
            if self.refuse is not None:
                raise ProfileError(self.refuse)
            classes = tuple(detector.reader_classes)
            cards = [c for _, _, batch in samples for c in batch]
            probs = np.full((len(cards), len(classes)), 0.01)
            for k, card in enumerate(cards):
                probs[k, classes.index(card)] = 0.9
            profile = fit(name, classes, probs, cards)
            return dataclasses.replace(profile, report={"crops": 20, "before": 0.8, "after": 0.95})
        finally:
            self.ended.set()


def batch(cards: list[str], seed: int = 0) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """An image and two corner boxes per card (the cards in a row), as a confirmed batch holds them."""
    image = np.random.default_rng(seed).integers(0, 255, (120, 40 * len(cards) + 20, 3), np.uint8)
    boxes = [[10 + 40 * k + dx, 10 + dy, 24 + 40 * k + dx, 34 + dy] for k in range(len(cards))
             for dx, dy in ((0, 0), (16, 70))]
    return image, np.array(boxes, np.float64), [c for c in cards for _ in range(2)]
