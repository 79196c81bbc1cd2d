"""Hand analysis (复盘): each play judged won or lost before and after, the decisive mistakes,
and the seat-as-landlord check, from dealt hands or from the cards shown after the hand."""

from __future__ import annotations

import random

import pytest

from engine.analysis import NoStartingHands, analyse, dealt_hands, not_analysed
from engine.cards import Card, parse_cards
from engine.events import Bid, Deal, Landlord, Pass, Play, Shown
from engine.hand import Hand
from engine.record import RecordedHand
from engine.rules import RuleSet, get_rules
from engine.solver import Position, UnsupportedRules, brute_force, check_rules
from sim.bots import play_hand

#: Three seats of three cards and no kitty: hands small enough to reason about by hand.
TINY = RuleSet(name="tiny", hand_size=3, kitty_size=0, out_of_play=45)
NAMES = ("甲", "乙", "丙")


def C(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text))


def tiny_hand(*plays) -> RecordedHand:
    deal = Deal(counts=(3, 3, 3), hands=(C("3s 3h 5s"), C("4s 9s 10s"), C("6s 7s 8s")), kitty=())
    return RecordedHand(TINY, NAMES, (deal, Landlord(0), *plays))


def bot_record(seed: int, cards: int = 4) -> RecordedHand:
    """A short hand bid and played out by bots, every card known from the deal."""
    rng = random.Random(seed)
    hand = play_hand("classic", rng, cards=cards)
    while hand.redeal:
        hand = play_hand("classic", rng, cards=cards)
    return RecordedHand.of(hand, NAMES)


def shown_instead(record: RecordedHand) -> RecordedHand:
    """The same hand as a camera records it: no hands in the deal, the cards left shown after."""
    hand = record.hand()
    deal = record.events[0]
    assert isinstance(deal, Deal) and hand.known is not None
    events = [Deal(counts=deal.counts, first_bidder=deal.first_bidder, time=deal.time), *record.events[1:]]
    events += [Shown(seat, tuple(cards)) for seat, cards in enumerate(hand.known) if cards]
    return RecordedHand(record.rules, record.players, tuple(events))


def test_leading_the_single_first_is_the_decisive_mistake_and_the_pair_kept_the_win():
    a = analyse(tiny_hand(Play(0, C("5s")), Play(1, C("10s")), Pass(2)))
    assert a.start is True and a.landlord == 0
    first = a.steps[0]
    assert first.number == 1 and first.seat == 0 and first.play.type == "single"
    assert (first.before, first.after, first.mistake) == (True, False, True)
    assert first.better.type == "pair" and first.better.cards == C("3s 3h")
    assert [s.number for s in a.mistakes] == [1]
    assert a.lines("zh")[1] == "第 1 手：甲出单张 5♠ 后由胜转负；出对子 3♠ 3♥ 可保持胜势"
    assert "Play 1: 甲 played single 5♠" in a.lines("en")[1] and "pair 3♠ 3♥" in a.lines("en")[1]


def test_a_hand_played_right_has_no_mistake_and_the_last_play_wins():
    a = analyse(tiny_hand(Play(0, C("3s 3h")), Pass(1), Pass(2), Play(0, C("5s"))))
    assert not a.mistakes and a.start is True
    assert a.steps[-1].after is True and a.steps[1].before is False  # the farmers were lost all along
    assert "没有决定性失误" in a.lines("zh")


