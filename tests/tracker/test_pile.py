"""Centre-pile protocol: the seat is the edge the arm reaching into the pile came from."""

from __future__ import annotations

import numpy as np
import pytest

from sim.toy_table import ToyTable
from tracker.pile import EntryWatcher
from tracker.zones import MatLayout


@pytest.fixture(scope="module")
def table():
    return ToyTable(seed=1, pile=True)


def watch(table, frames):
    watcher = EntryWatcher(table.calibration())
    entries = [watcher.update(image, t) for image, t in frames]
    return watcher, entries


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_arm_from_a_seat_edge_names_that_seat(table, seat):
    watcher, entries = watch(table, list(table.frames(2)) + list(table.reach(seat, "pile", ["3s"], still=2)))
    assert watcher.last is not None and watcher.last.seat == seat
    assert {e.seat for e in entries if e is not None} == {seat}


def test_still_table_and_hands_away_from_the_pile_name_nobody(table):
    frames = list(table.frames(3)) + list(table.place("seat1", ["4h"], still=2))  # a hand over its own zone only
    watcher, entries = watch(table, frames)
    assert watcher.last is None and entries == [None] * len(frames)


def test_arm_from_the_side_nobody_sits_at_is_not_a_play(table):
    start, tip = np.array([297.0, -40.0]), table.layout.zones["pile"].mean(axis=0)  # 3 seats: top is the kitty side
    watcher = EntryWatcher(table.calibration())
    watcher.update(table.frame(), 0.0)
    table.arm = (start, tip)
    watcher.update(table.frame(), 0.1)
    table.arm = None
    assert watcher.last is None


def test_mat_with_a_pile_for_every_table_size():
    for seats in (2, 3, 4):
        layout = MatLayout.standard(seats, "A2", pile=True)
        assert "pile" in layout.zones and len(layout.edge_seats()) == seats
        assert ("kitty" in layout.zones) == (seats != 4)  # four players never show the kitty
