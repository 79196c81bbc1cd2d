"""Four seats and two decks on the toy table: two copies of a card in one play, a copy played
by one seat and its twin by another, a seat's second play of a trick beside its first."""

from __future__ import annotations

import pytest

from engine.cards import parse_cards
from engine.events import Bid, Deal, Kitty, Pass, Play
from engine.hand import Hand
from engine.scoring import settle
from sim.toy_table import ToyDetector, ToyTable
from tracker.session import TableSession
from tracker.state import TableState
from tracker.store import EventStore
from vision.sources import Frame

pytestmark = pytest.mark.heavy  # films a hand through the session: seconds


def four_seat_hand() -> Hand:
    c = lambda text: tuple(parse_cards(text))  # noqa: E731
    events = [Deal(counts=(2, 5, 3, 3)), Bid(0, "bid", 3), Kitty(c("3s 3s 7d 7d 9h Ks Kh 4c")),
              Play(0, c("3s 3s")), Play(1, c("5h 5h")), Pass(2), Play(3, c("6c 6d")), Play(0, c("7d 7d")),
              Pass(1), Pass(2), Pass(3),
              Play(0, c("9h")), Play(1, c("10s")), Play(2, c("Jc")), Pass(3), Play(0, c("Ks")),
              Pass(1), Pass(2), Pass(3),
              Play(0, c("4c")), Play(1, c("2s")), Pass(2), Pass(3), Pass(0), Play(1, c("Ks"))]
    return Hand.from_events("four", events)


def plays(hand: Hand) -> list[tuple[int, list[str]]]:
    return [(e.seat, sorted(map(str, e.cards))) for e in hand.events if isinstance(e, Play)]


def test_a_four_seat_two_deck_hand_is_read_exactly():
    truth = four_seat_hand()
    table = ToyTable(seats=4, seed=11)
    store = EventStore(":memory:")
    mid = store.create_match(("甲", "乙", "丙", "丁"), "four")
    store.append(mid, 1, truth.events[0], source="referee")
    store.append(mid, 1, truth.events[1], source="referee")
    session = TableSession(None, table.calibration(), ToyDetector(), store, mid)
    for image, t in table.play_hand(truth):
        session.process(Frame(image, t, 0))
    state = TableState.load(store, mid)
    assert [a.alert for a in state.alerts if a.alert != "not_announced"] == []
    assert plays(state.hand) == plays(truth)
    assert sorted(map(str, state.hand.kitty)) == sorted(map(str, truth.kitty))
    assert state.hand.finished and settle(state.hand).points == settle(truth).points == (-9, 3, 3, 3)
