"""The value a reading of some cards produces: a ``Combination`` (牌型).

``classify`` (in :mod:`engine.classify`) returns every reading of a set of cards as a list
of these; ``beats`` compares two of them. A combination prints and serialises losslessly.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cards import RANK_TEXT, RANK_VALUE, Card, format_cards, parse_cards
from engine.words import type_name  # noqa: F401  (a type's words live in engine.words; callers name one from here)

#: Type names, exactly as records, the CLI and other checks spell them.
TYPES: tuple[str, ...] = (
    "single", "pair", "trio", "trio_single", "trio_pair", "straight", "pair_straight",
    "airplane", "airplane_single", "airplane_pair", "bomb", "rocket",
    "four_two_single", "four_two_pair",
    # 斗帝主's quad family (engine.quad_kinds) and the five-player joker bombs.
    "quad", "quad_chain", "quad_trio", "carrier", "dress", "spaceship", "double_joker", "triple_joker",
)
#: Types that beat every ordinary combination (a rule set's bomb order ranks them).
BOMB_TYPES: frozenset[str] = frozenset({"bomb", "rocket", "double_joker", "triple_joker"})


@dataclass(frozen=True, slots=True)
class Combination:
    """One reading of a play.

    ``main`` is the rank value of the LOWEST rank of the core (the trio or four rank, the
    lowest trio of an airplane, the lowest card of a chain). ``length`` is cards in a
    straight, pairs in a pair chain, trios in an airplane, quads in a quad chain, carrier or
    spaceship, cards in a bomb, joker bomb or rocket, and 1 otherwise. A spaceship's core holds
    its quads and its trios (both chains count when it is compared). ``core`` and ``kickers`` are sorted and together are exactly the cards played.
    """

    type: str
    main: int
    length: int
    core: tuple[Card, ...]
    kickers: tuple[Card, ...] = ()

    @property
    def cards(self) -> tuple[Card, ...]:
        return self.core + self.kickers

    @property
    def size(self) -> int:
        return len(self.core) + len(self.kickers)

    @property
    def is_bomb(self) -> bool:
        """Bombs, joker bombs and rockets beat every ordinary combination."""
        return self.type in BOMB_TYPES

    @property
    def main_text(self) -> str:
        return RANK_TEXT[self.main]

    def to_dict(self) -> dict[str, object]:
        return {
            "type": self.type,
            "main": self.main_text,
            "length": self.length,
            "core": format_cards(self.core),
            "kickers": format_cards(self.kickers),
        }

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Combination:
        try:
            kind = str(data["type"])
            if kind not in TYPES:
                raise ValueError(f"unknown combination type {kind!r}")
            return cls(
                type=kind,
                main=RANK_VALUE[str(data["main"])],
                length=int(data["length"]),  # type: ignore[call-overload]  # int() checks the record's value
                core=tuple(parse_cards(str(data["core"]))),
                kickers=tuple(parse_cards(str(data.get("kickers", "")))),
            )
        except KeyError as exc:
            raise ValueError(f"combination record lacks or misspells {exc}") from None

    def __str__(self) -> str:
        text = format_cards(self.core)
        if self.kickers:
            text += " + " + format_cards(self.kickers)
        return f"{self.type}({text})"
