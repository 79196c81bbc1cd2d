"""Compare what the tracker read with the truth, hand by hand (tests and ``bench/tracker.py``).

Both sides are records with the plain hand keys of :mod:`tracker.export` (``landlord``,
``bid``, ``actions``, ``result``); ``truth.json`` of the synthetic table has the same keys.
Plays are aligned in order by (seat, cards): a play in both is exact, one only read is a
phantom, one only in the truth is missed. Passes are not compared (they are inferred).

>>> t = {"hands": [{"landlord": 0, "actions": [{"seat": 0, "kind": "play", "cards": ["3s"]}],
...                 "result": {"points": [2, -1, -1]}}]}
>>> c = compare_records(t, t)
>>> c.exact, c.phantom, c.missed, c.hands_exact_points
(1, 0, 0, 1)
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Comparison:
    hands: int = 0
    plays: int = 0  # plays in the truth
    exact: int = 0
    phantom: int = 0
    missed: int = 0
    hands_exact_points: int = 0
    landlord_right: int = 0
    delays: list[float] = field(default_factory=list)  # read time - true time of exact plays

    @property
    def exact_share(self) -> float:
        return self.exact / self.plays if self.plays else 1.0

    @property
    def points_share(self) -> float:
        return self.hands_exact_points / self.hands if self.hands else 1.0

    def to_dict(self) -> dict[str, Any]:
        d = sorted(self.delays)
        return {"hands": self.hands, "plays": self.plays, "exact": self.exact, "phantom": self.phantom,
                "missed": self.missed, "exact_share": round(self.exact_share, 4),
                "hands_exact_points": self.hands_exact_points, "points_share": round(self.points_share, 4),
                "landlord_right": self.landlord_right,
                "delay_median_s": round(d[len(d) // 2], 3) if d else None,
                "delay_max_s": round(d[-1], 3) if d else None}


def _plays(hand: dict[str, Any]) -> list[tuple[int, tuple[str, ...], float | None]]:
    return [(a["seat"], tuple(sorted(a["cards"])), a.get("time")) for a in hand.get("actions", [])
            if a.get("kind") == "play"]


def compare_hand(truth: dict[str, Any], read: dict[str, Any] | None, out: Comparison | None = None) -> Comparison:
    out = out or Comparison()
    out.hands += 1
    t_plays = _plays(truth)
    r_plays = _plays(read) if read is not None else []
    out.plays += len(t_plays)
    matcher = difflib.SequenceMatcher(a=[p[:2] for p in t_plays], b=[p[:2] for p in r_plays], autojunk=False)
    exact = 0
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            exact += 1
            t_time, r_time = t_plays[block.a + k][2], r_plays[block.b + k][2]
            if t_time is not None and r_time is not None:
                out.delays.append(r_time - t_time)
    out.exact += exact
    out.missed += len(t_plays) - exact
    out.phantom += len(r_plays) - exact
    if read is not None:
        out.landlord_right += int(read.get("landlord") == truth.get("landlord"))
        out.hands_exact_points += int(read.get("result", {}).get("points") == truth.get("result", {}).get("points"))
    return out


def compare_records(truth: dict[str, Any], read: dict[str, Any]) -> Comparison:
    """Hand ``i`` of the truth against hand ``i`` read (a hand not read at all: all missed)."""
    out = Comparison()
    read_hands = read.get("hands", [])
    for i, hand in enumerate(truth.get("hands", [])):
        compare_hand(hand, read_hands[i] if i < len(read_hands) else None, out)
    for extra in read_hands[len(truth.get("hands", [])):]:
        out.phantom += len(_plays(extra))
    return out
