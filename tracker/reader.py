"""The table reader: a camera frame in, an :class:`Observation` of the mat out.

:meth:`TableReader.read` takes one frame through these steps, in this order:

1. **Calibration**: every ``recalibrate_s`` the mat's markers are looked for again; a camera
   that moved more than :data:`MOVED_PX` gets the new homography, and markers unseen for
   ``calibration_lost_s`` make the calibration lost (:class:`CalibrationCheck`).
2. **Centre pile** (``protocol="pile"``): the whole mat, coarse, is watched for an arm reaching
   into the pile (:class:`tracker.pile.EntryWatcher`).
3. Each zone (a play zone per seat, or the ``pile``, then the ``kitty``):

   - **rectify** it coarsely (:data:`MOTION_PX_PER_MM`) and compare with the last frame: a
     zone where something moves (a hand reaching in) is not read at all;
   - **detect**: while the zone settles, or once its coarse crop changed since the detector last
     ran, the zone is rectified at ``px_per_mm`` and the detector reads it (the expensive part);
     a zone with an index read astride its edge is read again a little beyond it (``margin_mm``); otherwise the last read stands. The bid tokens printed with ArUco markers are found
     in the same crop (:mod:`tracker.tokens`); reads of the mat's printed zone names, and of
     the squares of a token, are dropped; the detector groups the corners into cards, with the
     deck's corner span learnt from the cards it paired (``vision.grouping``);
   - **second look for jokers**: with a detector that has a reader to look with
     (``vision.protocol.LooksForJokers``), the corners of the cards lying there that no sure
     read covers are read once per still view of the zone (``vision.joker_look``), and a joker
     read there that the finder missed joins the zone's reads (:meth:`TableReader._second_look`);
   - **tokens**: a token that stays put becomes laid, once (:class:`tracker.tokens.TokenWatch`);
   - **stability**: the zone's :class:`tracker.stability.ZoneTracker` turns the reads into
     settled cards (a seat's play, the kitty).

The reader keeps everything that outlives a frame for its zones (the coarse crops motion is
judged on, the trackers, the token watches, the deck's span) and nothing else: no store, no
referee, no thread. What it read goes out as a frozen :class:`Observation`; the
:class:`tracker.session.TableSession` hands it to the camera's referee. A new match or a
hand on record tells the reader what each zone has played already (:meth:`TableReader.restart`,
:meth:`TableReader.new_hand`).

>>> from tracker.zones import MatLayout
>>> from vision.protocol import CornerDetector
>>> class Blind(CornerDetector):  # a detector that sees no card
...     def detect(self, image): return Detections.empty()
>>> mat = MatLayout.standard(seats=3)   # 594 x 420 mm, seen here at 1 px per mm, square on
>>> calibration = Calibration.from_corners([[0, 0], [594, 0], [594, 420], [0, 420]], mat, (594, 420))
>>> reader = TableReader(calibration, Blind(), players=3)
>>> reader.zone_names
('seat0', 'seat1', 'seat2', 'kitty')
>>> seen = reader.read(Frame(np.zeros((420, 594, 3), np.uint8), 0.0, 0))
>>> seen.settled, seen.moving, seen.calibration.lost
((), (), False)
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter, deque
from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from tracker.pile import EntryWatcher
from tracker.stability import Seen, Settled, ZoneTracker
from tracker.tokens import FoundToken, Token, TokenWatch, find_tokens, on_tokens
from tracker.zones import CROP_PX_PER_MM, LABEL_INSIDE, LABEL_SURE, Calibration, ZoneView, zone_label
from vision.cards import CARD_IDS
from vision.detections import Detections
from vision.grouping import CardInstance
from vision.joker_look import CARD_WIDTH_MM, JOKERS, cards_of
from vision.protocol import Detector, LooksForJokers
from vision.sources import Frame

#: The camera has moved when the mat's corners shifted by more than this many pixels.
MOVED_PX = 3.0
#: Pixels per millimetre of the coarse crops motion is judged on (a hand is 80+ mm across).
MOTION_PX_PER_MM = 0.6
#: The deck's span (how far apart a card's two corners sit, in index sizes; vision.grouping)
#: is the median over the last this many cards paired from corners read alike ...
SPANS_KEPT = 200
#: ... once at least this many have been (before that, only cards paired in the same zone read
#: tell grouping the span, and two corners read differently are two cards).
SPANS_NEEDED = 5
#: A corner the finder is at least this sure of is a real index; ...
FAMILIAR_FINDER = 0.5
#: ... and one the reader then gives under this probability is an unsure read.
FAMILIAR_SURE = 0.6
#: A read at least this confident holds its card's corner: the second look for jokers reads only
#: the corners that none holds (a weak joker read, which may drop out on the next frame, does not).
LOOK_COVERED = 0.3
#: A read lies on the mark of a joker the look read when its centre is within this share of a
#: card's width of it (an index read alone is centred on its index).
ON_THE_MARK = 0.25
#: An index read this near (mm) the edge of a zone's crop lies astride it: the zone is read again
#: past its edges (``ReaderConfig.margin_mm``).
EDGE_MM = 2.0
#: Reads under the detector's threshold down to this score are kept aside as faint: no card,
#: but a hint the referee may add to a play the rules refuse as read (an index half under the
#: next card of a pair chain reads at 0.1-0.15 where the cards on top read at 0.8).
FAINT_READ = 0.08
#: At a table that never shows its kitty, how far (mm) a seat's crop of cards shown may reach into
#: the kitty zone (:func:`_into_the_kitty_zone`): a five-seat top seat's last row of cards shown,
#: turned to face its player, has its indices 54 mm past the zone's edge (five seats atlasnye).
KITTY_FREE_MM = 65.0
#: A card is printed the same turned half round: one joker's marks (its corners, the words along
#: its edges, the emblem on its face) lie in pairs on either side of its middle, or on it. Reads of
#: a joker that grouping made two cards are one card when they lie so about the middle of two of
#: them: each mark's twin across that middle read within :data:`TWIN_MM` (box centres wander
#: with a box's extent) or the mark on the middle (within :data:`MIDDLE_MM`), with two twins
#: besides; or a mark on the middle and every mark within :data:`CARD_REACH_MM` of it (a twin
#: not read), no two of them a fan's step apart (:data:`FAN_STEP_MM`). Plastic's red joker: its
#: weak face emblem paired with one corner, its three other marks with each other. Two copies of
#: a joker fanned (two decks) are one card moved along a row, not turned: their marks do not lie so.
TWIN_MM = 8.0
MIDDLE_MM = 6.0
#: The twins are a card's opposite marks: at least this far apart (mm; a fan's step is 14-21).
TWINS_APART_MM = 30.0
#: How far a mark's centre lies from its card's middle at most (half a 63 x 88 mm card's diagonal,
#: less the 4 mm a mark's centre lies in from the edge).
CARD_REACH_MM = 50.0
#: Two lone marks of one joker are one card when the one is read at most this share as surely as
#: the other (a second joker's marks read about as surely as the first's).
WEAK_MARK = 0.5
#: Two cards fanned lie this far apart along the row (mm; the simulator's fans step 14-21 mm, a
#: tight fan 10), the same mark of each level across the row within this share of the step (a
#: crooked fan, up to about 15 degrees) and of one size within this ratio on each side.
FAN_STEP_MM = (10.0, 25.0)
FAN_LEVEL = 0.3
FAN_SIZE_RATIO = 1.4


@dataclass(frozen=True)
class ReaderConfig:
    """How the reader reads: crop scale, the settle rule, motion, recalibration, the protocol."""

    px_per_mm: float = CROP_PX_PER_MM
    #: A card (or token) counts once read in ``k`` of the last ``n`` frames, and a zone settles
    #: once unchanged for ``settle_s`` seconds with no hand over it (tracker.stability).
    k: int = 3
    n: int = 5
    settle_s: float = 0.5
    #: A zone moves when this share of its (downscaled) pixels changed by more than ``motion_level``.
    motion_share: float = 0.01
    motion_level: int = 28
    recalibrate_s: float = 30.0
    #: The mat's markers unseen this long (table seconds: three looks in a row) is a lost calibration,
    #: shown on the pages: a hand covers a marker for moments, a knocked camera or a moved mat for good.
    calibration_lost_s: float = 90.0
    #: ``zones``: each seat plays into its own zone (club default); ``pile``: one centre pile.
    protocol: str = "zones"
    #: The deck is unfamiliar (an ``unfamiliar_deck`` alert, once a match) when at least this
    #: share of the last ``unfamiliar_window`` real indices read were unsure and the detector has
    #: no deck profile. Rendered tables of the training decks give 0-10% (docs/detector.md).
    unfamiliar_share: float = 0.15
    unfamiliar_window: int = 400
    #: Read bid tokens (叫分牌) laid in the seat zones.
    read_tokens: bool = True
    #: Look a second time for jokers at the corners of the cards in a still zone (module
    #: docstring), where the detector has a reader to look with.
    joker_look: bool = True
    #: A zone whose reads reach its edge (:data:`EDGE_MM`) is read again this many mm beyond its
    #: edges, up to halfway to the next zone (``Calibration.margins``): a seat showing 20-odd cards
    #: after the hand lays rows that reach past its zone, their indices astride the edge (the
    #: four-seat films). Only then: the finder sees the wider crop a little smaller, and a faint
    #: read (a lone joker at 0.28) can fall under its floor.
    margin_mm: float = 10.0
    #: After the hand, while seats show the cards they hold (亮牌), every seat zone is read this
    #: many mm past all its edges (up to halfway to the next zone): 20-34 cards laid in rows
    #: overlapping by a third reach past the zone on both sides, and the far row's indices, all
    #: that shows of it, lie wholly outside (斗帝主, four seats), where no index astride the edge
    #: calls for the wider read.
    show_margin_mm: float = 30.0

    def __post_init__(self) -> None:
        if self.protocol not in ("zones", "pile"):
            raise ValueError(f"protocol must be 'zones' or 'pile', not {self.protocol!r}")
        for name in ("margin_mm", "show_margin_mm"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative, got {getattr(self, name)}")


@dataclass(frozen=True)
class CalibrationCheck:
    """The calibration as of one frame. ``checked``: the markers were looked for on it;
    ``found``: and found; ``moved``: the camera had moved, the new homography is in use;
    ``lost``: the markers have been unseen for ``calibration_lost_s``, since ``lost_since``
    (wall-clock seconds of the last frame they were seen on)."""

    checked: bool = False
    found: bool = False
    moved: bool = False
    lost: bool = False
    lost_since: float | None = None


@dataclass(frozen=True)
class Unfamiliar:
    """Of the last ``read`` real indices, ``unsure`` were read unsure: the deck may need enrolling."""

    read: int
    unsure: int


@dataclass(frozen=True)
class ZoneReading:
    """One zone in one frame.

    ``moving``: a hand is over it (nothing was read). ``detected``: the detector read it on this
    frame (else ``seen`` is the last read, the crop unchanged since). ``seen``: the cards read
    there; ``tokens``: the bid tokens found in the same read; ``laid``: tokens that settled on
    this frame, ``(seat, token)`` (on the pile, the seat a token faces); ``settled``: cards that
    settled on this frame (a play, or the kitty); ``unfamiliar``: this read made the unsure share
    of the indices reach the hint's level."""

    zone: str
    seat: int | None
    moving: bool = False
    detected: bool = False
    seen: tuple[Seen, ...] = ()
    tokens: tuple[FoundToken, ...] = ()
    laid: tuple[tuple[int, Token], ...] = ()
    settled: Settled | None = None
    unfamiliar: Unfamiliar | None = None


