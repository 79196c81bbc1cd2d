"""The detector's work per frame in multiply-adds (MACs), from the ONNX graphs themselves.

A timing under emulation (qemu) says nothing about a Raspberry Pi, but the arithmetic a frame
needs is the same on every machine: this counts it, and ``deploy/raspberrypi/README.md``
turns it into frames per second with a published Pi figure.

    python -m bench.macs                                  # each model at the sizes the box uses
    python -m bench.macs --film runs/sim/seed3            # + calls per frame, counted on a film
    python -m bench.macs --model models/finder.onnx --shape 1x3x640x640

The count walks the graph's Conv, ConvTranspose, Gemm and MatMul nodes after ONNX shape
inference at a fixed input shape (every other node, activations and additions, is a few
percent of the work and left out). One MAC is one multiply and one add: a "FLOPs" figure
(Ultralytics' 6.5 GFLOPs for YOLO11n) is about twice the MACs.

``--film FOLDER`` (a ``ddz-table simulate`` folder) runs ``ddz-table run`` on its video with
the shipped detector on ``--backend`` (default ``ncnn``: the Pi's finder, fixed at 640x640) and
counts every model call and its input shape, so "finder runs per frame" and "index crops read
per frame" are the tracker's own, not guesses. It needs the ``onnx`` package (the ``train``
extra).
"""

from __future__ import annotations

import argparse
import atexit
import json
import math
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from bench import child_env

REPO = Path(__file__).resolve().parent.parent
MODELS = REPO / "models"
#: The inputs the box gives each model: the NCNN finder takes 640x640 only (every zone crop is
#: letterboxed into it); the reader reads one 96x96 index crop, the pip classifier a 32x32 pip.
BOX_SHAPES = {"finder": (1, 3, 640, 640), "reader": (1, 3, 96, 96), "pips": (1, 3, 32, 32)}
COUNTED_OPS = ("Conv", "ConvTranspose", "Gemm", "MatMul")


class MacsError(ValueError):
    """A graph whose counted nodes have shapes inference could not give."""


# ---------------------------------------------------------------------- counting
def model_macs(path: str | os.PathLike, shape: tuple[int, ...]) -> dict[str, Any]:
    """MACs of one run of the ONNX model at ``path`` on an input of ``shape``.

    Returns ``{"total": int, "by_op": {op: int}, "nodes": int, "params": int}``.
    """
    import onnx

    model = onnx.load(str(path))
    graph = model.graph
    initialisers = {t.name for t in graph.initializer}
    inputs = [i for i in graph.input if i.name not in initialisers]
    if len(inputs) != 1:
        raise MacsError(f"{path}: expected one input, found {len(inputs)}")
    dims = inputs[0].type.tensor_type.shape.dim
    if len(dims) != len(shape):
        raise MacsError(f"{path}: the input has {len(dims)} dimensions, not {len(shape)}")
    for dim, value in zip(dims, shape, strict=True):
        if dim.HasField("dim_value") and dim.dim_value != value:
            raise MacsError(f"{path}: the input is fixed at {[d.dim_value for d in dims]}, not {list(shape)}")
        dim.Clear()
        dim.dim_value = value
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    shapes = {t.name: tuple(t.dims) for t in inferred.graph.initializer}
    for info in [*inferred.graph.value_info, *inferred.graph.input, *inferred.graph.output]:
        tensor = info.type.tensor_type
        if tensor.HasField("shape"):
            shapes[info.name] = tuple(d.dim_value if d.HasField("dim_value") else None for d in tensor.shape.dim)
    by_op: Counter[str] = Counter()
    nodes = 0
    for node in inferred.graph.node:
        if node.op_type not in COUNTED_OPS:
            continue
        nodes += 1
        by_op[node.op_type] += _node_macs(node, shapes)
    params = sum(math.prod(t.dims) for t in graph.initializer)
    return {"total": sum(by_op.values()), "by_op": dict(by_op), "nodes": nodes, "params": params}


