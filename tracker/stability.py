"""Per-zone stability: noisy per-frame card reads become settled plays.

A :class:`ZoneTracker` watches one zone (a seat's play zone, or the kitty zone). Each frame
it gets the cards read there (:class:`Seen`: card id, confidence, the detector's second
guesses, and where the card lies in table millimetres) and whether a hand is over the zone.

- **Debounce**: a card counts when it is seen in ``k`` of the last ``n`` usable frames, and
  keeps counting until it goes unseen for ``n`` frames (a read that flickers, 3 frames of 5
  and then 2, is a card lying there all along, not one that comes and goes). Reads
  are voted per physical card (cards seen within ``radius`` mm of each other across frames
  are one card), so a card read ``6h`` in two frames and ``8h`` in three is one ``8h``.
- **Hand over the zone**: frames with motion are not counted at all, so a hand covering the
  cards neither removes them nor adds half-seen ones.
- **Commit**: once the zone has been unchanged for ``settle`` seconds with no hand over it,
  cards counted there beyond those already committed are the seat's new play. Unchanged means
  the same cards by id: a card whose reads jump between its two corners (one corner read, then
  both, a half-card apart) is voted into a new slot each time, and that is not a change.
- **Late cards**: a card that settles after the zone's play was committed, with no hand over
  the zone since, was part of that play (its read flickered below ``k`` of ``n`` while the rest
  settled): it comes out as the whole play again, with ``amends`` naming the cards read before.
  After a restart nothing was committed yet, so cards already lying there still count for nothing.
- **Restart**: :meth:`ZoneTracker.resume` tells a fresh tracker what its zone already played
  in the hand under way (the store's record), so those cards are never a play again: not
  when they lie there at start, nor when a hand reaches over them, nor when they are put down
  again (a film replayed from an earlier frame). Cards lying there that the store lacks were
  put down just before the stop: they are a play.
- **Covered** cards stay played: a card that disappears under a newer one is not un-played.
- **Sweep**: when the zone stays empty for ``settle`` seconds the trick was cleared away;
  the committed cards are forgotten so the next play starts from nothing.
- A card already played from this zone in this hand is never a new play again (it was only
  uncovered, or the camera lost and found it), up to the number of decks in play. With two
  decks a second copy may come; a card found again where a played copy of it lay (since the
  zone was last swept), within a card's span (one corner seen where both were), is still that
  copy, not the second.
- **Taken back**: once the zone settles again, cards of its last play that are gone, not
  covered by a newer card nor found elsewhere in the zone (moved, or a squared pile), were
  picked up: a card taken back from a play, or a dropped card (掉牌) picked up again, unless
  cards that lay there before that play went too (a pile squared up, or covered). They come
  out as ``taken`` with what is left of that play as ``cards``, and no longer count as played;
  taken cards seen again where they lay before anything else settles (a sleeve or a cup lifted
  off them) come out as ``returned``. With the zone empty (``emptied``) it may as well have been
  swept: the cards still count as played, and the referee tells the two apart by who plays next
  (``tracker.takeback``); the session releases the cards it finds picked up (:meth:`ZoneTracker.replace_played`).
- **Doubles**: a play that holds one id at more places than the decks hold it keeps it once;
  the other places go with the play as ``doubles`` (with their other reads), for the referee
  to try when the play as read is refused (:class:`~tracker.referee.PlayCandidate`).

>>> z = ZoneTracker(seat=0, k=2, n=3, settle=0.5)
>>> for t in (0.0, 0.1, 0.2, 0.3, 0.8):
...     out = z.update(t, [Seen("5h", 0.9, center=(10, 10))])
>>> out.cards, out.seat
(('5h',), 0)
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from tracker.referee import PlayCandidate

#: Reads closer than this many millimetres across frames are one physical card.
SLOT_RADIUS = 18.0
#: A card's place is where its read corners lie: both corners, their middle, or one corner
#: when the other is covered. They lie up to about this far apart (a 63x88 mm card's diagonal
#: less the index insets), so with two decks a played card read again within it is that card.
CARD_SPAN_MM = 100.0


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
    #: Not empty: these cards were committed before as this zone's play, and ``cards`` is that
    #: play with the late cards added (no hand went over the zone in between).
    amends: tuple[str, ...] = ()
    #: Cards left out of ``cards`` as a second read of a card in them, beyond the decks in play
    #: (one deck: an id read at two places), each with its other reads: in a one-deck game one
    #: of them may be a card of the same rank whose suit was misread (a 4s read as 4d beside the 4d).
    doubles: tuple[tuple[str, tuple[tuple[str, float], ...]], ...] = ()
    #: Not empty: these cards of the zone's last play were picked up (``cards``: what is left of
    #: that play, maybe nothing); ``emptied``: and the zone is empty (a sweep looks the same).
    taken: tuple[str, ...] = ()
    emptied: bool = False
    #: Not empty: cards reported ``taken`` lie again where they lay (``cards``: the play whole).
    returned: tuple[str, ...] = ()

    def candidate(self) -> PlayCandidate:
        if self.seat is None:
            raise ValueError("the kitty zone's cards are not a play")
        return PlayCandidate(self.seat, self.cards, self.time, self.confidences, self.alternatives, self.doubles)


@dataclass
class _Slot:
    """One physical card: whether it was seen in each of the last ``n`` usable frames, and
    every read of it since it appeared (its identity is the most frequent read)."""

    center: tuple[float, float] | None
    votes: deque = field(default_factory=deque)  # card id or None per frame
    tally: Counter = field(default_factory=Counter)
    latest: dict[str, Seen] = field(default_factory=dict)
    committed: bool = False
    sealed: bool = False  # a hand has been over the zone since this card was read: it is what it is
    #: Seen in ``k`` of ``n`` frames once: it stays counted until unseen for ``n`` frames (the
    #: slot goes then), so a card whose read flickers (seen in 3 frames of 5, then 2) does not
    #: leave and come back, and can settle (module doc, "debounce").
    held: bool = False
    #: Reads since a hand was last over the zone: a slot is held only on ``k`` of these (its
    #: reads from before may be of a card the hand took away).
    still: int = 0

    def accepts(self, card: str) -> bool:
        """A different read at a sealed slot's place is a new card put on top of it."""
        return not self.sealed or card == self.card

    def present(self, k: int) -> bool:
        return self.held or self.counted(k)

    @property
    def presence(self) -> float:
        """The share of the last ``n`` frames it was read in: a mark on a card's face read as an
        index now and then (3 frames of 5) is less sure to be a card than one read in all."""
        return sum(v is not None for v in self.votes) / max(1, len(self.votes))

    def counted(self, k: int) -> bool:
        """Seen in at least ``k`` of the last ``n`` frames."""
        return sum(v is not None for v in self.votes) >= k

    @property
    def card(self) -> str:
        return self.tally.most_common(1)[0][0]

    @property
    def seen(self) -> Seen:
        """The latest read of the slot's card."""
        return self.latest.get(self.card, Seen(self.card))

    @property
    def place(self) -> tuple[float, float]:
        return self.center or (0.0, 0.0)

    def share(self, card: str) -> float:
        return self.tally[card] / max(1, sum(self.tally.values()))


