"""NCNN and OpenVINO exports of the shipped models read a table like ONNX Runtime does.

The shipped ``models/finder.onnx`` and ``models/reader.onnx`` are converted into a scratch
folder (pnnx for NCNN, OpenVINO's converter; both in the train extra), then the same rendered
unseen-deck table goes through every backend. Broken model folders give clear errors.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from sim.synth import decks, scene
from sim.training.export_model import ExportError, export
from vision import backends
from vision.backends import (
    ModelFileError,
    NcnnBackend,
    OnnxBackend,
    OpenVinoBackend,
    default_backend,
    load_backend,
    read_metadata,
    write_metadata,
)
from vision.detector import DEFAULT_FINDER, DEFAULT_READER, CardDetector

pytestmark = pytest.mark.train  # the NCNN and OpenVINO exports come from the train extra


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("models")
    for stage, path in (("finder", DEFAULT_FINDER), ("reader", DEFAULT_READER)):
        written = export(path, stage, ("onnx", "ncnn", "openvino"), out_dir=out)
        assert [p.name for p in written] == [f"{stage}.onnx", f"{stage}_ncnn_model", f"{stage}_openvino_model"]
    return out


@pytest.fixture(scope="module")
def table():
    image, _ = scene.render_scene(np.random.default_rng(11), [decks.HELD_OUT_DECKS[1]], imgsz=640, n_cards=8,
                                  hands_p=0.0)
    return image


@pytest.fixture(scope="module")
def reference(exported, table):
    # One look, as the fixed-size NCNN finder takes: the backends are compared like for like.
    detector = CardDetector(exported / "finder.onnx", exported / "reader.onnx", backend="onnx", threads=1,
                            zoom=False)
    return detector.detect(table, conf=0.05)


@pytest.mark.parametrize("backend", ["ncnn", "openvino"])
def test_backend_reads_the_table_like_onnx_runtime(exported, table, reference, backend):
    detector = CardDetector(exported / "finder.onnx", exported / "reader.onnx", backend=backend, threads=1,
                            zoom=False)
    assert detector.finder.name == backend and detector.reader.name == backend
    dets = detector.detect(table, conf=0.05)
    assert len(reference) >= 3  # the comparison means something only if cards were found
    # Detections near the threshold could flip with rounding; none sit that close here.
    assert len(dets) == len(reference)
    order_ref, order = np.lexsort(reference.boxes.T[:2]), np.lexsort(dets.boxes.T[:2])
    assert [reference.cards[i] for i in order_ref] == [dets.cards[i] for i in order]
    np.testing.assert_allclose(dets.boxes[order], reference.boxes[order_ref], atol=0.5)
    np.testing.assert_allclose(dets.scores[order], reference.scores[order_ref], atol=0.01)


@pytest.mark.parametrize("make", [
    lambda d: NcnnBackend(d / "reader.onnx", threads=1),
    lambda d: OpenVinoBackend(d / "reader.onnx", threads=1),  # the IR folder
    lambda d: OpenVinoBackend(d / "reader_openvino_model" / "reader.xml", threads=1),
], ids=["ncnn", "openvino-ir", "openvino-xml"])
def test_reader_batches_give_each_crop_its_own_probabilities(exported, make):
    crops = np.random.default_rng(3).random((5, 3, 96, 96), dtype=np.float32)
    expected = OnnxBackend(exported / "reader.onnx", threads=1)(crops)
    got = make(exported)(crops)
    assert got.shape == expected.shape == (5, 55)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, atol=1e-4)  # per crop, not per batch
    np.testing.assert_allclose(got, expected, atol=1e-3)


def test_openvino_straight_from_onnx_is_right_too(exported, tmp_path):
    # Without the IR folder OpenVINO reads the ONNX file, whose batch it would mistranslate.
    shutil.copyfile(exported / "reader.onnx", tmp_path / "reader.onnx")
    crops = np.random.default_rng(4).random((3, 3, 96, 96), dtype=np.float32)
    direct = OpenVinoBackend(tmp_path / "reader.onnx", threads=1)
    assert direct.path == tmp_path / "reader.onnx" and len(direct.names) == 55
    np.testing.assert_allclose(direct(crops), OnnxBackend(tmp_path / "reader.onnx")(crops), atol=1e-3)


def test_models_carry_their_names_and_size(exported):
    ncnn = NcnnBackend(exported / "finder.onnx")
    assert ncnn.names == {0: "index"} and ncnn.imgsz == (640, 640) and ncnn.path.name == "finder_ncnn_model"
    reader = NcnnBackend(exported / "reader_ncnn_model")
    assert reader.names[0] == "10c" and reader.names[54] == "none" and reader.imgsz == (96, 96)
    finder = OpenVinoBackend(exported / "finder.onnx")
    assert finder.input_shape == (None, 3, None, None) and finder.imgsz == (640, 640)  # any size, 640 by default
    wide = np.random.default_rng(5).random((1, 3, 384, 640), dtype=np.float32)  # a 16:9 frame's input
    np.testing.assert_allclose(finder(wide), OnnxBackend(exported / "finder.onnx")(wide), atol=2e-3)
    assert OpenVinoBackend(exported / "reader.onnx").input_shape == (None, 3, 96, 96)  # dynamic batch kept


def test_auto_picks_ncnn_on_arm_when_the_export_is_there(exported, tmp_path, monkeypatch):
    assert default_backend(exported / "finder.onnx", machine="aarch64") == "ncnn"
    shutil.copyfile(exported / "finder.onnx", tmp_path / "finder.onnx")  # no NCNN folder beside it
    assert default_backend(tmp_path / "finder.onnx", machine="aarch64") == "onnx"
    assert default_backend(exported / "finder.onnx", machine="x86_64") == "onnx"
    monkeypatch.setattr(backends, "OPENVINO_ON_X86", True)
    assert default_backend(exported / "finder.onnx", machine="x86_64") == "openvino"
    assert default_backend(exported / "finder.onnx", machine="aarch64") == "ncnn"
    monkeypatch.setattr(backends.platform, "machine", lambda: "aarch64")
    assert isinstance(load_backend(exported / "finder.onnx", "auto"), NcnnBackend)


def test_broken_ncnn_folders_are_clear_errors(exported, tmp_path):
    with pytest.raises(ModelFileError, match="not found"):
        NcnnBackend(tmp_path / "nothing.onnx")
    bad = tmp_path / "bad_ncnn_model"
    shutil.copytree(exported / "reader_ncnn_model", bad)
    (bad / "metadata.yaml").unlink()
    with pytest.raises(ModelFileError, match="metadata.yaml is missing"):
        NcnnBackend(bad)
    shutil.copyfile(exported / "reader_ncnn_model" / "metadata.yaml", bad / "metadata.yaml")
    data = (bad / "model.ncnn.bin").read_bytes()
    (bad / "model.ncnn.bin").write_bytes(data[: len(data) // 3])
    with pytest.raises(ModelFileError, match="truncated"):
        NcnnBackend(bad)
    (bad / "model.ncnn.param").write_text("this is not a model\n")
    with pytest.raises(ModelFileError, match="not an NCNN param file"):
        NcnnBackend(bad)
    (bad / "model.ncnn.param").write_bytes(b"")
    with pytest.raises(ModelFileError, match="empty"):
        NcnnBackend(bad)


def test_broken_openvino_folders_are_clear_errors(exported, tmp_path):
    bad = tmp_path / "finder_openvino_model"
    bad.mkdir()
    with pytest.raises(ModelFileError, match=r"no OpenVINO model \(\*.xml\)"):
        OpenVinoBackend(bad)
    (bad / "finder.xml").write_text("<net><layers><broken")
    shutil.copyfile(exported / "finder_openvino_model" / "metadata.yaml", bad / "metadata.yaml")
    with pytest.raises(ModelFileError, match="cannot load model .* with OpenVINO"):
        OpenVinoBackend(tmp_path / "finder.onnx")  # the folder beside the named ONNX is used
    with pytest.raises(ValueError, match="unknown backend 'tensorrt'"):
        load_backend(exported / "finder.onnx", "tensorrt")


def test_metadata_round_trip(tmp_path):
    names = {0: "10c", 1: "Qs", 2: "none"}
    write_metadata(tmp_path / "metadata.yaml", names, (96, 96), stage="reader")
    meta = read_metadata(tmp_path / "metadata.yaml")
    assert eval(meta["names"]) == names and meta["imgsz"] == "[96, 96]" and meta["stage"] == "reader"
    (tmp_path / "metadata.yaml").write_text("names:\n  zero: index\n")
    with pytest.raises(ModelFileError, match="unreadable class name"):
        read_metadata(tmp_path / "metadata.yaml")


def test_export_errors_are_clear(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="unknown export format"):
        export(DEFAULT_FINDER, "finder", ("tflite",), out_dir=tmp_path)
    monkeypatch.setattr("sim.training.export_model.importlib.util.find_spec", lambda name: None)
    with pytest.raises(ExportError, match="pip install pnnx"):
        export(DEFAULT_FINDER, "finder", ("ncnn",), out_dir=tmp_path)
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model at all")
    with pytest.raises(ModelFileError, match="cannot load ONNX model"):
        export(junk, "finder", ("openvino",), out_dir=tmp_path)


@pytest.mark.train
def test_checkpoint_exports_straight_to_ncnn(tmp_path):
    from vision.detector import MODELS_DIR

    written = export(MODELS_DIR / "reader.pt", "reader", ("ncnn",), out_dir=tmp_path)
    assert written == [tmp_path / "reader_ncnn_model"]
    assert not (tmp_path / "reader.onnx").exists()  # the ONNX step stayed in a scratch folder
    crops = np.random.default_rng(5).random((2, 3, 96, 96), dtype=np.float32)
    np.testing.assert_allclose(NcnnBackend(written[0])(crops), OnnxBackend(DEFAULT_READER)(crops), atol=1e-3)


def test_onnx_pools_do_not_spin_between_runs():
    # Two sessions share two cores: a pool left spinning after the finder slows the reader.
    backend = OnnxBackend(DEFAULT_READER)
    options = backend.session.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"


def test_openvino_computes_in_float32_on_every_cpu(exported):
    # Where the CPU has bfloat16 units OpenVINO would otherwise pick bf16 on its own, and read
    # differently from ONNX Runtime (scores a few hundredths off).
    import openvino as ov

    backend = OpenVinoBackend(exported / "finder.onnx", threads=1)
    assert backend.compiled.get_property("INFERENCE_PRECISION_HINT") == ov.Type.f32
