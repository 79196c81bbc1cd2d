"""Card text: every spelling players and the detector use, lossless round trips, clear errors."""

import pytest

from engine.cards import BJ, RANK_TEXT, RJ, Card, as_cards, format_cards, full_deck, parse_cards, rank_counts


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10h", [Card(7, "h")]),
        ("Th", [Card(7, "h")]),
        ("th", [Card(7, "h")]),
        ("qs", [Card(9, "s")]),
        ("QS", [Card(9, "s")]),
        ("BJ", [Card(BJ)]),
        ("RJ", [Card(RJ)]),
        ("bj rj", [Card(BJ), Card(RJ)]),
        ("小王", [Card(BJ)]),
        ("大王", [Card(RJ)]),
        ("大王小王", [Card(RJ), Card(BJ)]),
        ("A♠ 10♥ 2♦ 3♣", [Card(11, "s"), Card(7, "h"), Card(12, "d"), Card(0, "c")]),
    ],
)
def test_every_spelling_of_a_card_parses(text, expected):
    assert parse_cards(text) == expected


@pytest.mark.parametrize("text", ["3 3 3 4", "333 4", "3,3,3,4", "3334", "3，3、3;4"])
def test_rank_only_text_parses_to_suitless_cards(text):
    assert parse_cards(text) == [Card(0), Card(0), Card(0), Card(1)]


def test_ten_is_one_card_not_a_one_and_a_zero():
    assert parse_cards("1010") == [Card(7), Card(7)]
    assert parse_cards("10s10h") == [Card(7, "s"), Card(7, "h")]


def test_empty_text_is_no_cards():
    assert parse_cards("") == []
    assert parse_cards("  ,  ") == []


@pytest.mark.parametrize(
    ("text", "token"),
    [("Xs", "Xs"), ("3 4 Z", "Z"), ("3x", "3x"), ("1", "1"), ("33 BJs", "BJs"), ("10hh", "10hh"), ("jokers", "jokers")],
)
def test_bad_text_raises_value_error_naming_the_bad_token(text, token):
    with pytest.raises(ValueError, match=repr(token).replace("\\", "\\\\")):
        parse_cards(text)


def test_non_text_raises_type_error():
    with pytest.raises(TypeError):
        parse_cards(33)


def test_format_then_parse_is_lossless_for_two_full_decks():
    deck = full_deck(2)
    assert parse_cards(format_cards(deck)) == deck


def test_format_then_parse_is_lossless_without_suits():
    cards = [Card(r) for r in range(RJ + 1)]
    assert parse_cards(format_cards(cards)) == cards
    assert format_cards(cards) == " ".join(RANK_TEXT)


def test_card_str_and_parse_round_trip_every_card():
    for card in full_deck(1):
        assert Card.parse(str(card)) == card


def test_card_parse_rejects_more_than_one_card():
    with pytest.raises(ValueError, match="expected one card"):
        Card.parse("3 4")


@pytest.mark.parametrize(("rank", "suit"), [(-1, None), (15, None), (BJ, "s"), (0, "x")])
def test_impossible_cards_raise_value_error(rank, suit):
    with pytest.raises(ValueError):
        Card(rank, suit)


def test_suits_never_change_rank_order():
    assert Card(0, "c") < Card(1, "s")
    assert sorted(parse_cards("2s 3c BJ As")) == parse_cards("3c As 2s BJ")


def test_one_deck_has_54_distinct_cards_and_two_decks_108():
    assert len(set(full_deck(1))) == 54
    assert len(full_deck(2)) == 108 and len(set(full_deck(2))) == 54
    with pytest.raises(ValueError):
        full_deck(0)


def test_rank_counts_and_as_cards():
    assert rank_counts(as_cards("3 3 BJ")) == [2] + [0] * 12 + [1, 0]
    cards = parse_cards("3s 4h")
    assert as_cards(cards) == cards and as_cards(cards) is not cards
