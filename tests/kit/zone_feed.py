"""Feeding a seat zone's stability tracker frame by frame, as the table reader does."""

from __future__ import annotations

#: Frames a second of the fed frames.
FPS = 10


def run(zone, frames, start: float = 0.0):
    """Feed (seen list, motion) frames at :data:`FPS`; returns [(time, Settled)] and the end time."""
    out, t = [], start
    for seen, motion in frames:
        settled = zone.update(t, seen, motion)
        if settled is not None:
            out.append((t, settled))
        t = round(t + 1 / FPS, 6)
    return out, t
