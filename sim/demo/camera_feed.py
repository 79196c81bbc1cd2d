"""The demo's camera mode: a synthetic table rendered on the fly, read by the real pipeline.

:class:`CameraTable` films random hands with :class:`sim.simulate.SimTable` (the printed
mat, cards tossed into each seat's zone, arms, sweeps, lighting, noise, JPEG) and feeds every
frame through a :class:`tracker.session.TableSession` with the shipped detector, exactly as
``ddz-table run`` does with a camera: plays, inferred passes, the landlord and the kitty
come from what the detector reads, and the camera view draws the zones and the reads.

What a camera cannot see, a club referee enters on the page; the demo does it for him at
the start of each hand: the deal and the spoken bids (叫分), as ``referee`` events. With
``referee=True`` (the default) the demo's referee (:mod:`sim.demo.corrector`) also corrects
what the camera misread or missed, as a person would with the page's buttons, so every hand
finishes and is scored. ``status()["reads"]`` keeps the camera's own figure: how many true
plays it had exactly (seat and cards) before any fix, and how many fixes were made. Without
the referee, a hand the camera did not finish is closed as abandoned by ``system`` before the
next deal.

Frames carry video time (the simulator's clock); they are processed no sooner than
``speed`` times table speed allows, and as fast as the machine manages when it cannot keep
up: ``status()`` says how far behind table speed it runs. Rendering and reading overlap on
two threads.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from engine.events import Bid, Deal, End, Play
from engine.hand import Hand
from sim.demo.corrector import MAX_FIXES, DemoCorrector, event_key
from sim.simulate import SimConfig, SimTable
from tracker.session import SessionConfig, TableSession
from tracker.state import TableState
from tracker.store import EventStore
from vision.sources import Frame

#: Hands dealt per rendered table; a fresh table (new camera pose, new light) follows.
HANDS_PER_TABLE = 20
#: The demo's card design: held out from training (as a club's own deck would be), with the
#: usual index shapes. ``plastic``, the simulator's default, has bulbous clubs the reader takes
#: for spades (85 % of its clubs; 6-18 % on the other held-out decks: models/README.md, Known weaknesses).
DEMO_DECK = "tigullio"


class _NumberedTable(SimTable):
    """A simulated table with its place in the feed's run of tables."""

    def __init__(self, config: SimConfig, number: int) -> None:
        super().__init__(config)
        self.number = number


def camera_unavailable(deck: str = DEMO_DECK) -> str | None:
    """Why this machine cannot film ``deck`` (its art or the SVG renderer missing), or None."""
    from sim.synth.decks import DECKS, DeckError, list_decks, load_deck

    if deck not in DECKS:
        return None  # not a question of installing: SimConfig refuses the name itself
    if deck not in list_decks():
        return f"the {deck} card design is not installed here (Debian package gnome-cards-data)"
    try:
        load_deck(deck)
    except (DeckError, OSError) as exc:
        return f"cannot render the {deck} cards: {exc}"
    return None


