"""A scripted demonstration: two classic hands replayed through the engine, then the sheet.

Hand 1 is docs/rules.md's worked example: bid 3, two bombs and a rocket played (x8), the landlord
wins 24 from each farmer. Hand 2 is a spring (春天): the landlord goes out before either
farmer plays a card. On the way the referee refuses an out-of-turn play and a play that does
not beat. Run: ``python -m sim.scripted`` (``make demo`` until the camera pipeline exists).
"""

from __future__ import annotations

import random
import sys

from engine.cards import Card, full_deck, parse_cards
from engine.events import Bid, Deal, Event, Kitty, Pass, Play
from engine.hand import Hand
from engine.match import Match
from engine.record import RecordedHand, dumps
from engine.record_text import csv_sheet, render_hand, render_match
from engine.rules import RuleSet, get_rules

PLAYERS = ("张三 Zhang", "李四 Li", "王五 Wang")


def _cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text))


def _deal(landlord: int, landlord_cards: str, kitty: str, must_hold: dict[int, str]) -> list[tuple[Card, ...]]:
    """Known hands: the landlord's 17 (his 20 less the kitty), the named cards, the rest in order."""
    taken = set(_cards(landlord_cards))
    hands: list[list[Card]] = [[], [], []]
    hands[landlord] = [c for c in _cards(landlord_cards) if c not in set(_cards(kitty))]
    for seat, text in must_hold.items():
        hands[seat] = list(_cards(text))
        taken |= set(hands[seat])
    rest = [c for c in full_deck() if c not in taken]
    for seat in range(3):
        while len(hands[seat]) < 17:
            hands[seat].append(rest.pop(0))
    return [tuple(sorted(h)) for h in hands]


def _p(seat: int, text: str, t: float) -> Play:
    return Play(seat, _cards(text), time=t)


def hand_one(match: Match) -> list[Event]:
    landlord_cards = "3s 3h 3d 4s 5s 6s 7s 8s 9s 10s 10h 10d 10c Js Jh Jd Jc Qs BJ RJ"
    kitty = "Qs BJ RJ"
    hands = _deal(2, landlord_cards, kitty, {0: "5h 5d 5c 6h 2s"})
    hand = match.new_hand(hands=hands, kitty=_cards(kitty), time=0)
    return hand.log + [
        Bid(0, "pass", time=5), Bid(1, "bid", 1, time=9), Bid(2, "bid", 3, time=14), Kitty(_cards(kitty), time=20),
        _p(2, "3s 3h 3d 4s", 31), _p(0, "5h 5d 5c 6h", 40), Pass(1, time=44),
        _p(2, "10s 10h 10d 10c", 52), Pass(0, time=55), Pass(1, time=58),
        _p(2, "5s 6s 7s 8s 9s", 66), Pass(0, time=70), Pass(1, time=72),
        _p(2, "Js Jh Jd Jc", 80), Pass(0, time=83), Pass(1, time=85),
        _p(2, "Qs", 90), _p(0, "2s", 95), Pass(1, time=97),
        _p(2, "BJ RJ", 104),
    ]


def hand_two(match: Match) -> list[Event]:
    landlord_cards = "4s 4h 4d 5s 6s 7s 8s 9s 10s Js Jh Qs Qh Ks Kh As Ah Ad 2s 2h"
    kitty = "2s 2h Kh"
    hands = _deal(0, landlord_cards, kitty, {})
    hand = match.new_hand(hands=hands, kitty=_cards(kitty), time=0)
    return hand.log + [
        Bid(1, "bid", 1, time=4), Bid(2, "pass", time=7), Bid(0, "bid", 2, time=11), Kitty(_cards(kitty), time=15),
        _p(0, "4s 4h 4d 5s", 22), Pass(1, time=25), Pass(2, time=27),
        _p(0, "6s 7s 8s 9s 10s", 35), Pass(1, time=38), Pass(2, time=40),
        _p(0, "Js Jh Qs Qh Ks Kh", 48), Pass(1, time=51), Pass(2, time=53),
        _p(0, "As Ah Ad 2s 2h", 60),
    ]


