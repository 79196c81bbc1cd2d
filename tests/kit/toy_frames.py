"""Toy-table frames and detectors shared by the reader's, the session's and the tokens' tests:
a detector that also reads the mat's printed zone names, one that reads every tile unsure, and the
toy table with bid tokens pasted where seats lay them."""

from __future__ import annotations

import cv2
import numpy as np

from sim.toy_table import ToyDetector, ToyTable
from tracker.tokens import TOKEN_MM, render_token, token_named
from vision.detections import Detections


class LabelReadingDetector(ToyDetector):
    """Also reads the mat's printed zone name as a card in every crop, as the card finder
    does ("2" as 2s, at 0.3: the films' label reads scored 0.02-0.32), and a card index half
    over it that is really there (``kept``), or ``inside`` it whole, read ``(card, score)``."""

    def __init__(self, layout, kept=False, inside=None):
        super().__init__()
        self.layout, self.kept, self.inside = layout, kept, inside

    def detect(self, image):
        dets = super().detect(image)
        ppm = self.px_per_mm
        zone = next((z for z, poly in self.layout.zones.items()  # the crop's zone, by its size
                     if image.shape[1] == max(1, round(float(np.ptp(poly[:, 0])) * ppm))
                     and image.shape[0] == max(1, round(float(np.ptp(poly[:, 1])) * ppm))), None)
        if zone is None:  # a crop past the zone's edges (cards shown after the hand): cards only
            return dets
        x1, y1, x2, y2 = np.subtract(self.layout.label_box(zone), [*self.layout.zones[zone].min(axis=0)] * 2) * ppm
        boxes, cards, scores = [[x1 + 1, y1 + 2, x2 - 1, y2]], ["2s"], [0.3]
        if self.kept:  # an index whose box reaches well out of the label's
            boxes.append([x2 - 4, y1 + 10, x2 - 4 + 8 * ppm, y1 + 10 + 20 * ppm])
            cards.append("9s")
            scores.append(0.6)
        if self.inside:  # an index lying on the label, its box inside the label's
            boxes.append([x1 + 2, y1 + 3, x2 - 2, y2 - 1])
            cards.append(self.inside[0])
            scores.append(self.inside[1])
        extra = Detections(np.array(boxes, np.float32), np.array(scores), np.zeros(len(boxes), np.int64))
        extra = extra.with_cards(cards)
        return Detections.concat([dets, extra]) if len(dets) else extra


class UnsureDetector(ToyDetector):
    """Reads every toy tile right but only ``reader_p`` sure, as the reader reads a deck it never learnt."""

    def __init__(self, reader_p: float, profile=None):
        super().__init__()
        self.reader_p, self.profile = reader_p, profile

    def detect(self, image):
        dets = super().detect(image)
        read = Detections(dets.boxes, dets.finder_scores * self.reader_p, np.zeros(len(dets), np.int64),
                          dets.finder_scores)
        return read.with_cards(dets.cards)


class TokenTable:
    """The toy table with token cards pasted into its frames where seats lay them."""

    def __init__(self, seed: int = 0, pile: bool = False, seats: int = 3) -> None:
        self.table = ToyTable(seats=seats, seed=seed, pile=pile)
        self.lying: dict[tuple[str, str], np.ndarray] = {}  # (zone, token) -> 3x3 card px -> frame px
        self._cards: dict[str, np.ndarray] = {}

    def _paste(self, image: np.ndarray) -> np.ndarray:
        for (_, name), h in self.lying.items():
            card = self._cards.setdefault(name, render_token(token_named(name), 8.0, chinese=False))
            ch, cw = card.shape[:2]
            corners = cv2.perspectiveTransform(np.array([[[0, 0]], [[cw, 0]], [[cw, ch]], [[0, ch]]], np.float64), h)
            x1, y1 = np.floor(corners.reshape(-1, 2).min(axis=0)).astype(int)
            x2, y2 = np.ceil(corners.reshape(-1, 2).max(axis=0)).astype(int) + 1
            to_box = np.array([[1, 0, -x1], [0, 1, -y1], [0, 0, 1]]) @ h  # only the card's box is drawn
            size = (int(x2 - x1), int(y2 - y1))
            warped = cv2.warpPerspective(card, to_box, size, flags=cv2.INTER_AREA)
            mask = cv2.warpPerspective(np.full((ch, cw), 255, np.uint8), to_box, size) > 127
            image[y1:y2, x1:x2][mask] = warped[mask]
        return image

    def stream(self, frames):
        for image, t in frames:
            yield self._paste(image), t

    def still(self, count: int):
        yield from self.stream(self.table.frames(count))

    def where(self, zone: str, name: str, angle: float, at: tuple[float, float] | None = None) -> np.ndarray:
        """Where a token lies: at the far end of the zone from where the toy table puts cards,
        or centred on ``at`` (table mm)."""
        poly = self.table.layout.zones[zone]
        (x1, y1), (x2, y2) = poly.min(axis=0), poly.max(axis=0)
        centre = at if at is not None else (x2 - 55, (y1 + y2) / 2) if x2 - x1 > y2 - y1 else ((x1 + x2) / 2, y2 - 58)
        a = np.radians(angle)
        r = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) / 8.0
        t = np.array(centre) - r @ np.array([TOKEN_MM[0] * 4, TOKEN_MM[1] * 4])
        return self.table.h_true @ np.vstack([np.column_stack([r, t]), [0, 0, 1]])

    def lay(self, seat: int, name: str, angle: float = 12.0, still: int = 12, zone: str | None = None,
            at: tuple[float, float] | None = None):
        zone = zone or f"seat{seat}"
        self.table.hands_over = {zone}
        yield from self.still(3)
        self.lying[(f"{zone}@{seat}", name)] = self.where(zone, name, angle, at)
        self.table.hands_over = set()
        yield from self.still(still)

    def lift(self, seat: int, name: str, still: int = 8):
        zone = f"seat{seat}"
        self.table.hands_over = {zone}
        yield from self.still(3)
        del self.lying[(f"{zone}@{seat}", name)]
        self.table.hands_over = set()
        yield from self.still(still)