def _known(shapes: dict[str, tuple], name: str, node: Any) -> tuple[int, ...]:
    shape = shapes.get(name)
    if shape is None or any(d is None or d <= 0 for d in shape):
        raise MacsError(f"{node.op_type} node {node.name or node.output[0]}: no shape for {name} ({shape})")
    return shape


def _attr(node: Any, name: str, default: Any) -> Any:
    import onnx

    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def _node_macs(node: Any, shapes: dict[str, tuple]) -> int:
    """One node's multiply-adds (biases and activations left out)."""
    if node.op_type == "Conv":
        weight = _known(shapes, node.input[1], node)  # (Cout, Cin / groups, kh, kw...)
        out = _known(shapes, node.output[0], node)
        return math.prod(out) * math.prod(weight[1:])
    if node.op_type == "ConvTranspose":
        weight = _known(shapes, node.input[1], node)  # (Cin, Cout / groups, kh, kw...)
        x = _known(shapes, node.input[0], node)
        return math.prod(x) * math.prod(weight[1:])
    if node.op_type == "Gemm":
        a, b = _known(shapes, node.input[0], node), _known(shapes, node.input[1], node)
        m, k = (a[1], a[0]) if _attr(node, "transA", 0) else a
        n = b[0] if _attr(node, "transB", 0) else b[1]
        return m * k * n
    # MatMul: numpy's rules; a 1-D operand gains (and loses) a dimension.
    a, b = _known(shapes, node.input[0], node), _known(shapes, node.input[1], node)
    a2, b2 = (1, *a) if len(a) == 1 else a, (*b, 1) if len(b) == 1 else b
    batch = _broadcast(a2[:-2], b2[:-2])
    return math.prod(batch) * a2[-2] * a2[-1] * b2[-1]


def _broadcast(x: tuple[int, ...], y: tuple[int, ...]) -> tuple[int, ...]:
    width = max(len(x), len(y))
    x, y = (1,) * (width - len(x)) + x, (1,) * (width - len(y)) + y
    return tuple(max(p, q) for p, q in zip(x, y, strict=True))


def parse_shape(text: str) -> tuple[int, ...]:
    try:
        shape = tuple(int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a shape is like 1x3x640x640, not {text!r}") from None
    if not shape or min(shape) <= 0:
        raise argparse.ArgumentTypeError(f"a shape is like 1x3x640x640, not {text!r}")
    return shape


# ---------------------------------------------------------------------- counting calls on a film
class CountingModel:
    """A backend (``vision.backends``) that counts its calls, by input shape."""

    def __init__(self, inner: Any, name: str, calls: Counter) -> None:
        self._inner, self._name, self._calls = inner, name, calls

    def __call__(self, batch: Any) -> Any:
        self._calls[(self._name, tuple(int(d) for d in batch.shape))] += 1
        return self._inner(batch)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._inner, attr)


CALLS: Counter = Counter()


def counting_detector() -> Any:
    """``ddz-table run --detector bench.macs:counting_detector`` (from the repository root): the
    shipped tracker detector on ``$DDZ_MACS_BACKEND``, its model calls written to
    ``$DDZ_MACS_OUT`` as JSON when the run ends."""
    from tracker.detection import build_detector

    detector = build_detector("onnx", os.environ.get("DDZ_MACS_BACKEND", "ncnn"))
    detector.finder = CountingModel(detector.finder, "finder", CALLS)
    detector.reader = CountingModel(detector.reader, "reader", CALLS)
    if getattr(detector, "face", None) is not None:
        detector.face.model = CountingModel(detector.face.model, "pips", CALLS)
    out = os.environ.get("DDZ_MACS_OUT")
    if out:
        atexit.register(lambda: Path(out).write_text(
            json.dumps([[name, list(shape), n] for (name, shape), n in CALLS.items()]), encoding="utf-8"))
    return detector


