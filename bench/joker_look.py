"""The second look for jokers on rendered films: what it reads and what it costs.

Reads each ``ddz-table simulate`` film (made with ``--tokens``) as ``python -m bench.tracker --sim
FILM --no-referee-bids`` does, once with the table reader's second look for jokers
(``vision/joker_look.py``) and once without, one after the other so that both runs see the
machine alike, and prints one JSON line a run: plays exact, phantom and missed plays, hands
with exact points, starting hands rebuilt, audits passed, frames a second of busy time, and
the look's own part: how often it ran, the jokers it accepted and its share of the busy time.

    ddz-table simulate --seed 303 --seats 3 --deck orell --hands 3 --cards 10 --tokens --out runs/joker/3p-orell-s303
    python -m bench.joker_look runs/joker/3p-orell-s303 [--modes on off]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

import bench.tracker
from tracker.detection import build_detector
from vision.joker_look import JokerLook, JokerRead


class TimedLook:
    """Stands in for a detector's :class:`JokerLook`: the same looks, counted and timed (runs,
    jokers accepted, seconds)."""

    def __init__(self, look: JokerLook) -> None:
        self.inner = look
        self.runs, self.jokers, self.seconds = 0, 0, 0.0

    def look(self, image: np.ndarray, card_px: float, sure_centers: np.ndarray | None = None) -> list[JokerRead]:
        t0 = time.perf_counter()
        reads = self.inner.look(image, card_px, sure_centers)
        self.seconds += time.perf_counter() - t0
        self.runs, self.jokers = self.runs + 1, self.jokers + len(reads)
        return reads


def read_film(film: Path, look: bool) -> dict[str, Any]:
    """One film read with the look (``look``) or without it: the JSON line's fields."""
    timed: list[TimedLook] = []

    def detector(spec: str, backend: str, profile: Any = None) -> Any:
        built = build_detector(spec, backend, profile=profile)
        if built.joker_look is not None:
            built.joker_look = TimedLook(built.joker_look) if look else None
            timed.extend([built.joker_look] if look else [])
        return built

    # bench.tracker.read_film builds its detector by this name: each run gets its own
    bench.tracker.build_detector = detector  # type: ignore[assignment]
    try:
        comparison, frames, busy, _, _ = bench.tracker.read_film(film, "onnx", "onnx", referee_bids=False)
    finally:
        bench.tracker.build_detector = build_detector
    out: dict[str, Any] = {"film": str(film), "look": look, **comparison.to_dict(), "frames": frames,
                           "fps": round(frames / busy, 2) if busy else None}
    if timed:
        t = timed[0]
        out.update(looks=t.runs, jokers_read=t.jokers, look_share=round(t.seconds / busy, 4) if busy else None)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("films", nargs="+", type=Path, help="ddz-table simulate output folders (made with --tokens)")
    parser.add_argument("--modes", nargs="+", choices=("on", "off"), default=["on", "off"],
                        help="read with the look (on), without it (off), or both, in this order")
    args = parser.parse_args(argv)
    for film in args.films:
        if not (film / "truth.json").is_file():
            parser.error(f"{film} is not a simulate film (no truth.json)")
        for mode in args.modes:
            print(json.dumps(read_film(film, mode == "on"), ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
