"""Card detector benchmark: accuracy on held-out synthetic tables, and latency per backend.

Accuracy (seen vs unseen decks, two-stage against single-stage)::

    python -m bench.detector accuracy --data datasets/generated/v1 --single models/single.onnx

reads ``<data>/truth/<split>.jsonl`` and scores every image of ``test_seen`` and
``test_unseen``: the finder's box AP (mAP50, mAP50-95, one class), the card mAP50 (the box
must also read the right card), card precision / recall / F1 at the default threshold and
at the F1-best one, and recall per card. Also the cards on the table as a referee counts them
(a face-up card is *named* when a detection of its id lies on it; a *false name* is an id that
no card under it has, once per image), and the same for the cards grouping makes of the
corners at the threshold (``vision.grouping``: the tracker's view of a frame), with corners
read as different cards fused where they agree on one and without. Then precision and recall
on the corners of ``--working-px`` (18) px or more only, the size a mounted camera gives the
smallest club deck's index (``deploy/raspberrypi/camera.md``): the smaller corners, and reads
on them or themselves that small on no larger corner, are set aside
(``sim.training.evaluate.at_working_scale``).

The reader alone on the labelled index crops, per deck::

    python -m bench.detector reader --data datasets/generated/v2

The shipped detector through each camera degradation of ``sim.synth.degrade`` (and none) on
held-out-deck tables, rendered or ``--data``'s: corners found, card precision / recall, rank
right, and which suit is read for which (club->spade, spade->club, heart<->diamond)::

    python -m bench.detector degrade --scenes 120 --strength 0.5 1 [--data datasets/generated/v1]

Latency at 640, reading every index, median of 30 runs, one backend per process, on a square
640 image and on a 16:9 cut of it (a camera frame, letterboxed to 640x384 when the finder takes
any input size)::

    ddz-table export-model finder models/finder.onnx --format ncnn --format openvino   # once
    ddz-table export-model reader models/reader.onnx --format ncnn --format openvino
    python -m bench.detector latency --backends onnx openvino ncnn

(NCNN and OpenVINO find their exports beside the ``.onnx`` files; ``--finder`` and
``--reader`` point at other ones.) ``--threads`` fixes every runtime's thread count. The
rendered image holds few indices; ``--data datasets/generated/t640`` also times ``detect()``
once on each of the first ``--runs`` scenes of ``--split`` (test_unseen), busy tables of up to
twenty cards, and reports how many indices each read.

Deck profiles (``ddz-table enroll``): each held-out deck enrolled from one rendered layout of
its 54 cards (a YOLO folder, through ``cli.enroll.enroll_folder`` as ``--from-labels`` does),
then other rendered tables of that deck read without and with the profile: card precision and
recall on corners of ``--working-px`` or more, clubs read as spades, enrollment time::

    python -m bench.detector profile --scenes 40

Targets (issue 3): mAP50 >= 0.95 on unseen decks; card recall >= 0.95 and precision >= 0.98
at the default threshold; <= 50 ms per 640 image with ONNX Runtime on this machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from bench import child_env
from sim.synth.closeup import CLOSEUP_BINS, CLOSEUP_FRAMES, render_closeup, score_closeup
from sim.synth.degrade import DEGRADATIONS
from sim.synth.degrade import apply as degrade_image
from sim.synth.enroll_layout import render_layout
from sim.training.evaluate import (
    WATCHED_SUIT_PAIRS,
    ReadTally,
    TableTally,
    Tally,
    at_working_scale,
    grouped_points,
    iou_matrix,
    joker_marks,
    table_cards,
)
from sim.training.evaluate import load_truth as load_labelled
from vision.backends import BACKEND_CHOICES
from vision.cards import CARD_IDS, CARD_INDEX
from vision.detections import Detections
from vision.detector import DEFAULT_FINDER, DEFAULT_READER, CardDetector, read_image
from vision.grouping import FUSE_SHARE
from vision.settings import GOOD_INDEX_PX, INDEX_PX, PHOTO, TURNS

SPLITS = ("test_seen", "test_unseen")


def load_truth(data: Path, split: str, limit: int | None) -> list[dict]:
    try:
        return load_labelled(data, split, limit)
    except (FileNotFoundError, ValueError) as exc:
        raise SystemExit(str(exc)) from None


def visible_truth(row: dict, dets: Detections) -> tuple[Detections, tuple[list, list]]:
    """The detections less those on corners the labels call hidden (neither required nor a
    false alarm), and the visible corners' boxes and card classes."""
    visible = [c for c in row["corners"] if c.get("visible", True)]
    hidden = [c for c in row["corners"] if not c.get("visible", True)]
    if hidden and len(dets):
        covered = iou_matrix(dets.boxes, [c["box"] for c in hidden]).max(axis=1) >= 0.5
        dets = dets[~covered]
    return dets, ([c["box"] for c in visible], [CARD_INDEX[c["card"]] for c in visible])


