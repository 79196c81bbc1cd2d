"""Which hands count as finished: an abandoned hand (作废) is closed but was never finished."""

from __future__ import annotations

from engine.events import Bid, Deal, End
from engine.match import HandRecord, Match
from tests.kit.hands import quick_hand, redeal


def abandoned(match: Match) -> HandRecord:
    """A hand the referee abandons after the bidding (a misdeal seen late)."""
    first = match.next_first_bidder()
    events = (Deal(counts=(17,) * match.n, first_bidder=first), Bid(first, "bid", 1),
              End(abandoned=True, reason="misdeal"))
    return HandRecord(events)


def test_an_abandoned_hand_is_not_a_finished_hand():
    match = Match("classic", ("A", "B", "C"))
    match.add_hand(quick_hand(match, 0, True))
    match.add_hand(abandoned(match))
    match.add_hand(quick_hand(match, 1, False))
    assert len(match.hands) == 3  # the abandoned hand stays on the sheet (it scores nothing)
    assert match.finished_hands() == 2


def test_a_redeal_is_a_finished_hand():
    match = Match("classic", ("A", "B", "C"))
    match.add_hand(redeal(match))
    assert match.finished_hands() == 1


def test_fixed_score_round_abandoned_hands_do_not_count():
    match = Match("fixed", ("A", "B", "C"))
    for _ in range(5):
        match.add_hand(quick_hand(match, 0, True))  # seat 0 leads the round alone
    match.add_hand(abandoned(match))
    assert not match.status().over  # five hands played, not six: the round goes on
    match.add_hand(quick_hand(match, 0, True))
    status = match.status()
    assert (status.over, status.reason, status.winners) == (True, "round", (0,))
