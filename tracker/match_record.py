"""Records of what the tracker saw, with the plain keys other checks read.

``match_record(state)`` is the engine's match record (``engine.record.dump``: readable back
with ``engine.record.load``) whose hands also carry ``landlord``, ``bid``, ``actions``
(``{"seat", "kind": "play"|"pass", "cards": [...]}`` in order) and ``result``
(``{"winner": "landlord"|"farmers"|None, "multiplier", "points"}``); after a hand whose losers
showed their cards, also ``shown``, ``starting_hands`` and the deck ``audit``
(``engine.record.showdown_keys``).
"""

from __future__ import annotations

from typing import Any

from engine.events import Deal, Pass
from engine.hand import Hand
from engine.record import dump, showdown_keys
from engine.scoring import settle


def hand_keys(hand: Hand) -> dict[str, Any]:
    """The plain summary of one folded hand."""
    play_at = {p.index: p for p in hand.plays}
    actions: list[dict[str, Any]] = []
    for i, event in enumerate(hand.events):
        if i in play_at:
            p = play_at[i]
            actions.append({"seat": p.seat, "kind": "play", "cards": [str(c) for c in p.cards], "time": p.time})
        elif isinstance(event, Pass):
            actions.append({"seat": event.seat, "kind": "pass", "cards": [], "time": event.time})
    s = settle(hand)
    result = hand.result()
    winner = None if result.landlord_won is None else ("landlord" if result.landlord_won else "farmers")
    deal = next((e for e in hand.events if isinstance(e, Deal)), None)
    return {"landlord": hand.landlord, "bid": hand.base, "actions": actions,
            "counts": None if deal is None else list(deal.counts),
            "kitty": None if hand.kitty is None else [str(c) for c in hand.kitty],
            "result": {"winner": winner, "multiplier": s.multiplier, "points": list(s.points),
                       "outcome": s.outcome}, **showdown_keys(hand)}


def match_record(state: Any, finished_only: bool = True) -> dict[str, Any]:
    """The match of a :class:`tracker.state.TableState` as a record dict (see the module doc)."""
    match = state.match
    data = dump(match)
    folded = [h for n in state.hand_numbers if (h := state.hand_of(n)) is not None
              and (h.finished or not finished_only)]
    if not finished_only:
        from engine.match import HandRecord

        data["hands"] = [{"started": None, "note": "" if h.finished else "unfinished",
                          "events": [e.to_dict() for e in HandRecord(tuple(h.log)).events]} for h in folded]
    for entry, hand in zip(data["hands"], folded, strict=True):
        entry.update(hand_keys(hand))
    data["alerts"] = {str(n): [a.to_dict() for a in alerts] for n, alerts in state.all_alerts.items()}
    return data
