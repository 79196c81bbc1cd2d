"""Inference backends behind one call: ``backend(batch_nchw_float32) -> first output``.

Three runtimes read the same network, exported from the same ONNX file by
:mod:`sim.training.export_model`, so they give the same detections:

- ``onnx``: ONNX Runtime reads ``finder.onnx`` (the default; always installed);
- ``ncnn``: NCNN reads the folder ``finder_ncnn_model/`` (``model.ncnn.param``,
  ``model.ncnn.bin``, ``metadata.yaml``): the fastest on the Raspberry Pi's ARM cores;
- ``openvino``: OpenVINO reads ``finder_openvino_model/`` (``*.xml``/``*.bin`` IR and
  ``metadata.yaml``), or the ``.onnx`` itself when there is no IR beside it.

A model is named by its ``.onnx`` path for every backend: the NCNN and OpenVINO exports are
found beside it. ``auto`` picks per platform (:func:`default_backend`). Each backend imports
its runtime only when chosen, and none imports torch.

Class names and the input size travel with the model: in the ONNX metadata (``names``,
``imgsz``) and in the folders' ``metadata.yaml``.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import platform
from pathlib import Path
from typing import Protocol

import numpy as np

BACKENDS = ("onnx", "openvino", "ncnn")
AUTO = "auto"
#: What ``--backend`` accepts.
BACKEND_CHOICES = (AUTO, *BACKENDS)
NCNN_PARAM, NCNN_BIN, METADATA = "model.ncnn.param", "model.ncnn.bin", "metadata.yaml"
#: NCNN's text param files open with this number.
NCNN_MAGIC = "7767517"
ARM_MACHINES = ("aarch64", "arm64", "armv7l", "armv8l")
#: Measured with bench/detector.py (latency) on the 2-core x86 development machine (docs/training-log.md):
#: OpenVINO did not beat ONNX Runtime on the whole detect() there, so x86 stays on ONNX Runtime.
OPENVINO_ON_X86 = False


class ModelFileError(ValueError):
    """A model file is missing, unreadable or not the kind of model expected."""


class Backend(Protocol):
    """What every backend gives: the model it read, its input and classes, and the call."""

    name: str
    path: Path
    #: (batch, channels, height, width); a dynamic axis is None.
    input_shape: tuple[int | None, ...]
    names: dict[int, str]
    imgsz: tuple[int, int] | None

    def __call__(self, batch: np.ndarray) -> np.ndarray: ...


def _check_file(path: Path) -> Path:
    path = Path(path)
    if not path.exists():
        raise ModelFileError(f"model file not found: {path}")
    if path.is_file() and path.stat().st_size == 0:
        raise ModelFileError(f"model file is empty: {path}")
    return path


def _parse_names(text: str | None, path: Path) -> dict[int, str]:
    if not text:
        raise ModelFileError(f"{path} carries no class names (export it with sim.training.export_model)")
    try:
        names = ast.literal_eval(text)
    except (ValueError, SyntaxError) as exc:
        raise ModelFileError(f"{path} has unreadable class names: {text[:80]!r}") from exc
    if isinstance(names, list):
        names = dict(enumerate(names))
    if not isinstance(names, dict):
        raise ModelFileError(f"{path} has unreadable class names: {text[:80]!r}")
    return {int(k): str(v) for k, v in names.items()}


def export_folder(path: str | os.PathLike[str], backend: str) -> Path:
    """Where the ``backend`` export of a model named by its ``.onnx`` path lives."""
    path = Path(path)
    return path.with_name(f"{path.stem}_{backend}_model") if path.suffix == ".onnx" else path


def onnx_metadata(path: Path) -> dict[str, str]:
    """The ONNX file's custom metadata (names, imgsz), read with ONNX Runtime (no ``onnx`` package)."""
    import onnxruntime as ort

    try:
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors for bad files
        raise ModelFileError(f"cannot load ONNX model {path}: {exc}") from exc
    return dict(session.get_modelmeta().custom_metadata_map)


class OnnxBackend:
    """ONNX Runtime on the CPU (or the first provider given)."""

    name = "onnx"

    def __init__(self, path: str | os.PathLike[str], threads: int | None = None, providers: list[str] | None = None,
                 data: bytes | None = None):
        """``data``: the model's bytes (a deck profile's reader), ``path`` then only names it."""
        import onnxruntime as ort

        self.path = Path(path) if data is not None else _check_file(Path(path))
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        options.log_severity_level = 3
        # The finder and the reader each have a thread pool; left spinning after a run, one
        # pool's threads take the cores from the other's next run (86 vs 110-155 ms a detect()
        # here on 2 cores, bench/detector.py latency).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self.session = ort.InferenceSession(data if data is not None else str(self.path), options,
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
        first: np.ndarray = self.session.run(None, {self.input_name: batch})[0]
        return first


