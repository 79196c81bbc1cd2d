"""A small CNN index reader, trained with plain PyTorch and exported to ONNX.

YOLO11n-cls at 96 px costs ~0.6 GFLOPs a crop and pools a 3x3 grid; this net costs
~0.05 GFLOPs and keeps a 6x6 grid to its classifier, so where a 7 bends and whether a
suit has a stem stay visible (the J/7, 2/3 and clubs/spades confusions of pooled readers).
It trains several times faster on a CPU; ``--arch yolo`` in :mod:`sim.training.train` keeps the
Ultralytics reader as the alternative.

It reads rank and suit with two heads (the rank head also knows the jokers and ``none``)
and multiplies them into the card's probability: every "7" of every suit teaches the
rank head, so each head sees four times the examples a 54-way head would.

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

from vision.cards import JOKERS, RANKS, SUITS
from vision.files import IMAGE_SUFFIXES


def conv(c_in: int, c_out: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False), nn.BatchNorm2d(c_out), nn.SiLU())


RANK_CLASSES = (*RANKS, *JOKERS, "none")
SUIT_CLASSES = SUITS


def split_name(name: str) -> tuple[int, int]:
    """Reader class name -> (rank class, suit class or -1 for jokers and ``none``)."""
    if name in RANK_CLASSES[13:]:
        return RANK_CLASSES.index(name), -1
    rank, suit = name[:-1], name[-1]
    if rank not in RANK_CLASSES or suit not in SUIT_CLASSES:
        raise ValueError(f"reader class {name!r} is not a card id or 'none'")
    return RANK_CLASSES.index(rank), SUIT_CLASSES.index(suit)


class Residual(nn.Module):
    """Two 3x3 convolutions added to their input; the last norm starts at zero, so a new block
    passes its input through unchanged and a trained reader gains it without losing what it reads."""

    def __init__(self, channels: int):
        super().__init__()
        last = nn.BatchNorm2d(channels)
        self.body = nn.Sequential(conv(channels, channels), nn.Conv2d(channels, channels, 3, 1, 1, bias=False), last)
        nn.init.zeros_(last.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.body(x)


#: Where ``blocks`` residual blocks go: after these layers of ``features`` (the 24, 12 and 6 px
#: grids of a 96 px crop), with their channel counts as multiples of ``width``.
BLOCK_AFTER = {2: 1, 4: 2, 6: 4}


class IndexReader(nn.Module):
    """96 px crop -> per-class log-probabilities (``softmax=True``: probabilities, as exported).

    ``blocks`` adds that many residual blocks at each of the three last grids (0: the
    original, shallower reader; its checkpoints load into a deeper one, see
    :func:`load_weights`)."""

    # Buffers (register_buffer): the classes' rank and suit columns, and each class's rank and suit.
    rank_map: torch.Tensor
    suit_map: torch.Tensor
    rank_of: torch.Tensor
    suit_of: torch.Tensor

    def __init__(self, names: list[str], imgsz: int = 96, width: int = 32, blocks: int = 0):
        super().__init__()
        if imgsz % 16:
            raise ValueError(f"imgsz must be a multiple of 16, got {imgsz}")
        if blocks < 0:
            raise ValueError(f"blocks must be 0 or more, got {blocks}")
        w = width
        self.blocks = blocks
        self.features = nn.Sequential(
            conv(3, w // 2, 2), conv(w // 2, w, 2), conv(w, w),
            conv(w, 2 * w, 2), conv(2 * w, 2 * w),
            conv(2 * w, 4 * w, 2), conv(4 * w, 4 * w),
            nn.Flatten(), nn.Dropout(0.2),
        )
        self.extra = nn.ModuleDict({str(at): nn.Sequential(*(Residual(m * w) for _ in range(blocks)))
                                    for at, m in BLOCK_AFTER.items()} if blocks else {})
        features = 4 * w * (imgsz // 16) ** 2
        self.rank_head = nn.Linear(features, len(RANK_CLASSES))
        self.suit_head = nn.Linear(features, len(SUIT_CLASSES))
        parts = [split_name(n) for n in names]
        rank_map = torch.zeros(len(names), len(RANK_CLASSES))
        suit_map = torch.zeros(len(names), len(SUIT_CLASSES))
        for i, (r, s) in enumerate(parts):
            rank_map[i, r] = 1
            if s >= 0:
                suit_map[i, s] = 1
        self.register_buffer("rank_map", rank_map)
        self.register_buffer("suit_map", suit_map)
        self.register_buffer("rank_of", torch.tensor([r for r, _ in parts]))
        self.register_buffer("suit_of", torch.tensor([s for _, s in parts]))
        self.softmax = False

    def heads(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        f = x
        for i, layer in enumerate(self.features):
            f = layer(f)
            if str(i) in self.extra:
                f = self.extra[str(i)](f)
        return self.rank_head(f), self.suit_head(f)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rank, suit = self.heads(x)
        log_p = rank.log_softmax(1) @ self.rank_map.T + suit.log_softmax(1) @ self.suit_map.T
        log_p = log_p - log_p.logsumexp(1, keepdim=True)  # sums to 1 over the classes trained on
        return log_p.exp() if self.softmax else log_p

    def loss(self, x: torch.Tensor, labels: torch.Tensor, smoothing: float = 0.05) -> torch.Tensor:
        rank, suit = self.heads(x)
        rank_loss = nn.functional.cross_entropy(rank, self.rank_of[labels], label_smoothing=smoothing)
        suits = self.suit_of[labels]
        has_suit = suits >= 0
        if not has_suit.any():
            return rank_loss
        return rank_loss + nn.functional.cross_entropy(suit[has_suit], suits[has_suit], label_smoothing=smoothing)


def load_weights(model: IndexReader, ckpt: dict) -> None:
    """A checkpoint's weights into ``model``, which may have more residual blocks than it:
    those keep their identity start. Any other mismatch is an error."""
    result = model.load_state_dict(ckpt["model"], strict=False)
    missing = [k for k in result.missing_keys if not k.startswith("extra.")]
    if result.unexpected_keys or missing or ckpt.get("blocks", 0) > model.blocks:
        raise ValueError(f"checkpoint does not fit a reader with {model.blocks} blocks a grid "
                         f"(has {ckpt.get('blocks', 0)}; missing {missing[:3]}, unexpected {result.unexpected_keys[:3]})")


def load_split(folder: Path, names: list[str] | None = None, imgsz: int = 96) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """All crops of one split folder (``<class>/*.png``) as uint8 BGR images and labels.

    The images go straight into one array sized from the file count: stacking a list of them
    held every crop twice, and a training run on 397k crops was killed for memory at 21.8 GB
    (docs/training-log.md)."""
    classes = names or sorted(p.name for p in folder.iterdir() if p.is_dir())
    paths, labels = [], []
    for label, name in enumerate(classes):
        for path in sorted((folder / name).glob("*")) if (folder / name).is_dir() else []:
            if path.suffix.lower() in IMAGE_SUFFIXES:
                paths.append(path)
                labels.append(label)
    images = np.empty((len(paths), imgsz, imgsz, 3), np.uint8)
    kept = np.zeros(len(paths), bool)
    for i, path in enumerate(paths):
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        if image.shape[:2] != (imgsz, imgsz):
            image = cv2.resize(image, (imgsz, imgsz), interpolation=cv2.INTER_AREA)
        images[i] = image
        kept[i] = True
    if not kept.any():
        raise ValueError(f"no crops under {folder}")
    if kept.all():
        return images, np.array(labels, np.int64), classes
    return images[kept], np.array(labels, np.int64)[kept], classes


def augment(batch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Light photometric and geometric jitter on top of the generator's own."""
    n, s = batch.shape[:2]
    out = np.empty_like(batch)
    for i in range(n):
        # Crops come at every rotation already; turning them further is free data.
        angle = rng.uniform(0, 360) if rng.random() < 0.5 else rng.normal(0, 6)
        scale = float(np.exp(rng.normal(0, 0.08)))
        m: np.ndarray = cv2.getRotationMatrix2D((s / 2, s / 2), angle, scale)
        m[:, 2] += rng.normal(0, 0.04 * s, 2)
        out[i] = cv2.warpAffine(batch[i], m, (s, s), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        if rng.random() < 0.3:
            # Decks differ most in stroke weight (a fat club is a blob, a thin one three rings):
            # ink thickened (erode: dark spreads) or thinned (dilate) by a pixel or so.
            kernel = np.ones((int(rng.integers(2, 4)),) * 2, np.uint8)
            out[i] = cv2.erode(out[i], kernel) if rng.random() < 0.5 else cv2.dilate(out[i], kernel)
    x: np.ndarray = out.astype(np.float32)
    gain = rng.uniform(0.7, 1.3, (n, 1, 1, 1)) * rng.uniform(0.9, 1.1, (n, 1, 1, 3))
    bias = rng.uniform(-25, 25, (n, 1, 1, 1))
    x = x * gain + bias
    grey = rng.random(n) < 0.1  # a colour-cast or monochrome camera
    x[grey] = x[grey].mean(axis=3, keepdims=True)
    return np.clip(x, 0, 255).astype(np.uint8)


def freeze_norms(model: nn.Module) -> None:
    """Batch-norm layers to eval mode (their statistics kept) in a model otherwise training: a
    fine-tune on a few hundred crops of one deck would drag them to that deck."""
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.eval()


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
                 hours: float | None = None, threads: int | None = None, width: int = 32,
                 init: str | Path | None = None, blocks: int | None = None, log=print) -> Path:
    """Train on ``data/train`` and pick the best epoch on ``data/val``; returns ``best.pt``.

    ``init`` starts a new run from another run's weights (same classes), e.g. to go on
    training the shipped reader on a larger data set with a fresh schedule. ``blocks``
    (default: ``init``'s, else 0) may be more than ``init``'s: the new blocks start as
    identities (:class:`Residual`), so the run starts from what ``init`` reads.

    Every epoch writes ``weights/last.pt`` (model, optimiser, schedule, epoch) so that a
    run stopped at any point continues with ``resume=True`` (and a finished one goes on to
    a larger ``epochs``, its schedule stretched to the new end); ``hours`` stops cleanly
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
    start = torch.load(init, map_location=dev, weights_only=False) if init and not resume else None
    ckpt = torch.load(weights / "last.pt", map_location=dev, weights_only=False) if resume else None
    if blocks is None:
        blocks = (ckpt or start or {}).get("blocks", 0)
    model = IndexReader(names, imgsz, width, blocks).to(dev)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
    steps_per_epoch = math.ceil(len(train_x) / batch)
    start_epoch, best_acc = 0, -1.0
    if start is not None:
        if start.get("names") != names or start.get("width", width) != width:
            raise ValueError(f"{init}: its classes or width differ from this run's")
        load_weights(model, start)
        log(f"starting from {init}")
    if ckpt is not None:
        if ckpt["names"] != names:
            raise ValueError("the dataset's classes differ from the checkpoint's")
        if ckpt.get("blocks", 0) != blocks:
            raise ValueError(f"the checkpoint has {ckpt.get('blocks', 0)} blocks a grid, not {blocks}")
        model.load_state_dict(ckpt["model"])
        optimiser.load_state_dict(ckpt["optimizer"])
        start_epoch, best_acc = ckpt["epoch"] + 1, ckpt["best_acc"]
        epochs = max(epochs, ckpt["epochs"])  # a larger ``epochs`` extends a finished run
        log(f"resuming at epoch {start_epoch + 1}/{epochs}")
    total = epochs * steps_per_epoch

    def lr_at(step: int) -> float:  # short warm-up, then cosine to 5%
        warm = steps_per_epoch // 2
        if step < warm:
            return lr * (step + 1) / warm
        return lr * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * (step - warm) / max(total - warm, 1))))

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
            loss = model.loss(x, y)
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
                "best_acc": max(best_acc, acc), "names": names, "imgsz": imgsz, "width": width,
                "blocks": blocks}
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
    ckpt = torch.load(weights, map_location="cpu", weights_only=False)
    model = IndexReader(ckpt["names"], ckpt["imgsz"], ckpt.get("width", 32), ckpt.get("blocks", 0))
    model.load_state_dict(ckpt["model"])
    model.eval()
    model.softmax = True
    return export_classifier(model, ckpt["imgsz"], ckpt["names"], target,
                             "ddz-table index reader (sim.training.reader_net)")


def export_classifier(model: nn.Module, imgsz: int, names: list[str], target: str | Path, description: str) -> Path:
    """A square-crop classifier in eval mode -> ONNX at ``target``: dynamic batch, input ``images``,
    output ``output0``, and the metadata ``vision.backends`` reads (``names``, ``imgsz``, ``task``)."""
    import onnx

    dummy = torch.zeros(1, 3, imgsz, imgsz)
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(model, (dummy,), str(target), input_names=["images"], output_names=["output0"],
                      dynamic_axes={"images": {0: "batch"}, "output0": {0: "batch"}}, opset_version=17,
                      dynamo=False)
    proto = onnx.load(str(target))
    meta = {"names": repr(dict(enumerate(names))), "imgsz": repr([imgsz] * 2), "task": "classify",
            "description": description}
    for key, value in meta.items():
        entry = proto.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.save(proto, str(target))
    return target
