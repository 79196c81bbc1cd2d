"""The judge's verdict on a disputed play: every reading of the cards, and whether one beats the play before.

The same verdict answers ``ddz-table judge`` and the site's ``/api/judge``.

>>> judge("3s 3h", "4d", CLASSIC)["valid"], judge("3s 3h", "4d", CLASSIC)["beats"]
(True, False)
"""

from __future__ import annotations

from engine.classify import beats, classify
from engine.rules import RuleSet

__all__ = ["judge"]


def judge(cards: str, after: str | None, rules: RuleSet) -> dict[str, object]:
    """The judge's verdict as a plain dict (raises ``ValueError`` on unreadable cards)."""
    readings = classify(cards, rules)
    verdict: dict[str, object] = {
        "cards": cards,
        "valid": bool(readings),
        "readings": [r.to_dict() for r in readings],
    }
    if after is not None:
        previous = classify(after, rules)
        if not previous:
            raise ValueError(f"--after {after!r} is not a combination under {rules.name} rules")
        flags = []
        for reading, data in zip(readings, verdict["readings"], strict=True):  # type: ignore[call-overload]
            data["beats"] = any(beats(reading, p, rules) for p in previous)
            flags.append(data["beats"])
        verdict["after"] = after
        verdict["after_readings"] = [p.to_dict() for p in previous]
        verdict["beats"] = any(flags)
    return verdict
