"""Tiny training runs of both stages, resuming, export, and the exported models in CardDetector.

A dozen hand-drawn images, two epochs, 160 px (finder) and 32 px (reader): this checks the
pipeline, not accuracy. Needs the train extra (torch, ultralytics).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from sim.training.train import TrainConfig, TrainingError, train
from tests.kit.tiny_cards import make_dataset
from vision.cards import CARD_INDEX

pytestmark = pytest.mark.train
import ultralytics  # noqa: E402,F401  (the train extra; `make test` installs it)


class Interrupt(Exception):
    """Stands in for a power cut after the first epoch."""


def stop_after_first_epoch(trainer) -> None:
    if trainer.epoch == 0:
        raise Interrupt


def epochs_logged(run: Path) -> int:
    with open(run / "results.csv") as f:
        return sum(1 for _ in csv.DictReader(f))


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """Both stages trained on the tiny set; the finder interrupted once and resumed."""
    root = tmp_path_factory.mktemp("tiny")
    data = make_dataset(root)
    runs = root / "runs"
    finder = TrainConfig("finder", str(data["finder"]), epochs=2, imgsz=160, batch=4, workers=0,
                         project=str(runs), callbacks=[("on_fit_epoch_end", stop_after_first_epoch)])
    with pytest.raises(Interrupt):
        train(finder)
    assert epochs_logged(runs / "finder") == 1
    resumed = TrainConfig("finder", str(data["finder"]), epochs=2, project=str(runs), workers=0, resume=True)
    finder_best = train(resumed)
    reader = TrainConfig("reader", str(data["reader"]), epochs=2, imgsz=32, batch=8, workers=0, project=str(runs))
    reader_best = train(reader)
    yolo_reader = TrainConfig("reader", str(data["reader"]), epochs=1, imgsz=32, batch=8, workers=0,
                              project=str(runs), name="reader_yolo", arch="yolo")
    return {"root": root, "runs": runs, "finder": finder_best, "reader": reader_best, "data": data,
            "reader_yolo": train(yolo_reader)}


def test_an_interrupted_finder_run_resumes_to_its_last_epoch(trained):
    assert trained["finder"].is_file() and trained["finder"].name in ("best.pt", "last.pt")
    assert epochs_logged(trained["runs"] / "finder") == 2


def test_both_reader_kinds_learn_the_folder_classes(trained):
    import torch

    tiny = torch.load(trained["reader"], map_location="cpu", weights_only=False)
    assert tiny["names"] == ["7h", "As", "none"]
    last = torch.load(trained["reader"].with_name("last.pt"), map_location="cpu", weights_only=False)
    assert last["epoch"] == 1 and last["optimizer"] is not None
    yolo = torch.load(trained["reader_yolo"], map_location="cpu", weights_only=False)["model"]
    assert sorted(yolo.names.values()) == ["7h", "As", "none"]


def test_the_tiny_reader_resumes_from_its_last_epoch(trained, tmp_path):
    import shutil

    from sim.training.reader_net import train_reader

    run = tmp_path / "reader"
    shutil.copytree(trained["runs"] / "reader", run)
    lines_before = (run / "results.jsonl").read_text().count("\n")
    # The copied run finished its 2 epochs; pretend it stopped after the first.
    import torch

    last = torch.load(run / "weights" / "last.pt", weights_only=False)
    torch.save({**last, "epoch": 0}, run / "weights" / "last.pt")
    train_reader(trained["data"]["reader"], run, epochs=2, imgsz=32, batch=8, resume=True, log=lambda *_: None)
    assert (run / "results.jsonl").read_text().count("\n") == lines_before + 1
    # A finished run goes on when asked for more epochs.
    train_reader(trained["data"]["reader"], run, epochs=3, imgsz=32, batch=8, resume=True, log=lambda *_: None)
    assert torch.load(run / "weights" / "last.pt", weights_only=False)["epoch"] == 2


def test_the_tiny_reader_starts_from_given_weights_and_refuses_other_classes(trained, tmp_path):
    import torch

    from sim.training.reader_net import train_reader

    lines = []
    best = train_reader(trained["data"]["reader"], tmp_path / "go_on", epochs=1, imgsz=32, batch=8,
                        init=trained["reader"], log=lines.append)
    assert any(str(trained["reader"]) in line for line in lines)  # it said where it started from
    assert torch.load(best, weights_only=False)["epochs"] == 1  # a fresh schedule, not the old run's
    other = tmp_path / "other.pt"
    start = torch.load(trained["reader"], weights_only=False)
    torch.save({**start, "names": ["7h", "As", "Kd", "none"]}, other)
    with pytest.raises(ValueError, match="classes or width differ"):
        train_reader(trained["data"]["reader"], tmp_path / "bad", epochs=1, imgsz=32, batch=8, init=other,
                     log=lambda *_: None)


def test_a_deeper_reader_starts_reading_what_the_shallower_one_read_and_exports(trained, tmp_path):
    import numpy as np
    import onnxruntime as ort
    import torch

    from sim.training.export_model import export_onnx
    from sim.training.reader_net import IndexReader, load_weights, to_tensor, train_reader

    start = torch.load(trained["reader"], weights_only=False)
    shallow = IndexReader(start["names"], 32)
    shallow.load_state_dict(start["model"])
    deep = IndexReader(start["names"], 32, blocks=2)
    load_weights(deep, start)
    crops = np.random.default_rng(0).integers(0, 255, (6, 32, 32, 3), dtype=np.uint8)
    shallow.eval(), deep.eval()
    with torch.no_grad():
        assert torch.allclose(shallow(to_tensor(crops)), deep(to_tensor(crops)), atol=1e-6)
    assert sum(p.numel() for p in deep.parameters()) > sum(p.numel() for p in shallow.parameters())
    # ...and a shallower reader cannot take a deeper one's weights.
    with pytest.raises(ValueError, match="does not fit a reader with 0 blocks"):
        load_weights(IndexReader(start["names"], 32), {**start, "model": deep.state_dict(), "blocks": 2})

    best = train_reader(trained["data"]["reader"], tmp_path / "deeper", epochs=1, imgsz=32, batch=8,
                        init=trained["reader"], blocks=1, log=lambda *_: None)
    ckpt = torch.load(best, weights_only=False)
    assert ckpt["blocks"] == 1 and any(k.startswith("extra.") for k in ckpt["model"])
    with pytest.raises(ValueError, match="has 1 blocks a grid, not 0"):
        train_reader(trained["data"]["reader"], tmp_path / "deeper", epochs=2, imgsz=32, batch=8, resume=True,
                     blocks=0, log=lambda *_: None)
    onnx_path = export_onnx(best, "reader", tmp_path / "deeper.onnx")
    model = IndexReader(ckpt["names"], 32, blocks=1)
    model.load_state_dict(ckpt["model"])
    model.eval(), setattr(model, "softmax", True)
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    blob = to_tensor(crops)
    with torch.no_grad():
        expected = model(blob).numpy()
    assert np.allclose(session.run(None, {"images": blob.numpy()})[0], expected, atol=1e-5)
    with pytest.raises(ValueError, match="tiny reader only"):
        TrainConfig("finder", "x.yaml", blocks=1)


def test_resume_without_a_checkpoint_is_a_clear_error(tmp_path, trained):
    config = TrainConfig("finder", str(trained["data"]["finder"]), project=str(tmp_path), resume=True)
    with pytest.raises(TrainingError, match="nothing to resume"):
        train(config)


def test_missing_dataset_is_a_clear_error(tmp_path):
    with pytest.raises(TrainingError, match="dataset file not found"):
        train(TrainConfig("finder", str(tmp_path / "nope.yaml"), project=str(tmp_path)))
    with pytest.raises(TrainingError, match="train/ and val/"):
        train(TrainConfig("reader", str(tmp_path), project=str(tmp_path)))


def test_exported_models_run_in_the_torch_free_detector(trained, tmp_path):
    from sim.training.export_model import export
    from vision.detector import CardDetector

    (finder,) = export(trained["finder"], "finder", imgsz=160, out_dir=tmp_path, fixed=True)
    (reader,) = export(trained["reader"], "reader", imgsz=32, out_dir=tmp_path)
    (yolo_reader,) = export(trained["reader_yolo"], "reader", imgsz=32, out_dir=tmp_path, name="reader_yolo")
    assert CardDetector(finder, yolo_reader).read_size == 32
    detector = CardDetector(finder, reader, conf=0.0)
    assert detector.imgsz == (160, 160) and detector.read_size == 32
    with pytest.raises(ValueError, match="takes 160x160 input, not 320"):
        CardDetector(finder, reader, imgsz=320)
    (free,) = export(trained["finder"], "finder", imgsz=160, out_dir=tmp_path, name="free")
    # Nothing lands beside the weights (exporting models/finder.pt must not replace models/finder.onnx).
    assert not Path(trained["finder"]).with_suffix(".onnx").exists()
    assert CardDetector(free, reader, imgsz=96).imgsz == (96, 96)
    # The default export takes any size: frames are letterboxed to their own shape.
    assert CardDetector(free, reader).rect and not detector.rect
    with pytest.raises(ValueError, match="takes only 160x160 input"):
        CardDetector(finder, reader, rect=True)
    image_path = next((trained["root"] / "finder" / "images" / "val").glob("*.png"))
    dets = detector.detect_file(image_path, conf=0.0)
    # Two epochs learn little, but whatever comes out is well formed.
    assert set(dets.cards) <= {"7h", "As"}
    assert (dets.boxes >= 0).all() and (dets.boxes[:, [0, 2]] <= 160).all()
    assert (dets.scores <= dets.finder_scores + 1e-6).all()
    # Two card classes: each detection's one alternative is the other card.
    assert dets.alt_ids.shape == (len(dets), 1)
    assert (dets.alt_ids[:, 0] != dets.class_ids).all()
    assert set(dets.alt_ids.ravel().tolist()) <= {CARD_INDEX["7h"], CARD_INDEX["As"]}


def test_cli_trains_exports_and_detects(trained, tmp_path, capsys):
    from cli.main import main

    assert main(["export-model", "reader", str(trained["reader"]), "--imgsz", "32", "--out", str(tmp_path)]) == 0
    assert main(["export-model", "finder", str(trained["finder"]), "--imgsz", "160", "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    image = str(next((trained["root"] / "finder" / "images" / "val").glob("*.png")))
    code = main(["detect", image, "--json", "--conf", "0", "--finder", str(tmp_path / "finder.onnx"),
                 "--reader", str(tmp_path / "reader.onnx"), "--save", str(tmp_path / "seen")])
    assert code == 0
    record = json.loads(capsys.readouterr().out.strip().splitlines()[0])
    assert (record["image"], record["width"], record["height"]) == (image, 160, 160)
    for det in record["detections"]:
        assert set(det) == {"card", "rank", "suit", "box", "confidence", "alternatives"}
        assert det["card"] == det["rank"] + det["suit"]
    assert (tmp_path / "seen" / (Path(image).stem + ".jpg")).is_file()
    # The default export takes any input size; --fixed pins it to the square imgsz.
    from vision.backends import OnnxBackend

    assert OnnxBackend(tmp_path / "finder.onnx").input_shape[2:] == (None, None)
    assert main(["export-model", "finder", str(trained["finder"]), "--imgsz", "160", "--out", str(tmp_path),
                 "--name", "square", "--fixed"]) == 0
    assert OnnxBackend(tmp_path / "square.onnx").input_shape[2:] == (160, 160)


def test_cli_ships_the_checkpoint_beside_the_onnx_without_optimiser_state(trained, tmp_path, capsys):
    import torch

    from cli.main import main

    last = trained["runs"] / "reader" / "weights" / "last.pt"
    assert torch.load(last, weights_only=False)["optimizer"] is not None
    out = tmp_path / "models"
    assert main(["export-model", "reader", str(last), "--imgsz", "32", "--out", str(out), "--with-weights"]) == 0
    assert capsys.readouterr().out.split() == [str(out / "reader.onnx"), str(out / "reader.pt")]
    shipped = torch.load(out / "reader.pt", weights_only=False)
    assert shipped["optimizer"] is None
    original = torch.load(last, weights_only=False)["model"]
    assert all(torch.equal(shipped["model"][k], v) for k, v in original.items())
    assert (out / "reader.pt").stat().st_size < last.stat().st_size
    # Shipping the finder over its own file strips it in place and still loads.
    finder = out / "finder.pt"
    finder.write_bytes(Path(trained["finder"]).read_bytes())
    assert main(["export-model", "finder", str(finder), "--imgsz", "160", "--out", str(out), "--with-weights"]) == 0
    assert torch.load(finder, weights_only=False)["optimizer"] is None
    assert (out / "finder.onnx").is_file()
    # An ONNX file has no checkpoint to ship: a clear error, nothing written.
    capsys.readouterr()
    assert main(["export-model", "reader", str(out / "reader.onnx"), "--out", str(tmp_path / "x"),
                 "--with-weights"]) == 2
    assert "--with-weights needs a .pt checkpoint" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_cli_warmup_and_rate_reach_the_trainers(tmp_path, monkeypatch):
    import argparse

    import sim.training.train
    from cli.detector import register
    from sim.training.train import train_arguments

    configs = []
    monkeypatch.setattr(sim.training.train, "train", lambda config: configs.append(config) or tmp_path)
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    for argv in (["--warmup", "0", "--lr0", "0.003"], []):
        args = parser.parse_args(["train", "finder", "--data", "d.yaml", *argv])
        assert args.func(args) == 0
    given, default = (train_arguments(c) for c in configs)
    assert (given["warmup_epochs"], given["lr0"]) == (0.0, 0.003)
    assert (default["warmup_epochs"], default["lr0"]) == (1.0, 0.01)
    for bad in (["--warmup", "-1"], ["--lr0", "0"]):  # a clear error (exit 2), nothing trained
        args = parser.parse_args(["train", "finder", "--data", "d.yaml", *bad])
        assert args.func(args) == 2
    assert len(configs) == 2


def test_the_tiny_reader_gets_the_given_rate(tmp_path, monkeypatch):
    import sim.training.reader_net

    rates = []
    monkeypatch.setattr(sim.training.reader_net, "train_reader", lambda *a, **k: rates.append(k["lr"]) or tmp_path)
    (tmp_path / "train").mkdir()
    (tmp_path / "val").mkdir()
    for lr0 in (None, 1e-3):
        train(TrainConfig("reader", str(tmp_path), epochs=1, lr0=lr0))
    assert rates == [3e-3, 1e-3]


def test_reader_crops_load_into_one_array_skipping_what_is_not_a_crop(tmp_path):
    """``load_split``: every class folder's crops in one uint8 array, wrong-size crops resized,
    an unreadable file and a non-image left out, labels in class order."""
    import cv2
    import numpy as np

    from sim.training.reader_net import load_split

    for name, shade in (("3s", 40), ("none", 200)):
        (tmp_path / name).mkdir()
        for i in range(3):
            cv2.imwrite(str(tmp_path / name / f"{i}.png"), np.full((32, 32, 3), shade + i, np.uint8))
    cv2.imwrite(str(tmp_path / "3s" / "big.png"), np.full((50, 40, 3), 90, np.uint8))
    (tmp_path / "3s" / "broken.png").write_bytes(b"not a png")
    (tmp_path / "none" / "notes.txt").write_text("ignored")
    images, labels, classes = load_split(tmp_path, imgsz=32)
    assert classes == ["3s", "none"] and images.shape == (7, 32, 32, 3) and images.dtype == np.uint8
    assert labels.tolist() == [0, 0, 0, 0, 1, 1, 1]
    assert sorted({int(im[0, 0, 0]) for im in images[labels == 1]}) == [200, 201, 202]
    assert 90 in {int(im[0, 0, 0]) for im in images[labels == 0]}
    with pytest.raises(ValueError, match="no crops"):
        load_split(tmp_path, names=["9h"], imgsz=32)
