"""Labelled photo folders in YOLO format, read the one way ``ddz-table enroll`` and
``bench/real.py`` both need.

A folder holds ``data.yaml`` whose ``names`` spell cards (``10c``, ``QS``, ``TC``, ``♣10``,
``BLACK JOKER``, ``10 of clubs``, ``ace_of_spades`` ...; :func:`card_from_name`), ``images/``
(subfolders allowed, such as ``images/test``) and ``labels/`` with one ``class cx cy w h`` line
per box at the same place as its image. Every fault is a :class:`LabelError` whose message says
which file, Chinese first, then English. ``data.yaml`` is read by a small parser of its ``names``
key only: the box has no YAML library.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from vision.cards import CARD_IDS, CARD_INDEX
from vision.files import IMAGE_SUFFIXES

if TYPE_CHECKING:
    from vision.detector import CardDetector

#: Joker spellings (upper case, ``_`` and ``-`` read as spaces) -> card id.
JOKER_SPELLINGS = {
    "BJ": "BJ", "BLACK JOKER": "BJ", "JOKER BLACK": "BJ", "SMALL JOKER": "BJ", "LITTLE JOKER": "BJ",
    "小王": "BJ", "RJ": "RJ", "RED JOKER": "RJ", "JOKER RED": "RJ", "BIG JOKER": "RJ", "大王": "RJ",
}
SUIT_LETTERS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "♤": "S", "♡": "H", "♢": "D", "♧": "C"}
CARD_TEXT = re.compile(r"(10|[2-9TJQKA])([SHDC])")

#: Names in words, rank first: ``10 of clubs``, ``Ace_of_Spades``, ``queen hearts``.
RANK_WORDS = {
    "ACE": "A", "KING": "K", "QUEEN": "Q", "JACK": "J", "KNAVE": "J", "TEN": "10", "NINE": "9",
    "EIGHT": "8", "SEVEN": "7", "SIX": "6", "FIVE": "5", "FOUR": "4", "THREE": "3", "TWO": "2", "DEUCE": "2",
}
SUIT_WORDS = {
    "CLUB": "c", "CLUBS": "c", "TREFOIL": "c", "TREFOILS": "c", "SPADE": "s", "SPADES": "s", "PIKE": "s",
    "PIKES": "s", "HEART": "h", "HEARTS": "h", "DIAMOND": "d", "DIAMONDS": "d", "TILE": "d", "TILES": "d",
}
WORDS_NAME = re.compile(r"(\w+?)\s*(?:OF\s+)?(\w+)")

#: Spellings named in the error for names that are no card.
EXAMPLES = "例如 / e.g. 10c, QS, TC, ♣10, BJ, RED JOKER, 10 of clubs"


class LabelError(ValueError):
    """A labelled folder that cannot be read; the message is Chinese, then English."""


def card_from_name(name: str) -> str | None:
    """The card id a label name spells, or None: card text (``10c``, ``Qs``, ``BJ``), the common
    spellings (``10C``, ``QS``, ``TC``, ``♣10``, ``BLACK JOKER``, ``JOKER_RED``, ``大王``) and
    names in words, rank first (``10 of clubs``, ``Ace_of_Spades``, ``queen hearts``,
    ``10 Trefoils``), any case.

    >>> [card_from_name(n) for n in ("10C", "TC", "♣10", "10 of clubs", "ace_of_spades", "joker")]
    ['10c', '10c', '10c', '10c', 'As', None]
    """
    text = " ".join(str(name).upper().replace("_", " ").replace("-", " ").split())
    if text in JOKER_SPELLINGS:
        return JOKER_SPELLINGS[text]
    packed = "".join(SUIT_LETTERS.get(ch, ch) for ch in text.replace(" ", ""))
    match = CARD_TEXT.fullmatch(packed) or CARD_TEXT.fullmatch(packed[1:] + packed[:1])  # suit first: ♣10
    if match is not None:
        rank = "10" if match.group(1) == "T" else match.group(1)
        return rank + match.group(2).lower()
    words = WORDS_NAME.fullmatch(text)
    if words is None or words.group(2) not in SUIT_WORDS:
        return None
    rank = RANK_WORDS.get(words.group(1), "10" if words.group(1) == "T" else words.group(1))
    card = rank + SUIT_WORDS[words.group(2)]
    return card if card in CARD_INDEX else None


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
        raise LabelError(f"{where}: names 的条目应为 '编号: 名称' / a names entry should be 'id: name', got {item!r}")
    return int(key.strip()), _unquote(value)


def read_names(path: Path) -> dict[int, str]:
    """Class id -> name from a YOLO ``data.yaml``'s ``names``: a block list (``- 10c``), a block
    mapping (``0: 10c``), or a flow list or mapping on one or more lines. Only that key is read."""
    try:
        lines = [_without_comment(line) for line in Path(path).read_text(encoding="utf-8-sig").splitlines()]
    except (OSError, UnicodeDecodeError) as exc:
        raise LabelError(f"读不了 {path} / cannot read {path}: {exc}") from None
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
                raise LabelError(f"{where}: names 没有结束的 {close} / names has no closing {close}")
            items = _split_flow(rest[1:-1])
            if close == "]":
                return dict(enumerate(_unquote(item) for item in items))
            return dict(_key_value(item, where) for item in items)
        if rest:
            raise LabelError(f"{where}: 看不懂 names / cannot read names: {rest!r}")
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
            raise LabelError(f"{where}: names 混用了列表和映射 / names mixes a list and a mapping")
        return dict(enumerate(listed)) if listed else names
    raise LabelError(f"{path} 里没有 names / {path} has no names")


def parse_labels(text: str, where: str, classes: set[int]) -> np.ndarray:
    """The ``class cx cy w h`` rows of a YOLO label file, shape (N, 5); a bad line is a
    :class:`LabelError` naming ``where`` and the line number. A class not in ``classes``, a value
    outside 0-1, an empty box, or extra columns (a polygon's points, not a YOLO box) are refused."""
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            values = [float(v) for v in line.split()]
        except ValueError:
            values = []
        if len(values) != 5 or values[0] != int(values[0]) or int(values[0]) not in classes \
                or not all(0 <= v <= 1 for v in values[1:]) or values[3] <= 0 or values[4] <= 0:
            raise LabelError(f"{where}:{number}: 标注行应为 '类别 cx cy w h'（类别在 data.yaml 里，其余在 0-1 之间，"
                             f"w 和 h 大于 0） / a label line is 'class cx cy w h' (class in data.yaml, the rest 0-1, "
                             f"w and h above 0), got {line.strip()!r}")
        rows.append(values)
    return np.array(rows, np.float64).reshape(-1, 5)


@dataclass
class LabelledImage:
    """One image of the folder: its path and its labelled boxes (pixels) with their card ids."""

    path: Path
    boxes: np.ndarray
    cards: list[str]


@dataclass
class LabelledFolder:
    """A folder as read: its images in sorted path order, the class names, the classes that
    spell a card (class -> card id), and the names left out with their box counts."""

    images: list[LabelledImage]
    names: dict[int, str]
    cards: dict[int, str]
    ignored: dict[str, int] = field(default_factory=dict)


def _card_map(yaml: Path, skip_unknown: bool) -> tuple[dict[int, str], dict[int, str]]:
    names = read_names(yaml)
    if not names:
        raise LabelError(f"{yaml}: names 是空的 / names is empty")
    spelt = {k: card_from_name(v) for k, v in names.items()}
    cards = {k: c for k, c in spelt.items() if c is not None}
    if skip_unknown and not cards:
        raise LabelError(f"{yaml}: 没有一个名称是牌 / no name spells a card ({EXAMPLES}): "
                         f"{', '.join(map(repr, list(names.values())[:8]))}")
    unknown = [names[k] for k in sorted(spelt) if spelt[k] is None]
    if unknown and not skip_unknown:
        raise LabelError(f"{yaml}: 这些名称不是牌 / these names are no card: {', '.join(map(repr, unknown))} "
                         f"({EXAMPLES})")
    return names, cards


def _image_label_dirs(folder: Path) -> list[tuple[Path, Path]]:
    """Where a folder keeps its images and labels: ``images/`` and ``labels/``, or, as a Roboflow
    export has them, ``train/images`` and ``train/labels`` (and ``valid``, ``test``) side by side."""
    if (folder / "images").is_dir():
        return [(folder / "images", folder / "labels")]
    return [(sub / "images", sub / "labels") for sub in sorted(folder.iterdir())
            if sub.is_dir() and (sub / "images").is_dir()]


def read_label_folder(folder: str | Path, *, limit: int | None = None, skip_unknown: bool = False,
                      load: Callable[[Path], np.ndarray] | None = None) -> LabelledFolder:
    """Read a YOLO folder (see the module's text): its names mapped to card ids and, for each of
    the first ``limit`` images (all if None), its boxes in image pixels.

    A class whose name spells no card is refused (every such name listed) unless
    ``skip_unknown``: then its boxes are left out and counted in ``ignored`` by name, and only a
    folder where no name spells a card is refused. An image whose label file is empty is kept
    with no box (and not opened). ``load`` reads an image (default
    :func:`vision.detector.read_image`); only its size is used. Every fault is a
    :class:`LabelError` saying which file: no folder or no ``data.yaml``, names empty or that
    are no card, no image, images without their label file, a malformed label line, an
    unreadable label file or image."""
    if limit is not None and limit < 1:
        raise LabelError(f"limit 至少为 1 / limit must be 1 or more, not {limit}")
    from vision.detector import ImageError, read_image

    if load is None:
        load = read_image

    folder = Path(folder)
    if not folder.is_dir():
        raise LabelError(f"没有这个文件夹 / no such folder: {folder}")
    yaml = folder / "data.yaml"
    if not yaml.is_file():
        raise LabelError(f"{folder} 里没有 data.yaml / no data.yaml in {folder}")
    names, cards = _card_map(yaml, skip_unknown)
    pairs = _image_label_dirs(folder)
    paths = sorted((p, image_dir, label_dir) for image_dir, label_dir in pairs for p in image_dir.rglob("*")
                   if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)
    if not paths:
        raise LabelError(f"{folder / 'images'} 里没有图片 / no images in {folder / 'images'}")
    label_files = {path: (label_dir / path.relative_to(image_dir)).with_suffix(".txt")
                   for path, image_dir, label_dir in paths[:limit]}
    missing = [str(path.relative_to(folder)) for path, label in label_files.items() if not label.is_file()]
    if missing:
        more = f" ... (+{len(missing) - 5})" if len(missing) > 5 else ""
        raise LabelError(f"{len(missing)} 张图片没有标注文件 / {len(missing)} image(s) without a label file in "
                         f"{label_files[next(iter(label_files))].parent}: {', '.join(missing[:5])}{more}")
    ignored: Counter[str] = Counter()
    images = []
    for path, label in label_files.items():
        try:
            text = label.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise LabelError(f"读不了 {label} / cannot read {label}: {exc}") from None
        rows = parse_labels(text, str(label), set(names))
        keep = np.array([int(c) in cards for c in rows[:, 0]], bool)
        ignored.update(names[int(c)] for c in rows[~keep, 0])
        rows = rows[keep]
        boxes = np.zeros((0, 4), np.float64)
        if len(rows):
            try:
                h, w = load(path).shape[:2]
            except ImageError as exc:
                raise LabelError(f"读不了图片 / unreadable image: {exc}") from None
            boxes = np.stack([(rows[:, 1] - rows[:, 3] / 2) * w, (rows[:, 2] - rows[:, 4] / 2) * h,
                              (rows[:, 1] + rows[:, 3] / 2) * w, (rows[:, 2] + rows[:, 4] / 2) * h], axis=1)
        images.append(LabelledImage(path, boxes, [cards[int(c)] for c in rows[:, 0]]))
    return LabelledFolder(images, names, cards, dict(ignored))


def label_lines(rows: Iterable[tuple[str, float, float, float, float]]) -> str:
    """The label file of ``(card, cx, cy, w, h)`` rows (0-1 of the image's size): one
    ``class cx cy w h`` line each, the class a card's place in :data:`vision.cards.CARD_IDS`, as
    :func:`card_names_yaml` names them."""
    return "".join(f"{CARD_IDS.index(card)} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}\n" for card, cx, cy, w, h in rows)


def card_names_yaml(*comments: str) -> str:
    """A ``data.yaml`` whose ``names`` are the 54 cards in :data:`vision.cards.CARD_IDS` order (the
    classes :func:`label_lines` writes), each comment a ``#`` line above them."""
    head = "".join(f"# {line}\n" for line in comments)
    names = "".join(f"  - {json.dumps(card)}\n" for card in CARD_IDS)
    return f"{head}nc: {len(CARD_IDS)}\nnames:\n{names}"


@dataclass
class CornerCounts:
    """What :func:`corner_labels` made of an image's boxes: boxes already on a corner index, boxes
    on whole cards, corners found inside them and given their card, whole cards with no corner
    found, corners inside two or more cards that the reader's rank could not settle, and boxes
    inside a card that the reader calls no index (a big pip, a court figure), left out."""

    corner_boxes: int = 0
    card_boxes: int = 0
    corners_found: int = 0
    cards_without_corner: int = 0
    ambiguous: int = 0
    not_an_index: int = 0

    def add(self, other: CornerCounts) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


#: A labelled box the finder's box overlaps this much is a corner label; a finder box is inside a
#: labelled card when this share of its area lies in it.
CORNER_IOU = 0.3
INSIDE_SHARE = 0.8
#: Finder boxes at this score or more are taken as corners inside labelled cards.
CORNER_FLOOR = 0.25


def _rank(card: str) -> str:
    return card if card in ("BJ", "RJ") else card[:-1]


def corner_labels(detector: CardDetector, image: np.ndarray, boxes: np.ndarray, cards: list[str],
                  floor: float = CORNER_FLOOR) -> tuple[np.ndarray, list[str], CornerCounts]:
    """The corner-index boxes and cards of one labelled image whose boxes may be corners or whole
    cards (a photo labelled card by card). A box that a finder box (``detector.find``) overlaps at
    IoU :data:`CORNER_IOU` or more is a corner label and kept as it is; where at least half the
    boxes are, all are (an index the finder misses is still a corner). Any other box is a whole
    card: the finder boxes lying inside it (:data:`INSIDE_SHARE` of their area) are its corners
    and take its card, except those the reader (``detector.read``) calls no index at all (big
    pips, court figures). A finder box inside two or more cards (a fan) takes the one whose rank the
    reader finds likeliest (``detector.read``, summed over suits, so a suit the reader mistakes
    does not decide it); two candidates of one rank leave it out."""
    from vision.boxes import iou_matrix

    counts = CornerCounts()
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    found, scores, _ = detector.find(image, floor)
    if not len(boxes):
        return boxes, [], counts
    overlap = iou_matrix(boxes, found).max(axis=1) if len(found) else np.zeros(len(boxes))
    is_corner = overlap >= CORNER_IOU
    if is_corner.mean() >= 0.5:  # a photo labelled by corners: those the finder missed are corners too
        is_corner[:] = True
    counts.corner_boxes, counts.card_boxes = int(is_corner.sum()), int((~is_corner).sum())
    out_boxes, out_cards = [boxes[is_corner]], [c for c, k in zip(cards, is_corner, strict=True) if k]
    whole = np.flatnonzero(~is_corner)
    if not len(whole) or not len(found):
        counts.cards_without_corner = len(whole)
        return np.concatenate(out_boxes), out_cards, counts
    taken = iou_matrix(found, boxes[is_corner]).max(axis=1) >= CORNER_IOU if is_corner.any() else \
        np.zeros(len(found), bool)
    lo = np.maximum(found[:, None, :2], boxes[None, whole, :2])
    hi = np.minimum(found[:, None, 2:], boxes[None, whole, 2:])
    inter = np.clip(hi - lo, 0, None).prod(axis=2)
    area = np.maximum((found[:, 2:] - found[:, :2]).prod(axis=1), 1e-9)
    inside = (inter / area[:, None] >= INSIDE_SHARE) & ~taken[:, None]
    candidates = np.flatnonzero(inside.any(axis=1))
    rank_probs: dict[str, np.ndarray] = {}
    if len(candidates):
        classes = list(detector.reader_classes)
        probs = detector.read(image, found[candidates])
        # A big pip or a court figure the finder boxed inside the card: the reader says no index.
        if "none" in classes:
            no_index = probs.argmax(axis=1) == classes.index("none")
            counts.not_an_index += int(no_index.sum())
            inside[candidates[no_index]] = False
        for name in {_rank(cards[j]) for j in whole}:
            cols = [i for i, c in enumerate(classes) if c != "none" and _rank(c) == name]
            rank_probs[name] = probs[:, cols].sum(axis=1)
    given = np.zeros(len(whole), bool)
    for i in np.flatnonzero(inside.any(axis=1)):
        options = np.flatnonzero(inside[i])
        if len(options) > 1:
            row = int(np.flatnonzero(candidates == i)[0])
            ranks = [_rank(cards[whole[j]]) for j in options]
            if len(set(ranks)) < len(ranks):
                counts.ambiguous += 1
                continue
            options = options[[int(np.argmax([rank_probs[r][row] for r in ranks]))]]
        j = int(options[0])
        out_boxes.append(found[i:i + 1])
        out_cards.append(cards[whole[j]])
        given[j] = True
        counts.corners_found += 1
    counts.cards_without_corner = int((~given).sum())
    return np.concatenate(out_boxes), out_cards, counts


def photos_named_by_card(folder: str | Path) -> list[tuple[Path, str]]:
    """A folder of photos each named after the one card it shows (``10c.jpg``, ``queen of
    hearts.png``, ``BJ-2.jpg``: the name before a ``-`` or ``_`` and a number), in name order;
    ``[]`` when any image's name spells no card."""
    folder = Path(folder)
    paths = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES) \
        if folder.is_dir() else []
    named = []
    for path in paths:
        card = card_from_name(path.stem) or card_from_name(re.sub(r"[\s_\-]*\(?\d+\)?$", "", path.stem))
        if card is None:
            return []
        named.append((path, card))
    return named


