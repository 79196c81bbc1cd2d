"""A messy table: what players do at a real table besides playing, as options of the synthetic table.

``SimConfig(messy=("pushed", "dropped"))`` (``ddz-table simulate --messy pushed,dropped``, or
``--messy all``) films the same bot-played hands with these disturbances, each drawn from its
own random stream so the hands, the deck and the camera stay those of the tidy film:

- ``crooked``: a play lands turned up to about 30 degrees, as it was fanned in the hand (each
  card a few degrees off its neighbours), and its cards a few millimetres off the row;
- ``overlap``: the cards of a play overlap more (11-13 mm apart: an index is about 10 mm wide);
- ``pushed``: the player pushes the play a few centimetres further in before it settles;
- ``squared``: once a play lies still, a player whose cards of the trick it beat squares them up
  into one neat stack (only the top card shows); nobody squares the play to beat, which the
  next seat must see;
- ``dropped`` (掉牌): a player who is not on turn drops a card of his hand face up into his
  zone, and picks it back up a couple of seconds later;
- ``takeback``: a player lays one card more than his play, and takes it back once it lies still;
- ``object``: a phone or a cup is put down in a zone for a few seconds;
- ``sleeve``: a player's sleeve rests still over a zone for a few seconds;
- ``lamp``: a lamp is switched on mid-hand (brighter, warmer, brightest on one side);
- ``knock``: the camera is knocked a few millimetres mid-hand and stays there.

Of these, :data:`FAULTS` are cards on the table that are no play: the camera cannot read them
right by looking alone, so each must end as an alert to the referee (``tracker.alerts``
``taken_back``) or as a play the rules refuse, never as a silent wrong score. The film's truth
lists every disturbance with its video times under ``simulate.mess`` (:meth:`Mess.log`),
which ``python -m bench.tracker --messy`` scores against.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from engine.events import Play
from engine.hand import Hand

#: Every disturbance, in the order the options are listed.
MESSES = ("crooked", "overlap", "pushed", "squared", "dropped", "takeback", "object", "sleeve", "lamp", "knock")
#: Cards on the table that are no play: each must be refused or raised as an alert.
FAULTS = ("dropped", "takeback")
#: Cards of a play lie this far apart (mm) on an overlapping table (tidy: sim.simulate.SPREAD_MM).
OVERLAP_MM = (11.0, 13.0)
#: A crooked play: its turn as a whole and each card's own (standard deviations, radians; 0.25
#: is 14 degrees, so about one play in twenty lies turned more than 28), and each card's offset
#: from the row (mm). A fan held in the hand keeps its cards' order and spacing as it lands, so
#: each card's corner index still shows beside the next card.
CROOKED_TURN, CROOKED_CARD, CROOKED_MM = 0.25, 0.05, 2.0
#: How often a play is pushed, taken back or followed by a beaten seat squaring its cards up; a
#: hand gets at most this many take-backs.
PUSH_SHARE, TAKEBACK_SHARE, SQUARE_SHARE, TAKEBACKS = 0.4, 0.35, 0.5, 2

Frames = Iterator[tuple[np.ndarray, float]]


def parse_messy(text: str) -> tuple[str, ...]:
    """``crooked,lamp`` -> the disturbances named; ``all`` -> every one. Unknown names are
    left for :meth:`sim.simulate.SimConfig.check` to refuse with the list of known ones."""
    text = text.strip()
    if text == "all":
        return MESSES
    return tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))


def unknown(names: tuple[str, ...]) -> list[str]:
    return [n for n in names if n not in MESSES]


class Mess:
    """The disturbances of one film: their own random stream, what is on at the moment (the
    lamp, the camera's knock) and the log of what was done when."""

    def __init__(self, kinds: tuple[str, ...], seed: int) -> None:
        self.kinds = frozenset(kinds)
        self.rng = np.random.default_rng([seed, 45])
        self.log: list[dict[str, Any]] = []
        self.hand = -1
        self.plays = 0  # plays filmed in this hand
        self.held: dict[int, Counter[str]] = {}
        self.takebacks = 0
        self.lamp: np.ndarray | None = None
        self.shift: np.ndarray | None = None
        self.turn = 0.0  # the crooked play landing now: its turn as a whole (radians)
        self._moments: dict[str, int] = {}  # once-a-hand disturbances: after which play of the hand

    def __bool__(self) -> bool:
        return bool(self.kinds)

    def on(self, kind: str) -> bool:
        return kind in self.kinds

    # ------------------------------------------------------------------ the cards' poses
    def spread(self, tidy: tuple[float, float]) -> tuple[float, float]:
        """How far apart a play's cards lie (mm); asked once a play, as it lands, which is also
        when a crooked play's turn is drawn (:meth:`tilt`)."""
        if self.on("crooked"):
            self.turn = float(self.rng.normal(0, CROOKED_TURN))
        return OVERLAP_MM if self.on("overlap") else tidy

    def tilt(self) -> float:
        """A card's turn (radians) beyond the tidy table's: the play's, and a little of its own."""
        return self.turn + float(self.rng.normal(0, CROOKED_CARD)) if self.on("crooked") else 0.0

    def nudge(self) -> np.ndarray:
        return self.rng.normal(0, CROOKED_MM, 2) if self.on("crooked") else np.zeros(2)

    # ------------------------------------------------------------------ the hand
    def begin_hand(self, hand: Hand) -> None:
        """A hand starts: what each seat holds once play starts, and when the once-a-hand
        disturbances come (after which play)."""
        self.hand += 1
        self.plays = 0
        self.takebacks = 0
        first = next((i for i, e in enumerate(hand.events) if isinstance(e, Play)), len(hand.events))
        start = Hand.from_events(hand.rules, hand.events[:first])
        known = start.known or [[] for _ in range(hand.players)]
        self.held = {seat: Counter(str(c) for c in cards) for seat, cards in enumerate(known)}
        plays = sum(isinstance(e, Play) for e in hand.events)
        last = max(1, plays - 2)
        self._moments = {kind: int(self.rng.integers(1, last + 1)) for kind in ("object", "sleeve", "drop")}
        if self.hand == 0:  # the lamp and the knock: once a film, in its first hand
            self._moments |= {kind: int(self.rng.integers(1, last + 1)) for kind in ("lamp", "knock")}

    def moment(self, kind: str) -> bool:
        return self._moments.get(kind) == self.plays

    def note(self, kind: str, start: float, end: float | None = None, **what: Any) -> dict[str, Any]:
        entry = {"kind": kind, "hand": self.hand, "time": round(start, 3),
                 "end": round(end if end is not None else start, 3)} | what
        self.log.append(entry)
        return entry

    # ------------------------------------------------------------------ the frame
    def frame(self, img: np.ndarray) -> np.ndarray:
        """The lamp's light and the knocked camera on a lit frame (float32 BGR)."""
        if self.lamp is not None:
            cv2.multiply(img, self.lamp, dst=img)
        if self.shift is not None:
            h, w = img.shape[:2]
            img = cv2.warpAffine(img, self.shift, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        return img

    def switch_lamp(self, size: tuple[int, int]) -> None:
        """A lamp beside the table: a warm light, brightest towards one side of the frame."""
        w, h = size
        cx, cy = self.rng.uniform(0, w), self.rng.uniform(0, h)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        spot = np.exp(-(((xx - cx) / w) ** 2 + ((yy - cy) / h) ** 2) / 0.18)
        gain = 1.04 + 0.2 * spot
        warm = np.array([0.93, 1.0, 1.07], np.float32)  # BGR: warmer light
        self.lamp = cv2.merge([(gain * warm[i]).astype(np.float32) for i in range(3)])

    def knock(self, px: float) -> None:
        """The camera knocked: the view moves ``px`` pixels and turns a little, for good."""
        a = float(self.rng.uniform(0, 2 * np.pi))
        turn = float(self.rng.uniform(-0.004, 0.004))
        self.shift = np.array([[np.cos(turn), -np.sin(turn), px * np.cos(a)],
                               [np.sin(turn), np.cos(turn), px * np.sin(a)]], np.float32)


# ---------------------------------------------------------------------- on the table
def play(table: Any, seat: int, cards: list[str], still_s: float) -> Iterator[Any]:
    """A play filmed with the disturbances that come with it; returns when it landed."""
    mess: Mess = table.mess
    zone = f"seat{seat}"
    if mess.on("dropped") and mess.moment("drop"):
        yield from drop(table, seat)
    extra = _extra_card(mess, seat, cards) if mess.on("takeback") else None
    landed = yield from table._put(zone, seat, cards + ([extra] if extra else []))
    mess.plays += 1
    mess.held[seat] -= Counter(cards)
    laid = table.piles[zone][-(len(cards) + (1 if extra else 0)):]
    if extra is not None:
        table.placed.pop()  # the extra card is no card of the play
    if mess.on("pushed") and mess.rng.random() < PUSH_SHARE:
        yield from push(table, seat, zone, laid)
    if extra is not None:
        yield from table._still(still_s)
        yield from pick(table, seat, zone, laid[-1])
        mess.note("takeback", landed, table.t, seat=seat, cards=[extra], play=cards, fault=True)
    yield from table._still(still_s)
    if mess.on("squared") and mess.rng.random() < SQUARE_SHARE:
        # a seat whose cards this play beat squares them up (they lie under the play to beat)
        beaten = [s for s in range(table.config.seats) if s != seat and len(table.piles[f"seat{s}"]) > 1]
        if beaten:
            other = beaten[int(mess.rng.integers(len(beaten)))]
            yield from square(table, other, f"seat{other}")
    if mess.on("object") and mess.moment("object"):
        yield from lay_object(table)
    if mess.on("sleeve") and mess.moment("sleeve"):
        yield from rest_sleeve(table)
    if mess.on("lamp") and mess.moment("lamp"):
        mess.switch_lamp(table.config.size)
        mess.note("lamp", table.t)
        yield from table._still(1.0)
    if mess.on("knock") and mess.moment("knock"):
        mm = float(mess.rng.uniform(2.0, 4.0))
        mess.knock(mm * table.frame_ppm)
        mess.note("knock", table.t, mm=round(mm, 2))
        yield from table._still(1.0)
    return landed


def _extra_card(mess: Mess, seat: int, cards: list[str]) -> str | None:
    """A card the seat keeps after this play, laid with it and taken back (a take-back), or None."""
    if mess.takebacks >= TAKEBACKS or mess.rng.random() >= TAKEBACK_SHARE:
        return None
    kept = sorted((mess.held[seat] - Counter(cards)).elements())
    if not kept:
        return None
    mess.takebacks += 1
    return kept[int(mess.rng.integers(len(kept)))]


def drop(table: Any, playing: int) -> Iterator[Any]:
    """A seat other than the one about to play drops a card of its hand face up into its zone
    and picks it back up."""
    mess: Mess = table.mess
    seats = [s for s in range(table.config.seats) if s != playing and +mess.held.get(s, Counter())]
    if not seats:
        return
    seat = seats[int(mess.rng.integers(len(seats)))]
    held = sorted(mess.held[seat].elements())
    card = held[int(mess.rng.integers(len(held)))]
    zone = f"seat{seat}"
    landed = yield from table._put(zone, seat, [card])
    table.placed.pop()
    item = table.piles[zone][-1]
    yield from table._still(float(mess.rng.uniform(1.5, 2.5)))
    yield from pick(table, seat, zone, item)
    mess.note("dropped", landed, table.t, seat=seat, cards=[card], fault=True)
    yield from table._still(0.5)


def pick(table: Any, seat: int, zone: str, item: dict) -> Iterator[Any]:
    """The seat's hand picks one card up from its zone."""
    target = np.array(item["centre_mm"])
    yield from table._reach([(seat, target)], 0.3)
    table.piles[zone] = [i for i in table.piles[zone] if i is not item]
    table.layer.remove([item], _lying(table), table._affine)
    yield from table._reach([(seat, target)], 0.3, back=True)


def push(table: Any, seat: int, zone: str, laid: list[dict]) -> Iterator[Any]:
    """Right after laying it, the player pushes his play 15-30 mm towards the middle of his zone."""
    mess: Mess = table.mess
    target = np.mean([i["centre_mm"] for i in laid], axis=0)
    towards = table.layout.zones[zone].mean(axis=0) - target  # onto the pile in the zone's middle
    if np.linalg.norm(towards) < 5:
        towards = table._axes[seat][1] * (1 if mess.rng.random() < 0.5 else -1)
    way = towards / np.linalg.norm(towards) * mess.rng.uniform(15, 30)
    yield from table._reach([(seat, target)], 0.2)
    t = table.t
    _move(table, laid, lambda item: np.array(item["centre_mm"]) + way, lambda item: item["pose"].angle)
    yield from table._reach([(seat, target + way)], 0.2, back=True)
    mess.note("pushed", t, table.t, seat=seat, mm=round(float(np.linalg.norm(way)), 1))


def square(table: Any, seat: int, zone: str) -> Iterator[Any]:
    """The seat squares his zone's pile up: every card onto one neat stack, in the order they lay."""
    mess: Mess = table.mess
    items = table.piles[zone]
    centre = np.mean([i["centre_mm"] for i in items], axis=0)
    _, _, angle = table._axes[seat]
    yield from table._reach([(seat, centre)], 0.4)
    t = table.t
    offsets = {id(item): k * 0.5 for k, item in enumerate(items)}
    _move(table, items, lambda item: centre + offsets[id(item)], lambda item: angle + mess.rng.normal(0, 0.02))
    yield from table._still(0.3)
    yield from table._reach([(seat, centre)], 0.3, back=True)
    mess.note("squared", t, table.t, seat=seat, cards=[i["card"] for i in items])
    yield from table._still(0.5)


def _move(table: Any, items: list[dict], where: Any, angle: Any) -> None:
    """Lift ``items`` off the table and lay them again where ``where(item)`` (mm) says."""
    table.layer.remove(items, [i for i in _lying(table) if all(i is not m for m in items)], table._affine)
    for item in items:
        centre = where(item)
        item["centre_mm"] = [float(x) for x in centre]
        item["pose"] = replace(item["pose"], centre=tuple(table.to_canvas(centre)[0]), angle=float(angle(item)))
    table.layer.put(items, table._affine)


def _lying(table: Any) -> list[dict]:
    return [item for pile in table.piles.values() for item in pile] + list(table.tokens)


def _object_face(kind: str, ppm: float, rng: np.random.Generator) -> np.ndarray:
    """A phone (dark glass in a case) or a cup seen from above (rim, coffee, handle), BGRA."""
    if kind == "phone":
        w, h = round(72 * ppm), round(148 * ppm)
        face = np.zeros((h, w, 4), np.uint8)
        r = max(2, round(8 * ppm))
        case = tuple(int(v) for v in rng.uniform(20, 90, 3))
        cv2.rectangle(face, (r, 0), (w - r, h), (*case, 255), -1)
        cv2.rectangle(face, (0, r), (w, h - r), (*case, 255), -1)
        for x, y in ((r, r), (w - r, r), (r, h - r), (w - r, h - r)):
            cv2.circle(face, (x, y), r, (*case, 255), -1)
        m = max(1, round(4 * ppm))
        cv2.rectangle(face, (m, m * 2), (w - m, h - m * 2), (25, 22, 20, 255), -1)
        cv2.line(face, (m * 2, h // 3), (w // 2, m * 3), (90, 90, 95, 255), max(1, round(3 * ppm)))  # a glare
        return face
    d = round(84 * ppm)
    handle = round(26 * ppm)
    face = np.zeros((d, d + handle, 4), np.uint8)
    colour = tuple(int(v) for v in rng.uniform(120, 250, 3))
    c = (d // 2, d // 2)
    cv2.ellipse(face, (d, d // 2), (handle, round(10 * ppm)), 0, 0, 360, (*colour, 255), max(1, round(7 * ppm)))
    cv2.circle(face, c, d // 2, (*colour, 255), -1)
    cv2.circle(face, c, round(d * 0.42), (30, 50, 75, 255), -1)  # coffee
    return face


def lay_object(table: Any) -> Iterator[Any]:
    """Someone puts a phone or a cup down in a seat's zone, and takes it away a few seconds later."""
    mess: Mess = table.mess
    kind = "phone" if mess.rng.random() < 0.5 else "cup"
    seat = int(mess.rng.integers(table.config.seats))
    zone = f"seat{seat}"
    centre = table.layout.zones[zone].mean(axis=0) + mess.rng.normal(0, 25, 2)
    px_per_mm = float(np.clip(2 * table.ppm, 2, 12))
    face = _object_face(kind, px_per_mm, mess.rng)
    scale = table.ppm / px_per_mm
    a = float(mess.rng.uniform(0, 2 * np.pi))
    c, s = np.cos(a) * scale, np.sin(a) * scale
    rs = np.array([[c, -s], [s, c]])
    h, w = face.shape[:2]
    m = np.column_stack([rs, table.to_canvas(centre)[0] - rs @ np.array([w / 2, h / 2])])
    item = {"object": kind, "zone": zone, "face": face, "affine": m, "centre_mm": [float(x) for x in centre]}
    yield from table._reach([(seat, centre)], 0.4)
    t = table.t
    table.layer.put([item], table._affine)
    yield from table._reach([(seat, centre)], 0.3, back=True)
    yield from table._still(float(mess.rng.uniform(3.0, 5.0)))
    yield from table._reach([(seat, centre)], 0.4)
    table.layer.remove([item], _lying(table), table._affine)
    yield from table._reach([(seat, centre)], 0.3, back=True)
    mess.note("object", t, table.t, zone=zone, object=kind)
    yield from table._still(0.5)


def rest_sleeve(table: Any) -> Iterator[Any]:
    """A player's arm rests still over a zone holding cards (his own or his neighbour's)."""
    mess: Mess = table.mess
    zones = [z for z in table.layout.zones if z.startswith("seat") and table.piles[z]] or \
        [z for z in table.layout.zones if z.startswith("seat")]
    zone = zones[int(mess.rng.integers(len(zones)))]
    seat = int(zone[4:])
    target = table.layout.zones[zone].mean(axis=0) + mess.rng.normal(0, 15, 2)
    yield from table._reach([(seat, target)], 0.4)
    t = table.t
    yield from table._still(float(mess.rng.uniform(2.5, 4.0)))
    end = table.t
    yield from table._reach([(seat, target)], 0.4, back=True)
    mess.note("sleeve", t, end, zone=zone, seat=seat)
    yield from table._still(0.5)
