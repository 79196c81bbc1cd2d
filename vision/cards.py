"""Card classes as the detector sees them.

The vision package knows nothing of the rules, so it keeps its own list of the 54 card
ids in rank order (3 low ... 2 high, then the small and big joker). Ids use the card text
of docs/architecture.md: ranks ``3..10 J Q K A 2``, suits ``s h d c``, jokers ``BJ`` and ``RJ``.
"""

from __future__ import annotations

RANKS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
SUITS = ("s", "h", "d", "c")
JOKERS = ("BJ", "RJ")

#: The 54 card ids, class index order for every model in ``models/``.
CARD_IDS: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS) + JOKERS
CARD_INDEX: dict[str, int] = {c: i for i, c in enumerate(CARD_IDS)}


def split_card(card: str) -> tuple[str, str]:
    """Rank and suit of a card id; jokers have the empty suit.

    >>> split_card("10h"), split_card("BJ")
    (('10', 'h'), ('BJ', ''))
    """
    if card in JOKERS:
        return card, ""
    if card not in CARD_INDEX:
        raise ValueError(f"unknown card id {card!r}")
    return card[:-1], card[-1]


#: Suit symbols and the jokers' Chinese names, as a Chinese table writes cards (黑桃3 is ♠3).
SUIT_SYMBOLS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
JOKER_NAMES = {"BJ": "小王", "RJ": "大王"}


def card_label(card: str) -> str:
    """How a player writes the card: suit symbol then rank, or the joker's Chinese name.

    >>> card_label("10h"), card_label("Qs"), card_label("RJ")
    ('♥10', '♠Q', '大王')
    """
    rank, suit = split_card(card)
    return JOKER_NAMES[card] if card in JOKERS else SUIT_SYMBOLS[suit] + rank
