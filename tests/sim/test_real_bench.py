"""``python -m bench.real`` on tiny folders written here: it reads them with ``vision.labels`` (whose own
tests are tests/vision/test_labels.py), exits with the reader's message on a bad folder, and
says which classes it left out."""

from __future__ import annotations

import json

import pytest

from bench import real as real_bench
from tests.kit.labelled import write_folder


@pytest.fixture(scope="module")
def real():
    return real_bench


def test_a_bad_folder_exits_with_the_readers_message(real, tmp_path):
    with pytest.raises(SystemExit, match="no such folder"):
        real.main([str(tmp_path / "nothing")])
    folder = write_folder(tmp_path / "one", "[card, joker]", {"img": "0 0.5 0.5 0.1 0.1\n"})
    with pytest.raises(SystemExit, match="no name spells a card"):
        real.main([str(folder)])
    folder = write_folder(tmp_path / "two", "[Kc]", {"img": "0 0.5 0.5 0.1 0.1\n0 0.5 0.5 0 0.1\n"})
    with pytest.raises(SystemExit, match=r"img\.txt:2"):
        real.main([str(folder)])
    (folder / "labels" / "test" / "img.txt").unlink()
    with pytest.raises(SystemExit, match="without a label file"):
        real.main([str(folder)])
    (folder / "data.yaml").unlink()
    with pytest.raises(SystemExit, match="no data.yaml"):
        real.main([str(folder)])
    with pytest.raises(SystemExit, match="--limit must be 1 or more"):
        real.main([str(folder), "--limit", "0"])


def test_it_scores_the_first_images_and_lists_the_classes_left_out(real, tmp_path, capsys):
    folder = write_folder(tmp_path / "cards", "['10 of clubs', 'QS', 'joker', 'TD']", {
        "b": "0 0.5 0.5 0.1 0.2\n2 0.1 0.1 0.1 0.1\n\n3 0.25 0.75 0.5 0.5\n",
        "a": "1 0.05 0.1 0.1 0.2\n",
        "c": "2 0.5 0.5 0.1 0.1\n",
    })
    out_json = tmp_path / "figures.json"
    real.main([str(folder), "--limit", "2", "--json", str(out_json)])
    out = capsys.readouterr().out
    assert ": 2 images, 3 labelled boxes (corner indices)" in out
    assert "# classes that spell no card, boxes left out: 'joker' x1" in out
    figures = json.loads(out_json.read_text())
    assert figures["images"] == 2 and figures["boxes"] == 3 and figures["ignored_classes"] == {"joker": 1}
    assert figures["cards"]["boxes"] == 3
