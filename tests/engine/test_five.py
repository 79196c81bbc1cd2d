"""Five-player Dou Dizhu (preset ``five``): combinations, the bomb ladder, the open and hidden
landlord, doubling and scoring, as seed 003 words them."""

from __future__ import annotations

import itertools

import pytest

from engine.cards import Card, full_deck, parse_cards, rank_counts
from engine.classify import beats, classify, to_combination
from engine.events import Bid, Deal, Double, Marker, Pass, Play, Reveal, Shown, event_from_dict
from engine.hand import Hand
from engine.judge import judge
from engine.legal import brute_force_plays, legal_plays, prev_key, rank_legal_plays
from engine.record import RecordedHand, dump, load
from engine.record_text import render_hand
from engine.rules import get_rules
from engine.scoring import settle
from engine.violations import HandViolation
from sim.bots import play_hand

FIVE = get_rules("five")
#: Five seats of three cards, the rest of the two decks out of play: short hands for the flow.
SHORT = FIVE.replace(name="five", hand_size=3, out_of_play=108 - 5 * 3 - 3)


def C(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text))


def kinds(text: str) -> list[tuple[str, str, int]]:
    return [(c.type, c.main_text, c.length) for c in classify(text, FIVE)]


# --- combinations [003 五人斗地主 2. 牌型] --------------------------------------------------------
@pytest.mark.parametrize("cards, expected", [
    ("7", [("single", "7", 1)]),
    ("RJ", [("single", "RJ", 1)]),
    ("3 4 5 6 7", [("straight", "3", 5)]),
    ("10 J Q K A", [("straight", "10", 5)]),
    ("5 5", [("pair", "5", 1)]),
    ("5 5 6 6 7 7", [("pair_straight", "5", 3)]),  # 556677
    ("Q Q K K A A", [("pair_straight", "Q", 3)]),
    ("5 5 5", [("trio", "5", 1)]),
    ("5 5 5 6 6 6", [("airplane", "5", 2)]),  # 三顺 555666
    ("5 5 5 7 7", [("trio_pair", "5", 1)]),  # 三带二 55577
    ("5 5 5 6 6 6 7 7 7 9 9 J J K K", [("airplane_pair", "5", 3)]),  # 555666777+99JJKK
    ("6 6 6 6", [("bomb", "6", 4)]),
    ("7 7 7 7 7 7", [("bomb", "7", 6)]),
    ("RJ RJ", [("double_joker", "RJ", 2)]),
    ("BJ BJ", [("double_joker", "BJ", 2)]),
    ("BJ BJ RJ", [("triple_joker", "BJ", 3)]),
    ("BJ RJ RJ", [("triple_joker", "BJ", 3)]),
    ("BJ BJ RJ RJ", [("rocket", "BJ", 4)]),
])
def test_every_combination_of_the_seed_reads(cards, expected):
    assert kinds(cards) == expected


@pytest.mark.parametrize("cards, why", [
    ("J Q K A 2", "2 never in a straight"),
    ("3 4 5 6", "a straight has five or more"),
    ("BJ RJ", "one big and one small joker are no pair and no bomb"),
    ("5 5 6 6", "a pair chain has three or more pairs"),
    ("K K A A 2 2", "2 never in a pair chain"),
    ("A A A 2 2 2", "2 never in a trio chain"),
    ("5 5 5 7", "no trio with a single"),
    ("5 5 5 6 6 6 7 8", "no airplane with single wings"),
    ("6 6 6 6 7 8", "no four with two"),
    ("5 5 5 BJ BJ", "jokers make no pair to carry"),
])
def test_shapes_the_seed_leaves_out_are_no_combination(cards, why):
    assert classify(cards, FIVE) == [], why


