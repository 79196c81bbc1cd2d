"""``ddz-table config``: the box's settings file from the shell (the installer and calibrate.sh use it).

    ddz-table config render --set seats=4 --set preset=four > config.toml
    ddz-table config check /etc/ddz-table/config.toml
    ddz-table config get /etc/ddz-table/config.toml db
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from box.config import Config, ConfigError, load_config, render_config


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("config", help="write, check or read the box's settings file / 配置文件")
    sub = parser.add_subparsers(dest="what", required=True)
    render = sub.add_parser("render", help="print a config file with these values over the defaults")
    render.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE")
    check = sub.add_parser("check", help="check a config file")
    check.add_argument("file")
    get = sub.add_parser("get", help="print one checked value (db, models, and the Config fields)")
    get.add_argument("file")
    get.add_argument("field")
    parser.set_defaults(func=run_config)


def run_config(args: argparse.Namespace) -> int:
    """``ddz-table config render [--set FIELD=VALUE ...] | check FILE | get FILE FIELD``."""
    try:
        if args.what == "render":
            values: dict[str, Any] = {}
            for item in args.set:
                field, sep, value = item.partition("=")
                if not sep:
                    raise ConfigError(f"--set wants FIELD=VALUE, not {item!r}")
                kind = type(getattr(Config(), field, ""))
                try:
                    values[field] = (int(value) if value.isdigit() else float(value)) if kind in (int, float) else value
                except ValueError:
                    raise ConfigError(f"--set {field} wants a number, not {value!r}") from None
            sys.stdout.write(render_config(**values))
        elif args.what == "check":
            load_config(args.file)
            print(f"{args.file}: OK")
        else:
            config = load_config(args.file)
            if args.field not in Config.__dataclass_fields__ and args.field not in ("db", "models"):
                raise ConfigError(f"no setting {args.field!r}")
            value = getattr(config, args.field)
            print(",".join(value) if isinstance(value, tuple) else value)
    except ConfigError as exc:
        print(f"ddz-table: {exc}", file=sys.stderr)
        return 2
    return 0
