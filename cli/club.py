"""``ddz-table club``: the club server (俱乐部服务器) for an event across many tables.

    ddz-table club --db club.db --host 0.0.0.0 --port 8080 --pin 2468 --key tables-2024
    ddz-table club --db postgresql://club@localhost/club

It serves the hall screen (``/``), the director's pages (``/director``, behind the PIN), the
players' pages and the boxes' API with waitress. Each table's box joins with
``ddz-table run ... --club http://HOST:8080 --club-table N --club-key KEY``. The hall's screens
are served by a second process it starts and stops with itself (:mod:`club.screens`;
``--no-hall-process``: one process serves everything).
"""

from __future__ import annotations

import argparse
import sys
import threading


def register(subparsers: argparse._SubParsersAction) -> None:
    club = subparsers.add_parser("club", help="the club server: many tables, one event / 俱乐部服务器",
                                 description="Serve the club server: boxes replicate their tables' events to it; "
                                             "the director runs the event; the hall screen shows every table.")
    club.add_argument("--db", default="club.db",
                      help="SQLite file (default club.db) or a PostgreSQL URL postgresql://user@host/db")
    club.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: the hall's Wi-Fi)")
    club.add_argument("--port", type=int, default=8080)
    club.add_argument("--pin", help="director PIN (default: a new six-digit PIN, printed)")
    club.add_argument("--key", help="the key boxes register with (default: generated, printed)")
    club.add_argument("--public-url", help="the address phones and boxes use (QR codes on the table cards)")
    club.add_argument("--threads", type=int, default=32, help="server threads (each box post holds one briefly)")
    club.add_argument("--per-address", type=int, default=PER_ADDRESS, metavar="N",
                      help=f"connections one address may hold at once (default {PER_ADDRESS}; raise it behind a "
                           "reverse proxy, where every visitor has the proxy's address)")
    club.add_argument("--hall-process", action=argparse.BooleanOptionalAction, default=True,
                      help="serve the hall screens from a second process, so the boxes' posts never wait for them "
                           "(default; --no-hall-process: one process serves everything)")
    club.set_defaults(func=run_club)


#: Connections one address may hold (webkit.server): a box holds one or two, a hall screen a few.
PER_ADDRESS = 100
#: Connections the club server holds at once: past them waitress stops accepting, and a new box
#: or screen waits in the listening queue until one closes.
CONNECTIONS = 1000
#: Bytes of answers waiting for one connection that waitress keeps in memory before it moves
#: them to a temporary file (its default is 1 MB: four hall snapshots).
OUTBUF_IN_MEMORY = 8 * 1024 * 1024


def server_adjustments(threads: int) -> dict:
    """Waitress's settings for the club server (and its hall screens process)."""
    from cli.site import _room_for

    return {"threads": threads, "ident": "ddz-table-club",
            "connection_limit": _room_for(max(CONNECTIONS, 2 * threads + 400)),
            "channel_timeout": 60, "asyncore_use_poll": True,
            # a hall stream's snapshots (about 250 kB each at 300 tables) wait for a slow
            # screen in memory, not in a temporary file written and read again
            "outbuf_overflow": OUTBUF_IN_MEMORY}


def make_club_server(app, host: str, port: int, threads: int, per_address: int = PER_ADDRESS):
    """The club's waitress server: room for every table's box and the hall's screens (1,000
    connections: 300 boxes and 300 screens each holding one, with room to spare; the process's
    open-file limit raised to match where it allows), an idle connection closed after a minute,
    at most ``per_address`` connections from one address, and poll() rather than select()
    (which fails on a socket numbered past 1023)."""
    from webkit.server import create_server

    return create_server(app, per_address=per_address, host=host, port=port, **server_adjustments(threads))


def run_club(args: argparse.Namespace) -> int:
    from club.app import build_app
    from club.storage import StorageError, open_storage

    if args.per_address < 1:
        print(f"ddz-table club: --per-address 至少为 1 / --per-address must be 1 or more, not {args.per_address}",
              file=sys.stderr)
        return 2
    # PostgreSQL: a pooled connection for each server thread, so a box's post never waits for one
    pooled = {"max_size": args.threads} if args.db.startswith(("postgresql://", "postgres://")) else {}
    try:
        storage = open_storage(args.db, **pooled)
    except (StorageError, OSError) as exc:
        print(f"ddz-table club: {exc}", file=sys.stderr)
        return 1
    config = {"DIRECTOR_PIN": args.pin, "CLUB_KEY": args.key, "PUBLIC_URL": args.public_url}
    app = build_app({k: v for k, v in config.items() if v}, storage=storage)
    try:
        server = make_club_server(app, args.host, args.port, args.threads, args.per_address)
    except OSError as exc:
        print(f"ddz-table club: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    live = app.extensions["club"].live
    # the evening in the store folded now, not by the first box's post (a restart mid-evening)
    threading.Thread(target=live.refresh, name="fold", daemon=True).start()
    screens = None
    if args.hall_process and args.db not in ("", ":memory:"):
        from club.app import DEFAULTS
        from club.screens import Screens, hand_hall_over

        shared = {k: app.config[k] for k in (*DEFAULTS, "SECRET_KEY") if k != "DB"}
        adjustments = server_adjustments(int(app.config["HALL_STREAMS"]) + 16)
        try:
            screens = Screens(args.db, shared, {"per_address": args.per_address, **adjustments}).start()
        except OSError as exc:
            print(f"ddz-table club: the hall screens process did not start ({exc}): this process serves them",
                  file=sys.stderr)
        else:
            hand_hall_over(server, screens)
    url = f"http://{args.host}:{server.effective_port}"
    print(f"club server / 俱乐部服务器: {url}  (store: {storage.dialect})", flush=True)
    print(f"director PIN / 裁判长密码: {app.config['DIRECTOR_PIN']}", flush=True)
    print(f"box key / 盒子登记密钥: {app.config['CLUB_KEY']}", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        if screens is not None:
            screens.stop()
        server.close()
        storage.close()
    return 0