# --- the bomb order 4炸<双王<5炸<6炸<三王<7炸<8炸<天王炸弹 -----------------------------------------
LADDER = ["3 3 3 3", "BJ BJ", "3 3 3 3 3", "3 3 3 3 3 3", "BJ BJ RJ", "3 3 3 3 3 3 3", "3 3 3 3 3 3 3 3",
          "BJ BJ RJ RJ"]


@pytest.mark.parametrize("low, high", list(itertools.combinations(range(len(LADDER)), 2)))
def test_the_bomb_order_table(low, high):
    weak, strong = classify(LADDER[low], FIVE)[0], classify(LADDER[high], FIVE)[0]
    assert beats(strong, weak, FIVE)
    assert not beats(weak, strong, FIVE)


def test_bombs_of_one_size_compare_by_rank_and_the_bigger_jokers_win():
    assert beats(classify("4 4 4 4", FIVE)[0], classify("3 3 3 3", FIVE)[0], FIVE)
    assert not beats(classify("3 3 3 3 3", FIVE)[0], classify("4 4 4 4 4", FIVE)[0], FIVE)
    assert beats(classify("RJ RJ", FIVE)[0], classify("BJ BJ", FIVE)[0], FIVE)
    # a bigger 4-bomb still loses to two jokers, and 2222 to 33333
    assert not beats(classify("2 2 2 2", FIVE)[0], classify("BJ BJ", FIVE)[0], FIVE)
    assert not beats(classify("2 2 2 2", FIVE)[0], classify("3 3 3 3 3", FIVE)[0], FIVE)
    # the three-joker bombs tie: neither beats the other
    assert not beats(classify("BJ RJ RJ", FIVE)[0], classify("BJ BJ RJ", FIVE)[0], FIVE)


def test_any_bomb_beats_ordinary_plays_and_ordinary_plays_compare_within_their_kind():
    assert beats(classify("BJ BJ", FIVE)[0], classify("2 2", FIVE)[0], FIVE)
    assert beats(classify("3 3 3 3", FIVE)[0], classify("10 J Q K A", FIVE)[0], FIVE)
    assert beats(classify("6 6 7 7 8 8", FIVE)[0], classify("5 5 6 6 7 7", FIVE)[0], FIVE)
    assert not beats(classify("6 6 7 7 8 8 9 9", FIVE)[0], classify("5 5 6 6 7 7", FIVE)[0], FIVE)
    assert beats(classify("6 6 6 3 3", FIVE)[0], classify("5 5 5 A A", FIVE)[0], FIVE)  # kickers never count
    assert not beats(classify("RJ", FIVE)[0], classify("BJ BJ", FIVE)[0], FIVE)


@pytest.mark.parametrize("hand_text", [
    "BJ BJ RJ RJ 3 3 3 3 4 4 4 4 4",
    "BJ BJ RJ 3 3 3 3 4 4 4 4 4 5 5 5 5 5 5",
    "5 5 5 6 6 6 7 7 7 8 8 9 9 10 10 J J",
    "3 4 5 6 7 8 9 10 J Q K A 2 2 2 2 BJ",
])
def test_legal_plays_agree_with_brute_force_after_every_play(hand_text):
    counts = tuple(rank_counts(parse_cards(hand_text)))
    reference = brute_force_plays(counts, None, FIVE)
    groups = [(Card(r),) * k for r, k in enumerate(counts)]
    assert set(rank_legal_plays(counts, None, FIVE)) == reference
    for play in reference:
        prev = to_combination(play, groups)
        expected = {q for q in reference if beats(to_combination(q, groups), prev, FIVE)}
        assert set(rank_legal_plays(counts, prev_key(prev), FIVE)) == expected, prev


def test_judge_reads_five_player_plays():
    verdict = judge("BJ BJ RJ", "6s 6h 6d 6c 6s 6h", FIVE)
    assert verdict["valid"] and verdict["beats"] and verdict["readings"][0]["type"] == "triple_joker"
    assert judge("BJ RJ", None, FIVE)["reason"] == "not_a_combination"
    assert judge("BJ BJ BJ", None, FIVE)["reason"] == "duplicate_card"  # two decks hold two small jokers


