"""Enrollment on real photographs: fine-tune the deck's reader on one part of a labelled set,
read the other part with it.

    python -m bench.enroll TRAIN TEST [--whole-cards] [--epochs N] [--save FILE] [--numpy]

``TRAIN`` is what ``ddz-table enroll --from-labels`` takes (:func:`vision.labels.enrollment_samples`);
``TEST`` is a YOLO folder as ``python -m bench.real`` scores it (``--whole-cards`` when its boxes are
whole cards). Prints what enrollment measured on the corners it held out, its wall and CPU time,
then ``bench.real``'s figures on ``TEST`` without and with the profile: card recall and
precision, and clubs read as spades. ``--numpy`` also scores the numpy-only profile (prototypes
and bias on the base reader, ``enroll --no-tune``).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import child_env
from sim.training.deck_reader import TuneSettings, tune_reader
from vision.detector import CardDetector
from vision.labels import enrollment_samples


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def score(test: str, whole: bool, deck: str | None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "real.json"
        argv = [sys.executable, "-m", "bench.real", test, "--json", str(out)]
        argv += ["--whole-cards"] if whole else []
        argv += ["--deck", deck] if deck else []
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=child_env())
        return json.loads(out.read_text())


def line(name: str, figures: dict) -> str:
    cards = figures["cards"]
    cs = figures["suit_pairs"]["club->spade"]
    return (f"{name:<22} recall {cards['recall']:.3f}  precision {cards['precision']:.3f}  "
            f"club->spade {cs['rate']:.3f} ({cs['count']}/{cs['of']})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("train")
    parser.add_argument("test")
    parser.add_argument("--whole-cards", action="store_true", help="TEST's boxes are whole cards")
    parser.add_argument("--epochs", type=int, default=TuneSettings.epochs)
    parser.add_argument("--save", default=None, help="keep the profile here")
    parser.add_argument("--numpy", action="store_true", help="also score the numpy-only profile")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=None, help="torch's threads while training (default: all)")
    args = parser.parse_args()

    detector = CardDetector()
    wall, cpu = time.perf_counter(), cpu_seconds()
    samples = enrollment_samples(args.train, detector)
    result = tune_reader(detector, samples.items, "bench", settings=TuneSettings(epochs=args.epochs, threads=args.threads), seed=args.seed)
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    corners = sum(len(b) for _, b, _ in samples.items)
    print(f"# enrolled {args.train}: {samples.photos} photos, {corners} corners; held out {result.held_out} "
          f"corners; {wall:.0f} s wall, {cpu:.0f} s CPU")
    print(f"held-out corners read right: base reader {result.before:.3f}, deck's reader {result.after:.3f}, "
          f"with the score profile too {result.with_blend:.3f} (kept {'on' if result.profile.blend_reads else 'off'})")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.save) if args.save else Path(tmp) / "bench.npz"
        result.profile.save(path)
        print(f"# {args.test}")
        print(line("base reader", score(args.test, args.whole_cards, None)))
        if args.numpy:
            from vision.profile import fit_profile

            numpy_profile, _, _ = fit_profile(detector, iter(samples.items), "bench")
            numpy_path = Path(tmp) / "numpy.npz"
            numpy_profile.save(numpy_path)
            print(line("numpy profile", score(args.test, args.whole_cards, str(numpy_path))))
        print(line("deck's reader", score(args.test, args.whole_cards, str(path))))


if __name__ == "__main__":
    main()
