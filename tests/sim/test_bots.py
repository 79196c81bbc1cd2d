"""The simulator's bots: table habits (bombs kept whole, the partner's play left standing,
going out when one can) and bid, bomb and spring rates within plausible bounds."""

from __future__ import annotations

import random

import pytest

from cli.main import main
from cli.simulate import bot_stats
from engine.cards import parse_cards
from engine.events import Deal, Kitty, Landlord, Play
from engine.hand import Hand
from sim.bots import choose_play, deal, play_hand, rates
from sim.simulate import SimError


def C(text: str) -> tuple:
    return tuple(parse_cards(text))


def known_hand(landlord_cards: str, f1: str, f2: str, kitty: str, *plays) -> Hand:
    hands = (C(landlord_cards), C(f1), C(f2))
    counts = tuple(len(h) for h in hands)
    hand = Hand.from_events("classic", [Deal(counts=counts, hands=hands, kitty=C(kitty)), Landlord(0, 1),
                                        Kitty(C(kitty)), *plays])
    return hand


def test_a_bot_leads_without_breaking_its_bomb():
    hand = known_hand("5s 5h 5d 5c 3s 9h", "6s 7s 8s", "Js Qs Ks", "10d 10c 4d")
    for seed in range(20):
        play = choose_play(hand, 0, random.Random(seed))
        assert play is not None and play.type != "bomb"
        assert not any(c.rank_text == "5" for c in play.cards)


def test_a_farmer_lets_his_partners_winning_play_stand():
    hand = known_hand("3s 4s 6h 9h", "7s Ks", "8s 8h Ah", "10d 10c 4d", Play(0, C("3s")), Play(1, C("Ks")))
    assert hand.turn == 2
    assert all(choose_play(hand, 2, random.Random(s)) is None for s in range(10))


def test_whoever_can_go_out_with_one_play_does():
    # the landlord's 7s 7h and the kitty 7d 4s 4h make a trio with a pair: his whole hand
    lead = known_hand("7s 7h", "3s 4d", "8s 9h", "7d 4s 4h")
    for seed in range(5):
        assert sorted(map(str, choose_play(lead, 0, random.Random(seed)).cards)) == ["4h", "4s", "7d", "7h", "7s"]
    # a farmer whose last card beats the lead plays it, whatever he would otherwise keep
    follow = known_hand("3s 5s", "2h", "8s 9h", "6d 6c 4h", Play(0, C("3s")))
    assert [str(c) for c in choose_play(follow, 1, random.Random(0)).cards] == ["2h"]


def test_a_short_deal_and_a_whole_hand():
    hand = play_hand("classic", 5, cards=3)
    assert hand.finished
    if not hand.redeal:
        assert sorted(len(h) for h in hand.events[0].hands) == [3, 3, 3] and len(hand.kitty) == 3
    with pytest.raises(ValueError, match="cards per seat"):
        deal(hand.rules, random.Random(0), 0, cards=18)


def test_four_and_two_player_rules_play_out_too():
    for rules in ("four", "two"):
        r = random.Random(3)
        hands = [play_hand(rules, r, i % (4 if rules == "four" else 2)) for i in range(6)]
        assert all(h.finished for h in hands)


def test_rates_over_a_fixed_seed_are_plausible():
    """Loose bounds (see bench/bots numbers in the report): some redeals but few; bombs or
    rockets in a good share of hands, but not more than are dealt (~55 %); springs rare but
    there; neither side winning nearly always."""
    stats = bot_stats(seed=11, seats=3, hands=600)
    assert stats["hands"] + stats["redeals"] == 600
    assert 0.01 <= stats["redeal_share"] <= 0.15
    assert 0.3 <= stats["hands_with_bomb_or_rocket"] <= 0.65
    assert 0 < stats["spring_share"] + stats["anti_spring_share"] <= 0.06
    assert 0.35 <= stats["landlord_win_share"] <= 0.7
    assert 12 <= stats["plays_per_hand"] <= 30
    assert set(stats["bid_shares"]) == {"1", "2", "3"}


def test_rates_of_nothing_and_bad_stats_requests():
    assert rates([])["hands"] == 0
    with pytest.raises(SimError, match="1..100000"):
        bot_stats(0, 3, 0)


def test_simulate_stats_prints_the_rates(capsys):
    import json

    assert main(["simulate", "--stats", "30", "--seed", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hands"] + out["redeals"] == 30 and out["rules"] == "classic"
    assert "doubled_hand_share" not in out
    assert main(["simulate", "--stats", "30", "--seed", "2", "--double"]) == 0
    assert 0 < json.loads(capsys.readouterr().out)["doubled_hand_share"] <= 1  # the bots double some hands
    assert main(["simulate", "--stats", "0"]) == 2
    assert "1..100000" in capsys.readouterr().err
