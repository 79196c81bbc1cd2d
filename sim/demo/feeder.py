"""Feeders: whatever plays the table into the store while the site shows it.

A feeder is anything with ``start()``, ``stop()`` and ``status()`` (``{"source", "fps",
"last_frame", ...}`` for ``/healthz``), and optionally ``jpeg()`` for the camera view; the
live pipeline (``ddz-table run``) is one; the demo has two: :class:`SimulatedTable` here
(``--feed bots``) and :class:`sim.demo.camera_feed.CameraTable` (``--feed camera``, the rendered
table read by the pipeline). The site only reads the store, so it never knows which one is
playing.

:class:`SimulatedTable` deals shuffled hands with known cards and lets bots bid and play
legal moves (as ``sim.scripted.random_hand`` does) one event at a time at table speed, as
source ``camera``. It decides every move from the store's current state, so a referee who
corrects, undoes or enters events on the page simply changes what the bots see next. Now and
then it "misreads" a card and posts an ``uncertain_read`` alert first, as the camera
referee would.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from engine.cards import format_cards, full_deck
from engine.events import Announce, Bid, Deal, Kitty, Pass, Play
from engine.hand import Hand
from engine.legal import legal_plays
from tracker.records import Alert
from tracker.state import TableState
from tracker.store import EventStore


class Feeder(Protocol):
    def start(self) -> None: ...

    def stop(self) -> None: ...

    def status(self) -> dict[str, Any]: ...


class SimulatedTable:
    """Bots playing one match into ``store`` (see the module docstring)."""

    def __init__(self, store: EventStore, match_id: int, speed: float = 1.0, seed: int | None = None,
                 notify: Callable[[], None] = lambda: None, misread_rate: float = 0.04,
                 pass_chance: float = 0.3, pause: float = 10.0, hands: int | None = None) -> None:
        if speed <= 0:
            raise ValueError(f"speed must be positive, not {speed!r}")
        self.store, self.match_id, self.speed = store, match_id, speed
        self.rng = random.Random(seed)
        self.notify = notify
        self.misread_rate, self.pass_chance, self.pause = misread_rate, pass_chance, pause
        self.hands = hands
        self.dealt = 0
        self.events = 0
        self.last_event: float | None = None
        self.state = TableState.load(store, match_id)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ feeder interface
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="ddz-simulated-table", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def status(self) -> dict[str, Any]:
        return {"source": "simulated table (bots, no camera)", "fps": None, "last_frame": self.last_event,
                "running": self._thread is not None and self._thread.is_alive(), "speed": self.speed,
                "events": self.events, "hands_dealt": self.dealt}

    # ------------------------------------------------------------------ playing
    def _sleep(self, low: float, high: float) -> bool:
        """Wait a table-like moment; False when asked to stop."""
        return not self._stop.wait(self.rng.uniform(low, high) / self.speed)

    def _append(self, event: Any) -> None:
        self.store.append(self.match_id, self.state.hand_number or 1, event, source="camera")
        self.events += 1
        self.last_event = time.time()
        self.notify()

    def _run(self) -> None:
        while not self._stop.is_set():
            if not self.step():
                return

    def step(self) -> bool:
        """Make the table's next move (after a pause); False when the match is over."""
        state = self.state.refresh(self.store)
        if state.ended is not None:
            return False
        hand = state.hand
        if hand is None or hand.finished:
            if self.hands is not None and self.dealt >= self.hands:
                return False
            if hand is not None and not self._sleep(self.pause, self.pause):
                return False
            self._deal()
        elif hand.phase == "bidding":
            if self._sleep(1, 4):
                self._bid(hand)
        elif hand.phase == "play":
            if self._sleep(2, 8):
                self._play(hand)
        return not self._stop.is_set()

    def _deal(self) -> None:
        rules = self.state.info.rules
        deck = full_deck(rules.decks)
        self.rng.shuffle(deck)
        size = rules.hand_size
        hands = tuple(tuple(sorted(deck[i * size:(i + 1) * size])) for i in range(rules.players))
        kitty = tuple(deck[rules.players * size:rules.players * size + rules.kitty_size])
        deal = Deal(counts=(size,) * rules.players, first_bidder=self.state.match.next_first_bidder(),
                    hands=hands, kitty=kitty, time=time.time())
        self.store.append(self.match_id, self.state.next_hand_number, deal, source="camera")
        self.dealt += 1
        self.events += 1
        self.last_event = time.time()
        self.notify()

    def _bid(self, hand: Hand) -> None:
        bidding = hand.bidding
        if bidding is None or bidding.to_act is None:
            return
        action, value = self.rng.choice(bidding.legal())
        self._append(Bid(bidding.to_act, action, value, time=time.time()))

    def _play(self, hand: Hand) -> None:
        rules = self.state.info.rules
        if rules.kitty_shown and hand.kitty is not None and not any(isinstance(e, Kitty) for e in hand.events):
            self._append(Kitty(hand.kitty, time=time.time()))
            return
        seat = hand.turn
        if seat is None or hand.known is None or seat >= len(hand.known):
            return  # cards unknown (a hand dealt by the referee): the table waits for the page
        if hand.current and self.rng.random() < self.pass_chance:
            self._append(Pass(seat, time=time.time()))
            return
        options = [p for prev in (hand.current or (None,)) for p in legal_plays(hand.known[seat], prev, rules)]
        if not options:
            self._append(Pass(seat, time=time.time()))
            return
        cards = self.rng.choice(options).cards
        if self.rng.random() < self.misread_rate:
            self._misread(hand, seat, cards)
        self._append(Play(seat, cards, time=time.time()))
        left = hand.cards_left[seat] - len(cards)
        if 0 < left <= rules.announce_at and seat not in hand.announced:
            self._append(Announce(seat, time=time.time()))

    def _misread(self, hand: Hand, seat: int, cards: tuple) -> None:
        """Post the alert a camera referee raises when one card of a play reads wrongly."""
        wrong = list(cards)
        i = self.rng.randrange(len(wrong))
        wrong[i] = self.rng.choice([c for c in full_deck() if c.rank != wrong[i].rank])
        violation = hand.check(Play(seat, tuple(wrong)))
        if violation is None:
            return  # a misread that is still legal would go unnoticed; the bots keep it honest
        read, true = format_cards(wrong), format_cards(cards)
        self._append(Alert("uncertain_read", seat=seat, cards=read, suggestion=true, time=time.time(),
                           data={"cause": violation.kind}))
