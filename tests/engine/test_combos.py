"""Combinations (牌型), one test per rule of docs/rules.md 2.1 and 5 and per kicker option."""

from collections import Counter

import pytest

from engine.cards import ACE, BJ, TWO, parse_cards
from engine.classify import beats, beats_cards, classify
from engine.combination import Combination
from engine.rules import CLASSIC, get_rules

FOUR = get_rules("four")


def readings(text, rules=CLASSIC):
    """(type, main text, length) of every reading, in classify's order."""
    return [(c.type, c.main_text, c.length) for c in classify(text, rules)]


def one(text, rules=CLASSIC):
    found = classify(text, rules)
    assert len(found) == 1, f"{text!r} has readings {found}"
    return found[0]


def wins(new, prev, rules=CLASSIC):
    return beats(one(new, rules), one(prev, rules), rules)


# --- the shapes of docs/rules.md 2.1 ------------------------------------------------------------


def test_single_is_one_card():
    assert readings("2") == [("single", "2", 1)]
    assert readings("RJ") == [("single", "RJ", 1)]


def test_pair_is_two_of_a_rank():
    assert readings("7h 7s") == [("pair", "7", 1)]
    assert readings("7 8") == []


def test_rocket_is_not_a_pair():
    assert readings("BJ RJ") == [("rocket", "BJ", 2)]


def test_two_identical_jokers_are_no_pair_in_one_deck_rules():
    assert readings("BJ BJ") == []


def test_trio_is_three_of_a_rank():
    assert readings("222") == [("trio", "2", 1)]


def test_trio_single_kicker_may_be_a_two_or_a_joker():
    assert readings("333 2") == [("trio_single", "3", 1)]
    assert readings("333 RJ") == [("trio_single", "3", 1)]


def test_trio_pair_kicker_is_a_pair_of_one_rank():
    assert readings("333 22") == [("trio_pair", "3", 1)]
    assert readings("333 45") == []


def test_trio_pair_kicker_is_never_the_rocket():
    assert readings("333 BJ RJ") == []


def test_straight_needs_five_consecutive_singles():
    assert readings("3 4 5 6 7") == [("straight", "3", 5)]
    assert readings("3 4 5 6") == []
    assert readings("3 4 5 6 8") == []
    assert readings("3 4 5 6 7 8 9 10 J Q K A") == [("straight", "3", 12)]


def test_straight_stops_at_ace_no_two_no_jokers():
    assert readings("10 J Q K A") == [("straight", "10", 5)]
    assert readings("J Q K A 2") == []
    assert readings("Q K A 2 BJ") == []


def test_pair_chain_needs_three_consecutive_pairs_up_to_ace():
    assert readings("33 44 55") == [("pair_straight", "3", 3)]
    assert readings("QQ KK AA") == [("pair_straight", "Q", 3)]
    assert readings("33 44") == []
    assert readings("KK AA 22") == []
    assert readings("33 44 66") == []


def test_trio_chain_needs_two_consecutive_trios_up_to_ace():
    assert readings("333 444") == [("airplane", "3", 2)]
    assert readings("KKK AAA") == [("airplane", "K", 2)]
    assert readings("AAA 222") == []
    assert readings("333 555") == []


def test_airplane_single_kickers_may_be_twos_and_jokers():
    assert readings("333 444 2 BJ") == [("airplane_single", "3", 2)]


def test_airplane_pair_kickers_may_be_twos():
    assert readings("333 444 22 77") == [("airplane_pair", "3", 2)]


def test_airplane_pair_wings_are_never_a_rocket():
    assert readings("333 444 555 77 88 BJ RJ") == []


def test_airplane_wings_never_mix_singles_and_pairs():
    assert readings("333 444 555 66 7 8") == []
    assert readings("333 444 55 6") == []


def test_four_with_two_singles_is_not_a_bomb():
    play = one("3333 4 5")
    assert play.type == "four_two_single" and not play.is_bomb
    assert beats(one("4444"), play)
    assert not beats(play, one("3 4 5 6 7"))


def test_four_with_two_pairs_is_its_own_type():
    assert readings("3333 44 55") == [("four_two_pair", "3", 1)]


