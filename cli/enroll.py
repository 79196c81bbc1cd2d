"""``ddz-table enroll``: teach the box a club's own deck (a deck profile, :mod:`vision.profile`).

``enroll --from-labels DIR --deck NAME [--out FILE]`` reads the deck's labelled photos and
fine-tunes a copy of the reader on them (:func:`sim.training.deck_reader.tune_reader`, the
``train`` extra), holding out a share of the corners to check it: a reader that reads them worse
than the base reader is refused and nothing saved. The profile (the deck's reader, with its
prototypes and bias) is saved as ``decks/NAME.npz`` in the data folder
(``tracker.paths.decks_dir``); ``detect`` and ``run`` read with it given ``--deck NAME`` (or the
file's path). Without torch, or with ``--no-tune``, only the numpy profile is fitted.
``enroll --list`` shows the saved decks.

``DIR`` is any of:

- a YOLO folder (``data.yaml`` whose ``names`` are card text, ``images/`` and ``labels/``, or a
  Roboflow export's ``train/``, ``valid/``, ``test/``), boxes on corner indices or on whole cards
  (:func:`vision.labels.corner_labels` finds the corners inside each card); classes that name no
  card (``BACK``, ``card``, a ``joker`` of no colour) are skipped and counted;
- a folder of photos each named after the one card it shows (``10c.jpg``, ``queen of hearts.png``).
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tracker.enroll import EnrollError as DeckNameError
from tracker.enroll import check_name
from vision.cards import CARD_IDS, CARD_INDEX
from vision.labels import LabelError, Samples, enrollment_samples

if TYPE_CHECKING:
    from vision.profile import DeckProfile


@dataclass
class Enrollment:
    """A fitted profile and, per card, how its crops as photographed read: crops, wrong by the
    reader alone, and of those right with the profile; and right by the reader, wrong with it."""

    profile: DeckProfile
    crops: Counter
    reader_wrong: Counter
    fixed: Counter
    broken: Counter


def fit_numpy_profile(samples: Samples, name: str, detector, seed: int = 0) -> Enrollment:
    """The deck profile without a reader of its own (numpy only): prototypes and bias fitted on
    the base reader's reads of ``samples``, with what it changes on them."""
    from vision.profile import fit_profile

    profile, probs, cards = fit_profile(detector, iter(samples.items), name, seed)
    settings = detector.settings
    blended = profile.blend(probs, settings.profile_weight, settings.profile_temperature)
    columns = np.array([c >= 0 for c in (CARD_INDEX.get(n, -1) for n in detector.reader_classes)])
    ids = np.array([CARD_INDEX.get(n, -1) for n in detector.reader_classes])[columns]
    alone = ids[probs[:, columns].argmax(axis=1)]
    with_profile = ids[blended[:, columns].argmax(axis=1)]
    result = Enrollment(profile, Counter(), Counter(), Counter(), Counter())
    for card, a, b in zip(cards, alone.tolist(), with_profile.tolist(), strict=True):
        truth = CARD_INDEX[card]
        result.crops[card] += 1
        result.reader_wrong[card] += a != truth
        result.fixed[card] += a != truth and b == truth
        result.broken[card] += a == truth and b != truth
    return result


def enroll_folder(folder: str | Path, name: str, detector=None, seed: int = 0) -> Enrollment:
    """Read ``folder`` and fit the numpy deck profile ``name`` with ``detector`` (default: the
    shipped models at the photo settings): :func:`fit_numpy_profile`."""
    from vision.detector import CardDetector

    check_name(name)
    detector = detector or CardDetector()
    return fit_numpy_profile(enrollment_samples(folder, detector), name, detector, seed)


def can_tune() -> bool:
    """Whether this computer can fine-tune a deck's reader (torch, the ``train`` extra)."""
    import importlib.util

    return importlib.util.find_spec("torch") is not None


class ProgressBar:
    """A progress bar on stderr, redrawn in place on a terminal, a line per tenth otherwise."""

    def __init__(self, stream=None, width: int = 30):
        self.stream = stream or sys.stderr
        self.width = width
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.shown = -1
        self.started = time.monotonic()

    def __call__(self, fraction: float, zh: str, en: str) -> None:
        fraction = min(max(fraction, 0.0), 1.0)
        filled = int(round(fraction * self.width))
        line = (f"[{'#' * filled}{'.' * (self.width - filled)}] {fraction:4.0%} {zh} / {en} "
                f"({time.monotonic() - self.started:.0f} s)")
        if self.tty:
            self.stream.write("\r" + line.ljust(100) + ("\n" if fraction >= 1 else ""))
        elif int(fraction * 10) > self.shown:
            self.shown = int(fraction * 10)
            self.stream.write(line + "\n")
        self.stream.flush()


def load_deck_profile(spec: str):
    """The profile ``--deck`` names: a saved deck's name (``tracker.paths.decks_dir``) or a file."""
    from tracker.paths import decks_dir
    from vision.profile import DeckProfile, find_profile

    return DeckProfile.load(find_profile(spec, decks_dir()))


def register(subparsers) -> None:
    enroll = subparsers.add_parser("enroll", help="teach the detector your own deck / 录入自己的牌组")
    what = enroll.add_mutually_exclusive_group(required=True)
    what.add_argument("--from-labels", metavar="DIR",
                      help="labelled photos of the deck: a YOLO folder (data.yaml names such as 10c, Qs, BJ; "
                           "images/, labels/; boxes on corner indices or whole cards) or photos named by card")
    what.add_argument("--list", action="store_true", help="list the enrolled decks / 列出已录入的牌组")
    enroll.add_argument("--deck", metavar="NAME", help="the deck's name, for --deck NAME in detect and run")
    enroll.add_argument("--out", metavar="FILE", help="write the profile here (default: decks/NAME.npz in the data folder)")
    enroll.add_argument("--finder", default=None, help="finder model (default models/finder.onnx)")
    enroll.add_argument("--reader", default=None, help="reader model (default models/reader.onnx)")
    enroll.add_argument("--no-tune", action="store_true",
                        help="fit only the score profile, not the deck's own reader (no torch needed) / 不训练识别模型")
    enroll.add_argument("--epochs", type=int, default=None, help="passes over the deck's crops (default 8)")
    enroll.add_argument("--seed", type=int, default=0)
    enroll.set_defaults(func=run_enroll)


