"""``vision.labels``: card names as datasets spell them, data.yaml's ``names``, YOLO label lines
and the folder reader ``ddz-table enroll`` and ``bench/real.py`` share, on tiny folders written here."""

from __future__ import annotations

import numpy as np
import pytest

from tests.kit.labelled import write_folder
from vision.labels import LabelError, card_from_name, parse_labels, read_label_folder, read_names


@pytest.mark.parametrize("name, card", [
    # card text and the common spellings ``ddz-table enroll`` has always taken
    ("10c", "10c"), ("10C", "10c"), ("TC", "10c"), ("tc", "10c"), ("Qs", "Qs"), ("QS", "Qs"), ("qs", "Qs"),
    ("♣10", "10c"), ("BJ", "BJ"), ("BLACK JOKER", "BJ"), ("black_joker", "BJ"), ("JOKER_BLACK", "BJ"),
    ("RED JOKER", "RJ"), ("joker-red", "RJ"), ("JOKER_RED", "RJ"), ("大王", "RJ"),
    # names in words, rank first
    ("10 of clubs", "10c"), ("Ten of Clubs", "10c"), ("ace_of_spades", "As"), ("King-Of-Hearts", "Kh"),
    ("Q Trefoils", "Qc"), ("2 Diamonds", "2d"), ("jack spades", "Js"), ("black joker", "BJ"),
])
def test_card_names_in_every_common_spelling(name, card):
    assert card_from_name(name) == card


@pytest.mark.parametrize("name", ["joker", "1c", "11s", "Qx", "", "index", "card", "11 of clubs", "ace of swords",
                                  "of clubs"])
def test_names_that_spell_no_card(name):
    assert card_from_name(name) is None


@pytest.mark.parametrize("text", ["path: x\nnames:\n  0: '10c'\n  1: \"Qs\"  # comment\nnc: 2\n", "names:\n- 10c\n- Qs\n",
                                  "names: ['10c', Qs]\n", "names: {0: 10c,\n  1: Qs}\n"])
def test_data_yaml_names_as_a_mapping_a_list_or_flow(tmp_path, text):
    path = tmp_path / "data.yaml"
    path.write_text(text)
    assert read_names(path) == {0: "10c", 1: "Qs"}


@pytest.mark.parametrize("text, words", [
    ("nc: 2\n", "has no names"), ("names: [10c, Qs\n", "no closing ]"), ("names: 10c\n", "cannot read names"),
    ("names:\n  - 10c\n  1: Qs\n", "mixes a list and a mapping"), ("names: {a: 10c}\n", "'id: name'"),
])
def test_data_yaml_faults_say_what_in_chinese_then_english(tmp_path, text, words):
    path = tmp_path / "data.yaml"
    path.write_text(text)
    with pytest.raises(LabelError, match=words) as caught:
        read_names(path)
    chinese, english = str(caught.value).split(" / ", 1)
    assert any("\u4e00" <= ch <= "\u9fff" for ch in chinese) and words in english


def test_label_lines_become_rows():
    rows = parse_labels("0 0.5 0.5 0.1 0.2\n\n1 0.25 0.75 0.5 0.5\n", "x.txt", {0, 1})
    np.testing.assert_allclose(rows, [[0, 0.5, 0.5, 0.1, 0.2], [1, 0.25, 0.75, 0.5, 0.5]])
    assert parse_labels("", "x.txt", {0}).shape == (0, 5)