@dataclass
class ZoneTracker:
    """Debounces one zone's reads into settled plays. ``update`` returns a :class:`Settled` or None.

    Settling follows the cards' presence (which positions hold a card), not their reads: a
    card whose read keeps flipping between two ids still settles, as its most frequent read
    with a lowered confidence and the other read as an alternative for the referee.
    """

    seat: int | None
    k: int = 3
    n: int = 5
    settle: float = 0.6
    radius: float = SLOT_RADIUS
    decks: int = 1
    slots: list[_Slot] = field(default_factory=list)
    played: Counter = field(default_factory=Counter)  # cards played from this zone this hand
    changed_at: float | None = None
    moving: bool = False
    motion_since_commit: bool = True
    _layout: frozenset = field(default_factory=frozenset)
    _last: Settled | None = None  # the zone's last commit, while no hand has been over the zone
    #: Where this zone's committed cards lay since it was last swept: (card, place), the place
    #: ``None`` for cards the store says were played before a restart (where is not known).
    _placed: list = field(default_factory=list)
    #: The zone's last play as (card, slot), less the cards since taken back; and the cards last
    #: taken back, with where they lay (see "taken back" in the module doc).
    _play: list = field(default_factory=list)
    _taken: list = field(default_factory=list)
    #: The slots of the cards that lay in the zone before its last play (see "taken back").
    _older: list = field(default_factory=list)

    def __post_init__(self) -> None:
        if not 1 <= self.k <= self.n:
            raise ValueError(f"need 1 <= k <= n, got k={self.k}, n={self.n}")
        if self.settle < 0:
            raise ValueError(f"settle time must be >= 0, got {self.settle}")

    @property
    def stable(self) -> Counter:
        """The cards lying in the zone now (by their most frequent read)."""
        return Counter(s.card for s in self.slots if s.present(self.k))

    @property
    def committed(self) -> Counter:
        """The cards in the zone already counted as played (this trick)."""
        return Counter(s.card for s in self.slots if s.committed and s.present(self.k))

    def resume(self, played: Iterable[str], under_way: bool = True) -> None:
        """Start on a table as the store left it: ``played`` (card ids, once per card) are the
        cards this zone has put down in the hand under way, as the store recorded them.

        They count as played already (see "a card already played" in the module doc). The
        other cards lying in the zone now are a play not stored yet (put down just before the
        stop) when a hand is ``under_way``; with none, they are left over from before and
        count for nothing (see "late cards")."""
        self.played = Counter(played)
        self.motion_since_commit = under_way
        self._last = None
        self._placed = [(card, None) for card in self.played.elements()]

    def replace_played(self, read: Counter, stored: Counter) -> None:
        """The referee stored ``stored`` for the play this zone read as ``read``: count that as
        played instead (a card left out as no card at all may yet be put down for real)."""
        gone = read - stored
        self.played = (self.played - gone) + (stored - read)
        for card in gone.elements():
            at = next((i for i, (c, _) in enumerate(self._placed) if c == card), None)
            if at is not None:
                del self._placed[at]

    def new_hand(self) -> None:
        """A new hand: cards played in the last one may come again (a fresh deal)."""
        self.played.clear()
        self._last = None
        self._placed = []
        self._play, self._taken, self._older = [], [], []

    def update(self, time: float, seen: list[Seen], motion: bool | None = None) -> Settled | None:
        """One frame. ``motion``: a hand is over the zone (``None``: no motion signal)."""
        if motion:
            self.moving = True
            self.motion_since_commit = True
            self.changed_at = time
            self._last = None
            for slot in self.slots:
                slot.sealed = bool(slot.tally)
                # a hand over the zone may take cards away: each is held again only on k reads
                # after it (a trick swept off piece by piece would otherwise read, for a moment,
                # as part of it picked up while the rest is held)
                slot.held, slot.still = False, 0
            return None
        self.moving = False
        self._vote(seen)
        present = [s for s in self.slots if s.present(self.k)]
        # What lies here by card, up to the decks in play (with one deck two slots of one id
        # are one card read at two places).
        layout = frozenset((card, min(n, self.decks)) for card, n in Counter(s.card for s in present).items())
        if layout != self._layout:
            self._layout = layout
            self.changed_at = time
        if self.changed_at is None or time - self.changed_at < self.settle:
            return None
        if not present:
            self._placed = []  # swept: nothing played before lies here any more
        fresh = [s for s in present if not s.committed]
        if self.seat is not None:
            back = self._taken_back(present, fresh, time) or self._returned(fresh, time)
            if back is not None:
                return back
        if not fresh:
            return None
        lost = self._lost_places(present)
        for slot in fresh:
            slot.committed = True
        late = motion is not None and not self.motion_since_commit
        if late and self._last is None:
            return None  # cards nobody just put down (after a restart): not a play
        new, doubles = [], []
        budget = Counter({c: self.decks - self.played[c] for c in {s.card for s in fresh}})
        # Of one id's places, the steadiest and surest read is the card; the rest are doubles.
        for slot in sorted(fresh, key=lambda s: (-s.share(s.card), -s.seen.confidence)):
            if self._found_again(slot, lost):
                continue  # a played card uncovered or read again where it lay
            if budget[slot.card] > 0:
                budget[slot.card] -= 1
                new.append(slot)
            elif not self.played[slot.card]:
                doubles.append(slot)  # one id more often than the decks hold, in this one play
            # else: a card this zone already played this hand was only uncovered
        if not new:
            return None
        self.played += Counter(s.card for s in new)
        self._placed += [(s.card, s.center) for s in new]
        self.motion_since_commit = False
        if not late:
            fresh_ids = {id(s) for s in fresh}
            self._older = [s for s in present if id(s) not in fresh_ids]
        self._play = (self._play if late else []) + [(s.card, s) for s in new]
        self._taken = []
        settled = self._settled(new, time, doubles)
        if late:  # the zone's last play, completed (_last is set: see above)
            last = self._last
            assert last is not None
            settled = Settled(self.seat, last.cards + settled.cards, time, last.confidences + settled.confidences,
                              last.alternatives + settled.alternatives, amends=last.cards,
                              doubles=last.doubles + settled.doubles)
        self._last = settled
        return settled

    # ------------------------------------------------------------------ helpers
    def _taken_back(self, present: list[_Slot], fresh: list[_Slot], time: float) -> Settled | None:
        """Cards of the zone's last play picked up (module doc, "taken back"), or None."""
        if not self._play or fresh or not self.motion_since_commit:
            return None  # a card is picked up by a hand; one read flickering is no take-back
        here = {id(s) for s in self.slots}  # a slot goes once unseen for n frames
        ids = Counter(s.card for s in present)
        gone = [(card, slot) for card, slot in self._play if id(slot) not in here]
        if not gone:
            return None
        self._play = [(card, slot) for card, slot in self._play if id(slot) in here]
        taken = tuple(card for card, _ in gone if not ids[card])
        if not taken:
            return None  # found elsewhere in the zone: moved (pushed), or read at its other corner
        if any(id(s) not in here for s in self._older):
            return None  # cards of earlier plays went too: the pile was squared up or covered, not picked from
        if not present:  # swept, or picked up: the referee decides, and releases what was picked up
            return Settled(self.seat, (), time, (), (), taken=taken, emptied=True)
        self.replace_played(Counter(taken), Counter())
        self._taken = [(card, slot.center) for card, slot in gone if card in taken]
        # what is left of the play: the cards still in their places, and those read elsewhere
        moved = {card for card, _ in gone} - set(taken)
        kept = [slot for _, slot in self._play] + [s for s in present if s.card in moved and all(
            s is not slot for _, slot in self._play)]
        settled = self._settled(kept, time) if kept else Settled(self.seat, (), time, (), ())
        return replace(settled, taken=taken)

    def _returned(self, fresh: list[_Slot], time: float) -> Settled | None:
        """Cards last taken back lying again where they lay, and nothing else new: uncovered."""
        if not self._taken or not fresh:
            return None
        left = list(self._taken)
        for slot in fresh:
            at = next((i for i, (card, place) in enumerate(left) if card == slot.card and (
                place is None or slot.center is None or _gap(place, slot.center) <= CARD_SPAN_MM)), None)
            if at is None:
                return None
            del left[at]
        self._taken = []
        for slot in fresh:
            slot.committed = True
        self.played += Counter(s.card for s in fresh)
        self._placed += [(s.card, s.center) for s in fresh]
        self._play += [(s.card, s) for s in fresh]
        whole = self._settled([slot for _, slot in self._play], time)
        return replace(whole, returned=tuple(s.card for s in fresh))

    def _lost_places(self, present: list[_Slot]) -> list:
        """The places of committed cards no committed slot accounts for now (covered, or read
        as a fresh slot again)."""
        held = [s for s in present if s.committed]
        lost = []
        for card, place in self._placed:
            match = next((s for s in held if s.card == card and (place is None or s.center is None
                          or _gap(s.center, place) <= CARD_SPAN_MM)), None)
            if match is None:
                lost.append((card, place))
            else:
                held.remove(match)
        return lost

    def _found_again(self, slot: _Slot, lost: list) -> bool:
        """``slot`` is a played card found again: one of ``lost`` (taken from it) is its card
        at its place. Only with more than one deck: with one, ``played`` already says so."""
        if self.decks == 1 or not self.played[slot.card]:
            return False
        for i, (card, place) in enumerate(lost):
            if card == slot.card and (place is None or slot.center is None or _gap(slot.center, place) <= CARD_SPAN_MM):
                del lost[i]
                return True
        return False

    def _vote(self, seen: list[Seen]) -> None:
        taken: set[int] = set()
        votes: dict[int, Seen] = {}
        for s in sorted(seen, key=lambda s: -s.confidence):
            best: int | None = None
            best_key: tuple[bool, float | None] = (True, self.radius)
            for i, slot in enumerate(self.slots):
                if i in taken or not slot.accepts(s.card):
                    continue
                d = _distance(slot, s)
                key = (bool(slot.tally) and slot.card != s.card, d)  # same read first, then nearest
                if d is not None and d <= self.radius and key <= best_key:
                    best, best_key = i, key
            if best is None:
                self.slots.append(_Slot(s.center, deque([None] * (self.n - 1), maxlen=self.n)))
                best = len(self.slots) - 1
            taken.add(best)
            votes[best] = s
        for i, slot in enumerate(self.slots):
            vote = votes.get(i)
            slot.votes.append(None if vote is None else vote.card)
            if vote is not None:
                slot.still += 1
                slot.tally[vote.card] += 1
                slot.latest[vote.card] = vote
                if vote.center is not None and slot.center is not None:
                    slot.center = ((slot.center[0] + vote.center[0]) / 2, (slot.center[1] + vote.center[1]) / 2)
        # A slot unseen for n frames is gone: swept away, or covered by a newer card.
        self.slots = [s for s in self.slots if any(v is not None for v in s.votes)]
        for slot in self.slots:
            slot.held = slot.held or (slot.counted(self.k) and slot.still >= self.k)
        # A slot held without k of n reads lies where a slot of its card now counted lies, within
        # a card's span: the card read at its other corner (or both), not a second copy.
        for slot in self.slots:
            if slot.held and not slot.counted(self.k) and any(
                    o is not slot and o.counted(self.k) and o.card == slot.card and _near_place(o, slot)
                    for o in self.slots):
                slot.held = False

    def _settled(self, slots: list[_Slot], time: float, doubles: Iterable[_Slot] = ()) -> Settled:
        cards, confs, alts = [], [], []
        for slot in sorted(slots, key=lambda s: s.place):
            cards.append(slot.card)
            confs.append(round(slot.seen.confidence * slot.share(slot.card) * slot.presence, 4))
            alts.append(_alternatives(slot))
        extra = tuple((slot.card, _alternatives(slot)) for slot in sorted(doubles, key=lambda s: s.place))
        return Settled(self.seat, tuple(cards), time, tuple(confs), tuple(alts), doubles=extra)


def _alternatives(slot: _Slot) -> tuple[tuple[str, float], ...]:
    """A slot's other reads, by vote share, then the detector's next guesses at its latest read."""
    card, total = slot.card, sum(slot.tally.values())
    voted = tuple((c, n / total) for c, n in slot.tally.most_common() if c != card)
    alt_ids = {c for c, _ in voted}
    return voted + tuple(a for a in slot.seen.alternatives if a[0] not in alt_ids and a[0] != card)


def _gap(a: tuple[float, float], b: tuple[float, float]) -> float:
    return ((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5


def _near_place(a: _Slot, b: _Slot) -> bool:
    """Two slots lie within a card's span (:data:`CARD_SPAN_MM`); unplaced slots do."""
    return a.center is None or b.center is None or _gap(a.center, b.center) <= CARD_SPAN_MM


def _distance(slot: _Slot, seen: Seen) -> float | None:
    """How far a read is from a slot; reads without positions match slots of their own card."""
    if slot.center is None or seen.center is None:
        return 0.0 if seen.card in slot.latest else None
    return _gap(slot.center, seen.center)
