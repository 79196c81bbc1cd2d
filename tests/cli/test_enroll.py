"""``ddz-table enroll``: a labelled YOLO folder of a club's deck becomes a deck profile in the
data folder, which ``detect --deck NAME`` reads with; bad folders are clear errors (exit 2).
Card names and the folder reader itself: tests/vision/test_labels.py."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cli.main import main
from sim.synth import decks
from sim.synth.enroll_layout import render_layout
from tests.kit.labelled import write_yolo
from vision.cards import CARD_IDS
from vision.profile import DeckProfile

#: Other spellings datasets use: upper case, T for 10, jokers in words.
SHOUTED = {"BJ": "BLACK JOKER", "RJ": "JOKER_RED"}


def shout(card: str) -> str:
    return SHOUTED.get(card, card.upper().replace("10", "T"))


@pytest.fixture(scope="module")
def layout():
    return render_layout(np.random.default_rng(21), decks.load_deck("orell"))


@pytest.fixture()
def data_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data"


@pytest.mark.heavy  # the shipped reader on every crop of a rendered layout
def test_enroll_from_labels_then_detect_with_the_deck(tmp_path, data_home, layout, capsys):
    folder = write_yolo(tmp_path / "orell", *layout)
    # one pass over the crops: the deck's own reader, trained and checked as in a full run
    assert main(["enroll", "--from-labels", str(folder), "--deck", "club", "--epochs", "1"]) == 0
    captured = capsys.readouterr()
    out = captured.out
    saved = data_home / "ddz-table" / "decks" / "club.npz"
    assert saved.is_file() and str(saved) in out
    profile = DeckProfile.load(saved)
    assert profile.name == "club" and profile.cards == CARD_IDS
    assert profile.reader_model and profile.report["crops"] > 0 and profile.report["after"] >= profile.report["before"]
    assert "corners held out" in out and "read right" in out
    assert "100%" in captured.err and "training" in captured.err  # the progress bar

    assert main(["enroll", "--list"]) == 0
    listed = capsys.readouterr().out
    assert "club" in listed and "54" in listed and "own reader" in listed

    image = tmp_path / "orell" / "images" / "layout.png"
    assert main(["detect", str(image), "--json", "--deck", "club"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["detections"] and all(d["card"] in CARD_IDS for d in record["detections"])
    assert main(["detect", str(image), "--json", "--deck", str(saved)]) == 0  # a path works too
    assert json.loads(capsys.readouterr().out) == record

    assert main(["detect", str(image), "--json", "--deck", "nosuch"]) == 2
    assert "nosuch" in json.loads(capsys.readouterr().out)["error"]  # under --json the error is JSON too

    # run --deck: the live detector reads with it; the toy detector takes none
    from cli.table import load_detector

    assert load_detector("onnx", "onnx", None, "club").profile.cards == CARD_IDS
    with pytest.raises(ValueError, match="only with the 'onnx' detector"):
        load_detector("toy", deck="club")


@pytest.mark.heavy  # the shipped reader on every crop of a rendered layout
def test_enroll_reads_other_spellings_into_the_same_cards(tmp_path, data_home, layout, capsys):
    folder = write_yolo(tmp_path / "shouted", *layout, spell=shout)
    assert "TC" in (folder / "data.yaml").read_text() and "BLACK JOKER" in (folder / "data.yaml").read_text()
    out = tmp_path / "mine.npz"
    assert main(["enroll", "--from-labels", str(folder), "--deck", "club", "--out", str(out), "--no-tune"]) == 0
    assert "7c " in capsys.readouterr().out  # without the reader: a line per card of what the profile changes
    assert DeckProfile.load(out).cards == CARD_IDS
    assert DeckProfile.load(out).reader_model is None
    assert not (data_home / "ddz-table" / "decks").exists()  # --out, not the data folder


def _fails(argv, capsys, *words) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    for word in words:
        assert word in err, (word, err)
    return err


def test_bad_folders_are_clear_errors(tmp_path, data_home, layout, capsys):
    image, corners = layout
    few = corners[:6]
    # names that are no card: skipped and counted (a Roboflow export's BACK), not refused; six cards'
    # corners with the two renamed among them (the reader reads each labelled corner: all 108 take seconds)
    some = [c for c in corners if c["card"] in ("3s", "3h", "7c", "7s", "BJ", "RJ")]
    folder = write_yolo(tmp_path / "unknown", image, some, spell=lambda c: {"7c": "seven", "BJ": "BACK"}.get(c, c))
    assert main(["enroll", "--from-labels", str(folder), "--deck", "x", "--no-tune", "--out",
                 str(tmp_path / "x.npz")]) == 0
    out = capsys.readouterr().out
    assert "classes that are no card, skipped: 'BACK' 2, 'seven' 2" in out
    assert "7c" not in DeckProfile.load(tmp_path / "x.npz").cards
    # no name that is a card at all
    folder = write_yolo(tmp_path / "nocard", image, few, spell=lambda c: "card")
    _fails(["enroll", "--from-labels", str(folder), "--deck", "x"], capsys, "no name spells a card")
    (tmp_path / "x.npz").unlink()
    # an image without its label file
    folder = write_yolo(tmp_path / "unlabelled", image, few)
    (folder / "labels" / "layout.txt").unlink()
    _fails(["enroll", "--from-labels", str(folder), "--deck", "x"], capsys, "without a label file", "layout.png")
    # empty folders, no data.yaml, no folder
    empty = tmp_path / "empty"
    (empty / "images").mkdir(parents=True)
    (empty / "data.yaml").write_text("names: [10c]\n")
    _fails(["enroll", "--from-labels", str(empty), "--deck", "x"], capsys, "no images")
    (empty / "data.yaml").unlink()
    _fails(["enroll", "--from-labels", str(empty), "--deck", "x"], capsys, "data.yaml")
    _fails(["enroll", "--from-labels", str(tmp_path / "absent"), "--deck", "x"], capsys, "no such folder")
    # a malformed label line, a bad deck name, no --deck
    folder = write_yolo(tmp_path / "malformed", image, few)
    (folder / "labels" / "layout.txt").write_text("0 0.5 0.5 0.1\n")
    _fails(["enroll", "--from-labels", str(folder), "--deck", "x"], capsys, "layout.txt:1")
    # label files with no box at all
    (folder / "labels" / "layout.txt").write_text("\n")
    _fails(["enroll", "--from-labels", str(folder), "--deck", "x"], capsys, "没有任何标注框", "no labelled box")
    _fails(["enroll", "--from-labels", str(folder), "--deck", "../up"], capsys, "deck name")
    _fails(["enroll", "--from-labels", str(folder)], capsys, "--deck")
    _fails(["enroll", "--from-labels", str(folder), "--deck", "x", "--epochs", "0"], capsys, "--epochs must be 1 or more")
    _fails(["enroll", "--from-labels", str(folder / "data.yaml"), "--deck", "x"], capsys, "is a file, not a folder")
    assert not (data_home / "ddz-table" / "decks").exists()  # nothing saved by a failure


def test_a_corrupt_saved_deck_is_listed_as_unusable_and_refused_by_detect(tmp_path, data_home, capsys):
    folder = data_home / "ddz-table" / "decks"
    folder.mkdir(parents=True)
    (folder / "broken.npz").write_bytes(b"junk")
    assert main(["enroll", "--list"]) == 0
    assert "unusable" in capsys.readouterr().out
    image = tmp_path / "x.png"
    import cv2

    cv2.imwrite(str(image), np.full((64, 64, 3), 200, np.uint8))
    _fails(["detect", str(image), "--deck", "broken"], capsys, "not a deck profile")
