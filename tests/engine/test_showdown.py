"""Cards shown after the hand (亮牌): the event, the starting hands and deck audit in the
hand record (JSON and text)."""

from __future__ import annotations

import random

import pytest

from engine.cards import format_cards, full_deck, parse_cards
from engine.events import Deal, Landlord, Pass, Play, Shown, event_from_dict
from engine.hand import Hand
from engine.record import RecordedHand, dump, load
from engine.record_text import cards_text, render_hand
from engine.showdown import deck_audit, starting_hands
from engine.violations import HandViolation

C = parse_cards


def played_out(seed=5):
    """A classic hand dealt in full; seat 0 is landlord and plays single cards until it is out."""
    cards = full_deck()
    random.Random(seed).shuffle(cards)
    hands = [tuple(sorted(cards[i * 17:(i + 1) * 17])) for i in range(3)]
    kitty = tuple(sorted(cards[51:]))
    events = [Deal(counts=(17, 17, 17), hands=hands, kitty=kitty), Landlord(0)]
    for card in hands[0] + kitty:
        events += [Play(0, (card,)), Pass(1), Pass(2)]
    events = events[:-2]  # the last single wins the hand: nobody passes after it
    return events, hands, kitty


def test_shown_round_trips_and_needs_cards():
    e = Shown(2, tuple(C("3s BJ")), time=4.0)
    assert event_from_dict(e.to_dict()) == e and e.to_dict()["cards"] == "3s BJ"
    with pytest.raises(ValueError):
        Shown(1, ())


def test_cards_are_shown_only_after_the_hand_by_a_seat_holding_some():
    events, hands, _ = played_out()
    with pytest.raises(HandViolation, match="hand_not_over"):
        Hand.from_events("classic", events[:5] + [Shown(1, hands[1])])
    with pytest.raises(HandViolation, match="no_cards_left"):
        Hand.from_events("classic", events + [Shown(0, tuple(C("3s")))])
    hand = Hand.from_events("classic", events + [Shown(1, hands[1][:3]), Shown(1, hands[1])])
    assert hand.shown == {1: hands[1]}  # the later show of a seat takes the earlier one's place


def test_record_json_has_starting_hands_and_audit_once_everyone_showed():
    events, hands, kitty = played_out()
    half = RecordedHand("classic", ("甲", "乙", "丙"), tuple(events + [Shown(1, hands[1])]))
    summary = dump(half)["summary"]
    assert summary["shown"] == {"1": format_cards(hands[1])} and "starting_hands" not in summary
    full = RecordedHand("classic", ("甲", "乙", "丙"), tuple(events + [Shown(1, hands[1]), Shown(2, hands[2])]))
    summary = dump(full)["summary"]
    assert summary["starting_hands"] == [format_cards(h) for h in hands]
    assert summary["audit"] == {"ok": True, "missing": [], "extra": []}
    assert load(dump(full)) == full


def test_text_record_lists_each_seats_starting_hand_and_the_audit():
    events, hands, _ = played_out()
    dropped = hands[2][0]
    record = RecordedHand("classic", ("甲", "乙", "丙"), tuple(events + [Shown(1, hands[1]), Shown(2, hands[2][1:])]))
    zh = render_hand(record, "zh")
    assert f"起手牌 乙: {cards_text(hands[1])}" in zh and f"起手牌 甲: {cards_text(hands[0])}" in zh
    assert f"查牌: 缺 {cards_text([dropped])}" in zh and f"乙: 亮牌 {cards_text(hands[1])}" in zh
    en = render_hand(record, "en")
    assert f"starting hand 丙: {cards_text(hands[2][1:], 'en')}" in en
    assert f"Deck audit: missing {cards_text([dropped], 'en')}" in en
    whole = RecordedHand("classic", ("A", "B", "C"), tuple(events + [Shown(1, hands[1]), Shown(2, hands[2])]))
    assert "Deck audit: every card accounted for" in render_hand(whole, "en")
    assert "起手牌" not in render_hand(RecordedHand("classic", ("A", "B", "C"), tuple(events)), "zh")


def test_a_card_written_without_its_suit_stands_for_a_missing_card_of_its_rank():
    events, hands, _ = played_out()
    seat2 = list(hands[2])
    plain = seat2.pop(0)
    seat2.append(parse_cards(plain.rank_text)[0] if not plain.is_joker else plain)
    hand = Hand.from_events("classic", events + [Shown(1, hands[1]), Shown(2, tuple(seat2))])
    assert deck_audit(hand).ok
    assert starting_hands(hand) is not None