def test_four_with_two_pairs_does_not_beat_four_with_two_singles():
    assert not wins("4444 55 66", "3333 7 8")
    assert not wins("4444 5 6", "3333 77 88")


def test_bomb_is_four_of_a_rank():
    assert readings("8888") == [("bomb", "8", 4)]


@pytest.mark.parametrize("prev", ["2", "22", "AAA", "AAA K", "AAA KK", "10 J Q K A", "QQ KK AA", "KKK AAA 3 4", "2222 3 4"])
def test_bomb_beats_every_non_bomb(prev):
    assert wins("3333", prev)
    assert not wins(prev, "3333")


def test_higher_bomb_beats_lower_bomb():
    assert wins("2222", "AAAA")
    assert not wins("3333", "4444")


def test_rocket_beats_everything():
    for prev in ("2", "2222", "3333 4 5", "3 4 5 6 7 8 9 10 J Q K A"):
        assert wins("BJ RJ", prev)


def test_nothing_beats_the_rocket():
    assert not wins("2222", "BJ RJ")
    assert not beats(one("BJ RJ"), one("BJ RJ"))


def test_non_bombs_compare_only_same_type_and_same_number_of_cards():
    assert not wins("4 5 6 7 8 9", "3 4 5 6 7")
    assert not wins("44", "3")
    assert not wins("444 5", "333 44")
    assert not wins("44 55 66 77", "33 44 55")
    assert not wins("444 555 666", "333 444")


def test_higher_main_rank_wins():
    assert wins("4 5 6 7 8", "3 4 5 6 7")
    assert not wins("3 4 5 6 7", "4 5 6 7 8")
    assert wins("2", "A") and wins("RJ", "BJ") and wins("BJ", "2")
    assert wins("444 555 6 7", "333 444 A 2")


def test_kickers_never_matter():
    assert not wins("333 2", "333 4")
    assert wins("444 3", "333 2")
    assert not wins("3333 BJ 2", "3333 4 5")


def test_a_play_does_not_beat_itself():
    assert not wins("5", "5")
    assert not wins("3333", "3333")


# --- main and length ------------------------------------------------------------------------


def test_main_is_the_lowest_rank_of_the_core_and_length_counts_units():
    assert readings("9 8 7 6 5") == [("straight", "5", 5)]
    assert readings("55 66 77 88") == [("pair_straight", "5", 4)]
    assert readings("444 333 555 A 2 K") == [("airplane_single", "3", 3)]
    assert readings("222 3") == [("trio_single", "2", 1)]
    assert readings("3 4444 5") == [("four_two_single", "4", 1)]


def test_core_and_kickers_are_exactly_the_cards_played_with_suits():
    cards = parse_cards("3s 3h 3d 4c 4d 4h 9s 2c")
    play = one(cards)
    assert play.core == tuple(parse_cards("3s 3h 3d 4h 4d 4c"))
    assert play.kickers == tuple(parse_cards("9s 2c"))
    assert Counter(play.cards) == Counter(cards)


# --- kicker options (issue 2, section 3) ------------------------------------------------------


def test_airplane_single_kickers_may_repeat_a_rank():
    assert readings("333 444 55") == [("airplane_single", "3", 2)]
    assert readings("333 444 55", CLASSIC.replace(airplane_kicker_repeat=False)) == []
    assert readings("333 444 56", CLASSIC.replace(airplane_kicker_repeat=False)) == [("airplane_single", "3", 2)]


def test_airplane_single_kickers_may_hold_three_of_a_rank():
    assert readings("555 666 777 QQQ") == [("airplane_single", "5", 3)]
    assert readings("555 666 777 QQQ", CLASSIC.replace(airplane_kicker_trio=False)) == []


def test_adjacent_trio_extends_the_chain_not_a_kicker():
    assert readings("333 444 555 666") == [("airplane", "3", 4)]
    # Six trios and two singles: neither five-trio window may take the sixth trio as kickers.
    assert readings("333 444 555 666 777 888 9 10") == []
    # A trio away from the chain is fine as kickers.
    assert readings("333 444 555 777") == [("airplane_single", "3", 3)]


