"""The camera's referee: settled cards from the table become checked events in the store.

:class:`CameraReferee` takes what the table reader saw settle (a seat's play as a
:class:`PlayCandidate`, the kitty, a bid token, cards shown after the hand), folds the store's
log (the page's bids and corrections arrive there), checks it against ``engine.Hand`` and
appends the event, or an :class:`~tracker.records.Alert` saying why not. It infers the passes
it cannot see, makes the first seat to play the landlord while the bidding is open, suggests
a fix for a refused play that one doubtful card explains, and holds back what must wait for a
later event (:class:`Pending`). The rules it follows, one by one: docs/camera-table.md, "What
the camera's referee decides". The person refereeing on the page is ``webui``'s ``RefereeDesk``.

>>> from tracker.store import EventStore
>>> store = EventStore(":memory:")
>>> ref = CameraReferee(store, store.create_match(("A", "B", "C")))
>>> [r.kind for r in ref.play(PlayCandidate(1, ("5s",), time=2.0))]
['deal', 'landlord', 'play']
>>> [r.kind for r in ref.play(PlayCandidate(0, ("7h",), time=5.0))]
['pass', 'play']
>>> ref.hand.turn, ref.hand.cards_left
(1, [16, 19, 17])
"""

from __future__ import annotations

import copy
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.bidding import next_seat
from engine.cards import BJ, Card, format_cards, parse_cards
from engine.classify import classify
from engine.events import (
    Bid,
    Correction,
    Deal,
    Double,
    End,
    Event,
    Kitty,
    KittyPick,
    Landlord,
    Marker,
    OpenHand,
    Pass,
    Play,
    Reveal,
    Shown,
)
from engine.hand import Hand
from engine.showdown import deck_audit, everyone_shown, losers, seen_cards, tally, unseen_suited
from engine.violations import Violation
from tracker.records import Alert, Record
from tracker.state import TableState
from tracker.store import EventStore

#: A card read below this confidence may be the misread behind a refused play.
LOW_CONFIDENCE = 0.9
#: A card read below this confidence may be no card at all (a face's picture read as an
#: index): a refused play that the rules accept without it is suggested without it.
PHANTOM_CONFIDENCE = 0.3
#: With a deck profile the reader's confidences are its own: the bars are then ranks among the
#: confidences of the cards it read in plays the rules accepted as read (the last ``BARS_WINDOW``,
#: once ``BARS_NEEDED`` are in): the same share of its reads lies under each bar as under
#: ``LOW_CONFIDENCE`` and ``PHANTOM_CONFIDENCE`` for the shipped reader with no profile. Measured
#: on the full-deal suite's films (``python -m bench.tracker --suite runs/suite-full`` prints
#: ``below_low`` and ``below_phantom`` per film; docs/results.md): every accepted read lies under
#: 0.9 (1030 of 1030 cards on seven films), 1.6 % under 0.3 (0 to 2.9 % a film).
LOW_RANK = 1.0
PHANTOM_RANK = 0.016
BARS_WINDOW = 2000
BARS_NEEDED = 150
#: Cards laid after the hand are the seat's cards shown when they number within this many of
#: the cards it has left (a dropped card, a card of another deck).
SHOWN_SLACK = 1


def beyond_the_plays(hand: Hand, seat: int, cards: tuple[Card, ...]) -> tuple[Card, ...]:
    """``cards`` that ``seat`` shows after the hand, less the copies of cards it played this
    hand that the deck cannot hold beside them: its last play still lies in its zone and is read
    again with the cards laid beside it. (A card some other seat played is left in: a misread
    the deck audit names as seen too often.)"""
    room = Counter({card: hand.rules.decks for card in set(cards)})
    room.subtract(c for play in hand.plays if play.seat == seat for c in play.cards)
    kept = []
    for card in cards:
        if room[card] > 0:
            kept.append(card)
            room[card] -= 1
    return tuple(kept)


def twice_read(cards: tuple[Card, ...], left: int) -> tuple[Card, ...]:
    """``cards`` shown, read as more than the ``left`` the seat holds, less the second reads of a
    card read twice (a joker's two corners, or the two halves of its long index, taken for two
    cards): with two decks two copies may lie there, but one card more than the seat holds and a
    card twice is the likelier account."""
    extra = len(cards) - left
    kept: list[Card] = []
    for card in cards:
        if extra > 0 and card in kept:
            extra -= 1
            continue
        kept.append(card)
    return tuple(kept)


def shown_completion(hand: Hand | None) -> tuple[int, tuple[Card, ...]] | None:
    """``(seat, cards)`` when, everyone having shown, one seat alone has shown fewer cards than it
    holds and the deck lacks exactly that many cards, nothing seen too often and no card set
    aside unseen: those are the cards it holds that the camera did not read (two copies of a
    card, or two jokers, laid overlapping and read as one). Not a joker the deck lacks where the
    seat played jokers alone: its rocket may have been read as one joker. Else ``None``."""
    audit = None if hand is None else deck_audit(hand)
    if hand is None or audit is None or audit.ok or audit.extra or audit.set_aside:
        return None
    short = _short_seats(hand)
    if len(short) != 1 or short[0][1] != len(audit.missing):
        return None
    seat = short[0][0]
    if any(c.is_joker for c in audit.missing) and any(
            all(c.is_joker for c in play.cards) for play in hand.plays if play.seat == seat):
        return None  # a joker it played may have been a rocket read short (rocket_completion)
    return seat, tuple(audit.missing)


def shown_trim(hand: Hand | None) -> tuple[int, tuple[Card, ...], tuple[Card, ...]] | None:
    """``(seat, kept, extra)`` when, everyone having shown, one seat alone has shown more cards
    than it holds, by as many as the deck has cards seen too often, and every such card is among
    its cards shown and has the rank of a card of its last play: that play still lies in its
    zone under the cards shown, and a corner of it read with another suit (a 2♣ of its 2♥ 2♣
    read as 2♠ beside the jokers it showed) is no card shown. :func:`beyond_the_plays` drops only
    exact copies. ``kept``: its cards shown less those. Else ``None``."""
    audit = None if hand is None else deck_audit(hand)
    if hand is None or audit is None or audit.ok or not audit.extra or audit.set_aside:
        return None
    over = [(s, len(hand.shown.get(s, ())) - hand.cards_left[s]) for s in losers(hand)]
    over = [(s, n) for s, n in over if n > 0]
    if len(over) != 1 or over[0][1] != len(audit.extra):
        return None
    seat = over[0][0]
    last = next((e for e in reversed(hand.events) if isinstance(e, Play) and e.seat == seat), None)
    shown = Counter(hand.shown[seat])
    extra = Counter(audit.extra)
    if last is None or extra - shown or any(c.rank not in {p.rank for p in last.cards} for c in extra):
        return None
    kept = list(hand.shown[seat])
    for card in audit.extra:
        kept.remove(card)
    return seat, tuple(kept), tuple(audit.extra)


def _short_seats(hand: Hand) -> list[tuple[int, int]]:
    """``(seat, n)`` for each loser that has shown ``n`` > 0 cards fewer than it holds on record."""
    short = [(s, hand.cards_left[s] - len(hand.shown.get(s, ()))) for s in losers(hand)]
    return [(s, n) for s, n in short if n > 0]


def rocket_completion(hand: Hand | None) -> Correction | None:
    """Everyone having shown, one seat alone one card short and the deck lacking exactly one
    joker, where that seat played the other joker alone once: that play was its rocket, the
    joker it lacks lying under the one read (tigullio's black joker fanned under the red shows a
    corner of its star, read weakly as a diamond). The :class:`Correction` that makes it the
    rocket when the rules accept it, else ``None``. Preferred to a joker hidden among the cards
    shown (:func:`shown_completion` leaves that case): two jokers laid as one play overlap,
    cards shown lie spread, and the second look for jokers reads those zones."""
    audit = None if hand is None else deck_audit(hand)
    if hand is None or audit is None or audit.ok or audit.extra or audit.set_aside or len(audit.missing) != 1:
        return None
    missing = audit.missing[0]
    short = _short_seats(hand)
    if not missing.is_joker or [n for _, n in short] != [1]:
        return None
    seat = short[0][0]
    found = [i for i, e in enumerate(hand.events) if isinstance(e, Play) and e.seat == seat
             and len(e.cards) == 1 and e.cards[0].is_joker and e.cards[0] != missing]
    if len(found) != 1:
        return None
    play = hand.events[found[0]]
    assert isinstance(play, Play)
    fix = Correction("replace", found[0], Play(seat, tuple(sorted((*play.cards, missing))), time=play.time),
                     reason=f"camera: {missing} under {play.cards[0]}, the deck lacking it", time=play.time)
    return fix if hand.check(fix) is None else None


