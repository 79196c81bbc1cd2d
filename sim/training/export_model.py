"""Export trained weights to the runtimes the detector ships with.

ONNX comes first (ONNX Runtime, the default runtime); NCNN (for the Raspberry Pi) and
OpenVINO IR are converted from that ONNX file, so all three run the very same graph and
give the same detections, and a shipped ``.onnx`` can be converted again without torch or
the checkpoint: ``ddz-table export-model finder models/finder.onnx --format ncnn``.

- NCNN: the ``pnnx`` converter (PyPI ``pnnx``, its own binary; nothing is downloaded) writes
  ``<name>_ncnn_model/model.ncnn.param|bin``; ``metadata.yaml`` carries names and input size.
- OpenVINO: ``openvino.convert_model`` writes ``<name>_openvino_model/<name>.xml|bin``.

The ONNX finder takes any input size (640 is its working size, whatever size it trained at:
the network is convolutional), so the detector letterboxes a 16:9 frame to 640x384 rather
than 640x640 and the finder runs in 60 % of the time; ``fixed`` pins it to a square (NCNN is
always converted at the square size). The reader keeps a dynamic batch axis in ONNX and
OpenVINO so that all index crops of a frame are read in one call.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import tempfile
from pathlib import Path

from models import MODELS_DIR
from sim.training.train import STAGES, TrainingError, prepare_offline
from vision.backends import METADATA, NCNN_BIN, NCNN_PARAM, ModelFileError, write_metadata

EXPORT_SIZES = {"finder": 640, "single": 640, "reader": 96}
FORMATS = ("onnx", "ncnn", "openvino")
PNNX_TIMEOUT_S = 600


class ExportError(TrainingError):
    """A converter is missing or failed."""


def export(weights: str | Path, stage: str, formats: tuple[str, ...] = ("onnx",), imgsz: int | None = None,
           out_dir: str | Path = MODELS_DIR, name: str | None = None, fixed: bool = False) -> list[Path]:
    """Export ``weights`` (a ``.pt``, or an exported ``.onnx``) to ``out_dir/<name>.onnx``,
    ``<name>_ncnn_model/`` and ``<name>_openvino_model/``, as ``formats`` ask.

    Returns the written paths. ``name`` defaults to the stage. ``fixed`` exports an ONNX
    finder that takes only the square ``imgsz`` (every frame letterboxed to a square).
    """
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; choose one of {', '.join(STAGES)}")
    unknown = set(formats) - set(FORMATS)
    if unknown:
        raise ValueError(f"unknown export format(s) {sorted(unknown)}; choose from {', '.join(FORMATS)}")
    weights = Path(weights)
    if not weights.is_file():
        raise TrainingError(f"weights not found: {weights}")
    name = name or stage
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="ddz-export-") as tmp:
        if weights.suffix == ".onnx":
            onnx_path = weights
            if "onnx" in formats and weights.resolve() != (out_dir / f"{name}.onnx").resolve():
                shutil.copyfile(weights, out_dir / f"{name}.onnx")
                onnx_path = out_dir / f"{name}.onnx"
            if "onnx" in formats:
                written.append(onnx_path)
        else:
            target = out_dir if "onnx" in formats else Path(tmp)
            onnx_path = export_onnx(weights, stage, target / f"{name}.onnx", imgsz, fixed)
            if "onnx" in formats:
                written.append(onnx_path)
        if "ncnn" in formats:
            written.append(onnx_to_ncnn(onnx_path, out_dir / f"{name}_ncnn_model", imgsz, stage=stage))
        if "openvino" in formats:
            written.append(onnx_to_openvino(onnx_path, out_dir / f"{name}_openvino_model", name, stage=stage))
    return written


def export_onnx(weights: Path, stage: str, target: Path, imgsz: int | None = None, fixed: bool = False) -> Path:
    """A ``.pt`` checkpoint (Ultralytics or the tiny reader) as ONNX at ``target``."""
    if is_tiny_reader(weights):
        from sim.training.reader_net import export_reader

        return export_reader(weights, target)
    prepare_offline()
    from ultralytics import YOLO

    with tempfile.TemporaryDirectory(prefix="ddz-onnx-") as tmp:
        # Ultralytics writes its export beside the weights: export a copy, so that exporting
        # models/finder.pt to another folder never overwrites the shipped models/finder.onnx.
        copy = Path(tmp) / weights.name
        shutil.copyfile(weights, copy)
        model = YOLO(str(copy))
        produced = Path(model.export(format="onnx", imgsz=imgsz or EXPORT_SIZES[stage], device="cpu",
                                     simplify=True, dynamic=not fixed or stage == "reader"))
        shutil.copyfile(produced, target)
    return target


def _model_info(onnx_path: Path, imgsz: int | None) -> tuple[dict[int, str], tuple[int, int]]:
    """Class names and the (height, width) to convert at, from the ONNX file itself."""
    import ast

    import onnxruntime as ort

    try:
        session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors for bad files
        raise ModelFileError(f"cannot load ONNX model {onnx_path}: {exc}") from exc
    meta = dict(session.get_modelmeta().custom_metadata_map)
    try:
        names = ast.literal_eval(meta.get("names", ""))
    except (ValueError, SyntaxError):
        names = None
    if not isinstance(names, dict):
        raise ModelFileError(f"{onnx_path} carries no class names (export it with sim.training.export_model)")
    shape = session.get_inputs()[0].shape
    if imgsz:
        size = (imgsz, imgsz)
    elif all(isinstance(d, int) for d in shape[2:]):
        size = (int(shape[2]), int(shape[3]))
    elif meta.get("imgsz"):
        value = ast.literal_eval(meta["imgsz"])
        size = (value, value) if isinstance(value, int) else (int(value[0]), int(value[1]))
    else:
        raise ModelFileError(f"{onnx_path} has a free input size and no imgsz: pass imgsz")
    return {int(k): str(v) for k, v in names.items()}, size


def pnnx_binary() -> Path:
    """The converter binary of the ``pnnx`` package, found without importing it (that pulls in torch)."""
    spec = importlib.util.find_spec("pnnx")
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        binary = Path(folder) / "pnnx"
        if binary.is_file():
            return binary
    raise ExportError("NCNN export needs the pnnx converter: `pip install pnnx` (the train extra)")


def onnx_to_ncnn(onnx_path: str | Path, folder: str | Path, imgsz: int | None = None, stage: str = "") -> Path:
    """Convert an ONNX model to an NCNN folder (fp32 weights: NCNN halves them itself where that pays)."""
    onnx_path, folder = Path(onnx_path), Path(folder)
    names, (h, w) = _model_info(onnx_path, imgsz)
    binary = pnnx_binary()
    with tempfile.TemporaryDirectory(prefix="ddz-pnnx-") as tmp:
        work = Path(tmp)
        source = work / "model.onnx"  # pnnx writes its by-products beside its input
        shutil.copyfile(onnx_path, source)
        outputs = {"ncnnparam": work / NCNN_PARAM, "ncnnbin": work / NCNN_BIN, "ncnnpy": work / "model_ncnn.py",
                   "pnnxparam": work / "model.pnnx.param", "pnnxbin": work / "model.pnnx.bin",
                   "pnnxpy": work / "model_pnnx.py", "pnnxonnx": work / "model.pnnx.onnx"}
        cmd = [str(binary), str(source), f"inputshape=[1,3,{h},{w}]f32", "fp16=0", "device=cpu",
               *[f"{k}={v}" for k, v in outputs.items()]]
        try:
            done = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=PNNX_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise ExportError(f"pnnx took over {PNNX_TIMEOUT_S} s converting {onnx_path}") from None
        if done.returncode != 0 or not outputs["ncnnparam"].is_file() or not outputs["ncnnbin"].is_file():
            tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
            raise ExportError(f"pnnx could not convert {onnx_path} to NCNN: " + " | ".join(tail))
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        shutil.copyfile(outputs["ncnnparam"], folder / NCNN_PARAM)
        shutil.copyfile(outputs["ncnnbin"], folder / NCNN_BIN)
    write_metadata(folder / METADATA, names, (h, w), **_extra(stage, onnx_path))
    return folder


def onnx_to_openvino(onnx_path: str | Path, folder: str | Path, name: str = "model", stage: str = "") -> Path:
    """Convert an ONNX model to an OpenVINO IR folder (fp32, dynamic axes kept)."""
    onnx_path, folder = Path(onnx_path), Path(folder)
    try:
        import openvino as ov
    except ImportError:
        raise ExportError("OpenVINO export needs `pip install openvino` (the train extra)") from None
    names, size = _model_info(onnx_path, None)
    with tempfile.TemporaryDirectory(prefix="ddz-openvino-") as tmp:
        source = spell_out_logsumexp(onnx_path, Path(tmp) / "model.onnx")
        try:
            model = ov.convert_model(str(source))
        except Exception as exc:  # the converter's own error types
            raise ExportError(f"OpenVINO could not convert {onnx_path}: {exc}") from exc
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    ov.save_model(model, str(folder / f"{name}.xml"), compress_to_fp16=False)
    write_metadata(folder / METADATA, names, size, **_extra(stage, onnx_path))
    return folder


def spell_out_logsumexp(onnx_path: Path, target: Path) -> Path:
    """``onnx_path`` with each ReduceLogSumExp written as max, exp, sum and log (``target``), or
    ``onnx_path`` itself when it has none.

    OpenVINO 2026.4's ONNX reader drops the ``axes`` of an opset-17 ReduceLogSumExp and
    reduces over every axis, batch included: the reader's probabilities then sum to one over
    the whole batch of crops instead of over each crop's classes (found by
    tests/vision/test_backends.py). The spelled-out form converts right.
    """
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(onnx_path))
    if not any(n.op_type == "ReduceLogSumExp" for n in model.graph.node):
        return onnx_path
    nodes = []
    for node in model.graph.node:
        if node.op_type != "ReduceLogSumExp":
            nodes.append(node)
            continue
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        axes = [int(a) for a in attrs.get("axes", [])] or ([] if len(node.input) < 2 else None)
        if axes is None or not attrs.get("keepdims", 1):
            raise ExportError(f"{onnx_path}: a ReduceLogSumExp this export cannot rewrite for OpenVINO")
        x, y, p = node.input[0], node.output[0], (node.name or node.output[0]) + "/spelled"
        model.graph.initializer.append(numpy_helper.from_array(np.array(axes, np.int64), p + "_axes"))
        nodes += [helper.make_node("ReduceMax", [x], [p + "_max"], axes=axes, keepdims=1),
                  helper.make_node("Sub", [x, p + "_max"], [p + "_shifted"]),
                  helper.make_node("Exp", [p + "_shifted"], [p + "_exp"]),
                  helper.make_node("ReduceSum", [p + "_exp", p + "_axes"], [p + "_sum"], keepdims=1),
                  helper.make_node("Log", [p + "_sum"], [p + "_log"]),
                  helper.make_node("Add", [p + "_log", p + "_max"], [y])]
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    onnx.checker.check_model(model)
    onnx.save(model, str(target))
    return target


def _extra(stage: str, onnx_path: Path) -> dict[str, str]:
    return {**({"stage": stage} if stage else {}), "source": onnx_path.name}


def is_tiny_reader(weights: Path) -> bool:
    """A checkpoint of :mod:`sim.training.reader_net` (a plain dict with class names), not Ultralytics'."""
    import torch

    return _is_tiny_checkpoint(torch.load(weights, map_location="cpu", weights_only=False))


def _is_tiny_checkpoint(ckpt) -> bool:
    return isinstance(ckpt, dict) and "names" in ckpt and isinstance(ckpt.get("model"), dict)


def ship_weights(weights: str | Path, stage: str, out_dir: str | Path = MODELS_DIR, name: str | None = None) -> Path:
    """Copy a checkpoint to ``models/<name>.pt`` without its optimiser state (smaller, loads the same)."""
    prepare_offline()
    import torch
    from ultralytics.utils.torch_utils import strip_optimizer

    weights, target = Path(weights), Path(out_dir) / f"{name or stage}.pt"
    if not weights.is_file():
        raise TrainingError(f"weights not found: {weights}")
    target.parent.mkdir(parents=True, exist_ok=True)
    ckpt = torch.load(weights, map_location="cpu", weights_only=False)
    if _is_tiny_checkpoint(ckpt):
        torch.save({**ckpt, "optimizer": None}, target)
        return target
    if weights.resolve() != target.resolve():
        shutil.copyfile(weights, target)
    strip_optimizer(str(target))
    return target