class OpenVinoBackend:
    """OpenVINO on the CPU: the IR folder beside the ONNX file if there is one, else the ONNX file."""

    name = "openvino"

    def __init__(self, path: str | os.PathLike[str], threads: int | None = None):
        try:
            import openvino as ov
        except ImportError as exc:
            raise ModelFileError("the openvino backend needs `pip install openvino`") from exc
        path = Path(path)
        folder = export_folder(path, self.name)
        if path.suffix == ".xml":
            xml = _check_file(path)
            meta, source = read_metadata(path.parent / METADATA), path
        elif folder.is_dir() or path.suffix != ".onnx":
            xml = _ir_file(_check_file(folder))
            meta, source = read_metadata(folder / METADATA), folder
        else:
            xml = _check_file(path)
            meta, source = onnx_metadata(xml), xml
        self.path = source
        # Read straight from ONNX, a batch can come out wrong (OpenVINO mistranslates the
        # reader's ReduceLogSumExp; see sim.training.export_model.spell_out_logsumexp): one image per call.
        self._one_by_one = xml.suffix == ".onnx"
        try:
            core = ov.Core()
            model = core.read_model(str(xml))
            # f32: on CPUs with bfloat16 (AVX512_BF16, AMX) OpenVINO otherwise computes in bf16,
            # and its scores then differ from ONNX Runtime's by a few hundredths.
            config = {"PERFORMANCE_HINT": "LATENCY", "INFERENCE_PRECISION_HINT": "f32",
                      **({"INFERENCE_NUM_THREADS": threads} if threads else {})}
            self.compiled = core.compile_model(model, "CPU", config)
        except Exception as exc:  # OpenVINO raises RuntimeError subclasses with the parser's message
            raise ModelFileError(f"cannot load model {xml} with OpenVINO: {exc}") from exc
        shape = model.inputs[0].get_partial_shape()
        self.input_shape = tuple(d.get_length() if d.is_static else None for d in shape)
        self.names = _parse_names(meta.get("names"), source)
        self.imgsz = _parse_imgsz(meta.get("imgsz"), self.input_shape)
        self._request = self.compiled.create_infer_request()

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        if self._one_by_one and len(batch) > 1:
            return np.concatenate([self(batch[i:i + 1]) for i in range(len(batch))])
        # copy: the request reuses its output buffer on the next call
        return np.array(self._request.infer({0: batch})[0])


def _ir_file(folder: Path) -> Path:
    found = sorted(folder.glob("*.xml")) if folder.is_dir() else []
    if not found:
        raise ModelFileError(f"no OpenVINO model (*.xml) in {folder}")
    return _check_file(found[0])


class NcnnBackend:
    """NCNN from a ``*_ncnn_model`` folder (``model.ncnn.param``/``.bin``, ``metadata.yaml``).

    ``threads``: by default NCNN's own choice (the big cores). The Python API runs one image
    at a time, so a batch of reader crops is a loop here.
    """

    name = "ncnn"

    def __init__(self, path: str | os.PathLike[str], threads: int | None = None):
        try:
            import ncnn
        except ImportError as exc:
            raise ModelFileError("the ncnn backend needs `pip install ncnn`") from exc
        folder = _check_file(export_folder(path, self.name))
        if not folder.is_dir():
            raise ModelFileError(f"an NCNN model is a folder with {NCNN_PARAM} and {NCNN_BIN}, not {folder}")
        self.path = folder
        param, weights = _check_file(folder / NCNN_PARAM), _check_file(folder / NCNN_BIN)
        with open(param, "rb") as fh:
            first = fh.readline().strip()
        if first != NCNN_MAGIC.encode():  # ncnn would misread another file without saying so
            raise ModelFileError(f"{param} is not an NCNN param file")
        self.net = ncnn.Net()
        self.net.opt.use_vulkan_compute = False
        if threads:
            self.net.opt.num_threads = threads
        if self.net.load_param(str(param)) != 0:
            raise ModelFileError(f"cannot load NCNN model {param}")
        if self.net.load_model(str(weights)) != 0:
            raise ModelFileError(f"cannot load NCNN weights {weights} (truncated, or not this model's)")
        inputs, outputs = self.net.input_names(), self.net.output_names()
        if len(inputs) != 1 or not outputs:
            raise ModelFileError(f"{param} must have one input and an output, has {inputs} -> {outputs}")
        self._in, self._out = inputs[0], outputs[0]
        meta = read_metadata(folder / METADATA)
        self.names = _parse_names(meta.get("names"), folder)
        self.imgsz = _parse_imgsz(meta.get("imgsz"), (None,) * 4)
        self.input_shape: tuple[int | None, ...] = (None, 3, *self.imgsz) if self.imgsz else (None, 3, None, None)
        self._ncnn = ncnn

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        outs = []
        for image in batch:
            image = np.ascontiguousarray(image)  # the Mat borrows this memory until extract()
            with self.net.create_extractor() as ex:
                ex.input(self._in, self._ncnn.Mat(image))
                ret, out = ex.extract(self._out)
                if ret != 0:
                    raise ModelFileError(f"NCNN could not run {self.path} on a {image.shape} input")
                outs.append(np.array(out))
        return np.stack(outs)


