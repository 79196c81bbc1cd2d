"""``ddz-table enroll``: teach the box a club's own deck (a deck profile, :mod:`vision.profile`).

``enroll --from-labels DIR --deck NAME [--out FILE]`` reads a labelled folder in YOLO format
(``data.yaml`` whose ``names`` are card text, ``images/``, ``labels/`` with one box per corner
index), reads every labelled index as the detector reads it, fits the profile and saves it as
``decks/NAME.npz`` in the data folder (``tracker.paths.decks_dir``). ``detect`` and ``run`` read
with it given ``--deck NAME`` (or a profile file's path). ``enroll --list`` shows the saved ones.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.cards import CARD_IDS, CARD_INDEX

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")

#: Joker spellings (upper case, ``_`` and ``-`` read as spaces) -> card id.
JOKER_NAMES = {
    "BJ": "BJ", "BLACK JOKER": "BJ", "JOKER BLACK": "BJ", "SMALL JOKER": "BJ", "LITTLE JOKER": "BJ",
    "小王": "BJ", "RJ": "RJ", "RED JOKER": "RJ", "JOKER RED": "RJ", "BIG JOKER": "RJ", "大王": "RJ",
}
SUIT_LETTERS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "♤": "S", "♡": "H", "♢": "D", "♧": "C"}
CARD_NAME = re.compile(r"(10|[2-9TJQKA])([SHDC])")


class EnrollError(ValueError):
    """A labelled folder that cannot be enrolled; the message is Chinese, then English."""


def card_from_name(name: str) -> str | None:
    """The card id a label name spells, or None: card text (``10c``, ``Qs``, ``BJ``) and the
    common spellings (``10C``, ``QS``, ``TC``, ``♣10``, ``BLACK JOKER``, ``JOKER_RED``), any case."""
    text = " ".join(str(name).upper().replace("_", " ").replace("-", " ").split())
    if text in JOKER_NAMES:
        return JOKER_NAMES[text]
    text = "".join(SUIT_LETTERS.get(ch, ch) for ch in text.replace(" ", ""))
    match = CARD_NAME.fullmatch(text) or CARD_NAME.fullmatch(text[1:] + text[:1])  # suit first: ♣10
    if match is None:
        return None
    rank = "10" if match.group(1) == "T" else match.group(1)
    return rank + match.group(2).lower()


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            return str(json.loads(text))
        except json.JSONDecodeError:
            return text[1:-1]
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    return text


def _without_comment(line: str) -> str:
    """A YAML line less a ``#`` comment (one outside quotes, after a space or at the start)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def _split_flow(text: str) -> list[str]:
    """The items of a YAML flow list or mapping's inside, split at commas outside quotes."""
    items, quote, start = [], None, 0
    for i, ch in enumerate(text):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == ",":
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [item.strip() for item in items if item.strip()]


def _key_value(item: str, where: str) -> tuple[int, str]:
    key, sep, value = item.partition(":")
    if not sep or not key.strip().isdigit():
        raise EnrollError(f"{where}: names 的条目应为 '编号: 名称' / a names entry should be 'id: name', got {item!r}")
    return int(key.strip()), _unquote(value)


def read_names(path: Path) -> dict[int, str]:
    """Class id -> name from a YOLO ``data.yaml``'s ``names``: a block list (``- 10c``), a block
    mapping (``0: 10c``), or a flow list or mapping on one or more lines. Only that key is read
    (no YAML library on the box)."""
    try:
        lines = [_without_comment(line) for line in path.read_text(encoding="utf-8-sig").splitlines()]
    except (OSError, UnicodeDecodeError) as exc:
        raise EnrollError(f"读不了 {path} / cannot read {path}: {exc}") from None
    for i, line in enumerate(lines):
        found = re.fullmatch(r"names\s*:\s*(.*)", line)
        if not found:
            continue
        rest = found.group(1).strip()
        where = f"{path}:{i + 1}"
        if rest and rest[0] in "[{":
            close = "]" if rest[0] == "[" else "}"
            j = i
            while not rest.endswith(close) and j + 1 < len(lines):
                j += 1
                rest += " " + lines[j].strip()
            if not rest.endswith(close):
                raise EnrollError(f"{where}: names 没有结束的 {close} / names has no closing {close}")
            items = _split_flow(rest[1:-1])
            if close == "]":
                return dict(enumerate(_unquote(item) for item in items))
            return dict(_key_value(item, where) for item in items)
        if rest:
            raise EnrollError(f"{where}: 看不懂 names / cannot read names: {rest!r}")
        names: dict[int, str] = {}
        listed: list[str] = []
        for line in lines[i + 1:]:
            if not line.strip():
                continue
            if not line[:1].isspace() and not line.startswith("-"):  # a list may sit at the key's indent
                break
            item = line.strip()
            if item.startswith("-"):
                listed.append(_unquote(item[1:]))
            else:
                key, value = _key_value(item, where)
                names[key] = value
        if listed and names:
            raise EnrollError(f"{where}: names 混用了列表和映射 / names mixes a list and a mapping")
        return dict(enumerate(listed)) if listed else names
    raise EnrollError(f"{path} 里没有 names / {path} has no names")


