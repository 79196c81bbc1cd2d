"""After the hand: the cards shown (亮牌), every seat's starting hand, and the deck audit.

At the end of a hand the seats that did not go out lay their remaining cards face up
(:class:`~engine.events.Shown`). Once every seat that still holds cards has shown them, the
whole deal is known: a seat's starting hand is what it played plus what it showed (the
landlord's less the kitty, which is listed apart), and the deck can be audited: the cards
played and shown together must be every card of the deck exactly ``rules.decks`` times. The
kitty is not counted again: its cards went to the landlord, who played or showed them.

>>> from engine.cards import parse_cards
>>> from engine.events import Deal, Landlord, Play, Shown
>>> from engine.events import Deal
from engine.hand import Hand
>>> from engine.rules import RuleSet
>>> tiny = RuleSet(name="tiny", hand_size=1, kitty_size=51)  # three seats, one card each
>>> h = Hand.from_events(tiny, [Deal(counts=(1, 1, 1)), Landlord(0), Play(0, tuple(parse_cards("3s")))])
>>> everyone_shown(h)
False
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from engine.cards import Card, full_deck
from engine.events import Deal
from engine.hand import Hand


@dataclass(frozen=True)
class Audit:
    """The deck audit: ``missing`` cards nobody played or showed (a dropped card), ``extra``
    cards seen more often than the decks hold them (a card of another deck, or a misread)."""

    missing: tuple[Card, ...] = ()
    extra: tuple[Card, ...] = ()
    #: Cards set aside out of play (two-player) are never seen: that many missing are expected.
    set_aside: int = 0
    ok: bool = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "ok", not self.extra and len(self.missing) <= self.set_aside)

    def to_dict(self) -> dict[str, object]:
        return {"ok": self.ok, "missing": [str(c) for c in self.missing], "extra": [str(c) for c in self.extra]}


def losers(hand: Hand) -> list[int]:
    """The seats that still hold cards after a played-out hand (they show them)."""
    if not hand.finished or hand.landlord is None or hand.abandoned or hand.redeal:
        return []
    return [s for s, n in enumerate(hand.cards_left) if n > 0]


def everyone_shown(hand: Hand) -> bool:
    """Whether the hand was played out and every seat left holding cards has shown them."""
    if not hand.finished or hand.landlord is None or hand.abandoned or hand.redeal:
        return False
    return all(s in hand.shown for s in losers(hand))


def _held(hand: Hand, seat: int) -> list[Card]:
    return sorted([c for p in hand.plays if p.seat == seat for c in p.cards] + list(hand.shown.get(seat, ())))


def starting_hands(hand: Hand) -> list[tuple[Card, ...]] | None:
    """Each seat's hand as dealt, once everyone has shown (else ``None``). The landlord's is
    less the kitty when the kitty is known (it held the kitty too); when it is not known (a
    four-player kitty nobody entered) the landlord's hand includes it."""
    if not everyone_shown(hand):
        return None
    hands = []
    for seat in range(hand.players):
        cards = Counter(_held(hand, seat))
        taken = hand.picked if hand.picked is not None else hand.kitty  # 斗帝主: only what he took
        if seat == hand.landlord and taken is not None:
            cards -= Counter(taken)
        hands.append(tuple(sorted(cards.elements())))
    return hands


def seen_cards(hand: Hand) -> list[Card]:
    """Every card the hand's record saw: played, shown, and (斗帝主) the kitty cards the landlord
    left out of play."""
    seen = [c for s in range(hand.players) for c in _held(hand, s)]
    if hand.picked is not None:
        seen += list((Counter(hand.kitty or ()) - Counter(hand.picked)).elements())
    return seen


def unseen_suited(hand: Hand, seen: list[Card]) -> Counter[Card]:
    """The cards of the deck that no suited card (or joker) of ``seen`` is."""
    return Counter(full_deck(hand.rules.decks)) - Counter(c for c in seen if c.suit is not None or c.is_joker)


def deck_audit(hand: Hand) -> Audit | None:
    """The audit of the cards played and shown against the deck, once everyone has shown (else
    ``None``). A card written without its suit (``3``) stands for a missing card of its rank."""
    if not everyone_shown(hand):
        return None
    return tally(hand, seen_cards(hand))


def tally(hand: Hand, seen: list[Card]) -> Audit:
    """``seen`` (cards of ``hand``'s deal) against the deck, as :func:`deck_audit` counts them."""
    set_aside = hand.rules.out_of_play
    deal = next((e for e in hand.events if isinstance(e, Deal)), None)
    if deal is not None:  # a short deal (a quick game) leaves the rest of the deck undealt
        set_aside += max(0, hand.rules.players * hand.rules.hand_size - sum(deal.counts))
    if hand.picked is not None and hand.kitty is None:  # 斗帝主: the kitty cards left are out of play
        set_aside += hand.rules.kitty_size - len(hand.picked)
    deck = Counter(full_deck(hand.rules.decks))
    suited = Counter(c for c in seen if c.suit is not None or c.is_joker)
    missing = unseen_suited(hand, seen)
    extra = suited - deck
    for card in (c for c in seen if c.suit is None and not c.is_joker):
        stand_in = next((m for m in sorted(missing.elements()) if m.rank == card.rank), None)
        if stand_in is None:
            extra[card] += 1
        else:
            missing[stand_in] -= 1
            missing += Counter()  # drop the zero count
    return Audit(tuple(sorted(missing.elements())), tuple(sorted(extra.elements())), set_aside)
