"""bench/real.py's class-name mapping and YOLO label reading, on a tiny folder written here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def real():
    spec = importlib.util.spec_from_file_location("bench_real", ROOT / "bench" / "real.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


@pytest.mark.parametrize("name, card", [
    ("10c", "10c"), ("10C", "10c"), ("TC", "10c"), ("QS", "Qs"), ("qs", "Qs"), ("10 of clubs", "10c"),
    ("Ten of Clubs", "10c"), ("ace_of_spades", "As"), ("King-Of-Hearts", "Kh"), ("Q Trefoils", "Qc"),
    ("2 Diamonds", "2d"), ("jack spades", "Js"), ("black joker", "BJ"), ("JOKER_RED", "RJ"), ("BJ", "BJ"),
])
def test_card_names_map_to_card_ids(real, name, card):
    assert real.card_id(name) == card


@pytest.mark.parametrize("name", ["joker", "card", "11 of clubs", "1c", "ace of swords", "of clubs", ""])
def test_names_that_spell_no_card(real, name):
    assert real.card_id(name) is None


def write_folder(root: Path, names: str, labels: dict[str, str], size=(200, 100)) -> Path:
    (root / "images" / "test").mkdir(parents=True)
    (root / "labels" / "test").mkdir(parents=True)
    (root / "data.yaml").write_text(f"path: .\ntest: images/test\nnames: {names}\n")
    for stem, text in labels.items():
        cv2.imwrite(str(root / "images" / "test" / f"{stem}.png"), np.full((size[1], size[0], 3), 255, np.uint8))
        (root / "labels" / "test" / f"{stem}.txt").write_text(text)
    return root


def test_read_folder_maps_names_and_puts_boxes_in_pixels(real, tmp_path):
    folder = write_folder(tmp_path, "['10 of clubs', 'QS', 'joker', 'TD']", {
        "b": "0 0.5 0.5 0.1 0.2\n2 0.1 0.1 0.1 0.1\n\n3 0.25 0.75 0.5 0.5\n",
        "a": "1 0.05 0.1 0.1 0.2\n",
    })
    read = real.read_folder(folder)
    assert [p.path.name for p in read.photos] == ["a.png", "b.png"]  # sorted by path
    assert read.photos[0].cards == ["Qs"]
    assert read.photos[1].cards == ["10c", "10d"]  # the bare joker spells no card: left out
    assert read.ignored == {"joker": 1}
    np.testing.assert_allclose(read.photos[0].boxes, [[0, 0, 20, 20]])
    np.testing.assert_allclose(read.photos[1].boxes, [[90, 40, 110, 60], [0, 50, 100, 100]])
    assert len(real.read_folder(folder, limit=1).photos) == 1


def test_block_list_names_and_an_empty_label_file(real, tmp_path):
    folder = write_folder(tmp_path, "\n  - Ace of Hearts\n  - 2s\n", {"x": ""})
    read = real.read_folder(folder)
    assert read.cards == {0: "Ah", 1: "2s"}
    assert read.photos[0].cards == [] and read.photos[0].boxes.shape == (0, 4)


@pytest.mark.parametrize("line", ["0 0.5 0.5 0.1", "0 0.5 0.5 0.1 1.2", "7 0.5 0.5 0.1 0.1", "a b c d e",
                                  "0.5 0.5 0.5 0.1 0.1", "0 0.5 0.5 0 0.1", "0 0.1 0.1 0.2 0.2 0.3 0.3"])
def test_a_bad_label_line_says_where(real, tmp_path, line):
    folder = write_folder(tmp_path, "[Kc]", {"img": f"0 0.5 0.5 0.1 0.1\n{line}\n"})
    with pytest.raises(SystemExit, match=r"img\.txt:2"):
        real.read_folder(folder)


def test_folder_faults_are_clear(real, tmp_path):
    with pytest.raises(SystemExit, match="no such folder"):
        real.read_folder(tmp_path / "nothing")
    folder = write_folder(tmp_path / "one", "[card, joker]", {"img": "0 0.5 0.5 0.1 0.1\n"})
    with pytest.raises(SystemExit, match="no name spells a card"):
        real.read_folder(folder)
    folder = write_folder(tmp_path / "two", "[Kc]", {"img": "0 0.5 0.5 0.1 0.1\n"})
    (folder / "labels" / "test" / "img.txt").unlink()
    with pytest.raises(SystemExit, match="without a label file"):
        real.read_folder(folder)
    (folder / "data.yaml").unlink()
    with pytest.raises(SystemExit, match="no data.yaml"):
        real.read_folder(folder)
