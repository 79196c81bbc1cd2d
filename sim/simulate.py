"""The synthetic table: bot-played hands filmed by a top-down camera, frame by frame.

A :class:`SimTable` has :mod:`sim.bots` bid and play hands, then films them: the
printed mat (``tracker.mat``) on a table surface, seen through a mild perspective; each
play tossed with jitter into the playing seat's zone (on top of its earlier plays of the
trick), cards facing the seat, while that seat's arm reaches in from its edge; a pause for
a pass; a sweep of every zone when the trick ends; the kitty shown side by side and swept.
The camera adds a fixed light fall-off and colour cast, slow lighting drift, sensor noise
and JPEG (drawn fast: :mod:`sim.render`). Card art and camera effects are the
detector's (:mod:`sim.synth`); the default deck is held out of detector training, so a
run tests designs the model never saw. With ``tokens`` each seat lays its bid token
(:mod:`tracker.tokens`) in its zone as it bids, and the seats pick them up when bidding ends. ``style="toy"`` films the toy deck
(:mod:`sim.toy`) instead, for the tracker's self-test; ``cards`` deals short hands. ``messy``
films a messy table (:mod:`sim.messy`: cards crooked, a play taken back, a card dropped, a cup
on the mat, a lamp switched on, ...), the same hands disturbed.

``frames()`` yields ``(image, time)``; ``calibration`` matches the rendered geometry
exactly; after the frames, ``truth()`` is the match record whose hands carry
:func:`tracker.match_record.hand_keys` with each action's ``time`` the video time it landed.
Everything follows from the seed.

>>> table = SimTable(SimConfig(seed=1, size=(320, 180)))   # doctest: +SKIP
>>> image, t = next(table.frames())                        # doctest: +SKIP
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from engine.events import Bid, Deal, Double, Kitty, KittyPick, Marker, Pass, Play, Reveal, Shown, retimed
from engine.hand import Hand
from engine.match import Match
from engine.record import dump
from engine.rules import get_rules
from engine.showdown import losers
from sim import messy
from sim.bots import play_hand
from sim.render import Noise, TableLayer, draw_arm, to_jpeg_frame
from sim.synth import clutter, effects
from sim.synth.decks import DECKS, HELD_OUT_DECKS, list_decks, load_deck
from sim.synth.layout import CardPose
from sim.synth.scene import card_affine, scaled_art, tint
from sim.synth.textures import table_surface
from sim.toy import toy_face
from tracker.mat import MM_PER_INCH, render_mat
from tracker.match_record import hand_keys
from tracker.tokens import TOKEN_MM, Token, bid_token, render_token, token_named
from tracker.zones import Calibration, MatLayout

DEFAULT_DECK = "plastic"
assert DEFAULT_DECK in HELD_OUT_DECKS
RULES_FOR_SEATS = {2: "two", 3: "classic", 4: "four", 5: "five"}
STYLES = ("cards", "toy")
TOY_FACE = (315, 440)  # toy card faces are drawn at 5 px per mm
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
    #: ``cards``: the deck's card art; ``toy``: code-patch cards for ``run --detector toy``.
    style: str = "cards"
    #: Cards dealt per seat (a short game for quick self-tests); None: the rules' hand size.
    cards: int | None = None
    #: Each seat lays its bid token (叫分牌) as it bids, for the camera to read the bids.
    tokens: bool = False
    #: After each hand the seats left holding cards lay them face up in their zones (亮牌).
    show: bool = True
    #: The rules preset; None: the one for ``seats`` (RULES_FOR_SEATS). ``dizhu`` seats three.
    rules: str | None = None
    #: Players may double (加倍) once before the first play, x2 each (the ``player_double`` rule,
    #: always on in ``five``); with ``tokens`` each seat lays 加倍 or 不加倍 once the landlord is known.
    double: bool = False
    #: Disturbances of a messy table (:data:`sim.messy.MESSES`): cards crooked, a play taken
    #: back, a cup on the mat, a lamp switched on ... each from its own random stream.
    messy: tuple[str, ...] = ()

    @property
    def preset(self) -> str:
        return self.rules or RULES_FOR_SEATS[self.seats]

    def check(self) -> SimConfig:
        if self.seats not in RULES_FOR_SEATS:
            raise SimError(f"the synthetic table seats 2, 3, 4 or 5 players, not {self.seats}")
        if self.rules is not None:
            try:
                preset = get_rules(self.rules)
            except ValueError as exc:
                raise SimError(str(exc)) from None
            if preset.players != self.seats:
                raise SimError(f"rules {self.rules} seat {preset.players} players, not {self.seats}: "
                               f"give --seats {preset.players}")
        if not 1 <= self.hands <= 200:
            raise SimError(f"hands must be 1..200, not {self.hands}")
        if not 2 <= self.fps <= 60:
            raise SimError(f"fps must be between 2 and 60, not {self.fps}")
        w, h = self.size
        if not (160 <= w <= 4096 and 90 <= h <= 4096):
            raise SimError(f"frame size {w}x{h} is out of range (160x90 .. 4096x4096)")
        if self.deck not in DECKS:
            raise SimError(f"unknown deck {self.deck!r}; held-out decks: {', '.join(HELD_OUT_DECKS)}")
        if self.style == "cards" and self.deck not in list_decks():
            raise SimError(f"deck {self.deck!r} has no jokers or is not installed here; full decks: "
                           f"{', '.join(list_decks())}")
        if self.style not in STYLES:
            raise SimError(f"style must be one of {', '.join(STYLES)}, not {self.style!r}")
        most = get_rules(self.preset).hand_size
        if self.cards is not None and not 1 <= self.cards <= most:
            raise SimError(f"cards per seat must be 1..{most}, not {self.cards}")
        if messy.unknown(tuple(self.messy)):
            raise SimError(f"unknown messy-table disturbance(s) {', '.join(messy.unknown(tuple(self.messy)))}; "
                           f"known: {', '.join(messy.MESSES)} (or all)")
        return self


def parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise SimError(f"size must look like 1280x720, not {text!r}") from None
    return w, h


def _with_cards_shown(hand: Hand) -> Hand:
    """The hand with the seats left holding cards showing them after it (the club habit)."""
    known = hand.known
    assert known is not None  # a simulated deal is known
    shown = [Shown(seat, tuple(known[seat])) for seat in losers(hand)]
    return Hand.from_events(hand.rules, [*hand.events, *shown])


def _seat_axes(layout: MatLayout) -> dict[int, tuple[np.ndarray, np.ndarray, float]]:
    """Per seat: the way it faces (into the table), its right hand, and the card angle that
    turns a face upright for it."""
    facing = {"bottom": (0, -1), "right": (-1, 0), "top": (0, 1), "left": (1, 0)}
    angle = {"bottom": 0.0, "right": -np.pi / 2, "top": np.pi, "left": np.pi / 2}
    out = {}
    for edge, seat in layout.edge_seats().items():
        side = edge.split("_")[0]  # five seats: top_right and top_left sit at the top edge
        f = np.array(facing[side], float)
        out[seat] = (f, np.array([-f[1], f[0]]), angle[side])
    return out


def _seat_shift(layout: MatLayout) -> dict[int, float]:
    """How far along its edge (mm, along the seat's right hand) a seat sits from the middle:
    the two top seats of the five-seat mat sit at the halves of the top edge."""
    quarter = layout.width_mm / 4
    return {seat: {"top_right": -quarter, "top_left": quarter}.get(edge, 0.0)
            for edge, seat in layout.edge_seats().items()}


class SimTable:
    """One simulated sitting: the hands, the camera, and the frames (see the module doc)."""

    def __init__(self, config: SimConfig | None = None) -> None:
        self.config = c = (config or SimConfig()).check()
        self.mess = messy.Mess(tuple(c.messy), c.seed)
        self.rng = np.random.default_rng([c.seed, 7])
        self.layout = MatLayout.standard(c.seats, c.mat)
        self.rules = get_rules(c.preset).replace(player_double=True) if c.double else get_rules(c.preset)
        self.deck = load_deck(c.deck) if c.style == "cards" else None
        self.engine_hands = self._deal_hands()
        self._camera()
        self._axes = _seat_axes(self.layout)
        self._shift = _seat_shift(self.layout)
        face_w, face_h = self.face_size = self.deck.size if self.deck is not None else TOY_FACE
        self.card_mm = (CARD_W_MM, CARD_W_MM * face_h / face_w)
        self._card_scale = CARD_W_MM * self.ppm / face_w  # plane px per face px
        self._art: dict[str, tuple[np.ndarray, float]] = {}
        self.t = 0.0
        self.frame_count = 0
        self.piles: dict[str, list[dict]] = {z: [] for z in self.layout.zones}
        self.placed: list[dict] = []  # every card put down: card, zone, seat, centre_mm, time
        self.tokens: list[dict] = []  # bid tokens lying on the table (picked up when bidding ends)
        self.timeline: list[list[float]] = []  # per hand, per event: the video time
        self.arms: list[tuple[int, tuple[np.ndarray, np.ndarray]]] = []  # seat, (edge point, hand tip) in mm

    # ------------------------------------------------------------------ the game
    def _deal_hands(self) -> list[Hand]:
        """``hands`` finished hands that were played out (redeals are dealt again)."""
        r = random.Random(self.config.seed)
        out: list[Hand] = []
        for _ in range(50 * self.config.hands):
            hand = play_hand(self.rules, r, first_bidder=len(out) % self.config.seats, cards=self.config.cards)
            if hand.finished and not hand.redeal and hand.plays:
                out.append(_with_cards_shown(hand) if self.config.show else hand)
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
        if self.config.style == "toy":
            # the toy code is read relative to the white paper: keep the paper out of clipping,
            # as a camera's auto-exposure would, and the colour cast to what auto white balance
            # leaves (half): a channel at 60 % loses too much of the code to JPEG
            self.light = (light * (1 + (cast - 1) / 2)).astype(np.float32)
            peak = float(self.light.max()) * (1 + 0.72 * self.drift[2]) * 255 / 245
            if peak > 1:
                self.light /= peak
        self.jpeg_quality = int(self.rng.integers(70, 92))
        self.skin = clutter.SKIN_TONES[self.rng.integers(len(clutter.SKIN_TONES))]
        self.sleeves = [self.rng.uniform(20, 200, 3).astype(np.float32) for _ in range(self.config.seats)]
        self.layer = TableLayer(self.base, self.h_canvas, (w, h), self.light)
        self.noise = Noise(self.rng, (w, h))
        self._gain: tuple[float, np.ndarray] | None = None
        self._ramp = (np.linspace(-0.5, 0.5, w, dtype=np.float32)[None, :],
                      np.linspace(-0.5, 0.5, h, dtype=np.float32)[:, None])

    def to_canvas(self, points_mm: Any) -> np.ndarray:
        return (np.asarray(points_mm, float).reshape(-1, 2) + MARGIN_MM) * self.ppm

    # ------------------------------------------------------------------ drawing
    def _affine(self, item: dict) -> np.ndarray:
        if "affine" in item:  # a bid token: drawn at its own size, not a card face's
            return item["affine"]
        _, f = item["art"]
        m = card_affine(item["pose"], *self.face_size)
        m[:, :2] /= f
        return m

    def render(self) -> np.ndarray:
        """The current frame (uint8 BGR): the cached lit table, arms, drift, noise, JPEG."""
        img = self.layer.view.copy()
        for seat, (edge, tip) in self.arms:
            draw_arm(img, self.light, self.calibration.table_to_image([edge, tip]), self.frame_ppm, self.skin,
                     self.sleeves[seat])
        cv2.multiply(img, self._drift_gain(), dst=img)
        if self.mess:
            img = self.mess.frame(img)
        return to_jpeg_frame(self.noise(img), self.jpeg_quality)

    def _drift_gain(self) -> np.ndarray:
        """The lighting drift: a slow tilt of brightness across the frame (period 15-40 s),
        recomputed every half second, which no eye can tell from every frame."""
        step = round(self.t * 2) / 2
        if self._gain is None or self._gain[0] != step:
            a0, period, depth = self.drift
            a = a0 + 2 * np.pi * step / period
            rx, ry = self._ramp
            gain = 1 + depth * (rx * np.float32(np.cos(a)) + ry * np.float32(np.sin(a)))
            self._gain = (step, cv2.merge([gain, gain, gain]))
        return self._gain[1]

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
        return centre - f * (half + 80) + right * (self._shift[seat] + self.rng.uniform(-60, 60))

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
        if zone == "kitty":
            return self._kitty_poses(seat, cards)
        f, right, angle = self._axes[seat]
        poly = self.layout.zones[zone]
        centre = poly.mean(axis=0)
        along = float(np.abs(right) @ (poly.max(0) - poly.min(0)))
        depth = float(np.abs(f) @ (poly.max(0) - poly.min(0)))
        cw, ch = self.card_mm
        step = self.rng.uniform(*self.mess.spread(SPREAD_MM))
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
                v = -height / 2 + ch / 2 + r * ROW_MM + shift[1] + self.rng.normal(0, 1.2)
                # v grows towards the seat: a later row lies nearer the player, on top of the
                # near half of the row before, whose top-left indices (on the far side) still show
                centre_mm = centre + right * u + f * -v + self.mess.nudge()
                a = angle + self.rng.normal(0, 0.06) + self.mess.tilt()
                pose = CardPose(card, 0, True, tuple(self.to_canvas(centre_mm)[0]), a, self._card_scale)
                art = self._card_art(card)
                out.append({"card": card, "zone": zone, "seat": seat, "centre_mm": [float(x) for x in centre_mm],
                            "pose": pose, "art": art, "face": art[0]})
        return out

    def _kitty_poses(self, seat: int, cards: list[str]) -> list[dict]:
        """The kitty turned face up side by side along the kitty zone, facing the landlord:
        shown to everyone, so every card shows (at most a little overlap)."""
        _, _, angle = self._axes[seat]
        poly = self.layout.zones["kitty"]
        lo, hi = poly.min(0), poly.max(0)
        axis = np.array([1.0, 0.0]) if hi[0] - lo[0] >= hi[1] - lo[1] else np.array([0.0, 1.0])
        long = float(axis @ (hi - lo))
        cw, ch = self.card_mm
        a = angle - float(np.arctan2(axis[1], axis[0]))
        extent = abs(np.cos(a)) * cw + abs(np.sin(a)) * ch  # a card's length along the row
        n = len(cards)
        step = min(extent + 6, (long - extent - 10) / max(1, n - 1))
        out = []
        for i, card in enumerate(cards):
            centre_mm = (lo + hi) / 2 + axis * (i - (n - 1) / 2) * step + self.rng.normal(0, 1.5, 2)
            pose = CardPose(card, 0, True, tuple(self.to_canvas(centre_mm)[0]), angle + self.rng.normal(0, 0.04),
                            self._card_scale)
            art = self._card_art(card)
            out.append({"card": card, "zone": "kitty", "seat": seat, "centre_mm": [float(x) for x in centre_mm],
                        "pose": pose, "art": art, "face": art[0]})
        return out

    def _card_art(self, card: str) -> tuple[np.ndarray, float]:
        if card not in self._art:
            if self.deck is None:  # toy cards are flat paper: no tint, curl or sheen
                self._art[card] = scaled_art(toy_face(card, self.face_size), self._card_scale)
            else:
                art, f = scaled_art(np.asarray(self.deck.faces[card]), self._card_scale)
                self._art[card] = (tint(self.rng, art), f)
        return self._art[card]

    def _put(self, zone: str, seat: int, cards: list[str]):
        """An arm from the seat reaches into the zone, the cards land, it withdraws."""
        target = self.layout.zones[zone].mean(axis=0) + self.rng.normal(0, 10, 2)
        yield from self._reach([(seat, target)], REACH_S)
        yield from self._still(HOLD_S)
        landed = self.t
        items = self._poses(zone, seat, cards)
        self.piles[zone].extend(items)
        self.layer.put(items, self._affine)
        for item in items:
            self.placed.append({k: item[k] for k in ("card", "zone", "seat", "centre_mm")} | {"time": landed})
        yield from self._reach([(seat, target)], WITHDRAW_S, back=True)
        return landed

    def _token_item(self, token: Token, seat: int, place: int) -> dict:
        """A token lying in the seat's zone, facing it: the ``place``-th laid there this hand
        lies beside the ones before."""
        f, right, angle = self._axes[seat]
        zone = f"seat{seat}"
        poly = self.layout.zones[zone]
        along = float(np.abs(right) @ (poly.max(0) - poly.min(0)))
        u = min(-along / 2 + TOKEN_MM[0] / 2 + 25 + place * (TOKEN_MM[0] + 8), along / 2 - TOKEN_MM[0] / 2 - 5)
        centre_mm = poly.mean(axis=0) + right * (u + self.rng.normal(0, 3)) + f * self.rng.normal(0, 3)
        px_per_mm = float(np.clip(2 * self.ppm, 2, 40))
        face = render_token(token, px_per_mm)
        face = np.dstack([face, np.full(face.shape[:2], 255, np.uint8)])
        small, shrink = scaled_art(face, self.ppm / px_per_mm)
        pose = CardPose(token.name, 0, True, tuple(self.to_canvas(centre_mm)[0]), angle + self.rng.normal(0, 0.08),
                        self.ppm / px_per_mm)
        m = card_affine(pose, face.shape[1], face.shape[0])
        m[:, :2] /= shrink
        return {"token": token.name, "zone": zone, "seat": seat, "centre_mm": [float(x) for x in centre_mm],
                "face": small, "affine": m}

    def _lay_token(self, seat: int, token: Token):
        """The seat's arm lays its bid token in its zone and withdraws; returns when it landed."""
        item = self._token_item(token, seat, sum(t["seat"] == seat for t in self.tokens))
        target = np.array(item["centre_mm"])
        yield from self._reach([(seat, target)], REACH_S)
        yield from self._still(HOLD_S)
        landed = self.t
        self.tokens.append(item)
        self.layer.put([item], self._affine)
        yield from self._reach([(seat, target)], WITHDRAW_S, back=True)
        yield from self._still(STILL_S)
        return landed

    def _doubling_round(self, hand: Hand):
        """Each seat, from the landlord on, lays 加倍 or 不加倍 (as it doubles in ``hand``) before
        the first play; returns when each token landed, by seat."""
        if self.tokens:
            yield from self._lift_tokens()
        doubled = {e.seat for e in hand.events if isinstance(e, Double)}
        landed: dict[int, float] = {}
        seat = hand.landlord
        for _ in range(hand.players):
            assert seat is not None
            landed[seat] = yield from self._lay_token(seat, token_named("double" if seat in doubled else "no_double"))
            seat = hand.next_seat(seat)
        yield from self._lift_tokens()
        return landed

    def _lift_tokens(self):
        """Bidding is over: every seat picks its tokens up at once."""
        targets = [(t["seat"], np.array(t["centre_mm"])) for t in self.tokens]
        yield from self._reach(targets, REACH_S)
        gone, self.tokens = self.tokens, []
        self.layer.remove(gone, [item for pile in self.piles.values() for item in pile], self._affine)
        yield from self._reach(targets, WITHDRAW_S, back=True)
        yield from self._still(1.0)

    def _before_play(self, hand: Hand, event: Marker | Reveal | Kitty | KittyPick):
        """What the camera is shown before the first play, beyond bids (docs/camera-table.md,
        "Five players and 斗帝主"); returns the time of the event on film.

        - the five-player marker card (标记牌): the seat it fell to lays it face up in its own
          zone for all to see, then takes it back into its hand;
        - a reveal by choice (亮出身份): the hidden landlord lays the twin of the marker face up
          in his zone, then takes it back (an open landlord alone, holding both copies, shows
          nothing: his reveal is the page's);
        - 斗帝主's kitty: turned face up in the kitty zone, facing the 帝主;
        - the 帝主's pick: he takes the cards he keeps from the kitty zone; the cards he leaves
          lie there, out of play, until the hand's last sweep."""
        if isinstance(event, Kitty):
            landlord = hand.landlord
            assert landlord is not None  # the kitty is shown to the 帝主 once he is known
            t = yield from self._put("kitty", landlord, [str(c) for c in event.cards])
            yield from self._still(STILL_S)
            return t
        if isinstance(event, KittyPick):
            return (yield from self._take_from_kitty(event.seat, [str(c) for c in event.cards]))
        card = event.card if isinstance(event, Marker) else hand.marker
        seat = event.seat
        if card is None or (isinstance(event, Reveal) and seat == hand.landlord):
            return self.t
        zone = f"seat{seat}"
        t = yield from self._put(zone, seat, [str(card)])
        yield from self._still(STILL_S)
        yield from self._sweep(seat, [zone])
        return t

    def _take_from_kitty(self, seat: int, cards: list[str]):
        """The seat's arm takes ``cards`` from the kitty zone and withdraws; returns when they went."""
        target = self.layout.zones["kitty"].mean(axis=0) + self.rng.normal(0, 10, 2)
        yield from self._reach([(seat, target)], REACH_S)
        yield from self._still(HOLD_S)
        taken = self.t
        pile, gone = self.piles["kitty"], []
        for card in cards:
            item = next((i for i in pile if i["card"] == card), None)
            if item is not None:
                pile.remove(item)
                gone.append(item)
        if gone:
            self.layer.remove(gone, [item for p in self.piles.values() for item in p], self._affine)
        yield from self._reach([(seat, target)], WITHDRAW_S, back=True)
        yield from self._still(STILL_S)
        return taken

    def _sweep(self, seat: int, zones: list[str]):
        targets = [(seat, self.layout.zones[z].mean(axis=0)) for z in zones if self.piles[z]]
        if not targets:
            return
        yield from self._reach(targets[:1], REACH_S)
        for z in zones:
            self.arms = [(seat, (self._edge(seat), self.layout.zones[z].mean(axis=0)))]
            yield from self._still(SWEEP_S / 2)
            gone, self.piles[z] = self.piles[z], []
            staying = [item for pile in self.piles.values() for item in pile]
            self.layer.remove(gone, staying, self._affine)
        yield from self._reach(targets[-1:], WITHDRAW_S, back=True)
        yield from self._still(1.0)

    def frames(self) -> Iterator[tuple[np.ndarray, float]]:
        """Every frame of every hand, with its time (seconds from the start of the video)."""
        seats = [f"seat{i}" for i in range(self.config.seats)]
        for hand in self.engine_hands:
            times: list[float] = []
            self.timeline.append(times)
            if self.mess:
                self.mess.begin_hand(hand)
            yield from self._still(1.0)
            passes, called = 0, False
            doubling = self.config.tokens and hand.rules.player_double
            laid: dict[int, float] = {}
            for event in hand.events:
                if doubling and (isinstance(event, (Double, Play))):
                    doubling = False  # the doubling round: every seat says 加倍 or 不加倍 with a token
                    laid = yield from self._doubling_round(hand)
                if isinstance(event, Double) and self.config.tokens:
                    times.append(laid[event.seat])
                    continue
                if self.tokens and not isinstance(event, Bid):
                    yield from self._lift_tokens()
                if isinstance(event, Bid) and self.config.tokens:
                    t = yield from self._lay_token(event.seat, bid_token(event.action, event.value, called))
                    times.append(t)
                    called = called or event.action == "call"
                elif isinstance(event, (Marker, Reveal, KittyPick)) or (
                        isinstance(event, Kitty) and hand.rules.kitty_choice and "kitty" in self.layout.zones):
                    t = yield from self._before_play(hand, event)
                    times.append(t)
                elif isinstance(event, Kitty) and "kitty" in self.layout.zones and hand.rules.kitty_shown:
                    landlord = hand.landlord
                    assert landlord is not None  # a kitty is shown to a landlord
                    t = yield from self._put("kitty", landlord, [str(c) for c in event.cards])
                    times.append(t)
                    yield from self._still(STILL_S)
                    yield from self._sweep(landlord, ["kitty"])
                elif isinstance(event, Play):
                    t = yield from self._play(event)
                    times.append(t)
                    passes = 0
                elif isinstance(event, Shown):
                    yield from self._still(STILL_S)
                    t = yield from self._put(seats[event.seat], event.seat, [str(c) for c in event.cards])
                    times.append(t)
                    yield from self._still(STILL_S)
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
            yield from self._sweep(hand.plays[-1].seat, seats + (["kitty"] if self.piles.get("kitty") else []))

    def _play(self, event: Play):
        """A play lands in its seat's zone and lies still; on a messy table with what comes
        with it (:func:`sim.messy.play`). Returns when it landed."""
        cards = [str(c) for c in event.cards]
        if self.mess:
            return (yield from messy.play(self, event.seat, cards, STILL_S))
        t = yield from self._put(f"seat{event.seat}", event.seat, cards)
        yield from self._still(STILL_S)
        return t

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
            events = [retimed(e, round(start if isinstance(e, (Deal, Bid)) else t, 3))
                      for e, t in zip(hand.events, times, strict=True)]
            refolded = Hand.from_events(self.rules, events)
            match.add_hand(refolded, started=start)
            keys.append(hand_keys(refolded))
        data = dump(match)
        for entry, extra in zip(data["hands"], keys, strict=True):
            entry.update(extra)
        data["version"] = data.get("version", 1)
        data["simulate"] = {"seed": self.config.seed, "seats": self.config.seats, "rules": self.rules.name,
                            "deck": self.config.deck,
                            "fps": self.config.fps, "size": list(self.config.size), "style": self.config.style,
                            "cards": self.config.cards, "frames": self.frame_count,
                            "placed": self.placed}
        if self.config.tokens:
            data["simulate"]["tokens"] = True
        # the marker card, a reveal by choice and the 帝主's pick of the kitty are on film
        data["simulate"]["before_play"] = ["marker", "reveal", "kitty_pick"]
        if self.config.double:
            data["simulate"]["double"] = True
        if self.mess:
            data["simulate"]["messy"] = sorted(self.mess.kinds, key=messy.MESSES.index)
            data["simulate"]["mess"] = self.mess.log
        return data
