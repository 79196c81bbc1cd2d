"""Legal moves: exact answers on small hands, and agreement with brute force on random hands."""

import random
from collections import Counter

import pytest

from engine.cards import Card, full_deck, parse_cards, rank_counts
from engine.classify import beats, classify, play_sort_key, to_combination
from engine.combination import Combination
from engine.legal import brute_force_plays, legal_plays, rank_legal_plays
from engine.rules import CLASSIC, get_rules

FOUR = get_rules("four")


def texts(plays):
    return [str(p) for p in plays]


def prev_key(play):
    return (play.type, play.main, play.length, play.size)


def test_lead_offers_every_combination_of_a_small_hand():
    assert texts(legal_plays("3 3 4")) == ["single(3)", "single(4)", "pair(3 3)"]


def test_lead_with_a_trio_and_kickers():
    assert texts(legal_plays("5 5 5 9 9")) == [
        "single(5)", "single(9)", "pair(5 5)", "pair(9 9)", "trio(5 5 5)",
        "trio_single(5 5 5 + 9)", "trio_pair(5 5 5 + 9 9)",
    ]


def test_follow_a_single_with_higher_singles_and_the_rocket():
    prev = classify("3")[0]
    assert texts(legal_plays("3 4 4 BJ RJ", prev)) == ["single(4)", "single(BJ)", "single(RJ)", "rocket(BJ RJ)"]


def test_follow_a_straight_only_with_higher_straights_of_the_same_length_or_bombs():
    prev = classify("4 5 6 7 8")[0]
    hand = "3 4 5 6 7 8 9 10 2 2 2 2"
    assert texts(legal_plays(hand, prev)) == ["straight(5 6 7 8 9)", "straight(6 7 8 9 10)", "bomb(2 2 2 2)"]


def test_after_a_bomb_only_higher_bombs_and_the_rocket():
    prev = classify("9999")[0]
    hand = "3333 10 10 10 10 BJ RJ 2"
    assert texts(legal_plays(hand, prev)) == ["bomb(10 10 10 10)", "rocket(BJ RJ)"]


def test_nothing_follows_the_rocket():
    assert legal_plays("2222 3 4 5 6 7", classify("BJ RJ")[0]) == []


def test_four_with_two_pairs_is_not_followed_by_four_with_two_singles():
    prev = classify("3333 55 66")[0]
    assert texts(legal_plays("4444 7 8", prev)) == ["bomb(4 4 4 4)"]


def test_four_player_bombs_follow_by_size_then_rank():
    prev = classify("33333", FOUR)[0]
    hand = parse_cards("2222 444444 55555 BJ RJ BJ")
    assert texts(legal_plays(hand, prev, FOUR)) == ["bomb(4 4 4 4 4)", "bomb(5 5 5 5 5)", "bomb(4 4 4 4 4 4)"]


def test_low_straights_follow_in_order_when_allowed():
    low = CLASSIC.replace(low_straights=True)
    prev = classify("A 2 3 4 5", low)[0]
    # The core lists cards in rank order, so 23456 prints as 3 4 5 6 2 (its main is the 2).
    assert texts(legal_plays("2 3 4 5 6 7", prev, low)) == ["straight(3 4 5 6 7)", "straight(3 4 5 6 2)"]


def test_plays_use_the_first_cards_of_each_rank_in_suit_order():
    hand = parse_cards("3c 3h 3s 3d 4d 4s")
    trio_pair = [p for p in legal_plays(hand) if p.type == "trio_pair"]
    assert [(p.core, p.kickers) for p in trio_pair] == [
        (tuple(parse_cards("3s 3h 3d")), tuple(parse_cards("4s 4d"))),
    ]


def test_every_play_is_made_of_the_hands_own_cards():
    rng = random.Random(3)
    hand = rng.sample(full_deck(1), 20)
    have = Counter(hand)
    for play in legal_plays(hand):
        assert not Counter(play.cards) - have


def test_every_play_is_one_of_the_readings_of_its_cards():
    hand = parse_cards("3s 3h 3d 4s 4h 4d 5s 5h 6c 7c 8c 9c 10c Jc 2s 2h 2d 2c BJ RJ")
    for play in legal_plays(hand):
        assert play in classify(list(play.cards))


def test_legal_plays_are_distinct():
    plays = legal_plays("3 3 3 4 4 4 5 5 5 6 6 6 7 8 9 10 J Q K A")
    assert len(plays) == len(set(plays))


def test_legal_plays_bad_input_raises_value_error():
    with pytest.raises(ValueError, match="'3x'"):
        legal_plays("3 3x")
    with pytest.raises(TypeError, match="expected card text or Card objects"):
        legal_plays(["3", "4"])
    with pytest.raises(ValueError, match="unknown combination type"):
        legal_plays("3 4", Combination("triple", 0, 1, tuple(parse_cards("333"))))


def _check_against_brute_force(counts, rules, rng):
    """The generator equals brute force for the lead and for five previous plays, in classify's order."""
    reference = brute_force_plays(counts, None, rules)
    lead = rank_legal_plays(counts, None, rules)
    assert set(lead) == reference, counts
    assert list(lead) == sorted(lead, key=play_sort_key)
    groups = [(Card(r),) * k for r, k in enumerate(counts)]
    everything = sorted(reference)
    for play in rng.sample(everything, min(5, len(everything))):
        prev = to_combination(play, groups)
        expected = {q for q in reference if beats(to_combination(q, groups), prev, rules)}
        follow = rank_legal_plays(counts, prev_key(prev), rules)
        assert set(follow) == expected, (counts, prev)
        assert list(follow) == sorted(follow, key=play_sort_key)


def _random_hands(rules, count, seed, sizes=(1, 20)):
    rng = random.Random(seed)
    deck = full_deck(rules.decks)
    for _ in range(count):
        yield tuple(rank_counts(rng.sample(deck, rng.randint(*sizes)))), rng


@pytest.mark.parametrize(
    ("preset", "options"),
    [
        ("classic", {}),
        ("four", {}),
        ("classic", {"kicker_core_rank": True, "kicker_four_of_rank": True, "kicker_rocket": True}),
        ("classic", {"four_two_pair_same": True, "four_two_single_pair": False, "low_straights": True}),
        ("classic", {"airplane_kicker_repeat": False, "airplane_kicker_trio": False}),
        ("four", {"low_straights": True, "kicker_core_rank": True}),
    ],
)
def test_legal_plays_equal_brute_force_on_random_hands(preset, options):
    rules = get_rules(preset).replace(**options)
    for counts, rng in _random_hands(rules, 40, seed=11, sizes=(1, 15)):
        _check_against_brute_force(counts, rules, rng)


def test_legal_plays_equal_brute_force_on_full_twenty_card_hands():
    for counts, rng in _random_hands(CLASSIC, 2, seed=12, sizes=(20, 20)):
        _check_against_brute_force(counts, CLASSIC, rng)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["classic", "four"])
def test_legal_plays_equal_brute_force_on_ten_thousand_hands(preset):
    rules = get_rules(preset)
    for counts, rng in _random_hands(rules, 10_000, seed=13):
        _check_against_brute_force(counts, rules, rng)