def score_split(detector: CardDetector, rows: list[dict], conf: float = PHOTO.conf,
                working_px: float = GOOD_INDEX_PX) -> tuple[
        Tally, float, dict[str, Tally], TableTally, dict[str, TableTally], Tally, dict[str, Tally]]:
    """The split's tally, seconds per image, a tally per deck (images of one deck only), the
    cards-on-the-table tally, the cards-on-the-table tallies of the cards grouped at
    ``conf`` with differently read corners fused (``fused``) and without (``apart``), and the
    split's tally with jokers' unlabelled marks set aside (``sim.training.evaluate.joker_marks``), and
    the tallies of the corners of ``working_px`` or more only (``sim.training.evaluate.at_working_scale``),
    of every read (``all``) and with jokers' unlabelled marks set aside (``marks_aside``)."""
    tally, table, marked = Tally(), TableTally(), Tally()
    working = {"all": Tally(), "marks_aside": Tally()}
    grouped = {"fused": TableTally(), "apart": TableTally()}
    by_deck: dict[str, Tally] = {}
    seconds = 0.0
    for row in rows:
        image = read_image(row["image"])
        start = time.perf_counter()
        dets = detector.detect(image, conf=0.01)
        seconds += time.perf_counter() - start
        table.add(dets.boxes, dets.class_ids, dets.scores, table_cards(row))
        for name, share in (("fused", FUSE_SHARE), ("apart", None)):
            points, classes = grouped_points(dets, conf, share)
            grouped[name].add(points, classes, np.ones(len(classes)), table_cards(row))
        dets, truth = visible_truth(row, dets)
        tally.add(dets.boxes, dets.finder_scores, dets.class_ids, dets.scores, *truth)
        aside = dets[~joker_marks(dets.boxes, dets.class_ids, row)]
        marked.add(aside.boxes, aside.finder_scores, aside.class_ids, aside.scores, *truth)
        for kept, into in ((dets, working["all"]), (aside, working["marks_aside"])):
            counted, large = at_working_scale(kept.boxes, truth[0], working_px)
            near = kept[counted]
            into.add(near.boxes, near.finder_scores, near.class_ids, near.scores,
                     [b for b, k in zip(truth[0], large, strict=True) if k],
                     [c for c, k in zip(truth[1], large, strict=True) if k])
        decks = row.get("deck") or []
        if len(decks) == 1:
            by_deck.setdefault(decks[0], Tally()).add(dets.boxes, dets.finder_scores, dets.class_ids, dets.scores,
                                                      *truth)
    return tally, seconds / max(len(rows), 1), by_deck, table, grouped, marked, working


def report_decks(by_deck: dict[str, Tally], conf: float) -> dict[str, dict]:
    """One line per deck: how much the deck's own design matters."""
    out = {}
    for deck, tally in sorted(by_deck.items()):
        at = tally.at_threshold(conf)
        out[deck] = {"images": tally.n_images, "finder_map50": round(tally.finder_ap(0.5), 4),
                     "precision": round(at["precision"], 4), "recall": round(at["recall"], 4)}
        print(f"{'':>9}   {deck:<22} {tally.n_images:4d} img | finder mAP50 {out[deck]['finder_map50']:.3f} | "
              f"@{conf:.2f} P {at['precision']:.3f} R {at['recall']:.3f}")
    return out


def _png(path: Path) -> np.ndarray:
    """A reader crop the generator wrote."""
    import cv2

    image = cv2.imread(str(path))
    if image is None:
        raise OSError(f"cannot read {path}")
    return image


def report(name: str, split: str, tally: Tally, seconds: float, conf: float) -> dict[str, Any]:
    at = tally.at_threshold(conf)
    best = tally.best_f1()
    per_class = tally.recall_per_class(conf)
    rank_recall = _rank_recall(per_class, tally)
    worst = sorted(per_class.items(), key=lambda kv: kv[1])[:6]
    result: dict[str, Any] = {
        "model": name, "split": split, "images": tally.n_images, "corners": tally.n_true,
        "finder_map50": round(tally.finder_ap(0.5), 4), "finder_map50_95": round(tally.finder_ap50_95(), 4),
        "card_map50": round(tally.card_map50(), 4),
        "conf": conf, "precision": round(at["precision"], 4), "recall": round(at["recall"], 4),
        "f1": round(at["f1"], 4), "best_f1_conf": round(best["conf"], 2), "best_f1": round(best["f1"], 4),
        "best_f1_precision": round(best["precision"], 4), "best_f1_recall": round(best["recall"], 4),
        "rank_recall": rank_recall, "ms_per_image": round(seconds * 1000, 1),
        **{k: round(v, 4) for k, v in tally.lost(conf).items()},
        "by_index_size": [{k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()}
                          for row in tally.lost_by_size(conf)],
        "recall_per_card": {CARD_IDS[c]: round(r, 3) for c, r in sorted(per_class.items())},
    }
    print(f"{name:>9} {split:<12} {tally.n_images:4d} img {tally.n_true:5d} corners | finder mAP50 "
          f"{result['finder_map50']:.3f} mAP50-95 {result['finder_map50_95']:.3f} | card mAP50 "
          f"{result['card_map50']:.3f} | @{conf:.2f} P {at['precision']:.3f} R {at['recall']:.3f} "
          f"F1 {at['f1']:.3f} | best F1 {best['f1']:.3f} @{best['conf']:.2f} | {result['ms_per_image']} ms")
    print(f"{'':>9} worst cards: " + ", ".join(f"{CARD_IDS[c]} {r:.2f}" for c, r in worst))
    print(f"{'':>9} corners with a box @{conf:.2f}: {result['boxed']:.3f}, of them read right: "
          f"{result['boxed_read_right']:.3f} (the rest of the recall is lost to the reader)")
    print(f"{'':>9} by index size (longer side, px: boxed / read right): " + ", ".join(
        f"{r['from']}-{r['to'] if r['to'] < 10_000 else ''} {r['boxed']:.2f}/{r['boxed_read_right']:.2f}"
        for r in result["by_index_size"]))
    return result


def report_marks(marked: Tally, tally: Tally, conf: float) -> dict:
    """Precision and recall with reads of a joker on its own card's unlabelled marks set aside."""
    at, best = marked.at_threshold(conf), marked.best_f1()
    aside = sum(len(v) for v in tally.cards.values()) - sum(len(v) for v in marked.cards.values())
    print(f"{'':>9} jokers' unlabelled marks set aside ({aside} reads at any score): @{conf:.2f} "
          f"P {at['precision']:.3f} R {at['recall']:.3f} | best F1 {best['f1']:.3f} @{best['conf']:.2f}")
    return {"reads_aside": aside, "precision": round(at["precision"], 4), "recall": round(at["recall"], 4),
            "best_f1": round(best["f1"], 4), "best_f1_conf": round(best["conf"], 2)}