def _parse_imgsz(text: object, input_shape: tuple[int | None, ...]) -> tuple[int, int] | None:
    fixed = [d for d in input_shape[2:] if isinstance(d, int)]
    if input_shape[2:] and len(fixed) == len(input_shape[2:]):
        return int(fixed[0]), int(fixed[1])
    if text:
        try:
            value = ast.literal_eval(str(text))
        except (ValueError, SyntaxError):
            return None
        value = [value, value] if isinstance(value, int) else list(value)
        return int(value[0]), int(value[1])
    return None


def read_metadata(path: Path) -> dict[str, str]:
    """The top-level keys of a ``metadata.yaml`` (ours or Ultralytics'), without PyYAML.

    ``names`` (a nested ``index: name`` block) comes back as the repr of a dict.
    """
    meta: dict[str, str] = {}
    if not path.exists():
        raise ModelFileError(f"{path} is missing: the export has no class names (export it with sim.training.export_model)")
    key = None
    names: dict[int, str] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line.startswith(" ") and ":" in line:
            key, _, value = line.partition(":")
            if value.strip():
                meta[key] = value.strip()
        elif key == "names" and ":" in line:
            k, _, v = line.strip().partition(":")
            try:
                names[int(k)] = v.strip().strip("'\"")
            except ValueError:
                raise ModelFileError(f"{path}: unreadable class name line {line.strip()!r}") from None
    if names:
        meta["names"] = repr(names)
    return meta


def write_metadata(path: Path, names: dict[int, str], imgsz: tuple[int, int], **extra: str) -> None:
    """A ``metadata.yaml`` that :func:`read_metadata` (and Ultralytics) reads back."""
    lines = [f"{k}: {v}" for k, v in extra.items()]
    lines += [f"imgsz: [{imgsz[0]}, {imgsz[1]}]", "names:"]
    lines += [f"  {i}: {names[i]!r}" if names[i][:1].isdigit() else f"  {i}: {names[i]}" for i in sorted(names)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _importable(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def default_backend(path: str | os.PathLike[str] | None = None, machine: str | None = None) -> str:
    """The runtime to use here for the model at ``path`` (its ``.onnx``).

    NCNN on ARM (the Pi) when the ``ncnn`` module and the model's NCNN export are there;
    OpenVINO on x86 only where it measured faster (:data:`OPENVINO_ON_X86`); else ONNX Runtime.
    """
    machine = (machine or platform.machine()).lower()
    if machine in ARM_MACHINES and _importable("ncnn"):
        if path is None or (export_folder(path, "ncnn") / NCNN_PARAM).is_file():
            return "ncnn"
    if OPENVINO_ON_X86 and machine in ("x86_64", "amd64") and _importable("openvino"):
        return "openvino"
    return "onnx"


def load_backend(path: str | os.PathLike[str], backend: str = "onnx", threads: int | None = None) -> Backend:
    """The runtime for one model (named by its ``.onnx`` path); ``backend`` is one of :data:`BACKEND_CHOICES`."""
    if backend == AUTO:
        backend = default_backend(path)
    if backend == "onnx":
        return OnnxBackend(path, threads)
    if backend == "openvino":
        return OpenVinoBackend(path, threads)
    if backend == "ncnn":
        return NcnnBackend(path, threads)
    raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKEND_CHOICES)}")