@dataclass(frozen=True)
class SettledCards:
    """Cards that settled in ``zone`` (for :attr:`Observation.settled`)."""

    zone: str
    cards: Settled


@dataclass(frozen=True)
class Observation:
    """What the reader saw on one frame (``time``: the frame's, in table seconds).

    ``zones``: each zone's :class:`ZoneReading`, in the reader's zone order; ``calibration``:
    the state of the calibration; ``reached_by``: on the centre pile, the last seat seen
    reaching in (None: none yet, or not the pile protocol)."""

    time: float
    zones: tuple[ZoneReading, ...]
    calibration: CalibrationCheck = CalibrationCheck()
    reached_by: int | None = None

    @property
    def moving(self) -> tuple[str, ...]:
        """The zones with a hand over them."""
        return tuple(z.zone for z in self.zones if z.moving)

    @property
    def settled(self) -> tuple[SettledCards, ...]:
        """Every zone's cards that settled on this frame."""
        return tuple(SettledCards(z.zone, z.settled) for z in self.zones if z.settled is not None)

    @property
    def kitty(self) -> tuple[str, ...] | None:
        """The kitty zone's cards that settled on this frame, if any."""
        return next((z.settled.cards for z in self.zones if z.zone == "kitty" and z.settled is not None), None)

    @property
    def laid(self) -> tuple[tuple[int, Token], ...]:
        """Every bid token laid on this frame, ``(seat, token)``."""
        return tuple(laid for z in self.zones for laid in z.laid)

    def zone(self, name: str) -> ZoneReading:
        return next(z for z in self.zones if z.zone == name)


