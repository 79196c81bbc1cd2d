"""The ``ddz-table`` command line.

Each package registers its own sub-commands, so this file only wires them together and
imports nothing heavy until a command runs.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Modules that expose ``register(subparsers)``; each adds its commands and sets ``func``.
COMMAND_MODULES = (
    "cli.judge",
    "cli.analyse",
    "cli.dataset",
    "cli.detector",
    "cli.enroll",
    "cli.table",
    "cli.tokens",
    "cli.simulate",
    "cli.site",
    "cli.doctor",
    "cli.config",
    "cli.club",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ddz-table",
        description="斗地主 camera referee and scorekeeper / 斗地主裁判与记分",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:  # a real missing dependency inside the module
                raise
            continue
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
