"""Per-hand settlement (docs/rules.md sections 2.2, 3, 4, 5): one test per scoring rule."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import parse_cards
from engine.events import Bid, Deal, Escape, Landlord, OpenHand, Pass, Penalty, Play
from engine.hand import Hand, HandResult
from engine.rules import get_rules
from engine.scoring import settle
from sim.scripted import build, random_hand


def C(text: str) -> tuple:
    return tuple(parse_cards(text))


def result(landlord_won=True, base=1, causes=(), players=3, landlord=0, **kw) -> HandResult:
    return HandResult(players=players, landlord=landlord, base=base, causes=tuple(causes),
                      out_seat=landlord if landlord_won else (landlord + 1) % players,
                      landlord_won=landlord_won, **kw)


BOMBS_AND_ROCKET = (("bomb", 2), ("bomb", 2), ("rocket", 2))


# --- RULES 2.2 ---------------------------------------------------------------------------------
def test_worked_example_bid_three_two_bombs_one_rocket_landlord_wins_24_from_each_48_in_all():
    s = settle(result(True, base=3, causes=BOMBS_AND_ROCKET, landlord=2), "classic")
    assert s.multiplier == 8
    assert s.points == (-24, -24, 48)


def test_worked_example_played_through_the_hand_state_machine():
    match, records, _ = build()
    first = settle(records[0].hand())
    assert (first.base, first.multiplier, first.points) == (3, 8, (-24, -24, 48))
    assert [c for c, _ in first.causes] == ["bomb", "bomb", "rocket"]


def test_base_is_the_winning_bid():
    hand = Hand("classic")
    for e in (Deal(counts=(17, 17, 17)), Bid(0, "bid", 1), Bid(1, "bid", 2), Bid(2, "pass")):
        hand.apply(e)
    hand.apply(Play(1, C("3s")))
    hand.apply(Pass(2))
    hand.apply(Pass(0))
    assert settle(hand).base == 2


def test_landlord_wins_two_times_base_times_multiplier_each_farmer_pays_base_times_multiplier():
    assert settle(result(True, base=2, causes=(("bomb", 2),)), "classic").points == (8, -4, -4)


def test_landlord_loses_pays_two_times_base_times_multiplier():
    assert settle(result(False, base=3, causes=(("rocket", 2),)), "classic").points == (-12, 6, 6)


def test_only_bombs_actually_played_double():
    hand = random_hand("classic", 3)
    played = sum(1 for p in hand.plays if p.reading.type in ("bomb", "rocket"))
    assert settle(hand).multiplier == 2 ** played * (2 if hand.result().spring or hand.result().anti_spring else 1)


def test_spring_doubles():
    s = settle(result(True, base=1, causes=(("spring", 2),)), "classic")
    assert s.points == (4, -2, -2)


def test_anti_spring_doubles():
    s = settle(result(False, base=2, causes=(("anti_spring", 2),)), "classic")
    assert s.points == (-8, 4, 4)


def test_escape_penalty_base_times_multiplier_times_three():
    hand = Hand("classic")
    for e in (Deal(counts=(17, 17, 17)), Bid(0, "bid", 2), Bid(1, "pass"), Bid(2, "pass"),
              Play(0, C("3s 3h 3d 3c")), Escape(1)):
        hand.apply(e)
    s = settle(hand)
    assert (s.outcome, s.points) == ("escape", (0, -12, 0))  # 2 x 2 x 3


def test_escape_before_any_bid_costs_three_points():
    hand = Hand("classic")
    hand.apply(Deal(counts=(17, 17, 17)))
    hand.apply(Escape(2))
    assert settle(hand).points == (0, 0, -3)


def test_redeal_and_abandoned_hands_score_nothing():
    hand = Hand("classic")
    for e in (Deal(counts=(17, 17, 17)), Bid(0, "pass"), Bid(1, "pass"), Bid(2, "pass")):
        hand.apply(e)
    assert settle(hand).points == (0, 0, 0) and settle(hand).outcome == "redeal"


def test_referee_penalty_in_a_hand_is_deducted():
    s = settle(result(True, base=1, penalties=(Penalty(1, 2, "dropped card"),)), "classic")
    assert s.points == (2, -3, -1)


@settings(max_examples=60, deadline=None)
@given(st.booleans(), st.integers(1, 3), st.lists(st.sampled_from(["bomb", "rocket", "spring", "grab"]), max_size=5),
       st.integers(0, 2))
def test_points_are_zero_sum(won, base, causes, landlord):
    s = settle(result(won, base=base, causes=[(c, 2) for c in causes], landlord=landlord), "classic")
    assert sum(s.points) == 0
    assert abs(s.points[landlord]) == 2 * base * 2 ** len(causes)


# --- RULES 3: formats ------------------------------------------------------------------------------
def test_qq_winners_gain_and_losers_lose_nothing():
    assert settle(result(True, base=3, causes=(("bomb", 2),)), "qq").points == (12, 0, 0)
    assert settle(result(False, base=3), "qq").points == (0, 3, 3)


def test_qq_four_with_two_does_not_count_as_a_bomb():
    hand = Hand("qq")
    hand.apply(Deal(counts=(17, 17, 17)))
    hand.apply(Landlord(0, 1))
    hand.apply(Play(0, C("5s 5h 5d 5c 3s 4s")))
    assert hand.multiplier == 1
    hand.apply(Play(1, C("6s 6h 6d 6c")))
    assert hand.multiplier == 2


def test_chips_base_two_doubled_per_bomb_bid_ignored():
    s = settle(result(True, base=3, causes=(("bomb", 2), ("bomb", 2))), "chips")
    assert (s.unit, s.stake, s.points) == ("chips", 8, (16, -8, -8))
    assert settle(result(False, base=1), "chips").points == (-4, 2, 2)


def test_chips_nobody_pays_more_than_he_holds():
    s = settle(result(True, base=1, causes=(("bomb", 2),) * 3), "chips", chips=[20, 5, 30])
    assert s.points == (21, -5, -16)
    s = settle(result(False, base=1, causes=(("bomb", 2),) * 3), "chips", chips=[7, 20, 20])
    assert s.points == (-7, 4, 3)


def test_fixed_score_plus_three_minus_one():
    assert settle(result(True, causes=BOMBS_AND_ROCKET), "fixed").points == (3, -1, -1)
    assert settle(result(False), "fixed").points == (-3, 1, 1)


def test_fixed_score_open_hand_doubles_to_six_and_two():
    hand = Hand("fixed")
    hand.apply(Deal(counts=(17, 17, 17)))
    hand.apply(Landlord(0, 1))
    hand.apply(OpenHand(0))
    r = hand.result()
    won = HandResult(**{**r.__dict__, "out_seat": 0, "landlord_won": True})
    assert settle(won, "fixed").points == (6, -2, -2)


def test_fixed_score_four_players_is_zero_sum():
    assert settle(result(True, players=4), get_rules("four").replace(scoring="fixed")).points == (3, -1, -1, -1)


def test_open_hand_doubles_points():
    assert settle(result(True, base=1, causes=(("open_hand", 2),)), "classic").points == (4, -2, -2)


def test_grab_each_grab_doubles_the_settlement():
    hand = Hand("grab")
    for e in (Deal(counts=(17, 17, 17)), Bid(0, "call"), Bid(1, "grab"), Bid(2, "grab")):
        hand.apply(e)
    r = hand.result()
    won = HandResult(**{**r.__dict__, "out_seat": 2, "landlord_won": True})
    assert settle(won, "grab").points == (-4, -4, 8)


def test_four_player_landlord_collects_from_each_of_three_farmers():
    s = settle(result(True, base=2, players=4, landlord=1, causes=(("bomb", 2),)), "four")
    assert s.points == (-4, 12, -4, -4)
    assert sum(settle(result(False, base=3, players=4), "four").points) == 0


def test_two_player_settlement():
    assert settle(result(True, base=1, players=2), "two").points == (1, -1)


def test_settlement_serialises():
    d = settle(result(True, base=3, causes=BOMBS_AND_ROCKET), "classic").to_dict()
    assert d["points"] == [48, -24, -24] and d["causes"][2] == ["rocket", 2]


def test_escape_during_bidding_uses_the_highest_bid_so_far():
    hand = Hand("classic")
    for e in (Deal(counts=(17, 17, 17)), Bid(0, "pass"), Bid(1, "bid", 2), Escape(2)):
        hand.apply(e)
    assert settle(hand).points == (0, 0, -6)  # 2 x 1 x 3


def test_escape_after_only_passes_is_before_any_bid():
    hand = Hand("classic")
    for e in (Deal(counts=(17, 17, 17)), Bid(0, "pass"), Escape(1)):
        hand.apply(e)
    assert settle(hand).points == (0, -3, 0)
