"""The shipped reader taught real photographs without forgetting the rendered decks.

    python -m sim.training.reader_real --real DIR --rendered DIR --out RUN [--epochs N] [--lr LR]

Fine-tunes ``models/reader.pt`` on real index crops (``DIR/train/<card>/*.png``, from
:mod:`sim.training.real_crops`) with their labels, while on rendered crops (a synthetic set's
``reader/train``) it is held to what the base reader itself says of them (a distillation term:
the KL divergence from the base reader's probabilities, both reading the same augmented batch).
Training on real crops with hard labels alone, beside a few rendered ones, moved the reader away
from the held-out rendered decks (``docs/training-log.md``); the teacher keeps it where it was
there, including the procedural designs that are no longer in the batch. Batch-norm statistics
stay frozen (a few real decks would pull them). Writes ``RUN/weights/best.pt`` (best on
``--val``, real crops held out from training) and ``RUN/reader.onnx``.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import time
from pathlib import Path

import numpy as np
import torch

from models import MODELS_DIR
from sim.training.reader_net import (
    IndexReader,
    augment,
    evaluate,
    export_reader,
    freeze_norms,
    load_split,
    load_weights,
    to_tensor,
)


def train(real: Path, rendered: Path, out: Path, val: Path | None = None, epochs: int = 3, lr: float = 5e-4,
          batch: int = 64, distil: float = 1.0, seed: int = 0, threads: int | None = None,
          rendered_batch: int | None = None,
          init: Path = MODELS_DIR / "reader.pt", log=print) -> Path:
    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(seed)
    ckpt = torch.load(init, map_location="cpu", weights_only=False)
    names = list(ckpt["names"])
    model = IndexReader(names, ckpt["imgsz"], ckpt.get("width", 32), ckpt.get("blocks", 0))
    load_weights(model, ckpt)
    teacher = copy.deepcopy(model).eval()
    teacher.softmax = True
    real_x, real_y, _ = load_split(real, names, ckpt["imgsz"])
    rend_x, _, _ = load_split(rendered, names, ckpt["imgsz"])
    val_x, val_y = load_split(val, names, ckpt["imgsz"])[:2] if val else (None, None)
    log(f"real {len(real_x)}, rendered {len(rend_x)}, val {0 if val_x is None else len(val_x)} crops")
    steps_per_epoch = math.ceil(len(real_x) / batch)
    total = epochs * steps_per_epoch
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
    rng = np.random.default_rng(seed)
    weights = out / "weights"
    weights.mkdir(parents=True, exist_ok=True)
    best = -1.0
    if val_x is not None and val_y is not None:
        best = evaluate(model, val_x, val_y, "cpu")
        log(f"base reader val top1 {best:.4f}")
        torch.save({**ckpt, "optimizer": None}, weights / "best.pt")
    for epoch in range(epochs):
        t0, running = time.time(), 0.0
        order = rng.permutation(len(real_x))
        for k in range(steps_per_epoch):
            step = epoch * steps_per_epoch + k
            for group in optimiser.param_groups:
                group["lr"] = lr * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * step / total)))
            model.train()
            freeze_norms(model)
            idx = order[k * batch:(k + 1) * batch]
            loss = model.loss(to_tensor(augment(real_x[idx], rng)), torch.from_numpy(real_y[idx]))
            if distil > 0:
                picked = rng.choice(len(rend_x), rendered_batch or batch, replace=False)
                rendered_batch_x = to_tensor(augment(rend_x[picked], rng))
                with torch.no_grad():
                    target = teacher(rendered_batch_x).clamp_min(1e-6)
                log_p = model(rendered_batch_x)
                loss = loss + distil * (target * (target.log() - log_p)).sum(1).mean()
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            optimiser.step()
            running += loss.item()
        acc = evaluate(model, val_x, val_y, "cpu") if val_x is not None and val_y is not None else float("nan")
        entry = {"epoch": epoch + 1, "loss": round(running / steps_per_epoch, 4), "val_top1": round(acc, 4),
                 "seconds": round(time.time() - t0, 1)}
        log(json.dumps(entry))
        state = {"model": model.state_dict(), "optimizer": None, "epoch": epoch, "epochs": epochs, "names": names,
                 "imgsz": ckpt["imgsz"], "width": ckpt.get("width", 32), "blocks": ckpt.get("blocks", 0),
                 "best_acc": max(best, acc)}
        torch.save(state, weights / "last.pt")
        if val_x is None or acc > best:
            best = acc
            torch.save(state, weights / "best.pt")
    export_reader(weights / "best.pt", out / "reader.onnx")
    return weights / "best.pt"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--real", required=True, help="folder of real crops, <card>/*.png")
    parser.add_argument("--rendered", required=True, help="folder of rendered crops, <card>/*.png")
    parser.add_argument("--val", default=None, help="folder of held-out real crops, <card>/*.png")
    parser.add_argument("--out", required=True)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--distil", type=float, default=1.0)
    parser.add_argument("--batch", type=int, default=64, help="real crops a step")
    parser.add_argument("--rendered-batch", type=int, default=None, help="rendered crops a step (default: --batch)")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    train(Path(args.real), Path(args.rendered), Path(args.out), Path(args.val) if args.val else None, args.epochs,
          args.lr, batch=args.batch, distil=args.distil, seed=args.seed, threads=args.threads,
          rendered_batch=args.rendered_batch)


if __name__ == "__main__":
    main()
