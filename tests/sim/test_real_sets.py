"""``ddz-table dataset real`` on a tiny git mirror made here: a fake Roboflow export whose source
photos come in flipped versions, converted to one un-mirrored photo each, split by source photo.

The fake photos carry a bright square in their top-left quarter as taken: a turn of 180 degrees
moves it to the bottom right (still readable), one flip to the top right or bottom left
(mirrored). The injected scorer prefers the readable quarters, as the detector prefers
un-mirrored ranks.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import cv2
import numpy as np
import pytest

from cli.main import main
from sim.real_sets import (
    RealSetError,
    convert,
    decode_capture_log,
    detector_scorer,
    flip_between,
    on_test_side,
)
from vision.cards import CARD_IDS, CARD_INDEX
from vision.detections import Detections
from vision.labels import read_label_folder

ROOT = "datasets/poker-cards-4"
NAMES = ["10 of hearts", "3 of spades", "jack  of clubs"]


def photo(seed: int, marker: bool = True) -> np.ndarray:
    """A noisy 64x64 picture (every version of it tells its flip apart) with, as taken, a
    bright square in the top-left quarter."""
    image: np.ndarray = np.random.default_rng(seed).integers(0, 120, (64, 64, 3)).astype(np.uint8)
    image = cv2.GaussianBlur(image, (5, 5), 0)
    if marker:
        image[4:20, 4:20] = 250
    return image


def encoded(image: np.ndarray) -> bytes:
    return cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 98])[1].tobytes()


#: Labels of each source photo as taken: (class in NAMES, cx, cy, w, h).
TAKEN = {"IMGA": [(2, 0.25, 0.3, 0.3, 0.4), (1, 0.7, 0.6, 0.2, 0.3)], "IMGB": [(0, 0.2, 0.5, 0.2, 0.2)],
         "IMGC": [(1, 0.6, 0.4, 0.3, 0.3)], "IMGD": [(0, 0.5, 0.5, 0.4, 0.4)]}


def version(source: str, flip: int | None, seed: int, marker: bool = True) -> tuple[bytes, str]:
    """A version's image bytes and label text, flipped as Roboflow's augmentation would."""
    image = photo(seed, marker)
    rows = TAKEN[source]
    if flip is not None:
        image = cv2.flip(image, flip)
        rows = [(c, 1 - x if flip in (1, -1) else x, 1 - y if flip in (0, -1) else y, w, h) for c, x, y, w, h in rows]
    return encoded(image), "".join(f"{c} {x:.6f} {y:.6f} {w:.6f} {h:.6f}\n" for c, x, y, w, h in rows)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          check=True, capture_output=True, text=True).stdout


@pytest.fixture
def mirror(tmp_path) -> Path:
    """A bare mirror holding the export: IMGA mirrored in test/ and as taken in train/; IMGB only
    mirrored (valid/); IMGC only turned 180 degrees; IMGD with no marker (the scorer ties)."""
    work = tmp_path / "work"
    versions = {"test/IMGA_jpg.rf.aa01": version("IMGA", 0, 1), "train/IMGA_jpg.rf.bb02": version("IMGA", None, 1),
                "valid/IMGB_jpg.rf.cc03": version("IMGB", 1, 2), "train/IMGC_jpg.rf.dd04": version("IMGC", -1, 3),
                "train/IMGD_jpg.rf.ee05": version("IMGD", None, 4, marker=False)}
    for name, (image, labels) in versions.items():
        split, stem = name.split("/")
        for kind, data in (("images", image), ("labels", labels.encode())):
            path = work / ROOT / split / kind / (stem + (".jpg" if kind == "images" else ".txt"))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    names = ", ".join(f"'{n}'" for n in NAMES)
    (work / ROOT / "data.yaml").write_text(f"train: ../train/images\nnc: {len(NAMES)}\nnames: [{names}]\n")
    git(work.parent, "init", "-q", str(work))
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "export")
    bare = tmp_path / "mirror.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True)
    return bare


def marker_scorer(image: np.ndarray, boxes: np.ndarray, cards: list) -> tuple:
    """1 when the bright square sits in a readable quarter (top left or bottom right), 0 when
    in a mirrored one; 0 either way when there is no square: a tie."""
    assert len(boxes) == len(cards) and all(c in CARD_INDEX for c in cards)
    h, w = image.shape[:2]
    quarters = {(r, c): image[r * h // 2:(r + 1) * h // 2, c * w // 2:(c + 1) * w // 2].mean()
                for r in (0, 1) for c in (0, 1)}
    brightest = max(quarters, key=lambda q: quarters[q])
    if quarters[brightest] - min(quarters.values()) < 25:
        return (0,)
    return (1,) if brightest in ((0, 0), (1, 1)) else (0,)


def test_each_source_photo_is_kept_once_and_never_mirrored(mirror, tmp_path):
    summary = convert("poker-cards", mirror, tmp_path / "out", commit="HEAD", scorer=marker_scorer)
    counts = summary["poker-cards"]
    assert counts["sources"] == 4 and counts["versions"] == 5
    assert counts["mirrored_versions"] == 2  # IMGA's test version and IMGB
    assert counts["versions_disagreeing"] == 0
    assert (counts["kept_as_is"], counts["other_version_kept"], counts["flipped_back"], counts["undecided"]) == (2, 1, 1, 1)
    folder = tmp_path / "out" / "poker-cards"
    assert sorted(p.name for p in (folder / "images").iterdir()) == ["IMGA.jpg", "IMGB.jpg", "IMGC.jpg", "IMGD.jpg"]
    for name in ("IMGA", "IMGB", "IMGC"):
        image = cv2.imread(str(folder / "images" / f"{name}.jpg"))
        assert marker_scorer(image, np.zeros((0, 4)), []) == (1,), name
    # IMGA's un-mirrored version is kept byte for byte; IMGB is flipped back, its box where it was taken.
    assert (folder / "images" / "IMGA.jpg").read_bytes() == version("IMGA", None, 1)[0]
    assert (folder / "labels" / "IMGB.txt").read_text() == f"{CARD_INDEX['10h']} 0.200000 0.500000 0.200000 0.200000\n"


def test_names_become_card_ids_and_the_folder_reads_as_yolo(mirror, tmp_path):
    convert("poker-cards", mirror, tmp_path / "out", commit="HEAD", scorer=marker_scorer)
    read = read_label_folder(tmp_path / "out" / "poker-cards")
    assert list(read.names.values()) == list(CARD_IDS)
    by_name = {item.path.stem: item.cards for item in read.images}
    assert by_name["IMGA"] == ["Jc", "3s"]  # 'jack  of clubs', double space and all
    line = (tmp_path / "out" / "poker-cards" / "labels" / "IMGA.txt").read_text().splitlines()[0]
    assert line == f"{CARD_INDEX['Jc']} 0.250000 0.300000 0.300000 0.400000"
    source = json.loads((tmp_path / "out" / "poker-cards" / "source.json").read_text())
    assert source["license"].startswith("CC BY 4.0") and source["training_allowed"] is True
    assert len(source["commit"]) == 40 and source["counts"]["boxes"] == 5


def test_the_split_is_by_source_photo_and_the_same_for_a_seed(mirror, tmp_path):
    def parts(out: Path, **options) -> tuple[list[str], list[str]]:
        convert("poker-cards", mirror, out, commit="HEAD", scorer=marker_scorer, **options)
        train, test = (sorted(p.stem for p in (out / f"poker-cards-{part}" / "images").glob("*"))
                       for part in ("train", "test"))
        return train, test

    train, test = parts(tmp_path / "a", seed=3)
    assert sorted(train + test) == ["IMGA", "IMGB", "IMGC", "IMGD"] and not set(train) & set(test)
    assert parts(tmp_path / "b", seed=3) == (train, test)
    assert test == sorted(s for s in ("IMGA", "IMGB", "IMGC", "IMGD") if on_test_side(s, 3, 0.5))
    assert parts(tmp_path / "c", test_share=0.0)[1] == [] and parts(tmp_path / "d", test_share=1.0)[0] == []


def test_a_folder_it_did_not_write_is_not_replaced(mirror, tmp_path):
    (tmp_path / "out" / "poker-cards").mkdir(parents=True)
    (tmp_path / "out" / "poker-cards" / "mine.txt").write_text("keep")
    with pytest.raises(RealSetError, match="already holds other files"):
        convert("poker-cards", mirror, tmp_path / "out", commit="HEAD", scorer=marker_scorer)
    assert (tmp_path / "out" / "poker-cards" / "mine.txt").read_text() == "keep"


def test_a_bad_git_directory_is_a_clear_error_chinese_first(tmp_path, capsys):
    with pytest.raises(RealSetError, match=r"^没有这个 git 目录 / no such git directory"):
        convert("poker-cards", tmp_path / "nothing", tmp_path / "out", scorer=marker_scorer)
    (tmp_path / "plain").mkdir()
    with pytest.raises(RealSetError, match="不是 git 目录 / is not a git directory"):
        convert("poker-cards", tmp_path / "plain", tmp_path / "out", scorer=marker_scorer)
    assert main(["dataset", "real", "poker-cards", "--git", str(tmp_path / "nothing"), "--out", str(tmp_path)]) == 2
    assert "no such git directory" in capsys.readouterr().err
    assert main(["dataset", "real", "hearts", "--git", str(tmp_path), "--out", str(tmp_path)]) == 2
    assert "no set 'hearts'" in capsys.readouterr().err


def test_a_missing_commit_is_named(mirror, tmp_path):
    with pytest.raises(RealSetError, match="has no commit b4f4f13"):
        convert("poker-cards", mirror, tmp_path / "out", scorer=marker_scorer)


def test_flip_between_tells_the_four_versions_apart():
    image = photo(7)
    assert [flip_between(image, cv2.flip(image, c) if c is not None else image) for c in (None, 1, 0, -1)] == \
        ["none", "horizontal", "vertical", "both"]


class FakeDetector:
    """Reads a 4 of spades centred at (15, 15) and a 5 of spades at (50, 50)."""

    def detect(self, image):
        return Detections(np.array([[10, 10, 20, 20], [45, 45, 55, 55]], np.float32), np.array([0.8, 0.4], np.float32),
                          np.array([CARD_INDEX["4s"], CARD_INDEX["5s"]]))


def test_the_detector_scorer_counts_reads_whose_rank_matches_a_box_around_them():
    score = detector_scorer(FakeDetector())
    image = np.zeros((64, 64, 3), np.uint8)
    assert score(image, np.array([[0, 0, 30, 30], [40, 40, 60, 60]]), ["4h", "4c"]) == (1, pytest.approx(0.8))
    assert score(image, np.array([[0, 0, 30, 30], [40, 40, 60, 60]]), ["3s", "5c"]) == (1, pytest.approx(0.4))
    assert score(image, np.array([[30, 30, 40, 40]]), ["4s"]) == (0, 0.0)


def test_the_shipped_detector_is_the_default_scorer(mirror, tmp_path):
    summary = convert("poker-cards", mirror, tmp_path / "out", commit="HEAD")
    counts = summary["poker-cards"]
    assert counts["kept_as_is"] + counts["other_version_kept"] + counts["flipped_back"] == counts["sources"] == 4


def test_a_capture_log_decodes_to_a_picture_taking_the_last_whole_capture():
    words = np.arange(8192, dtype=np.uint32) * 0x00010001
    cut = "".join(f"index: {i}, data: {w:x}\n" for i, w in enumerate(words[:100]))
    whole = "".join(f"index: {i}, data: {w:x}\n" for i, w in enumerate(words))
    image = decode_capture_log("PuTTY log\n" + cut + "noise\n" + whole + "index: 0, data: -8.03\n")
    assert image.shape == (128, 128, 3) and image.dtype == np.uint8
    assert decode_capture_log(cut) is None
