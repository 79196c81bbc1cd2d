"""The table session: a frame source, the table reader and the camera's referee, run as one.

``TableSession.process(frame)`` is one step: the :class:`tracker.reader.TableReader` reads the
frame into an :class:`~tracker.reader.Observation`, and the session hands what settled there,
zone by zone, to the :class:`tracker.referee.CameraReferee`, which appends the events and
alerts to the store::

    frame -> TableReader.read -> Observation -> TableSession (zone by zone) -> CameraReferee -> store

The session owns what lies between frames and is no reading:

- **the match**: the camera's referee of match ``match_id``. Unless pinned to it
  (``follow_new_matches=False``, ``run --match N``), the store is asked about once a second
  for a match started later on the page, and the session moves to it. On a new match, a
  restart or a resume, the reader starts afresh knowing what the store has as put down in
  each zone in the hand under way, so no play is stored twice; a new hand on record lets the
  cards of the last one come again.
- **what a settled zone means**: the kitty once all of it is read, a play (on the centre pile
  credited to the seat whose arm reached in, else to the seat whose turn it is), cards that
  completed the zone's last play, a bid token's bid (the same token lifted and laid again in
  a hand is no second bid), the hint that the deck is one to enroll (``unfamiliar_deck``).
- **pause**: while paused (a deck laid out on the mat to enroll it, :mod:`tracker.enroll`)
  each frame is kept (:meth:`latest_frame`) but nothing is read or refereed; on resume the
  reader starts afresh, as after a restart.
- **the loop and its thread** (:meth:`run`, :meth:`start`, :meth:`stop`), and
  ``detector_lock``, held while the reader's detector reads, so that another thread may read
  with the same detector, or change its deck profile, between two reads.
- **the page's view**: :meth:`status` (the source, speed, match, calibration) and
  :meth:`jpeg`, the latest frame with the zones and their reads drawn (camera view).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from engine.cards import parse_cards
from engine.events import Kitty, Marker, Play, Reveal
from tracker.reader import CalibrationCheck, Observation, ReaderConfig, TableReader, ZoneReading, seat_of
from tracker.records import Alert, Record
from tracker.referee import CameraReferee
from tracker.stability import Settled
from tracker.state import TableState
from tracker.store import EventStore
from tracker.takeback import TakeBacks
from tracker.tokens import Token
from tracker.zones import Calibration
from vision.protocol import Detector
from vision.sources import Frame, FrameSource, LatestFrame


@dataclass(frozen=True)
class SessionConfig:
    """How the session runs; ``reader``: how the table is read (:class:`tracker.reader.ReaderConfig`)."""

    #: Draw the camera view (:meth:`TableSession.jpeg`).
    camera_view: bool = False
    #: Move to a match started later in the store (False: stay on the one given, ``run --match N``).
    follow_new_matches: bool = False
    #: How often (frame seconds) the store is asked for a newer match.
    match_check_s: float = 1.0
    reader: ReaderConfig = field(default_factory=ReaderConfig)


class TableSession:
    """One table's live loop. ``process(frame)`` is one step; ``run()`` loops over the source."""

    def __init__(self, source: FrameSource | None, calibration: Calibration, detector: Detector, store: EventStore,
                 match_id: int, config: SessionConfig | None = None) -> None:
        self.source, self.detector, self.store = source, detector, store
        self.config = config or SessionConfig()
        #: Held while the detector reads: another thread reading with it (deck enrollment,
        #: tracker.enroll) waits for the loop's read to end, since a backend may run one request
        #: at a time (OpenVINO's), and a detector changed then is never changed mid-read.
        self.detector_lock = threading.Lock()
        referee = CameraReferee(store, match_id)
        rules = referee.state.info.rules
        self.reader = TableReader(calibration, detector, self.config.reader, self.detector_lock,
                                  rules.players, rules.decks)
        self._referee_match(referee)
        self._match_checked: float | None = None
        #: 斗帝主: the hand number whose kitty zone a hand has been over since its kitty was shown.
        self._kitty_touched: int | None = None
        self._refused_match: int | None = None
        self._focus_locked = False
        self.frames = 0
        self.fps = 0.0
        self.last_frame_time: float | None = None
        self.last_records: list[Record] = []
        #: The reader's last observation (None before the first frame read).
        self.observation: Observation | None = None
        self.error: str | None = None
        self.running = False
        self._last_tick: float | None = None
        self._frame: Frame | None = None
        self._lock = threading.Lock()
        # While paused (a deck laid out on the mat to enroll it) frames are kept but not refereed,
        # until resumed or, when given, a time (time.monotonic()).
        self._paused = False
        self._paused_until: float | None = None
        self._rezone = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        #: Called once per turn of ``run()``'s loop (the systemd watchdog ping, box.watchdog).
        self.heartbeat: Callable[[], Any] | None = None

    # ------------------------------------------------------------------ what it works on
    @property
    def calibration(self) -> Calibration:
        """The calibration in use (the reader's: a camera that moved gets a new one)."""
        return self.reader.calibration

    @property
    def span(self) -> float | None:
        """The deck's corner span the reader has measured (deck enrollment groups with it)."""
        return self.reader.span

    @property
    def px_per_mm(self) -> float:
        """The scale the reader rectifies the zones to."""
        return self.reader.config.px_per_mm

    def _referee_match(self, referee: CameraReferee) -> None:
        """Referee ``referee``'s match from now on, its zones read afresh for its players and decks.

        Raises ValueError (and changes nothing) when the calibration has no zone for a seat."""
        rules = referee.state.info.rules
        names = self.reader.zones_for(rules.players)
        # After a restart (or a move to another match) no card the store has as put down in
        # the hand under way is played again; other cards lying there mid-hand were put down
        # just before the stop and are a play. With no hand under way, the cards lying there
        # are left over from before: only cards a hand puts down from now on are plays.
        self.reader.restart(rules.players, rules.decks, {name: _played_in(referee.state, name) for name in names})
        self.referee, self.match_id = referee, referee.match_id
        self.takebacks = TakeBacks()  # cards of a play picked up again (tracker.takeback)
        #: Per zone, (hand number, token name, seat) read there: the same token lifted and laid
        #: again in that hand is not a second bid (unless it is the seat's turn again: an
        #: auction's second round).
        self._bids_read: dict[str, set[tuple[int, str, int]]] = {name: set() for name in names}
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
            self._referee_match(CameraReferee(self.store, newest))
        except ValueError as exc:
            self._refused_match = newest
            self.error = f"not following match {newest}: {exc}; still refereeing match {self.match_id}"
            return
        if self._refused_match is not None:
            self.error = None  # the refusal was about an older match than this one
        self._refused_match = None

    def _follow_hand(self) -> None:
        """Once a hand is over (or a new one is dealt on the page) its cards may come again."""
        state = self.referee.refresh()
        key = (state.hand_number, state.hand is not None and state.hand.finished)
        self.reader.showing = key[1]
        rules = state.info.rules
        self.reader.kitty_free = not (rules.kitty_shown or rules.kitty_choice)
        if key != self._hand_key:
            self._hand_key = key
            self.hand_number = state.hand_number
            self.reader.new_hand()

    # ------------------------------------------------------------------ one frame
    def process(self, frame: Frame) -> list[Record]:
        """Read one frame and referee what settled on it; returns the records stored because of it."""
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
        self._follow_hand()
        profile = getattr(self.detector, "profile", None)
        self.referee.bars.reader(profile, follow=profile is not None)
        out: list[Record] = self.referee.retry_held()  # a play held until the page enters a missed one
        observation = self.reader.read(frame)
        self._calibrated(observation.calibration)
        for zone in observation.zones:
            out += self._referee_zone(zone, observation)
        out += self._watch_kitty(observation)
        self.observation = observation
        if out:
            self.last_records = out
        return out

    def _calibrated(self, check: CalibrationCheck) -> None:
        """The markers found on a live frame: the view is sharp enough, so the lens stays where
        autofocus left it (a hand over the mat would make autofocus hunt mid-game)."""
        if check.found and not self._focus_locked:
            self._focus_locked = True
            if self.source is not None:
                self.source.lock_focus()

    def _referee_zone(self, zone: ZoneReading, observation: Observation) -> list[Record]:
        """What one zone's reading means for the match, in the order the reader met it."""
        if zone.unfamiliar is not None and not any(a.alert == "unfamiliar_deck" for a in self.referee.refresh().alerts):
            self.referee.notice(Alert("unfamiliar_deck", data={"read": zone.unfamiliar.read,
                                                               "unsure": zone.unfamiliar.unsure}))
        out: list[Record] = []
        for seat, token in zone.laid:
            out += self._token_laid(zone.zone, seat, token, observation.time)
        if out:
            self._follow_hand()
        settled = zone.settled
        if settled is None:
            return out
        if zone.zone == "kitty":
            # A kitty read short (a card settled late) is stored once all of it is read.
            if len(settled.cards) == self.referee.state.info.rules.kitty_size:
                out += self.referee.kitty(settled.cards, settled.time)
        else:
            if zone.zone == "pile":
                settled = replace(settled, seat=self._pile_seat(observation.reached_by))
            out += self._play(zone.zone, settled)
        self._follow_hand()
        return out

    def _play(self, zone: str, settled: Settled) -> list[Record]:
        """A seat's settled cards: a play, or cards that completed the zone's last play (five
        players: the marker card, or its twin shown; they are no play and may come again)."""
        if settled.taken or settled.returned:
            return self._taken_back(settled)
        if settled.amends:
            return self.referee.late_cards(settled.candidate(), settled.amends)
        held = self.takebacks.before_play(self.referee, settled.candidate())
        self._release()
        picked = self._pick_before_play(settled.time)
        stored = self.referee.play(replace(settled.candidate(), alone=self._alone(zone, settled),
                                           faint=self.reader.faint(zone)))
        if not any(isinstance(r, Play) for r in stored) and (
                not stored or any(isinstance(r, (Marker, Reveal)) for r in stored)):
            self.reader.replace_played(zone, Counter(settled.cards), Counter())
            return held + picked + stored
        stored = held + picked + stored
        # The referee stored a play other than the one read (an uncertain read's suggestion: a
        # card read as another, or a card that was no card left out): the zone counts as played
        # what was stored, so a card wrongly counted can still come as itself later.
        if any(isinstance(r, Alert) and r.alert == "uncertain_read" for r in stored):
            play = next((r for r in stored if isinstance(r, Play)), None)
            if play is not None:
                self.reader.replace_played(zone, Counter(settled.cards), Counter(str(c) for c in play.cards))
        return stored

    def _alone(self, zone: str, settled: Settled) -> bool:
        """Whether the cards that settled are all the zone holds (``PlayCandidate.alone``)."""
        return self.reader.lying(zone, settled.time) == Counter(settled.cards)

    def _watch_kitty(self, observation: Observation) -> list[Record]:
        """斗帝主: the kitty shown, the 帝主 takes the cards he keeps from the kitty zone; once a
        hand has been over the zone and it lies still again holding less than the kitty, what it
        lost is his pick (docs/camera-table.md, "Five players and 斗帝主")."""
        state = self.referee.refresh()
        hand = state.hand
        if hand is None or not hand.rules.kitty_choice or hand.phase != "play" or hand.kitty is None \
                or hand.picked is not None or "kitty" not in self.reader.zone_names:
            self._kitty_touched = None
            return []
        zone = observation.zone("kitty")
        if zone.moving:
            self._kitty_touched = state.hand_number
            return []
        if self._kitty_touched != state.hand_number:
            return []
        left = self.reader.lying("kitty", observation.time)
        if left is None:
            return []
        kitty = Counter(str(c) for c in hand.kitty)
        if left & kitty == kitty:
            return []  # all of it still there: nothing taken (yet)
        return self.referee.kitty_pick(tuple((kitty - left).elements()), observation.time)

    def _pick_before_play(self, time: float) -> list[Record]:
        """斗帝主: the first play comes while no pick is on record: the pick is what the kitty zone
        lacks of the kitty now (nothing, when he left every card lying there)."""
        hand = self.referee.refresh().hand
        if hand is None or not hand.rules.kitty_choice or hand.phase != "play" or hand.kitty is None \
                or hand.picked is not None or hand.plays:
            return []
        left = self.reader.lying("kitty", time) if "kitty" in self.reader.zone_names else None
        kitty = Counter(str(c) for c in hand.kitty)
        return self.referee.kitty_pick(tuple((kitty - (kitty if left is None else left)).elements()), time)

    def _taken_back(self, settled: Settled) -> list[Record]:
        """Cards of a zone's last play picked up, or lying again where they lay (tracker.takeback)."""
        if settled.seat is None:
            return []
        if settled.returned:
            return self.takebacks.returned(self.referee, settled.seat, settled.returned, settled.cards, settled.time)
        out = self.takebacks.taken(self.referee, settled.seat, settled.taken, settled.cards, settled.emptied,
                                   settled.time)
        self._release()
        return out

    def _release(self) -> None:
        """Cards found picked up from an emptied zone are no longer that zone's played cards."""
        for seat, cards in self.takebacks.released:
            self.reader.replace_played(f"seat{seat}", Counter(cards), Counter())
        self.takebacks.released = []

    def _pile_seat(self, reached_by: int | None) -> int:
        """Who played onto the pile: the last hand seen reaching in, else whose turn it is."""
        if reached_by is not None:
            return reached_by
        hand = self.referee.hand
        return hand.turn if hand is not None and hand.turn is not None else 0

    def _token_laid(self, zone: str, seat: int, token: Token, time: float) -> list[Record]:
        """The bid (or 明牌, 加倍) of a token laid in a seat's zone, or on the pile facing a seat."""
        state = self.referee.refresh()
        hand = state.hand
        under_way = hand is not None and not hand.finished
        key = (state.hand_number if under_way else state.hand_number + 1, token.name, seat)
        to_act = hand.bidding.to_act if hand is not None and under_way and hand.bidding is not None else None
        read = self._bids_read[zone]
        doubling = token.action in ("double", "no_double")
        if key in read and to_act != seat and not (doubling and self.referee.past_doubling()):
            return []  # laid again in the same hand: picked up and put back, not a new bid
        read.add(key)
        if token.action == "open":
            return self.referee.open_hand(seat, time)
        if doubling:  # 不加倍 records nothing, but may show a new deal (CameraReferee.doubling_token)
            return self.referee.doubling_token(seat, token.action == "double", time)
        return self.referee.bid(seat, token.action, token.value, time)

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
            raise ValueError("this session has no source to run")
        self.running = True
        latest = LatestFrame(self.source).start() if self.source.live else None
        count = 0
        try:
            while not self._stop.is_set() and (max_frames is None or count < max_frames):
                if self.heartbeat is not None:
                    self.heartbeat()
                frame = latest.read(timeout=1.0) if latest is not None else self.source.read()
                if frame is None:
                    if latest is not None and not latest.ended:
                        continue  # no frame this second: the source is reconnecting
                    break
                self.process(frame)
                count += 1
            self.finish()
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

    def finish(self) -> list[Record]:
        """The source has ended or the camera is stopped: the referee's closing alerts on the hand
        on record (a loser who never showed his cards: :meth:`CameraReferee.close`)."""
        frame = self.latest_frame()
        return self.referee.close(None if frame is None else frame.time)

    def start(self) -> threading.Thread:
        """``run()`` on a background thread (the site's feeder interface: start, stop, status)."""
        thread = threading.Thread(target=self._run_quietly, name="session", daemon=True)
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
        thread = self._thread
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
        check = self.observation.calibration if self.observation is not None else CalibrationCheck()
        return {"source": src.get("source"), "source_state": src.get("state"), "fps": round(self.fps, 2),
                "camera_fps": round(src.get("fps") or 0.0, 2), "last_frame": self.last_frame_time,
                "frames": self.frames, "error": self.error or src.get("error"),
                "reconnects": src.get("reconnects", 0), "running": self.running, "hand": self.hand_number,
                "calibration": self.calibration.method, "match": self.match_id,
                "calibration_lost": check.lost, "paused": self._paused,
                "calibration_lost_since": check.lost_since, "camera": src.get("camera", {})}

    def jpeg(self) -> bytes | None:
        """The latest frame with zones and settled cards drawn (camera view; None when off)."""
        with self._lock:
            frame = self._frame
        if frame is None or not self.config.camera_view:
            return None
        zones = self.observation.zones if self.observation is not None else \
            tuple(ZoneReading(name, seat_of(name)) for name in self.reader.zone_names)
        image = draw_table(frame.image, self.calibration, zones, self.last_records)
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 75])
        return data.tobytes() if ok else None


