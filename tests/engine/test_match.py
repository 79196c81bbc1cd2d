"""Match formats (docs/rules.md section 3), bidding order across hands, redeals and penalties."""

from __future__ import annotations

import pytest

from engine.match import DROPPED_CARD_POINTS, Match
from engine.rules import get_rules
from tests.kit.hands import quick_hand, redeal


def test_match_needs_the_right_number_of_players():
    with pytest.raises(ValueError, match="3 players"):
        Match("classic", ("A", "B"))
    with pytest.raises(ValueError):
        Match("classic", ("A", "B", "C"), best_of=4)


def test_only_finished_hands_join_the_match():
    match = Match("classic", ("A", "B", "C"))
    hand = match.new_hand()
    with pytest.raises(ValueError, match="finished"):
        match.add_hand(hand)
    assert match.hands == []


def test_totals_add_each_hands_points():
    match = Match("classic", ("A", "B", "C"))
    match.add_hand(quick_hand(match, 0, True, base=3, bombs=1))
    match.add_hand(quick_hand(match, 1, False, base=2))
    assert [r.points for r in match.settlements()] == [(12, -6, -6), (2, -4, 2)]
    assert match.totals() == [14, -10, -4]


# --- points, timed [000, 004] -------------------------------------------------------------------------
def test_timed_points_highest_total_wins_when_time_runs_out():
    match = Match(get_rules("classic").replace(time_limit_min=90), ("A", "B", "C"), started=1000.0)
    match.add_hand(quick_hand(match, 2, True))
    assert not match.status(now=1000 + 89 * 60).over
    status = match.status(now=1000 + 90 * 60)
    assert (status.over, status.reason, status.winners) == (True, "time", (2,))


def test_timed_points_tie_plays_another_hand():
    match = Match(get_rules("classic").replace(time_limit_min=45), ("A", "B", "C"), started=0.0)
    match.add_hand(quick_hand(match, 0, False))  # B and C +1 each: tied at the top
    status = match.status(now=46 * 60)
    assert (status.over, status.reason, status.winners) == (False, "tie_break", (1, 2))
    match.add_hand(quick_hand(match, 1, True))
    assert match.status(now=50 * 60).winners == (1,) and match.status(now=50 * 60).over


# --- QQ [000 part 5] --------------------------------------------------------------------------------
def test_qq_first_player_to_twenty_advances():
    match = Match("qq", ("A", "B", "C"))
    for _ in range(2):
        match.add_hand(quick_hand(match, 1, True, base=3, bombs=1))  # +12 each time
    assert match.totals() == [0, 24, 0]
    status = match.status()
    assert (status.over, status.reason, status.winners) == (True, "target", (1,))


def test_qq_not_over_below_twenty():
    match = Match("qq", ("A", "B", "C"))
    match.add_hand(quick_hand(match, 1, True, base=3, bombs=1))
    assert not match.status().over


# --- chips [004] --------------------------------------------------------------------------------------
def test_chips_start_at_twenty_and_the_table_stops_when_a_player_runs_out():
    match = Match("chips", ("A", "B", "C"))
    assert match.totals() == [20, 20, 20]
    for _ in range(5):
        match.add_hand(quick_hand(match, 0, True, bombs=1))  # 4 chips from each farmer
    assert match.totals() == [60, 0, 0]
    status = match.status()
    assert (status.over, status.reason, status.winners) == (True, "bust", (0,))


def test_chips_final_starts_at_fifty():
    match = Match(get_rules("chips").replace(chips_start=50), ("A", "B", "C"))
    assert match.totals() == [50, 50, 50]


def test_chips_tie_at_time_plays_one_extra_hand():
    match = Match(get_rules("chips").replace(time_limit_min=45), ("A", "B", "C"), started=0.0)
    match.add_hand(quick_hand(match, 0, False))
    assert match.status(now=45 * 60).reason == "tie_break"
    match.add_hand(quick_hand(match, 2, True))
    status = match.status(now=50 * 60)
    assert status.over and status.winners == (2,)


# --- fixed-score rounds [001] --------------------------------------------------------------------------
def test_fixed_score_round_of_six_hands_redeals_do_not_count():
    match = Match("fixed", ("A", "B", "C"))
    for i in range(5):
        match.add_hand(quick_hand(match, i % 3, True))
    match.add_hand(redeal(match))
    assert not match.status().over
    match.add_hand(quick_hand(match, 0, True))
    status = match.status()
    assert (status.over, status.reason, status.winners, status.round_wins) == (True, "round", (0,), (1, 0, 0))


