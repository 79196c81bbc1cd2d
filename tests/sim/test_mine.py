"""Reader crops mined from the finder's boxes: labels, files, and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from cli.main import main as cli_main
from sim.synth.mine import label_boxes, mine_crops
from vision.detector import DEFAULT_FINDER, DEFAULT_READER, CardDetector

CORNERS = [
    {"card": "7h", "box": [10, 10, 30, 40], "visible": 1.0},
    {"card": "Qs", "box": [100, 100, 120, 130], "visible": 0.0},  # under another card
]


def test_a_box_on_a_visible_corner_takes_its_card():
    assert label_boxes(np.array([[11, 11, 31, 41]]), CORNERS) == ["7h"]


def test_a_box_on_no_corner_is_not_an_index():
    assert label_boxes(np.array([[200, 200, 220, 230]]), CORNERS) == ["none"]
    assert label_boxes(np.array([[200, 200, 220, 230]]), []) == ["none"]


def test_a_box_on_a_hidden_corner_or_half_an_index_is_skipped_not_guessed():
    on_hidden = [100, 100, 120, 130]
    rank_only = [10, 10, 30, 24]  # the top half of the 7h index: IoU 0.47
    assert label_boxes(np.array([on_hidden, rank_only]), CORNERS) == [None, None]


def test_no_boxes_no_labels():
    assert label_boxes(np.zeros((0, 4)), CORNERS) == []


@pytest.fixture(scope="module")
def tiny_set(tmp_path_factory):
    from sim.synth.dataset import build

    out = tmp_path_factory.mktemp("mine") / "ds"
    build(out, seed=5, n_train=2, n_val=0, n_test=0, imgsz=320, reader_size=32, workers=1)
    return out


def test_mined_crops_are_the_readers_input_and_carry_cards_of_their_scene(tiny_set, tmp_path):
    detector = CardDetector(DEFAULT_FINDER, DEFAULT_READER)
    counts = mine_crops(detector, tiny_set, "train", tmp_path / "crops", prefix="t_")
    files = sorted((tmp_path / "crops").glob("*/*.png"))
    assert len(files) == sum(n for label, n in counts.items() if label != "skipped")
    labelled = [f for f in files if f.parent.name != "none"]
    assert labelled, "the shipped finder boxes no index on two plain scenes"
    truth = [json.loads(line) for line in (tiny_set / "truth" / "train.jsonl").read_text().splitlines()]
    cards_of = {Path(row["image"]).stem: {c["card"] for c in row["corners"] if c["visible"]} for row in truth}
    for f in files:
        assert f.name.startswith("t_")
        assert cv2.imread(str(f)).shape == (detector.read_size, detector.read_size, 3)
    for f in labelled:
        scene = f.stem[2:].rsplit("_", 1)[0]
        assert f.parent.name in cards_of[scene], f


def test_mine_cli_says_what_is_missing(tmp_path, capsys):
    assert cli_main(["dataset", "mine", "--data", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "no truth file" in capsys.readouterr().err
    with pytest.raises(ValueError, match="floor"):
        mine_crops(None, tmp_path, "train", tmp_path / "o", floor=0)


def _truth(folder: Path, *lines: str) -> Path:
    (folder / "truth").mkdir(parents=True)
    (folder / "truth" / "train.jsonl").write_text("\n".join(lines) + "\n")
    return folder


@pytest.mark.parametrize("lines, said", [
    (['{"image": "a.jpg", "corners": []}', '{"image": "b.jpg", "corn'], "line 2 is not JSON"),
    (['{"image": "a.jpg"}'], "line 1 has no image and corners"),
    (['{"image": "gone.jpg", "corners": []}'], "image not found"),
])
def test_a_broken_truth_file_or_a_missing_scene_is_named_and_writes_nothing(tmp_path, capsys, lines, said):
    data = _truth(tmp_path / "set", *lines)
    out = tmp_path / "out"
    assert cli_main(["dataset", "mine", "--data", str(data), "--out", str(out)]) == 2
    assert said in capsys.readouterr().err
    assert not out.exists()
