"""Five seats and 斗帝主 through the session on the toy table: what the camera sees at a new
five-seat deal while the hand on record is still in play."""

from __future__ import annotations

import pytest

from engine.bidding import next_seat
from engine.cards import Card
from sim.toy_table import ToyDetector
from tests.kit.toy_frames import TokenTable
from tracker.session import TableSession
from tracker.state import TableState
from tracker.store import EventStore
from vision.sources import Frame

pytestmark = pytest.mark.heavy  # films a few plays through the session: seconds


def doubling_round(table: TokenTable, landlord: int):
    """Each seat from the landlord on lays 不加倍, then all pick their tokens up."""
    seat, order = landlord, []
    for _ in range(5):
        order.append(seat)
        seat = next_seat(seat, 5, "ccw")
    for seat in order:
        yield from table.lay(seat, "no_double")
    for seat in order:
        yield from table.lift(seat, "no_double")


def test_a_new_deals_marker_and_doubling_token_end_a_five_seat_hand_whose_last_play_was_missed():
    table = TokenTable(seed=5, seats=5)
    toy = table.table
    store = EventStore(":memory:")
    mid = store.create_match(tuple(f"P{i}" for i in range(5)), "five")
    seats = [f"seat{i}" for i in range(5)]
    frames = [*table.stream(toy.place("seat3", ["7h"])), *table.stream(toy.sweep(["seat3"])),  # the marker
              *doubling_round(table, 3),
              *table.stream(toy.place("seat3", ["5s", "5s"])), *table.stream(toy.place("seat4", ["9h", "9d"])),
              # ... the rest of the hand is not seen; the table sweeps and deals again
              *table.stream(toy.sweep(seats)),
              *table.stream(toy.place("seat1", ["Kc"])), *table.stream(toy.sweep(["seat1"])),  # the next marker
              *doubling_round(table, 1)]
    session = TableSession(None, toy.calibration(), ToyDetector(), store, mid)
    for image, t in frames:
        session.process(Frame(image, t, 0))
    state = TableState.load(store, mid)
    first = state.hand_of(1)
    assert first.marker == Card.parse("7h") and first.landlord == 3 and first.abandoned
    assert [(p.seat, sorted(map(str, p.cards))) for p in first.plays][:2] == [(3, ["5s", "5s"]), (4, ["9d", "9h"])]
    assert state.hand_number == 2
    hand = state.hand
    assert (hand.landlord, hand.marker, hand.phase, hand.plays) == (1, Card.parse("Kc"), "play", [])
    assert "hand_unfinished" in [a.alert for a in state.all_alerts.get(1, [])]
    assert state.alerts == []  # the new hand's doubling round is no alert
