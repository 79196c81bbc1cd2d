"""Compare what the tracker read with the truth, hand by hand (tests and ``bench/tracker.py``).

Both sides are records with the plain hand keys of :mod:`tracker.match_record` (``landlord``,
``bid``, ``actions``, ``result``); ``truth.json`` of the synthetic table has the same keys.
Hands are paired in order by the plays they share (a hand the tracker swallowed does not
shift the rest); within a hand, plays are aligned in order by (seat, cards): a play in both
is exact, one only read is a phantom, one only in the truth is missed. Passes are not
compared (they are inferred).

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
    #: Truth hands whose cards left were shown (亮牌), so every seat's starting hand is known;
    #: of them, read hands with the same starting hands, and read hands audited / passed.
    shown_hands: int = 0
    starting_right: int = 0
    audited: int = 0
    audits_passed: int = 0
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
                "landlord_right": self.landlord_right, "shown_hands": self.shown_hands,
                "starting_right": self.starting_right, "audited": self.audited, "audits_passed": self.audits_passed,
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
    if truth.get("starting_hands"):
        out.shown_hands += 1
        read_hands = (read or {}).get("starting_hands")
        true_hands = _as_sets(truth["starting_hands"])
        if read is not None and not read.get("kitty") and truth.get("kitty") and truth.get("landlord") is not None:
            # A kitty nobody saw (four players: dealt face down) stays in the landlord's hand.
            seat = truth["landlord"]
            true_hands[seat] = sorted(true_hands[seat] + _as_sets([truth["kitty"]])[0])
        out.starting_right += int(read_hands is not None and _as_sets(read_hands) == true_hands)
    if read is not None and read.get("audit") is not None:
        out.audited += 1
        out.audits_passed += int(bool(read["audit"].get("ok")))
    return out


def _as_sets(hands: list[Any]) -> list[list[str]]:
    """Starting hands as sorted card lists (a record may hold card text or lists)."""
    return [sorted(h.split() if isinstance(h, str) else h) for h in hands]


def _common_plays(truth: dict[str, Any], read: dict[str, Any]) -> int:
    matcher = difflib.SequenceMatcher(a=[p[:2] for p in _plays(truth)], b=[p[:2] for p in _plays(read)],
                                      autojunk=False)
    return sum(block.size for block in matcher.get_matching_blocks())


def align_hands(truth_hands: list[dict[str, Any]], read_hands: list[dict[str, Any]]) -> list[int | None]:
    """For each truth hand, the read hand that is it (or None), keeping both in order and
    pairing the most plays in common. A hand the tracker swallowed or split shifts the read
    list; pairing by position would then blame every later hand for it."""
    n, m = len(truth_hands), len(read_hands)
    common = [[_common_plays(t, r) for r in read_hands] for t in truth_hands]
    best = [[0] * (m + 1) for _ in range(n + 1)]  # best[i][j]: most plays paired among the first i and j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            best[i][j] = max(best[i - 1][j], best[i][j - 1], best[i - 1][j - 1] + common[i - 1][j - 1])
    pairs: list[int | None] = [None] * n
    i, j = n, m
    while i and j:
        if best[i][j] == best[i - 1][j - 1] + common[i - 1][j - 1] and common[i - 1][j - 1]:
            pairs[i - 1] = j - 1
            i, j = i - 1, j - 1
        elif best[i][j] == best[i - 1][j]:
            i -= 1
        else:
            j -= 1
    # Hands with nothing in common (e.g. every play misread) still pair up by position when
    # the neighbours leave exactly that read hand free.
    used = {j for j in pairs if j is not None}
    for i in range(n):
        if pairs[i] is None and i < m and i not in used:
            before = max((j for j in pairs[:i] if j is not None), default=-1)
            after = min((j for j in pairs[i + 1:] if j is not None), default=m)
            if before < i < after:
                pairs[i] = i
                used.add(i)
    return pairs


def compare_hands(truth_hands: list[dict[str, Any]], read_hands: list[dict[str, Any]],
                  out: Comparison | None = None) -> Comparison:
    """Each truth hand against the read hand :func:`align_hands` pairs it with (none: all
    missed); read hands paired with none count their plays as phantoms."""
    out = out or Comparison()
    pairs = align_hands(truth_hands, read_hands)
    for hand, j in zip(truth_hands, pairs, strict=True):
        compare_hand(hand, read_hands[j] if j is not None else None, out)
    for j, extra in enumerate(read_hands):
        if j not in pairs:
            out.phantom += len(_plays(extra))
    return out


def compare_records(truth: dict[str, Any], read: dict[str, Any]) -> Comparison:
    """The truth's hands against the hands read, paired by :func:`align_hands`."""
    return compare_hands(truth.get("hands", []), read.get("hands", []))
