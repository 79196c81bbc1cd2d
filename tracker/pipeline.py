"""The live pipeline: frames -> zone crops -> detector -> stability -> referee -> store.

Each frame, every zone of the calibration (a play zone per seat and the kitty zone) is
rectified to a fixed pixels-per-millimetre crop. A zone where something moves (a hand
reaching in) is not read at all that frame; a zone that has not changed since it was last
read reuses that read (the detector is the expensive part); otherwise the detector reads
the crop, corners are grouped into cards, and their positions go back to table millimetres
for the zone's :class:`~tracker.stability.ZoneTracker`. Grouping learns the deck's span (how
far apart a card's corners sit) from the cards it pairs, so that a card whose two corners are
read differently becomes one card (``vision.grouping``). Settled cards go to the
:class:`~tracker.referee.Referee`, which writes events and alerts to the store.

With ``PipelineConfig(protocol="pile")`` everyone plays onto one ``pile`` zone and each play
is credited to the seat whose arm reached in (:mod:`tracker.pile`). After a restart, cards
already lying on the table are not played again: each zone starts knowing the cards the store
has as put down there in the hand under way (``ZoneTracker.resume``), so a play seen again (a
film replayed from an earlier frame, cards picked up and put back) is not stored twice, while
a play put down just before the stop, not stored yet, still is. With no hand under way, only
cards a hand puts down count.

Unless pinned to its match (``follow_new_matches=False``), the pipeline checks the store about
once a second and moves to a match started later (on the referee page), as after a restart.

While paused (``pause()``: a deck laid out on the mat to enroll it, :mod:`tracker.enroll`) each
frame is kept (``latest_frame()``) but nothing is refereed; on ``resume()`` every zone starts
afresh, as after a restart. ``detector_lock`` is held while the loop's detector reads, so another
thread may read with the same detector, or change its deck profile, between two reads.

Bid tokens (叫分牌, :mod:`tracker.tokens`): each seat zone's crop (or the centre pile's) is
also searched for the printed tokens; one laid there that stays put (the cards' k-of-n and settle
rule) becomes that seat's bid (or 明牌, 加倍) through the referee, once; on the pile a token is
the seat's it faces. Card reads lying on a token are dropped.

The detector is anything with ``detect(image) -> vision.detections.Detections``; one that also
has ``group(image, detections, decks, span)`` (``vision.detector.CardDetector``) groups the
corners into cards itself (reading unsure suits from the card faces too).
"""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from engine.cards import parse_cards
from engine.events import Kitty, Play
from tracker.pile import EntryWatcher
from tracker.records import Alert, Record
from tracker.referee import Referee
from tracker.stability import Seen, ZoneTracker
from tracker.store import EventStore
from tracker.tokens import FoundToken, Token, TokenWatch, find_tokens, on_tokens
from tracker.zones import CROP_PX_PER_MM, LABEL_INSIDE, LABEL_SURE, Calibration, zone_label
from vision.detections import Detections
from vision.grouping import group_corners
from vision.sources import Frame, FrameSource, LatestFrame

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


@dataclass
class PipelineConfig:
    px_per_mm: float = CROP_PX_PER_MM
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
    camera_view: bool = False
    #: ``zones``: each seat plays into its own zone (club default); ``pile``: one centre pile.
    protocol: str = "zones"
    #: Move to a match started later in the store (False: stay on the one given, ``run --match N``).
    follow_new_matches: bool = False
    #: How often (frame seconds) the store is asked for a newer match.
    match_check_s: float = 1.0
    #: The deck is unfamiliar (an ``unfamiliar_deck`` alert, once a match) when at least this
    #: share of the last ``unfamiliar_window`` real indices read were unsure and the detector has
    #: no deck profile. Rendered tables of the training decks give 0-10% (docs/detector.md).
    unfamiliar_share: float = 0.15
    unfamiliar_window: int = 400
    #: Read bid tokens (叫分牌) laid in the seat zones.
    read_tokens: bool = True


