"""斗帝主 (preset ``dizhu``): the seed's sixteen combinations and their comparisons, the 帝主's
pick of the kitty, classic bidding and scoring."""

from __future__ import annotations

import itertools

import pytest

from engine.cards import Card, full_deck, parse_cards, rank_counts
from engine.classify import beats, classify, to_combination
from engine.events import Bid, Deal, Kitty, KittyPick, Pass, Play, event_from_dict
from engine.hand import Hand
from engine.judge import judge
from engine.legal import brute_force_plays, legal_plays, prev_key, rank_legal_plays
from engine.record import RecordedHand, dump, load
from engine.record_text import render_hand
from engine.rules import get_rules
from engine.scoring import settle
from sim.bots import play_hand

DIZHU = get_rules("dizhu")


def C(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text))


def kinds(text: str) -> list[tuple[str, str, int]]:
    return [(c.type, c.main_text, c.length) for c in classify(text, DIZHU)]


def one(text: str):
    readings = classify(text, DIZHU)
    assert len(readings) == 1, (text, readings)
    return readings[0]


# --- the sixteen combinations [003 斗帝主 牌型] ------------------------------------------------------
@pytest.mark.parametrize("cards, expected", [
    ("K", [("single", "K", 1)]),  # 1 单张
    ("3 4 5 6 7 8", [("straight", "3", 6)]),  # 2 顺子
    ("9 9", [("pair", "9", 1)]),  # 3 对子
    ("BJ BJ", [("pair", "BJ", 1)]),  # two cards of one rank: two small jokers pair
    ("5 5 6 6 7 7 8 8", [("pair_straight", "5", 4)]),  # 4 连对
    ("J J J", [("trio", "J", 1)]),  # 5 三同张
    ("5 5 5 6 6 6 7 7 7", [("airplane", "5", 3)]),  # 6 连三同张
    ("Q Q Q 3 3", [("trio_pair", "Q", 1)]),  # 7 三带二
    ("5 5 5 6 6 6 7 7 7 3 3 9 9 K K", [("airplane_pair", "5", 3)]),  # 8 飞机
    ("8 8 8 8", [("quad", "8", 1)]),  # 9 四同张
    ("2 2 2 2", [("quad", "2", 1)]),
    ("8 8 8 8 9 9 9 9", [("quad_chain", "8", 2)]),  # 10 连四同张
    ("K K K K A A A A", [("quad_chain", "K", 2)]),
    ("8 8 8 8 3 3 3", [("quad_trio", "8", 1)]),  # 11 四带三
    ("8 8 8 8 9 9 9 9 3 3 3 K K K", [("carrier", "8", 2)]),  # 12 航母
    ("8 8 8 8 3 3 3 K K", [("dress", "8", 1)]),  # 13 连衣裙
    ("8 8 8 8 9 9 9 9 4 4 4 5 5 5 J J K K", [("spaceship", "8", 2)]),  # 14 飞船
    ("7 7 7 7 7", [("bomb", "7", 5)]),  # 15 炸弹
    ("A A A A A A A A", [("bomb", "A", 8)]),
    ("BJ BJ RJ RJ", [("rocket", "BJ", 4)]),  # 16 天王炸弹
])
def test_every_combination_of_the_seed_reads(cards, expected):
    assert kinds(cards) == expected


@pytest.mark.parametrize("cards, why", [
    ("J Q K A 2", "2 never in a straight"),
    ("5 5 6 6 7 7", "a pair chain has four or more pairs"),
    ("K K A A 2 2 BJ BJ", "2 and jokers never in a pair chain"),
    ("5 5 5 6 6 6", "a trio chain has three or more trios"),
    ("5 5 5 6 6 6 7 7 8 8", "an airplane needs three or more trios"),
    ("Q Q Q 3", "no trio with a single"),
    ("BJ RJ", "a big and a small joker are no pair"),
    ("A A A A 2 2 2 2", "2 never in a quad chain"),
    ("8 8 8 8 3 4", "no four with two"),
    ("8 8 8 8 3 3 3 3", "two quads that do not chain are nothing"),
    ("8 8 8 8 9 9 9 9 3 3 3", "a carrier takes as many trios as quads"),
    ("8 8 8 8 3 3 3 3 3", "a dress carries a trio and a pair of different ranks"),
    ("8 8 8 8 9 9 9 9 4 4 4 6 6 6 J J K K", "a spaceship's trios chain"),
    ("8 8 8 8 9 9 9 9 4 4 4 5 5 5 J J J J", "a spaceship's pairs are of different ranks"),
    ("BJ BJ RJ", "three jokers make no bomb here"),
])
def test_shapes_the_seed_leaves_out_are_no_combination(cards, why):
    assert classify(cards, DIZHU) == [], why