def report_working(working: dict[str, Tally], conf: float, working_px: float = GOOD_INDEX_PX) -> dict:
    """Precision and recall on the corners of ``working_px`` or more (a mounted camera is set up
    to give ``GOOD_INDEX_PX``), every read counted and with jokers' unlabelled marks set aside."""
    at, aside = working["all"].at_threshold(conf), working["marks_aside"].at_threshold(conf)
    why = ", the size a mounted camera is set up for" if working_px == GOOD_INDEX_PX else ""
    print(f"{'':>9} corners of {working_px:g} px or more only ({working['all'].n_true}{why}): @{conf:.2f} "
          f"P {at['precision']:.3f} R {at['recall']:.3f} | jokers' marks set aside: P {aside['precision']:.3f}")
    return {"min_px": working_px, "corners": working["all"].n_true, "precision": round(at["precision"], 4),
            "recall": round(at["recall"], 4), "precision_marks_aside": round(aside["precision"], 4)}


def report_table(table: TableTally, conf: float, what: str = "cards on the table") -> dict:
    at = table.at_threshold(conf)
    out = {k: round(v, 4) if isinstance(v, float) else v for k, v in at.items()}
    print(f"{'':>9} {what} @{conf:.2f}: {at['named']:.3f} of {at['cards']} readable cards named, "
          f"{at['false_names']} false names (precision {at['precision']:.3f})")
    return out


def report_grouped(grouped: dict[str, TableTally], conf: float) -> dict:
    """The cards grouping makes, fused and not: every grouped card counts (its score is 1)."""
    out = {}
    for name, what in (("fused", "cards grouped, misread corners fused"), ("apart", "cards grouped, not fused")):
        out[name] = report_table(grouped[name], 0.5, f"{what} (corners @{conf:.2f})")
    return out


def _rank_recall(per_class: dict[int, float], tally: Tally) -> dict[str, float]:
    out: dict[str, list[float]] = {}
    for c, r in per_class.items():
        rank = CARD_IDS[c] if CARD_IDS[c] in ("BJ", "RJ") else CARD_IDS[c][:-1]
        out.setdefault(rank, []).extend([r] * tally.true_per_class[c])
    return {k: round(float(np.mean(v)), 3) for k, v in out.items()}


def accuracy(args) -> None:
    zoom = not args.no_zoom
    models = [("two-stage", lambda: CardDetector(args.finder, args.reader, backend=args.backend, imgsz=args.imgsz,
                                                 turns=args.turns, zoom=zoom))]
    if args.single:
        models.append(("single", lambda: CardDetector(args.single, None, backend=args.backend, imgsz=args.imgsz,
                                                      zoom=zoom)))
    print(f"# finder {args.finder}, reader {args.reader}, each index read at {args.turns} quarter-turn(s), "
          f"{'a second look where indices come out too small or too large' if zoom else 'one look'}")
    results = []
    for name, make in models:
        detector = make()
        for split in args.splits:
            tally, seconds, by_deck, table, grouped, marked, working = score_split(
                detector, load_truth(Path(args.data), split, args.limit), args.conf, args.working_px)
            results.append(report(name, split, tally, seconds, args.conf))
            results[-1]["joker_marks_aside"] = report_marks(marked, tally, args.conf)
            results[-1]["working_scale"] = report_working(working, args.conf, args.working_px)
            results[-1]["table"] = report_table(table, args.conf)
            results[-1]["grouped"] = report_grouped(grouped, args.conf)
            if split == "test_unseen":
                results[-1]["by_deck"] = report_decks(by_deck, args.conf)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
        print(f"wrote {args.json}")