def count_film(folder: Path, backend: str) -> tuple[int, list[tuple[str, tuple[int, ...], int]]]:
    """(frames in the film, [(model, input shape, calls)]) from one ``ddz-table run`` of it."""
    import cv2

    video, calibration = folder / "video.mp4", folder / "calibration.json"
    capture = cv2.VideoCapture(str(video))
    frames = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
    capture.release()
    if frames <= 0:
        raise MacsError(f"no frames in {video}")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "calls.json"
        env = child_env(DDZ_MACS_BACKEND=backend, DDZ_MACS_OUT=str(out))
        subprocess.run([sys.executable, "-m", "cli", "run", "--source", str(video), "--calibration",
                        str(calibration), "--db", str(Path(tmp) / "run.db"), "--no-web", "--new-match",
                        "--pin", "000000", "--detector", "bench.macs:counting_detector"],
                       env=env, check=True, stdout=subprocess.DEVNULL)
        calls = [(name, tuple(shape), n) for name, shape, n in json.loads(out.read_text(encoding="utf-8"))]
    return frames, calls


# ---------------------------------------------------------------------- report
def per_frame(frames: int, calls: list[tuple[str, tuple[int, ...], int]]) -> dict[str, Any]:
    """Calls, items (a batch of N crops is N items) and MACs per frame, per model."""
    cache: dict[tuple[str, tuple[int, ...]], int] = {}
    out: dict[str, Any] = {}
    for name, shape, n in calls:
        one = (1, *shape[1:])
        if (name, one) not in cache:
            cache[(name, one)] = model_macs(MODELS / f"{name}.onnx", one)["total"]
        row = out.setdefault(name, {"calls": 0, "items": 0, "macs": 0})
        row["calls"] += n
        row["items"] += n * shape[0]
        row["macs"] += n * shape[0] * cache[(name, one)]
    for row in out.values():
        for key in ("calls", "items", "macs"):
            row[key] = row[key] / frames
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Multiply-adds of the detector's models, and per frame.")
    parser.add_argument("--model", help="one ONNX model (with --shape) instead of the shipped three")
    parser.add_argument("--shape", type=parse_shape, help="its input shape, e.g. 1x3x640x640")
    parser.add_argument("--film", type=Path, help="a `ddz-table simulate` folder: count the calls per frame")
    parser.add_argument("--backend", default="ncnn", help="the detector backend for --film (default ncnn)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    if args.model:
        if args.shape is None:
            parser.error("--model needs --shape")
        result = model_macs(args.model, args.shape)
        print(json.dumps(result) if args.json else f"{args.model} at {args.shape}: {result['total'] / 1e9:.3f} GMACs "
              f"({result['nodes']} nodes, {result['params'] / 1e6:.2f} M parameters)")
        return 0
    report: dict[str, Any] = {"models": {}}
    for name, shape in BOX_SHAPES.items():
        report["models"][name] = {"shape": list(shape), **model_macs(MODELS / f"{name}.onnx", shape)}
    if args.film:
        frames, calls = count_film(args.film, args.backend)
        report["film"] = {"folder": str(args.film), "frames": frames, "backend": args.backend,
                          "per_frame": per_frame(frames, calls),
                          "calls": [[name, list(shape), n] for name, shape, n in sorted(calls)]}
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    for name, row in report["models"].items():
        print(f"{name:7} {'x'.join(map(str, row['shape'])):13} {row['total'] / 1e9:8.4f} GMACs  "
              f"({row['nodes']} nodes, {row['params'] / 1e6:.2f} M parameters)")
    if args.film:
        film = report["film"]
        print(f"per frame, {film['frames']} frames of {film['folder']} ({film['backend']}):")
        total = 0.0
        for name, row in film["per_frame"].items():
            total += row["macs"]
            print(f"  {name:7} {row['calls']:.3f} calls, {row['items']:.2f} inputs, {row['macs'] / 1e9:.4f} GMACs")
        print(f"  total   {total / 1e9:.4f} GMACs a frame")
    return 0


if __name__ == "__main__":
    sys.exit(main())