def test_kickers_may_not_hold_four_of_a_rank():
    assert readings("333 444 555 666 9999") == []
    assert readings("333 444 5555") == []
    allow = CLASSIC.replace(kicker_four_of_rank=True)
    assert readings("333 444 555 666 9999", allow) == [("airplane_single", "3", 4)]
    assert readings("333 444 5555", allow) == [("airplane_pair", "3", 2)]


def test_single_kickers_may_not_be_both_jokers():
    assert readings("3333 BJ RJ") == []
    assert readings("333 444 BJ RJ") == []
    allow = CLASSIC.replace(kicker_rocket=True)
    assert readings("3333 BJ RJ", allow) == [("four_two_single", "3", 1)]
    assert readings("333 444 BJ RJ", allow) == [("airplane_single", "3", 2)]


def test_kicker_may_not_be_the_fourth_card_of_a_core_rank():
    assert readings("333 4444 5") == []
    assert readings("3333") == [("bomb", "3", 4)]
    allow = CLASSIC.replace(kicker_core_rank=True)
    assert readings("333 4444 5", allow) == [("airplane_single", "3", 2)]
    assert readings("3333", allow) == [("trio_single", "3", 1), ("bomb", "3", 4)]


def test_four_with_two_singles_may_use_a_pair():
    assert readings("3333 55") == [("four_two_single", "3", 1)]
    assert readings("3333 55", CLASSIC.replace(four_two_single_pair=False)) == []


def test_four_with_two_pairs_may_not_use_four_of_a_rank_as_both_pairs():
    assert readings("3333 4444") == []
    assert readings("3333 5555") == []
    allow = CLASSIC.replace(four_two_pair_same=True)
    assert readings("3333 4444", allow) == [("four_two_pair", "3", 1), ("four_two_pair", "4", 1)]


def test_every_reading_is_returned_when_cards_are_ambiguous():
    allow = CLASSIC.replace(four_two_pair_same=True)
    low, high = classify("3333 4444", allow)
    assert (low.main, low.kickers) == (0, tuple(parse_cards("4444")))
    assert (high.main, high.kickers) == (1, tuple(parse_cards("3333")))


def test_trio_single_and_four_with_two_can_be_switched_off():
    rules = CLASSIC.replace(trio_single=False, four_two=False)
    assert readings("333 4", rules) == []
    assert readings("3333 45", rules) == []
    assert readings("3333 4455", rules) == []


# --- four-player rules (docs/rules.md 5) -----------------------------------------------------------


def test_four_player_has_no_trio_single_and_no_four_with_two():
    assert readings("333 4", FOUR) == []
    assert readings("3333 45", FOUR) == []
    assert readings("3333 44 55", FOUR) == []
    assert readings("333 44", FOUR) == [("trio_pair", "3", 1)]


def test_four_player_trio_kinds_carry_pairs_only():
    assert readings("333 444 5 6", FOUR) == []
    assert readings("333 444 55 66", FOUR) == [("airplane_pair", "3", 2)]


def test_four_player_chains_include_the_ace():
    assert readings("QQ KK AA", FOUR) == [("pair_straight", "Q", 3)]
    assert readings("QQQ KKK AAA", FOUR) == [("airplane", "Q", 3)]


def test_four_player_two_identical_jokers_form_a_pair():
    assert readings("BJ BJ", FOUR) == [("pair", "BJ", 1)]
    assert wins("RJ RJ", "BJ BJ", FOUR)
    assert wins("BJ BJ", "22", FOUR)
    assert readings("333 RJ RJ", FOUR) == [("trio_pair", "3", 1)]


def test_four_player_one_of_each_joker_is_no_combination():
    assert readings("BJ RJ", FOUR) == []


def test_four_player_bombs_are_four_to_eight_cards():
    for size in range(4, 9):
        assert readings("9" * size, FOUR) == [("bomb", "9", size)]
    assert readings("9" * 9, FOUR) == []
    assert readings("99999") == []  # one deck: no five-card bomb


def test_four_player_more_cards_beat_fewer_regardless_of_rank():
    assert wins("33333", "2222", FOUR)
    assert not wins("2222", "33333", FOUR)
    assert wins("33333333", "2222222", FOUR)


