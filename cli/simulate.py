"""``ddz-table simulate``: film random hands on the synthetic table, and the ``synthetic:`` source.

``ddz-table simulate --seed 3 --seats 3 --out runs/sim/seed3 [--rules PRESET] [--hands 1] [--deck plastic]
[--fps 10] [--size 1280x720] [--style cards|toy] [--cards N] [--tokens]`` writes ``video.mp4``,
``calibration.json`` and ``truth.json`` (read by ``bench/tracker.py --sim``). ``--style toy``
films the toy deck (:mod:`sim.toy`) for ``ddz-table run --detector toy``; ``--cards N``
deals N cards a seat for a short game; ``--tokens``: each seat lays its bid token (叫分牌) as it
bids, so the camera reads the bids. After each hand the seats left holding cards lay them face up
(亮牌) unless ``--no-show``. ``--messy crooked,takeback,lamp`` (or ``all``) films a messy
table (:mod:`sim.messy`): cards crooked and overlapping, plays pushed and taken back, a card
dropped, a cup on the mat, a sleeve over a zone, a lamp switched on, the camera knocked. ``--seats 5`` plays the five-player game (``five``) on the
five-seat mat; ``--rules dizhu`` plays 斗帝主 at three seats (``--rules`` picks any preset with
that many players). ``ddz-table simulate --stats 2000`` prints how often
the bots bid, bomb and spring over that many hands (no video).
``--source synthetic:seed=3,seats=3,hands=2,size=1280x720,style=toy,cards=3`` renders the
same table live, frame by frame, with no files (its mat's markers calibrate it:
``ddz-table calibrate --source synthetic:seed=3``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import cv2

from engine.rules import get_rules
from sim.bots import play_hand, rates
from sim.messy import MESSES, parse_messy
from sim.simulate import DEFAULT_DECK, STYLES, SimConfig, SimError, SimTable, parse_size
from vision.sources import CallableSource, register_source


def write_simulation(config: SimConfig, out: str | os.PathLike) -> dict[str, Any]:
    """Render the whole sitting into ``out``; returns a summary (frames, hands, plays)."""
    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise SimError(f"cannot write to {folder}: {exc.strerror or exc}") from None
    table = SimTable(config)
    writer = cv2.VideoWriter(str(folder / "video.mp4"), cv2.VideoWriter.fourcc(*"mp4v"), config.fps, config.size)
    if not writer.isOpened():
        raise SimError(f"OpenCV cannot write an mp4v video to {folder}")
    try:
        for image, _ in table.frames():
            writer.write(image)
    finally:
        writer.release()
    table.calibration.save(folder / "calibration.json")
    truth = table.truth()
    (folder / "truth.json").write_text(json.dumps(truth, ensure_ascii=False, indent=1), encoding="utf-8")
    plays = sum(1 for h in truth["hands"] for a in h["actions"] if a["kind"] == "play")
    return {"out": str(folder), "frames": table.frame_count, "seconds": table.t, "hands": len(truth["hands"]),
            "plays": plays}


def register(subparsers: argparse._SubParsersAction) -> None:
    sim = subparsers.add_parser("simulate", help="film random hands on a synthetic table / 模拟牌桌视频")
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--seats", type=int, help="2, 3, 4 or 5 players (rules two / classic / four / five); "
                                               "default: the --rules preset's, else 3")
    sim.add_argument("--rules", help="rules preset, e.g. dizhu (斗帝主, three seats); default: the one for --seats")
    sim.add_argument("--out", help="folder for video.mp4, calibration.json, truth.json")
    sim.add_argument("--hands", type=int, default=1)
    sim.add_argument("--deck", default=DEFAULT_DECK, help=f"card art (default {DEFAULT_DECK}, held out of training)")
    sim.add_argument("--fps", type=float, default=10.0)
    sim.add_argument("--size", default="1280x720", help="frame size WxH")
    sim.add_argument("--style", default="cards", choices=STYLES,
                     help="cards: the deck's art; toy: code-patch cards for `run --detector toy` (self-test)")
    sim.add_argument("--cards", type=int, help="cards dealt per seat (a short game); default: a full deal")
    sim.add_argument("--tokens", action="store_true",
                     help="each seat lays its bid token as it bids (the camera reads the bids) / 放叫分牌")
    sim.add_argument("--double", action="store_true",
                     help="players may double (加倍) once before the first play, x2 each; with --tokens each "
                          "seat lays 加倍 or 不加倍 / 允许加倍")
    sim.add_argument("--no-show", action="store_true",
                     help="leave out the cards left shown after each hand / 牌局结束后不亮牌")
    sim.add_argument("--messy", metavar="LIST", default="",
                     help=f"a messy table: any of {','.join(MESSES)}, comma-separated, or all / 乱牌桌干扰")
    sim.add_argument("--stats", type=int, metavar="HANDS",
                     help="no video: print the bots' bid, bomb and spring rates over HANDS hands")
    sim.set_defaults(func=run_simulate)


def bot_stats(seed: int, seats: int, hands: int, rules: str | None = None, double: bool = False) -> dict[str, Any]:
    """How the simulator's bots play over ``hands`` hands (redeals included); ``double``: players
    may double (加倍), and the share of hands doubled is counted too."""
    import random

    from engine.events import Double

    if not 1 <= hands <= 100_000:
        raise SimError(f"--stats takes 1..100000 hands, not {hands}")
    preset = SimConfig(seats=seats, rules=rules).check().preset
    ruleset = get_rules(preset).replace(player_double=True) if double else get_rules(preset)
    rng = random.Random(seed)
    played = [play_hand(ruleset, rng, i % seats) for i in range(hands)]
    out = {"rules": preset, "seed": seed} | rates(played)
    if ruleset.player_double:
        dealt = [h for h in played if not h.redeal]
        out["doubled_hand_share"] = round(sum(any(isinstance(e, Double) for e in h.events) for h in dealt)
                                          / max(1, len(dealt)), 4)
    return out


def _seats(args: argparse.Namespace) -> int:
    """--seats as given, else the --rules preset's players, else three."""
    if args.seats is not None:
        return args.seats
    if args.rules is not None:
        try:
            return get_rules(args.rules).players
        except ValueError as exc:
            raise SimError(str(exc)) from None
    return 3


