"""The judge's verdict on a disputed play: every reading of the cards, and whether one beats the play before.

The same verdict answers ``ddz-table judge`` and the site's ``/api/judge``. A play that names
one physical card more often than the preset's decks hold it (``3s 3s`` with one deck) is no
combination: its verdict has no readings and ``reason`` ``duplicate_card`` with the cards
named too often in ``duplicates``. Any other play with no reading has ``reason``
``not_a_combination``.

>>> judge("3s 3h", "4d", CLASSIC)["valid"], judge("3s 3h", "4d", CLASSIC)["beats"]
(True, False)
>>> v = judge("3s 3s 3s 3s", None, CLASSIC)
>>> v["valid"], v["reason"], v["duplicates"]
(False, 'duplicate_card', ['3s'])
"""

from __future__ import annotations

from engine.cards import format_cards, parse_cards, repeated_cards
from engine.classify import beats, classify
from engine.rules import CLASSIC, RuleSet

__all__ = ["JudgeError", "judge"]


class JudgeError(ValueError):
    """A question the judge cannot answer; ``reason`` says which (``no_cards``, ``after_no_cards``,
    ``after_duplicate``, ``after_not_a_combination``) for callers that word it themselves."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def judge(cards: str, after: str | None = None, rules: RuleSet = CLASSIC) -> dict[str, object]:
    """The judge's verdict as a plain dict.

    Raises ``ValueError`` on unreadable cards, and :class:`JudgeError` (a ``ValueError``) on no
    cards at all and on an ``after`` that is no combination (or names a card more often than the
    decks hold it).
    """
    played = parse_cards(cards)
    if not played:
        raise JudgeError("no_cards", "no cards to judge")
    repeated = repeated_cards(played, rules.decks)
    readings = [] if repeated else classify(played, rules)
    reading_dicts = [r.to_dict() for r in readings]
    verdict: dict[str, object] = {
        "cards": cards,
        "valid": bool(readings),
        "readings": reading_dicts,
    }
    if repeated:
        verdict["reason"] = "duplicate_card"
        verdict["duplicates"] = [str(c) for c in repeated]
        verdict["decks"] = rules.decks
    elif not readings:
        verdict["reason"] = "not_a_combination"
    if after is not None:
        before = parse_cards(after)
        if not before:
            raise JudgeError("after_no_cards", "--after names no cards")
        twice = repeated_cards(before, rules.decks)
        if twice:
            raise JudgeError("after_duplicate", f"--after {after!r} names {format_cards(twice)} more often than "
                                                 f"{rules.decks} deck(s) hold")
        previous = classify(before, rules)
        if not previous:
            raise JudgeError("after_not_a_combination", f"--after {after!r} is not a combination under {rules.name} rules")
        flags = []
        for reading, data in zip(readings, reading_dicts, strict=True):
            data["beats"] = any(beats(reading, p, rules) for p in previous)
            flags.append(data["beats"])
        verdict["after"] = after
        verdict["after_readings"] = [p.to_dict() for p in previous]
        verdict["beats"] = any(flags)
    return verdict