# --- comparisons: same type and count, the main rank; bombs; the spaceship's tie-break --------------
@pytest.mark.parametrize("strong, weak", [
    ("9 9 9 9", "8 8 8 8"),
    ("9 9 9 9 10 10 10 10", "8 8 8 8 9 9 9 9"),
    ("9 9 9 9 3 3 3", "8 8 8 8 A A A"),  # the trio carried never counts
    ("9 9 9 9 3 3 3 4 4", "8 8 8 8 A A A 2 2"),  # 连衣裙: only the quad
    ("9 9 9 9 10 10 10 10 3 3 3 4 4 4", "8 8 8 8 9 9 9 9 A A A K K K"),
    ("8 8 8 8 9 9 9 9 5 5 5 6 6 6 3 3 4 4", "8 8 8 8 9 9 9 9 4 4 4 5 5 5 J J K K"),  # equal quads: trios
    ("9 9 9 9 10 10 10 10 3 3 3 4 4 4 5 5 6 6", "8 8 8 8 9 9 9 9 Q Q Q K K K A A 2 2"),  # quads first
    ("3 3 3 3 3 3", "A A A A A"),  # more cards win
    ("4 4 4 4 4", "3 3 3 3 3"),  # then rank
    ("BJ BJ RJ RJ", "2 2 2 2 2 2 2 2"),  # 天王炸弹 highest
    ("3 3 3 3 3", "2 2 2 2"),  # any bomb beats a quad
    ("3 3 3 3 3", "8 8 8 8 9 9 9 9 4 4 4 5 5 5 J J K K"),
    ("K K K K A A A A", "Q Q Q Q K K K K"),
])
def test_the_stronger_beats_the_weaker_and_not_back(strong, weak):
    assert beats(one(strong), one(weak), DIZHU)
    assert not beats(one(weak), one(strong), DIZHU)


@pytest.mark.parametrize("a, b", [
    ("9 9 9 9", "8 8 8"),  # different types never compare
    ("9 9 9 9 10 10 10 10", "8 8 8 8"),
    ("9 9 9 9 10 10 10 10 J J J J", "8 8 8 8 9 9 9 9"),  # different lengths
    ("9 9 9 9 3 3 3", "8 8 8 8 3 3 3 4 4"),
    ("8 8 8 8 9 9 9 9 4 4 4 5 5 5 3 3 6 6", "8 8 8 8 9 9 9 9 4 4 4 5 5 5 J J K K"),  # pairs only: a tie
])
def test_plays_that_do_not_compare_beat_neither_way(a, b):
    assert not beats(one(a), one(b), DIZHU)
    assert not beats(one(b), one(a), DIZHU)


@pytest.mark.parametrize("hand_text", [
    "3 3 3 3 4 4 4 4 5 5 5 6 6 6 7 7 8 8",
    "3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 7 7 7 8 8 9 9",
    "4 4 4 4 5 5 5 5 3 3 3 6 6 6 7 7 7 8 8",
    "3 3 3 3 3 5 5 5 6 6 BJ BJ RJ RJ 2 2 2 2",
])
def test_legal_plays_agree_with_brute_force_after_every_play(hand_text):
    counts = tuple(rank_counts(parse_cards(hand_text)))
    reference = brute_force_plays(counts, None, DIZHU)
    groups = [(Card(r),) * k for r, k in enumerate(counts)]
    assert set(rank_legal_plays(counts, None, DIZHU)) == reference
    for play in reference:
        prev = to_combination(play, groups)
        expected = {q for q in reference if beats(to_combination(q, groups), prev, DIZHU)}
        assert set(rank_legal_plays(counts, prev_key(prev), DIZHU)) == expected, prev


def test_a_spaceship_follows_an_equal_quad_chain_only_with_higher_trios():
    prev = one("8 8 8 8 9 9 9 9 4 4 4 5 5 5 J J K K")
    hand = "8 8 8 8 9 9 9 9 3 3 3 4 4 4 5 5 5 6 6 6 Q Q A A"
    answers = [p for p in legal_plays(hand, prev, DIZHU) if p.type == "spaceship"]
    trios = sorted({min(c.rank for c in p.core if sum(d.rank == c.rank for d in p.core) == 3) for p in answers})
    assert answers and trios == [2]  # 555666 only: never 333444 nor an equal 444555