@dataclass
class _Zone:
    name: str
    seat: int | None
    tracker: ZoneTracker
    previous: np.ndarray | None = None  # last frame's small grey crop (motion)
    read_at: np.ndarray | None = None  # small grey crop when the detector last ran
    seen: list[Seen] = field(default_factory=list)
    tokens: list[FoundToken] = field(default_factory=list)  # bid tokens in the last read
    #: When tokens are read: a seat zone's watch, or the centre pile's, one for each seat (a
    #: token there is the seat's it faces).
    watches: dict[int, TokenWatch] = field(default_factory=dict)
    #: (hand number, token name, seat) read here: the same token lifted and laid again in that
    #: hand is not a second bid (unless it is the seat's turn again: an auction's second round).
    read: set[tuple[int, str, int]] = field(default_factory=set)


class Pipeline:
    """One table's live loop. ``process(frame)`` is one step; ``run()`` loops over the source."""

    def __init__(self, source: FrameSource | None, calibration: Calibration, detector: Any, store: EventStore,
                 match_id: int, config: PipelineConfig | None = None) -> None:
        self.source, self.calibration, self.detector = source, calibration, detector
        self.store, self.match_id = store, match_id
        self.config = config or PipelineConfig()
        c = self.config
        if c.protocol not in ("zones", "pile"):
            raise ValueError(f"protocol must be 'zones' or 'pile', not {c.protocol!r}")
        self.watcher = EntryWatcher(calibration) if c.protocol == "pile" else None
        self._referee_match(Referee(store, match_id))
        self._match_checked: float | None = None
        self._refused_match: int | None = None
        self._focus_locked = False
        self.frames = 0
        self.fps = 0.0
        self.last_frame_time: float | None = None
        self.last_records: list[Record] = []
        self.error: str | None = None
        self.running = False
        self._last_tick: float | None = None
        self._last_calibration = 0.0
        # When the markers were last found: table time (to measure) and wall time (to show).
        self._markers_seen: tuple[float, float] | None = None
        self.calibration_lost = False
        self._frame: Frame | None = None
        self._lock = threading.Lock()
        #: Held while the detector reads: another thread reading with it (deck enrollment,
        #: tracker.enroll) waits for the loop's read to end, since a backend may run one request
        #: at a time (OpenVINO's), and a detector changed then is never changed mid-read.
        self.detector_lock = threading.Lock()
        # While paused (a deck laid out on the mat to enroll it) frames are kept but not refereed,
        # until resumed or, when given, a time (time.monotonic()).
        self._paused = False
        self._paused_until: float | None = None
        self._rezone = False
        self._stop = threading.Event()
        #: Called once per turn of ``run()``'s loop (the systemd watchdog ping, box.watchdog).
        self.heartbeat: Any = None
        #: Whether each of the last real indices read was unsure (the unfamiliar-deck hint).
        self._unsure: deque[bool] = deque(maxlen=max(1, self.config.unfamiliar_window))
        self._spans: deque[float] = deque(maxlen=SPANS_KEPT)
        #: The deck's span measured so far (None until ``SPANS_NEEDED`` cards have paired).
        self.span: float | None = None

    def _referee_match(self, referee: Referee) -> None:
        """Referee ``referee``'s match from now on, with fresh zones for its players and decks.

        Raises ValueError (and changes nothing) when the calibration has no zone for a seat."""
        rules = referee.state.info.rules
        c = self.config
        if self.watcher is not None:
            names = ["pile"]
        else:
            names = [f"seat{i}" for i in range(rules.players)]
            missing = [n for n in names if n not in self.calibration.zones]
            if missing:
                raise ValueError(f"the calibration has no zone for {', '.join(missing)}")
        names += ["kitty"] if "kitty" in self.calibration.zones else []
        zones = [_Zone(name, _seat_of(name), ZoneTracker(_seat_of(name), c.k, c.n, c.settle_s, decks=rules.decks))
                 for name in names]
        for zone in zones:
            if c.read_tokens and zone.seat is not None:
                zone.watches = {zone.seat: TokenWatch(c.k, c.n, c.settle_s)}
            elif c.read_tokens and zone.name == "pile":
                zone.watches = {seat: TokenWatch(c.k, c.n, c.settle_s) for seat in range(rules.players)}
        for zone in zones:
            # After a restart (or a move to another match) no card the store has as put down in
            # the hand under way is played again; other cards lying there mid-hand were put down
            # just before the stop and are a play. With no hand under way, the cards lying there
            # are left over from before: only cards a hand puts down from now on are plays.
            played = _played_in(referee, zone)
            zone.tracker.resume(played or (), under_way=played is not None)
        self.referee, self.match_id, self.decks, self.zones = referee, referee.match_id, rules.decks, zones
        self.hand_number = referee.state.hand_number
        hand = referee.state.hand
        self._hand_key = (self.hand_number, hand is not None and hand.finished)

    def _follow_match(self, frame: Frame) -> None:
        """Move to the newest match in the store when it is newer than the one refereed."""
        c = self.config
        if not c.follow_new_matches:
            return
        if self._match_checked is not None and 0 <= frame.time - self._match_checked < c.match_check_s:
            return
        self._match_checked = frame.time
        newest = max((m.id for m in self.store.matches()), default=self.match_id)
        if newest <= self.match_id or newest == self._refused_match:
            return
        try:
            self._referee_match(Referee(self.store, newest))
        except ValueError as exc:
            self._refused_match = newest
            self.error = f"not following match {newest}: {exc}; still refereeing match {self.match_id}"
            return
        if self._refused_match is not None:
            self.error = None  # the refusal was about an older match than this one
        self._refused_match = None

    # ------------------------------------------------------------------ one frame
    def process(self, frame: Frame) -> list[Record]:
        """Read one frame; returns the records stored because of it."""
        self._tick(frame)
        if self._paused and self._paused_until is not None and time.monotonic() >= self._paused_until:
            self.resume()
        if self._paused:
            return []
        if self._rezone:
            # Back from a pause: the cards lying on the mat now are not plays, as after a restart.
            self._rezone = False
            self.referee.refresh()
            self._referee_match(self.referee)
        self._follow_match(frame)
        self._maybe_recalibrate(frame)
        self._follow_hand()
        if self.watcher is not None:
            self.watcher.update(frame.image, frame.time)
        out: list[Record] = self.referee.retry_held()  # a play held until the page enters a missed one
        for zone in self.zones:
            # Motion is judged on a coarse crop (cheap); the full crop is made only to read it.
            small = _small_grey(self.calibration.crop(frame.image, zone.name, MOTION_PX_PER_MM).image)
            moving = zone.previous is not None and self._changed(zone.previous, small)
            zone.previous = small
            if moving:
                zone.tracker.update(frame.time, [], motion=True)
                self._tokens_laid(zone, frame.time, moving=True)
                continue
            # Read while the zone is settling (k-of-n needs fresh reads); once it has been
            # still for a while, reuse the last read until the crop changes.
            changed_at = zone.tracker.changed_at
            since = frame.time - changed_at if changed_at is not None else float("inf")
            if zone.read_at is None or since < 2 * self.config.settle_s or self._changed(zone.read_at, small):
                view = self.calibration.crop(frame.image, zone.name, self.config.px_per_mm)
                zone.tokens = find_tokens(view.image) if zone.watches else []
                zone.seen = self._read(view, zone.tokens)
                zone.read_at = small
            out += self._tokens_laid(zone, frame.time, moving=False)
            settled = zone.tracker.update(frame.time, zone.seen, motion=False)
            if settled is None:
                continue
            if zone.name == "kitty":
                # A kitty read short (a card settled late) is stored once all of it is read.
                if len(settled.cards) == self.referee.state.info.rules.kitty_size:
                    out += self.referee.kitty(settled.cards, settled.time)
            else:
                if zone.name == "pile":
                    settled = replace(settled, seat=self._pile_seat())
                if settled.amends:
                    out += self.referee.late_cards(settled.candidate(), settled.amends)
                else:
                    stored = self.referee.play(settled.candidate())
                    _follow_suggestion(zone.tracker, settled.cards, stored)
                    out += stored
            self._follow_hand()
        if out:
            self.last_records = out
        return out

    def _pile_seat(self) -> int:
        """Who played onto the pile: the last hand seen reaching in, else whose turn it is."""
        assert self.watcher is not None
        if self.watcher.last is not None:
            return self.watcher.last.seat
        hand = self.referee.hand
        return hand.turn if hand is not None and hand.turn is not None else 0

    def _read(self, view: Any, tokens: list[FoundToken] | None = None) -> list[Seen]:
        with self.detector_lock:
            dets: Detections = self.detector.detect(view.image)
        dets = dets[~self._on_label(view, dets)]
        if tokens and len(dets):
            dets = dets[~on_tokens(dets.boxes, tokens)]  # a marker's squares read as an index
        self._count_unsure(dets)
        # A detector that reads card faces (vision.detector.CardDetector.group) groups the corners
        # itself, so that a paired card whose index suit is unsure is read from its face too.
        group = getattr(self.detector, "group", None)
        if callable(group):
            with self.detector_lock:
                grouping = group(view.image, dets, self.decks, span=self.span)
        else:
            grouping = group_corners(dets, self.decks, span=self.span)
        self._spans.extend(grouping.spans)
        if len(self._spans) >= SPANS_NEEDED:
            self.span = float(np.median(self._spans))
        seen = []
        for card in grouping.cards:
            center = view.to_table([card.center])[0]
            seen.append(Seen(card.card, card.confidence, card.alternatives, (float(center[0]), float(center[1]))))
        return seen

    def _count_unsure(self, dets: Detections) -> None:
        """Keep count of unsure reads of real indices; once enough of them are unsure, tell the
        referee (once a match) that this deck may be one to enroll. A detector reading with a
        deck profile has been taught the deck already."""
        if getattr(self.detector, "profile", None) is not None or not len(dets) or dets.finder_scores is None:
            return
        real = dets.finder_scores >= FAMILIAR_FINDER
        reader_p = dets.scores[real] / np.maximum(dets.finder_scores[real], 1e-6)
        self._unsure.extend(bool(p < FAMILIAR_SURE) for p in reader_p)
        window = self._unsure.maxlen or 1
        if len(self._unsure) < window:
            return
        unsure = sum(self._unsure)
        if unsure < self.config.unfamiliar_share * window:
            return
        if any(a.alert == "unfamiliar_deck" for a in self.referee.refresh().alerts):
            return
        self.referee.notice(Alert("unfamiliar_deck", data={"read": window, "unsure": unsure}))

    def _on_label(self, view: Any, dets: Detections) -> np.ndarray:
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

    def _tokens_laid(self, zone: _Zone, time: float, moving: bool) -> list[Record]:
        """The bids (and 明牌, 加倍) of tokens newly laid in a seat's zone, or on the centre pile
        facing a seat, through the referee."""
        out: list[Record] = []
        for seat, watch in zone.watches.items():
            lying = None if moving else [t.token for t in zone.tokens
                                         if zone.seat is not None or self._facing(t) == seat]
            for token in watch.update(time, lying):
                out += self._token_event(zone, seat, token, time)
        if out:
            self._follow_hand()
        return out

    def _facing(self, token: FoundToken) -> int | None:
        """The seat a token on the pile faces: whose edge of the mat its words point to (a player
        lays a token the right way up for himself, as the simulator does)."""
        down = token.corners[2:].mean(axis=0) - token.corners[:2].mean(axis=0)  # marker top -> words
        return self.calibration.layout.seat_towards(down)

    def _token_event(self, zone: _Zone, seat: int, token: Token, time: float) -> list[Record]:
        state = self.referee.refresh()
        hand = state.hand
        under_way = hand is not None and not hand.finished
        key = (state.hand_number if under_way else state.hand_number + 1, token.name, seat)
        to_act = hand.bidding.to_act if hand is not None and under_way and hand.bidding is not None else None
        if key in zone.read and to_act != seat:
            return []  # laid again in the same hand: picked up and put back, not a new bid
        zone.read.add(key)
        if token.action == "open":
            return self.referee.open_hand(seat, time)
        if token.action == "double":
            return self.referee.double(seat, time)
        if token.action == "no_double":
            return []  # declining to double changes nothing on record
        return self.referee.bid(seat, token.action, token.value, time)

    def _changed(self, before: np.ndarray, after: np.ndarray) -> bool:
        if before.shape != after.shape:
            return True
        diff = cv2.absdiff(before, after)
        return float((diff > self.config.motion_level).mean()) > self.config.motion_share

    def _follow_hand(self) -> None:
        """Once a hand is over (or a new one is dealt on the page) its cards may come again."""
        state = self.referee.refresh()
        key = (state.hand_number, state.hand is not None and state.hand.finished)
        if key != self._hand_key:
            self._hand_key = key
            self.hand_number = state.hand_number
            for zone in self.zones:
                zone.tracker.new_hand()

    def _maybe_recalibrate(self, frame: Frame) -> None:
        if self.calibration.method != "markers" or frame.time - self._last_calibration < self.config.recalibrate_s:
            return
        self._last_calibration = frame.time
        fresh = self.calibration.refind(frame.image)
        if fresh is None:
            if self._markers_seen is None:
                self._markers_seen = (frame.time, time.time())  # the calibration was made from them
            self.calibration_lost = frame.time - self._markers_seen[0] >= self.config.calibration_lost_s
            return
        self._markers_seen, self.calibration_lost = (frame.time, time.time()), False
        if not self._focus_locked:
            # The markers were found on a live frame: the view is sharp enough, so the lens stays
            # where autofocus left it (a hand over the mat would make autofocus hunt mid-game).
            self._focus_locked = True
            lock = getattr(self.source, "lock_focus", None)
            if lock is not None:
                lock()
        if self.calibration.shift_px(fresh) > MOVED_PX:
            fresh.layout.zones = self.calibration.zones
            self.calibration = fresh

    def _tick(self, frame: Frame) -> None:
        now = time.time()
        if self._last_tick is not None and now > self._last_tick:
            rate = 1.0 / (now - self._last_tick)
            self.fps = rate if self.fps == 0 else 0.9 * self.fps + 0.1 * rate
        self._last_tick, self.last_frame_time = now, now
        self.frames += 1
        with self._lock:  # kept for the camera view and latest_frame()
            self._frame = frame

    # ------------------------------------------------------------------ the loop
    def run(self, max_frames: int | None = None) -> int:
        """Process frames until the source ends or ``stop()``; returns frames processed.

        A live source is read on its own thread keeping only the newest frame (a slow
        detector skips frames rather than falling behind); a file is read frame by frame."""
        if self.source is None:
            raise ValueError("this pipeline has no source to run")
        self.running = True
        latest = LatestFrame(self.source).start() if self.source.live else None
        count = 0
        try:
            while not self._stop.is_set() and (max_frames is None or count < max_frames):
                if self.heartbeat is not None:
                    self.heartbeat()
                frame = latest.read(timeout=1.0) if latest is not None else self.source.read()
                if frame is None:
                    if latest is not None and not latest._done:
                        continue  # no frame this second: the source is reconnecting
                    break
                self.process(frame)
                count += 1
        except Exception as exc:
            self.error = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            self.running = False
            if latest is not None:
                latest.stop()
            else:
                self.source.close()
        return count

    def start(self) -> threading.Thread:
        """``run()`` on a background thread (the site's feeder interface: start, stop, status)."""
        thread = threading.Thread(target=self._run_quietly, name="pipeline", daemon=True)
        self._thread = thread
        thread.start()
        return thread

    def _run_quietly(self) -> None:
        try:
            self.run()
        except Exception:  # noqa: BLE001 - kept in self.error for the page; the thread just ends
            pass

    @property
    def stopped(self) -> bool:
        """Whether ``stop()`` was asked for (a run that ends without it ended with its source)."""
        return self._stop.is_set()

    def stop(self, wait: float = 5.0) -> None:
        self._stop.set()
        thread = getattr(self, "_thread", None)
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=wait)

    # ------------------------------------------------------------------ deck enrollment
    def latest_frame(self) -> Frame | None:
        """The last frame read (None before the first)."""
        with self._lock:
            return self._frame

    @property
    def paused(self) -> bool:
        return self._paused

    def pause(self, for_s: float | None = None) -> None:
        """Stop refereeing from the next frame on, still keeping each frame: a deck laid out on
        the mat to be enrolled is no play. ``for_s``: resume by itself after that many seconds
        (a walk-through left half done never leaves the table unrefereed for long)."""
        self._paused_until = None if for_s is None else time.monotonic() + for_s
        self._paused = True

    def resume(self) -> None:
        """Referee again from the next frame, starting afresh as after a restart (the hand under
        way's cards on record are known; others lying there with no hand under way are not plays)."""
        self._rezone = True
        self._paused = False

    # ------------------------------------------------------------------ for the page
    def status(self) -> dict[str, Any]:
        src = self.source.status().to_dict() if self.source is not None else {}
        return {"source": src.get("source"), "source_state": src.get("state"), "fps": round(self.fps, 2),
                "camera_fps": round(src.get("fps") or 0.0, 2), "last_frame": self.last_frame_time,
                "frames": self.frames, "error": self.error or src.get("error"),
                "reconnects": src.get("reconnects", 0), "running": self.running, "hand": self.hand_number,
                "calibration": self.calibration.method, "match": self.match_id,
                "calibration_lost": self.calibration_lost, "paused": self._paused,
                "calibration_lost_since": self._markers_seen[1] if self.calibration_lost and self._markers_seen else None,
                "camera": src.get("camera", {})}

    def jpeg(self) -> bytes | None:
        """The latest frame with zones and settled cards drawn (camera view; None when off)."""
        with self._lock:
            frame = self._frame
        if frame is None or not self.config.camera_view:
            return None
        image = frame.image.copy()
        for zone in self.zones:
            poly = self.calibration.table_to_image(self.calibration.zones[zone.name]).astype(np.int32)
            colour = (0, 200, 255) if zone.tracker.moving else (0, 200, 0)
            cv2.polylines(image, [poly], True, colour, 2)
            for s in zone.seen:
                if s.center is None:
                    continue
                x, y = self.calibration.table_to_image([s.center])[0].astype(int)
                cv2.putText(image, s.card, (int(x), int(y)), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 0, 255), 2)
        plays = [r for r in self.last_records if isinstance(r, Play)]
        if plays:
            last = plays[-1]
            text = f"seat {last.seat + 1}: " + " ".join(str(c) for c in last.cards)
            cv2.putText(image, text, (12, 32), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 0), 4)
            cv2.putText(image, text, (12, 32), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (255, 255, 255), 2)
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 75])
        return data.tobytes() if ok else None


