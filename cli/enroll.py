"""``ddz-table enroll``: teach the box a club's own deck (a deck profile, :mod:`vision.profile`).

``enroll --from-labels DIR --deck NAME [--out FILE]`` reads a labelled folder in YOLO format
(``data.yaml`` whose ``names`` are card text, ``images/``, ``labels/`` with one box per corner
index), reads every labelled index as the detector reads it, fits the profile and saves it as
``decks/NAME.npz`` in the data folder (``tracker.paths.decks_dir``). ``detect`` and ``run`` read
with it given ``--deck NAME`` (or a profile file's path). ``enroll --list`` shows the saved ones.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.cards import CARD_IDS, CARD_INDEX
from vision.labels import LabelError, LabelledImage, read_label_folder


class EnrollError(LabelError):
    """A folder or deck name that cannot be enrolled; the message is Chinese, then English.
    Faults of the folder itself are :class:`vision.labels.LabelError`, its base."""


def labelled_images(folder: str | Path) -> list[LabelledImage]:
    """The images of a YOLO folder (:func:`vision.labels.read_label_folder`) that have a
    labelled corner index, every name a card; a folder with no box at all is an error."""
    read = read_label_folder(folder)
    images = [item for item in read.images if item.cards]
    if not images:
        label_dir = Path(folder) / "labels"
        raise EnrollError(f"{label_dir} 里没有任何标注框 / no labelled box in {label_dir}")
    return images


@dataclass
class Enrollment:
    """A fitted profile and, per card, how its crops as photographed read: crops, wrong by the
    reader alone, and of those right with the profile; and right by the reader, wrong with it."""

    profile: object
    crops: Counter
    reader_wrong: Counter
    fixed: Counter
    broken: Counter


def enroll_folder(folder: str | Path, name: str, detector=None, seed: int = 0) -> Enrollment:
    """Read ``folder`` (:func:`labelled_images`) and fit the deck profile ``name`` with
    ``detector`` (default: the shipped models at the photo settings)."""
    from vision.detector import CardDetector, read_image
    from vision.profile import NAME_PATTERN, fit_profile

    if not NAME_PATTERN.fullmatch(name or ""):
        raise EnrollError(f"牌组名只能用字母、数字、_ - . / a deck name is letters, digits, '_', '-' or '.' "
                          f"(up to 64), not {name!r}")
    labelled = labelled_images(folder)
    detector = detector or CardDetector()
    samples = ((read_image(item.path), item.boxes, item.cards) for item in labelled)
    profile, probs, cards = fit_profile(detector, samples, name, seed)
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


def load_deck_profile(spec: str):
    """The profile ``--deck`` names: a saved deck's name (``tracker.paths.decks_dir``) or a file."""
    from tracker.paths import decks_dir
    from vision.profile import DeckProfile, find_profile

    return DeckProfile.load(find_profile(spec, decks_dir()))


def register(subparsers) -> None:
    enroll = subparsers.add_parser("enroll", help="teach the detector your own deck / 录入自己的牌组")
    what = enroll.add_mutually_exclusive_group(required=True)
    what.add_argument("--from-labels", metavar="DIR",
                      help="YOLO folder: data.yaml (names: card text such as 10c, Qs, BJ), images/, labels/ "
                           "(one box per corner index)")
    what.add_argument("--list", action="store_true", help="list the enrolled decks / 列出已录入的牌组")
    enroll.add_argument("--deck", metavar="NAME", help="the deck's name, for --deck NAME in detect and run")
    enroll.add_argument("--out", metavar="FILE", help="write the profile here (default: decks/NAME.npz in the data folder)")
    enroll.add_argument("--finder", default=None, help="finder model (default models/finder.onnx)")
    enroll.add_argument("--reader", default=None, help="reader model (default models/reader.onnx)")
    enroll.set_defaults(func=run_enroll)


def _fail(message: str) -> int:
    print(f"ddz-table enroll: {message}", file=sys.stderr)
    return 2


def run_enroll(args) -> int:
    from tracker.paths import decks_dir
    from vision.backends import ModelFileError
    from vision.profile import SUFFIX, DeckProfile, ProfileError, saved_profiles

    if args.list:
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
            print(f"{path.stem:<20} {len(profile.cards):>2} 张牌 / cards, {int(profile.counts.sum())} 个样本 / crops  {path}")
        return 0
    if not args.deck:
        return _fail("需要 --deck NAME / --from-labels needs --deck NAME")
    try:
        from vision.detector import DEFAULT_FINDER, DEFAULT_READER, CardDetector

        detector = CardDetector(args.finder or DEFAULT_FINDER, args.reader or DEFAULT_READER)
        result = enroll_folder(args.from_labels, args.deck, detector)
        out = Path(args.out) if args.out else decks_dir() / f"{args.deck}{SUFFIX}"
        result.profile.save(out)
    except (LabelError, ProfileError, ModelFileError) as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"写不了牌组档案 / cannot write the profile: {exc}")
    print(f"{'牌 card':<8} {'样本 crops':>10} {'原来读错 reader wrong':>22} {'现已读对 now right':>19} "
          f"{'反被读错 now wrong':>19}")
    for card in CARD_IDS:
        if card in result.crops:
            print(f"{card:<8} {result.crops[card]:>10} {result.reader_wrong[card]:>22} {result.fixed[card]:>19} "
                  f"{result.broken[card]:>19}")
    total = sum(result.crops.values())
    print(f"{'all':<8} {total:>10} {sum(result.reader_wrong.values()):>22} {sum(result.fixed.values()):>19} "
          f"{sum(result.broken.values()):>19}")
    absent = [c for c in CARD_IDS if c not in result.crops]
    if absent:
        print(f"未录入的牌仍按原模型识别 / not enrolled, read as before: {' '.join(absent)}")
    use = args.deck if not args.out else str(out)
    print(f"已保存 / saved: {out}  (ddz-table detect --deck {use} ... / ddz-table run --deck {use} ...)")
    return 0