# --- the open and hidden landlord -----------------------------------------------------------------
def deal(hands: list[str], kitty: str) -> Deal:
    return Deal(counts=(3,) * 5, hands=tuple(C(h) for h in hands), kitty=C(kitty))


#: Seat 1 is dealt the marker 7h, seat 3 its twin; the kitty goes to seat 1 unseen.
TWO_LANDLORDS = ["2s 3s 3c", "7h 9s 9h", "10h 4h 5h", "7h Ks Qh", "Ad 4d 5d"]


def started(hands=TWO_LANDLORDS, kitty="Js Jh Qd", marker="7h", seat=1) -> Hand:
    return Hand.from_events(SHORT, [deal(hands, kitty), Marker(seat, Card.parse(marker))])


def test_the_marker_holder_is_the_open_landlord_and_takes_the_kitty_unseen():
    hand = started()
    assert hand.landlord == 1 and hand.base == 1 and hand.turn == 1
    assert hand.cards_left == [3, 6, 3, 3, 3]
    assert hand.twin_holder() == 3
    assert hand.hidden is None and hand.landlord_side() == (1,)  # the table does not know yet


def test_nobody_bids_in_the_marker_game():
    hand = Hand.from_events(SHORT, [deal(TWO_LANDLORDS, "Js Jh Qd")])
    assert hand.bidding.legal() == []
    assert hand.check(Bid(0, "bid", 1)).kind == "bad_bid"
    assert hand.check(Marker(0, Card.parse("7h"))).kind == "not_held"  # seat 0 was not dealt the marker
    with pytest.raises(ValueError, match="joker"):
        Marker(0, Card.parse("BJ"))


def test_the_hidden_landlord_revealed_by_choice_doubles():
    hand = started()
    hand.apply(Reveal(3))
    assert (hand.hidden, hand.hidden_shown) == (3, "choice")
    assert hand.landlord_side() == (1, 3) and hand.farmers() == [0, 2, 4]
    assert hand.multiplier == 2
    assert hand.check(Reveal(3)).data == (("reason", "already_revealed"),)


def test_the_open_landlord_may_ask_for_the_reveal_but_only_the_twin_holder_is_shown():
    hand = started()
    assert hand.check(Reveal(2, by=1)).fields["reason"] == "not_twin_holder"
    assert hand.check(Reveal(3, by=0)).fields["reason"] == "not_a_landlord"
    hand.apply(Reveal(3, by=1))
    assert hand.hidden == 3 and hand.multiplier == 2


def test_the_hidden_landlord_is_shown_when_the_twin_is_played_and_nothing_doubles():
    hand = started()
    hand.apply(Play(1, C("9s")))
    assert hand.check(Reveal(3)).fields["reason"] == "after_first_play"
    hand.apply(Pass(2))
    hand.apply(Play(3, C("Ks")))
    assert hand.hidden is None  # no twin yet
    for seat in (4, 0, 1, 2):
        hand.apply(Pass(seat))
    hand.apply(Play(3, C("7h")))
    assert (hand.hidden, hand.hidden_shown) == (3, "play") and not hand.finished
    assert hand.multiplier == 1


def test_one_landlord_only_when_both_copies_are_in_one_hand():
    hands = ["3s 4s 5s", "7h 7h 9h", "3h 4h 5h", "Ks Kh Kd", "3d 4d 5d"]
    hand = started(hands=hands)
    assert hand.twin_holder() == 1
    hand.apply(Play(1, C("7h 7h")))  # his second copy shows he plays alone
    assert (hand.hidden, hand.hidden_shown) == (1, "play") and hand.landlord_side() == (1,)
    assert hand.farmers() == [0, 2, 3, 4]


