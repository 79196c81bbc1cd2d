"""Inference backends behind one call: ``backend(batch_nchw_float32) -> first output``.

ONNX Runtime is the default everywhere. OpenVINO reads the same ``.onnx`` file (often
faster on x86), NCNN reads the ``*_ncnn_model`` folder Ultralytics exports (the Pi). Each
backend imports its runtime only when chosen, and none imports torch.

Class names travel inside the model: Ultralytics writes them into the ONNX metadata
(``names``) and the NCNN folder's ``metadata.yaml``; :func:`model_names` reads either.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import numpy as np

BACKENDS = ("onnx", "openvino", "ncnn")


class ModelFileError(ValueError):
    """A model file is missing, unreadable or not the kind of model expected."""


def _check_file(path: Path) -> Path:
    path = Path(path)
    if not path.exists():
        raise ModelFileError(f"model file not found: {path}")
    if path.is_file() and path.stat().st_size == 0:
        raise ModelFileError(f"model file is empty: {path}")
    return path


def _parse_names(text: str | None, path: Path) -> dict[int, str]:
    if not text:
        raise ModelFileError(f"{path} carries no class names (export it with vision.export)")
    try:
        names = ast.literal_eval(text)
    except (ValueError, SyntaxError) as exc:
        raise ModelFileError(f"{path} has unreadable class names: {text[:80]!r}") from exc
    if isinstance(names, list):
        names = dict(enumerate(names))
    return {int(k): str(v) for k, v in names.items()}


class OnnxBackend:
    """ONNX Runtime on the CPU (or the first provider given)."""

    name = "onnx"

    def __init__(self, path: str | os.PathLike, threads: int | None = None, providers: list[str] | None = None):
        import onnxruntime as ort

        self.path = _check_file(Path(path))
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        options.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(str(self.path), options,
                                                providers=providers or ["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own untyped errors for bad files
            raise ModelFileError(f"cannot load ONNX model {self.path}: {exc}") from exc
        inp = self.session.get_inputs()[0]
        self.input_name = inp.name
        #: (batch, channels, height, width); a dynamic axis is None.
        self.input_shape = tuple(d if isinstance(d, int) else None for d in inp.shape)
        meta = self.session.get_modelmeta().custom_metadata_map
        self.names = _parse_names(meta.get("names"), self.path)
        self.imgsz = _parse_imgsz(meta.get("imgsz"), self.input_shape)

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        return self.session.run(None, {self.input_name: batch})[0]


class OpenVinoBackend:
    """OpenVINO on the CPU, compiled from the same ONNX file."""

    name = "openvino"

    def __init__(self, path: str | os.PathLike, threads: int | None = None):
        try:
            import openvino as ov
        except ImportError as exc:
            raise ModelFileError("the openvino backend needs `pip install openvino`") from exc
        import onnx

        self.path = _check_file(Path(path))
        try:
            meta = {p.key: p.value for p in onnx.load(str(self.path), load_external_data=False).metadata_props}
            core = ov.Core()
            model = core.read_model(str(self.path))
            config = {"INFERENCE_NUM_THREADS": threads} if threads else {}
            self.compiled = core.compile_model(model, "CPU", config)
        except Exception as exc:
            raise ModelFileError(f"cannot load model {self.path} with OpenVINO: {exc}") from exc
        shape = model.inputs[0].get_partial_shape()
        self.input_shape = tuple(d.get_length() if d.is_static else None for d in shape)
        self.names = _parse_names(meta.get("names"), self.path)
        self.imgsz = _parse_imgsz(meta.get("imgsz"), self.input_shape)

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        return np.asarray(self.compiled(batch)[0])


class NcnnBackend:
    """NCNN from an Ultralytics ``*_ncnn_model`` folder (``model.ncnn.param/bin``, ``metadata.yaml``)."""

    name = "ncnn"

    def __init__(self, path: str | os.PathLike, threads: int | None = None):
        try:
            import ncnn
        except ImportError as exc:
            raise ModelFileError("the ncnn backend needs `pip install ncnn`") from exc
        folder = _check_file(Path(path))
        if folder.suffix == ".onnx":  # the NCNN export sits beside the ONNX one
            folder = _check_file(folder.with_name(folder.stem + "_ncnn_model"))
        self.path = folder
        self.net = ncnn.Net()
        self.net.opt.num_threads = threads or os.cpu_count() or 1
        param, weights = folder / "model.ncnn.param", folder / "model.ncnn.bin"
        if self.net.load_param(str(_check_file(param))) != 0 or self.net.load_model(str(_check_file(weights))) != 0:
            raise ModelFileError(f"cannot load NCNN model from {folder}")
        meta = _read_simple_yaml(folder / "metadata.yaml")
        self.names = _parse_names(meta.get("names"), folder)
        self.imgsz = _parse_imgsz(meta.get("imgsz"), (None,) * 4)
        self.input_shape = (None, 3, *self.imgsz) if self.imgsz else (None, 3, None, None)
        self._ncnn = ncnn

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        outs = []
        for image in batch:  # the ncnn Python API runs one image at a time
            with self.net.create_extractor() as ex:
                ex.input("in0", self._ncnn.Mat(np.ascontiguousarray(image)).clone())
                _, out = ex.extract("out0")
                outs.append(np.array(out))
        return np.stack(outs)


def _parse_imgsz(text, input_shape: tuple) -> tuple[int, int] | None:
    if input_shape[2:] and all(isinstance(d, int) for d in input_shape[2:]):
        return int(input_shape[2]), int(input_shape[3])
    if text:
        try:
            value = ast.literal_eval(str(text))
        except (ValueError, SyntaxError):
            return None
        value = [value, value] if isinstance(value, int) else list(value)
        return int(value[0]), int(value[1])
    return None


def _read_simple_yaml(path: Path) -> dict[str, str]:
    """The two top-level keys we need from an Ultralytics metadata.yaml, without PyYAML."""
    meta: dict[str, str] = {}
    if not path.exists():
        return meta
    key = None
    names: dict[int, str] = {}
    for line in path.read_text().splitlines():
        if not line.startswith(" ") and ":" in line:
            key, _, value = line.partition(":")
            if value.strip():
                meta[key] = value.strip()
        elif key == "names" and ":" in line:
            k, _, v = line.strip().partition(":")
            names[int(k)] = v.strip().strip("'\"")
    if names:
        meta["names"] = repr(names)
    return meta


def load_backend(path: str | os.PathLike, backend: str = "onnx", threads: int | None = None):
    """The runtime for one model file; ``backend`` is one of :data:`BACKENDS`."""
    if backend == "onnx":
        return OnnxBackend(path, threads)
    if backend == "openvino":
        return OpenVinoBackend(path, threads)
    if backend == "ncnn":
        return NcnnBackend(path, threads)
    raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
