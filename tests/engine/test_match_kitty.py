"""A kitty recorded late (the landlord already played from it) is no duplicate; a kitty card
a farmer played still is, and so is the landlord playing a kitty card twice."""

from __future__ import annotations

import pytest

from engine.cards import parse_cards
from engine.events import Deal, Kitty, Landlord, Pass, Play
from engine.hand import Hand
from engine.match import Match
from engine.violations import HandViolation, identity


def C(text: str) -> tuple:
    return tuple(parse_cards(text))


def started(*plays) -> Hand:
    return Hand.from_events("classic", [Deal(counts=(2, 2, 2)), Landlord(0, 2), *plays])


def test_a_kitty_shown_after_the_landlord_played_one_of_its_cards_is_accepted():
    hand = started(Play(0, C("As")), Pass(1), Pass(2))
    assert hand.check(Kitty(C("As 7d 7c"))) is None
    hand.apply(Kitty(C("As 7d 7c")))
    assert hand.kitty == C("As 7d 7c")
    # the As is spent: the landlord still holds the two sevens from the kitty, not the ace
    assert dict(hand.kitty_unplayed) == {identity(c): 1 for c in C("7d 7c")}
    hand.apply(Play(0, C("7d 7c")))  # the landlord's kitty cards are his own to play
    with pytest.raises(HandViolation, match="duplicate_card"):
        hand.apply(Play(1, C("As")))  # ...but the ace was played already


def test_a_late_kitty_card_a_farmer_played_is_still_a_duplicate():
    hand = started(Play(0, C("3s")), Play(1, C("As")))
    violation = hand.check(Kitty(C("As 7d 7c")))
    assert violation is not None and violation.kind == "duplicate_card" and "As" in violation.message


def test_a_late_kitty_refolds_the_same_and_the_hand_joins_a_match():
    events = [Deal(counts=(2, 2, 2)), Landlord(0, 2), Play(0, C("As")), Pass(1), Pass(2),
              Kitty(C("As 7d 7c")), Play(0, C("7d 7c")), Pass(1), Pass(2), Play(0, C("Ks")),
              Pass(1), Pass(2), Play(0, C("3s"))]
    hand = Hand.from_events("classic", events)
    assert hand.finished and hand.result().landlord_won and hand.result().spring
    assert Hand.from_events("classic", hand.log) == hand
    match = Match("classic", ("A", "B", "C"))
    assert match.add_hand(hand).points == (8, -4, -4)  # base 2, spring x2


def test_known_hands_lose_the_cards_played_before_a_late_kitty():
    hands = (C("3s 4s"), C("5s 6s"), C("8s 9s"))
    deal = Deal(counts=(2, 2, 2), hands=hands)
    hand = Hand.from_events("classic", [deal, Landlord(0, 1), Play(0, C("Ah")), Pass(1), Pass(2),
                                        Kitty(C("Ah Kh Qh"))])
    assert sorted(map(str, hand.known[0])) == sorted(["3s", "4s", "Kh", "Qh"])
    violation = hand.check(Play(0, C("Ah")))
    assert violation is not None and violation.kind in ("duplicate_card", "not_held")
