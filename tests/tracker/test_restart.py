"""After a restart the table is seen again: a session started on a store whose hand is under
way neither plays again the cards the store has as played, nor loses a play put down just
before the stop. A filmed hand is read once without a break, then read again with a stop at
frame k and a fresh session on the same store from frame j <= k: the store must end the same."""

from __future__ import annotations

import dataclasses
from typing import Any, cast

import pytest

from engine.events import Bid, Deal
from engine.scoring import settle
from sim.toy_table import ToyDetector, ToyTable
from tests.kit.hands import actions, short_hand
from tracker.reader import ReaderConfig
from tracker.session import SessionConfig, TableSession
from tracker.stability import Seen, ZoneTracker
from tracker.state import TableState
from tracker.store import EventStore
from vision.sources import Frame

pytestmark = pytest.mark.heavy  # films a hand through the session several times


class Film:
    """The frames of one filmed hand and the store a single uninterrupted read leaves."""

    def __init__(self, pile: bool = False):
        self.truth = short_hand()
        self.pile = pile
        table = ToyTable(seed=0, pile=pile)
        self.frames = list(table.play_hand(self.truth))
        self.calibration = table.calibration()
        self.config = SessionConfig(reader=ReaderConfig(protocol="pile" if pile else "zones"))
        self.store, self.mid = self.new_store()
        self.read(self.store, self.mid, 0, len(self.frames))

    def new_store(self) -> tuple[EventStore, int]:
        """A store where the page has entered the deal and the spoken bids."""
        store = EventStore(":memory:")
        mid = store.create_match(("甲", "乙", "丙"))
        deal = self.truth.events[0]
        assert isinstance(deal, Deal)
        store.append(mid, 1, Deal(counts=tuple(deal.counts), first_bidder=self.truth.first_bidder), source="referee")
        for bid in (e for e in self.truth.events if isinstance(e, Bid)):
            store.append(mid, 1, bid, source="referee")
        return store, mid

    def read(self, store: EventStore, mid: int, start: int, stop: int) -> None:
        """A fresh session (a start of the service) reads frames ``start`` to ``stop``."""
        session = TableSession(None, self.calibration, ToyDetector(), store, mid, self.config)
        for image, t in self.frames[start:stop]:
            session.process(Frame(image, t, 0))


def stored(store: EventStore, mid: int) -> list[tuple[str, object]]:
    """The store's events and alerts, in order, without their times (a play put down just
    before a stop is stored a few frames later, once the fresh session has seen it settle)."""
    return [(e.source, dataclasses.replace(cast(Any, e.event), time=None)) for e in store.events(mid)]


@pytest.fixture(scope="module")
def film() -> Film:
    return Film()


def test_the_uninterrupted_read_is_the_hand_played(film):
    state = TableState.load(film.store, film.mid)
    assert actions(state.hand) == actions(film.truth)
    assert settle(state.hand).points == settle(film.truth).points == (-12, 6, 6)


# Frames of the film: kitty shown 0-17 and swept 18-31; 3s 3h put down at 35 (stored at 42),
# 5s 5h at 53, 7d 7c at 75, the bomb at 93, the trick swept 116-129, 4d at 133.
@pytest.mark.parametrize(("j", "k"), [
    (6, 46),    # replayed from before the kitty was shown: kitty and lead seen twice
    (45, 85),   # from the lead's still frames, stopped after 7d 7c was stored
    (59, 59),   # stopped with 5s 5h put down but not stored yet: stored after the start
    (98, 98),   # the bomb put down, not stored yet
    (34, 34),   # stopped with a hand over seat 0's zone, the lead about to come down
])
def test_a_restart_from_an_earlier_or_the_same_frame_stores_what_one_read_stores(film, j, k):
    store, mid = film.new_store()
    film.read(store, mid, 0, k)
    film.read(store, mid, j, len(film.frames))
    assert stored(store, mid) == stored(film.store, film.mid)
    state = TableState.load(store, mid)
    assert state.hand.finished and settle(state.hand).points == settle(film.truth).points


def test_a_restart_on_the_centre_pile_stores_what_one_read_stores():
    film = Film(pile=True)
    assert actions(TableState.load(film.store, film.mid).hand) == actions(film.truth)
    store, mid = film.new_store()
    film.read(store, mid, 0, 100)
    film.read(store, mid, 60, len(film.frames))
    assert stored(store, mid) == stored(film.store, film.mid)


def test_cards_lying_there_when_nothing_of_the_hand_is_on_record_are_not_a_play():
    # the page dealt the next hand and took the bids before the last hand's cards were swept
    table = ToyTable(seed=1)
    table.piles["seat0"], table.piles["seat2"] = ["3s", "3h"], ["9d"]
    store = EventStore(":memory:")
    mid = store.create_match(("甲", "乙", "丙"))
    store.append(mid, 1, Deal(counts=(17, 17, 17)), source="referee")
    store.append(mid, 1, Bid(0, "bid", 3), source="referee")
    session = TableSession(None, table.calibration(), ToyDetector(), store, mid)
    for image, t in list(table.frames(20)) + list(table.place("seat0", ["5c"])):
        session.process(Frame(image, t, 0))
    assert [(p.seat, [str(c) for c in p.cards]) for p in TableState.load(store, mid).hand.plays] == [(0, ["5c"])]


# --- the zone tracker on its own -------------------------------------------------------------
def hand_over(t0: float = 0.0) -> list[tuple[float, list[Seen], bool]]:
    return [(round(t0 + 0.1 * i, 3), [], True) for i in range(3)]


def still(cards: list[Seen], t0: float, seconds: float = 1.5) -> list[tuple[float, list[Seen], bool]]:
    return [(round(t0 + 0.1 * i, 3), cards, False) for i in range(int(seconds * 10))]


def plays(zone: ZoneTracker, frames) -> list[tuple[str, ...]]:
    return [out.cards for t, seen, motion in frames if (out := zone.update(t, seen, motion=motion))]


PAIR = [Seen("7s", center=(20, 20)), Seen("7h", center=(45, 20))]
EIGHT = Seen("8d", center=(70, 20))


def test_resumed_cards_on_record_are_not_played_again_when_put_back():
    zone = ZoneTracker(seat=0)
    zone.resume(["7s", "7h"])
    # lying there at the start, then picked up and put back with one more card
    frames = still(PAIR, 0.0) + hand_over(1.5) + still([], 1.8, 1.0) + hand_over(2.8) + still(PAIR + [EIGHT], 3.1)
    assert plays(zone, frames) == [("8d",)]


def test_resumed_mid_hand_cards_the_store_lacks_are_a_play():
    zone = ZoneTracker(seat=0)
    zone.resume(["7s"])  # 7h came down with it just before the stop, and was never stored
    assert plays(zone, still(PAIR, 0.0)) == [("7h",)]


def test_resumed_with_no_hand_under_way_cards_lying_there_are_nothing():
    zone = ZoneTracker(seat=0)
    zone.resume([], under_way=False)
    assert plays(zone, still(PAIR, 0.0)) == []
    assert plays(zone, hand_over(1.5) + still(PAIR + [EIGHT], 1.8)) == [("8d",)]
