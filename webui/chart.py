"""The score-progression chart, drawn on the server as inline SVG (nothing fetched from outside).

One line per player through their running totals after each hand, a zero (or starting
chips) line, the hand numbers along the bottom and the final totals at the right end; a
penalty is a mark on its player's line where it counts from, and the match's end a line
across the chart at its last hand (``marks``, from :func:`webui.view.table_state`).

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
                height: int = 230, label: str = "", marks: list[dict[str, Any]] | None = None,
                penalty_word: str = "penalty", end_word: str = "end") -> str:
    """SVG of running totals; ``progress[0]`` is the opening totals, one row per hand after.

    ``marks``: ``{"kind": "penalty", "row", "seat", "points"}`` draws a mark on the seat's line
    (its title: ``penalty_word``, the player, the points); ``{"kind": "end", "row"}`` a line
    across the chart labelled ``end_word``."""
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
    for mark in marks or []:
        row = min(max(int(mark["row"]), 0), n_hands)
        if mark["kind"] == "penalty" and 0 <= mark["seat"] < len(players):
            cx, cy = x(row), y(progress[row][mark["seat"]])
            title = f'{penalty_word} · {players[mark["seat"]]} {-mark["points"]:+d}'.replace("-", "\u2212")
            out.append(f'<g class="mark penalty" data-seat="{mark["seat"]}" data-row="{row}">'
                       f'<title>{escape(title)}</title>'
                       f'<rect x="{cx - 5:.1f}" y="{cy - 5:.1f}" width="10" height="10" '
                       f'transform="rotate(45 {cx:.1f} {cy:.1f})"/></g>')
        elif mark["kind"] == "end":
            out.append(f'<g class="mark match-end" data-row="{row}"><title>{escape(end_word)}</title>'
                       f'<line x1="{x(row):.1f}" x2="{x(row):.1f}" y1="{top}" y2="{top + h}"/>'
                       f'<text x="{x(row) - 4:.1f}" y="{top + 10}" text-anchor="end">{escape(end_word)}</text></g>')
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
