"""The camera demo's referee: fixes on the page what the camera got wrong, as a club referee does.

At a real table the referee watches the site and corrects a misread play, inserts a pass or a
play the camera missed, or deletes one it imagined. In the demo the referee knows the filmed
hand (the simulator's truth), so once a play has lain on the table for ``REVIEW_S`` of video
time he compares the store's hand with the film and makes the same corrections a person would
make with the referee page's buttons: ``Correction`` events (replace, insert, delete) with
source ``referee``, each checked by the rules engine first. The pipeline reads on from the
corrected hand, so every hand finishes and is scored; the history shows each fix. He also
enters what the players say and the camera cannot hear: a seat down to the preset's limit
announces it (报单/报双), entered as ``Announce`` (the film has no announcements, so they are
left out of the comparison).

:class:`DemoCorrector` also keeps the honest figure: how many true plays the camera had right
before anyone touched them (``camera_exact``), and how many fixes it took (``fixes``).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from engine.events import Announce, Bid, Correction, Deal, Event, Kitty, Pass, Play, Shown, retimed
from engine.hand import Hand
from tracker.state import TableState
from tracker.store import EventStore

#: Video seconds a play lies on the table before the referee looks: the pipeline commits it
#: in about 1.4 s (settle plus k-of-n reads) and a card read late amends it within about
#: 2.6 s; the next play lands about 2.5 s after and is committed some 1.4 s later.
REVIEW_S = 3.0
#: Corrections one review may make (a review that cannot converge stops here and tries later).
MAX_FIXES = 40


def event_key(event: Event) -> tuple[Any, ...]:
    """What must agree between the film and the store (times and sources do not)."""
    if isinstance(event, Play):
        return "play", event.seat, tuple(sorted(str(c) for c in event.cards))
    if isinstance(event, Kitty):
        return "kitty", tuple(sorted(str(c) for c in event.cards))
    if isinstance(event, Shown):
        return "shown", event.seat, tuple(sorted(str(c) for c in event.cards))
    if isinstance(event, Pass):
        return "pass", event.seat
    if isinstance(event, Bid):
        return "bid", event.seat, event.action, event.value
    if isinstance(event, Deal):
        return "deal", tuple(event.counts), event.first_bidder
    return (event.kind,)


def due_events(truth: Hand, landed: Sequence[float | None], now: float, review_s: float = REVIEW_S) -> int:
    """How many of the film's events the referee may check at video time ``now``.

    A play, the kitty or cards shown after the hand are due ``review_s`` after they landed; a pass only with the next play after
    it (the camera infers passes when the next seat plays); deal and bids are entered at once."""
    due = 0
    for i, event in enumerate(truth.events):
        if isinstance(event, Play | Kitty | Shown):
            t = landed[i] if i < len(landed) else None
            if t is None or now < t + review_s:
                break
            due = i + 1
        elif isinstance(event, Deal | Bid) and due == i:
            due = i + 1
    return due


class DemoCorrector:
    """Keeps hand ``number`` of match ``match_id`` in step with the filmed ``truth``."""

    def __init__(self, store: EventStore, match_id: int, number: int, truth: Hand) -> None:
        self.store, self.match_id, self.number, self.truth = store, match_id, number, truth
        self.checked = 0  # film events already compared
        self.camera_exact = 0  # true plays the store held exactly when first checked
        self.plays_checked = 0
        self.fixes = 0
        self.reviewed = -1  # the due count ``review`` last looked at
        self._state: TableState | None = None
        self.failed: str | None = None  # why the last review could not finish

    def _hand(self) -> Hand | None:
        if self._state is None:
            self._state = TableState.load(self.store, self.match_id)
        return self._state.refresh(self.store).hand_of(self.number)  # folds only what is new

    def review(self, landed: Sequence[float | None], now: float) -> int:
        """Compare the due part of the film with the store and correct it; returns the fixes made.

        Called every frame, it looks again only when another play has become due (or the last
        look could not finish): reading the match back from the store is not free."""
        due = due_events(self.truth, landed, now)
        if due == self.reviewed and self.failed is None:
            return 0
        self.reviewed = due
        return self.reconcile(due)

    def reconcile(self, due: int) -> int:
        """Make the store's hand agree with the film's first ``due`` events."""
        film = self.truth.events[:due]
        hand = self._hand()
        if hand is None:
            return 0
        self._score_camera(hand, film)
        made = 0
        while made < MAX_FIXES:
            hand = self._hand()
            if hand is None:
                break
            where, have = _compared(hand)
            i = next((j for j, e in enumerate(film) if j >= len(have) or event_key(have[j]) != event_key(e)), None)
            if i is None:
                self.failed = None
                break
            if not self._fix(hand, where, have, film, i):
                self.failed = f"event {i} of hand {self.number} could not be put right"
                break
            made += 1
        self.fixes += made
        hand = self._hand()
        if hand is not None and self.failed is None and not hand.finished:
            for seat in hand.unannounced():  # the player said it; the referee taps 报牌
                self._append(hand, Announce(seat, time=time.time()))
        return made

    def _score_camera(self, hand: Hand, film: Sequence[Event]) -> None:
        """Plays due for the first time: how many the store holds as the camera read them.

        Matched as a multiset from the first unchecked point on, so one phantom play does not
        shift the count of the plays after it."""
        fresh = Counter(event_key(e) for e in film[self.checked:] if isinstance(e, Play))
        held = Counter(event_key(e) for e in _compared(hand)[1][self.checked:] if isinstance(e, Play))
        self.plays_checked += sum(fresh.values())
        self.camera_exact += sum((fresh & held).values())
        self.checked = max(self.checked, len(film))

    def _fix(self, hand: Hand, where: list[int], have: list[Event], film: Sequence[Event], i: int) -> bool:
        """One correction at the first disagreement ``i`` of the compared events (which sit at
        ``where`` in the hand); False when none is accepted."""
        want = film[i]
        options: list[Correction] = []
        if i >= len(have):
            return self._append(hand, _restamped(want))
        at = where[i]
        if i + 1 < len(have) and event_key(have[i + 1]) == event_key(want):
            options.append(Correction("delete", at, reason="demo referee: the camera saw a play that was not made",
                                      time=time.time()))
        if i + 1 < len(film) and event_key(have[i]) == event_key(film[i + 1]):
            options.append(Correction("insert", at, _restamped(want), reason="demo referee: the camera missed this",
                                      time=time.time()))
        options.append(Correction("replace", at, _restamped(want), reason="demo referee: misread", time=time.time()))
        for fix in options:
            if self._append(hand, fix):
                return True
        # Later reads built on the mistake: take the last one back and try again.
        return self._append(hand, Correction("delete", len(hand.events) - 1,
                                             reason="demo referee: read after a misread", time=time.time()))

    def _append(self, hand: Hand, event: Event) -> bool:
        if hand.check(event) is not None:
            return False
        self.store.append(self.match_id, self.number, event, source="referee")
        return True


def _compared(hand: Hand) -> tuple[list[int], list[Event]]:
    """The hand's events that the film also has (announcements left out), and their indices."""
    where = [i for i, e in enumerate(hand.events) if not isinstance(e, Announce)]
    return where, [hand.events[i] for i in where]


def _restamped(event: Event) -> Event:
    """The film's event with a wall-clock time, as the referee page stamps it."""
    return retimed(event, time.time())
