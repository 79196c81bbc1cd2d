"""Build the detector's synthetic datasets from a seed.

Layout under ``out/``::

    finder/images/<split>/*.jpg, finder/labels/<split>/*.txt   one class: 0 = index
    finder/data.yaml, finder/data_unseen.yaml                   absolute paths
    single/images/<split>/*.jpg (hard links), single/labels/...  54 classes (CARD_IDS)
    reader/<split>/<card id or none>/*.png                       square index crops
    truth/<split>.jsonl                                          every image's corners

Splits: ``train``, ``val`` and ``test_seen`` use the training decks, ``test_unseen`` only
:data:`HELD_OUT_DECKS`. Image ``i`` of a split is drawn from
``SeedSequence([seed, split number, i])``, so any worker order gives the same files.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from sim.synth import crops
from sim.synth.decks import HELD_OUT_DECKS, load_deck, training_decks
from sim.synth.degrade import apply_chain, random_chain
from sim.synth.scene import INDEX_PX, check_index_range, render_full
from sim.synth.textures import preload_photos
from vision.cards import CARD_IDS, CARD_INDEX

SPLITS = ("train", "val", "test_seen", "test_unseen")
_SPLIT_NO = {s: i for i, s in enumerate(SPLITS)}
JPEG_QUALITY = 92
CROPS_PER_CORNER = 2  # differently jittered crops of each labelled index

_DECKS: dict[str, list] = {}


def split_decks(split: str, generated: int = 0) -> list[str]:
    """Decks of a split: the held-out ones for ``test_unseen``, else the training decks plus
    ``generated`` procedural ones."""
    return list(HELD_OUT_DECKS) if split == "test_unseen" else training_decks(generated)


def _decks_for(split: str, generated: int = 0) -> list:
    key = "unseen" if split == "test_unseen" else f"seen+{generated}"
    if key not in _DECKS:
        _DECKS[key] = [load_deck(d) for d in split_decks(split, generated)]
    return _DECKS[key]


def _yolo_line(cls: int, box, imgsz: int) -> str:
    x1, y1, x2, y2 = box
    cx, cy, w, h = (x1 + x2) / 2 / imgsz, (y1 + y2) / 2 / imgsz, (x2 - x1) / imgsz, (y2 - y1) / imgsz
    return f"{cls} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}"


def _link(src: Path, dst: Path) -> None:
    dst.unlink(missing_ok=True)  # a resumed build renders some images again
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def render_one(task: tuple) -> dict:
    """Render image ``i`` of ``split`` and write all its files; returns its truth record."""
    out, split, i, seed, imgsz, reader_size, joker_p, generated, index_range, degrade_p, play_p = task
    out = Path(out)
    ss = np.random.SeedSequence([seed, _SPLIT_NO[split], i])
    rng = np.random.default_rng(ss)
    scene = render_full(rng, _decks_for(split, generated), imgsz, joker_p=joker_p, index_range=index_range,
                        play_p=play_p)
    if degrade_p and split not in ("test_seen", "test_unseen"):
        # A camera chain on top of the renderer's own effects (same geometry, so the labels
        # hold): blur, binning, halos, JPEG 4:2:0 that smear a club's three lobes into a
        # spade's outline. Its own seed stream, so the clean scene is the same with or without.
        camera_rng = np.random.default_rng(ss.spawn(2)[1])
        if camera_rng.random() < degrade_p:
            scene.image = apply_chain(scene.image, random_chain(camera_rng), camera_rng)
    stem = f"{split}_{i:06d}"
    img_path = out / "finder" / "images" / split / f"{stem}.jpg"
    cv2.imwrite(str(img_path), scene.image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    finder = [_yolo_line(0, c["box"], imgsz) for c in scene.corners]
    single = [_yolo_line(CARD_INDEX[c["card"]], c["box"], imgsz) for c in scene.corners]
    (out / "finder" / "labels" / split / f"{stem}.txt").write_text("".join(x + "\n" for x in finder))
    (out / "single" / "labels" / split / f"{stem}.txt").write_text("".join(x + "\n" for x in single))
    _link(img_path, out / "single" / "images" / split / f"{stem}.jpg")
    # Reader crops come from the finished (blurred, noisy, compressed) image.
    crop_rng = np.random.default_rng(ss.spawn(1)[0])
    n_pos = 0
    for j, corner in enumerate(scene.corners):
        for k in range(CROPS_PER_CORNER):
            box = crops.jittered_box(crop_rng, corner["quad"])
            crop = crops.square_crop(scene.image, box, reader_size, crops.MARGIN)
            cv2.imwrite(str(out / "reader" / split / corner["card"] / f"{stem}_{j}_{k}.png"), crop)
            n_pos += 1
    n_neg = int(crop_rng.poisson(0.3 * CROPS_PER_CORNER * len(scene.corners) + 0.6))
    negs = crops.negative_boxes(crop_rng, scene, n_neg)
    for j, box in enumerate(negs):
        crop = crops.square_crop(scene.image, box, reader_size, crops.MARGIN)
        cv2.imwrite(str(out / "reader" / split / crops.NONE_CLASS / f"{stem}_n{j}.png"), crop)
    return {
        "image": str(img_path.resolve()),
        "split": split,
        "deck": sorted({c["deck"] for c in scene.cards}),
        "corners": scene.corners,
        "cards": scene.cards,
        "reader": {"index": n_pos, "none": len(negs)},
    }


def _write_yaml(path: Path, root: Path, names: list[str], test_split: str) -> None:
    lines = [
        f"path: {root}",
        f"train: {root / 'images' / 'train'}",
        f"val: {root / 'images' / 'val'}",
        f"test: {root / 'images' / test_split}",
        f"test_seen: {root / 'images' / 'test_seen'}",
        f"test_unseen: {root / 'images' / 'test_unseen'}",
        f"nc: {len(names)}",
        "names:",
    ]
    lines += [f"  {i}: {json.dumps(n)}" for i, n in enumerate(names)]
    path.write_text("\n".join(lines) + "\n")


def _prepare(out: Path) -> None:
    for split in SPLITS:
        for part in ("finder", "single"):
            (out / part / "images" / split).mkdir(parents=True, exist_ok=True)
            (out / part / "labels" / split).mkdir(parents=True, exist_ok=True)
        for cls in (*CARD_IDS, crops.NONE_CLASS):
            (out / "reader" / split / cls).mkdir(parents=True, exist_ok=True)
    (out / "truth").mkdir(parents=True, exist_ok=True)


def _index_of(name: str, split: str) -> int | None:
    """Image number from a file name such as ``test_seen_000012_3_1.png``."""
    rest = name[len(split) + 1 :] if name.startswith(split + "_") else ""
    return int(rest[:6]) if rest[:6].isdigit() else None


def _finished(out: Path, counts: dict) -> dict[str, dict[int, dict]]:
    """Truth records of an interrupted build, by split and image number."""
    kept: dict[str, dict[int, dict]] = {}
    for split in SPLITS:
        path = out / "truth" / f"{split}.jsonl"
        recs: dict[int, dict] = {}
        for line in path.read_text().splitlines() if path.exists() else []:
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue  # the line the interruption cut short; that image is rendered again
            i = _index_of(Path(rec["image"]).name, split)
            if i is not None and i < counts[split]:
                recs[i] = rec
        kept[split] = recs
    return kept


def _remove_beyond(out: Path, counts: dict) -> None:
    """Delete files of images numbered past the (possibly shrunk) counts."""
    for split in SPLITS:
        folders = [out / p / k / split for p in ("finder", "single") for k in ("images", "labels")]
        folders += [d for d in (out / "reader" / split).iterdir() if d.is_dir()]
        for folder in folders:
            for f in folder.iterdir():
                i = _index_of(f.name, split)
                if i is not None and i >= counts[split]:
                    f.unlink()


def build(
    out_dir,
    seed: int,
    n_train: int,
    n_val: int,
    n_test: int,
    imgsz: int = 416,
    reader_size: int = 96,
    workers: int = 2,
    progress=None,
    resume: bool = False,
    joker_p: float = 0.0,
    generated: int = 0,
    index_px: tuple[float, float] = INDEX_PX,
    degrade: float = 0.0,
    play_p: float = 0.0,
) -> dict:
    """Write the finder, single-stage, reader and truth sets; returns counts per split.

    ``n_test`` images go to each of ``test_seen`` and ``test_unseen``. ``resume`` finishes
    an interrupted build in ``out_dir`` (same seed and sizes; the counts may shrink):
    images already in its truth files are kept, the rest rendered (the same bytes, as
    every image has its own seed), and files beyond the new counts removed.
    ``joker_p``: the share of scenes that deal both jokers (with plain shuffles, 15% of v2's
    training scenes show a joker corner; see :func:`sim.synth.scene.render_full`).
    ``generated``: procedural decks (:mod:`sim.synth.procedural`) added to the training
    decks of ``train``, ``val`` and ``test_seen``; ``test_unseen`` keeps the held-out decks.
    ``index_px``: the (smallest, largest) corner index height in pixels, drawn log-uniformly
    per scene (default 12-60; a narrower range such as 10-18 makes a set of small indices).
    ``degrade``: the share of ``train`` and ``val`` scenes also put through a random camera
    (:func:`sim.synth.degrade.random_chain`); the test splits stay as rendered, so the
    degradation benchmark applies its own.
    ``play_p``: the share of scenes laid as plays and shown hands, rows of cards 0.15-0.33 of a
    card apart (:func:`sim.synth.layout.plays`): indices just clear of the next card's edge.
    """
    counts = {"train": n_train, "val": n_val, "test_seen": n_test, "test_unseen": n_test}
    if any(n < 0 for n in counts.values()):
        raise ValueError(f"image counts must not be negative: {counts}")
    if imgsz < 64 or imgsz % 32:
        raise ValueError(f"imgsz must be a multiple of 32 and at least 64, got {imgsz}")
    if reader_size < 16:
        raise ValueError(f"reader_size must be at least 16, got {reader_size}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if not 0.0 <= joker_p <= 1.0:
        raise ValueError(f"joker_p must be between 0 and 1, got {joker_p}")
    if not 0.0 <= degrade <= 1.0:
        raise ValueError(f"degrade must be between 0 and 1, got {degrade}")
    if not 0.0 <= play_p <= 1.0:
        raise ValueError(f"play_p must be between 0 and 1, got {play_p}")
    if not 0 <= generated <= 100_000:
        raise ValueError(f"generated decks must be 0..100000, got {generated}")
    index_px = check_index_range(index_px, imgsz / 2)  # checked before any worker starts
    out = Path(out_dir).resolve()
    if (out / "finder" / "data.yaml").exists():
        raise FileExistsError(f"{out} already holds a dataset; choose a new folder")
    _prepare(out)
    kept = _finished(out, counts) if resume else {s: {} for s in SPLITS}
    for split in ("train", "test_unseen"):  # render deck caches once, before workers fork
        _decks_for(split, generated)
    preload_photos()
    started = time.time()
    tasks = [
        (str(out), s, i, seed, imgsz, reader_size, joker_p, generated, index_px, degrade, play_p)
        for s in SPLITS for i in range(counts[s]) if i not in kept[s]
    ]
    summary: dict = {s: {"images": 0, "corners": 0, "reader_index": 0, "reader_none": 0} for s in SPLITS}
    files = {s: open(out / "truth" / f"{s}.jsonl", "w") for s in SPLITS}  # noqa: SIM115

    def record(rec: dict) -> None:
        s = rec["split"]
        files[s].write(json.dumps(rec) + "\n")
        summary[s]["images"] += 1
        summary[s]["corners"] += len(rec["corners"])
        summary[s]["reader_index"] += rec["reader"]["index"]
        summary[s]["reader_none"] += rec["reader"]["none"]

    for split in SPLITS:
        for i in sorted(kept[split]):
            record(kept[split][i])
    try:
        if workers == 1:
            results: Iterator[dict[str, Any]] = map(render_one, tasks)
            pool = None
        else:
            pool = mp.get_context("fork").Pool(workers)
            results = pool.imap(render_one, tasks, chunksize=4)
        for n, rec in enumerate(results, 1):
            record(rec)
            if progress is not None and (n % 50 == 0 or n == len(tasks)):
                progress(n, len(tasks))
        if pool is not None:
            pool.close()
            pool.join()
    finally:
        for f in files.values():
            f.close()
    if resume:
        _remove_beyond(out, counts)
    for part, names in (("finder", ["index"]), ("single", list(CARD_IDS))):
        root = out / part
        _write_yaml(root / "data.yaml", root, names, "test_seen")
        _write_yaml(root / "data_unseen.yaml", root, names, "test_unseen")
    settings = {
        "seed": seed, "counts": counts, "imgsz": imgsz, "reader_size": reader_size, "joker_p": joker_p,
        "reader_margin": crops.MARGIN, "generated_decks": generated, "degrade": degrade, "play_p": play_p, "index_px": list(index_px), "train_decks": training_decks(generated),
        "held_out_decks": list(HELD_OUT_DECKS),
    }
    (out / "settings.json").write_text(json.dumps(settings, indent=1))
    summary["seconds"] = round(time.time() - started, 1)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary
