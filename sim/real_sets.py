"""Public real card-photo sets, converted from their git mirrors (``ddz-table dataset real``).

Real photographs judge every detector change before rendered ones do, and none is committed
here: this reads a set straight from a bare git mirror already on the machine (``git archive``
of one commit; nothing is downloaded) and writes it under ``OUT``:

- a labelled set as a YOLO folder that :func:`vision.labels.read_label_folder` reads:
  ``data.yaml`` whose ``names`` are the 54 card ids in :data:`vision.cards.CARD_IDS` order,
  ``images/`` and ``labels/`` (``class cx cy w h``, 0-1);
- a set of one photo per card as a flat folder of ``<card id>.<ext>`` files (``10c.jpg``).

Each set goes to ``OUT/<set>/`` whole and to ``OUT/<set>-train/`` and ``OUT/<set>-test/``,
split by source photo with a seeded hash (:func:`on_test_side`), so the same seed always
holds out the same photos. Every folder gets a ``source.json``: repository, commit, path,
license, whether training on it is allowed, and counts.

Sets (:data:`SETS`):

- ``poker-cards``: a Roboflow export (whole-card boxes) that holds each source photo up to
  three times, flipped at random. A single flip mirrors the card indices, so one version per
  source photo is kept, un-mirrored: the detector reads a version and its mirror image, and
  the orientation whose reads agree better with the labels wins (:func:`detector_scorer`).
- ``bidly``: seven labelled bridge deals (corner boxes) and 52 single-card photos.
- ``ece395``: one capture per card (and the jokers) from a board camera, kept as hex words in
  serial-console logs; decoded here into pictures. No license: validation only.

>>> convert("bidly", "/work/.mirror/MrKeSuu+bidly/repo", "/tmp/realcards")  # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.cards import CARD_IDS, split_card
from vision.labels import LabelError, card_from_name, card_names_yaml, label_lines, parse_labels, read_names

#: Scores how well a photo's detector reads agree with its labels: a tuple of numbers of fixed
#: length, compared in order, higher is better (scores of several versions are added up).
#: Arguments: a BGR image, its labelled boxes (N, 4) in pixels, their card ids.
Scorer = Callable[[np.ndarray, np.ndarray, list], tuple]


class RealSetError(ValueError):
    """A mirror or set that cannot be converted; the message is Chinese, then English."""


@dataclass(frozen=True)
class RealSet:
    """Where a set lives and on what terms it may be used."""

    name: str
    repository: str
    commit: str
    paths: tuple[str, ...]
    license: str
    training: bool

    @property
    def use(self) -> str:
        return "training and validation, with attribution" if self.training else "validation only (no license)"


#: ece395's capture sessions: output set -> its log folder (176x144 mode, 128x128, 128x128 under a white LED).
ECE395_SESSIONS = {"ece395-qcif": "log_data", "ece395-128": "logdata", "ece395-led": "log_white_led"}
ECE395_FOLDER = "Playing Card Classifier Model"

SETS = {s.name: s for s in (
    RealSet("poker-cards", "https://github.com/farukalamai/realtime-poker-card-detection-jetson", "b4f4f13",
            ("datasets/poker-cards-4",), "CC BY 4.0 (Roboflow poker-cards-fmjio v4)", True),
    RealSet("bidly", "https://github.com/MrKeSuu/bidly", "ceacbce",
            ("detector/evaluation/test-deals", "rawdata/data/cards"), "MIT (LICENSE, Copyright (c) 2018 geaxgx)", True),
    RealSet("ece395", "https://github.com/vincentbanguyen/ECE395-Poker-Card-Classifier-Device", "4b91de6",
            tuple(f"{ECE395_FOLDER}/{f}" for f in ECE395_SESSIONS.values()),
            "none found (README, no LICENSE; only the STM32 driver folders carry licenses)", False),
)}


@dataclass
class Photo:
    """One output photo: its source key (what the split hashes), file name stem and suffix,
    encoded bytes, and its boxes as (card id, cx, cy, w, h) rows, or None in a card folder."""

    key: str
    stem: str
    suffix: str
    data: bytes
    boxes: list | None = None


def on_test_side(key: str, seed: int, share: float) -> bool:
    """Whether the source photo ``key`` is held out: a seeded hash, the same on every machine.

    >>> on_test_side("IMG_1", 0, 0.0), on_test_side("IMG_1", 0, 1.0)
    (False, True)
    """
    digest = hashlib.sha256(f"{seed}/{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


def git_files(git_dir: str | os.PathLike, commit: str, paths: list[str]) -> tuple[str, dict[str, bytes]]:
    """The full commit id and every file under ``paths`` at ``commit`` of a bare mirror, read
    with ``git archive`` (no work tree needed), as path -> bytes."""
    git = ["git", "--git-dir", str(git_dir)]
    if not Path(git_dir).is_dir():
        raise RealSetError(f"没有这个 git 目录 / no such git directory: {git_dir}")
    found = subprocess.run([*git, "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"],
                           capture_output=True, text=True)
    if found.returncode != 0:
        probe = subprocess.run([*git, "rev-parse", "--git-dir"], capture_output=True, text=True)
        if probe.returncode != 0:
            raise RealSetError(f"{git_dir} 不是 git 目录 / is not a git directory (give the mirror's git "
                               f"directory, such as /work/.mirror/OWNER+NAME/repo)")
        raise RealSetError(f"{git_dir} 里没有提交 {commit} / has no commit {commit}")
    full = found.stdout.strip()
    archive = subprocess.run([*git, "archive", "--format=tar", full, "--", *paths], capture_output=True)
    if archive.returncode != 0:
        raise RealSetError(f"{git_dir} 的 {full[:7]} 里没有 {' '.join(paths)} / no {' '.join(paths)} at "
                           f"{full[:7]}: {archive.stderr.decode(errors='replace').strip()}")
    files = {}
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        for member in tar:
            if member.isfile() and (extracted := tar.extractfile(member)) is not None:
                files[member.name] = extracted.read()
    return full, files


def decode(data: bytes, where: str) -> np.ndarray:
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise RealSetError(f"读不了图片 / unreadable image: {where}")
    return image


def pixel_boxes(rows: list, width: int, height: int) -> np.ndarray:
    """(N, 4) pixel boxes ``x1, y1, x2, y2`` of (card, cx, cy, w, h) rows."""
    r = np.array([row[1:] for row in rows], np.float64).reshape(-1, 4)
    return np.stack([(r[:, 0] - r[:, 2] / 2) * width, (r[:, 1] - r[:, 3] / 2) * height,
                     (r[:, 0] + r[:, 2] / 2) * width, (r[:, 1] + r[:, 3] / 2) * height], axis=1)


def mirrored_rows(rows: list) -> list:
    """The rows of a photo flipped left to right."""
    return [(card, 1.0 - cx, cy, w, h) for card, cx, cy, w, h in rows]


def detector_scorer(detector=None) -> Scorer:
    """A :data:`Scorer` from the shipped detector (or ``detector``): (reads whose rank matches
    a labelled card whose box holds the read's centre, their mean confidence). Suit symbols
    look the same in a mirror; ranks (3, 4, 7, J, K, Q) do not, so ranks decide."""
    if detector is None:
        from vision.detector import CardDetector
        detector = CardDetector()

    def score(image: np.ndarray, boxes: np.ndarray, cards: list) -> tuple:
        dets = detector.detect(image)
        ranks = np.array([split_card(c)[0] for c in cards])
        centres = (dets.boxes[:, :2] + dets.boxes[:, 2:]) / 2
        agreeing = []
        for (x, y), card, confidence in zip(centres, dets.class_ids, dets.scores, strict=True):
            if card < 0:
                continue
            inside = (boxes[:, 0] <= x) & (x <= boxes[:, 2]) & (boxes[:, 1] <= y) & (y <= boxes[:, 3])
            if np.any(inside & (ranks == split_card(CARD_IDS[card])[0])):
                agreeing.append(float(confidence))
        return len(agreeing), float(np.mean(agreeing)) if agreeing else 0.0

    return score


#: The four ways a Roboflow version can be turned from another, as cv2.flip codes (None: as is).
FLIPS = {"none": None, "horizontal": 1, "vertical": 0, "both": -1}


def flip_between(a: np.ndarray, b: np.ndarray) -> str:
    """Which of :data:`FLIPS` turns picture ``a`` into ``b`` (two versions of one source photo
    differ only by flips and JPEG noise): the one with the least grey difference at 48x48."""
    def small(image: np.ndarray) -> np.ndarray:
        return cv2.resize(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (48, 48), interpolation=cv2.INTER_AREA)
    sa, sb = small(a).astype(np.float32), small(b).astype(np.float32)

    def gap(code: int | None) -> float:
        return float(np.abs((sa if code is None else cv2.flip(sa, code)) - sb).mean())

    return min(FLIPS, key=lambda k: gap(FLIPS[k]))


ROBOFLOW_VERSION = re.compile(r"(.+?)(?:_(?:jpe?g|png|bmp|webp))?\.rf\.[0-9a-f]+\.(\w+)", re.IGNORECASE)


def roboflow_photos(files: dict[str, bytes], root: str, scorer: Scorer) -> tuple[list[Photo], dict]:
    """One un-mirrored photo per source photo of a Roboflow YOLO export under ``root``
    (``data.yaml``, ``<split>/images``, ``<split>/labels``), and counts of what was found."""
    yaml = files.get(f"{root}/data.yaml")
    if yaml is None:
        raise RealSetError(f"{root} 里没有 data.yaml / no data.yaml in {root}")
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "data.yaml").write_bytes(yaml)
        names = read_names(Path(tmp) / "data.yaml")
    cards = {k: card_from_name(v) for k, v in names.items()}
    unknown = [names[k] for k, c in cards.items() if c is None]
    if unknown:
        raise RealSetError(f"{root}/data.yaml: 这些名称不是牌 / these names are no card: {unknown}")
    versions: dict[str, list[tuple[str, list]]] = {}
    for path in sorted(files):
        parts = path[len(root) + 1:].split("/")
        if len(parts) != 3 or parts[1] != "images":
            continue
        found = ROBOFLOW_VERSION.fullmatch(parts[2])
        source = found.group(1) if found else Path(parts[2]).stem
        label = f"{root}/{parts[0]}/labels/{Path(parts[2]).stem}.txt"
        if label not in files:
            raise RealSetError(f"{path} 没有标注文件 / has no label file {label}")
        try:
            labelled = parse_labels(files[label].decode("utf-8"), label, set(names))
        except LabelError as exc:
            raise RealSetError(str(exc)) from None
        versions.setdefault(source, []).append((path, [(cards[int(r[0])], *map(float, r[1:])) for r in labelled]))
    counts = {"sources": len(versions), "versions": sum(map(len, versions.values())), "mirrored_versions": 0,
              "kept_as_is": 0, "other_version_kept": 0, "flipped_back": 0, "undecided": 0,
              "versions_disagreeing": 0}
    photos = []
    for source, listed in sorted(versions.items()):
        images = [decode(files[path], path) for path, _ in listed]
        # Every version is read as it is and mirrored. A single flip between a version and the
        # first one swaps its two reads, so all of them add up in the first version's frame; the
        # side with more agreeing reads (then higher confidence) is the readable one.
        single = [flip_between(images[0], image) in ("horizontal", "vertical") for image in images]
        total_as_is: float | np.ndarray = 0.0
        total_flipped: float | np.ndarray = 0.0
        verdicts = set()
        for image, (_, rows), swap in zip(images, listed, single, strict=True):
            h, w = image.shape[:2]
            shown = [r[0] for r in rows]
            as_is = np.array(scorer(image, pixel_boxes(rows, w, h), shown), np.float64)
            flipped = np.array(scorer(cv2.flip(image, 1), pixel_boxes(mirrored_rows(rows), w, h), shown), np.float64)
            if swap:
                as_is, flipped = flipped, as_is
            if tuple(as_is) != tuple(flipped):
                verdicts.add(tuple(flipped) > tuple(as_is))
            total_as_is, total_flipped = total_as_is + as_is, total_flipped + flipped
        readable, mirror = (tuple(np.atleast_1d(t).tolist()) for t in (total_as_is, total_flipped))
        mirrored = mirror > readable
        counts["undecided"] += int(mirror == readable)
        counts["versions_disagreeing"] += int(len(verdicts) > 1)
        faces = [mirrored != swap for swap in single]
        counts["mirrored_versions"] += sum(faces)
        stem = re.sub(r"[^\w.-]+", "_", source)
        if not all(faces):
            pick = faces.index(False)
            path, kept = listed[pick]
            counts["kept_as_is" if pick == 0 else "other_version_kept"] += 1
            photos.append(Photo(source, stem, Path(path).suffix.lower(), files[path], kept))
        else:
            ok, data = cv2.imencode(".jpg", cv2.flip(images[0], 1), [cv2.IMWRITE_JPEG_QUALITY, 95])
            counts["flipped_back"] += 1
            photos.append(Photo(source, stem, ".jpg", data.tobytes(), mirrored_rows(listed[0][1])))
    return photos, counts


def bidly_deals(files: dict[str, bytes], root: str) -> list[Photo]:
    """The labelled deals ``deal<n>-md-sq.jpg`` with ``deal<n>-md-sq-net1280-labels.json``."""
    photos = []
    for path in sorted(files):
        found = re.fullmatch(rf"{re.escape(root)}/(deal\d+)-md-sq\.jpg", path)
        label = path[:-4] + "-net1280-labels.json"
        if not found or label not in files:
            continue
        rows = []
        for entry in json.loads(files[label]):
            card, box = card_from_name(entry["name"]), entry["relative_coordinates"]
            if card is None:
                raise RealSetError(f"{label}: {entry['name']!r} 不是牌 / is no card")
            rows.append((card, box["center_x"], box["center_y"], box["width"], box["height"]))
        photos.append(Photo(found.group(1), found.group(1), ".jpg", files[path], rows))
    return photos


def card_photos(files: dict[str, bytes], root: str) -> tuple[list[Photo], list[str]]:
    """Photos named after their card (``10c.jpg``, ``Qs.jpg``) in ``root``, and the names that
    are no card."""
    photos, other = [], []
    for path in sorted(files):
        name = Path(path)
        if str(name.parent) != root or name.suffix.lower() not in (".jpg", ".jpeg", ".png"):
            continue
        card = card_from_name(name.stem)
        if card is None:
            other.append(name.name)
        else:
            photos.append(Photo(card, card, name.suffix.lower(), files[path]))
    return photos, other


LOG_WORD = re.compile(r"index: (\d+), data: ([0-9a-fA-F]{1,8})\s*$", re.MULTILINE)
#: Picture sizes (width, height) by the number of 32-bit words a capture log holds: 128x128
#: captures, and an earlier 176x144 mode whose rows repeat every 172 pixels.
LOG_SIZES = {8192: (128, 128), 12672: (172, 147)}


def decode_capture_log(text: str) -> np.ndarray | None:
    """A BGR picture from a serial-console log of OV7670 RGB565 words (two pixels a word, the
    low half first), or None when the log holds no whole picture of a known size. The channels are
    taken in the order the project's own model was trained on, then each is stretched so the
    white card's paper comes out near white."""
    runs: list[list[int]] = []
    for found in LOG_WORD.finditer(text):
        index = int(found.group(1))
        if index == 0:
            runs.append([])
        if runs and index == len(runs[-1]):
            runs[-1].append(int(found.group(2), 16))
    # A capture cut short and taken again leaves two runs; the last whole one is the picture.
    words = next((run for run in reversed(runs) if len(run) in LOG_SIZES), None)
    if words is None:
        return None
    width, height = LOG_SIZES[len(words)]
    w = np.array(words, np.uint32)
    pixels = np.stack([w & 0xFFFF, w >> 16], axis=1).reshape(-1)[: width * height]
    top, middle, low = (pixels >> 11) & 31, (pixels >> 5) & 63, pixels & 31
    rgb = np.stack([middle * 4, low * 8, top * 8], axis=1).astype(np.float32)
    paper = np.percentile(rgb, 95, axis=0)
    rgb = np.clip(rgb * (240.0 / np.maximum(paper, 16.0)), 0, 255)
    return rgb[:, ::-1].reshape(height, width, 3).astype(np.uint8)


def capture_logs(files: dict[str, bytes], root: str) -> tuple[list[Photo], list[str]]:
    """Pictures decoded from ``<card>.log`` captures in ``root`` (``C2``, ``HT``, ``Black_Joker``);
    and the logs left out (no card, or no picture)."""
    photos, other = [], []
    for path in sorted(files):
        name = Path(path)
        if str(name.parent) != root or name.suffix != ".log":
            continue
        card = card_from_name(name.stem)
        image = decode_capture_log(files[path].decode("utf-8", "replace")) if card else None
        if card is None or image is None:
            other.append(name.name)
            continue
        photos.append(Photo(card, card, ".png", cv2.imencode(".png", image)[1].tobytes()))
    return photos, other


def _fresh(folder: Path) -> None:
    """Empty ``folder`` for a new conversion; a non-empty folder not written here is refused."""
    if folder.exists() and any(folder.iterdir()):
        if not (folder / "source.json").is_file():
            raise RealSetError(f"{folder} 已有别的文件 / already holds other files; choose another --out")
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)