def _fail(message: str) -> int:
    print(f"ddz-table enroll: {message}", file=sys.stderr)
    return 2


def _list() -> int:
    from tracker.paths import decks_dir
    from vision.profile import DeckProfile, ProfileError, saved_profiles

    folder = decks_dir()
    found = saved_profiles(folder)
    if not found:
        print(f"还没有录入的牌组 / no enrolled decks in {folder}")
        return 0
    for path in found:
        try:
            profile = DeckProfile.load(path)
        except ProfileError as exc:
            print(f"{path.stem:<20} 无法使用 / unusable: {exc}")
            continue
        own = "自有识别模型 / own reader" if profile.reader_model else "仅评分档案 / scores only"
        print(f"{path.stem:<20} {len(profile.cards):>2} 张牌 / cards, {int(profile.counts.sum())} 个样本 / crops, "
              f"{own}  {path}")
    return 0


def _print_counts(samples: Samples) -> None:
    c = samples.corners
    print(f"照片 / photos: {samples.photos}, 用到的牌角 / corners used: {sum(len(b) for _, b, _ in samples.items)}")
    if c.card_boxes:
        print(f"整张牌的标注框 / whole-card boxes: {c.card_boxes}, 其中找到的牌角 / corners found in them: "
              f"{c.corners_found}, 没找到牌角的牌 / cards with no corner found: {c.cards_without_corner}, "
              f"归属不明而略过 / left out as ambiguous: {c.ambiguous}")
    if samples.skipped:
        listed = ", ".join(f"{name!r} {n}" for name, n in sorted(samples.skipped.items()))
        print(f"不是牌的类别已略过 / classes that are no card, skipped: {listed}")


def _print_numpy_table(result: Enrollment) -> None:
    print(f"{'牌 card':<8} {'样本 crops':>10} {'原来读错 reader wrong':>22} {'现已读对 now right':>19} "
          f"{'反被读错 now wrong':>19}")
    for card in CARD_IDS:
        if card in result.crops:
            print(f"{card:<8} {result.crops[card]:>10} {result.reader_wrong[card]:>22} {result.fixed[card]:>19} "
                  f"{result.broken[card]:>19}")
    total = sum(result.crops.values())
    print(f"{'all':<8} {total:>10} {sum(result.reader_wrong.values()):>22} {sum(result.fixed.values()):>19} "
          f"{sum(result.broken.values()):>19}")


def run_enroll(args) -> int:
    from tracker.paths import decks_dir
    from vision.backends import ModelFileError
    from vision.profile import SUFFIX, ProfileError

    if args.list:
        return _list()
    if not args.deck:
        return _fail("需要 --deck NAME / --from-labels needs --deck NAME")
    if args.epochs is not None and args.epochs < 1:
        return _fail(f"--epochs 至少为 1 / --epochs must be 1 or more, not {args.epochs}")
    tune = not args.no_tune and can_tune()
    try:
        from vision.detector import DEFAULT_FINDER, DEFAULT_READER, CardDetector

        name = check_name(args.deck)
        detector = CardDetector(args.finder or DEFAULT_FINDER, args.reader or DEFAULT_READER)
        samples = enrollment_samples(args.from_labels, detector)
        _print_counts(samples)
        out = Path(args.out) if args.out else decks_dir() / f"{name}{SUFFIX}"
        if tune:
            from sim.training.deck_reader import TuneSettings, tune_reader

            settings = TuneSettings() if args.epochs is None else TuneSettings(epochs=args.epochs)
            result = tune_reader(detector, samples.items, name, settings=settings, seed=args.seed,
                                 progress=ProgressBar())
            profile = result.profile
            enrolled = None
        else:
            enrolled = fit_numpy_profile(samples, name, detector, args.seed)
            profile = enrolled.profile
        profile.save(out)
    except (LabelError, ProfileError, ModelFileError, DeckNameError) as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"写不了牌组档案 / cannot write the profile: {exc}")
    if enrolled is not None:
        _print_numpy_table(enrolled)
        if not args.no_tune:
            print("这台电脑没有 torch，只生成了评分档案；在装有训练组件的电脑上运行同一命令可训练牌组自己的识别模型 / "
                  "no torch here: only the score profile was fitted; the same command on a computer with the train "
                  "extra (pip install '.[train]') fine-tunes the deck's own reader")
    else:
        held = result.held_out
        print(f"留出的牌角 / corners held out: {held}, 训练用 / trained on: {result.trained_on} 个样本 crops "
              f"({result.seconds:.0f} s)")
        print(f"读对 / read right: 原模型 / base reader {result.before:.1%} -> 本牌组模型 / deck's reader "
              f"{result.after:.1%}" + ("，加评分档案 / with the score profile too" if profile.blend_reads else "")
              + (f" {result.with_blend:.1%}" if profile.blend_reads else ""))
    absent = [c for c in CARD_IDS if c not in profile.cards]
    if absent:
        print(f"未录入的牌 / not enrolled: {' '.join(absent)}")
    use = args.deck if not args.out else str(out)
    print(f"已保存 / saved: {out}  (ddz-table detect --deck {use} ... / ddz-table run --deck {use} ...)")
    return 0
