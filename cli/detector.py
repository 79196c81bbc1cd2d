"""``ddz-table detect``, ``train`` and ``export``.

``detect IMAGE... --json`` prints one JSON object per image and line:
``{"image", "width", "height", "detections": [{"card", "rank", "suit", "box", "confidence",
"alternatives"}]}``, boxes in original image pixels, corner indices as detected (not grouped).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from vision.backends import BACKEND_CHOICES, ModelFileError
from vision.settings import GOOD_INDEX_PX, PHOTO, TURNS


def register(subparsers) -> None:
    detect = subparsers.add_parser("detect", help="read the cards in images / 识别图片中的牌")
    detect.add_argument("images", nargs="+", metavar="IMAGE")
    detect.add_argument("--json", action="store_true", help="one JSON object per image and line")
    detect.add_argument("--conf", type=float, default=None,
                        help=f"confidence threshold (default {PHOTO.conf}: the best F1 on held-out scenes)")
    detect.add_argument("--iou", type=float, default=PHOTO.iou, help="NMS overlap limit")
    detect.add_argument("--finder", default=None, help="finder model (default models/finder.onnx)")
    detect.add_argument("--reader", default=None, help="reader model (default models/reader.onnx)")
    detect.add_argument("--single", default=None, metavar="MODEL",
                        help="a single-stage card detector instead of finder + reader")
    detect.add_argument("--backend", choices=BACKEND_CHOICES, default="auto",
                        help="auto: NCNN on ARM boards when its export is there, else ONNX Runtime")
    detect.add_argument("--imgsz", type=int, default=None,
                        help="finder input size (default: the model's own, 640)")
    detect.add_argument("--turns", type=int, choices=TURNS, default=PHOTO.turns,
                        help=f"read each index at this many quarter-turns and average (default {PHOTO.turns}; "
                             "1 is fastest)")
    detect.add_argument("--no-zoom", action="store_true",
                        help="one look at the finder's input size: no second look at a photo whose "
                             "indices come out too small (or, enlarged, too large)")
    detect.add_argument("--save", metavar="DIR", help="write annotated copies of the images here")
    detect.add_argument("--deck", metavar="NAME",
                        help="read with a deck profile: a name from `ddz-table enroll` or a profile file / 用录入的牌组识别")
    detect.set_defaults(func=run_detect)

    train = subparsers.add_parser("train", help="train a detector stage (needs the train extra)")
    train.add_argument("stage", choices=("finder", "reader", "single", "pips"))
    train.add_argument("--data", default=None,
                       help="data.yaml (finder, single) or crop folder (reader); pips renders its own")
    train.add_argument("--epochs", type=int, default=30)
    train.add_argument("--hours", type=float, default=None, help="wall-clock budget instead of epochs")
    train.add_argument("--imgsz", type=int, default=None)
    train.add_argument("--batch", type=int, default=None)
    train.add_argument("--device", default="cpu", help="cpu, or a CUDA device such as 0")
    train.add_argument("--workers", type=int, default=2)
    train.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: all cores)")
    train.add_argument("--project", default="runs")
    train.add_argument("--name", default=None, help="run name (default: the stage)")
    train.add_argument("--resume", action="store_true", help="continue runs/<name>/weights/last.pt")
    train.add_argument("--weights", default=None, help="start from these weights instead of from scratch")
    train.add_argument("--lr0", type=float, default=None,
                       help="initial learning rate (default: 0.01 SGD for finder/single, 3e-3 AdamW for the reader)")
    train.add_argument("--warmup", type=float, default=1.0, metavar="EPOCHS",
                       help="finder/single warm-up epochs (0 when going on from trained weights)")
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--arch", choices=("tiny", "yolo"), default="tiny",
                       help="reader network: tiny CNN (default) or YOLO11n-cls")
    train.add_argument("--blocks", type=int, default=None,
                       help="tiny reader: residual blocks at each of its last three grids (default: as the "
                            "--weights it starts from, else 0); a deeper reader starts from a shallower one's weights")
    train.add_argument("--cache", action="store_true", help="keep decoded images in RAM")
    train.add_argument("--cards", type=int, default=18000,
                       help="pips: card faces of the training decks rendered to cut pips from (sim.training.pips)")
    train.set_defaults(func=run_train)

    export = subparsers.add_parser("export-model", help="export trained weights to ONNX / NCNN / OpenVINO / 导出模型")
    export.add_argument("stage", choices=("finder", "reader", "single"))
    export.add_argument("weights", help="a .pt checkpoint (e.g. runs/finder/weights/best.pt)")
    export.add_argument("--format", dest="formats", action="append", choices=("onnx", "ncnn", "openvino"),
                        help="repeat for several (default onnx)")
    export.add_argument("--imgsz", type=int, default=None)
    export.add_argument("--out", default=None, help="output folder (default models/)")
    export.add_argument("--name", default=None, help="file stem (default: the stage)")
    export.add_argument("--fixed", action="store_true",
                        help="ONNX finder that takes only a square input (default: any size, so frames "
                             "are letterboxed to their own shape)")
    export.add_argument("--with-weights", action="store_true",
                        help="also copy the checkpoint to <out>/<name>.pt without its optimiser state "
                             "(how models/finder.pt and models/reader.pt are shipped)")
    export.set_defaults(func=run_export)


def run_detect(args) -> int:
    from vision.cards import card_label
    from vision.detector import DEFAULT_FINDER, DEFAULT_READER, CardDetector, ImageError, read_image

    def refuse(zh: str, en: str, image: str | None = None) -> None:
        """An error, Chinese then English: one JSON object under ``--json`` (``image`` and
        ``error``, on standard output like the answers), else a line on standard error."""
        if args.json:
            print(json.dumps({"image": image, "error": f"{zh} / {en}"} if image is not None
                             else {"error": f"{zh} / {en}"}, ensure_ascii=False), flush=True)
        else:
            print(f"ddz-table detect: {zh} / {en}", file=sys.stderr)

    if args.conf is not None and not 0 <= args.conf <= 1:
        refuse("--conf 要在 0 和 1 之间", "--conf must be between 0 and 1")
        return 2
    try:
        settings = PHOTO.replace(iou=args.iou, turns=args.turns, zoom=not args.no_zoom)
        profile = None
        if args.deck:
            from cli.enroll import load_deck_profile

            profile = load_deck_profile(args.deck)
        if args.single:
            detector = CardDetector(args.single, None, backend=args.backend, settings=settings, imgsz=args.imgsz,
                                    profile=profile)
        else:
            detector = CardDetector(args.finder or DEFAULT_FINDER, args.reader or DEFAULT_READER,
                                    backend=args.backend, settings=settings, imgsz=args.imgsz, profile=profile)
    except (ModelFileError, ValueError) as exc:
        refuse("识别模型加载失败", str(exc))
        return 2
    failures = 0
    for path in args.images:
        try:
            image = read_image(path)
        except ImageError:
            refuse(*image_problem(Path(path)), image=path)
            failures += 1
            continue
        detections = detector.detect(image, args.conf)
        height, width = image.shape[:2]
        if args.json:
            record = {"image": path, "width": width, "height": height, "detections": detections.to_records()}
            print(json.dumps(record, ensure_ascii=False), flush=True)
        else:
            print(f"{path}: {width}x{height}, {len(detections)} 个牌角 / indices")
            for rec in detections.to_records():
                alts = ", ".join(f"{card_label(a['card'])} {a['p']:.2f}" for a in rec["alternatives"])
                x1, y1, x2, y2 = rec["box"]
                print(f"  {card_label(rec['card']):<4} {rec['card']:>3}  {rec['confidence']:.2f}  "
                      f"({x1:.0f},{y1:.0f})-({x2:.0f},{y2:.0f})" + (f"  或 / or {alts}" if alts else ""))
            note = small_indices_note(detections)
            if note:
                print(note)
        if args.save:
            from vision.annotate import draw_detections, save_annotated

            save_annotated(Path(args.save), path, draw_detections(image, detections))
    return 1 if failures else 0


def image_problem(path: Path) -> tuple[str, str]:
    """Why ``path`` gave no image, in Chinese and in English: a folder, nothing there, or a file
    that is no image."""
    if path.is_dir():
        return f"{path} 是文件夹，不是图片", f"{path} is a folder, not an image"
    if not path.exists():
        return f"找不到图片 {path}", f"image not found: {path}"
    return f"{path} 不是能读的图片", f"not a readable image: {path}"


def small_indices_note(detections) -> str | None:
    """For the readable list: a warning when the indices found are, at the median, under the
    18 px a mounted camera is set up to give them (``vision.settings.GOOD_INDEX_PX``).
    Under it misreads grow fast (the benchmarks' working scale), and enlarging the
    image adds no detail: only a lower camera or more sensor pixels do."""
    if not len(detections):
        return None
    median = float(np.median(detections.sizes))
    if median >= GOOD_INDEX_PX:
        return None
    return (f"  注意：牌角只有约 {median:.0f} 像素高，不到 {GOOD_INDEX_PX:.0f} 像素时误读会明显增多；"
            "请把摄像头挂低些（照片就拍近些）或用更高的分辨率（见 deploy/raspberrypi/camera.md） / "
            f"note: the indices are about {median:.0f} px tall; under {GOOD_INDEX_PX:.0f} px misreads grow "
            "fast: mount the camera lower (take a photo closer) or use more pixels (deploy/raspberrypi/camera.md)")


def run_train(args) -> int:
    from sim.training.train import TrainConfig, TrainingError, describe, train

    if args.stage == "pips":
        return run_train_pips(args)
    if not args.data:
        print(f"ddz-table train: {args.stage} needs --data", file=sys.stderr)
        return 2
    try:
        config = TrainConfig(stage=args.stage, data=args.data, epochs=args.epochs, imgsz=args.imgsz,
                             batch=args.batch, device=str(args.device), workers=args.workers,
                             project=args.project, name=args.name, resume=args.resume, weights=args.weights,
                             hours=args.hours, seed=args.seed, lr0=args.lr0, warmup_epochs=args.warmup, threads=args.threads,
                             cache="ram" if args.cache else False, arch=args.arch,
                             blocks=args.blocks)
        print(f"training {describe(config)}", file=sys.stderr)
        best = train(config)
    except (TrainingError, ValueError) as exc:
        print(f"ddz-table train: {exc}", file=sys.stderr)
        return 2
    print(best)
    return 0


def run_train_pips(args) -> int:
    """``train pips``: the face's pip classifier (``sim.training.pips``), written as
    ``<project>/<name>/pips.onnx``; ship it by copying it to ``models/pips.onnx``."""
    try:
        from sim.training.pips import train_pips

        onnx_path = train_pips(Path(args.project) / (args.name or "pips"), samples=args.cards, epochs=args.epochs,
                               batch=args.batch or 128, lr=args.lr0 or 3e-3, seed=args.seed, threads=args.threads,
                               log=lambda line: print(line, file=sys.stderr, flush=True))
    except ImportError as exc:
        print(f"ddz-table train: pips needs the train extra (torch, onnx): {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"ddz-table train: {exc}", file=sys.stderr)
        return 2
    print(onnx_path)
    return 0


def run_export(args) -> int:
    from sim.training.export_model import MODELS_DIR, export, ship_weights
    from sim.training.train import TrainingError

    try:
        if args.with_weights and not str(args.weights).endswith(".pt"):
            raise ValueError(f"--with-weights needs a .pt checkpoint, got {args.weights}")
        out = args.out or MODELS_DIR
        written = export(args.weights, args.stage, tuple(args.formats or ("onnx",)), args.imgsz, out,
                         args.name, args.fixed)
        if args.with_weights:
            written.append(ship_weights(args.weights, args.stage, out, args.name))
    except (TrainingError, ValueError) as exc:
        print(f"ddz-table export-model: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0