#: The most cards the deck may lack for :func:`play_completion` to look for the plays they
#: belong to (each way of sharing them out is a replay of the hand).
PLAY_COMPLETION_MOST = 4


def play_completion(hand: Hand | None) -> list[Correction]:
    """Everyone having shown, one seat alone short of cards and the deck lacking exactly that
    many (as :func:`shown_completion`): the cards it lacks added to that seat's plays, when
    exactly one way of sharing every one of them out among its plays gives plays the rules
    accept, the hand replaying as it went. Those cards lay under others of their play: a pair's
    second card under the first, the fourth jack of 斗帝主's J-Q-K-A airplane under the ace
    beside it (read 15 cards, one ace then left out as a card read twice). A card hidden among
    the cards shown fits no play that way but by chance, and a share that fits is what such a
    chance rarely makes unique. One :class:`Correction` (a replace) for each play that takes
    cards; ``[]`` when no share or several fit."""
    audit = None if hand is None else deck_audit(hand)
    if hand is None or audit is None or audit.ok or audit.extra or audit.set_aside:
        return []
    short = _short_seats(hand)
    missing = audit.missing
    if len(short) != 1 or short[0][1] != len(missing):
        return []
    return grown_plays(hand, short[0][0], missing)


def grown_plays(hand: Hand, seat: int, missing: tuple[Card, ...]) -> list[Correction]:
    """The replaces that give every card of ``missing`` to ``seat``'s plays, when exactly one
    way of sharing them out gives plays the rules accept, the hand replaying as it went; else
    ``[]``."""
    if not 0 < len(missing) <= PLAY_COMPLETION_MOST:
        return []
    plays = [i for i, e in enumerate(hand.events) if isinstance(e, Play) and e.seat == seat]
    # What each play could take: every share of the lacking cards that makes it a play the
    # rules accept where it stands (the rest of the hand as recorded).
    takes: dict[int, list[tuple[Card, ...]]] = {}
    for i in plays:
        play = hand.events[i]
        assert isinstance(play, Play)
        for share in _shares(missing):
            more = tuple(sorted((*play.cards, *share)))
            if classify(more, hand.rules) and hand.check(_grown(i, play, more)) is None:
                takes.setdefault(i, []).append(share)
    found = [chosen for chosen in _share_out(sorted(takes.items()), Counter(missing))
             if _fits_together(hand, chosen)]
    if len(found) != 1:
        return []
    fixes = []
    for i, share in found[0]:
        play = hand.events[i]
        assert isinstance(play, Play)
        fixes.append(_grown(i, play, tuple(sorted((*play.cards, *share)))))
    return fixes


def _grown(index: int, play: Play, cards: tuple[Card, ...]) -> Correction:
    return Correction("replace", index, Play(play.seat, cards, time=play.time),
                      reason="camera: cards under others of this play, the deck lacking them", time=play.time)


def _shares(cards: tuple[Card, ...]) -> list[tuple[Card, ...]]:
    """Every non-empty sub-multiset of ``cards``, once each."""
    out: set[tuple[Card, ...]] = set()
    for mask in range(1, 1 << len(cards)):
        out.add(tuple(sorted(c for k, c in enumerate(cards) if mask >> k & 1)))
    return sorted(out)


def _share_out(takes: list[tuple[int, list[tuple[Card, ...]]]], left: Counter[Card],
               ) -> list[list[tuple[int, tuple[Card, ...]]]]:
    """Every way of giving all of ``left`` to the plays of ``takes`` (a play gets one of its
    shares or nothing)."""
    if not +left:
        return [[]]
    if not takes:
        return []
    (index, shares), rest = takes[0], takes[1:]
    out = _share_out(rest, left)
    for share in shares:
        need = Counter(share)
        if all(left[c] >= n for c, n in need.items()):
            out += [[(index, share), *more] for more in _share_out(rest, left - need)]
    return out


def _fits_together(hand: Hand, chosen: list[tuple[int, tuple[Card, ...]]]) -> bool:
    """Whether the hand replays with every play of ``chosen`` grown by its share."""
    trial = copy.deepcopy(hand)
    for index, share in chosen:
        play = trial.events[index]
        assert isinstance(play, Play)
        fix = _grown(index, play, tuple(sorted((*play.cards, *share))))
        if trial.check(fix) is not None:
            return False
        trial.apply(fix)
    return True


def suit_completion(hand: Hand | None) -> list[Correction]:
    """Everyone having shown, the plays holding a card stored by its rank alone (a card hidden
    under others of its play, :meth:`CameraReferee._last_card_hidden`) with the card it was: the
    one card of that rank the deck lacks, when exactly one is lacking and one card of that rank
    was stored without a suit; or, when the deck lacks none of that rank (its rank was a guess
    between two: J J K K read, a trio of jacks or of kings), the one card the deck lacks that
    makes the play one the rules accept in its place. A :class:`Correction` for each such play
    the rules accept."""
    if hand is None or not everyone_shown(hand) or hand.rules.out_of_play:
        return []
    seen = seen_cards(hand)
    missing = unseen_suited(hand, seen)
    bare = Counter(c.rank for c in seen if c.suit is None and not c.is_joker)
    fixes: list[Correction] = []
    for i, event in enumerate(hand.events):
        if not isinstance(event, Play) or not any(c.suit is None and not c.is_joker for c in event.cards):
            continue
        cards = list(event.cards)
        for k, c in enumerate(cards):
            if c.suit is not None or c.is_joker:
                continue
            lacking = [m for m in missing.elements() if m.rank == c.rank]
            if lacking:
                if bare[c.rank] == 1 and len(lacking) == 1:
                    cards[k] = lacking[0]
                continue
            fits = {m for m in missing if not m.is_joker and hand.check(Correction(
                "replace", i, Play(event.seat, tuple(cards[:k] + [m] + cards[k + 1:]), time=event.time))) is None}
            if len(fits) == 1:
                cards[k] = fits.pop()
                missing[cards[k]] -= 1
                missing += Counter()  # drop the zero count
        if cards != list(event.cards):
            fix = Correction("replace", i, Play(event.seat, tuple(sorted(cards)), time=event.time),
                             reason="camera: a card read by its rank alone, the deck lacking it",
                             time=event.time)
            if hand.check(fix) is None:
                fixes.append(fix)
    return fixes


def audit_alert(hand: Hand | None, time: float | None = None) -> Alert | None:
    """The ``deck_audit`` alert once every seat left holding cards has shown them and the cards
    played and shown are not the deck (a card missing or seen too often); else ``None``."""
    audit = None if hand is None else deck_audit(hand)
    if hand is None or audit is None or audit.ok:
        return None
    return Alert("deck_audit", time=time, data={
        "missing": format_cards(audit.missing), "extra": format_cards(audit.extra),
        "decks": hand.rules.decks})


