"""Cards picked up again: what the camera's referee does when a zone gives cards back.

The zone's :class:`~tracker.stability.ZoneTracker` reports cards of its last play that were
picked up (``Settled.taken``: a card taken back from a play, a dropped card 掉牌 picked up
again) and cards so reported that lie again where they lay (``Settled.returned``: a sleeve or
a cup lifted off them). :class:`TakeBacks` turns those into corrections and alerts through a
:class:`~tracker.referee.CameraReferee`, so that no card that was only put down counts:

- **Part of the play taken back**, the play the hand's last event: the play is replaced by
  the cards left, when the rules accept them, with a ``taken_back`` alert either way. The
  play refused as read (one card too many: no combination) is refereed again as the cards left.
- **All of it taken back** while other cards still lie in the zone: the play is taken off the
  record with the passes inferred for it (a ``picked_up`` alert).
- **A play the rules refused, picked up whole** (a card dropped out of turn, 掉牌) with nothing
  stored since: the passes inferred for it come off the record, and a ``picked_up`` alert tells
  the referee it was no play (the refusal's alert before it asked for a missed play). From an
  emptied zone it may as well have been swept with the trick: decided as above, by the next
  play read (another seat's while cards still lie in some other zone: picked up).
- **All of it gone and the zone empty**: a sweep at the end of a trick looks the same. It is
  held until the next play read. A sweep clears every zone and the winner leads; so when
  another seat plays next while cards of the trick still lie in some other zone, the play was
  picked up, and comes off the record as above before that play is refereed.
- **Back where they lay**, nothing stored since the correction: the correction is reverted (a
  refused play refereed again as the cards left is taken off and refereed whole again: a sleeve
  that rested over part of it hid those cards for a while).

Each correction is an ordinary :class:`~engine.events.Correction` in the store; the alert
names what was laid and what was taken, and the referee page restores the play in one tap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.cards import Card, format_cards, parse_cards
from engine.events import Correction, Event, Pass, Play
from tracker.records import Alert, Record
from tracker.referee import CameraReferee, PlayCandidate


def _cards(cards: tuple[str, ...] | list[str]) -> tuple[Card, ...]:
    return tuple(parse_cards(" ".join(cards))) if cards else ()


@dataclass
class _Fixed:
    """A correction made for a take-back: the events it took off or changed, by index, as they
    were; and the store's last sequence after it (a later entry makes it the page's to undo)."""

    seat: int
    events: list[tuple[int, Event]]
    replaced: bool
    seq: int
    #: The events were added (the cards left of a refused play, refereed again): undone by
    #: taking them off and refereeing the play whole again.
    added: bool = False


@dataclass
class _Vanished:
    """A seat's whole last play gone from an emptied zone: a sweep, or picked up (decided by
    the next play read)."""

    seat: int
    hand: int
    seq: int
    index: int
    taken: tuple[str, ...]
    #: The play landed on a swept table (no other zone held cards) and was not the winner's lead.
    stray: bool = False


@dataclass
class _Refused:
    """A play the rules refused, gone from its emptied zone: picked up, or swept with the trick."""

    seat: int
    hand: int
    seq: int
    laid: tuple[Card, ...]
    taken: tuple[str, ...]


class TakeBacks:
    """What one match's referee holds of cards taken back (module doc)."""

    def __init__(self) -> None:
        self.fixed: _Fixed | None = None
        self.vanished: _Vanished | None = None
        self.refused: _Refused | None = None
        #: Seats whose zone holds cards put down since it was last seen empty.
        self.lying: set[int] = set()
        #: Seats whose last play landed when every other zone was empty, though the last play on
        #: record was another seat's: after a sweep only the trick's winner leads.
        self.stray: set[int] = set()
        #: Cards a zone reported gone from an emptied zone, found picked up rather than swept, by
        #: seat: the session tells the zone they are no longer played (a later play may hold them).
        self.released: list[tuple[int, tuple[str, ...]]] = []

    def taken(self, referee: CameraReferee, seat: int, taken: tuple[str, ...], kept: tuple[str, ...],
              emptied: bool, time: float | None) -> list[Record]:
        """``taken`` cards of ``seat``'s last play were picked up, ``kept`` of it still lie there."""
        state = referee.refresh()
        hand = state.hand
        self.vanished = None
        if emptied:
            self.lying.discard(seat)
        if hand is None or hand.finished or hand.phase != "play" or not hand.events:
            return []
        laid = tuple(sorted(_cards(kept + taken)))
        if emptied and not any(p.seat == seat and _as_read(state.alerts, seat, p.cards, laid) for p in hand.plays):
            self.released.append((seat, taken))  # not on record (refused): nothing swept to guard
        index = len(hand.events) - 1
        last = hand.events[index]
        if isinstance(last, Play) and last.seat == seat and _as_read(state.alerts, seat, last.cards, laid):
            if kept:
                return self._replace(referee, index, last, _cards(kept), taken, time)
            if emptied:
                self.vanished = _Vanished(seat, state.hand_number, state.last_seq, index, taken, seat in self.stray)
                return []
            return self._take_off(referee, index, last, taken, time)
        if referee.pending.refused == (seat, laid, state.last_seq):
            if not kept and not emptied:  # refused as laid and picked up whole: a card dropped (掉牌), no play
                return self._refused_picked_up(referee, seat, laid, taken, time)
            if not kept:  # or swept: decided by the next play read, as for a play on record
                self.refused = _Refused(seat, state.hand_number, state.last_seq, laid, taken)
                return []
            # the play as laid was refused (a card too many): the cards left are the play
            alert = Alert("taken_back", **_about(seat, kept, laid, taken, time))
            out = [_store(referee, alert)]
            before = len(hand.events)
            out += referee.play(PlayCandidate(seat, kept, time))
            now = referee.hand
            if now is not None and referee.state.hand_number == state.hand_number and len(now.events) > before:
                self.fixed = _Fixed(seat, [(i, now.events[i]) for i in range(before, len(now.events))], False,
                                    referee.state.last_seq, added=True)
            return out
        return []

    def returned(self, referee: CameraReferee, seat: int, returned: tuple[str, ...], whole: tuple[str, ...],
                 time: float | None) -> list[Record]:
        """``returned`` cards reported taken lie again where they lay (``whole``: the play with them)."""
        state = referee.refresh()
        if self.refused is not None and self.refused.seat == seat:
            self.refused = None
        if self.vanished is not None and self.vanished.seat == seat:
            self.vanished = None  # the zone was covered, not swept nor picked up: nothing changed
            return []
        fixed, self.fixed = self.fixed, None
        if fixed is None or fixed.seat != seat or fixed.seq != state.last_seq:
            return referee.play(PlayCandidate(seat, returned, time))  # put down again: a play
        out: list[Record] = []
        if fixed.added:  # the cards left were refereed as the play: the play is the whole again
            for index, _ in sorted(fixed.events, reverse=True):
                hand = referee.hand
                assert hand is not None
                fix = Correction("delete", index, reason="camera: the cards taken back lie there again", time=time)
                if hand.check(fix) is not None:
                    return out
                out.append(_store(referee, fix))
            return out + referee.play(PlayCandidate(seat, whole, time))
        for index, event in sorted(fixed.events):
            hand = referee.hand
            assert hand is not None
            fix = Correction("replace" if fixed.replaced else "insert", index, event,
                             reason="camera: the cards taken back lie there again", time=time)
            if hand.check(fix) is not None:
                break
            out.append(_store(referee, fix))
        return out

    def before_play(self, referee: CameraReferee, candidate: PlayCandidate) -> list[Record]:
        """Before a play is refereed: an emptied zone's play held as maybe swept is decided, and
        so is a refused play gone from an emptied zone."""
        vanished, self.vanished = self.vanished, None
        others = self.lying - {vanished.seat if vanished else -1}
        out = self._decide(referee, vanished, candidate, others)
        refused, self.refused = self.refused, None
        if refused is not None and candidate.seat != refused.seat and self.lying - {refused.seat}:
            state = referee.refresh()
            if state.hand_number == refused.hand and state.last_seq == refused.seq:
                out += self._refused_picked_up(referee, refused.seat, refused.laid, refused.taken, candidate.time)
        hand = referee.hand
        last = hand.plays[-1].seat if hand is not None and hand.plays else None
        if not (self.lying - {candidate.seat}) and last is not None and last != candidate.seat:
            self.stray.add(candidate.seat)
        else:
            self.stray.discard(candidate.seat)
        self.lying.add(candidate.seat)
        return out

    def _decide(self, referee: CameraReferee, vanished: _Vanished | None, candidate: PlayCandidate,
                others: set[int]) -> list[Record]:
        """A play held as maybe swept, now that ``candidate`` is read: taken off when picked up."""
        if vanished is None or candidate.seat == vanished.seat or not (others or vanished.stray):
            return []  # the winner of the trick leads again, or every zone is empty: a sweep
        state = referee.refresh()
        hand = state.hand
        if (hand is None or state.hand_number != vanished.hand or state.last_seq != vanished.seq
                or len(hand.events) != vanished.index + 1):
            return []
        last = hand.events[vanished.index]
        assert isinstance(last, Play)
        self.released.append((vanished.seat, vanished.taken))
        return self._take_off(referee, vanished.index, last, vanished.taken, candidate.time)

    # ------------------------------------------------------------------ helpers
    def _replace(self, referee: CameraReferee, index: int, last: Play, kept: tuple[Card, ...],
                 taken: tuple[str, ...], time: float | None) -> list[Record]:
        hand = referee.hand
        assert hand is not None
        laid = tuple(sorted(last.cards))
        fix = Correction("replace", index, Play(last.seat, kept, time=last.time),
                         reason=f"camera: {' '.join(taken)} taken back", time=time)
        out: list[Record] = []
        if hand.check(fix) is None:
            out.append(_store(referee, fix))
        out.append(_store(referee, Alert("taken_back", **_about(last.seat, [str(c) for c in kept], laid, taken, time,
                                                                index))))
        if len(out) == 2:
            self.fixed = _Fixed(last.seat, [(index, last)], True, referee.state.last_seq)
        return out

    def _take_off(self, referee: CameraReferee, index: int, last: Play, taken: tuple[str, ...],
                  time: float | None) -> list[Record]:
        """The play at ``index`` and the passes the camera inferred for it (stored with its
        time, just before it) come off the record, last first."""
        hand = referee.hand
        assert hand is not None
        first = index
        while first > 0 and isinstance(before := hand.events[first - 1], Pass) and before.time == last.time:
            first -= 1
        removed: list[tuple[int, Event]] = []
        out: list[Record] = []
        for at in range(index, first - 1, -1):
            hand = referee.hand
            assert hand is not None
            fix = Correction("delete", at, reason=f"camera: {' '.join(taken)} picked up again", time=time)
            if hand.check(fix) is not None:
                break
            removed.append((at, hand.events[at]))
            out.append(_store(referee, fix))
        # its cards as the alert's: the page offers them as the seat's play, one tap, should it be one
        alert = Alert("picked_up", **_about(last.seat, (), tuple(sorted(last.cards)), taken, time, first)
                      | {"cards": format_cards(last.cards)})
        out.append(_store(referee, alert))
        if removed:
            self.fixed = _Fixed(last.seat, removed, False, referee.state.last_seq)
        return out

    def _refused_picked_up(self, referee: CameraReferee, seat: int, laid: tuple[Card, ...], taken: tuple[str, ...],
                           time: float | None) -> list[Record]:
        """Cards the rules refused as ``seat``'s play, picked up whole with nothing stored since:
        no play. The passes inferred for it (stored with its time, just before its refusal) come
        off the record, the play held for the page is let go, and a ``picked_up`` alert says so."""
        referee.pending.refused = None
        held = referee.pending.held
        if held is not None and held[0].seat == seat:
            referee.pending.held = None
        hand = referee.hand
        assert hand is not None
        refusal = next((a for a in reversed(referee.state.alerts) if a.seat == seat), None)
        first = len(hand.events)
        while (refusal is not None and refusal.time is not None and first > 0
               and isinstance(before := hand.events[first - 1], Pass) and before.time == refusal.time):
            first -= 1
        out: list[Record] = []
        for at in range(len(hand.events) - 1, first - 1, -1):
            fix = Correction("delete", at, reason=f"camera: {' '.join(taken)} picked up again", time=time)
            if referee.hand is None or referee.hand.check(fix) is not None:
                break
            out.append(_store(referee, fix))
        alert = Alert("picked_up", **_about(seat, (), laid, taken, time, first) | {"cards": format_cards(laid)})
        out.append(_store(referee, alert))
        return out


