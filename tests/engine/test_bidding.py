"""Bidding rules (docs/rules.md sections 2, 4, 5, 6): one test per rule and option."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.bidding import BidError, GrabBidding, new_bidding, next_seat
from engine.rules import get_rules

CLASSIC = get_rules("classic")


def run(bidding, *said):
    for seat, action, *value in said:
        bidding.apply(seat, action, *value)
    return bidding


# --- score bidding (叫分) ------------------------------------------------------------------
def test_score_bidding_highest_bidder_is_landlord():
    b = run(new_bidding(CLASSIC, first=1), (1, "bid", 1), (2, "bid", 2), (0, "pass"))
    assert (b.landlord, b.base, b.done) == (2, 2, True)


def test_score_bid_must_exceed_current():
    b = run(new_bidding(CLASSIC), (0, "bid", 2))
    for low in (1, 2):
        with pytest.raises(BidError) as err:
            b.apply(1, "bid", low)
        assert err.value.kind == "illegal_bid"
    b.apply(1, "bid", 3)
    assert b.landlord == 1


def test_score_bid_of_three_ends_bidding_at_once():
    b = run(new_bidding(CLASSIC), (0, "bid", 3))
    assert (b.landlord, b.base, b.to_act) == (0, 3, None)
    with pytest.raises(BidError) as err:
        b.apply(1, "pass")
    assert err.value.kind == "bidding_over"


def test_score_each_player_bids_once_in_play_order():
    b = run(new_bidding(CLASSIC), (0, "bid", 1), (1, "pass"))
    with pytest.raises(BidError) as err:
        b.apply(0, "bid", 2)  # seat 0 already bid; seat 2 is to speak
    assert err.value.kind == "out_of_turn"
    assert "2" in str(err.value) and "号位" in str(err.value)
    b.apply(2, "pass")
    assert (b.landlord, b.base) == (0, 1)


def test_score_bid_above_three_or_unknown_action_is_refused():
    b = new_bidding(CLASSIC)
    for action, value in (("bid", 4), ("grab", 0), ("double", 0), ("bid", 0)):
        assert isinstance(b.check(0, action, value), BidError)
    assert b.history == []


def test_bid_error_is_a_value_error_with_chinese_text():
    with pytest.raises(ValueError, match="叫"):
        new_bidding(CLASSIC).apply(2, "bid", 1)


def test_score_all_pass_redeal():
    b = run(new_bidding(CLASSIC), (0, "pass"), (1, "pass"), (2, "pass"))
    assert b.redeal and b.landlord is None and b.done


def test_score_all_pass_first_bidder_option():
    b = run(new_bidding(CLASSIC.replace(all_pass="first_bidder"), first=2), (2, "pass"), (0, "pass"), (1, "pass"))
    assert (b.landlord, b.base, b.redeal) == (2, 1, False)


def test_third_must_bid_two_option():
    rules = CLASSIC.replace(third_must_bid_two=True)
    b = run(new_bidding(rules), (0, "pass"), (1, "pass"))
    assert b.legal() == [("bid", 2), ("bid", 3)]
    for action, value in (("pass", 0), ("bid", 1)):
        with pytest.raises(BidError):
            b.apply(2, action, value)
    b.apply(2, "bid", 2)
    assert (b.landlord, b.base) == (2, 2)


def test_third_must_bid_two_only_when_both_passed():
    b = run(new_bidding(CLASSIC.replace(third_must_bid_two=True)), (0, "bid", 1), (1, "pass"))
    assert ("pass", 0) in b.legal()


def test_first_bidder_must_be_a_seat():
    with pytest.raises(BidError):
        new_bidding(CLASSIC, first=3)


def test_seat_order_clockwise_option_reverses_the_bidding_order():
    b = new_bidding(CLASSIC.replace(seat_order="cw"), first=0)
    b.apply(0, "pass")
    assert b.to_act == 2
    assert next_seat(0, 3, "ccw") == 1 and next_seat(0, 3, "cw") == 2


# --- auction until two passes [003] ----------------------------------------------------------
AUCTION = CLASSIC.replace(bidding="auction")


def test_auction_goes_round_until_two_players_in_a_row_pass():
    b = run(new_bidding(AUCTION), (0, "bid", 1), (1, "pass"), (2, "bid", 2), (0, "pass"))
    assert not b.done and b.to_act == 1
    b.apply(1, "pass")
    assert (b.landlord, b.base) == (2, 2)


def test_auction_a_player_who_passed_may_bid_again():
    b = run(new_bidding(AUCTION), (0, "pass"), (1, "bid", 1), (2, "pass"), (0, "bid", 2), (1, "pass"), (2, "pass"))
    assert (b.landlord, b.base) == (0, 2)


def test_auction_three_ends_it():
    b = run(new_bidding(AUCTION), (0, "pass"), (1, "bid", 1), (2, "bid", 3))
    assert (b.landlord, b.base) == (2, 3)


def test_auction_nobody_bids_redeal():
    assert run(new_bidding(AUCTION), (0, "pass"), (1, "pass"), (2, "pass")).redeal


# --- call and grab (叫地主/抢地主) [001] -------------------------------------------------------
GRAB = get_rules("grab")


def test_grab_last_grabber_is_landlord_each_grab_doubles():
    b = run(new_bidding(GRAB), (0, "call"), (1, "grab"), (2, "grab"))
    assert (b.landlord, b.grabs, b.multiplier, b.base) == (2, 2, 4, 1)


def test_grab_nobody_grabs_caller_is_landlord():
    b = run(new_bidding(GRAB), (0, "call"), (1, "pass"), (2, "pass"))
    assert (b.landlord, b.grabs, b.multiplier) == (0, 0, 1)


def test_grab_a_player_who_declined_may_not_grab():
    b = run(new_bidding(GRAB), (0, "pass"), (1, "call"))
    assert b.to_act == 2  # seat 0 declined and is skipped
    b.apply(2, "pass")
    assert b.landlord == 1
    b2 = run(new_bidding(GRAB), (0, "pass"), (1, "call"))
    with pytest.raises(BidError) as err:
        b2.apply(0, "grab")
    assert err.value.kind == "out_of_turn"


def test_grab_each_player_may_grab_only_once():
    four_grab = get_rules("four").replace(bidding="grab")
    b = run(new_bidding(four_grab), (0, "call"), (1, "grab"), (2, "pass"), (3, "grab"))
    assert (b.done, b.landlord, b.grabs) == (True, 3, 2)  # seat 1 gets no second grab
    b = run(new_bidding(four_grab), (0, "call"), (1, "grab"))
    with pytest.raises(BidError):
        b.apply(1, "grab")
    assert isinstance(b, GrabBidding)


def test_grab_before_any_call_is_refused():
    with pytest.raises(BidError):
        new_bidding(GRAB).apply(0, "grab")


def test_grab_no_call_redeal():
    assert run(new_bidding(GRAB), (0, "pass"), (1, "pass"), (2, "pass")).redeal


def test_grab_doubles_option_off():
    b = run(new_bidding(GRAB.replace(grab_doubles=False)), (0, "call"), (1, "grab"), (2, "pass"))
    assert (b.landlord, b.multiplier) == (1, 1)


# --- two-player call [003] and four-player bidding [002] ----------------------------------------
TWO = get_rules("two")


def test_two_player_first_to_call_is_landlord():
    b = run(new_bidding(TWO, first=1), (1, "pass"), (0, "call"))
    assert (b.landlord, b.base) == (0, 1)


def test_two_player_nobody_calls_redeal():
    assert run(new_bidding(TWO), (0, "pass"), (1, "pass")).redeal


def test_four_player_bids_once_each_three_wins_at_once():
    four = get_rules("four")
    b = run(new_bidding(four), (0, "bid", 1), (1, "pass"), (2, "pass"), (3, "bid", 2))
    assert (b.landlord, b.base) == (3, 2)
    assert run(new_bidding(four), (0, "pass"), (1, "bid", 3)).landlord == 1
    assert run(new_bidding(four), *[(s, "pass") for s in range(4)]).redeal


# --- property: any sequence of legal choices terminates with a consistent outcome -------------
@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["classic", "grab", "two", "four"]), st.sampled_from(["score", "auction", None]),
       st.integers(0, 3), st.lists(st.integers(0, 99), min_size=40, max_size=40))
def test_legal_choices_always_end_the_bidding(preset, style, first, picks):
    rules = get_rules(preset)
    if style and rules.bidding in ("score", "auction"):
        rules = rules.replace(bidding=style)
    b = new_bidding(rules, first=first % rules.players)
    for pick in picks:
        if b.done:
            break
        options = b.legal()
        action, value = options[pick % len(options)]
        assert b.check(b.to_act, action, value) is None
        b.apply(b.to_act, action, value)
    assert b.done
    assert b.redeal != (b.landlord is not None)
    if rules.bidding in ("score", "auction") and b.landlord is not None:
        top = max(v for _, a, v in b.history if a == "bid")
        assert b.base == top
        assert (b.landlord, "bid", top) in b.history