def test_the_bid_check_solves_each_seat_as_landlord():
    a = analyse(tiny_hand(Play(0, C("3s 3h")), Pass(1), Pass(2), Play(0, C("5s"))))
    assert a.as_landlord is not None and len(a.as_landlord) == 3
    assert a.as_landlord[0] is a.start
    for seat in (1, 2):
        hands = [[c.rank for c in h] for h in (C("3s 3h 5s"), C("4s 9s 10s"), C("6s 7s 8s"))]
        counts = tuple(tuple(h.count(r) for r in range(15)) for h in hands)
        assert a.as_landlord[seat] == brute_force(Position(counts, seat, seat, rules=TINY))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_judged_position_agrees_with_brute_force(seed):
    record = bot_record(seed)
    a = analyse(record)
    hand = record.hand()
    assert a.solved_from == 1 and len(a.steps) == sum(1 for e in hand.events if isinstance(e, Play | Pass))
    held = [list(h) for h in dealt_hands(hand)[0]]
    held[hand.landlord] += list(hand.kitty)
    # Walk the hand again and check each step's "before" against the exhaustive minimax.
    h = Hand(record.rules)
    k = 0
    for event in hand.events:
        if h.phase == "play" and isinstance(event, Play | Pass):
            by = h.plays[h.top].seat if h.top is not None else None
            counts = tuple(tuple(sum(1 for c in cards if c.rank == r) for r in range(15)) for cards in held)
            pos = Position(counts, hand.landlord, event.seat, h.current, by, record.rules)
            side = event.seat == hand.landlord
            assert a.steps[k].before == (brute_force(pos) == side)
            k += 1
            if isinstance(event, Play):
                for card in event.cards:
                    held[event.seat].remove(card)
        h.apply(event)


def test_hands_shown_after_the_hand_give_the_same_analysis_as_the_deal():
    record = bot_record(4, cards=5)
    from_deal, from_shown = analyse(record), analyse(shown_instead(record))
    assert [s.to_dict() for s in from_shown.steps] == [s.to_dict() for s in from_deal.steps]
    assert from_shown.as_landlord == from_deal.as_landlord


def test_a_hand_without_its_starting_cards_says_how_to_get_them():
    record = bot_record(5)
    deal = record.events[0]
    bare = RecordedHand(record.rules, NAMES, (Deal(counts=deal.counts), *record.events[1:]))
    with pytest.raises(NoStartingHands, match="亮牌"):
        analyse(bare)


def test_a_redeal_has_nothing_to_analyse():
    record = RecordedHand("classic", NAMES, (Deal(counts=(17, 17, 17)), Bid(0, "pass"), Bid(1, "pass"),
                                              Bid(2, "pass")))
    with pytest.raises(ValueError, match="no landlord"):
        analyse(record)


def test_presets_the_solver_does_not_play_are_refused_clearly():
    record = RecordedHand("five", ("a", "b", "c", "d", "e"), (Deal(counts=(21,) * 5),))
    with pytest.raises(UnsupportedRules, match="hidden landlord") as refused:
        analyse(record)
    assert not_analysed(refused.value, "zh").startswith("五人斗地主（明暗地主，两副牌）：不做明牌复盘。有暗地主")
    assert "who plays with whom is itself hidden" in not_analysed(refused.value, "en")


@pytest.mark.parametrize(("rules", "why", "zh", "en"), [
    ("dizhu", "choice", "起手牌本身就是一个选择", "the starting hand is itself a choice"),
    (get_rules("four").replace(bomb_quota=True), "quota", "炸弹限额", "bomb quota"),
    (get_rules("classic").replace(whitewash=True), "options", "规则选项 whitewash 未建模",
     "Rule option(s) whitewash not modelled"),
])
def test_each_refusal_says_why_in_both_languages(rules, why, zh, en):
    with pytest.raises(UnsupportedRules) as refused:
        check_rules(rules)
    assert refused.value.why == why
    assert zh in not_analysed(refused.value, "zh") and en in not_analysed(refused.value, "en")


def test_a_budget_too_short_leaves_positions_unknown_and_says_so():
    a = analyse(bot_record(6, cards=8), seconds=1e-9, bid_seconds=1e-9)
    assert a.start is None and a.solved_from is None and not a.mistakes
    assert all(s.before is None for s in a.steps)
    assert "整局未在时限内解出" in a.lines("zh") and "Not solved in time" in a.lines("en")


def test_the_json_form_carries_steps_mistakes_and_both_languages():
    data = analyse(tiny_hand(Play(0, C("5s")), Play(1, C("10s")), Pass(2))).to_dict()
    assert data["mistakes"] == [1] and data["start"] is True and data["solved_from"] == 1
    assert data["steps"][0]["better"] == {"type": "pair", "cards": "3s 3h"}
    assert data["steps"][2]["play"] == "pass"
    assert data["lines"]["zh"][0].startswith("开局") and data["lines"]["en"][0].startswith("From the deal")