@dataclass
class _Zone:
    """What the reader keeps of one zone from frame to frame."""

    name: str
    seat: int | None
    tracker: ZoneTracker
    previous: np.ndarray | None = None  # last frame's small grey crop (motion)
    read_at: np.ndarray | None = None  # small grey crop when the detector last ran
    seen: tuple[Seen, ...] = ()
    tokens: tuple[FoundToken, ...] = ()  # bid tokens in the last read
    #: When tokens are read: a seat zone's watch, or the centre pile's, one for each seat (a
    #: token there is the seat's it faces).
    watches: dict[int, TokenWatch] = field(default_factory=dict)
    looked_at: np.ndarray | None = None  # small grey crop when the second look last ran
    jokers: tuple[Seen, ...] = ()  # the jokers it read there
    read_wide: bool = False  # the last read reached past the zone on every side (cards shown)
    faint: tuple[Seen, ...] = ()  # reads under the threshold in the last read (FAINT_READ)


class TableReader:
    """Reads one mat, frame after frame (see the module docstring).

    ``detector``: a :class:`vision.protocol.Detector`. ``lock``: held while the detector reads
    (the session's, so that another thread may use the same detector between two reads).
    ``players``, ``decks``: the match's, for its zones; :meth:`restart` changes them.
    """

    def __init__(self, calibration: Calibration, detector: Detector, config: ReaderConfig | None = None,
                 lock: AbstractContextManager[Any] | None = None, players: int = 3, decks: int = 1) -> None:
        self.calibration, self.detector = calibration, detector
        self.config = config or ReaderConfig()
        self.lock: AbstractContextManager[Any] = lock if lock is not None else contextlib.nullcontext()
        self.watcher = EntryWatcher(calibration) if self.config.protocol == "pile" else None
        self._last_calibration = 0.0
        # When the markers were last found: table time (to measure) and wall time (to show).
        self._markers_seen: tuple[float, float] | None = None
        self._calibration = CalibrationCheck()
        #: Whether each of the last real indices read was unsure (the unfamiliar-deck hint).
        self._unsure: deque[bool] = deque(maxlen=max(1, self.config.unfamiliar_window))
        self._spans: deque[float] = deque(maxlen=SPANS_KEPT)
        #: The deck's span measured so far (None until ``SPANS_NEEDED`` cards have paired).
        self.span: float | None = None
        self.decks = decks
        self._zones: list[_Zone] = []
        #: The hand is over: seats lay the cards they hold, rows that spread past their zones
        #: (``ReaderConfig.show_margin_mm``). The session sets it.
        self.showing = False
        #: The table never shows its kitty (four and five seats): while seats show their cards the
        #: kitty zone is empty, and a seat's rows may be read into it. The session sets it.
        self.kitty_free = False
        self.restart(players, decks)

    # ------------------------------------------------------------------ zones
    def zones_for(self, players: int) -> tuple[str, ...]:
        """The zones read for a match of ``players``: each seat's (or the centre pile), then the
        kitty's when the mat has one. Raises ValueError when the mat lacks a seat's zone."""
        if self.watcher is not None:
            names = ["pile"]
        else:
            names = [f"seat{i}" for i in range(players)]
            missing = [n for n in names if n not in self.calibration.zones]
            if missing:
                raise ValueError(f"the calibration has no zone for {', '.join(missing)}")
        return tuple(names + (["kitty"] if "kitty" in self.calibration.zones else []))

    @property
    def zone_names(self) -> tuple[str, ...]:
        return tuple(z.name for z in self._zones)

    def restart(self, players: int, decks: int, played: Mapping[str, Counter[str] | None] | None = None) -> None:
        """Fresh zones for a match of ``players`` with ``decks``, as after a restart: ``played``
        names, per zone, the cards the store has as put down there in the hand under way (they
        are not a play again; other cards lying there are a play put down just before the stop),
        or None where no hand is under way (the cards lying there are left over, only cards put
        down from now on are plays). Raises ValueError (changing nothing) when the mat lacks a
        seat's zone. The deck's span and the unsure-read count carry over."""
        names = self.zones_for(players)
        c = self.config
        zones = []
        for name in names:
            seat = seat_of(name)
            zone = _Zone(name, seat, ZoneTracker(seat, c.k, c.n, c.settle_s, decks=decks))
            if c.read_tokens and seat is not None:
                zone.watches = {seat: TokenWatch(c.k, c.n, c.settle_s)}
            elif c.read_tokens and name == "pile":
                zone.watches = {s: TokenWatch(c.k, c.n, c.settle_s) for s in range(players)}
            cards = (played or {}).get(name)
            zone.tracker.resume(cards or (), under_way=cards is not None)
            zones.append(zone)
        self._zones, self.decks = zones, decks

    def new_hand(self) -> None:
        """A new hand is on record: the cards of the last one may come again."""
        for zone in self._zones:
            zone.tracker.new_hand()

    def replace_played(self, zone: str, read: Counter[str], stored: Counter[str]) -> None:
        """The referee stored ``stored`` for the play ``zone`` read as ``read`` (a suggestion of
        its own): the zone counts that as played instead."""
        next(z for z in self._zones if z.name == zone).tracker.replace_played(read, stored)

    def lying(self, name: str, time: float) -> Counter[str] | None:
        """The cards lying in zone ``name`` (by their reads, one per physical card) once it has
        been still for the settle time with no hand over it; None until then."""
        tracker = next(z for z in self._zones if z.name == name).tracker
        if tracker.moving or tracker.changed_at is None or time - tracker.changed_at < tracker.settle:
            return None
        return tracker.stable

    def faint(self, name: str) -> tuple[tuple[str, float], ...]:
        """The faint reads (:data:`FAINT_READ`) of zone ``name``'s last read and their other
        reads, ``(card, score)``, surest first: hints of cards half hidden, for the referee,
        never cards."""
        zone = next(z for z in self._zones if z.name == name)
        reads = [(c.card, c.confidence) for c in zone.faint] + [a for c in zone.faint for a in c.alternatives]
        return tuple(sorted(reads, key=lambda r: -r[1]))

    # ------------------------------------------------------------------ one frame
    def read(self, frame: Frame) -> Observation:
        """Read one frame: calibration, the pile's entries, then each zone (module docstring)."""
        calibration = self._check_calibration(frame)
        reached_by = self._watch_pile(frame)
        zones = tuple(self._read_zone(zone, frame) for zone in self._zones)
        return Observation(frame.time, zones, calibration, reached_by)

    def _check_calibration(self, frame: Frame) -> CalibrationCheck:
        """Look for the markers again every ``recalibrate_s``; a moved camera gets the new view."""
        c = self.config
        if self.calibration.method != "markers" or frame.time - self._last_calibration < c.recalibrate_s:
            self._calibration = CalibrationCheck(lost=self._calibration.lost, lost_since=self._calibration.lost_since)
            return self._calibration
        self._last_calibration = frame.time
        fresh = self.calibration.refind(frame.image)
        if fresh is None:
            if self._markers_seen is None:
                self._markers_seen = (frame.time, time.time())  # the calibration was made from them
            lost = frame.time - self._markers_seen[0] >= c.calibration_lost_s
            self._calibration = CalibrationCheck(checked=True, lost=lost,
                                                 lost_since=self._markers_seen[1] if lost else None)
            return self._calibration
        self._markers_seen = (frame.time, time.time())
        moved = self.calibration.shift_px(fresh) > MOVED_PX
        if moved:
            fresh.layout.zones = self.calibration.zones
            self.calibration = fresh
        self._calibration = CalibrationCheck(checked=True, found=True, moved=moved)
        return self._calibration

    def _watch_pile(self, frame: Frame) -> int | None:
        if self.watcher is None:
            return None
        self.watcher.update(frame.image, frame.time)
        return self.watcher.last.seat if self.watcher.last is not None else None

    def _read_zone(self, zone: _Zone, frame: Frame) -> ZoneReading:
        c = self.config
        # Motion is judged on a coarse crop (cheap); the full crop is made only to read it.
        small = _small_grey(self.calibration.crop(frame.image, zone.name, MOTION_PX_PER_MM).image)
        moving = zone.previous is not None and self._changed(zone.previous, small)
        zone.previous = small
        if moving:
            zone.tracker.update(frame.time, [], motion=True)
            for watch in zone.watches.values():
                watch.update(frame.time, None)
            return ZoneReading(zone.name, zone.seat, moving=True, seen=zone.seen, tokens=zone.tokens)
        # Read while the zone is settling (k-of-n needs fresh reads); once it has been
        # still for a while, reuse the last read until the crop changes.
        changed_at = zone.tracker.changed_at
        since = frame.time - changed_at if changed_at is not None else float("inf")
        detected, unfamiliar = False, None
        showing = self.showing and zone.seat is not None and c.show_margin_mm > 0
        if (zone.read_at is None or since < 2 * c.settle_s or self._changed(zone.read_at, small)
                or showing != zone.read_wide):
            view = self.calibration.crop(frame.image, zone.name, c.px_per_mm)
            zone.tokens = tuple(find_tokens(view.image)) if zone.watches else ()
            seen, unfamiliar, sure, edge, faint = self._cards(view, zone.tokens)
            margin = self.calibration.margins(zone.name, c.margin_mm) if edge else (0.0, 0.0, 0.0, 0.0)
            if showing and self.kitty_free:
                margin = _into_the_kitty_zone(self.calibration, zone.name, c.show_margin_mm, margin)
            elif showing:
                margin = _across_rows(self.calibration, zone.name, c.show_margin_mm, margin)
            zone.read_wide = showing
            if any(margin):
                # an index astride an edge of the zone, or cards shown after the hand: the zone
                # is read again past its edges
                wide = self.calibration.crop(frame.image, zone.name, c.px_per_mm, margin)
                tokens = tuple(find_tokens(wide.image)) if zone.watches else ()
                seen, _, sure, _, faint = self._cards(wide, tokens, count=False)
                sure = sure - np.array(margin[:2]) * view.px_per_mm  # in the zone's own crop (the look's)
                view = _within(wide, margin)
            seen = self._second_look(zone, view, small, sure, seen)
            zone.seen, zone.read_at, detected = tuple(seen), small, True
            zone.faint = tuple(faint)
        laid = []
        for seat, watch in zone.watches.items():
            lying = [t.token for t in zone.tokens if zone.seat is not None or self._facing(t) == seat]
            laid += [(seat, token) for token in watch.update(frame.time, lying)]
        settled = zone.tracker.update(frame.time, list(zone.seen), motion=False)
        return ZoneReading(zone.name, zone.seat, False, detected, zone.seen, zone.tokens, tuple(laid), settled,
                           unfamiliar)

    def cards_in(self, view: ZoneView, tokens: tuple[FoundToken, ...] | list[FoundToken] = ()) -> list[Seen]:
        """The cards read in a zone's crop, less reads of its printed name and of ``tokens``'
        markers, in table millimetres (grouping learns the deck's span from them)."""
        return self._cards(view, tokens)[0]

    def _cards(self, view: ZoneView, tokens: tuple[FoundToken, ...] | list[FoundToken], count: bool = True
               ) -> tuple[list[Seen], Unfamiliar | None, np.ndarray, bool, list[Seen]]:
        """The cards read in ``view``, the unfamiliar-deck hint (``count``: these reads count
        towards it), the centres (crop pixels) of the indices read at least :data:`LOOK_COVERED`
        sure, whether an index read lies within :data:`EDGE_MM` of the crop's edge, and the
        faint reads (:data:`FAINT_READ`; a detector without ``detect_faint`` has none)."""
        detect_faint = getattr(self.detector, "detect_faint", None)
        with self.lock:
            if detect_faint is not None:
                dets, weak = detect_faint(view.image, FAINT_READ)
            else:
                dets, weak = self.detector.detect(view.image), None
        dets = self._off_marks(view, dets, tokens)
        faint: list[Seen] = []
        if weak is not None and len(weak):
            weak = self._off_marks(view, weak, tokens)
            centers = view.to_table(weak.centers) if len(weak) else np.zeros((0, 2))
            for i, (name, score, center) in enumerate(zip(weak.cards, weak.scores, centers, strict=True)):
                # its other reads, scored as the read itself is (finder score x probability)
                finder = float(weak.finder_scores[i])
                pairs = zip(weak.alt_ids[i], weak.alt_probs[i], strict=True)
                others = tuple((CARD_IDS[a], finder * float(p)) for a, p in pairs if a >= 0 and p > 0)
                faint.append(Seen(name, float(score), others, (float(center[0]), float(center[1]))))
        unfamiliar = self._count_unsure(dets) if count else None
        # The detector groups the corners itself: vision.detector.CardDetector reads a paired
        # card whose index suit is unsure from its face too.
        with self.lock:
            grouping = self.detector.group(view.image, dets, self.decks, span=self.span)
        self._spans.extend(grouping.spans)
        if len(self._spans) >= SPANS_NEEDED:
            self.span = float(np.median(self._spans))
        seen = []
        for card in _one_joker_a_card(view, dets, grouping.cards):
            center = view.to_table(np.array([card.center]))[0]
            seen.append(Seen(card.card, card.confidence, card.alternatives, (float(center[0]), float(center[1]))))
        sure = dets.centers[dets.scores >= LOOK_COVERED] if len(dets) else np.zeros((0, 2))
        h, w = view.image.shape[:2]
        e = EDGE_MM * view.px_per_mm
        b = dets.boxes
        edge = bool(len(dets)) and bool(((b[:, 0] <= e) | (b[:, 1] <= e) | (b[:, 2] >= w - e) | (b[:, 3] >= h - e)).any())
        return seen, unfamiliar, sure, edge, faint

    def _off_marks(self, view: ZoneView, dets: Detections,
                   tokens: tuple[FoundToken, ...] | list[FoundToken]) -> Detections:
        """``dets`` less the reads of the zone's printed name and of ``tokens``' markers (a
        marker's squares read as an index)."""
        dets = dets[~self._on_label(view, dets)]
        if tokens and len(dets):
            dets = dets[~on_tokens(dets.boxes, list(tokens))]
        return dets

    def _second_look(self, zone: _Zone, view: ZoneView, small: np.ndarray, sure: np.ndarray,
                     seen: list[Seen]) -> list[Seen]:
        """``seen`` with the jokers the second look reads in ``view`` that it lacks. The look runs
        once per still view of the zone (its coarse crop unchanged since, the jokers it read
        stand); a joker joins while ``seen`` holds fewer than :attr:`decks` of it, and with two
        decks only away from a read of the same joker (which may be the other corner of that
        card). A read of a card other than a joker under :data:`LOOK_COVERED` lying on the mark of a
        joker that joins is that mark misread (tigullio's black star, boxed together with the red joker's beside it, reads
        as a club) and leaves."""
        look = self.detector.joker_look if isinstance(self.detector, LooksForJokers) else None
        if look is None or not self.config.joker_look:
            return seen
        if zone.looked_at is None or self._changed(zone.looked_at, small):
            card_px = self.config.px_per_mm * CARD_WIDTH_MM
            with self.lock:
                reads = look.look(view.image, card_px, sure)
            found = []
            for read in cards_of(reads, self.decks):
                x, y = view.to_table(np.array([read.center]))[0]
                found.append(Seen(read.card, read.probability, (), (float(x), float(y))))
            zone.looked_at, zone.jokers = small, tuple(found)
        out: list[Seen] = []
        for joker in zone.jokers:
            same = [c for c in seen + out if c.card == joker.card]
            if len(same) >= self.decks or any(_near(c, joker, 2 * CARD_WIDTH_MM) for c in same):
                continue
            out.append(joker)
        kept = [c for c in seen if c.confidence >= LOOK_COVERED or c.center is None or c.card in JOKERS
                or not any(_near(c, joker, ON_THE_MARK * CARD_WIDTH_MM) for joker in out)]
        return kept + out

    def _count_unsure(self, dets: Detections) -> Unfamiliar | None:
        """Keep count of unsure reads of real indices; the hint once enough of them are unsure.
        A detector reading with a deck profile has been taught the deck already."""
        if self.detector.profile is not None or not len(dets) or dets.finder_scores is None:
            return None
        real = dets.finder_scores >= FAMILIAR_FINDER
        reader_p = dets.scores[real] / np.maximum(dets.finder_scores[real], 1e-6)
        self._unsure.extend(bool(p < FAMILIAR_SURE) for p in reader_p)
        window = self._unsure.maxlen or 1
        if len(self._unsure) < window:
            return None
        unsure = sum(self._unsure)
        if unsure < self.config.unfamiliar_share * window:
            return None
        return Unfamiliar(window, unsure)

    def _on_label(self, view: ZoneView, dets: Detections) -> np.ndarray:
        """Which detections are the zone's printed name (a seat number reads like a rank): those
        lying inside it, but for a sure read of another rank (a card lying on the label)."""
        if not len(dets):
            return np.zeros(0, bool)
        x1, y1, x2, y2 = self.calibration.layout.label_box(view.name)
        b = view.boxes_to_table(dets.boxes)
        w = np.clip(np.minimum(b[:, 2], x2) - np.maximum(b[:, 0], x1), 0, None)
        h = np.clip(np.minimum(b[:, 3], y2) - np.maximum(b[:, 1], y1), 0, None)
        area = np.maximum((b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]), 1e-6)
        printed = zone_label(view.name)
        own = np.array([card[:-1] == printed for card in dets.cards], bool)
        return (w * h / area >= LABEL_INSIDE) & ((dets.scores < LABEL_SURE) | own)

    def _facing(self, token: FoundToken) -> int | None:
        """The seat a token on the pile faces: whose edge of the mat its words point to (a player
        lays a token the right way up for himself, as the simulator does)."""
        down = token.corners[2:].mean(axis=0) - token.corners[:2].mean(axis=0)  # marker top -> words
        return self.calibration.layout.seat_towards(down)

    def _changed(self, before: np.ndarray, after: np.ndarray) -> bool:
        if before.shape != after.shape:
            return True
        diff = cv2.absdiff(before, after)
        return float((diff > self.config.motion_level).mean()) > self.config.motion_share