@dataclass
class ReaderBars:
    """The referee's two bars on a card's confidence, following the reader in use.

    ``low``: a card read below it may be the misread behind a refused play; ``phantom``: below
    it, maybe no card at all. For the shipped reader (``follow`` off) they are
    :data:`LOW_CONFIDENCE` and :data:`PHANTOM_CONFIDENCE`. A deck profile changes the reader's
    confidences (its blend moves probability among the enrolled cards), so with one (``follow``
    on) each bar is the confidence under which the same share of this reader's accepted reads
    lies (:data:`LOW_RANK`, :data:`PHANTOM_RANK`), once it has read enough (the phantom bar
    never above the low one)."""

    follow: bool = False
    low_rank: float = LOW_RANK
    phantom_rank: float = PHANTOM_RANK
    seen: deque[float] = field(default_factory=lambda: deque(maxlen=BARS_WINDOW))
    _reader: object = None

    def reader(self, key: object, follow: bool) -> None:
        """The reader in use is ``key`` (a profile, or None): a new one starts a new count."""
        if key is not self._reader:
            self._reader = key
            self.seen.clear()
        self.follow = follow

    def add(self, confidences: tuple[float, ...]) -> None:
        """The confidences of cards in a play the rules accepted as read."""
        self.seen.extend(float(c) for c in confidences)

    def below(self, bar: float) -> float | None:
        """The share of the accepted reads counted that lie under ``bar`` (None: none counted)."""
        return sum(c < bar for c in self.seen) / len(self.seen) if self.seen else None

    def _rank(self, rank: float, fixed: float) -> float:
        """The confidence just above the ``rank`` quantile of the reads counted: that share of
        them lies under it (all of them for rank 1)."""
        if not self.follow or len(self.seen) < BARS_NEEDED:
            return fixed
        return float(np.nextafter(np.quantile(np.fromiter(self.seen, float), rank), np.inf))

    @property
    def low(self) -> float:
        return self._rank(self.low_rank, LOW_CONFIDENCE)

    @property
    def phantom(self) -> float:
        return min(self._rank(self.phantom_rank, PHANTOM_CONFIDENCE), self.low)


@dataclass(frozen=True)
class PlayCandidate:
    """Cards that settled in a seat's zone: one entry per physical card.

    ``confidences[i]`` is the detector's confidence in ``cards[i]``; ``alternatives[i]`` its
    next guesses ``(card, probability)``, best first. Both may be empty (cards typed in).
    ``doubles``: places in the zone read as a card already in ``cards`` beyond the decks in play,
    each as ``(card, alternatives)``; left out of the play, tried only when it is refused.
    """

    seat: int
    cards: tuple[str, ...]
    time: float | None = None
    confidences: tuple[float, ...] = ()
    alternatives: tuple[tuple[tuple[str, float], ...], ...] = ()
    doubles: tuple[tuple[str, tuple[tuple[str, float], ...]], ...] = ()
    #: The zone held no other card when these settled (the reader's ``lying``): one card alone
    #: after a five-seat hand is not more of the cards the seat showed, which lay beside it.
    alone: bool = False
    #: Reads in the zone under the detector's threshold, ``(card, score)`` (the reader's
    #: ``faint``): no cards, but one of them may be added to a play the rules refuse as read.
    faint: tuple[tuple[str, float], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(self.cards))
        object.__setattr__(self, "confidences", tuple(self.confidences))
        object.__setattr__(self, "alternatives", tuple(tuple(a) for a in self.alternatives))
        if any(not isinstance(d, (tuple, list)) or len(d) != 2 or not isinstance(d[0], str) for d in self.doubles):
            raise ValueError(f"each double must be (card, alternatives), not {self.doubles!r}")
        object.__setattr__(self, "doubles", tuple((card, tuple(alts)) for card, alts in self.doubles))
        if any(not isinstance(f, (tuple, list)) or len(f) != 2 or not isinstance(f[0], str) for f in self.faint):
            raise ValueError(f"each faint read must be (card, score), not {self.faint!r}")
        object.__setattr__(self, "faint", tuple((card, float(score)) for card, score in self.faint))
        if not isinstance(self.seat, int) or self.seat < 0:
            raise ValueError(f"seat must be a non-negative integer, not {self.seat!r}")
        if not self.cards:
            raise ValueError("a play candidate needs at least one card")
        for name in ("confidences", "alternatives"):
            if getattr(self, name) and len(getattr(self, name)) != len(self.cards):
                raise ValueError(f"{name} must have one entry per card")

    def engine_cards(self) -> tuple[Card, ...]:
        return tuple(parse_cards(" ".join(self.cards)))


@dataclass
class Pending:
    """What the camera's referee holds back between reads, until a later event settles it."""

    #: The kitty read during bidding, stored once the landlord is known: (cards, table time).
    kitty: tuple[tuple[Card, ...], float | None] | None = None
    #: The last play refused outright: (seat, its cards sorted, the store's last seq after its
    #: alert). Its cards read again whole, with nothing stored since, are refereed again.
    refused: tuple[int, tuple[Card, ...], int] | None = None
    #: A play held back by a ``missed_play`` alert: it, its hand's number and the store's last
    #: seq after the alert. The next play read ends the hold (after one last try).
    held: tuple[PlayCandidate, int, int] | None = None
    #: Cards refused as plays, each a seat's whole hand on record, laid by the seats other than
    #: the one that played last, with no play stored since: ``((hand number, that seat), {seat:
    #: (cards, table time)})``. Once every such seat has laid its hand, they are its cards shown
    #: and the last seat went out with cards unread (``CameraReferee._went_out_unseen``).
    whole_lays: tuple[tuple[int, int], dict[int, tuple[tuple[Card, ...], float | None]]] | None = None
    #: Bids read from tokens while the hand on record was still in play (refused then): the
    #: next deal's, when the camera missed the play that ended that hand. Replayed into the
    #: new hand once a new kitty shows the table dealt again; a play stored meanwhile drops them.
    early_bids: list[Bid] = field(default_factory=list)
    #: Doubles (加倍) read from tokens while bidding was still on record (a 加倍 token settled
    #: before the last bid's): stored once the landlord is known.
    doubles: list[Double] = field(default_factory=list)

    #: Five players: the number of the hand whose marker card the camera has seen lie in its
    #: seat's zone (a single card of it there later in that hand is a play).
    marker_seen: int | None = None
    #: Five players: the last cards read in a zone while the hand on record was in play, when
    #: they were one card that could be a marker: (seat, card, table time). The next deal's
    #: marker, if that seat then lays the first doubling token (``CameraReferee.deals_again``).
    maybe_marker: tuple[int, Card, float | None] | None = None
    #: ... and the seat that laid the same card in its zone after it, with the table time: the
    #: hidden landlord's reveal by choice (亮出身份) of that deal.
    maybe_reveal: tuple[int, float | None] | None = None
    #: Five players: doubling tokens laid while the hand on record was past its own doubling
    #: round, ``(seat, doubles, table time)``, since the last cards read: a next deal's round once
    #: two seats lay them in turn.
    late_doubling: list[tuple[int, bool, float | None]] = field(default_factory=list)

    def new_deal(self) -> None:
        """A hand is dealt: the kitty, bids and doubles waiting for the last one are dropped."""
        self.kitty, self.early_bids, self.doubles = None, [], []
        self.maybe_marker, self.maybe_reveal, self.late_doubling = None, None, []