def corners_in_photo(detector: CardDetector, image: np.ndarray, card: str, floor: float = 0.4,
                     most: int = 4) -> tuple[np.ndarray, list[str]]:
    """The corner indices of a photo of one card: the finder's ``most`` best boxes at ``floor``
    or more that the reader does not call no index (a card has two to four indices; its big pips
    and court art, when boxed, read as none)."""
    found, scores, _ = detector.find(image, floor)
    if len(found) and "none" in detector.reader_classes:
        # Big pips and court figures the finder boxed: the reader calls them no index.
        probs = detector.read(image, found)
        index = probs.argmax(axis=1) != list(detector.reader_classes).index("none")
        found, scores = found[index], scores[index]
    keep = np.argsort(-scores)[:most]
    return found[keep], [card] * len(keep)


@dataclass
class Samples:
    """A folder made ready to enroll: ``(image, corner boxes, cards)`` per photo with a box, and
    what was left out: boxes of classes that name no card (by name) and what became of boxes on
    whole cards (:class:`vision.labels.CornerCounts`)."""

    items: list[tuple[np.ndarray, np.ndarray, list[str]]]
    photos: int
    skipped: dict[str, int] = field(default_factory=dict)
    corners: CornerCounts = field(default_factory=CornerCounts)


def labelled_images(folder: str | Path) -> tuple[list[LabelledImage], dict[str, int]]:
    """The images of a YOLO folder (:func:`vision.labels.read_label_folder`) that have a box of a
    card, and the boxes of classes naming no card, counted by name; a folder with no card box at
    all is an error."""
    read = read_label_folder(folder, skip_unknown=True)
    images = [item for item in read.images if item.cards]
    if not images:
        raise LabelError(f"{folder} 里没有任何标注框 / no labelled box in {folder}")
    return images, read.ignored