def test_four_player_bombs_of_equal_count_compare_rank():
    assert wins("444444", "333333", FOUR)
    assert not wins("333333", "444444", FOUR)


def test_without_size_first_bombs_compare_rank_then_size():
    rules = FOUR.replace(bomb_size_first=False)
    assert wins("44444", "3333", rules)
    assert not wins("33333", "4444", rules)
    assert wins("44444", "4444", rules)


def test_four_jokers_beat_everything():
    rocket = one("BJ BJ RJ RJ", FOUR)
    assert (rocket.type, rocket.length) == ("rocket", 4)
    for prev in ("22222222", "2", "BJ BJ", "QQQ KKK AAA"):
        assert beats(rocket, one(prev, FOUR), FOUR)
        assert not beats(one(prev, FOUR), rocket, FOUR)


def test_low_straights_are_an_option():
    low = FOUR.replace(low_straights=True)
    assert readings("A 2 3 4 5") == [] and readings("A 2 3 4 5", FOUR) == []
    assert readings("A 2 3 4 5", low) == [("straight", "A", 5)]
    assert readings("2 3 4 5 6", low) == [("straight", "2", 5)]
    assert wins("2 3 4 5 6", "A 2 3 4 5", low)
    assert wins("3 4 5 6 7", "2 3 4 5 6", low)
    assert not wins("A 2 3 4 5", "3 4 5 6 7", low)
    assert readings("J Q K A 2", low) == []


def test_thirteen_card_straight_with_low_two_reads_ace_low_and_ace_high():
    low = CLASSIC.replace(low_straights=True)
    assert readings("A 2 3 4 5 6 7 8 9 10 J Q K", low) == [("straight", "A", 13), ("straight", "2", 13)]


# --- the API ------------------------------------------------------------------------------


def test_no_cards_and_nonsense_have_no_reading():
    assert classify("") == []
    assert classify([]) == []
    assert classify("3 5") == []


def test_bad_card_text_raises_value_error_naming_the_token():
    with pytest.raises(ValueError, match="'3x'"):
        classify("3 3x")


@pytest.mark.parametrize("bad", [["3", "4"], None, [3], 5])
def test_things_that_are_not_cards_raise_type_error(bad):
    with pytest.raises(TypeError, match="expected card text or Card objects"):
        classify(bad)


def test_rule_sets_made_on_the_fly_do_not_pile_up_in_the_cache():
    from engine import classify as combos

    for size in range(40):
        classify("3 4 5 6 7", CLASSIC.replace(straight_min=5 + size % 3, pair_chain_min=3 + size))
    assert len(combos._CACHES) <= 16


def test_text_and_cards_give_the_same_readings_and_results_are_fresh_lists():
    first = classify("333 44")
    first.clear()
    assert classify("333 44") == classify(parse_cards("333 44")) != []


def test_readings_round_trip_through_dict():
    for text in ("3s 3h 3d 4c 4d 4h 9s 2c", "BJ RJ", "3 4 5 6 7"):
        for reading in classify(text):
            assert Combination.from_dict(reading.to_dict()) == reading


def test_beats_cards_finds_the_reading_that_beats():
    assert beats_cards("444 55", one("333 22")).type == "trio_pair"
    assert beats_cards("444 55", "333 22").main == 1
    assert beats_cards("333 22", "444 55") is None
    assert beats_cards("3", None).type == "single"
    assert beats_cards("3", "").type == "single"
    assert beats_cards("3 5", None) is None


def test_beats_cards_rejects_a_previous_play_that_is_no_combination():
    with pytest.raises(ValueError, match="not a combination"):
        beats_cards("4", "3 5")


def test_chain_position_puts_the_low_straights_below_three():
    low = CLASSIC.replace(low_straights=True)
    a2345, s23456 = one("A 2 3 4 5", low), one("2 3 4 5 6", low)
    assert (a2345.main, s23456.main) == (ACE, TWO)
    assert beats(s23456, a2345, low) and not beats(a2345, s23456, low)
    assert BJ > TWO