@dataclass
class CameraReferee:
    """Referees what the camera reads at one table for match ``match_id``: each method takes a
    reading (a play, the kitty, a bid, a double, 明牌, cards shown), checks it against the hand
    on record and appends the events and alerts to ``store``, returning them in order.

    ``accept_suggestions``: store the suggested play after an ``uncertain_read`` alert (else the
    alert alone); ``remind_announce``: remind the page of a seat down to its last cards; ``source``:
    the store's source of what it appends. ``state`` is the match as folded from the store,
    brought up to date once per new store sequence (:meth:`refresh`)."""

    store: EventStore
    match_id: int
    accept_suggestions: bool = True
    remind_announce: bool = True
    source: str = "camera"
    state: TableState = field(init=False)
    pending: Pending = field(default_factory=Pending, init=False)
    #: The bars on a card's confidence, following the reader (the session says which).
    bars: ReaderBars = field(default_factory=ReaderBars)
    #: A bid has been read from a token at this table: each deal starts with one.
    tokens_read: bool = field(default=False, init=False)
    #: The store's last sequence number when ``state`` was last brought up to date.
    _seen_seq: int = field(default=-1, init=False)

    def __post_init__(self) -> None:
        self._seen_seq = self.store.last_seq()
        self.state = TableState.load(self.store, self.match_id)

    # ------------------------------------------------------------------ views
    @property
    def hand(self) -> Hand | None:
        return self.state.hand

    def refresh(self) -> TableState:
        """The match as the store has it now. The log is read again only when the store's
        sequence has moved since the last look (an append here, on the page or elsewhere), so
        asking several times a frame costs one small query each."""
        seq = self.store.last_seq()
        if seq != self._seen_seq:
            self._seen_seq = seq
            self.state.refresh(self.store)
        return self.state

    # ------------------------------------------------------------------ inputs
    def new_hand(self, time: float | None = None) -> list[Record]:
        """Deal the next hand (counts only: a camera does not see the hands); a ``not_shown``
        alert first on the hand before for each loser on record who showed no card while
        others did (:meth:`_unshown`)."""
        self.refresh()
        out = self._unshown(time)
        self.pending.new_deal()
        rules = self.state.info.rules
        deal = Deal(counts=(rules.hand_size,) * rules.players, first_bidder=self.state.match.next_first_bidder(),
                    time=time)
        return out + [self._append(deal, self.state.next_hand_number)]

    def close(self, time: float | None = None) -> list[Record]:
        """The camera stops watching (its film or the evening ends): the hand on record's
        ``not_shown`` alerts, which the next deal would raise (the last hand has none), once
        per seat (:meth:`_unshown`)."""
        self.refresh()
        return self._unshown(time)

    def _unshown(self, time: float | None) -> list[Record]:
        """At a table where the losers show their cards after the hand, a seat that holds cards
        on record but showed none once another seat has: either it did not show (the hand goes
        unaudited) or it had gone out and a play of it was read short (a pair read as a single,
        a legal play) and the hand ended on record on another seat's card shown. Every event
        may fit that story, so this is the one sign of it."""
        hand = self.hand
        if hand is None or hand.phase != "finished" or not hand.shown:
            return []
        told = {a.seat for a in self.state.alerts if a.alert == "not_shown"}
        out: list[Record] = []
        for seat in losers(hand):
            if seat not in hand.shown and hand.cards_left[seat] > 0 and seat not in told:
                out.append(self._append(Alert("not_shown", seat=seat, time=time,
                                              data={"left": hand.cards_left[seat]})))
        return out

    def kitty(self, cards: tuple[str, ...] | list[str], time: float | None = None) -> list[Record]:
        """The kitty was read face up in the kitty zone. At a table whose kitty is never shown
        (four and five seats), cards read there after a hand are no sign of a deal: they are a
        loser's cards shown laid past his zone (the next deal comes from its own sign, a bid or
        doubling token, the marker card), and nothing is stored."""
        self.refresh()
        out: list[Record] = []
        rules = self.state.info.rules
        if self._hand_over() and not (rules.kitty_shown or rules.kitty_choice):
            return out
        if self._hand_over():
            out += self.new_hand(time)
        kitty = tuple(parse_cards(" ".join(cards)))
        hand = self.hand
        assert hand is not None
        if hand.phase == "play" and hand.kitty is not None and sum((Counter(hand.kitty) & Counter(kitty)).values()) <= 1:
            early, self.pending.early_bids = self.pending.early_bids, []
            out += self._abandon("camera: a new deal's kitty was shown", time, format_cards(kitty))
            for bid in early:  # the bids made for this deal while the camera still saw the last hand
                out += self._store_or_alert(bid, None)
            hand = self.hand
            assert hand is not None
        if hand.phase != "play":
            self.pending.kitty = (kitty, time)
            return out
        return out + self._store_or_alert(Kitty(kitty, time=time), format_cards(kitty))

    def play(self, candidate: PlayCandidate) -> list[Record]:
        """Referee one committed play; returns the records stored, in order."""
        self.refresh()
        out: list[Record] = self._retry_held()
        self.pending.held = None  # a later play is read: a held play not stored by now is the page's to fix
        if self._hand_over():
            shown = self._shown(candidate)
            if shown is not None:
                return out + shown
            out += self.new_hand(candidate.time)
        shown = self._shown_before_play(candidate)
        if shown is not None:
            return out + shown
        hand = self.hand
        assert hand is not None
        self._note_maybe_marker(candidate)
        if hand.phase == "bidding":
            base = max(hand.bids_by_seat.values(), default=1)
            if candidate.seat < hand.players:
                out += self._store_or_alert(Landlord(candidate.seat, base, time=candidate.time), None)
        out += self._flush_kitty()
        out += self._infer_passes(candidate.seat, candidate.time)
        play = Play(candidate.seat, candidate.engine_cards(), time=candidate.time)
        assert self.hand is not None
        violation = self.hand.check(play)
        if violation is None:
            self.bars.add(candidate.confidences)
            return out + [self._append(play)] + self._announce_reminder(candidate.seat, candidate.time)
        suggestion = self._suggest(candidate, violation)
        text = format_cards(play.cards)
        if suggestion is None:
            ended = self._went_out_unseen(candidate, play.cards)
            if ended is not None:
                return out + ended
            missed = self._missed_play(candidate, violation, text)
            out.append(self._append(missed or Alert.of(violation, text, candidate.time)))
            self.pending.refused = (candidate.seat, tuple(sorted(play.cards)), self.state.last_seq)
            self.pending.held = (candidate, self.state.hand_number, self.state.last_seq) if missed else None
            return out
        fixed = Play(candidate.seat, suggestion, time=candidate.time)
        alert = Alert("uncertain_read", seat=candidate.seat, cards=text, suggestion=format_cards(suggestion),
                      event_index=violation.event_index, time=candidate.time, data={"cause": violation.kind})
        out.append(self._append(alert))
        if self.accept_suggestions:
            out.append(self._append(fixed))
        return out

    def _went_out_unseen(self, candidate: PlayCandidate, cards: tuple[Card, ...]) -> list[Record] | None:
        """The hand's end that the record missed (docs/camera-table.md, "A seat that went out
        unseen"): the seat that played last went out, but a card or two of its plays lay wholly
        under others (a pair read as one card is a legal play), so it holds cards on record. The
        sign: every other seat holding cards lays exactly as many as it holds, each refused as a
        play. Then the deck lacks as many cards as the last seat holds on record, and exactly one
        way of giving them to its plays fits (:func:`grown_plays`): its plays are completed
        (a ``play_completed`` alert each), the passes inferred after its last play dropped, and
        the cards laid stored as cards shown. ``None`` until then, or when nothing fits."""
        hand = self.hand
        if hand is None or hand.phase != "play" or not hand.plays or not self.accept_suggestions:
            return None
        last, seat = hand.plays[-1].seat, candidate.seat
        if seat == last or not 0 <= seat < hand.players or len(cards) != hand.cards_left[seat]:
            return None
        key = (self.state.hand_number, last)
        if self.pending.whole_lays is None or self.pending.whole_lays[0] != key:
            self.pending.whole_lays = (key, {})
        lays = self.pending.whole_lays[1]
        lays[seat] = (cards, candidate.time)
        if set(lays) != {s for s, n in enumerate(hand.cards_left) if s != last and n > 0}:
            return None
        audit = tally(hand, seen_cards(hand) + [c for laid, _ in lays.values() for c in laid])
        if audit.extra or audit.set_aside or len(audit.missing) != hand.cards_left[last]:
            return None
        after = max(i for i, e in enumerate(hand.events) if isinstance(e, Play))
        drops = [Correction("delete", i, reason="camera: a pass inferred after the hand had ended", time=candidate.time)
                 for i in range(len(hand.events) - 1, after, -1)]
        trial = copy.deepcopy(hand)
        for drop in drops:
            if trial.check(drop) is not None:
                return None
            trial.apply(drop)
        grows = grown_plays(trial, last, audit.missing)
        for fix in grows:
            trial.apply(fix)
        if not grows or not trial.finished:
            return None
        out = [self._append(drop) for drop in drops]
        for fix in grows:
            out.append(self._append(Alert("play_completed", time=candidate.time, **self._fixed_play(fix))))
            out.append(self._append(fix))
        self.pending.whole_lays = None
        for shower, (laid, time) in sorted(lays.items()):
            out += self._store_shown(Shown(shower, laid, time=time))
        return out

    def late_cards(self, candidate: PlayCandidate, before: tuple[str, ...]) -> list[Record]:
        """``candidate`` is a play read before as ``before`` plus cards that settled late."""
        self.refresh()
        hand = self.hand
        whole = candidate.engine_cards()
        short = tuple(sorted(parse_cards(" ".join(before))))
        late = tuple((Counter(whole) - Counter(short)).elements())
        if hand is not None and hand.finished and tuple(sorted(hand.shown.get(candidate.seat, ()))) == short:
            if len(short) >= hand.cards_left[candidate.seat] and not self._sure_late(candidate, len(before)):
                return []  # its cards shown were whole: a late read under the phantom bar is no more of them
            return self._store_shown(Shown(candidate.seat, whole, time=candidate.time))  # the whole of it shown
        if self.pending.refused == (candidate.seat, short, self.state.last_seq):
            return self.play(candidate)  # the short read was refused and nothing came after: read it whole
        last = hand.events[-1] if hand is not None and hand.events else None
        if isinstance(last, Play) and sorted(last.cards) == sorted(whole):
            return []  # already put right (on the referee page)
        if hand is not None and isinstance(last, Play) and tuple(sorted(last.cards)) == short:
            fix = Correction("replace", len(hand.events) - 1, Play(last.seat, whole, time=last.time),
                             reason=f"camera: {format_cards(late)} of this play settled after it was read",
                             time=candidate.time)
            if hand.check(fix) is None:
                return [self._append(fix)] + self._announce_reminder(last.seat, candidate.time)
        extra = format_cards(late)
        alert = Alert("late_card", seat=candidate.seat, cards=format_cards(whole), time=candidate.time,
                      data={"late": extra, "before": format_cards(short)})
        return [self._append(alert)]

    def _sure_late(self, candidate: PlayCandidate, before: int) -> bool:
        """Whether a card that settled late (after the first ``before`` of ``candidate``) was read
        at least as surely as the phantom bar (cards typed in, with no confidences, are)."""
        late = candidate.confidences[before:]
        return not candidate.confidences or any(c >= self.bars.phantom for c in late)

    def kitty_pick(self, cards: tuple[str, ...] | list[str], time: float | None = None) -> list[Record]:
        """斗帝主: the 帝主 took ``cards`` of the kitty shown (what the kitty zone lost, the
        session's reading): a :class:`KittyPick`, or an alert when the rules refuse it."""
        self.refresh()
        hand = self.hand
        if hand is None or hand.landlord is None:
            return [self._append(Alert("not_started", time=time))]
        pick = KittyPick(hand.landlord, tuple(parse_cards(" ".join(cards))), time=time)
        return self._store_or_alert(pick, format_cards(pick.cards))

    def bid(self, seat: int, action: str, value: int = 0, time: float | None = None) -> list[Record]:
        """A bid read from the table (a bid token laid in the seat's zone, :mod:`tracker.tokens`),
        stored through the same checks as the page's bids: one out of turn or against the rules
        is an alert. The first bid after a hand is over deals the next hand."""
        self.refresh()
        self.tokens_read = True
        out: list[Record] = []
        if self._hand_over():
            out += self.new_hand(time)
        bid = Bid(seat, action, value, time=time)
        if self._new_deal_bid(bid):
            out += self._abandon("camera: the next deal's first bid token was laid", time)
        elif self.hand is not None and self.hand.phase == "play" and self.hand.check(bid) is not None:
            self.pending.early_bids.append(bid)  # maybe the next deal's (see Pending.early_bids)
        out += self._store_or_alert(bid, None)
        return out + self._flush_kitty() + self._flush_doubles()

    def double(self, seat: int, time: float | None = None) -> list[Record]:
        """A seat doubles (加倍, read from a token): a :class:`Double` once the landlord is known
        and before the first play; held while bidding is still on record; else an alert (a
        second double, after the first play, a table that does not double)."""
        self.refresh()
        if self.hand is None:
            return [self._append(Alert("not_started", seat=seat, time=time))]
        double = Double(seat, time=time)
        if self.hand.phase == "bidding" and self.hand.rules.player_double:
            self.pending.doubles.append(double)
            return []
        return self._store_or_alert(double, None)

    def doubling_token(self, seat: int, doubles: bool, time: float | None = None) -> list[Record]:
        """A 加倍 (``doubles``) or 不加倍 token laid by ``seat``: the double (:meth:`double`; a
        不加倍 records nothing). At a five-seat table (no bid tokens, no kitty shown) it may also
        show a new deal the camera saw no other sign of: the hand on record over, or still in
        play while the token shows the table dealt again (:meth:`deals_again`); that hand is
        then ended and the new one dealt, its landlord the seat that doubles first."""
        self.refresh()
        hand = self.hand
        if hand is not None and hand.rules.bidding == "marker":
            if self._hand_over():  # the marker card was not read: the landlord doubles first
                out = self.new_hand(time)
                out += self._store_or_alert(Landlord(seat, 1, time=time), None)
                return out + (self.double(seat, time) if doubles else [])
            if self.deals_again(seat):
                return self._deal_by_doubling(seat, doubles, time)
            if self.past_doubling():
                self.pending.late_doubling.append((seat, doubles, time))
        return self.double(seat, time) if doubles else []

    def past_doubling(self) -> bool:
        """Five players: the hand on record has its first play, so its doubling round is over (a
        doubling token laid now is a stray one or the next deal's)."""
        hand = self.hand
        return hand is not None and hand.rules.bidding == "marker" and hand.phase == "play" and bool(hand.plays)

    def deals_again(self, seat: int) -> bool:
        """Whether a doubling token laid now by ``seat`` shows a new deal while the hand on record
        is still in play (docs/camera-table.md, "A new deal while a hand is unfinished"): at a
        five-seat table, past the hand's doubling round (:meth:`past_doubling`), either the last
        cards read were one card in ``seat``'s zone (the next deal's marker: the seat it falls to
        doubles first), or the seat before ``seat`` in turn laid a doubling token since (the next
        deal's round going round). Two signs that agree: one stray token is not enough."""
        if not self.past_doubling():
            return False
        marker, late = self.pending.maybe_marker, self.pending.late_doubling
        hand = self.hand
        assert hand is not None
        if marker is not None and marker[0] == seat and not late:
            return True
        return bool(late) and late[-1][0] != seat and hand.next_seat(late[-1][0]) == seat

    def _deal_by_doubling(self, seat: int, doubles: bool, time: float | None) -> list[Record]:
        """The hand on record ended as abandoned and the next one dealt: with the single card read
        last as its marker when its seat doubles first (and the twin laid after it as a reveal),
        else with the seat that doubled first as its landlord; then the round's doubles."""
        marker, reveal = self.pending.maybe_marker, self.pending.maybe_reveal
        tokens = [*self.pending.late_doubling[-1:], (seat, doubles, time)]
        first = tokens[0][0]
        if marker is not None and marker[0] != first:
            marker = reveal = None
        out = self._abandon("camera: the next deal's doubling round was laid" if marker is None else
                            "camera: the next deal's marker card and doubling token were laid", time,
                            None if marker is None else str(marker[1]))
        if marker is None:
            out += self._store_or_alert(Landlord(first, 1, time=tokens[0][2]), None)
        else:
            self.pending.marker_seen = self.state.hand_number
            out += self._store_or_alert(Marker(marker[0], marker[1], time=marker[2]), str(marker[1]))
            if reveal is not None:
                out += self._store_or_alert(Reveal(reveal[0], time=reveal[1]), str(marker[1]))
        for s, d, t in tokens:
            out += self.double(s, t) if d else []
        return out

    def _note_maybe_marker(self, candidate: PlayCandidate) -> None:
        """Five players, a hand in play: remember ``candidate`` as the next deal's marker card if
        it is one card that can be one (no joker), or as that deal's reveal when it is the same
        card laid next by another seat (:attr:`Pending.maybe_marker`); any cards read end a
        doubling round seen so far."""
        self.pending.late_doubling = []
        hand = self.hand
        found = None
        if hand is not None and hand.rules.bidding == "marker" and hand.phase == "play" and len(candidate.cards) == 1:
            try:
                card = candidate.engine_cards()[0]
            except ValueError:
                card = None
            if card is not None and not card.is_joker and card.suit is not None:
                found = (candidate.seat, card, candidate.time)
        marker = self.pending.maybe_marker
        if found is not None and marker is not None and found[1] == marker[1] and found[0] != marker[0] \
                and self.pending.maybe_reveal is None:
            self.pending.maybe_reveal = (found[0], found[2])
            return
        self.pending.maybe_marker, self.pending.maybe_reveal = found, None

    def open_hand(self, seat: int, time: float | None = None) -> list[Record]:
        """The landlord shows his hand (明牌, read from a token): an :class:`OpenHand`, or an
        alert when it is not the landlord or not the time (bidding under way, hand over)."""
        self.refresh()
        if self.hand is None:
            return [self._append(Alert("not_started", seat=seat, time=time))]
        return self._store_or_alert(OpenHand(seat, time=time), None)

    def shown(self, seat: int, cards: tuple[str, ...] | list[str], time: float | None = None) -> list[Record]:
        """A seat's cards shown after the hand (亮牌), however they were read: stored (then the
        deck audit, once everyone has shown) or an alert when the rules refuse it."""
        self.refresh()
        if self.hand is None:
            return [self._append(Alert("not_started", seat=seat, time=time))]
        return self._store_shown(Shown(seat, tuple(parse_cards(" ".join(cards))), time=time))

    # ------------------------------------------------------------------ helpers
    def _shown(self, candidate: PlayCandidate) -> list[Record] | None:
        """Cards laid in a zone after the hand, before the next deal: the seat's cards shown
        when it still holds cards and their number fits (docs/camera-table.md, "Cards shown"), else ``None``."""
        hand = self.hand
        if hand is None or candidate.seat not in losers(hand):
            return None
        left = hand.cards_left[candidate.seat]
        before = hand.shown.get(candidate.seat, ())
        if self._marker_after_showing(candidate, len(before), left):
            return None
        if len(before) >= left and not self._sure_late(candidate, 0):
            return []  # its cards shown were whole: a read under the phantom bar beside them is no more of them
        cards = beyond_the_plays(hand, candidate.seat, before + candidate.engine_cards())
        cards = twice_read(cards, left)
        fits = len(cards) <= left if before else abs(len(cards) - left) <= SHOWN_SLACK
        if not fits and not self._deals_by_sign(candidate):
            return None
        return self._store_shown(Shown(candidate.seat, cards, time=candidate.time))

    def _marker_after_showing(self, candidate: PlayCandidate, shown: int, left: int) -> bool:
        """Five players: one card laid by a seat that has shown its cards is none of them, and so
        the next deal's marker card, when the seat had shown every card it holds (it may be the
        other copy of one it showed) or the card lies alone in its zone (the cards it showed
        were swept away: cards added to them would lie beside them)."""
        return self.state.info.rules.bidding == "marker" and len(candidate.cards) == 1 and shown > 0 and (
            shown >= left or candidate.alone)

    def _deals_by_sign(self, candidate: PlayCandidate) -> bool:
        """Whether this table shows each new deal by a sign of its own, so that cards a seat still
        holding cards lays after the hand are its cards shown whatever their number (a count off
        means a play was misread, which the deck audit then reports): the bid tokens (the camera
        has read one at this table), the marker card (five players: one card, which is the marker
        when it is not cards shown that fit), or the kitty shown for the 帝主 to pick from."""
        rules = self.state.info.rules
        if rules.bidding == "marker":
            return len(candidate.cards) > 1 or self._showing_under_way(candidate.seat)
        return self.tokens_read or rules.kitty_choice

    def _showing_under_way(self, seat: int) -> bool:
        """Whether another seat has shown its cards after this hand and ``seat``, which holds
        cards, has shown none yet: one card it lays now is the first of its cards shown to be
        read (the rest settle after it), not the next deal's marker, which comes once the shown
        cards are swept away."""
        hand = self.hand
        return hand is not None and seat not in hand.shown and any(s != seat for s in hand.shown)

    def _store_shown(self, shown: Shown) -> list[Record]:
        out = self._store_or_alert(shown, format_cards(shown.cards))
        if out and out[-1] is shown:
            trim = shown_trim(self.hand)
            if trim is not None:
                seat, kept, extra = trim
                assert self.hand is not None
                out.append(self._append(Alert("shown_trimmed", seat=seat, time=shown.time,
                                              cards=format_cards(self.hand.shown[seat]),
                                              suggestion=format_cards(kept), data={"extra": format_cards(extra)})))
                if self.accept_suggestions:
                    out += self._store_or_alert(Shown(seat, kept, time=shown.time), None)
            grown = [] if rocket_completion(self.hand) is not None else play_completion(self.hand)
            for fix in grown:
                assert self.hand is not None
                out.append(self._append(Alert("play_completed", time=shown.time, **self._fixed_play(fix))))
                if self.accept_suggestions:
                    out.append(self._append(fix))
            completion = None if grown else shown_completion(self.hand)
            if completion is not None:
                seat, missing = completion
                assert self.hand is not None
                held = tuple(self.hand.shown.get(seat, ()))
                out.append(self._append(Alert("shown_completed", seat=seat, cards=format_cards(held),
                                              suggestion=format_cards(held + missing), time=shown.time,
                                              data={"missing": format_cards(missing)})))
                if self.accept_suggestions:
                    out += self._store_or_alert(Shown(seat, held + missing, time=shown.time), None)
            rocket = rocket_completion(self.hand) if completion is None else None
            if rocket is not None:
                out.append(self._append(Alert("rocket_completed", time=shown.time, **self._fixed_play(rocket))))
                if self.accept_suggestions:
                    out.append(self._append(rocket))
            for fix in suit_completion(self.hand) if self.accept_suggestions else []:
                assert self.hand is not None
                if self.hand.check(fix) is None:  # an earlier fix may have changed the hand
                    out.append(self._append(Alert("suit_completed", time=shown.time, **self._fixed_play(fix))))
                    out.append(self._append(fix))
            alert = audit_alert(self.hand, shown.time)
            if alert is not None:
                out.append(self._append(alert))
        return out

    def _fixed_play(self, fix: Correction) -> dict[str, Any]:
        """An alert's fields for ``fix``, which replaces a play: its seat, the play as stored, what
        it becomes, and where it stands."""
        assert self.hand is not None and isinstance(fix.event, Play)
        was = self.hand.events[fix.target]
        assert isinstance(was, Play)
        return {"seat": was.seat, "cards": format_cards(was.cards), "suggestion": format_cards(fix.event.cards),
                "event_index": fix.target}

    def _abandon(self, reason: str, time: float | None, cards: str | None = None) -> list[Record]:
        """The hand on record never ended (its last play missed) and the table has dealt again:
        a ``hand_unfinished`` alert, the hand ended as abandoned, and the next one dealt."""
        hand = self.hand
        assert hand is not None
        out = [self._append(Alert("hand_unfinished", cards=cards, time=time, data={
            "hand": self.state.hand_number, "left": list(hand.cards_left)}))]
        out.append(self._append(End(abandoned=True, reason=reason, time=time)))
        return out + self.new_hand(time)

    def _new_deal_bid(self, bid: Bid) -> bool:
        """Whether ``bid`` shows a new deal while the hand on record is still in play (docs/camera-
        table.md, "A hand that never ends"): at a table whose kitty is never shown, a bid token
        laid after the hand's first play by the seat that bids first in the next deal."""
        hand = self.hand
        if hand is None or hand.phase != "play" or not hand.plays or hand.rules.kitty_shown:
            return False
        rules = hand.rules
        if rules.first_bidder == "previous_landlord" and hand.landlord is not None:
            return bid.seat == hand.landlord
        return bid.seat == next_seat(hand.first_bidder, hand.players, rules.seat_order)

    def _shown_before_play(self, candidate: PlayCandidate) -> list[Record] | None:
        """Five players: one card laid in a seat's zone before the first play that is the marker
        card (docs/camera-table.md, "Five players and 斗帝主"): while the landlord is unknown, the
        marker, its seat the open landlord; the marker again in his zone (entered on the page),
        nothing; its twin in another seat's zone, that seat's reveal (亮出身份). ``None``: a play."""
        hand = self.hand
        if hand is None or hand.rules.bidding != "marker" or len(candidate.cards) != 1 or hand.plays:
            return None
        try:
            card = candidate.engine_cards()[0]
        except ValueError:
            return None
        if card.is_joker or card.suit is None:
            return None
        if hand.phase == "bidding":
            self.pending.marker_seen = self.state.hand_number
            return self._store_or_alert(Marker(candidate.seat, card, time=candidate.time), str(card))
        if hand.phase != "play" or card != hand.marker:
            return None
        if candidate.seat == hand.landlord:
            if self.pending.marker_seen == self.state.hand_number:
                return None  # the marker was seen already: now he leads with it
            self.pending.marker_seen = self.state.hand_number
            return []
        if hand.rules.hidden_landlord and hand.hidden is None:
            return self._store_or_alert(Reveal(candidate.seat, time=candidate.time), str(card))
        return None

    def _flush_kitty(self) -> list[Record]:
        """The kitty read during bidding, stored once the landlord is known."""
        if self.pending.kitty is None or self.hand is None or self.hand.phase != "play":
            return []
        cards, t = self.pending.kitty
        self.pending.kitty = None
        return self._store_or_alert(Kitty(cards, time=t), format_cards(cards))

    def _flush_doubles(self) -> list[Record]:
        """The doubles read during bidding, stored once the landlord is known."""
        if not self.pending.doubles or self.hand is None or self.hand.phase == "bidding":
            return []
        held, self.pending.doubles = self.pending.doubles, []
        if self.hand.phase != "play":  # a redeal: those doubles were for a hand not played
            return []
        return [r for double in held for r in self._store_or_alert(double, None)]

    def _announce_reminder(self, seat: int, time: float | None) -> list[Record]:
        """A seat down to 1 or 2 cards (the preset's limit) must say so (报单/报双); the camera
        cannot hear it, so the page gets a reminder, once per seat and count, unless the
        announcement was entered."""
        hand = self.hand
        if not self.remind_announce or hand is None or hand.finished or seat not in hand.unannounced():
            return []
        left = hand.cards_left[seat]
        alert = Alert("not_announced", seat=seat, time=time, data={"left": left})
        if any(a.alert == alert.alert and a.seat == seat and a.data == alert.data for a in self.state.alerts):
            return []
        return [self._append(alert)]

    def notice(self, alert: Alert) -> Record:
        """Store an alert about the table rather than a play (an unfamiliar deck), in the current hand."""
        return self._append(alert)

    def _hand_over(self) -> bool:
        return self.hand is None or self.hand.finished

    def _append(self, record: Record, number: int | None = None) -> Record:
        number = self.state.hand_number if number is None else number
        self.store.append(self.match_id, number, record, source=self.source)
        self.refresh()
        if isinstance(record, Play):
            self.pending.early_bids = []  # the hand went on: bids laid before this were stray tokens
            self.pending.whole_lays = None
        return record

    def _store_or_alert(self, event: Event, cards: str | None) -> list[Record]:
        assert self.hand is not None  # the referee stores events into a hand dealt
        violation = self.hand.check(event)
        if violation is None:
            return [self._append(event)]
        return [self._append(Alert.of(violation, cards, getattr(event, "time", None)))]

    def _infer_passes(self, seat: int, time: float | None) -> list[Record]:
        """Passes for the seats between the turn and ``seat``, if each is a legal pass."""
        found = self._passes_before(seat, time)
        return [self._append(p) for p in found[0]] if found else []

    def _passes_before(self, seat: int, time: float | None) -> tuple[list[Pass], Hand] | None:
        """The passes that bring the turn to ``seat``, each legal, and a copy of the hand with
        them applied; None when there are none such (not the play phase, or a pass is refused)."""
        hand = self.hand
        assert hand is not None
        if hand.phase != "play" or seat >= hand.players:
            return None
        trial = copy.deepcopy(hand)
        passes: list[Pass] = []
        while trial.turn is not None and trial.turn != seat and len(passes) < hand.players:
            step = Pass(trial.turn, time=time)
            if trial.check(step) is not None:
                return None
            trial.apply(step)
            passes.append(step)
        return (passes, trial) if trial.turn == seat else None

    def retry_held(self) -> list[Record]:
        """Store the play a ``missed_play`` alert held back, if the page has entered something
        since and the rules now accept it (the session asks every frame; cheap when none is held)."""
        if self.pending.held is None:
            return []
        self.refresh()
        return self._retry_held()

    def _retry_held(self) -> list[Record]:
        """The play a ``missed_play`` alert held back, once the page has entered something since:
        stored (with the passes before it) if the rules now accept it, else dropped quietly."""
        if self.pending.held is None or self.pending.held[2] == self.state.last_seq:
            return []
        candidate, number, _ = self.pending.held
        self.pending.held = None
        if number != self.state.hand_number or self._hand_over():
            return []
        found = self._passes_before(candidate.seat, candidate.time)
        play = Play(candidate.seat, candidate.engine_cards(), time=candidate.time)
        if found is None or found[1].check(play) is not None:
            return []
        out = [self._append(p) for p in found[0]] + [self._append(play)]
        return out + self._announce_reminder(candidate.seat, candidate.time)

    def _missed_play(self, candidate: PlayCandidate, violation: Violation, text: str) -> Alert | None:
        """A ``missed_play`` alert when a refused play reads as a lead (docs/camera-table.md, "A missed play")."""
        hand = self.hand
        if violation.kind != "does_not_beat" or hand is None or hand.top is None:
            return None
        beaten = hand.plays[hand.top]
        if beaten.seat == candidate.seat:
            return None
        shapes = {(r.type, r.length) for r in beaten.readings}
        readings = classify(candidate.engine_cards(), hand.rules)
        if not readings:
            return None
        if any((r.type, r.length) in shapes for r in readings):
            return None  # the same kind, only lower: a weak follow or a misread card
        return Alert("missed_play", seat=candidate.seat, cards=text, event_index=violation.event_index,
                     time=candidate.time, data={"beaten": format_cards(beaten.cards), "other": beaten.seat})

    def _suggest(self, candidate: PlayCandidate, violation: Violation) -> tuple[Card, ...] | None:
        """The likeliest one-card change of a low-confidence card that the rules accept."""
        if violation.kind in ("out_of_turn", "bad_seat", "finished", "wrong_phase", "not_started"):
            return None
        if not candidate.alternatives:
            return None
        hand = self.hand
        assert hand is not None
        options: list[tuple[float, tuple[Card, ...]]] = []
        cards = list(candidate.engine_cards())
        for i, alternatives in enumerate(candidate.alternatives):
            confidence = candidate.confidences[i] if candidate.confidences else 0.0
            if confidence >= self.bars.low:
                continue
            for alt, prob in alternatives:
                try:
                    replaced = tuple(cards[:i] + parse_cards(alt) + cards[i + 1:])
                except ValueError:
                    continue
                if hand.check(Play(candidate.seat, replaced, time=candidate.time)) is None:
                    options.append((prob, replaced))
                elif replaced[i] in cards[:i] + cards[i + 1:]:
                    # Its other read is a card of this play: the other corner of that card,
                    # read apart as a second card (an As's corner read Ac beside the As).
                    merged = tuple(cards[:i] + cards[i + 1:])
                    if merged and hand.check(Play(candidate.seat, merged, time=candidate.time)) is None:
                        options.append((prob, merged))
        repairs = [self._with_double, self._without_phantom, self._joker_read_twice, self._joker_read_once]
        if violation.kind == "illegal_combination":
            # cards no combination as read: a faint read added, a hidden card's rank, a card left out
            repairs += [self._with_faint, self._last_card_hidden, self._one_card_under]
        for repair in repairs:  # in turn, until one gives a play the rules accept
            if options:
                break
            options = repair(candidate, cards)
        if not options:
            return None
        options.sort(key=lambda o: -o[0])
        return options[0][1]

    def _without_phantom(self, candidate: PlayCandidate, cards: list[Card]) -> list[tuple[float, tuple[Card, ...]]]:
        """Plays the rules accept with one card read barely at all left out: a picture on a
        card's face (a joker's, a court card's) can read as an index, a card that is not there."""
        hand = self.hand
        assert hand is not None
        options: list[tuple[float, tuple[Card, ...]]] = []
        for i, confidence in enumerate(candidate.confidences or ()):
            if confidence >= self.bars.phantom or len(cards) < 2:
                continue
            kept = tuple(cards[:i] + cards[i + 1:])
            if hand.check(Play(candidate.seat, kept, time=candidate.time)) is None:
                options.append((1.0 - confidence, kept))
        return options

    def _joker_read_twice(self, candidate: PlayCandidate, cards: list[Card]) -> list[tuple[float, tuple[Card, ...]]]:
        """Plays the rules accept with a joker the play holds twice kept once: a joker's index is
        its long word, and its two corners that grouping left unpaired read as two jokers. With two
        decks two may lie there, so this is tried only once the play as read is refused."""
        hand = self.hand
        assert hand is not None
        options: list[tuple[float, tuple[Card, ...]]] = []
        for joker in {c for c in cards if c.is_joker and cards.count(c) > 1}:
            kept = list(cards)
            kept.remove(joker)
            if hand.check(Play(candidate.seat, tuple(kept), time=candidate.time)) is None:
                options.append((0.5, tuple(kept)))
        return options

    def _joker_read_once(self, candidate: PlayCandidate, cards: list[Card]) -> list[tuple[float, tuple[Card, ...]]]:
        """With two decks, plays the rules accept with a joker the play holds once held twice: two
        copies of a joker laid overlapping show one mark beside the other, and the reader takes
        the second for the first one's (or for the other joker), so a pair of red jokers reads as
        one. Only while the hand has not yet seen every copy of that joker."""
        hand = self.hand
        assert hand is not None
        seen = Counter(c for play in hand.plays for c in play.cards)
        options: list[tuple[float, tuple[Card, ...]]] = []
        for joker in {c for c in cards if c.is_joker and cards.count(c) == 1}:
            if hand.rules.decks < 2 or seen[joker] + 2 > hand.rules.decks:
                continue
            more = tuple(cards) + (joker,)
            if hand.check(Play(candidate.seat, more, time=candidate.time)) is None:
                options.append((0.4, more))
        return options

    def _with_faint(self, candidate: PlayCandidate, cards: list[Card]) -> list[tuple[float, tuple[Card, ...]]]:
        """Plays the rules accept with one of the zone's faint reads added: a card laid half
        under the next one of a pair chain or a trio shows a sliver of its index, read under the
        threshold (the messy films' J♥ under the J♣ of 9 9 10 10 J J, at 0.12). The faint read
        that makes the play whole is the likelier story than a card read that is no card, so it
        is tried before one is left out (:meth:`_one_card_under`). The faint reads come with
        their other reads, and a sliver of an index reads no surer as one rank than another: when
        cards of two ranks would each make the play whole (J♥ J♠ K♥ K♦ with a faint K♣ whose
        next read is J♣), none is suggested; of one rank, the surest read's suit."""
        hand = self.hand
        assert hand is not None
        options: list[tuple[float, tuple[Card, ...]]] = []
        tried: set[Card] = set()
        for text, score in candidate.faint:
            try:
                card = parse_cards(text)[0]
            except ValueError:
                continue
            if card in tried or cards.count(card) >= hand.rules.decks:
                continue
            tried.add(card)
            more = tuple(cards + [card])
            if hand.check(Play(candidate.seat, more, time=candidate.time)) is None:
                options.append((score, more))
        if len({more[-1].rank for _, more in options}) > 1:
            return []
        return options[:1]

    def _last_card_hidden(self, candidate: PlayCandidate, cards: list[Card]) -> list[tuple[float, tuple[Card, ...]]]:
        """Cards that make no combination as read, but one with a card or two added that lay
        wholly under the others, each stored by its rank alone, its suit never seen (the deck
        audit counts it as whichever card of that rank is missing, and :func:`suit_completion`
        names it once everyone has shown). Tried before a card read is left out
        (:meth:`_one_card_under`), which would leave the A of that straight out and the seat a
        card too many. Added when:

        - exactly one rank makes the cards whole and it lies inside the ranks read (a gap in a
          straight or a chain of pairs: the three-seat film's 4-to-A straight, its K♠ wholly
          under the A♥, read as 4-Q and A) or the seat holds one card more than it laid (it went
          out with the card hidden);
        - a rank read twice already makes them whole: the third of a trio, laid overlapping
          with the other two (the messy film's 2♠ 2♥ 8♥, the 2♣ under the 2♥). Where two such
          ranks would (J♠ J♥ K♥ K♦, a trio of jacks or of kings), the one with more copies not
          yet seen this hand, the lower on a tie, with the ``uncertain_read`` alert, for the
          audit to settle once everyone has shown (:func:`suit_completion`). Not when a card
          read is one the seat laid earlier in the hand (two decks): that card lay under the
          play, and :meth:`_one_card_under` leaves it out;
        - no one card does, but exactly one pair of ranks inside the ranks read does: a straight
          with two cards wholly under their neighbours (the messy film's 3-to-8 read 3 5 6 8)."""
        hand = self.hand
        assert hand is not None
        ranks = [c.rank for c in cards if not c.is_joker]
        going_out = hand.cards_left[candidate.seat] == len(cards) + 1
        if not ranks and not going_out:
            return []

        def whole(*added: int) -> tuple[Card, ...] | None:
            more = tuple(cards + [Card(r) for r in added])
            return more if hand.check(Play(candidate.seat, more, time=candidate.time)) is None else None

        found = {rank: more for rank in range(BJ) if (more := whole(rank)) is not None}
        inside = [r for r in range(min(ranks, default=0) + 1, max(ranks, default=0))]
        if len(found) == 1 and (going_out or next(iter(found)) in inside):
            return [(0.3, next(iter(found.values())))]
        before = {c for play in hand.plays if play.seat == candidate.seat for c in play.cards}
        twice = [r for r in found if ranks.count(r) >= 2]
        if twice and not before.intersection(cards):
            seen = Counter(c.rank for play in hand.plays for c in play.cards)
            seen.update(c.rank for c in hand.kitty or ())
            seen.update(ranks)
            rank = min(twice, key=lambda r: (seen[r], r))  # the most copies unseen, the lower rank
            return [(0.3, found[rank])]
        if found or len(ranks) < 3:
            return []
        two = [more for k, a in enumerate(inside) for b in inside[k:] if (more := whole(a, b)) is not None]
        return [(0.3, two[0])] if len(two) == 1 else []

    def _one_card_under(self, candidate: PlayCandidate, cards: list[Card]) -> list[tuple[float, tuple[Card, ...]]]:
        """The play the rules accept with one card left out, when the cards read make no
        combination and exactly one card can be left out so: that card lay in the zone before,
        under the cards laid on it (a card of an earlier play the camera never read, read now with
        them: the five-seat film's Q♣ under A♣ A♠), or is no card at all. Tried last; on a play of
        two cards, only a card the seat has played this hand is left out. The ``uncertain_read``
        alert names the play as read."""
        hand = self.hand
        assert hand is not None
        if len(cards) < 2:
            return []
        # Of two cards, either left out leaves a single: the one under is the one the seat laid
        # in this zone earlier in the hand (a second copy of it in a two-deck game: the five-seat
        # film's Q♣ read with the 7♠ of a play it lies on).
        before = {c for play in hand.plays if play.seat == candidate.seat for c in play.cards}
        found: dict[Card, tuple[Card, ...]] = {}
        for i, card in enumerate(cards):
            if len(cards) == 2 and card not in before:
                continue
            kept = tuple(cards[:i] + cards[i + 1:])
            if card not in found and hand.check(Play(candidate.seat, kept, time=candidate.time)) is None:
                found[card] = kept
        return [(0.3, kept) for kept in found.values()] if len(found) == 1 else []

    def _with_double(self, candidate: PlayCandidate, cards: list[Card]) -> list[tuple[float, tuple[Card, ...]]]:
        """Plays the rules accept with one of the candidate's doubles added back as another suit
        of its rank that its reads name (a 4s read 4d beside the 4d): the suit is the misread
        that is common; a card read at two places as another rank is more often one card whose
        corners went unpaired, and adding it back would make a card up."""
        hand = self.hand
        assert hand is not None
        options: list[tuple[float, tuple[Card, ...]]] = []
        for card, alternatives in candidate.doubles:
            try:
                rank = parse_cards(card)[0].rank
            except ValueError:
                continue
            for alt, prob in alternatives:
                try:
                    other = parse_cards(alt)[0]
                except ValueError:
                    continue
                if other.rank != rank or other in cards:
                    continue
                added = tuple(cards + [other])
                if hand.check(Play(candidate.seat, added, time=candidate.time)) is None:
                    options.append((prob, added))
        return options