@dataclass
class LabelledImage:
    """One image of the folder: its path and its labelled corner indices (pixels, card ids)."""

    path: Path
    boxes: np.ndarray
    cards: list[str]


def read_label_folder(folder: str | Path) -> list[LabelledImage]:
    """Every labelled image of a YOLO folder (``data.yaml``, ``images/``, ``labels/``; images may
    sit in subfolders, such as ``images/train``, with their labels at the same place under
    ``labels/``), boxes in image pixels. Every fault is an :class:`EnrollError` saying which
    file: no folder or no ``data.yaml``, names that are no card (all of them listed), no image,
    an image without its label file, a malformed label line, or no box at all."""
    from vision.detector import ImageError, read_image

    folder = Path(folder)
    if not folder.is_dir():
        raise EnrollError(f"没有这个文件夹 / no such folder: {folder}")
    yaml = folder / "data.yaml"
    if not yaml.is_file():
        raise EnrollError(f"{folder} 里没有 data.yaml / no data.yaml in {folder}")
    names = read_names(yaml)
    if not names:
        raise EnrollError(f"{yaml}: names 是空的 / names is empty")
    cards = {k: card_from_name(v) for k, v in names.items()}
    unknown = [names[k] for k in sorted(cards) if cards[k] is None]
    if unknown:
        raise EnrollError(f"{yaml}: 这些名称不是牌 / these names are no card: {', '.join(map(repr, unknown))} "
                          "(例如 / e.g. 10c, Qs, TC, BJ, RED JOKER)")
    image_dir, label_dir = folder / "images", folder / "labels"
    images = sorted(p for p in image_dir.rglob("*") if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES) \
        if image_dir.is_dir() else []
    if not images:
        raise EnrollError(f"{image_dir} 里没有图片 / no images in {image_dir}")
    label_files = {image: (label_dir / image.relative_to(image_dir)).with_suffix(".txt") for image in images}
    missing = [str(image.relative_to(folder)) for image, label in label_files.items() if not label.is_file()]
    if missing:
        more = f" ... (+{len(missing) - 5})" if len(missing) > 5 else ""
        raise EnrollError(f"{len(missing)} 张图片没有标注文件 / {len(missing)} image(s) without a label file in "
                          f"{label_dir}: {', '.join(missing[:5])}{more}")
    out = []
    for image_path, label in label_files.items():
        rows = []
        try:
            text = label.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise EnrollError(f"读不了 {label} / cannot read {label}: {exc}") from None
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            parts = line.split()
            try:
                values = [float(v) for v in parts]
            except ValueError:
                values = []
            if len(values) != 5 or values[0] != int(values[0]) or int(values[0]) not in names \
                    or not all(0 <= v <= 1 for v in values[1:]):
                raise EnrollError(f"{label}:{number}: 标注行应为 '类别 cx cy w h'（0-1 之间）/ a label line is "
                                  f"'class cx cy w h' (0-1, class in data.yaml), got {line.strip()!r}")
            rows.append(values)
        if not rows:
            continue
        try:
            image = read_image(image_path)
        except ImageError as exc:
            raise EnrollError(f"读不了图片 / unreadable image: {exc}") from None
        h, w = image.shape[:2]
        v = np.array(rows, np.float64)
        boxes = np.stack([(v[:, 1] - v[:, 3] / 2) * w, (v[:, 2] - v[:, 4] / 2) * h,
                          (v[:, 1] + v[:, 3] / 2) * w, (v[:, 2] + v[:, 4] / 2) * h], axis=1)
        out.append(LabelledImage(image_path, boxes, [cards[int(c)] for c in v[:, 0]]))
    if not out:
        raise EnrollError(f"{label_dir} 里没有任何标注框 / no labelled box in {label_dir}")
    return out


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
    """Read ``folder`` (:func:`read_label_folder`) and fit the deck profile ``name`` with
    ``detector`` (default: the shipped models at the photo settings)."""
    from vision.detector import CardDetector, read_image
    from vision.profile import NAME_PATTERN, fit_profile

    if not NAME_PATTERN.fullmatch(name or ""):
        raise EnrollError(f"牌组名只能用字母、数字、_ - . / a deck name is letters, digits, '_', '-' or '.' "
                          f"(up to 64), not {name!r}")
    labelled = read_label_folder(folder)
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
    except (EnrollError, ProfileError, ModelFileError) as exc:
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