def test_the_twin_in_the_kitty_also_leaves_the_open_landlord_alone():
    hands = ["3s 4s 5s", "7h 9s 9h", "3h 4h 5h", "Ks Kh Kd", "3d 4d 5d"]
    hand = started(hands=hands, kitty="7h Jh Qd")
    assert hand.twin_holder() == 1
    hand.apply(Reveal(1))  # alone, by choice: still x2
    assert hand.landlord_side() == (1,) and hand.multiplier == 2


def test_each_player_doubles_once_before_the_first_play():
    hand = started()
    hand.apply(Double(0))
    hand.apply(Double(1))
    assert hand.multiplier == 4 and hand.doubled == [0, 1]
    assert hand.check(Double(0)).fields["reason"] == "already_doubled"
    hand.apply(Play(1, C("9s 9h")))
    assert hand.check(Double(2)).fields["reason"] == "after_first_play"
    classic = Hand.from_events("classic", [Deal(counts=(17, 17, 17)), Bid(0, "bid", 3)])
    assert classic.check(Double(1)).fields["reason"] == "no_doubling_game"
    assert classic.check(Reveal(1)).fields["reason"] == "no_hidden_landlord"


# --- scoring ---------------------------------------------------------------------------------------
def play_out(hand: Hand, moves: list[tuple[int, str]]) -> Hand:
    for seat, cards in moves:
        hand.apply(Pass(seat) if cards == "-" else Play(seat, C(cards)))
    return hand


def test_two_landlords_against_three_each_settle_the_stake_with_every_farmer():
    hand = started()
    hand.apply(Reveal(3))
    play_out(hand, [(1, "9s"), (2, "10h"), (3, "Ks"), (4, "Ad"), (0, "2s"), (1, "-"), (2, "-"), (3, "-"),
                    (4, "-"), (0, "3s 3c")])
    assert hand.finished and hand.out_seat == 0
    s = settle(hand)
    assert s.outcome == "farmers_won" and s.multiplier == 2
    assert s.points == (4, -6, 4, -6, 4)  # stake 2: each landlord pays 2 to each of 3 farmers
    assert sum(s.points) == 0


def test_a_landlord_alone_wins_four_stakes_and_a_whitewash_doubles():
    hands = ["3s 4s 5s", "7h 7h 9h", "3h 4h 5h", "Ks Kh Kd", "3d 4d 5d"]
    hand = started(hands=hands, kitty="9s Jh Jd")
    hand.apply(Double(2))
    play_out(hand, [(1, "9s 9h"), (2, "-"), (3, "-"), (4, "-"), (0, "-"),
                    (1, "Jh Jd"), (2, "-"), (3, "-"), (4, "-"), (0, "-"), (1, "7h 7h")])
    s = settle(hand)
    assert hand.hidden == 1 and s.outcome == "landlord_won"
    assert s.causes == (("double", 2), ("spring", 2))  # no farmer played a card
    assert s.points == (-4, 16, -4, -4, -4)


def test_bombs_of_five_and_up_and_three_jokers_double_four_and_two_jokers_do_not():
    rules = FIVE.replace(hand_size=8, out_of_play=108 - 5 * 8 - 3)

    def doubles(cards: str) -> bool:
        hand = Hand.from_events(rules, [Deal(counts=(8,) * 5), Marker(1, Card.parse("7h")), Play(1, C(cards))])
        return hand.plays[0].doubles

    assert not doubles("10s 10h 10d 10c")
    assert not doubles("BJ BJ")
    assert doubles("10s 10s 10h 10d 10c")
    assert doubles("BJ BJ RJ")
    assert doubles("10s 10s 10h 10h 10d 10d 10c 10c")
    assert doubles("BJ BJ RJ RJ")


