"""Site commands: ``serve``, ``export`` and ``demo``.

``ddz-table serve [--db PATH] [--host H] [--port P] [--pin PIN] [--camera]`` serves a store
with waitress on 127.0.0.1 unless ``--host`` says otherwise.
``ddz-table export MATCH[/HAND] --format json|csv|txt [--lang zh|en] [--db PATH] [--out FILE]``.
``ddz-table demo [--feed camera|bots] [--cards real|toy] [--no-referee] [--speed X]`` plays a simulated match
hand after hand and serves it: ``bots`` writes the bots' moves straight into the store;
``camera`` (the default) renders the table frame by frame and reads it with the real pipeline
and the shipped detector (camera view on), or with ``--cards toy`` the toy deck and its exact
reader; the demo's referee corrects misreads on the page unless ``--no-referee``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

from engine.words import LANGS

#: Where ``serve`` and ``export`` look without ``--db``: the user's data folder, never the working directory.
DEFAULT_DB_HELP = "default: $XDG_DATA_HOME/ddz-table/ddz-table.db, else ~/.local/share/ddz-table/ddz-table.db"
DEMO_PLAYERS = ("张三 Zhang", "李四 Li", "王五 Wang")
#: The rendered table read by the whole pipeline; at 2.8x table speed on 2 idle cores it keeps up
#: (bench/demo_camera.py), and the demo's referee corrects what the detector misreads.
DEMO_FEED = "camera"


def register(subparsers: argparse._SubParsersAction) -> None:
    serve = subparsers.add_parser("serve", help="serve the table site for a store / 启动记分网站",
                                  description="Serve the live page, referee controls and history for an event store.")
    _site_options(serve)
    serve.add_argument("--db", help=f"event store (SQLite) file ({DEFAULT_DB_HELP})")
    serve.set_defaults(func=run_serve)

    # The contract names this ``export``; the vision CLI's model export held the name at first.
    export = subparsers.add_parser("export", help="write a hand record or score sheet / 导出记录",
                                   description="Export MATCH (e.g. 3, or 'last') or MATCH/HAND (e.g. 3/2).")
    export.add_argument("target", metavar="HAND_OR_MATCH", help="MATCH, MATCH/HAND, or 'last'")
    export.add_argument("--format", choices=("json", "csv", "txt"), default="json")
    export.add_argument("--lang", choices=LANGS, help="language of the txt format (default zh) and the csv "
                        "(default en: the columns other programs read)")
    export.add_argument("--db", help=f"event store file ({DEFAULT_DB_HELP})")
    export.add_argument("--out", help="write to this file instead of standard output")
    export.set_defaults(func=run_export)

    demo = subparsers.add_parser("demo", help="a simulated table played hand after hand, served live / 演示",
                                 description="A simulated match at table speed into a fresh store; the site "
                                             "shows it. --feed camera films it and reads it with the detector.")
    _site_options(demo)
    demo.add_argument("--feed", choices=("bots", "camera"), default=None,
                      help="bots: moves go straight into the store; camera: a rendered table read by the "
                           f"pipeline and the shipped detector, camera view on (default {DEMO_FEED}; bots "
                           "when the card art is not installed)")
    demo.add_argument("--speed", type=float, default=1.0, help="play faster (e.g. 5 = five times table speed)")
    demo.add_argument("--size", default="960x540", help="camera feed: frame size WxH (default 960x540)")
    demo.add_argument("--fps", type=float, default=5.0, help="camera feed: frames per second of table time")
    demo.add_argument("--cards", choices=("real", "toy"), default="real",
                      help="camera feed: real card art read by the shipped detector, or the toy deck "
                           "(colour-code corners, read exactly: the tracker's self-test)")
    demo.add_argument("--deck", default=None,
                      help="camera feed: card design to film (default tigullio, held out from training)")
    demo.add_argument("--no-referee", dest="referee", action="store_false",
                      help="camera feed: leave the camera's misreads uncorrected (a hand it cannot finish is "
                           "abandoned); by default the demo's referee fixes them on the page, as a person would")
    demo.add_argument("--seed", type=int, help="random seed for the deals")
    demo.add_argument("--db", help="keep the demo's store in this file (default: a temporary file)")
    demo.set_defaults(func=run_demo)


def _site_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1 only)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--pin", help="referee PIN (default: a new six-digit PIN, printed)")
    parser.add_argument("--camera", action="store_true", help="offer the MJPEG camera view (off by default)")
    parser.add_argument("--threads", type=int, default=72, help="server threads; each live viewer holds one")
    parser.add_argument("--join-url", help="address phones join at, shown as a QR code (default: this "
                                           "machine's network address with --host 0.0.0.0)")


def _open_store(path: str):
    from tracker.store import EventStore, StoreError

    try:
        return EventStore(path)
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None


#: How many connections the server keeps open at once. An idle or half-sent connection costs
#: a socket in waitress's event loop, not a thread (only a request being answered takes one),
#: so a scanner or phones on bad Wi-Fi holding hundreds of sockets do not shut others out.
CONNECTION_LIMIT = 1000
#: Connections one address may hold of those, a quarter: a script trickling requests from one
#: machine cannot take every slot (webkit.server), and a machine with hundreds of pages open still can.
PER_ADDRESS = 250
#: Seconds a connection may sit with no request being answered and nothing arriving before it
#: is closed; live streams are requests being answered, so they stay open.
CHANNEL_TIMEOUT = 20
#: How often (seconds) idle connections are looked for.
CLEANUP_INTERVAL = 5
#: Request bodies waitress buffers at most (the site's forms and API take kilobytes; Flask
#: refuses over ``MAX_CONTENT_LENGTH`` with a clear message) and request headers at most.
MAX_BODY_BYTES = 1024 * 1024
MAX_HEADER_BYTES = 32 * 1024
#: File descriptors kept for the store, the camera and logs beside the connections.
SPARE_FILES = 64


def _room_for(connections: int) -> int:
    """Connections the process may hold: raise the open-files limit towards what they need
    (a systemd service starts with 1024), else fewer connections than asked."""
    try:
        import resource
    except ImportError:  # not a Unix: waitress's own limits apply
        return connections
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = connections + SPARE_FILES
    if soft != resource.RLIM_INFINITY and soft < need:
        target = need if hard == resource.RLIM_INFINITY else min(need, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    if soft == resource.RLIM_INFINITY:
        return connections
    return max(16, min(connections, soft - SPARE_FILES))


def make_server(app, host: str = "127.0.0.1", port: int = 8000, threads: int = 72, banner: tuple | list = (),
                connection_limit: int = CONNECTION_LIMIT, channel_timeout: int = CHANNEL_TIMEOUT,
                per_address: int = PER_ADDRESS):
    """A waitress server for ``app`` (from :func:`webui.create_app`), never Flask's development
    server, with the URL and the referee PIN printed; ``None`` (and a message) if the port is
    taken. ``ddz-table run`` runs it on a thread beside its pipeline.

    Slow or silent clients cannot take the site down: up to ``connection_limit`` connections
    are held (poll(), not select(), so more than 1024 sockets work), at most ``per_address`` of
    them from one address (:mod:`webkit.server`), one that stays idle for ``channel_timeout``
    seconds is closed, and request sizes are bounded. Live streams hold a thread each, so their
    cap stays below ``threads``.
    """
    from webkit.server import create_server

    # Each live viewer holds a server thread: keep some free for pages and the referee.
    watcher = app.extensions["ddz"].watcher
    watcher.limit = min(watcher.limit, max(1, threads - 8))
    try:
        server = create_server(app, per_address=per_address, host=host, port=port, threads=threads,
                               connection_limit=_room_for(connection_limit), asyncore_use_poll=True,
                               channel_timeout=channel_timeout,
                               cleanup_interval=max(1, min(CLEANUP_INTERVAL, channel_timeout)),
                               max_request_body_size=MAX_BODY_BYTES, max_request_header_size=MAX_HEADER_BYTES,
                               ident="ddz-table")
    except OSError as exc:
        print(f"error: cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return None
    if not app.config.get("JOIN_URL"):
        from box.lan import join_url

        app.config["JOIN_URL"] = join_url(host, server.effective_port)
    if host in ("0.0.0.0", "::", ""):
        print("listening on every network interface (--host): phones on the club's network can connect")
        host = "127.0.0.1"
    if app.config.get("JOIN_URL"):
        print(f"phones join at: {app.config['JOIN_URL']}  (QR code on the live and referee pages)")
    url = f"http://{host}:{server.effective_port}/"
    print(f"ddz-table site: {url}  (English: {url}?lang=en)")
    print(f"referee PIN / 裁判密码: {app.config['REFEREE_PIN']}   ({url}referee)")
    for line in banner:
        print(line)
    sys.stdout.flush()
    return server


def serve_app(app, host: str = "127.0.0.1", port: int = 8000, threads: int = 72, banner: tuple | list = ()) -> int:
    """Serve ``app`` with :func:`make_server` until Ctrl-C."""
    server = make_server(app, host, port, threads, banner)
    if server is None:
        return 2
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        app.extensions["ddz"].watcher.stop()
        server.close()
    return 0


def _config(args: argparse.Namespace) -> dict:
    if args.threads < 8:
        raise SystemExit("error: --threads must be at least 8")
    if args.join_url:
        from webui.join import join_info

        try:
            join_info(args.join_url)
        except ValueError as exc:
            raise SystemExit(f"error: --join-url: {exc}") from None
    return {"REFEREE_PIN": args.pin, "CAMERA_VIEW": args.camera, "SSE_LIMIT": max(1, args.threads - 8),
            "JOIN_URL": args.join_url}


def _store_path(db: str | None, create: bool) -> tuple[str, bool]:
    """``--db``, or the default store in the user's data folder (made when ``create``); and
    whether it is the default."""
    if db:
        return db, False
    from tracker.paths import default_db

    return str(default_db(create=create)), True


def run_serve(args: argparse.Namespace) -> int:
    from webui import create_app

    path, default = _store_path(args.db, create=True)
    store = _open_store(path)
    if store is None:
        return 2
    app = create_app(_config(args), store=store)
    where = f"event store: {os.path.abspath(path)}" + (" (the default; --db PATH for another)" if default else "")
    return serve_app(app, args.host, args.port, args.threads, [where])


def run_export(args: argparse.Namespace) -> int:
    from webui.downloads import export

    path, default = _store_path(args.db, create=False)
    if default:
        print(f"event store: {path} (the default; --db PATH for another)", file=sys.stderr)
    if not os.path.exists(path):
        print(f"error: no event store at {path} (give --db PATH)", file=sys.stderr)
        return 2
    store = _open_store(path)
    if store is None:
        return 2
    try:
        lang = args.lang or ("en" if args.format == "csv" else "zh")
        result = export(store, args.target, args.format, lang)
    except (ValueError, LookupError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()
    text = result.text if result.text.endswith("\n") else result.text + "\n"
    if args.out:
        try:
            with open(args.out, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
        except OSError as exc:
            print(f"error: cannot write {args.out}: {exc.strerror}", file=sys.stderr)
            return 2
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def run_demo(args: argparse.Namespace) -> int:
    from webui import create_app

    if args.speed <= 0:
        print("error: --speed must be positive", file=sys.stderr)
        return 2
    path = args.db or os.path.join(tempfile.mkdtemp(prefix="ddz-demo-"), "demo.db")
    store = _open_store(path)
    if store is None:
        return 2
    match_id = store.create_match(DEMO_PLAYERS, "classic", meta={"name": "演示 Demo", "started": time.time()})
    config = _config(args)
    try:
        table, feed = _demo_feed(args, store, match_id)
    except (ValueError, OSError) as exc:  # bad --size/--fps, missing model files or card art
        print(f"error: {exc}", file=sys.stderr)
        return 2
    enroller = None
    if feed == "camera":
        config["CAMERA_VIEW"] = config["CAMERA_SHOWN"] = True
        if args.cards != "toy":
            from tracker.enroll import DeckEnroller

            # The referee's deck walk-through on the rendered table's session (a new one per
            # table, so asked for each time), saving in decks/ beside the demo's store (a fresh
            # folder unless --db); the demo's own referee keeps the hands going: no pause.
            decks = os.path.join(os.path.dirname(os.path.abspath(path)), "decks")
            from cli.table import deck_trainer

            enroller = DeckEnroller(lambda: table.session, decks, pause=False, trainer=deck_trainer())
    app = create_app(config, store=store, pipeline_status=table, enroller=enroller)
    table.notify = app.extensions["ddz"].watcher.poke
    table.start()
    try:
        return serve_app(app, args.host, args.port, args.threads,
                         [f"demo store: {path}  ({feed} feed, speed x{args.speed:g}; Ctrl-C stops)"])
    finally:
        table.stop()


def _demo_feed(args: argparse.Namespace, store, match_id: int):
    """The demo's table and feed name: bots into the store, or the rendered table through the
    pipeline. The default camera feed gives way to bots when this machine lacks the card art
    (``make demo`` installs it as root); a camera feed asked for by name fails instead."""
    feed = args.feed or DEMO_FEED
    if feed == "camera" and args.cards != "toy":
        from sim.demo.camera_feed import DEMO_DECK, camera_unavailable

        why = camera_unavailable(args.deck or DEMO_DECK)
        if why and args.feed:
            raise ValueError(f"{why}; install it with deploy/system-deps.sh demo, or use --feed bots")
        if why:
            print(f"note: {why}: the demo plays its bots feed instead (deploy/system-deps.sh demo installs "
                  "the card art)", flush=True)
            feed = "bots"
    if feed == "bots":
        from sim.demo.feeder import SimulatedTable

        return SimulatedTable(store, match_id, speed=args.speed, seed=args.seed), feed
    from sim.demo.camera_feed import CameraTable
    from sim.simulate import parse_size

    print("loading the synthetic table and the detector...", flush=True)
    table = CameraTable(store, match_id, speed=args.speed, seed=args.seed, size=parse_size(args.size), fps=args.fps,
                        style="toy" if args.cards == "toy" else "cards", referee=args.referee,
                        **({"deck": args.deck} if args.deck else {}))
    return table, feed
