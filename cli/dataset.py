"""``ddz-table dataset synth``, ``mine``, ``contact-sheet`` and ``real``."""

from __future__ import annotations

import argparse
import json
import sys


def _synth(args: argparse.Namespace) -> int:
    from sim.synth.dataset import build

    def progress(done: int, total: int) -> None:
        print(f"\r{done}/{total} images", end="", file=sys.stderr, flush=True)

    try:
        summary = build(
            args.out, args.seed, args.train, args.val, args.test,
            imgsz=args.imgsz, reader_size=args.reader_size, workers=args.workers, progress=progress,
            resume=args.resume, joker_p=args.joker_p, generated=args.generated_decks,
            index_px=tuple(args.index_px), degrade=args.degrade, play_p=args.play_p,
        )
    except (ValueError, FileExistsError) as exc:
        print(f"\nerror: {exc}", file=sys.stderr)
        return 2
    print(file=sys.stderr)
    print(json.dumps(summary, indent=1))
    return 0


def _contact(args: argparse.Namespace) -> int:
    from sim.synth.contact import write_contact_sheet

    path = write_contact_sheet(args.out, decks=args.deck or None, card_width=args.card_width, corners=not args.whole)
    print(path)
    return 0


def _mine(args: argparse.Namespace) -> int:
    from sim.synth.mine import mine_crops
    from vision.detector import DEFAULT_FINDER, DEFAULT_READER, CardDetector, ModelFileError

    def progress(done: int, total: int) -> None:
        if done % 50 == 0 or done == total:
            print(f"\r{done}/{total} scenes", end="", file=sys.stderr, flush=True)

    try:
        detector = CardDetector(args.finder or DEFAULT_FINDER, args.reader or DEFAULT_READER, threads=args.threads)
        counts = mine_crops(detector, args.data, args.split, args.out, floor=args.floor, prefix=args.prefix,
                            limit=args.limit, progress=progress)
    except (ValueError, OSError, ModelFileError) as exc:
        print(f"\nerror: {exc}", file=sys.stderr)
        return 2
    print(file=sys.stderr)
    print(json.dumps(dict(sorted(counts.items())), indent=1))
    return 0


def _real(args: argparse.Namespace) -> int:
    from sim.real_sets import RealSetError, convert

    try:
        summary = convert(args.set, args.git, args.out, commit=args.commit, seed=args.seed, test_share=args.test_share)
    except RealSetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(summary, indent=1, ensure_ascii=False))
    return 0


def register(subparsers) -> None:
    parser = subparsers.add_parser("dataset", help="synthetic card-table datasets / 合成训练数据")
    sub = parser.add_subparsers(dest="dataset_command", metavar="ACTION")
    synth = sub.add_parser("synth", help="render a YOLO finder/reader dataset from a seed")
    synth.add_argument("--out", required=True, help="new folder for the dataset")
    synth.add_argument("--seed", type=int, default=0)
    synth.add_argument("--train", type=int, default=1500, help="training images")
    synth.add_argument("--val", type=int, default=200, help="validation images")
    synth.add_argument("--test", type=int, default=200, help="images in each of test_seen and test_unseen")
    synth.add_argument("--imgsz", type=int, default=416)
    synth.add_argument("--reader-size", type=int, default=96)
    synth.add_argument("--workers", type=int, default=2)
    synth.add_argument("--resume", action="store_true", help="finish an interrupted build in --out")
    synth.add_argument("--joker-p", type=float, default=0.0, metavar="P",
                       help="share of scenes that deal both jokers (default 0: a plain shuffle)")
    synth.add_argument("--generated-decks", type=int, default=0, metavar="N",
                       help="add N procedural deck designs (proc_0 ...) to the training decks")
    synth.add_argument("--index-px", type=float, nargs=2, default=[12.0, 60.0], metavar=("MIN", "MAX"),
                       help="corner index heights in pixels, drawn log-uniformly per scene (default 12 60)")
    synth.add_argument("--degrade", type=float, default=0.0, metavar="P",
                       help="share of train/val scenes also put through a random camera (blur, binning, "
                            "halos, JPEG 4:2:0, noise, exposure, white balance, glare); default 0")
    synth.add_argument("--play-p", type=float, default=0.0, metavar="P",
                       help="share of scenes laid as plays and shown hands, cards 0.15-0.33 of a card "
                            "apart (default 0)")
    synth.set_defaults(func=_synth)
    mine = sub.add_parser("mine", help="reader crops cut from the finder's own boxes on a labelled set")
    mine.add_argument("--data", required=True, help="a generated set (with truth/<split>.jsonl)")
    mine.add_argument("--split", default="train")
    mine.add_argument("--out", required=True, help="folder for <card or none>/*.png crops")
    mine.add_argument("--finder", default=None, help="finder model (default: the shipped one)")
    mine.add_argument("--reader", default=None, help="reader model: only its crop size is used (default: shipped)")
    mine.add_argument("--floor", type=float, default=0.05, help="lowest finder score kept")
    mine.add_argument("--prefix", default="m", help="file-name prefix, to tell sets apart in one folder")
    mine.add_argument("--limit", type=int, default=None, help="first N scenes only")
    mine.add_argument("--threads", type=int, default=None)
    mine.set_defaults(func=_mine)
    contact = sub.add_parser("contact-sheet", help="draw every deck's located corner indices")
    contact.add_argument("--out", required=True, help="PNG file to write")
    contact.add_argument("--deck", action="append", help="only this deck (repeatable)")
    contact.add_argument("--card-width", type=int, default=72, help="tile width in pixels")
    contact.add_argument("--whole", action="store_true", help="whole faces, not just the index corners")
    contact.set_defaults(func=_contact)
    real = sub.add_parser("real", help="convert a public real card-photo set from its git mirror (sim.real_sets)")
    real.add_argument("set", metavar="SET", help="poker-cards, bidly or ece395")
    real.add_argument("--git", required=True, help="the mirror's git directory (nothing is downloaded)")
    real.add_argument("--out", required=True, help="folder for SET/, SET-train/ and SET-test/")
    real.add_argument("--commit", default=None, help="commit to read (default: the one the set was checked at)")
    real.add_argument("--seed", type=int, default=0, help="seed of the train/test split")
    real.add_argument("--test-share", type=float, default=0.5, help="share of source photos held out")
    real.set_defaults(func=_real)
    parser.set_defaults(func=lambda args: parser.print_help() or 2)