def test_judge_reads_di_zhu_plays():
    verdict = judge("9s 9h 9d 9c 3s 3h 3d 4s 4h", "8s 8h 8d 8c As Ah Ad 2s 2h", DIZHU)
    assert verdict["valid"] and verdict["beats"] and verdict["readings"][0]["type"] == "dress"


# --- the 帝主's kitty, bidding, scoring ------------------------------------------------------------------
KITTY = "2s 2h BJ 3c 4c 5c"


def dealt() -> Hand:
    deck = [c for c in full_deck(2)]
    kitty = list(C(KITTY))
    for card in kitty:
        deck.remove(card)
    hands = tuple(tuple(deck[i * 34:(i + 1) * 34]) for i in range(3))
    return Hand.from_events(DIZHU, [Deal(counts=(34,) * 3, hands=hands, kitty=tuple(kitty))])


def test_the_di_zhu_takes_any_of_the_kitty_shown_to_him():
    hand = dealt()
    hand.apply(Bid(0, "pass"))
    hand.apply(Bid(1, "bid", 3))  # classic bidding: a 3 ends it
    assert hand.landlord == 1 and hand.cards_left == [34, 34, 34]  # nothing taken yet
    assert hand.check(Play(1, hand.known[1][:1])).fields["reason"] == "kitty_pick_first"
    assert hand.check(KittyPick(0, C("2s"))).fields["reason"] == "only_landlord_picks"
    assert hand.check(KittyPick(1, C("2s 2d"))).fields["reason"] == "not_in_kitty"
    hand.apply(Kitty(C(KITTY)))
    hand.apply(KittyPick(1, C("2s 2h BJ")))
    assert hand.cards_left == [34, 37, 34] and hand.picked == C("2s 2h BJ")
    assert sum(1 for c in hand.known[1] if c.rank >= 12) >= 3
    assert hand.check(KittyPick(1, C("3c"))).fields["reason"] == "already_picked"
    assert hand.check(Play(1, C("3c"))).kind == "not_held"  # left in the kitty: out of play


def test_the_di_zhu_may_take_none():
    hand = dealt()
    for e in (Bid(0, "bid", 3), KittyPick(0, ())):
        hand.apply(e)
    assert hand.cards_left == [34, 34, 34] and hand.picked == ()
    assert event_from_dict(KittyPick(0, ()).to_dict()) == KittyPick(0, ())


def test_classic_scoring_every_bomb_doubles():
    hand = Hand.from_events(DIZHU.replace(hand_size=2, out_of_play=108 - 6 - 6), [
        Deal(counts=(2, 2, 2)), Bid(0, "bid", 2), Bid(1, "pass"), Bid(2, "pass"), KittyPick(0, C("3s 3h 3d 5s 5h")),
        Play(0, C("3s 3h 3d 3c 3s")), Pass(1), Pass(2), Play(0, C("5s 5h"))])
    s = settle(hand)
    assert s.outcome == "landlord_won" and s.causes == (("bomb", 2), ("spring", 2))
    assert s.points == (16, -8, -8)


def test_bot_hands_round_trip_through_records_and_read_in_both_languages():
    for seed in range(3):
        hand = play_hand("dizhu", seed)
        record = RecordedHand.of(hand, ("A", "B", "C"))
        assert load(dump(record)) == record and load(dump(record)).hand() == hand
        zh, en = render_hand(record, "zh"), render_hand(record, "en")
        assert "帝主取底牌" in zh and "Di Zhu takes from the kitty" in en
        assert sum(settle(hand).points) == 0


def test_no_combination_is_both_a_quad_and_a_bomb():
    for n in range(4, 9):
        readings = {c.type for c in classify(" ".join(["9"] * n), DIZHU)}
        assert readings == ({"quad"} if n == 4 else {"bomb"})
    for a, b in itertools.combinations(["8 8 8 8 9 9 9 9", "3 3 3 3 3", "BJ BJ RJ RJ"], 2):
        assert beats(one(b), one(a), DIZHU)


def test_the_deck_audit_counts_the_kitty_cards_the_di_zhu_left():
    from engine.events import Shown
    from engine.showdown import deck_audit, starting_hands

    hand = play_hand("dizhu", 1)
    assert hand.picked is not None and len(hand.picked) < 6
    for seat in range(3):
        if hand.cards_left[seat]:
            held = list(hand.known[seat])
            hand.apply(Shown(seat, tuple(held)))
    audit = deck_audit(hand)
    assert audit is not None and audit.ok, audit
    starting = starting_hands(hand)
    assert [len(h) for h in starting] == [34, 34, 34]