def test_fixed_score_tied_round_plays_on():
    match = Match("fixed", ("A", "B", "C"))
    for landlord in (0, 1, 2, 0, 1, 2):
        match.add_hand(quick_hand(match, landlord, True))
    assert match.totals() == [2, 2, 2]
    assert match.status().reason == "tie_break"
    match.add_hand(quick_hand(match, 1, True))
    assert match.status().winners == (1,)


def test_fixed_score_best_of_five_needs_three_rounds():
    match = Match("fixed", ("A", "B", "C"), best_of=5)
    for _ in range(2 * 6):
        match.add_hand(quick_hand(match, 2, True))
    assert match.status().round_wins == (0, 0, 2) and not match.status().over
    for _ in range(6):
        match.add_hand(quick_hand(match, 2, True))
    status = match.status()
    assert (status.over, status.reason, status.winners) == (True, "rounds_won", (2,))


# --- first bidder, redeals ---------------------------------------------------------------------------
def test_first_bidder_rotates_in_play_order():
    match = Match("classic", ("A", "B", "C"), first_bidder=1)
    assert match.next_first_bidder() == 1
    match.add_hand(quick_hand(match, 0, True))
    assert match.next_first_bidder() == 2
    match.add_hand(quick_hand(match, 0, True))
    assert match.next_first_bidder() == 0
    assert match.new_hand().first_bidder == 0


def test_first_bidder_previous_landlord_option():
    match = Match(get_rules("classic").replace(first_bidder="previous_landlord"), ("A", "B", "C"))
    match.add_hand(quick_hand(match, 2, True))
    assert match.next_first_bidder() == 2


def test_after_a_redeal_the_same_seat_bids_first():
    match = Match("classic", ("A", "B", "C"), first_bidder=1)
    match.add_hand(redeal(match))
    assert match.next_first_bidder() == 1


def test_three_redeals_in_a_row_dealer_minus_four_others_plus_two():
    match = Match(get_rules("classic").replace(redeal_penalty=True), ("A", "B", "C"), first_bidder=2)
    for _ in range(2):
        match.add_hand(redeal(match))
    assert match.totals() == [0, 0, 0]
    match.add_hand(redeal(match))
    assert match.totals() == [2, 2, -4]
    assert match.settlements()[-1].outcome == "redeal_penalty"


def test_redeals_without_the_option_cost_nothing():
    match = Match("classic", ("A", "B", "C"))
    for _ in range(3):
        match.add_hand(redeal(match))
    assert match.totals() == [0, 0, 0]


def test_four_player_three_redeals_dissolve_the_game():
    match = Match("four", ("A", "B", "C", "D"))
    for _ in range(2):
        match.add_hand(redeal(match))
    assert not match.status().over
    match.add_hand(redeal(match))
    assert match.status().reason == "dissolved" and match.status().over


# --- penalties [001, 000 part 5] -------------------------------------------------------------------------
def test_dropped_card_costs_two_points():
    match = Match("classic", ("A", "B", "C"))
    match.penalise(1)
    assert DROPPED_CARD_POINTS == 2 and match.totals() == [0, -2, 0]


def test_misconduct_deduction_and_disqualification():
    match = Match(get_rules("classic").replace(time_limit_min=90), ("A", "B", "C"), started=0.0)
    match.add_hand(quick_hand(match, 0, True, base=3))
    match.penalise(2, 5, "misconduct")
    match.penalise(0, 0, "hid cards", disqualify=True)
    assert match.totals() == [6, -3, -8]
    assert match.status(now=91 * 60).winners == (1,)


def test_penalty_on_a_seat_that_does_not_exist():
    with pytest.raises(ValueError):
        Match("classic", ("A", "B", "C")).penalise(3)


def test_chips_round_robin_the_last_landlord_moves_on():
    match = Match("chips", ("A", "B", "C"))
    assert match.moving_on() is None
    match.add_hand(quick_hand(match, 1, True))
    match.add_hand(quick_hand(match, 2, False))
    match.add_hand(redeal(match))
    assert match.moving_on() == 2