def _played_in(referee: Referee, zone: _Zone) -> Counter | None:
    """What the store has as put down in ``zone`` in the hand under way: the zone's recorded
    plays (a seat's zone: that seat's; the centre pile: every one) and the cards of the plays
    the referee raised an alert about (they lay there too); the kitty zone: the kitty shown.
    ``None`` when no hand is under way: none yet, one over (its cards may come again), or one
    dealt with nothing on record yet (cards lying there then are the last hand's, not swept)."""
    hand = referee.state.hand
    if hand is None or hand.finished:
        return None
    shown = next((e for e in hand.events if isinstance(e, Kitty)), None)
    if shown is None and not hand.plays:
        return None
    if zone.name == "kitty":
        return Counter(str(c) for c in shown.cards) if shown is not None else Counter()
    played: Counter = Counter()
    for play in hand.plays:
        if zone.seat is None or play.seat == zone.seat:
            played += Counter(str(c) for c in play.cards)  # two decks: a card's copies in two plays are two
    for alert in referee.state.alerts:
        if alert.seat is None or not alert.cards or (zone.seat is not None and alert.seat != zone.seat):
            continue
        try:
            played |= Counter(str(c) for c in parse_cards(alert.cards))
        except ValueError:
            continue  # an old alert's text the parser no longer reads: nothing to count
    return played


def _follow_suggestion(tracker: ZoneTracker, read: tuple[str, ...], stored: list[Record]) -> None:
    """The referee stored a play other than the one read (an uncertain read's suggestion: a
    card read as another, or a card that was no card left out): the zone counts as played what
    was stored, so a card wrongly counted can still come as itself later."""
    if not any(isinstance(r, Alert) and r.alert == "uncertain_read" for r in stored):
        return
    play = next((r for r in stored if isinstance(r, Play)), None)
    if play is None:
        return
    tracker.replace_played(Counter(read), Counter(str(c) for c in play.cards))


def _seat_of(zone: str) -> int | None:
    return int(zone[4:]) if zone.startswith("seat") else None


def _small_grey(image: np.ndarray) -> np.ndarray:
    """A blurred grey coarse crop: motion is compared on this, not on the full crop."""
    return cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (3, 3), 0)
