"""A stand-in for the live pipeline whose camera frame is a rendered layout of a deck, and the
true card of each read of it (what a careful referee picks on the deck page)."""

from __future__ import annotations

import threading

import numpy as np

from sim.synth.enroll_layout import render_layout
from tracker.enroll import NOT_A_CARD, LayoutRead
from vision.sources import Frame

#: Indices this tall in the rendered layouts: small images, read in a fraction of a second.
INDEX_PX = 24.0


class FramePipeline:
    """What :class:`tracker.enroll.DeckEnroller` uses of a pipeline: a detector, the latest frame,
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
        labels.append(max(votes, key=votes.get) if votes else NOT_A_CARD)
    return labels
