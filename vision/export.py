"""Export trained weights to the runtimes the detector ships with.

ONNX is the default runtime (ONNX Runtime here, OpenVINO reads it too); NCNN is for the
Raspberry Pi. The finder is exported at a fixed 640 input (inference size, whatever size
it trained at: the network is convolutional); the reader keeps a dynamic batch axis so
that all index crops of a frame are read in one call.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from vision.train import STAGES, TrainingError, prepare_offline

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
EXPORT_SIZES = {"finder": 640, "single": 640, "reader": 96}
FORMATS = ("onnx", "ncnn", "openvino")


def export(weights: str | Path, stage: str, formats: tuple[str, ...] = ("onnx",), imgsz: int | None = None,
           out_dir: str | Path = MODELS_DIR, name: str | None = None, dynamic: bool = False) -> list[Path]:
    """Export ``weights`` (a ``.pt``) and copy the results to ``out_dir/<name>.<ext>``.

    Returns the written paths. ``name`` defaults to the stage. ``dynamic`` lets an ONNX
    finder run at any input size (``CardDetector(imgsz=...)``) at some cost in speed.
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
    if is_tiny_reader(weights):
        if set(formats) - {"onnx"}:
            raise ValueError("the tiny reader exports to ONNX only (OpenVINO reads the ONNX file)")
        from vision.reader_net import export_reader

        return [export_reader(weights, out_dir / f"{name}.onnx")]
    prepare_offline()
    from ultralytics import YOLO

    imgsz = imgsz or EXPORT_SIZES[stage]
    written: list[Path] = []
    for fmt in formats:
        model = YOLO(str(weights))
        options = {"format": fmt, "imgsz": imgsz, "device": "cpu"}
        if fmt == "onnx":
            options.update(simplify=True, dynamic=dynamic or stage == "reader")
        produced = Path(model.export(**options))
        if fmt == "onnx":
            target = out_dir / f"{name}.onnx"
            shutil.copyfile(produced, target)
        else:
            target = out_dir / f"{name}_{fmt}_model"
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(produced, target)
        written.append(target)
    return written


def is_tiny_reader(weights: Path) -> bool:
    """A checkpoint of :mod:`vision.reader_net` (a plain dict with class names), not Ultralytics'."""
    import torch

    ckpt = torch.load(weights, map_location="cpu", weights_only=False)
    return isinstance(ckpt, dict) and "names" in ckpt and isinstance(ckpt.get("model"), dict)


def ship_weights(weights: str | Path, stage: str, out_dir: str | Path = MODELS_DIR, name: str | None = None) -> Path:
    """Copy a checkpoint to ``models/<name>.pt`` without its optimiser state (smaller, loads the same)."""
    prepare_offline()
    from ultralytics.utils.torch_utils import strip_optimizer

    target = Path(out_dir) / f"{name or stage}.pt"
    if is_tiny_reader(Path(weights)):
        import torch

        ckpt = torch.load(weights, map_location="cpu", weights_only=False)
        torch.save({**ckpt, "optimizer": None}, target)
        return target
    shutil.copyfile(weights, target)
    strip_optimizer(str(target))
    return target
