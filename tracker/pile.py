"""Centre-pile protocol (second mode): everyone plays onto one pile in the middle.

The cards do not say who played them, so the seat is the one whose edge of the table the
hand came in from. :class:`EntryWatcher` looks at the whole mat, top-down and coarse, each
frame: the pixels that changed since the last frame form blobs; a blob reaching into the
pile is an arm, and the mat edge it is nearest to (where it crosses into view) names the
seat (:meth:`tracker.zones.MatLayout.edge_seats`). The last seat seen reaching into the pile
is the one a newly settled play is credited to; the referee then checks it against the turn
order like any play (seats skipped in between passed; a play at someone else's lead is out
of turn).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from tracker.zones import Calibration

#: The coarse top-down view the watcher compares (a forearm is 60+ mm wide).
WATCH_PX_PER_MM = 0.4


@dataclass
class Entry:
    seat: int
    time: float
    edge: str


class EntryWatcher:
    """Tells which seat's hand reached into the pile, frame after frame."""

    def __init__(self, calibration: Calibration, zone: str = "pile", px_per_mm: float = WATCH_PX_PER_MM,
                 level: int = 28, min_share: float = 0.02) -> None:
        if zone not in calibration.zones:
            raise ValueError(f"the calibration has no {zone!r} zone: print and calibrate the mat with --pile")
        self.calibration, self.px_per_mm, self.level = calibration, px_per_mm, level
        layout = calibration.layout
        self.edges = layout.edge_seats()
        self.size = (round(layout.width_mm * px_per_mm), round(layout.height_mm * px_per_mm))
        self.pile = np.zeros((self.size[1], self.size[0]), np.uint8)
        cv2.fillPoly(self.pile, [np.round(calibration.zones[zone] * px_per_mm).astype(np.int32)], 1)
        self.min_pixels = max(4, int(min_share * self.pile.sum()))
        self.previous: np.ndarray | None = None
        self.last: Entry | None = None

    def update(self, image: np.ndarray, time: float) -> Entry | None:
        """Look at one frame; returns the entry seen now (also kept as ``last``), if any."""
        grey = cv2.cvtColor(self.calibration.rectify(image, self.px_per_mm), cv2.COLOR_BGR2GRAY)
        grey = cv2.GaussianBlur(grey, (3, 3), 0)
        previous, self.previous = self.previous, grey
        if previous is None or previous.shape != grey.shape:
            return None
        moved: np.ndarray = (cv2.absdiff(grey, previous) > self.level).astype(np.uint8)
        moved = cv2.dilate(moved, np.ones((5, 5), np.uint8))
        count, labels, stats, _ = cv2.connectedComponentsWithStats(moved, connectivity=8)
        best: tuple[int, int] | None = None  # (pixels over the pile, label)
        for i in range(1, count):
            over = int(self.pile[labels == i].sum())
            if over >= self.min_pixels and (best is None or over > best[0]):
                best = (over, i)
        if best is None:
            return None
        x, y, w, h, _ = stats[best[1]]
        gaps = {"left": x, "top": y, "right": self.size[0] - (x + w), "bottom": self.size[1] - (y + h)}
        edge = min(gaps, key=lambda e: gaps[e])
        if edge not in self.edges:  # from the side nobody sits at (the kitty's), not a play
            return None
        self.last = Entry(self.edges[edge], time, edge)
        return self.last