def _within(view: ZoneView, margin: tuple[float, float, float, float]) -> ZoneView:
    """The zone's own part of a crop made ``margin`` mm beyond its edges: the second look for
    jokers wants the zone's printed frame at the crop's edges (inside, the frame would be the
    one outline around every card)."""
    left, top, right, bottom = (round(m * view.px_per_mm) for m in margin)
    h, w = view.image.shape[:2]
    return ZoneView(view.name, (view.origin[0] + left / view.px_per_mm, view.origin[1] + top / view.px_per_mm),
                    view.px_per_mm, view.image[top:h - bottom, left:w - right])


def _across_rows(calibration: Calibration, zone: str, most_mm: float,
                 margin: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """``margin`` grown up to ``most_mm`` past the two edges that bound the zone's short side
    (``Calibration.margins``), no further than makes that side as long as the other: rows of
    cards shown run along the zone's long side and spill across it, and a crop kept within its
    long side is seen by the finder at the zone's own scale."""
    poly = calibration.zones[zone]
    width, height = (float(v) for v in poly.max(axis=0) - poly.min(axis=0))
    room = calibration.margins(zone, most_mm)
    left, top, right, bottom = margin
    if width >= height:
        grow = min(room[1] + room[3], width - height) / max(room[1] + room[3], 1e-9)
        return left, max(top, room[1] * grow), right, max(bottom, room[3] * grow)
    grow = min(room[0] + room[2], height - width) / max(room[0] + room[2], 1e-9)
    return max(left, room[0] * grow), top, max(right, room[2] * grow), bottom


def _into_the_kitty_zone(calibration: Calibration, zone: str, most_mm: float,
                         margin: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """``margin`` grown, for cards shown at a table whose kitty zone is empty then, up to
    :data:`KITTY_FREE_MM` into the kitty zone, and past its other edges as any seat's cards shown
    (:func:`_across_rows`). Read at its own pixels the wider crop keeps the zone's scale: a
    five-seat top seat's 21 cards lie in six rows 223 mm deep from a zone 126 mm deep, their last
    rows' indices (turned to face the player) 13-54 mm past its edge. The other edges grow no
    further: up to the mat's edge, a top seat's crop takes in a sliver of a joker peeking out
    from under the other one (plastic's black joker's word, read as J♠)."""
    rows = _across_rows(calibration, zone, most_mm, margin)
    if "kitty" not in calibration.zones:
        return rows
    free = calibration.margins(zone, KITTY_FREE_MM, free=("kitty",))
    kitty = _toward(calibration, zone, "kitty")
    return tuple(max(r, f) if side == kitty else r  # type: ignore[return-value]
                 for side, (r, f) in enumerate(zip(rows, free, strict=True)))


def _toward(calibration: Calibration, zone: str, other: str) -> int | None:
    """Which edge of ``zone`` (0 left, 1 top, 2 right, 3 bottom) faces zone ``other``, if any lies
    beyond one edge across the zone's extent; else ``None``."""
    if other not in calibration.zones:
        return None
    (x1, y1), (x2, y2) = calibration.zones[zone].min(axis=0), calibration.zones[zone].max(axis=0)
    (a1, b1), (a2, b2) = calibration.zones[other].min(axis=0), calibration.zones[other].max(axis=0)
    if b1 < y2 and b2 > y1:
        return 0 if a2 <= x1 else 2 if a1 >= x2 else None
    if a1 < x2 and a2 > x1:
        return 1 if b2 <= y1 else 3 if b1 >= y2 else None
    return None


def seat_of(zone: str) -> int | None:
    """The seat a zone belongs to (``seat1`` -> 1); None for the kitty and the centre pile."""
    return int(zone[4:]) if zone.startswith("seat") else None


def _one_joker_a_card(view: ZoneView, dets: Detections, cards: list[CardInstance]) -> list[CardInstance]:
    """``cards`` with the reads of a joker grouped into several cards made one card when their
    marks lie as one card's do (:data:`TWIN_MM`): the surest of them, holding every mark."""
    out = list(cards)
    for joker in JOKERS:
        same = [c for c in out if c.card == joker]
        if len(same) < 2:
            continue
        marks = sorted(i for c in same for i in c.corners)
        points, boxes = view.to_table(dets.centers[marks]), view.boxes_to_table(dets.boxes[marks])
        if not (_one_card(points, boxes) if len(marks) > 2 else _weak_second_mark(points, boxes, dets.scores[marks])):
            continue
        best = max(same, key=lambda c: c.confidence)
        out = [c for c in out if c.card != joker] + [replace(best, corners=tuple(marks))]
    return out


def _one_card(points: np.ndarray, boxes: np.ndarray) -> bool:
    """Whether marks at ``points`` (table mm; their ``boxes``) lie as one card's about the middle
    of some two of them (:data:`TWIN_MM`)."""
    n = len(points)
    for i in range(n):
        for j in range(i + 1, n):
            if np.hypot(*(points[i] - points[j])) < TWINS_APART_MM:
                continue
            middle = (points[i] + points[j]) / 2
            mirrored = 2 * middle - points  # each mark turned half round about the middle
            apart = np.linalg.norm(mirrored[:, None, :] - points[None, :, :], axis=2)
            np.fill_diagonal(apart, np.inf)
            from_middle = np.linalg.norm(points - middle, axis=1)
            on_middle = from_middle <= MIDDLE_MM
            twinned = (apart <= TWIN_MM).any(axis=1)
            if (on_middle | twinned).all() and (twinned.sum() >= 4 or (twinned.sum() >= 2 and on_middle.any())):
                return True
            if on_middle.any() and (from_middle <= CARD_REACH_MM).all() and not _fanned(points, boxes):
                return True
    return False


def _weak_second_mark(points: np.ndarray, boxes: np.ndarray, scores: np.ndarray) -> bool:
    """Whether two lone marks of one joker are one card's: as far apart as a card's opposite
    marks (:data:`TWINS_APART_MM` to twice :data:`CARD_REACH_MM`; the same mark of two jokers
    fanned lies a fan's step apart), the one read at most :data:`WEAK_MARK` as surely as the other
    (plastic's black joker: a corner at 0.3, the far corner at 0.06-0.13, left unpaired)."""
    apart = float(np.hypot(*(points[0] - points[1])))
    weak = float(scores.min()) <= WEAK_MARK * float(scores.max())
    return TWINS_APART_MM <= apart <= 2 * CARD_REACH_MM and weak and not _fanned(points, boxes)


def _fanned(points: np.ndarray, boxes: np.ndarray) -> bool:
    """Whether two marks (table mm: centres, boxes) are the same mark on two cards fanned
    (:data:`FAN_STEP_MM`)."""
    sizes = boxes[:, 2:] - boxes[:, :2]
    lo, hi = FAN_STEP_MM
    for i in range(len(points)):
        for j in range(i + 1, len(points)):
            along, across = sorted(np.abs(points[i] - points[j]), reverse=True)
            ratio = np.maximum(sizes[i], sizes[j]) / np.maximum(np.minimum(sizes[i], sizes[j]), 1e-6)
            if lo <= along <= hi and across <= FAN_LEVEL * along + 1.0 and bool((ratio <= FAN_SIZE_RATIO).all()):
                return True
    return False


def _near(a: Seen, b: Seen, mm: float) -> bool:
    """Whether two reads lie within ``mm`` of each other on the table (unplaced reads do)."""
    if a.center is None or b.center is None:
        return True
    return bool(np.hypot(a.center[0] - b.center[0], a.center[1] - b.center[1]) <= mm)


def _small_grey(image: np.ndarray) -> np.ndarray:
    """A blurred grey coarse crop: motion is compared on this, not on the full crop."""
    return cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (3, 3), 0)
