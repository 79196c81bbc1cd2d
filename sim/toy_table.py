"""A toy camera table for pipeline tests: cards are small white tiles with a colour code
patch (the product's toy deck, :mod:`sim.toy`), hands are skin-coloured blobs, and the
mat is seen through a tilted camera.

``ToyDetector`` (re-exported from :mod:`sim.toy`) reads the patches back from a zone
crop (one detection per tile), so the whole chain (crop, motion, detector, grouping, table
coordinates, stability, referee, store) runs without a trained model. It is honest about
geometry: tiles are found in the crop pixels and must map back to the right zone.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import ArrayLike

from engine.events import Kitty, Pass, Play
from sim.toy import PAPER, ToyDetector, code_colour
from tracker.mat import MM_PER_INCH, render_mat
from tracker.zones import Calibration, MatLayout

__all__ = ["ToyDetector", "ToyTable", "tile_colour"]

DPI = 50
TILE_MM = (18.0, 26.0)  # a small white card...
PATCH_INSET_MM = (2.5, 3.0, 13.0, 20.0)  # ...with its code patch: x, y, w, h
GAP_MM = 4.0
SIZE = (960, 540)


def tile_colour(card: str) -> tuple[int, int, int]:
    return code_colour(card)


class ToyTable:
    """Draws a hand being played on the mat, frame by frame."""

    def __init__(self, seats: int = 3, size: str = "A2", noise: float = 3.0, seed: int = 0,
                 frame_size: tuple[int, int] = SIZE, pile: bool = False) -> None:
        self.layout = MatLayout.standard(seats, size, pile=pile)
        self.pile_mode = pile
        self.arm: tuple[np.ndarray, np.ndarray] | None = None  # from (outside the edge) to the hand, mm
        self.mat = render_mat(self.layout, DPI)
        self.ppm = DPI / MM_PER_INCH
        w, h = self.layout.width_mm, self.layout.height_mm
        table = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        fx, fy = frame_size[0] / SIZE[0], frame_size[1] / SIZE[1]
        image = np.array([[172, 60], [795, 45], [892, 517], [82, 495]], np.float32) * np.array([fx, fy], np.float32)
        self.size = tuple(frame_size)
        self.h_true = cv2.getPerspectiveTransform(table, image)
        self.rng = np.random.default_rng(seed)
        # a few noise fields cycled: sensor noise without drawing millions of normals per frame
        self.noise = [self.rng.normal(0, noise, (self.size[1], self.size[0], 3)).astype(np.int16) for _ in range(5)]
        self.count = 0
        self.piles: dict[str, list[str]] = {name: [] for name in self.layout.zones}
        self.hands_over: set[str] = set()
        self.t = 0.0
        self.fps = 10.0
        self.landed: list[float] = []  # when each placed group of cards appeared
        self._base: np.ndarray | None = None

    def calibration(self) -> Calibration:
        return Calibration.from_markers(self.frame(), self.layout)

    def _slot(self, zone: str, i: int) -> tuple[float, float]:
        poly = self.layout.zones[zone]
        (x1, y1), (x2, _) = poly.min(axis=0) + 10, poly.max(axis=0) - 10
        per_row = int((x2 - x1) // (TILE_MM[0] + GAP_MM))
        row, col = divmod(i, per_row)
        return x1 + col * (TILE_MM[0] + GAP_MM), y1 + 18 + row * (TILE_MM[1] + GAP_MM)

    def _project(self, points_mm: ArrayLike) -> np.ndarray:
        pts = np.asarray(points_mm, np.float64).reshape(-1, 1, 2)
        return np.round(cv2.perspectiveTransform(pts, self.h_true).reshape(-1, 2)).astype(np.int32)

    def frame(self) -> np.ndarray:
        """The camera's view: the mat warped once, tiles and hands drawn straight in the frame."""
        if self._base is None:
            scale = np.diag([1 / self.ppm, 1 / self.ppm, 1.0])
            self._base = cv2.warpPerspective(self.mat, self.h_true @ scale, self.size, borderValue=(70, 90, 80))
        out = self._base.copy()
        for zone, pile in self.piles.items():
            for i, card in enumerate(pile):
                x, y = self._slot(zone, i)
                cv2.fillConvexPoly(out, self._project(_rect(x, y, *TILE_MM)), PAPER)
                px, py, pw, ph = PATCH_INSET_MM
                cv2.fillConvexPoly(out, self._project(_rect(x + px, y + py, pw, ph)), tile_colour(card))
        for zone in self.hands_over:
            c = self.layout.zones[zone].mean(axis=0) + self.rng.normal(0, 8, 2)
            outline = cv2.ellipse2Poly((int(c[0]), int(c[1])), (60, 45), 20, 0, 360, 10)
            cv2.fillPoly(out, [self._project(outline)], (120, 150, 215))
        if self.arm is not None:
            start, tip = self.arm
            d = (tip - start) / max(1e-6, np.linalg.norm(tip - start))
            n = np.array([-d[1], d[0]]) * 35  # a forearm 70 mm wide
            cv2.fillConvexPoly(out, self._project([start + n, tip + n, tip - n, start - n]), (110, 140, 205))
            outline = cv2.ellipse2Poly((int(tip[0]), int(tip[1])), (50, 40), 0, 0, 360, 10)
            cv2.fillPoly(out, [self._project(outline)], (120, 150, 215))
        self.count += 1
        noisy = out.astype(np.int16) + self.noise[self.count % len(self.noise)]
        return np.clip(noisy, 0, 255).astype(np.uint8)

    # ---------------------------------------------------------------- scripted moves
    def frames(self, count: int):
        for _ in range(count):
            yield self.frame(), self.t
            self.t = round(self.t + 1 / self.fps, 3)

    def place(self, zone: str, cards: list[str], still: int = 14):
        self.hands_over = {zone}
        yield from self.frames(3)
        self.piles[zone] = self.piles[zone] + list(cards)
        self.landed.append(self.t)
        yield from self.frames(1)
        self.hands_over = set()
        yield from self.frames(still)

    def sweep(self, zones: list[str], still: int = 10):
        self.hands_over = set(zones)
        yield from self.frames(3)
        for zone in zones:
            self.piles[zone] = []
        yield from self.frames(1)
        self.hands_over = set()
        yield from self.frames(still)

    def edge_point(self, seat: int) -> np.ndarray:
        """A point just outside the mat edge the seat sits at (where its arm comes from)."""
        w, h = self.layout.width_mm, self.layout.height_mm
        edge = {v: k for k, v in self.layout.edge_seats().items()}[seat]
        return np.array({"bottom": (w / 2, h + 40), "top": (w / 2, -40), "left": (-40, h / 2),
                         "right": (w + 40, h / 2), "top_right": (0.62 * w, -40),
                         "top_left": (0.38 * w, -40)}[edge], np.float64)

    def reach(self, seat: int, zone: str, cards: list[str], still: int = 14):
        """A seat's arm reaches in from its edge, drops cards in ``zone`` and withdraws."""
        start, target = self.edge_point(seat), self.layout.zones[zone].mean(axis=0)
        for f in (0.35, 0.7, 1.0):
            self.arm = (start, start + (target - start) * f)
            yield from self.frames(1)
        self.piles[zone] = self.piles[zone] + list(cards)
        self.landed.append(self.t)
        yield from self.frames(1)
        for f in (0.6, 0.25):
            self.arm = (start, start + (target - start) * f)
            yield from self.frames(1)
        self.arm = None
        yield from self.frames(still)

    def play_hand(self, hand):
        """Frames of a folded engine hand (its log): kitty shown, plays, sweeps at trick end."""
        seats = [f"seat{i}" for i in range(hand.players)]
        passes = 0
        for event in hand.events:
            if isinstance(event, Kitty):
                yield from self.place("kitty", [str(c) for c in event.cards])
                yield from self.sweep(["kitty"])
            elif isinstance(event, Play):
                if self.pile_mode:
                    yield from self.reach(event.seat, "pile", [str(c) for c in event.cards])
                else:
                    yield from self.place(seats[event.seat], [str(c) for c in event.cards])
                passes = 0
            elif isinstance(event, Pass):
                passes += 1
                yield from self.frames(4)
                if passes == hand.players - 1:
                    yield from self.sweep(["pile"] if self.pile_mode else seats)
                    passes = 0
        yield from self.sweep((["pile"] if self.pile_mode else seats) + ["kitty"])


def _rect(x: float, y: float, w: float, h: float) -> list[list[float]]:
    return [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]
