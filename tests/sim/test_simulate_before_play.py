"""What the synthetic table films before the first play in five-player and 斗帝主 hands: the
marker card laid face up in its seat's zone, the twin of a reveal by choice in the hidden
landlord's, the kitty shown in the kitty zone and the 帝主's pick taken from it."""

from __future__ import annotations

from engine.events import Kitty, KittyPick, Marker, Reveal
from sim.simulate import SimConfig, SimTable


def filmed(config: SimConfig) -> SimTable:
    table = SimTable(config)
    for _ in table.frames():
        pass
    return table


def test_five_seats_the_marker_and_a_revealed_twin_are_laid_in_their_seats_zones():
    table = filmed(SimConfig(seed=16, seats=5, cards=3, style="toy", size=(320, 180), fps=2.0))
    hand, times = table.engine_hands[0], table.timeline[0]
    marker = next(e for e in hand.events if isinstance(e, Marker))
    reveal = next(e for e in hand.events if isinstance(e, Reveal))  # seed 16: the hidden landlord reveals
    assert reveal.seat != hand.landlord
    laid = [{k: p[k] for k in ("card", "zone", "seat", "time")} for p in table.placed]
    for event in (marker, reveal):
        at = times[hand.events.index(event)]
        assert {"card": str(marker.card), "zone": f"seat{event.seat}", "seat": event.seat, "time": at} in laid


def test_dizhu_the_kitty_is_shown_and_the_pick_leaves_the_rest_lying_there():
    table = SimTable(SimConfig(seed=4, seats=3, rules="dizhu", cards=3, style="toy", size=(320, 180), fps=2.0))
    hand = table.engine_hands[0]
    kitty = next(e for e in hand.events if isinstance(e, Kitty))
    pick = next(e for e in hand.events if isinstance(e, KittyPick))
    left = None
    for _ in table.frames():
        if left is None and len(table.timeline[0]) > hand.events.index(pick):
            left = sorted(item["card"] for item in table.piles["kitty"])  # just after the pick
    rest = list(map(str, kitty.cards))
    for card in pick.cards:
        rest.remove(str(card))
    assert left == sorted(rest)
    assert sorted(p["card"] for p in table.placed if p["zone"] == "kitty") == sorted(map(str, kitty.cards))
    assert table.piles["kitty"] == []  # swept with the hand's last sweep
