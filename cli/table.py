"""Table commands: ``mat`` (print the table mat), ``calibrate`` (find it in the camera's view)
and ``run`` (the live referee: camera -> detector -> tracker -> store, with the site).

    ddz-table mat --seats 3 --size A2 --out mat.pdf
    ddz-table calibrate --source 0 --out calibration.json --preview check.png
    ddz-table run --source 0 --calibration calibration.json --rules classic --db table.db
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path
from typing import Any

from box.config import Config, ConfigError, load_config, mode_error
from cli.resume import ResumeRefused, film_identity, resume_point, skip_to
from tracker.paths import default_db


def register(subparsers: argparse._SubParsersAction) -> None:
    mat = subparsers.add_parser("mat", help="draw the printable table mat / 生成桌垫")
    mat.add_argument("--seats", type=int, choices=(2, 3, 4, 5), default=3)
    mat.add_argument("--size", choices=("A3", "A2", "A1"), default="A2", help="paper size (landscape)")
    mat.add_argument("--dpi", type=int, default=200, help="print resolution (default 200)")
    mat.add_argument("--out", default="mat.pdf", help="mat.pdf or mat.png")
    mat.add_argument("--pile", action="store_true", help="centre-pile protocol: one pile zone in the middle")
    mat.set_defaults(func=run_mat)

    cal = subparsers.add_parser("calibrate", help="find the mat in the camera's view / 标定摄像头")
    where = cal.add_mutually_exclusive_group(required=True)
    where.add_argument("--image", help="a photo from the camera")
    where.add_argument("--source", help="camera, stream or file to take a frame from")
    cal.add_argument("--seats", type=int, choices=(2, 3, 4, 5), default=3)
    cal.add_argument("--size", choices=("A3", "A2", "A1"), default="A2")
    cal.add_argument("--pile", action="store_true", help="the mat was printed with --pile")
    cal.add_argument("--corners", help="no markers: the mat's corners in pixels, 'x,y x,y x,y x,y' "
                                       "(top-left, top-right, bottom-right, bottom-left)")
    cal.add_argument("--out", default="calibration.json")
    cal.add_argument("--preview", help="write the frame with the zones drawn, to check by eye")
    cal.add_argument("--tries", type=int, default=50, help="frames to try from --source")
    cal.set_defaults(func=run_calibrate)

    run = subparsers.add_parser("run", help="referee a live table / 实时裁判")
    run.add_argument("--config", help="settings file (the Pi service: /etc/ddz-table/config.toml); flags win over it")
    run.add_argument("--source", help="picamera, a device number, a stream URL, a video or a folder")
    run.add_argument("--camera-mode", help="camera resolution WIDTHxHEIGHT (default: the source's own)")
    run.add_argument("--calibration", help="calibration.json from `ddz-table calibrate`")
    run.add_argument("--rules", help="rules preset (default classic)")
    run.add_argument("--players", help="names by seat, comma separated (default 座位1,座位2,...)")
    run.add_argument("--double", action="store_true", default=None,
                     help="players may double (加倍) once each before the first play, x2 each, laid as 加倍 / 不加倍 "
                          "tokens (ddz-table tokens --double); a new match gets the rule (five players always double)")
    run.add_argument("--db", help="event store (default: the config's data dir, else "
                     "$XDG_DATA_HOME/ddz-table/ddz-table.db or ~/.local/share/ddz-table/ddz-table.db)")
    run.add_argument("--match", type=int, help="continue this match and stay on it (default: the last unfinished "
                     "one, then each match started later on the referee page)")
    run.add_argument("--new-match", action="store_true", help="start a new match even if one is unfinished")
    run.add_argument("--resume", action="store_true",
                     help="a video the match already holds camera events of is this one: read on from where they end")
    run.add_argument("--from-start", action="store_true",
                     help="read a video from its start even if the match holds camera events of a video")
    run.add_argument("--record", help="write the finished hands as a JSON record when the source ends")
    run.add_argument("--no-web", action="store_true", help="no web site")
    run.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    run.add_argument("--port", type=int, help="default 8000")
    run.add_argument("--pin", help="referee PIN (default: generated and printed)")
    run.add_argument("--protocol", choices=("zones", "pile"),
                     help="zones: each seat plays in its own zone; pile: one centre pile "
                          "(default: pile when the calibrated mat has one)")
    run.add_argument("--camera-view", action="store_true", default=None, help="serve the annotated camera view (MJPEG)")
    run.add_argument("--detector", default="onnx",
                     help="'onnx' (models/finder.onnx + reader.onnx), 'toy' (the toy deck of `simulate "
                          "--style toy`: a self-test of the tracker) or MODULE:FACTORY returning a detector")
    run.add_argument("--backend", help="detector backend: onnx (default), openvino, ncnn")
    run.add_argument("--models", help="folder with finder.onnx and reader.onnx (default: the shipped models)")
    run.add_argument("--deck", help="read with a deck profile: a name from `ddz-table enroll` or a profile file")
    run.add_argument("--club", help="replicate this table's events to a club server (ddz-table club), e.g. "
                                    "http://192.168.1.10:8080")
    run.add_argument("--club-table", type=int, help="this table's number at the club server")
    run.add_argument("--club-key", help="the club server's registration key (the director page shows it)")
    run.add_argument("--max-frames", type=int, help=argparse.SUPPRESS)
    run.set_defaults(func=run_run)


def _fail(message: str, zh: str = "") -> int:
    """Print ``zh / message`` (Chinese first) and give the usage-error exit status, 2."""
    print(f"ddz-table: {zh} / {message}" if zh else f"ddz-table: {message}", file=sys.stderr)
    return 2


# ---------------------------------------------------------------------- mat
def run_mat(args: argparse.Namespace) -> int:
    from tracker.mat import render_mat, save_mat
    from tracker.zones import MatLayout

    try:
        layout = MatLayout.standard(args.seats, args.size, pile=args.pile)
        image = render_mat(layout, args.dpi)
        path = save_mat(image, args.out, layout, args.dpi)
    except (ValueError, OSError) as exc:
        return _fail(str(exc), "桌垫生成失败")
    print(f"{path}: {args.size} ({layout.width_mm:.0f} x {layout.height_mm:.0f} mm), {args.seats} seats. "
          f"Print at 100% (no 'fit to page'); the scale bar must measure 50 mm.")
    return 0


# ---------------------------------------------------------------------- calibrate
def run_calibrate(args: argparse.Namespace) -> int:
    import cv2

    from tracker.zones import Calibration, CalibrationError, MatLayout
    from vision.detector import ImageError
    from vision.sources import SourceError

    layout = MatLayout.standard(args.seats, args.size, pile=args.pile)
    try:
        frame = _calibration_frame(args, layout)
        if args.corners:
            cal = Calibration.from_corners(_corners(args.corners), layout, (frame.shape[1], frame.shape[0]))
        else:
            cal = Calibration.from_markers(frame, layout)
        cal.save(args.out)
    except (CalibrationError, SourceError, ImageError, ValueError, OSError) as exc:
        return _fail(str(exc), "标定失败")
    if args.preview:
        cv2.imwrite(args.preview, draw_zones(frame, cal))
    found = f"markers {list(cal.markers_found)}" if cal.method == "markers" else "four corners"
    print(f"{args.out}: {cal.method} ({found}), error {cal.error_px:.2f} px, "
          f"image {cal.image_size[0]}x{cal.image_size[1]}")
    return 0


def _calibration_frame(args: argparse.Namespace, layout: Any):
    from tracker.zones import CalibrationError, find_markers
    from vision.detector import read_image
    from vision.sources import open_source

    if args.image:
        return read_image(args.image)
    source = open_source(args.source, reconnect=False)
    best, best_count = None, -1
    try:
        for _ in range(max(1, args.tries)):
            frame = source.read()
            if frame is None:
                break
            count = len(find_markers(frame.image)) if not args.corners else 4
            if count > best_count:
                best, best_count = frame.image, count
            if count == 4:
                break
    finally:
        source.close()
    if best is None:
        raise CalibrationError(f"{args.source} gave no frame")
    return best


def _corners(text: str) -> list[list[float]]:
    try:
        points = [[float(v) for v in p.split(",")] for p in text.replace(";", " ").split()]
    except ValueError:
        raise ValueError(f"corners must look like 'x,y x,y x,y x,y', not {text!r}") from None
    if len(points) != 4 or any(len(p) != 2 for p in points):
        raise ValueError(f"need exactly four 'x,y' corners, got {text!r}")
    return points


def draw_zones(image, cal) -> Any:
    """The frame with the calibrated zones outlined and named (a check by eye)."""
    import cv2
    import numpy as np

    out = image.copy()
    for name, poly in cal.zones.items():
        pts = cal.table_to_image(poly).astype(np.int32)
        cv2.polylines(out, [pts], True, (0, 200, 255), 2)
        x, y = pts.min(axis=0)
        cv2.putText(out, name, (int(x) + 4, int(y) + 22), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 200, 255), 2)
    return out


# ---------------------------------------------------------------------- run
#: ``--detector toy``: the toy deck's reader (``simulate --style toy``), a self-test of
#: everything but the card reader; it lives in the lab, which the tracker does not import.
TOY_DETECTOR = "sim.toy:ToyDetector"


def load_detector(spec: str, backend: str = "onnx", models: str | None = None, deck: str | None = None) -> Any:
    """The card detector ``run --detector`` names: ``onnx`` (the shipped models, or those in
    ``models``), ``toy`` or ``MODULE:FACTORY``, built by :func:`tracker.detection.build_detector`;
    ``deck``: a deck profile's name or file (``ddz-table enroll``) for the ``onnx`` one."""
    from cli.enroll import load_deck_profile
    from tracker.detection import build_detector

    if spec != "onnx" and spec != "toy" and ":" not in spec:
        raise ValueError(f"--detector must be 'onnx', 'toy' or MODULE:FACTORY, not {spec!r}")
    profile = load_deck_profile(deck) if deck else None
    return build_detector(TOY_DETECTOR if spec == "toy" else spec, backend, models, profile=profile)


