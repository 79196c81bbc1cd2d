"""Real crops for the reader (``sim.training.real_crops``) and the reader's fine-tune on them beside
rendered crops held to the base reader (``sim.training.reader_real``), each in a tiny version: a
rendered layout stands in for the real photos."""

from __future__ import annotations

import numpy as np
import pytest

from sim.synth import decks
from sim.synth.enroll_layout import render_layout
from vision.backends import OnnxBackend
from vision.boxes import to_blob
from vision.detector import DEFAULT_READER

pytestmark = [pytest.mark.art]


@pytest.fixture(scope="module")
def layout():
    image, corners = render_layout(np.random.default_rng(3), decks.load_deck("tigullio"), 24.0,
                                   cards=["7c", "7s", "Qh", "Kd", "3c", "BJ"], per_row=6)
    return image, np.array([c["box"] for c in corners]), [c["card"] for c in corners]


def test_real_crops_are_cut_in_every_view_plain_and_jittered(tmp_path, layout):
    from sim.training.real_crops import write_crops

    image, boxes, cards = layout
    written = write_crops([(image, boxes, cards)], tmp_path, "r0_", 96, 0.15, views=(0, 3))
    # two views, each box once as labelled and once jittered
    assert sum(written.values()) == 2 * 2 * len(cards)
    assert set(written) == set(cards)
    for card in set(cards):
        files = sorted((tmp_path / card).glob("*.png"))
        assert len(files) == 4 * cards.count(card)
        assert {f.stem[-2:] for f in files} == {"00", "01", "10", "11"}  # view, then plain (0) or jittered (1)


@pytest.mark.train
def test_the_fine_tune_exports_a_reader_of_the_same_classes_that_stays_near_the_teacher(tmp_path, layout):
    from sim.training.reader_real import train
    from sim.training.real_crops import write_crops

    image, boxes, cards = layout
    write_crops([(image, boxes, cards)], tmp_path / "real", "r0_", 96, 0.15, views=(0, 2))
    write_crops([(image, boxes, cards)], tmp_path / "rendered", "s0_", 96, 0.15, views=(5,))
    write_crops([(image, boxes, cards)], tmp_path / "val", "v0_", 96, 0.15, views=(0,))
    best = train(tmp_path / "real", tmp_path / "rendered", tmp_path / "run", tmp_path / "val", epochs=1,
                 lr=1e-4, batch=8, seed=1, threads=1, log=lambda *_: None)
    assert best.is_file() and (tmp_path / "run" / "reader.onnx").is_file()
    base, tuned = OnnxBackend(DEFAULT_READER), OnnxBackend(tmp_path / "run" / "reader.onnx")
    assert tuned.names == base.names and tuned.imgsz == base.imgsz
    import cv2

    crops = np.stack([cv2.imread(str(p)) for p in sorted((tmp_path / "rendered").rglob("*.png"))])
    p, q = base(to_blob(crops)), tuned(to_blob(crops))
    kl = float((p * (np.log(np.clip(p, 1e-6, 1)) - np.log(np.clip(q, 1e-6, 1)))).sum(axis=1).mean())
    assert np.allclose(q.sum(axis=1), 1, atol=1e-4)
    assert kl < 0.5  # a small step held to the teacher: its reads of the rendered crops barely move