def enrollment_samples(folder: str | Path, detector: CardDetector) -> Samples:
    """``folder`` (a YOLO folder or photos named by card, see the module's text) as samples to
    enroll, corner boxes found where the labels are whole cards."""
    from vision.detector import ImageError, read_image

    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise LabelError(f"{folder} 是文件，不是文件夹 / {folder} is a file, not a folder")
    named = photos_named_by_card(folder) if folder.is_dir() and not (folder / "data.yaml").is_file() else []
    items: list[tuple[np.ndarray, np.ndarray, list[str]]] = []
    if named:
        for path, card in named:
            try:
                image = read_image(path)
            except ImageError as exc:
                raise LabelError(f"读不了图片 / unreadable image: {exc}") from None
            boxes, cards = corners_in_photo(detector, image, card)
            if len(boxes):
                items.append((image, boxes, cards))
        if not items:
            raise LabelError(f"{folder} 的照片里找不到牌角 / no corner index found in the photos of {folder}")
        return Samples(items, len(named))
    images, skipped = labelled_images(folder)
    counts = CornerCounts()
    for item in images:
        try:
            image = read_image(item.path)
        except ImageError as exc:
            raise LabelError(f"读不了图片 / unreadable image: {exc}") from None
        boxes, cards, found = corner_labels(detector, image, item.boxes, item.cards)
        counts.add(found)
        if len(boxes):
            items.append((image, boxes, cards))
    if not items:
        raise LabelError(f"{folder} 的标注框里找不到牌角 / no corner index found in the labelled boxes of {folder}")
    return Samples(items, len(images), skipped, counts)
