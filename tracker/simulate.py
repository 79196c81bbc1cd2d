"""The synthetic table: random engine hands filmed by a top-down camera, frame by frame.

A :class:`SimTable` deals hands with :func:`engine.demo.random_hand`, then films them: the
printed mat (``tracker.mat``) on a table surface, seen through a mild perspective; each
play tossed with jitter into the playing seat's zone (on top of its earlier plays of the
trick), cards facing the seat, while that seat's arm reaches in from its edge; a pause for
a pass; a sweep of every zone when the trick ends; the kitty shown and swept. The camera
adds a fixed light fall-off and colour cast, slow lighting drift, sensor noise and JPEG.
Card art and camera effects are the detector's (:mod:`vision.synth`); the default deck is
held out of detector training, so a run tests designs the model never saw.

``frames()`` yields ``(image, time)``; ``calibration`` matches the rendered geometry
exactly; after the frames, ``truth()`` is the match record whose hands carry
:func:`tracker.export.hand_keys` with each action's ``time`` the video time it landed.
Everything follows from the seed.

>>> table = SimTable(SimConfig(seed=1, size=(320, 180)))   # doctest: +SKIP
>>> image, t = next(table.frames())                        # doctest: +SKIP
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np

from engine.demo import random_hand
from engine.events import Bid, Deal, Kitty, Pass, Play
from engine.hand import Hand
from engine.match import Match
from engine.record import dump
from tracker.export import hand_keys
from tracker.mat import MM_PER_INCH, render_mat
from tracker.zones import Calibration, MatLayout
from vision.synth import clutter, effects
from vision.synth.decks import DECKS, HELD_OUT_DECKS, load_deck
from vision.synth.layout import CardPose
from vision.synth.scene import _card_affine, _place_card, _scaled_art, _tint
from vision.synth.textures import table_surface

DEFAULT_DECK = "plastic"
assert DEFAULT_DECK in HELD_OUT_DECKS
RULES_FOR_SEATS = {2: "two", 3: "classic", 4: "four"}
CARD_W_MM = 63.0
#: Along a play the cards overlap so every top-left index still shows (an index is ~10 mm wide).
SPREAD_MM = (17.0, 21.0)
ROW_MM = 27.0  # a second row of a long play, shifted towards the player
MARGIN_MM = 160.0  # table around the mat in the canvas (arms start out there)
#: Seconds: an arm reaching in, holding over the zone, withdrawing; the table still after a
#: play (the tracker needs a settle time plus k-of-n reads); a pass; a sweep.
REACH_S, HOLD_S, WITHDRAW_S, STILL_S, PASS_S, SWEEP_S = 0.4, 0.2, 0.3, 1.6, 0.8, 0.5


class SimError(ValueError):
    """Bad settings for the synthetic table."""


@dataclass(frozen=True)
class SimConfig:
    seed: int = 0
    seats: int = 3
    hands: int = 1
    deck: str = DEFAULT_DECK
    fps: float = 10.0
    size: tuple[int, int] = (1280, 720)
    mat: str = "A2"

    def check(self) -> SimConfig:
        if self.seats not in RULES_FOR_SEATS:
            raise SimError(f"the synthetic table seats 2, 3 or 4 players, not {self.seats}")
        if not 1 <= self.hands <= 200:
            raise SimError(f"hands must be 1..200, not {self.hands}")
        if not 2 <= self.fps <= 60:
            raise SimError(f"fps must be between 2 and 60, not {self.fps}")
        w, h = self.size
        if not (160 <= w <= 4096 and 90 <= h <= 4096):
            raise SimError(f"frame size {w}x{h} is out of range (160x90 .. 4096x4096)")
        if self.deck not in DECKS:
            raise SimError(f"unknown deck {self.deck!r}; held-out decks: {', '.join(HELD_OUT_DECKS)}")
        return self


def parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise SimError(f"size must look like 1280x720, not {text!r}") from None
    return w, h


def _seat_axes(layout: MatLayout) -> dict[int, tuple[np.ndarray, np.ndarray, float]]:
    """Per seat: the way it faces (into the table), its right hand, and the card angle that
    turns a face upright for it."""
    facing = {"bottom": (0, -1), "right": (-1, 0), "top": (0, 1), "left": (1, 0)}
    angle = {"bottom": 0.0, "right": -np.pi / 2, "top": np.pi, "left": np.pi / 2}
    out = {}
    for edge, seat in layout.edge_seats().items():
        f = np.array(facing[edge], float)
        out[seat] = (f, np.array([-f[1], f[0]]), angle[edge])
    return out


class SimTable:
    """One simulated sitting: the hands, the camera, and the frames (see the module doc)."""

    def __init__(self, config: SimConfig | None = None) -> None:
        self.config = c = (config or SimConfig()).check()
        self.rng = np.random.default_rng([c.seed, 7])
        self.layout = MatLayout.standard(c.seats, c.mat)
        self.rules = RULES_FOR_SEATS[c.seats]
        self.deck = load_deck(c.deck)
        self.engine_hands = self._deal_hands()
        self._camera()
        self._axes = _seat_axes(self.layout)
        face_w, face_h = self.deck.size
        self.card_mm = (CARD_W_MM, CARD_W_MM * face_h / face_w)
        self._card_scale = CARD_W_MM * self.ppm / face_w  # plane px per face px
        self._art: dict[str, tuple[np.ndarray, float]] = {}
        self.t = 0.0
        self.frame_count = 0
        self.piles: dict[str, list[dict]] = {z: [] for z in self.layout.zones}
        self.placed: list[dict] = []  # every card put down: card, zone, seat, centre_mm, time
        self.timeline: list[list[float | None]] = []  # per hand, per event: the video time
        self.arms: list[tuple[np.ndarray, np.ndarray]] = []  # (edge point, hand tip) in mm
        self._static: np.ndarray | None = None

    # ------------------------------------------------------------------ the game
    def _deal_hands(self) -> list[Hand]:
        """``hands`` finished hands that were played out (redeals are dealt again)."""
        r = random.Random(self.config.seed)
        out: list[Hand] = []
        for _ in range(50 * self.config.hands):
            hand = random_hand(self.rules, r, first_bidder=len(out) % self.config.seats)
            if hand.finished and not hand.redeal and hand.plays:
                out.append(hand)
                if len(out) == self.config.hands:
                    return out
        raise SimError("could not deal enough played hands")  # pragma: no cover - redeals are rare

    # ------------------------------------------------------------------ the camera
    def _camera(self) -> None:
        w, h = self.config.size
        mw, mh = self.layout.width_mm, self.layout.height_mm
        fill = self.rng.uniform(0.84, 0.9)
        scale = min(w * fill / mw, h * fill / mh)
        cx, cy = w / 2 + self.rng.uniform(-0.02, 0.02) * w, h / 2 + self.rng.uniform(-0.02, 0.02) * h
        box = np.array([[-mw, -mh], [mw, -mh], [mw, mh], [-mw, mh]]) * scale / 2 + (cx, cy)
        # A camera a little off the vertical: the far edge of the mat looks a little shorter.
        keystone = self.rng.uniform(0.02, 0.05) * mw * scale
        box[0, 0] += keystone / 2
        box[1, 0] -= keystone / 2
        box += self.rng.uniform(-0.008, 0.008, (4, 2)) * (w, h)
        self.corners_px = box
        self.calibration = Calibration.from_corners(box, self.layout, (w, h))
        frame_ppm = scale
        dpi = int(np.clip(round(frame_ppm * 1.3 * MM_PER_INCH), 30, 600))
        self.ppm = dpi / MM_PER_INCH  # canvas pixels per mm (a bit finer than the frame)
        m = MARGIN_MM
        pw, ph = round((mw + 2 * m) * self.ppm), round((mh + 2 * m) * self.ppm)
        base = table_surface(self.rng, ph, pw, "felt" if self.rng.random() < 0.5 else None)
        mat = render_mat(self.layout, dpi).astype(np.float32)
        x0 = y0 = round(m * self.ppm)
        base[y0:y0 + mat.shape[0], x0:x0 + mat.shape[1]] = mat[: ph - y0, : pw - x0]
        self.base = base
        canvas_to_mm = np.array([[1 / self.ppm, 0, -m], [0, 1 / self.ppm, -m], [0, 0, 1]])
        self.h_canvas = self.calibration.homography @ canvas_to_mm
        self.frame_ppm = frame_ppm
        # Fixed for the sitting: the lamp's fall-off, shadows of things outside the frame,
        # white balance; then per frame a slow drift, noise and JPEG.
        ones = np.ones((h, w, 3), np.float32)
        light = effects.lighting(self.rng, ones)
        if self.rng.random() < 0.4:
            light = effects.shadows(self.rng, light)
        light *= self.rng.uniform(0.9, 1.05) / float(np.median(light))
        cast = effects.colour_cast(self.rng, np.full((1, 1, 3), 100, np.float32)) / 100
        self.light = (light * cast).astype(np.float32)
        self.drift = (self.rng.uniform(0, 2 * np.pi), self.rng.uniform(15, 40), self.rng.uniform(0.03, 0.08))
        self.jpeg_quality = int(self.rng.integers(70, 92))
        self.skin = clutter.SKIN_TONES[self.rng.integers(len(clutter.SKIN_TONES))]
        self.sleeves = [self.rng.uniform(20, 200, 3).astype(np.float32) for _ in range(self.config.seats)]

    def to_canvas(self, points_mm: Any) -> np.ndarray:
        return (np.asarray(points_mm, float).reshape(-1, 2) + MARGIN_MM) * self.ppm

    # ------------------------------------------------------------------ drawing
    def _static_frame(self) -> np.ndarray:
        """The mat and the cards on it, warped into the camera (cached until cards change)."""
        if self._static is None:
            canvas = self.base.copy()
            labels = np.zeros(canvas.shape[:2], np.int16)
            shadow = (1, 2, 0.35, 1.5)
            for pile in self.piles.values():
                for k, item in enumerate(pile):
                    art, f = item["art"]
                    m = _card_affine(item["pose"], *self.deck.size)
                    m[:, :2] /= f
                    _place_card(canvas, labels, art, m, k + 1, shadow)
            w, h = self.config.size
            self._static = cv2.warpPerspective(canvas, self.h_canvas, (w, h), flags=cv2.INTER_AREA,
                                               borderMode=cv2.BORDER_REFLECT)
        return self._static

    def _draw_arms(self, img: np.ndarray) -> None:
        for seat, (edge, tip) in self.arms:
            _arm(img, self.calibration.table_to_image([edge, tip]), self.frame_ppm, self.skin, self.sleeves[seat])

    def render(self) -> np.ndarray:
        img = self._static_frame().copy()
        self._draw_arms(img)
        a0, period, depth = self.drift
        w, h = self.config.size
        a = a0 + 2 * np.pi * self.t / period
        ramp = (np.linspace(-0.5, 0.5, w)[None, :] * np.cos(a) + np.linspace(-0.5, 0.5, h)[:, None] * np.sin(a))
        img *= self.light * (1 + depth * ramp.astype(np.float32))[..., None]
        img = effects.sensor_noise(self.rng, img)
        return np.clip(effects.jpeg(self.rng, img, self.jpeg_quality), 0, 255).astype(np.uint8)

    # ------------------------------------------------------------------ moves
    def _still(self, seconds: float) -> Iterator[tuple[np.ndarray, float]]:
        for _ in range(max(1, round(seconds * self.config.fps))):
            yield self.render(), self.t
            self.frame_count += 1
            self.t = round(self.frame_count / self.config.fps, 4)

    def _edge(self, seat: int) -> np.ndarray:
        f, right, _ = self._axes[seat]
        centre = np.array([self.layout.width_mm, self.layout.height_mm]) / 2
        half = np.abs(f) @ centre
        return centre - f * (half + 80) + right * self.rng.uniform(-60, 60)

    def _reach(self, seats_targets: list[tuple[int, np.ndarray]], seconds: float, back: bool = False):
        n = max(1, round(seconds * self.config.fps))
        edges = [(s, self._edge(s), t) for s, t in seats_targets]
        for i in range(n):
            f = (i + 1) / (n + 1)
            f = 1 - f if back else f
            self.arms = [(s, (e, e + (t - e) * (0.4 + 0.6 * f))) for s, e, t in edges]
            yield from self._still(1 / self.config.fps)
        if back:
            self.arms = []

    def _poses(self, zone: str, seat: int, cards: list[str]) -> list[dict]:
        """Where a play lands: a spread row (two for a long play) facing the seat, jittered,
        somewhere in the zone (over earlier plays of the trick)."""
        f, right, angle = self._axes[seat]
        poly = self.layout.zones[zone]
        centre = poly.mean(axis=0)
        along = float(np.abs(right) @ (poly.max(0) - poly.min(0)))
        depth = float(np.abs(f) @ (poly.max(0) - poly.min(0)))
        cw, ch = self.card_mm
        step = self.rng.uniform(*SPREAD_MM)
        per_row = max(1, int((along - cw - 12) // step) + 1)
        rows = [cards[i:i + per_row] for i in range(0, len(cards), per_row)]
        width = cw + step * (min(len(cards), per_row) - 1)
        height = ch + ROW_MM * (len(rows) - 1)
        slack = np.array([max(0.0, along - width - 10), max(0.0, depth - height - 10)]) / 2
        shift = self.rng.uniform(-1, 1, 2) * slack
        out = []
        for r, row in enumerate(rows):
            for i, card in enumerate(row):
                u = -width / 2 + cw / 2 + i * step + shift[0] + self.rng.normal(0, 1.2)
                v = height / 2 - ch / 2 - r * ROW_MM + shift[1] + self.rng.normal(0, 1.2)
                # v grows away from the seat: later rows sit nearer the player, on top
                centre_mm = centre + right * u + f * -v
                a = angle + self.rng.normal(0, 0.06)
                pose = CardPose(card, 0, True, tuple(self.to_canvas(centre_mm)[0]), a, self._card_scale)
                out.append({"card": card, "zone": zone, "seat": seat, "centre_mm": [float(x) for x in centre_mm],
                            "pose": pose, "art": self._card_art(card)})
        return out

    def _card_art(self, card: str) -> tuple[np.ndarray, float]:
        if card not in self._art:
            art, f = _scaled_art(np.asarray(self.deck.faces[card]), self._card_scale)
            self._art[card] = (_tint(self.rng, art), f)
        return self._art[card]

    def _put(self, zone: str, seat: int, cards: list[str]):
        """An arm from the seat reaches into the zone, the cards land, it withdraws."""
        target = self.layout.zones[zone].mean(axis=0) + self.rng.normal(0, 10, 2)
        yield from self._reach([(seat, target)], REACH_S)
        yield from self._still(HOLD_S)
        landed = self.t
        items = self._poses(zone, seat, cards)
        self.piles[zone].extend(items)
        for item in items:
            self.placed.append({k: item[k] for k in ("card", "zone", "seat", "centre_mm")} | {"time": landed})
        self._static = None
        yield from self._reach([(seat, target)], WITHDRAW_S, back=True)
        return landed

    def _sweep(self, seat: int, zones: list[str]):
        targets = [(seat, self.layout.zones[z].mean(axis=0)) for z in zones if self.piles[z]]
        if not targets:
            return
        yield from self._reach(targets[:1], REACH_S)
        for z in zones:
            self.arms = [(seat, (self._edge(seat), self.layout.zones[z].mean(axis=0)))]
            yield from self._still(SWEEP_S / 2)
            self.piles[z] = []
            self._static = None
        yield from self._reach(targets[-1:], WITHDRAW_S, back=True)
        yield from self._still(1.0)

    def frames(self) -> Iterator[tuple[np.ndarray, float]]:
        """Every frame of every hand, with its time (seconds from the start of the video)."""
        seats = [f"seat{i}" for i in range(self.config.seats)]
        for hand in self.engine_hands:
            times: list[float | None] = []
            self.timeline.append(times)
            yield from self._still(1.0)
            passes = 0
            for event in hand.events:
                if isinstance(event, Kitty) and "kitty" in self.layout.zones and hand.rules.kitty_shown:
                    t = yield from self._put("kitty", hand.landlord, [str(c) for c in event.cards])
                    times.append(t)
                    yield from self._still(STILL_S)
                    yield from self._sweep(hand.landlord, ["kitty"])
                elif isinstance(event, Play):
                    t = yield from self._put(seats[event.seat], event.seat, [str(c) for c in event.cards])
                    times.append(t)
                    yield from self._still(STILL_S)
                    passes = 0
                elif isinstance(event, Pass):
                    times.append(self.t)
                    yield from self._still(PASS_S)
                    passes += 1
                    if passes == self.config.seats - 1:
                        winner = hand.plays[-1].seat if hand.plays else event.seat
                        yield from self._sweep(winner, seats)
                        passes = 0
                else:
                    times.append(self.t)
            yield from self._still(STILL_S)
            yield from self._sweep(hand.plays[-1].seat, seats)

    # ------------------------------------------------------------------ the truth
    def truth(self) -> dict[str, Any]:
        """The match record (``engine.record``) with video times and the plain hand keys.

        Call after ``frames()`` is exhausted (the times are when things happened on film)."""
        if len(self.timeline) != len(self.engine_hands) or any(
                len(t) != len(h.events) for t, h in zip(self.timeline, self.engine_hands, strict=True)):
            raise RuntimeError("truth() needs every frame rendered first")
        match = Match(self.rules, tuple(f"P{i}" for i in range(self.config.seats)))
        keys = []
        for hand, times in zip(self.engine_hands, self.timeline, strict=True):
            start = times[0] or 0.0
            events = [replace(e, time=round(start if isinstance(e, (Deal, Bid)) else t, 3))
                      for e, t in zip(hand.events, times, strict=True)]
            refolded = Hand.from_events(self.rules, events)
            match.add_hand(refolded, started=start)
            keys.append(hand_keys(refolded))
        data = dump(match)
        for entry, extra in zip(data["hands"], keys, strict=True):
            entry.update(extra)
        data["version"] = data.get("version", 1)
        data["simulate"] = {"seed": self.config.seed, "seats": self.config.seats, "deck": self.config.deck,
                            "fps": self.config.fps, "size": list(self.config.size), "frames": self.frame_count,
                            "placed": self.placed}
        return data


def _arm(img: np.ndarray, pts: np.ndarray, ppm: float, skin: np.ndarray, sleeve: np.ndarray) -> None:
    """A forearm in a sleeve from ``pts[0]`` (off the table) to a hand at ``pts[1]`` (frame px),
    with a soft shadow on the table: what the tracker's motion check has to see."""
    h, w = img.shape[:2]
    start, tip = pts
    d = tip - start
    d = d / max(1e-6, float(np.linalg.norm(d)))
    n = np.array([-d[1], d[0]])
    s = 75 * ppm  # a palm about 75 mm across
    wrist = tip - d * 0.9 * s
    mask = np.zeros((h, w), np.uint8)
    cloth = np.zeros((h, w), np.uint8)
    cv2.line(cloth, _pt(start - d * s), _pt(wrist - d * 0.4 * s), 1, max(2, int(1.1 * s)), cv2.LINE_AA)
    cv2.line(mask, _pt(start), _pt(wrist), 1, max(2, int(0.75 * s)), cv2.LINE_AA)
    cv2.ellipse(mask, _pt(wrist + d * 0.45 * s), (max(1, int(0.6 * s)), max(1, int(0.5 * s))),
                float(np.degrees(np.arctan2(d[1], d[0]))), 0, 360, 1, -1, cv2.LINE_AA)
    for i in range(4):
        base = wrist + d * 0.8 * s + n * (i - 1.5) * 0.22 * s
        cv2.line(mask, _pt(base), _pt(base + d * (0.75 - 0.1 * abs(i - 1.5)) * s), 1, max(2, int(0.2 * s)),
                 cv2.LINE_AA)
    cv2.line(mask, _pt(wrist + n * 0.4 * s), _pt(wrist + d * 0.5 * s + n * 0.8 * s), 1, max(2, int(0.22 * s)))
    cover = ((mask | cloth) > 0).astype(np.float32)
    shadow = cv2.GaussianBlur(np.roll(cover, (int(0.25 * s), int(0.15 * s)), (0, 1)), (0, 0), max(1.0, 0.15 * s))
    img *= (1 - 0.35 * shadow)[..., None]
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    shade = 0.8 + 0.25 * np.clip(dist / max(1.0, 0.2 * s), 0, 1)
    clutter._paint(img, clutter._soft(mask, 0.8), skin.astype(np.float32), shade)
    clutter._paint(img, clutter._soft(cloth & (1 - mask), 0.8), sleeve)


def _pt(p: np.ndarray) -> tuple[int, int]:
    return int(round(float(p[0]))), int(round(float(p[1])))
