"""Per-zone stability: noisy per-frame card reads become settled plays.

A :class:`ZoneTracker` watches one zone (a seat's play zone, or the kitty zone). Each frame
it gets the cards read there (:class:`Seen`: card id, confidence, the detector's second
guesses, and where the card lies in table millimetres) and whether a hand is over the zone.

- **Debounce**: a card counts when it is seen in ``k`` of the last ``n`` usable frames. Reads
  are voted per physical card (cards seen within ``radius`` mm of each other across frames
  are one card), so a card read ``6h`` in two frames and ``8h`` in three is one ``8h``.
- **Hand over the zone**: frames with motion are not counted at all, so a hand covering the
  cards neither removes them nor adds half-seen ones.
- **Commit**: once the zone has been unchanged for ``settle`` seconds with no hand over it,
  cards counted there beyond those already committed are the seat's new play.
- **Covered** cards stay played: a card that disappears under a newer one is not un-played.
- **Sweep**: when the zone stays empty for ``settle`` seconds the trick was cleared away;
  the committed cards are forgotten so the next play starts from nothing.
- A card already played from this zone in this hand is never a new play again (it was only
  uncovered, or the camera lost and found it), up to the number of decks in play.

>>> z = ZoneTracker(seat=0, k=2, n=3, settle=0.5)
>>> for t in (0.0, 0.1, 0.2, 0.3, 0.8):
...     out = z.update(t, [Seen("5h", 0.9, center=(10, 10))])
>>> out.cards, out.seat
(('5h',), 0)
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field

from tracker.referee import PlayCandidate

#: Reads closer than this many millimetres across frames are one physical card.
SLOT_RADIUS = 18.0


@dataclass(frozen=True)
class Seen:
    """One card read in one frame: its id, confidence, alternatives, and table position."""

    card: str
    confidence: float = 1.0
    alternatives: tuple[tuple[str, float], ...] = ()
    center: tuple[float, float] | None = None


@dataclass(frozen=True)
class Settled:
    """Cards newly settled in a zone: a seat's play, or the kitty (``seat`` is ``None``)."""

    seat: int | None
    cards: tuple[str, ...]
    time: float
    confidences: tuple[float, ...]
    alternatives: tuple[tuple[tuple[str, float], ...], ...]

    def candidate(self) -> PlayCandidate:
        if self.seat is None:
            raise ValueError("the kitty zone's cards are not a play")
        return PlayCandidate(self.seat, self.cards, self.time, self.confidences, self.alternatives)


@dataclass
class _Slot:
    """One physical card position: its votes over the last ``n`` usable frames."""

    center: tuple[float, float] | None
    votes: deque = field(default_factory=deque)  # card id or None per frame
    latest: dict[str, Seen] = field(default_factory=dict)

    def card(self, k: int) -> str | None:
        counts = Counter(v for v in self.votes if v is not None)
        if sum(counts.values()) < k:
            return None
        return counts.most_common(1)[0][0]

    def share(self, card: str) -> float:
        return sum(v == card for v in self.votes) / max(1, sum(v is not None for v in self.votes))


@dataclass
class ZoneTracker:
    """Debounces one zone's reads into settled plays. ``update`` returns a :class:`Settled` or None."""

    seat: int | None
    k: int = 3
    n: int = 5
    settle: float = 0.6
    radius: float = SLOT_RADIUS
    decks: int = 1
    slots: list[_Slot] = field(default_factory=list)
    committed: Counter = field(default_factory=Counter)  # cards of this trick counted as played
    played: Counter = field(default_factory=Counter)  # cards played from this zone this hand
    stable: Counter = field(default_factory=Counter)
    changed_at: float | None = None
    moving: bool = False
    motion_since_commit: bool = True

    def __post_init__(self) -> None:
        if not 1 <= self.k <= self.n:
            raise ValueError(f"need 1 <= k <= n, got k={self.k}, n={self.n}")
        if self.settle < 0:
            raise ValueError(f"settle time must be >= 0, got {self.settle}")

    def new_hand(self) -> None:
        """A new hand: cards played in the last one may come again (a fresh deal)."""
        self.played.clear()

    def update(self, time: float, seen: list[Seen], motion: bool | None = None) -> Settled | None:
        """One frame. ``motion``: a hand is over the zone (``None``: no motion signal)."""
        if motion:
            self.moving = True
            self.motion_since_commit = True
            self.changed_at = time
            return None
        self.moving = False
        self._vote(seen)
        stable = Counter(c for c in (s.card(self.k) for s in self.slots) if c is not None)
        if stable != self.stable:
            self.stable = stable
            self.changed_at = time
        if self.changed_at is None or time - self.changed_at < self.settle:
            return None
        if not stable:
            if self.committed:  # swept off at the end of the trick
                self.committed.clear()
            return None
        new = stable - self.committed
        new = Counter({c: min(m, self.decks - self.played[c]) for c, m in new.items() if self.played[c] < self.decks})
        if not new or (motion is not None and not self.motion_since_commit):
            self.committed |= stable  # late reads of cards nobody just put down
            return None
        self.committed += new
        self.played += new
        self.motion_since_commit = False
        return self._settled(new, time)

    # ------------------------------------------------------------------ helpers
    def _vote(self, seen: list[Seen]) -> None:
        taken: set[int] = set()
        votes: dict[int, Seen] = {}
        for s in sorted(seen, key=lambda s: -s.confidence):
            best, best_d = None, self.radius
            for i, slot in enumerate(self.slots):
                if i in taken:
                    continue
                d = _distance(slot, s)
                if d is not None and d <= best_d:
                    best, best_d = i, d
            if best is None:
                self.slots.append(_Slot(s.center, deque([None] * (self.n - 1), maxlen=self.n)))
                best = len(self.slots) - 1
            taken.add(best)
            votes[best] = s
        for i, slot in enumerate(self.slots):
            s = votes.get(i)
            if slot.votes.maxlen != self.n:
                slot.votes = deque(slot.votes, maxlen=self.n)
            slot.votes.append(None if s is None else s.card)
            if s is not None:
                slot.latest[s.card] = s
                if s.center is not None and slot.center is not None:
                    slot.center = ((slot.center[0] + s.center[0]) / 2, (slot.center[1] + s.center[1]) / 2)
        self.slots = [s for s in self.slots if any(v is not None for v in s.votes)]

    def _settled(self, new: Counter, time: float) -> Settled:
        cards, confs, alts = [], [], []
        pool = Counter(new)
        for slot in sorted(self.slots, key=lambda s: s.center or (0.0, 0.0)):
            card = slot.card(self.k)
            if card is None or not pool[card]:
                continue
            pool[card] -= 1
            seen = slot.latest.get(card, Seen(card))
            others = Counter(v for v in slot.votes if v is not None and v != card)
            voted = tuple((c, n / len(slot.votes)) for c, n in others.most_common())
            alt_ids = {c for c, _ in voted}
            cards.append(card)
            confs.append(round(seen.confidence * slot.share(card), 4))
            alts.append(voted + tuple(a for a in seen.alternatives if a[0] not in alt_ids and a[0] != card))
        return Settled(self.seat, tuple(cards), time, tuple(confs), tuple(alts))


def _distance(slot: _Slot, seen: Seen) -> float | None:
    """How far a read is from a slot; reads without positions match slots of their own card."""
    if slot.center is None or seen.center is None:
        return 0.0 if seen.card in slot.latest else None
    dx, dy = slot.center[0] - seen.center[0], slot.center[1] - seen.center[1]
    return (dx * dx + dy * dy) ** 0.5
