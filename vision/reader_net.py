"""A small CNN index reader, trained with plain PyTorch and exported to ONNX.

YOLO11n-cls at 96 px costs ~0.6 GFLOPs a crop and pools a 3x3 grid; this net costs
~0.05 GFLOPs and keeps a 6x6 grid to its classifier, so where a 7 bends and whether a
suit has a stem stay visible (the J/7, 2/3 and clubs/spades confusions of pooled readers).
It trains several times faster on a CPU; ``--arch yolo`` in :mod:`vision.train` keeps the
Ultralytics reader as the alternative.

The exported ONNX model takes (N, 3, S, S) RGB in [0, 1] like an Ultralytics one and
returns softmax probabilities, with ``names`` and ``imgsz`` in its metadata, so
:class:`vision.detector.CardDetector` runs either without knowing which it got.

Needs torch (the train extra).
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")


def conv(c_in: int, c_out: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False), nn.BatchNorm2d(c_out), nn.SiLU())


class IndexReader(nn.Module):
    """96 px crop -> class logits (``softmax=True``: probabilities, as exported)."""

    def __init__(self, n_classes: int, imgsz: int = 96, width: int = 32):
        super().__init__()
        if imgsz % 16:
            raise ValueError(f"imgsz must be a multiple of 16, got {imgsz}")
        w = width
        self.features = nn.Sequential(
            conv(3, w // 2, 2), conv(w // 2, w, 2), conv(w, w),
            conv(w, 2 * w, 2), conv(2 * w, 2 * w),
            conv(2 * w, 4 * w, 2), conv(4 * w, 4 * w),
        )
        grid = imgsz // 16
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(4 * w * grid * grid, n_classes))
        self.softmax = False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        logits = self.head(self.features(x))
        return logits.softmax(1) if self.softmax else logits


def load_split(folder: Path, names: list[str] | None = None, imgsz: int = 96) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """All crops of one split folder (``<class>/*.png``) as uint8 BGR images and labels."""
    classes = names or sorted(p.name for p in folder.iterdir() if p.is_dir())
    images, labels = [], []
    for label, name in enumerate(classes):
        for path in sorted((folder / name).glob("*")) if (folder / name).is_dir() else []:
            if path.suffix.lower() not in IMAGE_SUFFIXES:
                continue
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                continue
            if image.shape[:2] != (imgsz, imgsz):
                image = cv2.resize(image, (imgsz, imgsz), interpolation=cv2.INTER_AREA)
            images.append(image)
            labels.append(label)
    if not images:
        raise ValueError(f"no crops under {folder}")
    return np.stack(images), np.array(labels, np.int64), classes


def augment(batch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Light photometric and geometric jitter on top of the generator's own."""
    n, s = batch.shape[:2]
    out = np.empty_like(batch)
    for i in range(n):
        angle = rng.normal(0, 6)
        scale = float(np.exp(rng.normal(0, 0.08)))
        m = cv2.getRotationMatrix2D((s / 2, s / 2), angle, scale)
        m[:, 2] += rng.normal(0, 0.04 * s, 2)
        out[i] = cv2.warpAffine(batch[i], m, (s, s), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    x = out.astype(np.float32)
    gain = rng.uniform(0.7, 1.3, (n, 1, 1, 1)) * rng.uniform(0.9, 1.1, (n, 1, 1, 3))
    bias = rng.uniform(-25, 25, (n, 1, 1, 1))
    x = x * gain + bias
    grey = rng.random(n) < 0.1  # a colour-cast or monochrome camera
    x[grey] = x[grey].mean(axis=3, keepdims=True)
    return np.clip(x, 0, 255).astype(np.uint8)


def to_tensor(batch: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(batch[..., ::-1].transpose(0, 3, 1, 2))).float() / 255.0


def evaluate(model: IndexReader, images: np.ndarray, labels: np.ndarray, device, batch: int = 256) -> float:
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(images), batch):
            logits = model(to_tensor(images[i:i + batch]).to(device))
            correct += int((logits.argmax(1).cpu() == torch.from_numpy(labels[i:i + batch])).sum())
    return correct / len(images)


def train_reader(data: str | Path, out_dir: str | Path, epochs: int = 10, imgsz: int = 96, batch: int = 128,
                 lr: float = 3e-3, device: str = "cpu", seed: int = 0, resume: bool = False,
                 hours: float | None = None, threads: int | None = None, width: int = 32, log=print) -> Path:
    """Train on ``data/train`` and pick the best epoch on ``data/val``; returns ``best.pt``.

    Every epoch writes ``weights/last.pt`` (model, optimiser, schedule, epoch) so that a
    run stopped at any point continues with ``resume=True``; ``hours`` stops cleanly
    after the epoch that would overrun the budget.
    """
    data, out_dir = Path(data), Path(out_dir)
    weights = out_dir / "weights"
    weights.mkdir(parents=True, exist_ok=True)
    if threads:
        torch.set_num_threads(threads)
    dev = torch.device(f"cuda:{device}" if str(device).isdigit() else device)
    torch.manual_seed(seed)
    train_x, train_y, names = load_split(data / "train", imgsz=imgsz)
    val_x, val_y, _ = load_split(data / "val", names, imgsz)
    log(f"reader: {len(train_x)} train / {len(val_x)} val crops, {len(names)} classes, {imgsz} px")
    model = IndexReader(len(names), imgsz, width).to(dev)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
    steps_per_epoch = math.ceil(len(train_x) / batch)
    start_epoch, best_acc = 0, -1.0
    if resume:
        ckpt = torch.load(weights / "last.pt", map_location=dev, weights_only=False)
        if ckpt["names"] != names:
            raise ValueError("the dataset's classes differ from the checkpoint's")
        model.load_state_dict(ckpt["model"])
        optimiser.load_state_dict(ckpt["optimizer"])
        start_epoch, best_acc = ckpt["epoch"] + 1, ckpt["best_acc"]
        epochs = ckpt["epochs"]
        log(f"resuming at epoch {start_epoch + 1}/{epochs}")
    total = epochs * steps_per_epoch

    def lr_at(step: int) -> float:  # short warm-up, then cosine to 5%
        warm = steps_per_epoch // 2
        if step < warm:
            return lr * (step + 1) / warm
        return lr * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * (step - warm) / max(total - warm, 1))))

    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    rng = np.random.default_rng(seed + start_epoch)
    started = time.time()
    history = []
    for epoch in range(start_epoch, epochs):
        model.train()
        order = rng.permutation(len(train_x))
        t0, running = time.time(), 0.0
        for k in range(steps_per_epoch):
            step = epoch * steps_per_epoch + k
            for group in optimiser.param_groups:
                group["lr"] = lr_at(step)
            idx = order[k * batch:(k + 1) * batch]
            x = to_tensor(augment(train_x[idx], rng)).to(dev)
            y = torch.from_numpy(train_y[idx]).to(dev)
            loss = loss_fn(model(x), y)
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            optimiser.step()
            running += loss.item()
        acc = evaluate(model, val_x, val_y, dev)
        history.append({"epoch": epoch + 1, "loss": round(running / steps_per_epoch, 4), "val_top1": round(acc, 4),
                        "seconds": round(time.time() - t0, 1)})
        log(f"epoch {epoch + 1}/{epochs} loss {running / steps_per_epoch:.4f} val top1 {acc:.4f} "
            f"({time.time() - t0:.0f} s)")
        ckpt = {"model": model.state_dict(), "optimizer": optimiser.state_dict(), "epoch": epoch, "epochs": epochs,
                "best_acc": max(best_acc, acc), "names": names, "imgsz": imgsz, "width": width}
        torch.save(ckpt, weights / "last.pt")
        if acc > best_acc:
            best_acc = acc
            torch.save({**ckpt, "optimizer": None}, weights / "best.pt")
        with open(out_dir / "results.jsonl", "a") as f:
            f.write(json.dumps(history[-1]) + "\n")
        if hours and (time.time() - started) * (epoch + 2 - start_epoch) / (epoch + 1 - start_epoch) > hours * 3600:
            log(f"stopping after epoch {epoch + 1}: the {hours} h budget would be exceeded")
            break
    return weights / "best.pt"


def export_reader(weights: str | Path, target: str | Path) -> Path:
    """``best.pt`` -> ONNX with a dynamic batch, softmax output and Ultralytics-style metadata."""
    import onnx

    ckpt = torch.load(weights, map_location="cpu", weights_only=False)
    model = IndexReader(len(ckpt["names"]), ckpt["imgsz"], ckpt.get("width", 32))
    model.load_state_dict(ckpt["model"])
    model.eval()
    model.softmax = True
    dummy = torch.zeros(1, 3, ckpt["imgsz"], ckpt["imgsz"])
    target = Path(target)
    torch.onnx.export(model, dummy, str(target), input_names=["images"], output_names=["output0"],
                      dynamic_axes={"images": {0: "batch"}, "output0": {0: "batch"}}, opset_version=17,
                      dynamo=False)
    proto = onnx.load(str(target))
    meta = {"names": repr(dict(enumerate(ckpt["names"]))), "imgsz": repr([ckpt["imgsz"]] * 2),
            "task": "classify", "description": "ddz-table index reader (vision.reader_net)"}
    for key, value in meta.items():
        entry = proto.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.save(proto, str(target))
    return target