def draw_table(image: np.ndarray, calibration: Calibration, zones: tuple[ZoneReading, ...],
               records: list[Record]) -> np.ndarray:
    """A copy of ``image`` with each zone outlined (orange while a hand is over it, else green),
    the cards read there, and the last play stored in ``records`` written at the top."""
    image = image.copy()
    for zone in zones:
        poly = calibration.table_to_image(calibration.zones[zone.zone]).astype(np.int32)
        colour = (0, 200, 255) if zone.moving else (0, 200, 0)
        cv2.polylines(image, [poly], True, colour, 2)
        for s in zone.seen:
            if s.center is None:
                continue
            x, y = calibration.table_to_image([s.center])[0].astype(int)
            cv2.putText(image, s.card, (int(x), int(y)), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 0, 255), 2)
    plays = [r for r in records if isinstance(r, Play)]
    if plays:
        last = plays[-1]
        # One frame serves every page, in either language, and OpenCV writes no Chinese: the seat
        # as its number and the cards as their codes, no word of either language.
        text = f"#{last.seat + 1}: " + " ".join(str(c) for c in last.cards)
        cv2.putText(image, text, (12, 32), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 0), 4)
        cv2.putText(image, text, (12, 32), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (255, 255, 255), 2)
    return image


def _played_in(state: TableState, zone: str) -> Counter[str] | None:
    """What the store has as put down in ``zone`` in the hand under way: the zone's recorded
    plays (a seat's zone: that seat's; the centre pile: every one) and the cards of the plays
    the referee raised an alert about (they lay there too); the kitty zone: the kitty shown.
    ``None`` when no hand is under way: none yet, one over (its cards may come again), or one
    dealt with nothing on record yet (cards lying there then are the last hand's, not swept)."""
    hand = state.hand
    if hand is None or hand.finished:
        return None
    shown = next((e for e in hand.events if isinstance(e, Kitty)), None)
    if shown is None and not hand.plays:
        return None
    if zone == "kitty":
        return Counter(str(c) for c in shown.cards) if shown is not None else Counter()
    seat = seat_of(zone)
    played: Counter[str] = Counter()
    for play in hand.plays:
        if seat is None or play.seat == seat:
            played += Counter(str(c) for c in play.cards)  # two decks: a card's copies in two plays are two
    for alert in state.alerts:
        if alert.seat is None or not alert.cards or (seat is not None and alert.seat != seat):
            continue
        try:
            played |= Counter(str(c) for c in parse_cards(alert.cards))
        except ValueError:
            continue  # an old alert's text the parser no longer reads: nothing to count
    return played