def choose_match(store: Any, rules: Any, players: tuple[str, ...] | None, match: int | None, new: bool,
                 meta: dict[str, Any] | None = None) -> int:
    """The match to referee: the one asked for, else the last unfinished one with these rules,
    else a new one (with ``meta``: the film it is read from, :mod:`cli.resume`)."""
    from tracker.state import TableState

    if match is not None:
        store.match(match)  # raises StoreError if missing
        return match
    if not new:
        for info in reversed(store.matches()):
            if (info.rules.name, info.rules.players, info.rules.player_double) == (
                    rules.name, rules.players, rules.player_double):
                if TableState.load(store, info.id).ended is None and (players is None or info.players == players):
                    return info.id
                break
    names = players or tuple(f"座位{i + 1}" for i in range(rules.players))
    return store.create_match(names, rules, meta=meta)


def run_run(args: argparse.Namespace) -> int:
    from box.config import ConfigError
    from box.watchdog import Notifier, stop_on_sigterm
    from engine.rules import get_rules
    from tracker.match_record import match_record
    from tracker.reader import ReaderConfig
    from tracker.session import SessionConfig, TableSession
    from tracker.state import TableState
    from tracker.store import EventStore, StoreError
    from tracker.zones import CalibrationError
    from vision.backends import ModelFileError
    from vision.sources import SourceError, open_source

    try:
        run_config = apply_run_config(args)
        rules = get_rules(args.rules)
        if args.double:
            rules = rules.replace(player_double=True)
    except (ValueError, ConfigError) as exc:
        return _fail(str(exc), "设置有误")
    players = tuple(p.strip() for p in args.players.split(",")) if args.players else None
    if players is not None and len(players) != rules.players:
        return _fail(f"{rules.name} needs {rules.players} player names, got {len(players)}",
                     f"{rules.name} 要 {rules.players} 位选手的名字，给了 {len(players)} 个")
    try:
        calibration = load_calibration(args.calibration)
    except CalibrationError as exc:
        return _fail(str(exc), f"标定文件 {args.calibration} 用不了")
    if calibration.layout.seats != rules.players:
        return _fail(f"the calibration's mat has {calibration.layout.seats} seats; {rules.name} needs {rules.players}",
                     f"标定的桌垫有 {calibration.layout.seats} 个座位，{rules.name} 要 {rules.players} 个")
    try:
        detector = load_detector(args.detector, args.backend, args.models, args.deck)
    except (ValueError, KeyError, ModelFileError) as exc:
        return _fail(str(exc), "识别模型加载失败")
    try:
        source = open_source(args.source, **args.source_options)
        if not source.live:
            source.open()  # a video or folder that cannot be opened fails here, before a match is made
    except SourceError as exc:
        print(f"ddz-table: {source_word(args.source)}读取失败 / {args.source} failed: {exc}", file=sys.stderr)
        return 1
    film = None if source.live else film_identity(args.source)
    try:
        store = EventStore(args.db)
        match_id = choose_match(store, rules, players, args.match, args.new_match,
                                meta={"video": film} if film else None)
        start_at = resume_point(store, match_id, film, args.resume, args.from_start) if film else None
    except StoreError as exc:
        source.close()
        return _fail(str(exc), f"记录库 {args.db} 用不了")
    except ResumeRefused as exc:
        source.close()
        store.close()
        return _fail(str(exc), exc.zh)
    if start_at is not None:
        try:
            skipped = skip_to(source, start_at)
        except SourceError as exc:
            store.close()
            print(f"ddz-table: 视频读取失败 / {args.source} failed: {exc}", file=sys.stderr)
            return 1
        print(f"resuming {args.source} at {start_at:.1f} s ({skipped} frames skipped): match {match_id}'s "
              f"events end there / 从 {start_at:.1f} 秒接着读，之前的已经记下", flush=True)
    protocol = args.protocol or ("pile" if "pile" in calibration.zones else "zones")
    try:
        session = TableSession(source, calibration, detector, store, match_id,
                               SessionConfig(camera_view=args.camera_view, follow_new_matches=args.match is None,
                                             reader=ReaderConfig(protocol=protocol)))
    except ValueError as exc:
        return _fail(str(exc), "设置有误")
    try:
        replicator = start_replicator(store, args)
    except ValueError as exc:
        return _fail(str(exc), "俱乐部设置有误")
    server = None if args.no_web else _serve(store, session, args, run_config, replicator)
    print(f"match {match_id} in {args.db}; reading {source.name}", flush=True)
    notifier = Notifier.from_env()  # systemd (Type=notify, WatchdogSec); a no-op elsewhere
    session.heartbeat = notifier.ping
    restore_sigterm = stop_on_sigterm(session.stop)
    notifier.ready(f"match {match_id}, reading {source.name}")
    failure: str | None = None
    try:
        session.run(max_frames=args.max_frames)
    except KeyboardInterrupt:
        session.stop()
    except SourceError as exc:
        failure = str(exc)
    finally:
        notifier.stopping()
        restore_sigterm()
        if replicator is not None:
            replicator.stop()
        if server is not None:
            server.close()
    if failure is None and not session.stopped and args.max_frames is None:
        failure = source_failure(source)
    if args.record:
        record = match_record(TableState.load(store, session.match_id))  # it may have moved on
        Path(args.record).write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
        print(f"{args.record}: {len(record['hands'])} finished hand(s)")
    store.close()
    if failure is not None:
        what = "摄像头" if source.live else "视频"
        print(f"ddz-table: {what}读取失败 / {source.name} failed: {failure}", file=sys.stderr)
        return 1
    return 0


