"""``ddz-table`` table subcommands called in-process, as the console script would call them."""

from __future__ import annotations

import argparse

from cli import table as cli


def ddz(*argv):
    """Parse ``argv`` (any values, turned to text) with the table commands and run the one named;
    its exit code."""
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args([str(a) for a in argv])
    return args.func(args)