def write_folder(folder: Path, photos: list[Photo], source: dict) -> dict:
    """Write ``photos`` to ``folder`` (YOLO when they carry boxes, else ``<card>.<ext>``) with
    its ``source.json``; returns the counts."""
    _fresh(folder)
    labelled = any(p.boxes is not None for p in photos)
    if labelled:
        (folder / "images").mkdir()
        (folder / "labels").mkdir()
        (folder / "data.yaml").write_text(
            card_names_yaml(f"{source['set']}: {source['repository']} at {source['commit'][:7]}"), encoding="utf-8")
    for photo in photos:
        if labelled:
            (folder / "images" / (photo.stem + photo.suffix)).write_bytes(photo.data)
            (folder / "labels" / f"{photo.stem}.txt").write_text(label_lines(photo.boxes or []), encoding="utf-8")
        else:
            (folder / (photo.stem + photo.suffix)).write_bytes(photo.data)
    counts = {"photos": len(photos)}
    if labelled:
        counts["boxes"] = sum(len(p.boxes or ()) for p in photos)
    (folder / "source.json").write_text(json.dumps({**source, "counts": {**source.get("counts", {}), **counts}},
                                                   indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return counts


def write_set(out: Path, name: str, photos: list[Photo], source: dict, seed: int, test_share: float) -> dict:
    """``out/<name>`` (all), ``out/<name>-train`` and ``out/<name>-test``; counts of each."""
    held = [on_test_side(p.key, seed, test_share) for p in photos]
    split = {"seed": seed, "test_share": test_share, "by": "source photo (sha256 of seed/key)"}
    result = {}
    for part, chosen in (("all", photos), ("train", [p for p, h in zip(photos, held, strict=True) if not h]),
                         ("test", [p for p, h in zip(photos, held, strict=True) if h])):
        folder = out / (name if part == "all" else f"{name}-{part}")
        result[part] = write_folder(folder, chosen, {**source, "set": name, "part": part, "split": split})
    return result


def convert(set_name: str, git_dir: str | os.PathLike, out: str | os.PathLike, *, commit: str | None = None,
            seed: int = 0, test_share: float = 0.5, scorer: Scorer | None = None) -> dict:
    """Convert ``set_name`` (:data:`SETS`) from the mirror ``git_dir`` into ``out``; returns a
    summary per written set (counts of every folder). ``scorer`` decides mirroring for
    ``poker-cards`` (default: :func:`detector_scorer` with the shipped detector)."""
    if set_name not in SETS:
        raise RealSetError(f"没有这个数据集 {set_name!r} / no set {set_name!r}; choose one of {', '.join(SETS)}")
    if not 0.0 <= test_share <= 1.0:
        raise RealSetError(f"--test-share 应在 0 到 1 之间 / must be 0 to 1, not {test_share}")
    real, out = SETS[set_name], Path(out)
    base = {"repository": real.repository, "license": real.license, "training_allowed": real.training,
            "use": real.use}
    summary = {}

    def emit(name: str, photos: list[Photo], path: str, full: str, counts: dict, what: str) -> None:
        if not photos:
            raise RealSetError(f"{path} 里没有可用的照片 / no usable photo in {path}")
        source = {**base, "commit": full, "path": path, "holds": what, "counts": counts}
        summary[name] = {"path": path, **counts, **write_set(out, name, photos, source, seed, test_share)}

    full, files = git_files(git_dir, commit or real.commit, list(real.paths))
    if set_name == "poker-cards":
        photos, counts = roboflow_photos(files, real.paths[0], scorer or detector_scorer())
        emit("poker-cards", photos, real.paths[0], full, counts,
             "640x640 phone photos (stretched), whole-card boxes, one version per source photo, un-mirrored")
    elif set_name == "bidly":
        deals, cards = real.paths
        emit("bidly", bidly_deals(files, deals), deals, full, {},
             "1200x1200 phone photos of bridge deals, corner-index boxes")
        photos, other = card_photos(files, cards)
        emit("bidly-cards", photos, cards, full, {"not_cards": other},
             "one rectified photo per card (the deals' deck), named by card")
    else:
        for name, folder in ECE395_SESSIONS.items():
            path = f"{ECE395_FOLDER}/{folder}"
            photos, other = capture_logs(files, path)
            emit(name, photos, path, full, {"left_out": other},
                 "one OV7670 capture per card decoded from its console log, named by card")
    return summary