def load_calibration(path: str) -> Any:
    """The calibration file ``path`` (from ``ddz-table calibrate``), or a ``CalibrationError``
    that names the file, whatever is wrong with it (not there, not text, not JSON, not one)."""
    from tracker.zones import Calibration, CalibrationError

    try:
        return Calibration.load(path)
    except UnicodeDecodeError:
        raise CalibrationError(f"{path} is not a calibration file (not UTF-8 text)") from None
    except CalibrationError as exc:
        raise CalibrationError(str(exc) if path in str(exc) else f"{path}: {exc}") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise CalibrationError(f"{path} is not a calibration file: {exc}") from None


def source_word(spec: Any) -> str:
    """What ``--source`` names, as the failure message says it: 摄像头 (a camera or a stream:
    a device number, the Pi camera, a URL) or 视频 (a video file or a folder of images)."""
    text = str(spec)
    live = text.isdigit() or text.lower() in ("picamera", "picamera2", "pi") or "://" in text
    return "摄像头" if live else "视频"


def start_replicator(store: Any, args: argparse.Namespace) -> Any:
    """With ``--club URL``: copy the store to the club server in the background (the table
    scores on whether or not the server is reachable); ``None`` without it."""
    if not getattr(args, "club", None):
        return None
    from tracker.replicate import Replicator

    if not args.club_table:
        raise ValueError("--club needs --club-table N (this table's number at the club)")
    replicator = Replicator(store, args.club, args.club_table, key=args.club_key).start()
    print(f"replicating to {args.club} as table {args.club_table}", flush=True)
    return replicator