def _as_read(alerts: list[Alert], seat: int, cards: tuple[Card, ...], laid: tuple[Card, ...]) -> bool:
    """``seat``'s play of ``cards`` on record is the cards ``laid`` as the zone read them, or the
    referee's suggestion for that read (an ``uncertain_read`` alert: a doubtful card stored as another)."""
    stored = tuple(sorted(cards))
    if stored == laid:
        return True
    return any(a.alert == "uncertain_read" and a.seat == seat and a.cards and a.suggestion
               and tuple(sorted(_cards(a.cards.split()))) == laid
               and tuple(sorted(_cards(a.suggestion.split()))) == stored for a in alerts)


def _about(seat: int, kept: tuple[str, ...] | list[str], laid: tuple[Card, ...], taken: tuple[str, ...],
           time: float | None, index: int | None = None) -> dict[str, Any]:
    """An alert's fields: the seat, the cards left (``cards``), what was laid and what taken."""
    return {"seat": seat, "cards": " ".join(kept) or None, "event_index": index, "time": time,
            "data": {"laid": format_cards(laid), "taken": format_cards(_cards(taken)), "kept": " ".join(kept)}}


def _store(referee: CameraReferee, record: Record) -> Record:
    """Append to the referee's hand on record, as the camera."""
    referee.store.append(referee.match_id, referee.state.hand_number, record, source=referee.source)
    referee.refresh()
    return record
