"""The score-progression chart, drawn on the server as inline SVG (nothing fetched from outside).

One line per player through their running totals after each hand, a zero (or starting
chips) line, the hand numbers along the bottom and the final totals at the right end.

>>> svg = score_chart([[0, 0, 0], [4, -2, -2], [2, 0, -2]], ("A", "B", "C"))
>>> svg.startswith("<svg") and svg.count("<polyline") == 3
True
"""

from __future__ import annotations

from html import escape
from typing import Any

SEAT_COLOURS = ("#f2b134", "#4fc3f7", "#ef6f6c", "#8bd17c")


def _nice_step(span: float, ticks: int = 4) -> int:
    raw = max(span / ticks, 1)
    magnitude = 10 ** (len(str(int(raw))) - 1)
    for m in (1, 2, 5, 10):
        if raw <= m * magnitude:
            return m * magnitude
    return 10 * magnitude


def score_chart(progress: list[list[int]], players: tuple[str, ...] | list[str], width: int = 480,
                height: int = 230, label: str = "") -> str:
    """SVG of running totals; ``progress[0]`` is the opening totals, one row per hand after."""
    n_hands = len(progress) - 1
    values = [v for row in progress for v in row] or [0]
    base = progress[0][0] if progress else 0
    low, high = min(values + [base]), max(values + [base])
    if high == low:
        high, low = high + 1, low - 1
    step = _nice_step(high - low)
    low, high = (low // step) * step, -((-high) // step) * step
    left, right, top, bottom = 40, 52, 12, 26
    w, h = width - left - right, height - top - bottom

    def x(i: int) -> float:
        return left + (w * i / max(n_hands, 1))

    def y(v: float) -> float:
        return top + h * (high - v) / (high - low)

    out = [f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{escape(label)}" '
           f'xmlns="http://www.w3.org/2000/svg" preserveAspectRatio="xMidYMid meet">']
    v = low
    while v <= high:
        cls = "axis zero" if v == base else "axis"
        out.append(f'<line class="{cls}" x1="{left}" x2="{left + w}" y1="{y(v):.1f}" y2="{y(v):.1f}"/>')
        out.append(f'<text class="tick" x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v}</text>')
        v += step
    every = max(1, n_hands // 10)
    for i in range(0, n_hands + 1, every):
        out.append(f'<text class="tick" x="{x(i):.1f}" y="{height - 6}" text-anchor="middle">{i}</text>')
    ends: list[list[Any]] = []  # [label y, total, colour] per seat
    for seat, name in enumerate(players):
        colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
        points = " ".join(f"{x(i):.1f},{y(row[seat]):.1f}" for i, row in enumerate(progress))
        out.append(f'<polyline class="line" points="{points}" stroke="{colour}" fill="none">'
                   f'<title>{escape(name)}</title></polyline>')
        last = progress[-1][seat]
        out.append(f'<circle cx="{x(n_hands):.1f}" cy="{y(last):.1f}" r="4" fill="{colour}"/>')
        ends.append([y(last), last, colour])
    # Keep the end labels from overlapping when totals are close.
    ends.sort(key=lambda e: e[0])
    for i in range(1, len(ends)):
        ends[i][0] = max(ends[i][0], ends[i - 1][0] + 17)
    for ypos, last, colour in ends:
        out.append(f'<text class="end" x="{left + w + 8}" y="{ypos + 5:.1f}" fill="{colour}">{last:+d}</text>'
                   if base == 0 else
                   f'<text class="end" x="{left + w + 8}" y="{ypos + 5:.1f}" fill="{colour}">{last}</text>')
    out.append("</svg>")
    return "".join(out)