def source_failure(source: Any) -> str | None:
    """Why a run that ended by itself (no stop asked for) ended too soon, or None for a finite
    source read to its end. A live camera or stream ends only when it broke for good (it is
    reopened while it can be); a video cut short says so itself (``vision.sources.opencv``)."""
    status = source.status()
    if status.state == "error":
        return status.error or "the source failed"
    if source.live:
        return status.error or "the camera stopped sending frames"
    if status.frames == 0:
        return "no frame could be read"
    return None


def deck_trainer(epochs: int | None = None) -> Any:
    """The deck page's trainer (``tracker.enroll.Trainer``): fine-tunes a copy of the reader on the
    walk-through's batches (:func:`sim.training.deck_reader.tune_reader`), or None where this
    computer cannot (no torch, :func:`cli.enroll.can_tune`; or no base checkpoint beside the
    shipped models): the page then saves the labelled photos for a computer that can.
    ``epochs``: passes over the crops (default: ``TuneSettings``'s)."""
    from cli.enroll import can_tune
    from models import MODELS_DIR

    if not can_tune() or not (MODELS_DIR / "reader.pt").is_file():  # sim.training's BASE_CHECKPOINT
        return None

    def train(detector: Any, samples: list, name: str, progress: Any) -> Any:
        # torch is imported on the first training, not when the box starts
        from sim.training.deck_reader import TuneSettings, tune_reader

        settings = TuneSettings() if epochs is None else TuneSettings(epochs=epochs)
        return tune_reader(detector, samples, name, settings=settings, progress=progress).profile

    return train