def run_simulate(args: argparse.Namespace) -> int:
    try:
        seats = _seats(args)
        if args.stats is not None:
            print(json.dumps(bot_stats(args.seed, seats, args.stats, args.rules, args.double)))
            return 0
        if args.out is None:
            raise SimError("give --out FOLDER for the video (or --stats HANDS)")
        config = SimConfig(seed=args.seed, seats=seats, hands=args.hands, deck=args.deck, fps=args.fps,
                           size=parse_size(args.size), style=args.style, cards=args.cards,
                           tokens=args.tokens, rules=args.rules, show=not args.no_show, double=args.double,
                           messy=parse_messy(args.messy)).check()
        summary = write_simulation(config, args.out)
    except SimError as exc:
        print(f"ddz-table: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(summary))
    return 0


def parse_spec(spec: str) -> SimConfig:
    """``synthetic:seed=3,seats=3,hands=2,deck=orell,fps=10,size=640x360,style=toy,cards=3,tokens=1``
    -> the table's settings; ``messy=lamp+knock`` names disturbances joined by ``+``."""
    body = spec.split(":", 1)[1] if ":" in spec else ""
    fields: dict[str, Any] = {}
    for part in filter(None, body.split(",")):
        key, _, value = part.partition("=")
        key = key.strip()
        try:
            if key in ("seed", "seats", "hands", "cards"):
                fields[key] = int(value)
            elif key == "fps":
                fields[key] = float(value)
            elif key == "size":
                fields[key] = parse_size(value)
            elif key in ("deck", "style", "rules"):
                fields[key] = value.strip()
            elif key == "messy":
                fields[key] = parse_messy(value.replace("+", ","))
            elif key in ("tokens", "show", "double"):
                if value.strip() not in ("0", "1"):
                    raise SimError(f"{key} is 0 or 1, not {value!r}")
                fields[key] = value.strip() == "1"
            else:
                raise SimError(f"unknown synthetic source setting {key!r} "
                               "(seed, seats, hands, deck, fps, size, style, cards, tokens, show, double, rules, messy)")
        except ValueError as exc:
            if isinstance(exc, SimError):
                raise
            raise SimError(f"bad value for {key}: {value!r}") from None
    return SimConfig(**fields).check()


def synthetic_source(spec: str) -> CallableSource:
    """A source rendering the synthetic table on the fly; it ends with the last hand."""
    table = SimTable(parse_spec(spec))
    frames = table.frames()

    def render(_index: int) -> tuple[Any, float] | None:
        return next(frames, None)

    source = CallableSource(render, name=spec, fps=table.config.fps)
    source.table = table  # type: ignore[attr-defined]  # the truth, for whoever wants to score the run
    return source


register_source("synthetic:", synthetic_source)
