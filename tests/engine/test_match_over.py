"""A decided match takes no more hands: a typed error, and the sheet stays as it was."""

from __future__ import annotations

import pytest

from engine.match import HandRecord, Match, MatchOverError
from engine.rules import get_rules
from tests.kit.hands import quick_hand, redeal


def test_a_hand_after_the_qq_target_is_refused():
    match = Match("qq", ("A", "B", "C"))
    for _ in range(2):
        match.add_hand(quick_hand(match, 1, True, base=3, bombs=1))
    assert match.status().over
    late = quick_hand(match, 0, True)
    with pytest.raises(MatchOverError, match="over") as caught:
        match.add_hand(late)
    assert caught.value.status.reason == "target" and caught.value.status.winners == (1,)
    assert isinstance(caught.value, ValueError)
    assert len(match.hands) == 2 and match.totals() == [0, 24, 0]


def test_a_hand_after_a_chips_bust_is_refused():
    match = Match("chips", ("A", "B", "C"))
    for _ in range(5):
        match.add_hand(quick_hand(match, 0, True, bombs=1))
    with pytest.raises(MatchOverError, match="bust"):
        match.add_hand(quick_hand(match, 1, True))
    assert match.totals() == [60, 0, 0]


def test_a_redeal_after_a_decided_fixed_round_is_refused_too():
    match = Match("fixed", ("A", "B", "C"))
    for _ in range(6):
        match.add_hand(quick_hand(match, 0, True))
    assert match.status().reason == "round"
    with pytest.raises(MatchOverError):
        match.add_hand(redeal(match))


def test_timed_match_refuses_a_hand_begun_after_time_but_takes_one_begun_before():
    match = Match(get_rules("classic").replace(time_limit_min=45), ("A", "B", "C"), started=0.0)
    match.add_hand(quick_hand(match, 2, True))
    record = quick_hand(match, 2, True)
    match.add_hand(HandRecord(record.events, started=44 * 60.0))
    with pytest.raises(MatchOverError, match="time"):
        match.add_hand(HandRecord(record.events, started=46 * 60.0))
    assert len(match.hands) == 2


def test_a_tie_break_is_not_over_and_takes_the_deciding_hand():
    match = Match(get_rules("classic").replace(time_limit_min=45), ("A", "B", "C"), started=0.0)
    match.add_hand(quick_hand(match, 0, False))  # B and C level at the top
    record = quick_hand(match, 1, True)
    match.add_hand(HandRecord(record.events, started=46 * 60.0))
    assert match.status(now=50 * 60).winners == (1,)