def latency_one(args) -> None:
    """One backend in this process: detect() on one image, median of ``runs``."""
    detector = CardDetector(args.finder, args.reader, backend=args.backend, threads=args.threads, turns=args.turns,
                            imgsz=args.imgsz, zoom=not args.no_zoom)
    image = read_image(args.image) if args.image else _demo_image()
    detector.detect(image)  # warm-up: first runs allocate and compile
    detector.detect(image)
    times, found = [], 0
    for _ in range(args.runs):
        start = time.perf_counter()
        found = len(detector.detect(image, conf=PHOTO.conf))
        times.append((time.perf_counter() - start) * 1000)
    finder = [_time(lambda: detector.find(image)) for _ in range(args.runs)]
    boxes = detector.find(image)[0]
    reader = [_time(lambda: detector.read(image, boxes)) for _ in range(args.runs)]
    # A camera frame is 16:9: the same table cut to 16:9 goes in as 640x384 when the finder
    # takes any size (``rect``), as 640x640 when it does not.
    h, w = image.shape[:2]
    frame = np.ascontiguousarray(image[(h - w * 9 // 16) // 2:][: w * 9 // 16])
    detector.detect(frame)
    wide = [_time(lambda: detector.detect(frame, conf=PHOTO.conf)) for _ in range(args.runs)]
    scenes = _time_scenes(detector, args) if args.data else {}
    extras = _time_extras(detector, image, args)
    print(json.dumps({**scenes, **extras, "backend": args.backend, "runtime": detector.finder.name, "median_ms": _median(times),
                      "p90_ms": round(float(np.percentile(times, 90)), 1), "finder_only_ms": _median(finder),
                      "reader_ms": _median(reader), "boxes_read": len(boxes), "indices_read": found,
                      "frame_16x9_ms": _median(wide), "frame_16x9_input": list(detector.input_size(*frame.shape[:2])),
                      "input": list(detector.input_size(*image.shape[:2])),
                      "threads": args.threads, "turns": args.turns, "load_avg_1m": round(os.getloadavg()[0], 2),
                      "image": args.image or "rendered", "shape": list(image.shape)}))


def _time_extras(detector: CardDetector, image: np.ndarray, args) -> dict:
    """What issue 31's readers add on one image: detect() then group() with the suit read from
    the card's face and without it, and detect() with a deck profile (``--deck``)."""
    out: dict = {}
    dets = detector.detect(image, conf=PHOTO.conf)
    plain = detector.settings
    detector.settings = plain.replace(face_suit=False)
    out["group_no_face_ms"] = _median([_time(lambda: detector.group(image, dets)) for _ in range(args.runs)])
    detector.settings = plain
    if detector.face is not None:
        out["group_face_ms"] = _median([_time(lambda: detector.group(image, dets)) for _ in range(args.runs)])
    if args.deck:
        from vision.profile import DeckProfile

        profiled = CardDetector(args.finder, args.reader, backend=args.backend, threads=args.threads,
                                turns=args.turns, imgsz=args.imgsz, zoom=not args.no_zoom,
                                profile=DeckProfile.load(args.deck))
        profiled.detect(image)
        out["profile_ms"] = _median([_time(lambda: profiled.detect(image, conf=PHOTO.conf)) for _ in range(args.runs)])
    return out


def _time_scenes(detector: CardDetector, args) -> dict:
    """detect() once on each of the first ``runs`` scenes of a test split: busy tables, not one image."""
    rows = load_truth(Path(args.data), args.split, args.runs)
    if not rows:
        raise SystemExit(f"{args.data} has no {args.split} scenes to time")
    images = [read_image(row["image"]) for row in rows]
    detector.detect(images[0])
    times, read = [], []
    for image in images:
        start = time.perf_counter()
        read.append(len(detector.detect(image, conf=PHOTO.conf)))
        times.append((time.perf_counter() - start) * 1000)
    return {"scenes": f"{args.data}:{args.split}", "scenes_n": len(images), "scenes_median_ms": _median(times),
            "scenes_p90_ms": round(float(np.percentile(times, 90)), 1),
            "scenes_indices_mean": round(float(np.mean(read)), 1), "scenes_indices_max": max(read),
            "scenes_shape": list(images[0].shape)}


def _cpu() -> str:
    """The processor and the vector units that decide these timings."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.machine()
    model = re.search(r"^model name\s*:\s*(.+)$", info, re.M)
    flags_line = re.search(r"^flags\s*:\s*(.+)$", info, re.M)
    flags = set(flags_line.group(1).split()) if flags_line else set()
    units = [f for f in ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile") if f in flags]
    return f"{platform.machine()} {model.group(1).strip() if model else ''} ({' '.join(units) or 'no AVX2'})"


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 1)


def _time(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def _demo_image() -> np.ndarray:
    from sim.synth.decks import HELD_OUT_DECKS
    from sim.synth.scene import render_scene

    image, _ = render_scene(np.random.default_rng(7), [HELD_OUT_DECKS[0]], imgsz=640)
    return image


def latency(args) -> None:
    """Each backend in its own process (their thread pools and allocators never meet), one after another."""
    print(f"# {_cpu()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start; "
          f"finder {args.finder}, reader {args.reader}", flush=True)
    results = []
    for backend in args.backends:
        cmd = [sys.executable, "-m", "bench.detector", "latency-one", "--backend", backend, "--runs", str(args.runs),
               "--finder", str(args.finder), "--reader", str(args.reader), "--turns", str(args.turns)]
        if args.image:
            cmd += ["--image", args.image]
        if args.data:
            cmd += ["--data", args.data, "--split", args.split]
        if args.threads:
            cmd += ["--threads", str(args.threads)]
        if args.imgsz:
            cmd += ["--imgsz", str(args.imgsz)]
        if args.no_zoom:
            cmd += ["--no-zoom"]
        if args.deck:
            cmd += ["--deck", args.deck]
        done = subprocess.run(cmd, capture_output=True, text=True, env=child_env())
        line = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
        if done.returncode == 0 and line.startswith("{"):
            print(line, flush=True)
            results.append(json.loads(line))
        else:
            why = (done.stderr.strip().splitlines() or ["no output"])[-1]
            print(f"{backend}: failed: {why}", flush=True)
    if results:
        print(f"\nreading each index at {args.turns} quarter-turn(s)")
        print(f"{'backend':>9} {'detect ms':>10} {'p90':>7} {'finder':>7} {'reader':>7} {'indices':>7} "
              f"{'16:9 ms':>8} {'16:9 in':>8} {'load':>5}")
        for r in results:
            print(f"{r['backend']:>9} {r['median_ms']:>10} {r['p90_ms']:>7} {r['finder_only_ms']:>7} "
                  f"{r['reader_ms']:>7} {r['indices_read']:>7} {r['frame_16x9_ms']:>8} "
                  f"{'x'.join(map(str, r['frame_16x9_input'][::-1])):>8} {r['load_avg_1m']:>5}")
        print(f"\n{'backend':>9} {'group, no face ms':>18} {'group, face ms':>15} {'detect, profile ms':>19}")
        for r in results:
            print(f"{r['backend']:>9} {r['group_no_face_ms']:>18} {r.get('group_face_ms', '-'):>15} "
                  f"{r.get('profile_ms', '-'):>19}")
        if args.data:
            print(f"\n{args.data} {args.split}: detect() once on each scene")
            print(f"{'backend':>9} {'scenes':>7} {'median ms':>10} {'p90':>7} {'indices mean':>13} {'max':>5}")
            for r in results:
                print(f"{r['backend']:>9} {r['scenes_n']:>7} {r['scenes_median_ms']:>10} {r['scenes_p90_ms']:>7} "
                      f"{r['scenes_indices_mean']:>13} {r['scenes_indices_max']:>5}")


def _rank(card: str) -> str:
    return card if card in ("BJ", "RJ", "none") else card[:-1]


def reader_crops(args) -> None:
    """The reader alone on a dataset's labelled index crops (``reader/<split>/<card>/*.png``),
    overall and per deck: top-1 over the 55 classes, rank right, ``none`` right, top-3, and the
    share of clubs read as spades (the commonest confusion)."""
    from collections import Counter, defaultdict

    from vision.backends import load_backend
    from vision.boxes import to_blob

    reader = load_backend(args.reader, "onnx", args.threads)
    names = [reader.names[i] for i in sorted(reader.names)]
    for split in args.splits:
        decks = {}
        for row in load_truth(Path(args.data), split, None):
            found = re.search(r"_(\d{6})\.", Path(row["image"]).name)
            assert found is not None  # the generator names every image so
            number = int(found.group(1))
            decks[number] = row["deck"][0] if len(row["deck"]) == 1 else "two decks"
        files = sorted((Path(args.data) / "reader" / split).glob("*/*.png"))
        if args.limit:
            files = files[:: max(1, len(files) // args.limit)]
        tally: dict[str, Counter] = defaultdict(Counter)
        for start in range(0, len(files), 256):
            chunk = files[start:start + 256]
            probs = reader(to_blob(np.stack([_png(f) for f in chunk])))
            for path, p in zip(chunk, probs, strict=True):
                true, top3 = path.parent.name, [names[k] for k in np.argsort(-p)[:3]]
                scene = re.search(r"_(\d{6})_", path.name)
                for key in ("all", decks.get(int(scene.group(1)), "?") if scene else "?"):
                    t = tally[key]
                    t["n"] += 1
                    t["top1"] += top3[0] == true
                    t["top3"] += true in top3
                    t["none"] += true == "none"
                    t["none_right"] += true == "none" and top3[0] == "none"
                    t["rank_right"] += true != "none" and _rank(top3[0]) == _rank(true)
                    t["clubs"] += true.endswith("c")
                    t["clubs_as_spades"] += true.endswith("c") and top3[0].endswith("s")
        print(f"# {split}: {len(files)} crops, reader {args.reader}")
        for key in ["all", *sorted(k for k in tally if k != "all")]:
            t = tally[key]
            cards = max(1, t["n"] - t["none"])
            print(f"{key:>22} {t['n']:6d} crops | top-1 {t['top1'] / t['n']:.3f} | rank right "
                  f"{t['rank_right'] / cards:.3f} | none right {t['none_right'] / max(1, t['none']):.3f} | "
                  f"top-3 {t['top3'] / t['n']:.3f} | clubs read as spades {t['clubs_as_spades'] / max(1, t['clubs']):.3f}")


# -- close-ups: one to three cards filling a photo -------------------------------------------
def closeup(args) -> None:
    """Close-ups of every held-out deck read with the pyramid of smaller looks off and on."""
    from sim.synth.decks import HELD_OUT_DECKS, load_deck

    rng = np.random.default_rng(args.seed)
    shots = []
    for name in HELD_OUT_DECKS:
        deck = load_deck(name)
        for i in range(args.n):
            shape, (lo, hi) = CLOSEUP_FRAMES[i % len(CLOSEUP_FRAMES)]
            index_px = float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
            shots.append(render_closeup(rng, deck, shape, index_px))
    print(f"# {len(shots)} close-ups ({args.n} per held-out deck, frames "
          f"{', '.join(f'{w}x{h}' for (h, w), _ in CLOSEUP_FRAMES)}), finder {args.finder}, reader {args.reader}")
    print(f"{'':>7} {'cards':>6} {'recall':>7} {'precision':>9} " + " ".join(
        f"{f'{lo}-{hi} px':>12}" for lo, hi in CLOSEUP_BINS) + f" {'other px':>12} {'s/image':>8}")
    for label, smaller in (("before", False), ("after", True)):
        detector = CardDetector(args.finder, args.reader, backend=args.backend, threads=args.threads,
                                smaller=smaller)
        found, n_dets, n_false, seconds = [], 0, 0, 0.0
        for image, cards in shots:
            start = time.perf_counter()
            dets = detector.detect(image)
            seconds += time.perf_counter() - start
            got, n, wrong = score_closeup(dets, cards)
            found += got
            n_dets += n
            n_false += wrong
        recall = sum(f for _, f in found) / max(len(found), 1)
        bins = []
        for lo, hi in CLOSEUP_BINS:
            inside = [f for px, f in found if lo <= px < hi]
            bins.append(f"{sum(inside) / len(inside):.2f} of {len(inside):>3}" if inside else f"{'-':>10}")
        # Cards whose showing index box is longer than the bins (turned or tilted) or shorter.
        other = [f for px, f in found if not any(lo <= px < hi for lo, hi in CLOSEUP_BINS)]
        bins.append(f"{sum(other) / len(other):.2f} of {len(other):>3}" if other else f"{'-':>10}")
        print(f"{label:>7} {len(found):>6} {recall:>7.3f} {(n_dets - n_false) / max(n_dets, 1):>9.3f} "
              + " ".join(f"{b:>12}" for b in bins) + f" {seconds / len(shots):>8.2f}")


SUIT_WORDS = {"s": "spade", "h": "heart", "d": "diamond", "c": "club", "joker": "joker"}


def degrade_scenes(args) -> list[dict]:
    """The scenes to degrade: the first ``--scenes`` of ``--data``'s ``--split``, or as many
    rendered tables of the held-out decks (one deck each, in turn; no camera effects unless
    ``--camera-effects``, so that each degradation is the only one). Each row holds its image."""
    if args.data:
        rows = load_truth(Path(args.data), args.split, args.scenes)
        for row in rows:
            try:
                row["image"] = read_image(row["image"])
            except (ValueError, OSError) as exc:
                raise SystemExit(f"{row['image']}: {exc}") from None
        return rows
    from sim.synth.decks import HELD_OUT_DECKS
    from sim.synth.scene import render_scene

    rng = np.random.default_rng(args.seed)
    rows = []
    for k in range(args.scenes):
        deck = HELD_OUT_DECKS[k % len(HELD_OUT_DECKS)]
        image, corners = render_scene(rng, [deck], imgsz=args.imgsz, index_range=tuple(args.index_px),
                                      camera_effects=args.camera_effects)
        rows.append({"image": image, "corners": corners, "deck": [deck]})
    return rows


def degrade(args) -> None:
    """The shipped detector (PHOTO settings) on the same scenes through each camera degradation
    of ``sim.synth.degrade`` and none: corners found, card precision and recall, rank right, and
    which suit was read for which."""
    unknown = [n for n in args.degradations if n not in DEGRADATIONS]
    if unknown:
        raise SystemExit(f"unknown degradation(s) {', '.join(unknown)}; known: {', '.join(DEGRADATIONS)}")
    if not all(0 <= s <= 1 for s in args.strength):
        raise SystemExit("--strength values must lie between 0 and 1")
    rows = degrade_scenes(args)
    if not rows:
        raise SystemExit("no scenes to degrade")
    detector = CardDetector(args.finder, args.reader, threads=args.threads, settings=PHOTO)
    conf = PHOTO.conf
    runs = [("none", 0.0)] + [(n, s) for s in args.strength for n in args.degradations]
    tallies = {run: (Tally(), ReadTally()) for run in runs}
    source = f"{args.data}:{args.split}" if args.data else (
        f"{len(rows)} rendered held-out-deck tables, seed {args.seed}, {args.imgsz} px, index {args.index_px[0]:g}-"
        f"{args.index_px[1]:g} px, camera effects {'on' if args.camera_effects else 'off'}")
    print(f"# {source}; finder {args.finder}, reader {args.reader}, PHOTO settings, threshold {conf}", flush=True)
    start = time.perf_counter()
    for k, row in enumerate(rows):
        for name, strength in runs:
            # One generator per scene and degradation, by name: the same degraded image
            # whichever other degradations a run includes.
            rng = np.random.default_rng([args.seed, k, zlib.crc32(name.encode())])
            dets = detector.detect(degrade_image(row["image"], name, rng, strength), conf=0.01)
            dets, (boxes, classes) = visible_truth(row, dets)
            tally, reads = tallies[(name, strength)]
            tally.add(dets.boxes, dets.finder_scores, dets.class_ids, dets.scores, boxes, classes)
            reads.add(dets.boxes, dets.class_ids, dets.scores, boxes, classes, conf)
    print(f"# {len(rows)} scenes x {len(runs)} runs in {time.perf_counter() - start:.0f} s")
    results = []
    pairs = [f"{SUIT_WORDS[t]}->{SUIT_WORDS[r]}" for t, r in WATCHED_SUIT_PAIRS]
    print(f"{'degradation':>19} {'corners':>7} {'found':>6} {'P':>6} {'R':>6} {'rank':>6} {'card':>6} | "
          + " ".join(f"{p:>20}" for p in pairs))
    for (name, strength), (tally, reads) in tallies.items():
        at = tally.at_threshold(conf)
        watched = {f"{t}->{r}": reads.suit_rate(t, r) for t, r in WATCHED_SUIT_PAIRS}
        results.append({"degradation": name, "strength": strength, "images": tally.n_images,
                        "corners": reads.n_true, "found": round(reads.found(), 4),
                        "precision": round(at["precision"], 4), "recall": round(at["recall"], 4),
                        "rank_right": round(reads.rank_right(), 4), "card_right": round(reads.card_right(), 4),
                        "suit_pairs": {k: {**v, "rate": round(v["rate"], 4)} for k, v in watched.items()},
                        "suit_table": reads.suit_table()})
        label = name if name == "none" else f"{name}@{strength:g}"
        cells = " ".join(f"{v['rate']:>8.3f} ({v['count']:>3}/{v['of']:>4})" for v in watched.values())
        print(f"{label:>19} {reads.n_true:>7} {reads.found():>6.3f} {at['precision']:>6.3f} {at['recall']:>6.3f} "
              f"{reads.rank_right():>6.3f} {reads.card_right():>6.3f} | {cells}")
    table = results[0]["suit_table"]
    print(f"\nno degradation: suit read (columns) for each true suit (rows), corners found @{conf:.2f}")
    print(f"{'true / read':>12} " + " ".join(f"{SUIT_WORDS[r]:>8}" for r in table) + f" {'wrong':>7}")
    for t, reads_as in table.items():
        of = sum(reads_as.values())
        wrong = (of - reads_as[t]) / of if of else float("nan")
        print(f"{SUIT_WORDS[t]:>12} " + " ".join(f"{n:>8}" for n in reads_as.values()) + f" {wrong:>7.3f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"source": source, "conf": conf, "scenes": len(rows),
                                               "finder": str(args.finder), "reader": str(args.reader),
                                               "results": results}, indent=1))
        print(f"wrote {args.json}")


# -- deck profiles: enroll one layout of a held-out deck, read other tables of it ------------
def write_yolo_folder(folder: Path, image: np.ndarray, corners: list[dict], spell=lambda card: card) -> None:
    """``folder`` as ``enroll --from-labels`` reads it: data.yaml naming the 54 cards (through
    ``spell``), images/layout.png and labels/layout.txt, one box per corner."""
    import cv2

    (folder / "images").mkdir(parents=True, exist_ok=True)
    (folder / "labels").mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / "images" / "layout.png"), image)
    h, w = image.shape[:2]
    lines = []
    for c in corners:
        x1, y1, x2, y2 = c["box"]
        lines.append(f"{CARD_INDEX[c['card']]} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} "
                     f"{(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}")
    (folder / "labels" / "layout.txt").write_text("\n".join(lines) + "\n")
    names = "\n".join(f"  {i}: {json.dumps(spell(card))}" for i, card in enumerate(CARD_IDS))
    (folder / "data.yaml").write_text(f"nc: {len(CARD_IDS)}\nnames:\n{names}\n")


def profile(args) -> None:
    """Each held-out deck enrolled from one rendered layout, then ``--scenes`` other tables of it
    read by the shipped detector (PHOTO settings) without and with the profile."""
    import tempfile
    from collections import Counter

    from cli.enroll import enroll_folder
    from sim.synth.decks import HELD_OUT_DECKS, load_deck
    from sim.synth.scene import render_scene

    conf = PHOTO.conf
    plain = CardDetector(args.finder, args.reader, threads=args.threads)
    print(f"# finder {args.finder}, reader {args.reader}, PHOTO settings (threshold {conf}, profile weight "
          f"{PHOTO.profile_weight}, temperature {PHOTO.profile_temperature}); enrollment: one layout of the 54 cards, "
          f"indices {args.layout_px:g} px, seed {args.seed}; tables: {args.scenes} per deck, seed {args.seed + 1}, "
          f"{args.imgsz} px, indices {args.index_px[0]:g}-{args.index_px[1]:g} px; scored on corners of "
          f"{args.working_px:g} px or more", flush=True)
    print(f"{'deck':>10} {'':>8} {'corners':>7} {'P':>6} {'R':>6} {'F1':>6} {'club->spade':>16} {'fixed':>6} "
          f"{'broken':>6} {'enroll s':>8}")
    totals = {label: (Tally(), ReadTally()) for label in ("reader", "profile")}
    enroll_seconds = []
    for d, name in enumerate(HELD_OUT_DECKS):
        deck = load_deck(name)
        rng = np.random.default_rng([args.seed, d])
        image, corners = render_layout(rng, deck, args.layout_px)
        with tempfile.TemporaryDirectory() as tmp:
            write_yolo_folder(Path(tmp), image, corners)
            start = time.process_time()
            result = enroll_folder(tmp, name, plain)
            enroll_seconds.append(time.process_time() - start)
        deck_profile = result.profile
        if args.save:
            print(f"# {name}: profile saved to {deck_profile.save(Path(args.save) / f'{name}.npz')}", flush=True)
        withp = CardDetector(args.finder, args.reader, threads=args.threads, profile=deck_profile)
        scene_rng = np.random.default_rng([args.seed + 1, d])
        tallies = {label: (Tally(), ReadTally()) for label in totals}
        changed: Counter[str] = Counter()
        for _ in range(args.scenes):
            picture, truth_corners = render_scene(scene_rng, [deck], imgsz=args.imgsz, index_range=tuple(args.index_px))
            row = {"corners": truth_corners}
            reads = {}
            for label, detector in (("reader", plain), ("profile", withp)):
                dets, (boxes, classes) = visible_truth(row, detector.detect(picture, conf=0.01))
                counted, large = at_working_scale(dets.boxes, boxes, args.working_px)
                near = dets[counted]
                boxes = [b for b, k in zip(boxes, large, strict=True) if k]
                classes = [c for c, k in zip(classes, large, strict=True) if k]
                for tally in (tallies[label], totals[label]):
                    tally[0].add(near.boxes, near.finder_scores, near.class_ids, near.scores, boxes, classes)
                    tally[1].add(near.boxes, near.class_ids, near.scores, boxes, classes, conf)
                reads[label] = _right_reads(near, boxes, classes, conf)
            changed["fixed"] += len(reads["profile"] - reads["reader"])
            changed["broken"] += len(reads["reader"] - reads["profile"])
        for label in ("reader", "profile"):
            at = tallies[label][0].at_threshold(conf)
            club = tallies[label][1].suit_rate("c", "s")
            extra = (f"{changed['fixed']:>6} {changed['broken']:>6} {enroll_seconds[-1]:>8.1f}" if label == "profile"
                     else "")
            print(f"{name if label == 'reader' else '':>10} {label:>8} {tallies[label][0].n_true:>7} "
                  f"{at['precision']:>6.3f} {at['recall']:>6.3f} {at['f1']:>6.3f} "
                  f"{club['rate']:>6.3f} ({club['count']:>3}/{club['of']:>3}) {extra}", flush=True)
    for label in ("reader", "profile"):
        at = totals[label][0].at_threshold(conf)
        club = totals[label][1].suit_rate("c", "s")
        print(f"{'all' if label == 'reader' else '':>10} {label:>8} {totals[label][0].n_true:>7} "
              f"{at['precision']:>6.3f} {at['recall']:>6.3f} {at['f1']:>6.3f} "
              f"{club['rate']:>6.3f} ({club['count']:>3}/{club['of']:>3})")
    print(f"enrollment (54 cards, {len(corners)} corners, CPU time of this process): "
          f"median {statistics.median(enroll_seconds):.1f} s, max {max(enroll_seconds):.1f} s")


def _right_reads(dets: Detections, boxes: list, classes: list, conf: float) -> set[int]:
    """Which labelled corners a detection scored ``conf`` or more reads right (IoU 0.5)."""
    from sim.training.evaluate import match as match_boxes

    keep = dets.scores >= conf
    if not keep.any() or not boxes:
        return set()
    same = dets.class_ids[keep][:, None] == np.asarray(classes)[None, :]
    hit = match_boxes(dets.boxes[keep], dets.scores[keep], np.asarray(boxes, np.float32), 0.5, same)
    return {int(t) for t in hit if t >= 0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    for name in ("accuracy", "reader", "degrade", "latency", "latency-one"):
        p = sub.add_parser(name)
        p.add_argument("--finder", default=str(DEFAULT_FINDER))
        p.add_argument("--reader", default=str(DEFAULT_READER))
        p.add_argument("--threads", type=int, default=None)
        if name not in ("reader", "degrade"):
            p.add_argument("--no-zoom", action="store_true",
                           help="one look at the finder's input size, never a closer one (CardDetector's zoom)")
            p.add_argument("--turns", type=int, choices=TURNS, default=PHOTO.turns,
                           help="quarter-turns each index crop is read at (CardDetector's turns)")
        if name == "reader":
            p.add_argument("--data", required=True, help="dataset folder with reader/<split>/ and truth/")
            p.add_argument("--splits", nargs="+", default=list(SPLITS))
            p.add_argument("--limit", type=int, default=None, help="about this many crops per split")
        elif name == "degrade":
            p.add_argument("--data", default=None,
                           help="dataset folder with truth/<split>.jsonl (default: render held-out-deck tables)")
            p.add_argument("--split", default="test_unseen", choices=SPLITS)
            p.add_argument("--scenes", type=int, default=30, help="scenes to use (the first N of --split)")
            p.add_argument("--degradations", nargs="+", default=list(DEGRADATIONS), metavar="NAME",
                           help=f"which ones (default all: {', '.join(DEGRADATIONS)})")
            p.add_argument("--strength", nargs="+", type=float, default=[0.5],
                           help="strength(s) 0-1 each degradation is applied at")
            p.add_argument("--seed", type=int, default=0, help="seeds the rendering and the degradations")
            p.add_argument("--imgsz", type=int, default=416, help="rendered table size, px")
            p.add_argument("--index-px", nargs=2, type=float, default=list(INDEX_PX), metavar=("MIN", "MAX"),
                           help="rendered index heights, px")
            p.add_argument("--camera-effects", action="store_true",
                           help="render with the synthetic camera chain too (default: clean tables)")
            p.add_argument("--json", default=None, help="also write the full results here")
        elif name == "accuracy":
            p.add_argument("--data", required=True, help="dataset folder with truth/<split>.jsonl")
            p.add_argument("--splits", nargs="+", default=list(SPLITS))
            p.add_argument("--single", default=None, help="single-stage model to compare")
            p.add_argument("--backend", default="onnx")
            p.add_argument("--conf", type=float, default=PHOTO.conf)
            p.add_argument("--imgsz", type=int, default=None,
                           help="finder input size (a dynamic export runs 416 px tests at their own scale)")
            p.add_argument("--limit", type=int, default=None, help="score only the first N images per split")
            p.add_argument("--working-px", type=float, default=GOOD_INDEX_PX,
                           help="also score only the corners this large (longer side, px): a mounted camera's")
            p.add_argument("--json", default=None, help="also write the full results here")
        else:
            p.add_argument("--image", default=None, help="image to time (default: a rendered unseen-deck table)")
            p.add_argument("--runs", type=int, default=30)
            p.add_argument("--data", default=None,
                           help="also time detect() once on each of the first --runs scenes of this dataset's --split")
            p.add_argument("--split", default="test_unseen", choices=SPLITS)
            p.add_argument("--imgsz", type=int, default=None, help="finder input size (default: the model's own)")
            p.add_argument("--deck", default=None, metavar="PROFILE",
                           help="also time detect() with this deck profile (python -m bench.detector profile --save)")
            if name == "latency":
                p.add_argument("--backends", nargs="+", default=["onnx", "openvino", "ncnn"],
                               choices=BACKEND_CHOICES)
            else:
                p.add_argument("--backend", default="onnx", choices=BACKEND_CHOICES)
    p = sub.add_parser("profile", help="deck profiles: enroll one layout of each held-out deck, read other tables")
    p.add_argument("--finder", default=str(DEFAULT_FINDER))
    p.add_argument("--reader", default=str(DEFAULT_READER))
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--scenes", type=int, default=40, help="tables read per held-out deck")
    p.add_argument("--save", metavar="DIR", help="also write each deck's profile as DIR/NAME.npz (for python -m bench.tracker --deck)")
    p.add_argument("--seed", type=int, default=0, help="seeds the layouts (the tables: seed + 1)")
    p.add_argument("--imgsz", type=int, default=640, help="rendered table size, px")
    p.add_argument("--index-px", nargs=2, type=float, default=list(INDEX_PX), metavar=("MIN", "MAX"),
                   help="the tables' index heights, px")
    p.add_argument("--layout-px", type=float, default=26.0, help="the enrollment layout's index height, px")
    p.add_argument("--working-px", type=float, default=GOOD_INDEX_PX,
                   help="score only the corners this large (longer side, px): a mounted camera's")
    p = sub.add_parser("closeup", help="phone close-ups of the held-out decks, smaller views off and on")
    p.add_argument("--finder", default=str(DEFAULT_FINDER))
    p.add_argument("--reader", default=str(DEFAULT_READER))
    p.add_argument("--backend", default="onnx", choices=BACKEND_CHOICES)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("-n", type=int, default=10, help="close-ups per held-out deck (frames alternate)")
    p.add_argument("--seed", type=int, default=31)
    args = parser.parse_args()
    if args.what == "closeup":
        closeup(args)
        return
    if args.what == "profile":
        profile(args)
        return
    {"accuracy": accuracy, "reader": reader_crops, "degrade": degrade, "latency": latency, "latency-one": latency_one}[args.what](args)


if __name__ == "__main__":
    main()