class CameraTable:
    """Rendered frames -> table session -> ``store`` for match ``match_id`` (see the module doc).

    ``detector``: a :class:`vision.protocol.Detector`; ``None`` loads the shipped ONNX models, or
    the toy deck's reader when ``style="toy"`` (cards with colour-code corners,
    :mod:`sim.toy`: the pipeline's self-test, every read exact when the tracker is right).
    """

    def __init__(self, store: EventStore, match_id: int, speed: float = 1.0, seed: int | None = None,
                 notify: Callable[[], None] = lambda: None, size: tuple[int, int] = (960, 540),
                 fps: float = 5.0, detector: Any = None, hands_per_table: int = HANDS_PER_TABLE,
                 max_hands: int | None = None, style: str = "cards", cards: int | None = None,
                 referee: bool = True, deck: str = DEMO_DECK) -> None:
        if speed <= 0:
            raise ValueError(f"speed must be positive, not {speed!r}")
        info = store.match(match_id)
        if info.rules.players != 3 or info.rules.name != "classic":
            raise ValueError("the rendered demo table plays the classic three-player game")
        self.store, self.match_id, self.speed, self.notify = store, match_id, speed, notify
        self.seed = int(time.time()) if seed is None else seed
        self.size, self.fps, self.hands_per_table, self.max_hands = size, fps, hands_per_table, max_hands
        self.style, self.cards = style, cards  # cards: dealt per seat (a short game), None: the rules'
        self.use_referee = referee
        self.deck = deck
        self.referee: DemoCorrector | None = None  # the hand on film's, when ``referee``
        self._config(0).check()  # bad settings fail here, before the models load
        if detector is None and style == "toy":
            from sim.toy import ToyDetector

            detector = ToyDetector()
        elif detector is None:
            from tracker.detection import build_detector

            detector = build_detector("onnx", backend="auto")
        self.detector = detector
        self.table = self._new_table(0)
        self.session = self._new_session(self.table)
        self.frames = self.rendered = 0
        self.render_s = self.read_s = 0.0
        self.video_t = 0.0  # video seconds fed so far, over every table
        self.started: float | None = None
        self.last_frame: float | None = None
        self.error: str | None = None
        self.hands_shown = 0
        self.reads = {"hands": 0, "plays": 0, "read": 0, "hands_finished": 0, "abandoned": 0, "fixes": 0}
        self._current: tuple[int, int] | None = None  # (table number, hand index) being filmed
        self._hand_number: int | None = None  # the store's number for the hand being filmed
        self._truth: Hand | None = None
        self._jpeg: tuple[tuple[int, int], bytes | None] = ((0, -1), None)
        self._queue: queue.Queue = queue.Queue(maxsize=2)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    # ------------------------------------------------------------------ set-up
    def _config(self, number: int) -> SimConfig:
        return SimConfig(seed=self.seed + number, size=self.size, fps=self.fps, hands=self.hands_per_table,
                         deck=self.deck, style=self.style, cards=self.cards)

    def _new_table(self, number: int) -> _NumberedTable:
        return _NumberedTable(self._config(number), number)

    def _new_session(self, table: SimTable) -> TableSession:
        return TableSession(None, table.calibration, self.detector, self.store, self.match_id,
                            SessionConfig(camera_view=True))

    # ------------------------------------------------------------------ feeder interface
    def start(self) -> None:
        self.started = time.monotonic()
        self._threads = [threading.Thread(target=self._guard(self._render_loop), name="ddz-render", daemon=True),
                         threading.Thread(target=self._guard(self._read_loop), name="ddz-read", daemon=True)]
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=10)

    def status(self) -> dict[str, Any]:
        elapsed = time.monotonic() - self.started if self.started is not None else 0.0
        frames = max(1, self.frames)
        return {
            "source": f"synthetic table (rendered, {'toy deck' if self.style == 'toy' else self.deck + ' deck'}, "
                      f"seed {self.seed}, "
                      f"{self.size[0]}x{self.size[1]} at {self.fps:g} fps video)",
            "fps": round(self.frames / elapsed, 2) if elapsed > 0 else 0.0,
            "last_frame": self.last_frame, "frames": self.frames,
            "running": any(t.is_alive() for t in self._threads), "speed": self.speed,
            "render_ms": round(1000 * self.render_s / max(1, self.rendered)),
            "read_ms": round(1000 * self.read_s / frames),
            # Video seconds per wall second: 1.0 is table speed (times ``speed`` when asked for).
            "table_speed": round(self.video_t / elapsed, 3) if elapsed > 0 else 0.0,
            "hands_shown": self.hands_shown, "reads": dict(self.reads), "error": self.error,
        }

    def jpeg(self) -> bytes | None:
        """The latest frame with zones and reads drawn, encoded once per frame."""
        session = self.session
        key, data = self._jpeg
        if key != (id(session), session.frames):
            data = session.jpeg()
            self._jpeg = ((id(session), session.frames), data)
        return data

    # ------------------------------------------------------------------ the two threads
    def _guard(self, loop: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                loop()
            except Exception as exc:  # noqa: BLE001 - shown on /healthz; the demo page stays up
                self.error = f"{type(exc).__name__}: {exc}"
                self._stop.set()
        return run

    def _render_loop(self) -> None:
        table, offset = self.table, 0.0
        while not self._stop.is_set():
            frames = table.frames()
            while not self._stop.is_set():
                began = time.perf_counter()
                got = next(frames, None)
                self.render_s += time.perf_counter() - began
                if got is None:
                    break
                self.rendered += 1
                item = (table, len(table.timeline) - 1, got[0], offset + got[1], got[1])
                while not self._stop.is_set():
                    try:
                        self._queue.put(item, timeout=0.5)
                        break
                    except queue.Full:
                        continue
            offset += table.t + 1.0 / self.fps
            table = self._new_table(table.number + 1)

    def _read_loop(self) -> None:
        while not self._stop.is_set():
            try:
                table, hand_index, image, t, local_t = self._queue.get(timeout=0.5)
            except queue.Empty:
                continue
            if table is not self.table:
                self.table, self.session = table, self._new_session(table)
            if self._current != (table.number, hand_index):
                if not self._next_hand(table, hand_index):
                    self._stop.set()
                    return
            wait = self.started + t / self.speed - time.monotonic()
            if wait > 0 and self._stop.wait(wait):
                return
            began = time.perf_counter()
            records = self.session.process(Frame(image, t, self.frames))
            self.read_s += time.perf_counter() - began
            self.frames += 1
            self.video_t = t
            self.last_frame = time.time()
            fixed = self.referee is not None and self.referee.review(table.timeline[hand_index], local_t)
            if records or fixed:  # the referee's corrections are news for the page too
                self.notify()
            if self.session.referee.state.ended is not None:  # the referee ended the match on the page
                self._stop.set()
                return

    # ------------------------------------------------------------------ hands
    def _next_hand(self, table: _NumberedTable, hand_index: int) -> bool:
        """A new hand is on film: score the last one, close it if the camera left it open,
        and enter the deal and the bids as the referee would. False when the demo is done."""
        if self.referee is not None:  # the last look at the hand before it is scored: to the end
            for _ in range(10):  # a hand the camera missed whole takes more than one review's fixes
                if self.referee.reconcile(len(self.referee.truth.events)) < MAX_FIXES:
                    break
        state = TableState.load(self.store, self.match_id)
        if state.ended is not None:
            return False
        self._score(state)
        if self.max_hands is not None and self.hands_shown >= self.max_hands:
            return False
        if state.hand is not None and not state.hand.finished:
            self.store.append(self.match_id, state.hand_number, End(abandoned=True, reason="demo: the camera "
                              "missed or misread a play; the referee moves on", time=time.time()), source="system")
            self.reads["abandoned"] += 1
        truth = table.engine_hands[hand_index]
        deal = next(e for e in truth.events if isinstance(e, Deal))
        number = state.next_hand_number
        self.store.append(self.match_id, number, Deal(counts=deal.counts, first_bidder=deal.first_bidder,
                                                      time=time.time()), source="referee")
        for bid in (e for e in truth.events if isinstance(e, Bid)):
            self.store.append(self.match_id, number, Bid(bid.seat, bid.action, bid.value, time=time.time()),
                              source="referee")
        self._current, self._hand_number, self._truth = (table.number, hand_index), number, truth
        self.referee = DemoCorrector(self.store, self.match_id, number, truth) if self.use_referee else None
        self.hands_shown += 1
        self.notify()
        return True

    def _compare(self, state: TableState, filmed: int | None = None) -> tuple[int, int, Hand | None]:
        """(true plays, of which read exactly, the store's hand) for the hand being filmed,
        over its first ``filmed`` events (all by default)."""
        if self._truth is None or self._hand_number is None:
            return 0, 0, None
        hand = state.hand_of(self._hand_number)
        events = self._truth.events if filmed is None else self._truth.events[:filmed]
        truth = Counter(event_key(e) for e in events if isinstance(e, Play))
        read = Counter(event_key(e) for e in hand.events if isinstance(e, Play)) if hand is not None else Counter()
        return sum(truth.values()), sum((truth & read).values()), hand

    def _score(self, state: TableState) -> None:
        """How much of the hand just filmed the store holds: true plays read exactly."""
        plays, read, hand = self._compare(state)
        if self._truth is None:
            return
        self.reads["hands"] += 1
        if self.referee is not None:  # the camera's own reads, before the referee's fixes
            plays, read = self.referee.plays_checked, self.referee.camera_exact
            self.reads["fixes"] += self.referee.fixes
        self.reads["plays"] += plays
        self.reads["read"] += read
        if hand is not None and hand.finished and hand.out_seat == self._truth.out_seat:
            self.reads["hands_finished"] += 1

    def current_reads(self) -> dict[str, int]:
        """The hand on film so far: true plays already put down, and how many the store holds."""
        if self._current is None:
            return {"plays": 0, "read": 0}
        if self.referee is not None:  # the store is corrected: count what the camera had itself
            return {"plays": self.referee.plays_checked, "read": self.referee.camera_exact}
        timeline = self.table.timeline
        index = self._current[1]
        filmed = len(timeline[index]) if index < len(timeline) else 0
        plays, read, _ = self._compare(TableState.load(self.store, self.match_id), filmed)
        return {"plays": plays, "read": read}
