"""Cards, ranks and card text.

A card is a rank and, when known, a suit. Ranks run ``3 4 5 6 7 8 9 10 J Q K A 2 BJ RJ``
(BJ = 小王 small/black joker, RJ = 大王 big/red joker); suits are ``s h d c`` and never
change a card's rank. Text written by players may omit suits (``333 4``): such cards have
``suit=None`` and still classify, but cannot be checked for duplicates.

>>> parse_cards("10h Th qs 小王")
[Card('10h'), Card('10h'), Card('Qs'), Card('BJ')]
>>> format_cards(parse_cards("3,3,3,4"))
'3 3 3 4'
>>> [c.label for c in parse_cards("10h 3s BJ")]
['♥10', '♠3', '小王']
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from engine.words import card_name

RANK_TEXT: tuple[str, ...] = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "BJ", "RJ")
SUITS: tuple[str, ...] = ("s", "h", "d", "c")

# Rank values: index into RANK_TEXT. Named ones the rules talk about.
THREE, ACE, TWO, BJ, RJ = 0, 11, 12, 13, 14
RANK_VALUE: dict[str, int] = {t: i for i, t in enumerate(RANK_TEXT)}

#: How a card is shown to people: a suit as its symbol, a joker by its Chinese name (:mod:`engine.words`).
SUIT_SYMBOLS: dict[str, str] = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
JOKER_NAMES: dict[str, str] = {j: card_name(j, "zh") for j in ("BJ", "RJ")}

_SUIT_ORDER: dict[str | None, int] = {s: i for i, s in enumerate(SUITS)}
_RANK_ALIASES = {"T": "10"}
_JOKER_WORDS = {"BJ": BJ, "RJ": RJ, JOKER_NAMES["BJ"]: BJ, JOKER_NAMES["RJ"]: RJ, "小鬼": BJ, "大鬼": RJ}
_SUIT_SYMBOLS = {"♠": "s", "♥": "h", "♦": "d", "♣": "c", "♤": "s", "♡": "h", "♢": "d", "♧": "c"}
_SEPARATORS = re.compile(r"[\s,，、;；+/|]+")
_TOKEN = re.compile(
    "(?P<joker>" + "|".join(_JOKER_WORDS) + ")"
    + r"|(?P<rank>10|[2-9]|[TJQKA])(?P<suit>[SHDC♠♥♦♣♤♡♢♧])?",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Card:
    """One physical card. Ordered by rank, then suit (``s h d c``, unknown last)."""

    rank: int
    suit: str | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.rank <= RJ:
            raise ValueError(f"rank value out of range: {self.rank!r}")
        if self.rank >= BJ:
            if self.suit is not None:
                raise ValueError("jokers have no suit")
        elif self.suit is not None and self.suit not in SUITS:
            raise ValueError(f"unknown suit {self.suit!r}")

    def sort_key(self) -> tuple[int, int]:
        return self.rank, _SUIT_ORDER.get(self.suit, 4)

    def __lt__(self, other: Card) -> bool:
        return self.sort_key() < other.sort_key()

    def __le__(self, other: Card) -> bool:
        return self.sort_key() <= other.sort_key()

    def __gt__(self, other: Card) -> bool:
        return self.sort_key() > other.sort_key()

    def __ge__(self, other: Card) -> bool:
        return self.sort_key() >= other.sort_key()

    @classmethod
    def parse(cls, text: str) -> Card:
        cards = parse_cards(text)
        if len(cards) != 1:
            raise ValueError(f"expected one card, got {len(cards)} in {text!r}")
        return cards[0]

    @property
    def rank_text(self) -> str:
        return RANK_TEXT[self.rank]

    @property
    def is_joker(self) -> bool:
        return self.rank >= BJ

    @property
    def suit_symbol(self) -> str:
        """The suit as people see it (``♠♥♦♣``); empty for jokers and rank-only cards."""
        return SUIT_SYMBOLS.get(self.suit or "", "")

    @property
    def label(self) -> str:
        """The card as printed on it: ``♠3``, ``♥10``, ``小王``; a rank-only card is its rank."""
        if self.is_joker:
            return JOKER_NAMES[self.rank_text]
        return self.suit_symbol + self.rank_text

    def __str__(self) -> str:
        return RANK_TEXT[self.rank] + (self.suit or "")

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


def _bad_token(text: str, pos: int) -> str:
    """The whitespace-delimited token of ``text`` that contains position ``pos``."""
    start = pos
    while start > 0 and not _SEPARATORS.match(text[start - 1]):
        start -= 1
    match = _SEPARATORS.search(text, pos)
    end = match.start() if match else len(text)
    return text[start:end]


def parse_cards(text: str) -> list[Card]:
    """Parse card text into cards, in the order written.

    Accepts ``10h``/``Th``, any case, suit symbols, 小王/大王, and rank-only runs such as
    ``333 4`` or ``3,3,3,4``. Raises ``ValueError`` naming the first token it cannot read.
    """
    if not isinstance(text, str):
        raise TypeError(f"card text must be a string, not {type(text).__name__}")
    cards: list[Card] = []
    pos = 0
    while pos < len(text):
        sep = _SEPARATORS.match(text, pos)
        if sep:
            pos = sep.end()
            continue
        match = _TOKEN.match(text, pos)
        if not match:
            raise ValueError(f"cannot read card {_bad_token(text, pos)!r} in {text!r}")
        if match.group("joker"):
            cards.append(Card(_JOKER_WORDS[match.group("joker").upper()]))
        else:
            rank = match.group("rank").upper()
            rank = _RANK_ALIASES.get(rank, rank)
            suit = match.group("suit")
            if suit is not None:
                suit = _SUIT_SYMBOLS.get(suit, suit.lower())
            cards.append(Card(RANK_VALUE[rank], suit))
        pos = match.end()
    return cards


def format_cards(cards: Iterable[Card]) -> str:
    """Card text that :func:`parse_cards` reads back to the same cards."""
    return " ".join(str(c) for c in cards)


def as_cards(cards: str | Iterable[Card]) -> list[Card]:
    """Accept card text or cards; the engine's public functions take either."""
    return parse_cards(cards) if isinstance(cards, str) else list(cards)


def full_deck(decks: int = 1) -> list[Card]:
    """Every card of ``decks`` standard 54-card decks, in rank order."""
    if decks < 1:
        raise ValueError("a game needs at least one deck")
    one = [Card(r, s) for r in range(TWO + 1) for s in SUITS] + [Card(BJ), Card(RJ)]
    return sorted(one * decks)


def repeated_cards(cards: Iterable[Card], decks: int = 1) -> list[Card]:
    """Physical cards named more often than ``decks`` decks hold them, once each, in rank order.

    Only cards that can be told apart count: suited cards and jokers. A rank-only card (``3``)
    may be any suit, so ``3 3 3 3`` repeats nothing, while ``3s 3s`` repeats ``3s`` in a
    one-deck game.

    >>> repeated_cards(parse_cards("3s 3s 3h BJ BJ"))
    [Card('3s'), Card('BJ')]
    >>> repeated_cards(parse_cards("3s 3s"), decks=2)
    []
    """
    counts: dict[Card, int] = {}
    for card in cards:
        if card.suit is not None or card.is_joker:
            counts[card] = counts.get(card, 0) + 1
    return sorted(card for card, n in counts.items() if n > decks)


def rank_counts(cards: Iterable[Card]) -> list[int]:
    """How many cards of each rank value (a list of 15 counts)."""
    counts = [0] * (RJ + 1)
    for card in cards:
        counts[card.rank] += 1
    return counts