def _serve(store: Any, session: Any, args: argparse.Namespace, run_config: Config | None = None,
           replicator: Any = None) -> Any:
    """The site on a waitress thread; ``None`` (with a note) if the web package is not there.
    With ``replicator`` (``--club``) the referee page shows where the copy to the club stands.
    The referee's deck walk-through enrolls on ``session`` (a :class:`tracker.session.TableSession`) and saves the profile where ``run``
    looks for ``--deck NAME``: ``decks/`` of the box's data folder with a settings file
    (``[model] deck``), else of the user's (:func:`tracker.paths.decks_dir`); it trains the
    deck's own reader where this computer can (:func:`deck_trainer`)."""
    try:
        from cli.site import make_server
        from webui import create_app
    except ImportError as exc:
        print(f"ddz-table: no web site ({exc}); running without it", file=sys.stderr)
        return None
    from tracker.enroll import DeckEnroller
    from tracker.paths import DECKS_NAME

    config: dict[str, Any] = {"CAMERA_VIEW": bool(args.camera_view)}
    if args.pin:
        config["REFEREE_PIN"] = args.pin
    folder = Path(run_config.data_dir) / DECKS_NAME if run_config is not None else None
    enroller = DeckEnroller(session, folder, trainer=deck_trainer())
    app = create_app(config, store=store, pipeline_status=session, enroller=enroller, replicator=replicator)
    server = make_server(app, host=args.host, port=args.port, threads=32)
    if server is not None:
        threading.Thread(target=server.run, name="web", daemon=True).start()
    return server


# ---------------------------------------------------------------------- `run --config`
#: run's option -> (Config field, built-in default when neither flag nor file sets it; a callable
#: is called then, so the default store's folder is made only when it is used).
RUN_OPTIONS: dict[str, tuple[str, Any]] = {
    "source": ("source", None), "calibration": ("calibration", None), "rules": ("preset", "classic"),
    "players": ("players", None), "db": ("db", lambda: str(default_db())), "host": ("host", "127.0.0.1"),
    "port": ("port", 8000), "pin": ("referee_pin", None), "protocol": ("protocol", None),
    "camera_view": ("camera_view", False), "backend": ("backend", "onnx"), "models": ("model_dir", None),
    "camera_mode": ("mode", None), "deck": ("deck_profile", None), "double": ("double", False),
    "club": ("club_url", None), "club_table": ("club_table", None), "club_key": ("club_key", None),
}


def apply_run_config(args: argparse.Namespace) -> Config | None:
    """Fill ``run``'s unset options (None) from ``args.config`` and then the built-in defaults."""
    config = load_config(args.config) if getattr(args, "config", None) else None
    for option, (field, default) in RUN_OPTIONS.items():
        if getattr(args, option, None) is not None:
            continue
        value = getattr(config, field) if config is not None else default() if callable(default) else default
        if option == "players":
            value = ",".join(value) if value else None
        elif option in ("pin", "models", "camera_mode", "club", "club_key", "club_table") and value in ("", "auto", 0):
            value = None
        elif option == "backend" and config is not None:
            value = config.resolved_backend()
        setattr(args, option, value)
    if args.camera_mode and mode_error(args.camera_mode):
        raise ConfigError(f"--camera-mode {args.camera_mode}: {mode_error(args.camera_mode)}")
    options = config.source_options() if config is not None else {}
    options.pop("size", None)
    if args.camera_mode:
        options["size"] = tuple(int(v) for v in args.camera_mode.split("x"))
    args.source_options = options
    for needed in ("source", "calibration"):
        if getattr(args, needed) is None:
            raise ConfigError(f"give --{needed} (or --config FILE with it)")
    return config