def test_a_camera_referee_settles_once_the_hidden_landlord_is_named():
    hand = Hand.from_events(SHORT, [Deal(counts=(3,) * 5), Marker(1, Card.parse("7h"))])
    play_out(hand, [(1, "9s"), (2, "Qs"), (3, "-"), (4, "-"), (0, "-"), (1, "-"),
                    (2, "Qh Qd")])
    assert hand.finished and hand.hidden is None
    assert settle(hand).outcome == "hidden_unknown" and settle(hand).points == (0,) * 5
    hand.apply(Shown(3, C("7h Ks")))  # the twin turns up among seat 3's cards
    assert (hand.hidden, hand.hidden_shown) == (3, "end")
    assert settle(hand).points == (2, -3, 2, -3, 2)


def test_the_open_landlord_showing_both_copies_of_the_marker_played_alone():
    """After a hand the camera never saw the twin played, the open landlord's cards shown hold
    both copies of the marker (or one beside the one he played): he was alone (1 vs 4), and the
    hand settles without waiting for the dealt hands."""
    for played, shown in (("9s", "7h 7h Ks"), ("7h", "7h Ks")):
        hand = Hand.from_events(SHORT, [Deal(counts=(3,) * 5), Marker(1, Card.parse("7h"))])
        play_out(hand, [(1, played), (2, "Qs"), (3, "-"), (4, "-"), (0, "-"), (1, "-"), (2, "Qh Qd")])
        assert hand.finished and settle(hand).outcome == "hidden_unknown"
        hand.apply(Shown(1, C(shown)))
        assert (hand.hidden, hand.hidden_shown) == (1, "end")
        s = settle(hand)
        assert s.outcome == "farmers_won" and s.points == (1, -4, 1, 1, 1)
    hand = Hand.from_events(SHORT, [Deal(counts=(3,) * 5), Marker(1, Card.parse("7h"))])
    play_out(hand, [(1, "9s"), (2, "Qs"), (3, "-"), (4, "-"), (0, "-"), (1, "-"), (2, "Qh Qd")])
    hand.apply(Shown(1, C("7h Ks")))  # one copy shown, none played: it may be the marker itself
    assert hand.hidden is None and settle(hand).outcome == "hidden_unknown"


def test_a_reveal_after_the_hand_names_the_hidden_landlord_without_doubling():
    hand = Hand.from_events(SHORT, [Deal(counts=(3,) * 5), Marker(1, Card.parse("7h"))])
    play_out(hand, [(1, "9s 9h 9d 10s 10h 10d")])  # the open landlord goes out at once
    hand.apply(Reveal(0))
    s = settle(hand)
    assert hand.hidden_shown == "end" and s.outcome == "landlord_won"
    assert s.causes == (("spring", 2),)  # the farmers, seat 0 aside, played nothing
    assert s.points == (6, 6, -4, -4, -4)


# --- records ---------------------------------------------------------------------------------------
def test_bot_hands_round_trip_through_records_and_read_in_both_languages():
    for seed in range(3):
        hand = play_hand("five", seed)
        names = tuple("ABCDE")
        record = RecordedHand.of(hand, names)
        assert load(dump(record)) == record
        assert load(dump(record)).hand() == hand
        for event in hand.log:
            assert event_from_dict(event.to_dict()) == event
        zh, en = render_hand(record, "zh"), render_hand(record, "en")
        assert "标记牌" in zh and "明地主" in zh and "Open landlord" in en
        assert sum(settle(hand).points) == 0


def test_the_record_names_the_hidden_landlord_and_how():
    hand = started()
    hand.apply(Reveal(3, by=1))
    text = render_hand(RecordedHand.of(hand, tuple("ABCDE")), "en")
    assert "Hidden landlord: D (revealed by choice)" in text
    assert "Multiplier: 2 = revealed by choice x2" in text


def test_legal_plays_on_a_dealt_hand_use_its_cards_and_the_referee_checks_turns():
    hand_cards = full_deck(2)[:21]
    plays = legal_plays(hand_cards, None, FIVE)
    assert plays and all(set(p.cards) <= set(hand_cards) for p in plays)
    with pytest.raises(HandViolation, match="out_of_turn"):
        started().apply(Play(2, C("3h")))