def random_hand(rules: RuleSet | str = "classic", seed: int | random.Random = 0, first_bidder: int = 0,
                pass_chance: float = 0.3) -> Hand:
    """A random but legal self-play hand with known cards (tests, the synthetic table).

    Bids and plays are drawn uniformly from the legal choices; a follower passes with
    ``pass_chance`` even when it could play. The hand may end in a redeal.
    """
    from engine.legal import legal_plays

    rules = get_rules(rules)
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    deck = full_deck(rules.decks)
    rng.shuffle(deck)
    size = rules.hand_size
    hands = tuple(tuple(sorted(deck[i * size:(i + 1) * size])) for i in range(rules.players))
    kitty = tuple(deck[rules.players * size:rules.players * size + rules.kitty_size])
    hand = Hand(rules)
    hand.apply(Deal(counts=(size,) * rules.players, first_bidder=first_bidder, hands=hands, kitty=kitty, time=0.0))
    clock = 0.0
    if rules.bidding == "marker":  # five players: the marker card names the landlord
        from sim.bots import open_marker

        hand.apply(open_marker(hand, rng, time=0.0))
    while hand.phase == "bidding":
        assert hand.bidding is not None and hand.bidding.to_act is not None
        clock += rng.uniform(1, 5)
        action, value = rng.choice(hand.bidding.legal())
        hand.apply(Bid(hand.bidding.to_act, action, value, time=round(clock, 1)))
    if hand.finished:
        return hand
    hand.apply(Kitty(kitty, time=round(clock + 2, 1)))
    if rules.kitty_choice:  # 斗帝主: the landlord takes any of the kitty
        from engine.events import KittyPick

        assert hand.landlord is not None  # the bidding named him
        hand.apply(KittyPick(hand.landlord, tuple(c for c in kitty if rng.random() < 0.5)))
    while not hand.finished:
        seat = hand.turn
        assert seat is not None and hand.known is not None
        clock += rng.uniform(1, 9)
        t = round(clock, 1)
        if hand.current and rng.random() < pass_chance:
            hand.apply(Pass(seat, time=t))
            continue
        options: list = []
        for prev in hand.current or (None,):
            options.extend(legal_plays(hand.known[seat], prev, rules))
        if not options:
            hand.apply(Pass(seat, time=t))
            continue
        hand.apply(Play(seat, rng.choice(options).cards, time=t))
    return hand


def build() -> tuple[Match, list[RecordedHand], list[str]]:
    """The demonstration match, its two hand records, and the referee's refusals on the way."""
    match = Match("classic", PLAYERS, name="演示 Demo")
    records: list[RecordedHand] = []
    refusals: list[str] = []
    for script in (hand_one, hand_two):
        events = script(match)
        hand = Hand(match.rules)
        for event in events:
            hand.apply(event)
            if not records and len(hand.plays) == 1 and not refusals:
                # Zhang (seat 0) is to follow the landlord's 333+4; the referee checks attempts.
                for attempt in (Play(1, _cards("2s")), Play(0, _cards("2s")), Play(0, _cards("5h 6h"))):
                    refusals.append(str(hand.check(attempt)))
        match.add_hand(hand)
        records.append(RecordedHand.of(hand, PLAYERS))
    return match, records, refusals


def main(argv: list[str] | None = None) -> int:
    match, records, refusals = build()
    for lang in ("zh", "en"):
        for record in records:
            print(render_hand(record, lang))
        print(render_match(match, lang))
    print("Referee refusals / 裁判拒绝:")
    for line in refusals:
        print("  " + line)
    print("\nScore sheet (CSV):")
    print(csv_sheet(match))
    if argv and "--json" in argv:
        print(dumps(match))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
