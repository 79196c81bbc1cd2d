"""The table's state, folded from the event store.

``TableState.load(store, match_id)`` replays a match's log through the engine: the finished
hands become the :class:`engine.match.Match` sheet, the last hand is the current
:class:`engine.hand.Hand`, and the referee's alerts are collected per hand. Corrections refold
through ``Hand.apply`` like any event. A stored event the engine refuses on replay (a log
written by an older program, or a hand edited by hand) is skipped and reported as a
``rejected_on_replay`` alert, so the page still opens.

>>> from tracker.store import EventStore
>>> from engine.events import Deal, Bid
>>> store = EventStore(":memory:")
>>> mid = store.create_match(("A", "B", "C"))
>>> _ = store.append(mid, 1, Deal(counts=(17, 17, 17))); _ = store.append(mid, 1, Bid(0, "bid", 3))
>>> match, hand, alerts = TableState.load(store, mid)
>>> hand.landlord, hand.cards_left, len(match.hands)
(0, [20, 17, 17], 0)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.events import Deal, Penalty
from engine.hand import Hand
from engine.match import HandRecord, Match
from engine.scoring import Settlement, settle
from engine.violations import HandViolation
from tracker.records import Alert, MatchEnd
from tracker.store import EventStore, MatchInfo, StoredEvent


@dataclass
class TableState:
    """A match at one table: the sheet, the current hand, alerts, and where the log stands.

    Unpacks as ``match, hand, alerts = TableState.load(...)``. ``hand`` is ``None`` before the
    first deal; a finished last hand stays current (its result is shown) until the next deal.
    """

    info: MatchInfo
    match: Match
    hand: Hand | None = None
    hand_number: int = 0
    alerts: list[Alert] = field(default_factory=list)  # the current hand's alerts
    all_alerts: dict[int, list[Alert]] = field(default_factory=dict)
    #: Per hand, how many of its alerts came before the referee's latest entry for that hand:
    #: those the referee has seen to (the page shows them as handled, not as open faults).
    handled: dict[int, int] = field(default_factory=dict)
    ended: MatchEnd | None = None
    #: Each match penalty (``match.penalties``, in order) with the hand current when it was
    #: recorded, so the page can show it with that hand and chart it from there on.
    penalty_hands: list[tuple[int, Penalty]] = field(default_factory=list)
    last_seq: int = 0
    _hands: dict[int, Hand] = field(default_factory=dict)

    def __iter__(self):
        return iter((self.match, self.hand, self.alerts))

    @classmethod
    def new(cls, info: MatchInfo) -> TableState:
        meta = info.meta
        match = Match(info.rules, info.players, first_bidder=int(meta.get("first_bidder", 0)),
                      started=meta.get("started", info.created), best_of=int(meta.get("best_of", 0)),
                      name=str(meta.get("name", "")))
        return cls(info, match)

    @classmethod
    def load(cls, store: EventStore, match_id: int) -> TableState:
        state = cls.new(store.match(match_id))
        for stored in store.events(match_id):
            state.apply(stored)
        return state

    def refresh(self, store: EventStore) -> TableState:
        """Fold the events appended since the last fold (the page's cheap update)."""
        for stored in store.events(self.info.id, after_seq=self.last_seq):
            self.apply(stored)
        return self

    # ------------------------------------------------------------------ folding
    def apply(self, stored: StoredEvent) -> None:
        """Fold one stored event (in ``seq`` order)."""
        self.last_seq = max(self.last_seq, stored.seq)
        event, number = stored.event, stored.hand
        if stored.source == "referee" and not isinstance(event, Alert) and self.all_alerts.get(number):
            self.handled[number] = len(self.all_alerts[number])
        if isinstance(event, Alert):
            self.all_alerts.setdefault(number, []).append(event)
        elif isinstance(event, MatchEnd):
            self.ended = event
        elif number == 0:
            if isinstance(event, Penalty):
                self.match.penalties.append(event)
                self.penalty_hands.append((self.hand_number, event))
            else:
                self._rejected(0, stored, reason="match_penalty_only")
        else:
            hand = self._hands.get(number)
            if hand is None:
                if not isinstance(event, Deal):
                    self._rejected(number, stored, reason="needs_deal")
                    return
                hand = self._hands[number] = Hand(self.info.rules)
            try:
                hand.apply(event)
            except HandViolation as exc:
                self._rejected(number, stored, reason="broke_rule", cause=exc.kind)
        if number >= self.hand_number and number in self._hands:
            self.hand_number = number
        self.hand = self._hands.get(self.hand_number)
        self.alerts = self.all_alerts.get(self.hand_number, [])
        self.match.hands = [HandRecord(tuple(h.log)) for n, h in sorted(self._hands.items()) if h.finished]

    def _rejected(self, number: int, stored: StoredEvent, **why: str) -> None:
        """``why``: the ``reason`` (a ``tracker.alerts.REASONS`` id) and, for a rule broken, its ``cause``."""
        self.all_alerts.setdefault(number, []).append(Alert(
            "rejected_on_replay", data={"at": stored.seq, "event": stored.kind, **why}))

    # ------------------------------------------------------------------ views
    @property
    def alerts_handled(self) -> int:
        """How many of the current hand's alerts (oldest first) the referee has seen to."""
        return self.handled.get(self.hand_number, 0)

    def hand_of(self, number: int) -> Hand | None:
        return self._hands.get(number)

    @property
    def hand_numbers(self) -> list[int]:
        return sorted(self._hands)

    def settlement(self) -> Settlement | None:
        """The current hand's points (zeros while it is being played)."""
        return None if self.hand is None else settle(self.hand, self.info.rules)

    @property
    def next_hand_number(self) -> int:
        return self.hand_number + 1
