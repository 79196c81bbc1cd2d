"""The hand state machine (docs/rules.md sections 2, 5, 6 and every referee check of section 8)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import full_deck, parse_cards
from engine.events import (
    Announce,
    Bid,
    Concede,
    Correction,
    Deal,
    End,
    Escape,
    Kitty,
    Landlord,
    OpenHand,
    Pass,
    Penalty,
    Play,
)
from engine.hand import Hand
from engine.rules import get_rules
from engine.violations import HandViolation, Violation
from sim.scripted import random_hand


def C(text: str) -> tuple:
    return tuple(parse_cards(text))


def started(rules="classic", landlord=0, base=1, hands=None, kitty=None) -> Hand:
    """A hand dealt with the landlord named directly (no bidding)."""
    r = get_rules(rules)
    hand = Hand(r)
    hand.apply(Deal(counts=(r.hand_size,) * r.players, hands=hands, kitty=kitty))
    hand.apply(Landlord(landlord, base))
    return hand


def fault(hand: Hand, event) -> str:
    violation = hand.check(event)
    assert isinstance(violation, Violation)
    with pytest.raises(HandViolation) as err:
        hand.apply(event)
    assert err.value.violation == violation
    return violation.kind


# --- deal, bidding, landlord ----------------------------------------------------------------------
def test_landlord_takes_the_kitty_and_holds_twenty():
    hand = Hand("classic")
    for e in (Deal(counts=(17, 17, 17), first_bidder=1), Bid(1, "bid", 1), Bid(2, "pass"), Bid(0, "bid", 2)):
        hand.apply(e)
    assert (hand.landlord, hand.base, hand.phase) == (0, 2, "play")
    assert hand.cards_left == [20, 17, 17]


def test_landlord_leads_first():
    hand = started(landlord=2)
    assert hand.turn == 2 and hand.current == ()
    assert fault(hand, Play(0, C("3s"))) == "out_of_turn"


def test_events_before_the_deal_are_refused():
    assert fault(Hand("classic"), Play(0, C("3s"))) == "not_started"
    assert fault(Hand("classic"), Bid(0, "bid", 1)) == "not_started"


def test_deal_must_match_the_table():
    assert fault(Hand("classic"), Deal(counts=(17, 17))) == "bad_deal"
    hand = Hand("classic")
    hand.apply(Deal(counts=(17, 17, 17)))
    assert fault(hand, Deal(counts=(17, 17, 17))) == "wrong_phase"


def test_illegal_bid_is_a_bad_bid_violation():
    hand = Hand("classic")
    hand.apply(Deal(counts=(17, 17, 17)))
    hand.apply(Bid(0, "bid", 2))
    assert fault(hand, Bid(1, "bid", 1)) == "bad_bid"
    assert fault(hand, Bid(2, "bid", 3)) == "out_of_turn"


def test_all_pass_redeal_ends_the_hand():
    hand = Hand("classic")
    for e in (Deal(counts=(17, 17, 17)), Bid(0, "pass"), Bid(1, "pass"), Bid(2, "pass")):
        hand.apply(e)
    assert hand.finished and hand.redeal and hand.landlord is None
    assert fault(hand, Play(0, C("3s"))) == "finished"


def test_play_before_the_landlord_is_known_is_refused():
    hand = Hand("classic")
    hand.apply(Deal(counts=(17, 17, 17)))
    assert fault(hand, Play(0, C("3s"))) == "wrong_phase"


def test_seat_that_does_not_exist_is_refused():
    assert fault(started(), Play(3, C("3s"))) == "bad_seat"


# --- turns and tricks ---------------------------------------------------------------------------
def test_turns_go_counter_clockwise_by_default():
    hand = started(landlord=1)
    hand.apply(Play(1, C("3s")))
    assert hand.turn == 2
    hand.apply(Pass(2))
    assert hand.turn == 0


def test_seat_order_clockwise_option():
    hand = started(get_rules("classic").replace(seat_order="cw"), landlord=1)
    hand.apply(Play(1, C("3s")))
    assert hand.turn == 0


def test_two_passes_in_a_row_end_the_trick_and_the_last_player_leads():
    hand = started(landlord=0)
    for e in (Play(0, C("3s")), Play(1, C("5s")), Pass(2), Pass(0)):
        hand.apply(e)
    assert (hand.turn, hand.leader, hand.current) == (1, 1, ())
    hand.apply(Play(1, C("4s 4h")))  # the new leader plays anything
    assert hand.current[0].type == "pair"


def test_passing_does_not_stop_a_player_from_playing_later_in_the_trick():
    hand = started(landlord=0)
    for e in (Play(0, C("3s")), Pass(1), Play(2, C("5s")), Play(0, C("6s"))):
        hand.apply(e)
    hand.apply(Play(1, C("7s")))  # seat 1 passed earlier in this trick
    assert hand.plays[-1].seat == 1


def test_the_leader_may_not_pass():
    assert fault(started(), Pass(0)) == "cannot_pass"


def test_two_player_trick_ends_after_one_pass():
    hand = started("two", landlord=0)
    assert hand.cards_left == [23, 20]
    hand.apply(Play(0, C("3s")))
    hand.apply(Pass(1))
    assert hand.turn == 0 and hand.current == ()


def test_four_player_trick_ends_after_three_passes():
    hand = started("four", landlord=3)
    assert hand.cards_left == [25, 25, 25, 33]
    for e in (Play(3, C("3")), Pass(0), Pass(1)):
        hand.apply(e)
    assert hand.current != ()
    hand.apply(Pass(2))
    assert hand.current == () and hand.turn == 3


# --- RULES section 8: the referee's checks ---------------------------------------------------------
def test_illegal_combination_is_refused():
    assert fault(started(), Play(0, C("3s 4s"))) == "illegal_combination"


def test_does_not_beat_a_lower_play_or_another_type():
    hand = started()
    hand.apply(Play(0, C("9s 9h")))
    assert fault(hand, Play(1, C("8s 8h"))) == "does_not_beat"
    assert fault(hand, Play(1, C("As"))) == "does_not_beat"
    assert fault(hand, Play(1, C("9d 9c"))) == "does_not_beat"  # equal does not beat
    hand.apply(Play(1, C("Ts Th")))


def test_bomb_beats_any_ordinary_play_and_rocket_beats_the_bomb():
    hand = started()
    hand.apply(Play(0, C("5h 6h 7h 8h 9h")))
    hand.apply(Play(1, C("4h 4d 4c 4s")))
    assert fault(hand, Play(2, C("3h 3d 3c 3s"))) == "does_not_beat"
    hand.apply(Play(2, C("BJ RJ")))
    assert [p.reading.type for p in hand.bombs] == ["bomb", "rocket"]


def test_four_with_two_is_not_a_bomb_and_a_bomb_beats_it():
    hand = started()
    hand.apply(Play(0, C("5s 5h 5d 5c 7s 8s")))
    assert hand.current[0].type == "four_two_single" and hand.multiplier == 1
    hand.apply(Play(1, C("3h 3d 3c 3s")))
    assert hand.multiplier == 2


def test_out_of_turn_is_refused():
    hand = started()
    hand.apply(Play(0, C("3s")))
    assert fault(hand, Play(2, C("4s"))) == "out_of_turn"
    assert fault(hand, Pass(0)) == "out_of_turn"


def test_more_cards_than_the_seat_holds_is_refused():
    hand = started(landlord=0)
    hand.apply(Play(0, C("3s 4s 5s 6s 7s 8s 9s 10s Js Qs Ks As")))
    hand.apply(Pass(1))
    hand.apply(Pass(2))
    hand.apply(Play(0, C("3h 4h 5h 6h 7h")))
    assert hand.cards_left[0] == 3
    hand.apply(Pass(1))
    hand.apply(Pass(2))
    assert fault(hand, Play(0, C("8h 8d 8c 8s"))) == "too_many_cards"


def test_duplicate_card_one_deck_is_refused():
    hand = started()
    hand.apply(Play(0, C("3s")))
    assert fault(hand, Play(1, C("3s"))) == "duplicate_card"
    assert fault(hand, Play(1, C("4s 4s"))) == "duplicate_card"


def test_duplicate_joker_is_refused_and_rank_only_cards_are_not_checked():
    hand = started()
    hand.apply(Play(0, C("BJ")))
    assert fault(hand, Play(1, C("BJ"))) == "duplicate_card"
    hand.apply(Play(1, C("RJ")))
    hand2 = started()
    hand2.apply(Play(0, C("3")))
    assert hand2.check(Play(1, C("4"))) is None


def test_two_decks_allow_each_card_twice_but_not_three_times():
    hand = started("four", landlord=0)
    hand.apply(Play(0, C("3s 3s")))
    assert fault(hand, Play(1, C("4s 4s 4s"))) == "duplicate_card"
    hand.apply(Play(1, C("5s 5s")))
    hand.apply(Pass(2))
    hand.apply(Pass(3))
    hand.apply(Pass(0))
    assert fault(hand, Play(1, C("5s"))) == "duplicate_card"


def test_kitty_cards_are_seen_only_the_landlord_may_play_them():
    hand = started(landlord=0)
    hand.apply(Kitty(C("2s BJ RJ")))
    hand.apply(Play(0, C("3s")))
    assert fault(hand, Play(1, C("2s"))) == "duplicate_card"
    hand.apply(Play(1, C("2h")))
    hand.apply(Pass(2))
    hand.apply(Play(0, C("BJ RJ")))
    assert hand.multiplier == 2


def test_kitty_must_hold_the_kitty_size_and_match_the_deal():
    assert fault(started(), Kitty(C("3s 4s"))) == "bad_kitty"
    hand = started(kitty=C("3s 4s 5s"))
    assert fault(hand, Kitty(C("3s 4s 6s"))) == "bad_kitty"
    hand.apply(Kitty(C("5s 4s 3s")))
    assert fault(hand, Kitty(C("3s 4s 5s"))) == "bad_kitty"


def test_known_hand_must_hold_the_cards_played():
    deck = full_deck()
    hands = (tuple(deck[0:17]), tuple(deck[17:34]), tuple(deck[34:51]))
    hand = started(landlord=0, hands=hands, kitty=tuple(deck[51:54]))
    assert fault(hand, Play(0, C("8s"))) == "not_held"  # seat 1 holds it
    hand.apply(Play(0, C("3")))  # rank-only text matches a held card of that rank
    assert C("3s")[0] not in hand.known[0] and len(hand.known[0]) == 19
    hand.apply(Pass(1))
    hand.apply(Pass(2))
    hand.apply(Play(0, C("RJ")))  # from the kitty, known from the deal


def test_bomb_quota_option_four_player():
    rules = get_rules("four").replace(bomb_quota=True)
    hand = Hand(rules)
    for e in (Deal(counts=(25,) * 4), Bid(0, "pass"), Bid(1, "bid", 2), Bid(2, "pass"), Bid(3, "bid", 3)):
        hand.apply(e)
    # seat 0 did not bid: one bomb; seat 1 bid 2: two bombs; the landlord: no limit.
    hand.apply(Play(3, C("3")))
    hand.apply(Play(0, C("4 4 4 4")))
    hand.apply(Pass(1))
    hand.apply(Pass(2))
    hand.apply(Pass(3))
    hand.apply(Play(0, C("5")))
    hand.apply(Pass(1))
    hand.apply(Pass(2))
    hand.apply(Pass(3))
    assert fault(hand, Play(0, C("6 6 6 6"))) == "bomb_quota"
    hand.apply(Play(0, C("6")))
    hand.apply(Play(1, C("7 7 7 7")))
    hand.apply(Pass(2))
    hand.apply(Play(3, C("8 8 8 8 8")))
    hand.apply(Pass(0))
    hand.apply(Play(1, C("9 9 9 9 9 9")))
    hand.apply(Pass(2))
    hand.apply(Pass(3))
    hand.apply(Pass(0))
    hand.apply(Play(1, C("10")))
    hand.apply(Pass(2))
    hand.apply(Play(3, C("J")))
    hand.apply(Pass(0))
    assert fault(hand, Play(1, C("Q Q Q Q Q Q Q"))) == "bomb_quota"


def test_check_does_not_change_the_hand_and_a_refused_apply_leaves_it_as_it_was():
    hand = started()
    hand.apply(Play(0, C("3s")))
    before = Hand.from_events(hand.rules, hand.log)
    for event in (Play(1, C("3h")), Play(2, C("4s")), Play(1, C("4s 5s")), Correction("delete", 9)):
        assert hand.check(event) is not None
        with pytest.raises(ValueError):
            hand.apply(event)
    assert hand == before


# --- the end of the hand, spring, multiplier ---------------------------------------------------------
def _play_out(events, rules="classic", landlord=0):
    """A short hand: the landlord 1 + 3 kitty = 4 cards, each farmer 2."""
    hand = Hand(get_rules(rules))
    hand.apply(Deal(counts=(1, 2, 2)))
    hand.apply(Landlord(landlord, 1))
    for e in events:
        hand.apply(e)
    return hand


def test_landlord_out_first_landlord_wins():
    hand = _play_out([Play(0, C("3s")), Play(1, C("4s")), Pass(2), Play(0, C("2s")), Pass(1), Pass(2),
                      Play(0, C("5s 5h"))])
    assert hand.finished and hand.out_seat == 0 and hand.result().landlord_won is True
    assert hand.turn is None and hand.causes == []


def test_farmer_out_first_both_farmers_win():
    hand = _play_out([Play(0, C("3s")), Pass(1), Play(2, C("4s")), Pass(0), Pass(1), Play(2, C("6s"))])
    assert hand.out_seat == 2 and hand.result().landlord_won is False


def test_spring_landlord_out_and_no_farmer_played():
    hand = _play_out([Play(0, C("3s 3h")), Pass(1), Pass(2), Play(0, C("5s 5h"))])
    assert hand.finished and hand.out_seat == 0 and ("spring", 2) in hand.causes
    assert hand.result().landlord_won is True and hand.result().spring


def test_no_spring_when_a_farmer_played():
    hand = _play_out([Play(0, C("3s 3h")), Play(1, C("4s 4h"))])
    assert hand.finished and hand.out_seat == 1 and ("spring", 2) not in hand.causes


def test_anti_spring_farmer_out_while_landlord_played_only_his_first_lead():
    hand = _play_out([Play(0, C("3s 3h")), Play(1, C("4s 4h"))])
    assert ("anti_spring", 2) in hand.causes and hand.result().landlord_won is False


def test_no_anti_spring_when_landlord_played_twice():
    hand = _play_out([Play(0, C("3s")), Play(1, C("4s")), Pass(2), Play(0, C("5s")), Pass(1), Pass(2),
                      Play(0, C("6s")), Play(1, C("7s"))])
    assert hand.out_seat == 1 and hand.causes == []


def test_spring_option_off():
    hand = _play_out([Play(0, C("3s 3h")), Pass(1), Pass(2), Play(0, C("5s 5h"))],
                     rules=get_rules("classic").replace(spring=False))
    assert hand.causes == []


def test_finished_hand_refuses_plays_but_takes_end_and_penalties():
    hand = _play_out([Play(0, C("3s 3h")), Pass(1), Pass(2), Play(0, C("5s 5h"))])
    assert fault(hand, Play(1, C("6s"))) == "finished"
    hand.apply(End())
    hand.apply(Penalty(1, 2, "dropped card"))
    assert hand.penalties[-1].points == 2


def test_end_before_anyone_is_out_must_be_abandoned():
    hand = started()
    assert fault(hand, End()) == "wrong_phase"
    hand.apply(End(abandoned=True, reason="cards dropped"))
    assert hand.finished and hand.abandoned


def test_every_bomb_and_rocket_played_doubles_held_ones_do_not():
    hand = started()
    hand.apply(Play(0, C("3s 3h 3d 3c")))
    hand.apply(Play(1, C("BJ RJ")))
    assert hand.multiplier == 4 and [c for c, _ in hand.causes] == ["bomb", "rocket"]


def test_four_player_only_six_card_bombs_and_the_four_joker_rocket_double():
    hand = started("four", landlord=0)
    hand.apply(Play(0, C("3 3 3 3")))
    hand.apply(Play(1, C("4 4 4 4 4")))
    assert hand.multiplier == 1
    hand.apply(Play(2, C("5 5 5 5 5 5")))
    assert hand.multiplier == 2
    hand.apply(Play(3, C("BJ BJ RJ RJ")))
    assert hand.multiplier == 4 and hand.causes[-1] == ("rocket", 2)


def test_grab_doubles_in_the_hand():
    hand = Hand("grab")
    for e in (Deal(counts=(17, 17, 17)), Bid(0, "call"), Bid(1, "grab"), Bid(2, "pass")):
        hand.apply(e)
    assert (hand.landlord, hand.multiplier, hand.causes) == (1, 2, [("grab", 2)])


def test_open_hand_doubles_and_only_the_landlord_opens():
    hand = started(landlord=1)
    assert fault(hand, OpenHand(0)) == "wrong_phase"
    hand.apply(OpenHand(1))
    assert hand.multiplier == 2 and hand.open_hand
    assert fault(hand, OpenHand(1)) == "wrong_phase"


def test_concede_and_escape_end_the_hand():
    hand = started(landlord=0)
    hand.apply(Concede(1))
    assert hand.finished and hand.result().landlord_won is True
    hand = started(landlord=0)
    hand.apply(Escape(0))
    assert hand.finished and hand.result().escaped == 0


def test_announce_at_two_cards_or_fewer():
    hand = _play_out([Play(0, C("3s 3h")), Pass(1), Pass(2)])
    assert hand.unannounced() == [0, 1, 2]
    hand.apply(Announce(0))
    assert hand.unannounced() == [1, 2]
    assert _play_out([], rules=get_rules("classic").replace(announce_at=1)).unannounced() == []


# --- ambiguous plays: every reading kept, narrowed by the follower ------------------------------------
def test_ambiguous_lead_keeps_every_reading_and_a_follower_narrows_it():
    rules = get_rules("four").replace(four_two=True, four_two_pair_same=True)
    hand = started(rules, landlord=0)
    hand.apply(Play(0, C("3 3 3 3 4 4 4 4")))
    assert sorted(r.main_text for r in hand.current) == ["3", "4"]
    hand.apply(Play(1, C("4 4 4 4 3 3 5 5")))  # beats the reading 3333+44+44, not 4444+33+33
    lead = hand.plays[0]
    assert [r.main_text for r in lead.readings] == ["3"]
    assert hand.current[0].main_text == "4"


# --- corrections refold --------------------------------------------------------------------------
def test_correction_replace_a_misread_play():
    hand = started()
    hand.apply(Play(0, C("3s")))
    hand.apply(Play(1, C("5s")))
    hand.apply(Correction("replace", 3, Play(1, C("6s")), reason="misread"))
    assert hand.plays[-1].cards == C("6s") and hand.turn == 2
    assert isinstance(hand.log[-1], Correction) and len(hand.events) == 4


def test_correction_undo_insert_delete():
    hand = started()
    hand.apply(Play(0, C("3s")))
    hand.apply(Pass(1))
    hand.apply(Correction("undo"))
    assert hand.turn == 1 and len(hand.events) == 3
    hand.apply(Play(1, C("4s")))
    assert fault(hand, Correction("insert", 3, Pass(1))) == "bad_correction"  # 4s would be out of turn
    hand.apply(Correction("insert", 4, Pass(2)))
    assert hand.turn == 0 and len(hand.events) == 5
    hand.apply(Correction("delete", 4))
    assert hand.turn == 2 and [p.cards for p in hand.plays] == [C("3s"), C("4s")]
    assert fault(hand, Correction("delete", 2)) == "bad_correction"  # then seat 1 would lead out of turn
    assert Hand.from_events("classic", hand.log) == hand


def test_correction_that_breaks_a_later_event_is_refused():
    hand = started()
    hand.apply(Play(0, C("9s")))
    hand.apply(Play(1, C("10s")))
    violation = hand.check(Correction("replace", 2, Play(0, C("Js"))))
    assert violation is not None and violation.kind == "bad_correction" and violation.event_index == 3
    assert fault(hand, Correction("delete", 40)) == "bad_correction"


def test_undo_of_nothing_is_refused():
    assert fault(Hand("classic"), Correction("undo")) == "bad_correction"


def test_a_correction_that_leaves_the_hand_without_its_deal_is_refused():
    hand = Hand("classic")
    hand.apply(Deal(counts=(17, 17, 17)))
    assert fault(hand, Correction("undo")) == "bad_correction"
    assert hand.check(Correction("delete", 0)).data == (("reason", "needs_deal"),)
    assert fault(hand, Correction("replace", 0, Pass(0))) == "bad_correction"
    assert fault(hand, Correction("insert", 0, Pass(0))) == "bad_correction"
    assert len(hand.events) == 1 and hand.phase == "bidding"


# --- the fold -----------------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["classic", "grab", "two", "four"]), st.integers(0, 10_000))
def test_from_events_equals_the_incremental_hand(preset, seed):
    hand = random_hand(preset, seed)
    rebuilt = Hand.from_events(preset, hand.log)
    assert rebuilt == hand
    assert rebuilt.snapshot() == hand.snapshot()
    if hand.out_seat is not None:
        assert hand.cards_left[hand.out_seat] == 0
        assert sum(len(p.cards) for p in hand.plays) + sum(hand.cards_left) == (
            hand.rules.players * hand.rules.hand_size + hand.rules.kitty_size)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.data())
def test_undo_then_reapply_gives_the_same_state(seed, data):
    hand = random_hand("classic", seed)
    if len(hand.events) < 3:
        return
    k = data.draw(st.integers(1, min(5, len(hand.events) - 1)))
    tail = hand.events[-k:]
    copy = Hand.from_events("classic", hand.events)
    for _ in range(k):
        copy.apply(Correction("undo"))
    for e in tail:
        copy.apply(e)
    assert copy.snapshot() == hand.snapshot()


# --- more rules of section 2 and the referee's helpers -------------------------------------------
def test_nobody_sees_the_kitty_before_the_landlord_is_known():
    hand = Hand("classic")
    hand.apply(Deal(counts=(17, 17, 17)))
    assert fault(hand, Kitty(C("3s 4s 5s"))) == "wrong_phase"


def test_four_player_kitty_is_recorded_though_not_shown():
    hand = started("four", landlord=2)
    hand.apply(Kitty(C("3 3 4 4 5 5 6 6")))
    assert hand.kitty is not None and not hand.rules.kitty_shown and hand.cards_left[2] == 33


def test_rocket_doubles_option_off():
    hand = started(get_rules("classic").replace(rocket_doubles=False))
    hand.apply(Play(0, C("BJ RJ")))
    assert hand.multiplier == 1 and len(hand.bombs) == 1


def test_announce_club_option_up_to_three_cards():
    hand = _play_out([Play(0, C("3s"))], rules=get_rules("classic").replace(announce_at=3))
    assert hand.unannounced() == [0, 1, 2]


def test_trick_shows_leader_plays_and_passes():
    hand = started(landlord=0)
    for e in (Play(0, C("3s")), Play(1, C("5s")), Pass(2)):
        hand.apply(e)
    trick = hand.trick
    assert (trick.leader, [p.seat for p in trick.plays], trick.passes) == (0, [0, 1], 1)
    assert trick.to_beat[0].main_text == "5"
    hand.apply(Pass(0))
    assert hand.trick.plays == () and hand.trick.leader == 1


def test_options_lists_what_the_seat_to_act_could_play():
    deck = full_deck()
    hands = (tuple(deck[0:17]), tuple(deck[17:34]), tuple(deck[34:51]))
    hand = started(landlord=0, hands=hands, kitty=tuple(deck[51:54]))
    hand.apply(Play(0, C("3s")))
    options = hand.options()
    assert options and all(hand.check(Play(1, o.cards)) is None for o in options)
    assert started().options() is None  # cards unknown to a camera referee


def test_dealt_hand_has_the_rule_set_counts():
    hand = Hand.dealt("two", first_bidder=1)
    assert (hand.phase, hand.cards_left, hand.bidding.to_act) == ("bidding", [20, 20], 1)
