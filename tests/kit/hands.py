"""Short scripted hands the tests share: each a few events of the engine, no randomness."""

from __future__ import annotations

from engine.cards import parse_cards
from engine.events import Bid, Deal, Event, Kitty, Landlord, Pass, Play
from engine.hand import Hand
from engine.match import HandRecord, Match


def cards(text: str) -> tuple:
    return tuple(parse_cards(text))


def tiny_hand() -> Hand:
    """Two plays: the landlord leads from a short deal and a farmer goes out (anti-spring x2)."""
    return Hand.from_events("classic", [Deal(counts=(2, 2, 2)), Bid(0, "bid", 3), Kitty(cards("As 7d 7c")),
                                        Play(0, cards("3s 3h")), Play(1, cards("5s 5h"))])


def short_hand() -> Hand:
    """A hand dealt short so it ends in ten actions: kitty shown and played from, a bomb
    beside an earlier pair, a trick swept after two passes, the farmers going out."""
    events = [Deal(counts=(2, 7, 3)), Bid(0, "bid", 3), Kitty(cards("7d 7c As")),
              Play(0, cards("3s 3h")), Play(1, cards("5s 5h")), Pass(2), Play(0, cards("7d 7c")),
              Play(1, cards("Js Jh Jd Jc")), Pass(2), Pass(0), Play(1, cards("4d"))]
    return Hand.from_events("classic", events)


def actions(hand: Hand) -> list[tuple[int, str, list[str]]]:
    """The hand's plays and passes in order: (seat, "play" or "pass", sorted card texts)."""
    out = []
    for e in hand.events:
        if isinstance(e, Play):
            out.append((e.seat, "play", sorted(str(c) for c in e.cards)))
        elif isinstance(e, Pass):
            out.append((e.seat, "pass", []))
    return out


def quick_hand(match: Match, landlord: int, landlord_wins: bool, base: int = 1, bombs: int = 0) -> HandRecord:
    """A short scripted hand (two cards each, the kitty makes the landlord's five); no spring."""
    n = match.n
    f1, f2 = (landlord + 1) % n, (landlord + 2) % n
    events = [Deal(counts=(2,) * n, first_bidder=match.next_first_bidder()), Landlord(landlord, base)]
    if landlord_wins:
        events += [Play(landlord, cards("3s")), Play(f1, cards("4s")), Pass(f2)]
        events += [Play(landlord, cards("6s 6h 6d 6c"))] if bombs else [
            Play(landlord, cards("2s")), Pass(f1), Pass(f2), Play(landlord, cards("5s 5h 5d"))]
    else:
        events += [Play(landlord, cards("3s")), Pass(f1), Pass(f2), Play(landlord, cards("7s")), Play(f1, cards("8s")),
                   Pass(f2), Pass(landlord), Play(f1, cards("9s"))]
    hand = Hand.from_events(match.rules, events)
    assert hand.finished
    return HandRecord.of(hand)


def redeal(match: Match) -> HandRecord:
    """A full deal that everyone passes: the match's next first bidder opens, nobody bids."""
    first = match.next_first_bidder()
    events: list[Event] = [Deal(counts=(17,) * match.n, first_bidder=first)]
    events += [Bid((first + i) % match.n, "pass") for i in range(match.n)]
    return HandRecord(tuple(events))