def test_read_folder_maps_names_and_puts_boxes_in_pixels(tmp_path):
    folder = write_folder(tmp_path, "['10 of clubs', 'QS', 'joker', 'TD']", {
        "b": "0 0.5 0.5 0.1 0.2\n2 0.1 0.1 0.1 0.1\n\n3 0.25 0.75 0.5 0.5\n",
        "a": "1 0.05 0.1 0.1 0.2\n",
    })
    read = read_label_folder(folder, skip_unknown=True)
    assert [p.path.name for p in read.images] == ["a.png", "b.png"]  # sorted by path
    assert read.images[0].cards == ["Qs"]
    assert read.images[1].cards == ["10c", "10d"]  # the bare joker spells no card: left out
    assert read.ignored == {"joker": 1}
    assert read.cards == {0: "10c", 1: "Qs", 3: "10d"}
    np.testing.assert_allclose(read.images[0].boxes, [[0, 0, 20, 20]])
    np.testing.assert_allclose(read.images[1].boxes, [[90, 40, 110, 60], [0, 50, 100, 100]])
    assert len(read_label_folder(folder, limit=1, skip_unknown=True).images) == 1
    # refusing them instead lists every name that is no card
    with pytest.raises(LabelError, match="these names are no card: 'joker'"):
        read_label_folder(folder)


def test_block_list_names_and_an_empty_label_file(tmp_path):
    folder = write_folder(tmp_path, "\n  - Ace of Hearts\n  - 2s\n", {"x": ""})
    read = read_label_folder(folder)
    assert read.cards == {0: "Ah", 1: "2s"} and read.ignored == {}
    assert read.images[0].cards == [] and read.images[0].boxes.shape == (0, 4)


def test_only_the_images_with_boxes_are_opened(tmp_path):
    folder = write_folder(tmp_path, "[Kc]", {"empty": "", "one": "0 0.5 0.5 0.1 0.1\n"})
    opened = []

    def load(path):
        opened.append(path.name)
        return np.zeros((100, 200, 3), np.uint8)

    read = read_label_folder(folder, load=load)
    assert opened == ["one.png"]
    np.testing.assert_allclose(read.images[1].boxes, [[90, 45, 110, 55]])


@pytest.mark.parametrize("line", ["0 0.5 0.5 0.1", "0 0.5 0.5 0.1 1.2", "7 0.5 0.5 0.1 0.1", "a b c d e",
                                  "0.5 0.5 0.5 0.1 0.1", "0 0.5 0.5 0 0.1", "0 0.1 0.1 0.2 0.2 0.3 0.3"])
def test_a_bad_label_line_says_where(tmp_path, line):
    folder = write_folder(tmp_path, "[Kc]", {"img": f"0 0.5 0.5 0.1 0.1\n{line}\n"})
    with pytest.raises(LabelError, match=r"img\.txt:2: 标注行.* / a label line is 'class cx cy w h'"):
        read_label_folder(folder)


def test_folder_faults_are_clear(tmp_path):
    with pytest.raises(LabelError, match="没有这个文件夹 / no such folder"):
        read_label_folder(tmp_path / "nothing")
    folder = write_folder(tmp_path / "one", "[card, joker]", {"img": "0 0.5 0.5 0.1 0.1\n"})
    with pytest.raises(LabelError, match="no name spells a card"):
        read_label_folder(folder, skip_unknown=True)
    with pytest.raises(LabelError, match="these names are no card: 'card', 'joker'"):
        read_label_folder(folder)
    folder = write_folder(tmp_path / "empty", "[]", {"img": ""})
    with pytest.raises(LabelError, match="names is empty"):
        read_label_folder(folder)
    folder = write_folder(tmp_path / "two", "[Kc]", {"img": "0 0.5 0.5 0.1 0.1\n", "other": ""})
    (folder / "labels" / "test" / "img.txt").unlink()
    with pytest.raises(LabelError, match=r"1 张图片没有标注文件 / 1 image\(s\) without a label file .*img\.png"):
        read_label_folder(folder)
    (folder / "images" / "test" / "img.png").write_bytes(b"not a png")
    (folder / "labels" / "test" / "img.txt").write_text("0 0.5 0.5 0.1 0.1\n")
    with pytest.raises(LabelError, match="unreadable image"):
        read_label_folder(folder)
    with pytest.raises(LabelError, match="limit must be 1 or more"):
        read_label_folder(folder, limit=0)
    for path in (folder / "images" / "test").iterdir():
        path.unlink()
    with pytest.raises(LabelError, match="no images in"):
        read_label_folder(folder)
    (folder / "data.yaml").unlink()
    with pytest.raises(LabelError, match="no data.yaml"):
        read_label_folder(folder)
