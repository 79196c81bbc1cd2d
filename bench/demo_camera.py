"""The demo's camera mode (``ddz-table demo --feed camera``): how fast, and how much it reads.

Runs the synthetic table rendered frame by frame through the real pipeline and the shipped
detector, as fast as the machine allows, for ``--seconds`` of wall time, and prints every
``--every`` seconds: frames per second, render and read time per frame, table speed (video
seconds per wall second; 1.0 keeps up with a real table), hands shown, plays the camera read
exactly against the film (before the demo referee's fixes) and the fixes. Ends with the events
the store holds, by kind and source.

    python -m bench.demo_camera --seconds 300 --size 960x540 --fps 5
    python -m bench.demo_camera --cards toy      # the toy deck: everything but the card reader
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter

from sim.demo.camera_feed import CameraTable
from tracker.store import EventStore

FIGURES = ("fps", "frames", "render_ms", "read_ms", "table_speed", "hands_shown", "reads", "error")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="wall-clock time to run")
    parser.add_argument("--every", type=float, default=30.0, help="seconds between printed figures")
    parser.add_argument("--size", default="960x540", help="frame size WxH")
    parser.add_argument("--fps", type=float, default=5.0, help="frames per table second")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--cards", choices=("real", "toy"), default="real")
    parser.add_argument("--deck", default=None, help="card design (default: the demo's, tigullio)")
    parser.add_argument("--no-referee", dest="referee", action="store_false",
                        help="leave misreads uncorrected (hands the camera cannot finish are abandoned)")
    args = parser.parse_args(argv)
    try:
        size = tuple(int(v) for v in args.size.lower().split("x"))
        if len(size) != 2 or min(size) <= 0:
            raise ValueError
    except ValueError:
        parser.error(f"--size must look like 960x540, not {args.size!r}")

    started = time.time()
    store = EventStore(":memory:")
    match_id = store.create_match(("A", "B", "C"), "classic")
    # speed far above 1: the table never waits for the wall clock, so this measures the machine.
    feed = CameraTable(store, match_id, speed=1000.0, seed=args.seed, size=size, fps=args.fps,
                       style="toy" if args.cards == "toy" else "cards", referee=args.referee,
                       **({"deck": args.deck} if args.deck else {}))
    print(f"# ready in {time.time() - started:.1f} s; {args.size} at {args.fps} fps, {args.cards} cards", flush=True)
    feed.start()
    end = time.time() + args.seconds
    try:
        while time.time() < end and feed.status()["running"]:
            time.sleep(min(args.every, max(end - time.time(), 0.1)))
            status = feed.status()
            print(json.dumps({k: status.get(k) for k in FIGURES}), flush=True)
    finally:
        feed.stop()
    print("# hand on film when stopped:", json.dumps(feed.current_reads()))
    kinds = Counter(f"{r.kind}/{r.source}" for r in store.events(match_id))
    print("# events:", json.dumps(dict(sorted(kinds.items()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
