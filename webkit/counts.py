"""How a match's hands stand, counted once for both sites: the box's pages and the club's.

A hand is ``finished`` (it has a result; a redeal, nobody bidding, is one), ``void`` (作废: the
referee abandoned it, or ended the match before it was finished, so it scores nothing) or
``in_play``. Every page says the count in the same words (:func:`hands_line`, words in
:data:`webkit.words.KIT`): 已完成 3 局 · 作废 1 局 · 第 5 局进行中.

>>> from engine.events import Bid, Deal, End
>>> from engine.hand import Hand
>>> played = Hand.from_events("classic", [Deal(counts=(17, 17, 17)), Bid(0, "bid", 1), End(abandoned=True)])
>>> going = Hand.from_events("classic", [Deal(counts=(17, 17, 17)), Bid(0, "bid", 2)])
>>> counts = hand_counts([(1, played), (2, going)], ended=False)
>>> counts, hands_line(counts, "zh"), hands_line(hand_counts([(1, played), (2, going)], ended=True), "en")
({'finished': 0, 'void': 1, 'in_play': 2}, '已完成 0 局 · 作废 1 局 · 第 2 局进行中', '0 hands finished · 2 void')
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.hand import Hand
from engine.words import Words
from webkit.words import KIT

#: The standings of a hand, each said once.
STANDINGS = ("finished", "void", "in_play")


def hand_standing(hand: Hand, ended: bool) -> str:
    """Where ``hand`` stands (one of :data:`STANDINGS`); ``ended``: the referee ended its match."""
    if hand.abandoned:
        return "void"
    if hand.finished:
        return "finished"
    return "void" if ended else "in_play"


def hand_counts(hands: Iterable[tuple[int, Hand | None]], ended: bool) -> dict[str, Any]:
    """``finished`` and ``void`` (how many) and ``in_play`` (the number of the hand being played,
    or ``None``) over a match's ``(number, hand)`` pairs; a hand with no event yet is not counted."""
    counts: dict[str, Any] = {"finished": 0, "void": 0, "in_play": None}
    for number, hand in hands:
        if hand is None or not hand.events:
            continue
        standing = hand_standing(hand, ended)
        if standing == "in_play":
            counts["in_play"] = number
        else:
            counts[standing] += 1
    return counts


def counted(key: str, n: int, lang: str, words: Words = KIT, **fmt: object) -> str:
    """``key`` said of ``n`` things in ``words`` (a site's table, or the kit's): the ``key_1`` form
    for one (English: 1 hand, 2 hands)."""
    return words(f"{key}_1" if n == 1 and f"{key}_1" in words else key, lang, n=n, **fmt)


def hands_line(counts: dict[str, Any], lang: str) -> str:
    """The counts as every page says them: 已完成 3 局 · 作废 1 局 · 第 5 局进行中 (void and in
    play only when there are any)."""
    parts = [counted("finished_hands", counts["finished"], lang)]
    if counts.get("void"):
        parts.append(counted("void_hands", counts["void"], lang))
    if counts.get("in_play") is not None:
        parts.append(KIT("hand_in_play", lang, n=counts["in_play"]))
    return " · ".join(parts)
