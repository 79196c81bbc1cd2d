"""``ddz-table tokens``: print the bid tokens (叫分牌) the camera reads bids from.

    ddz-table tokens --out tokens.pdf [--rules classic] [--players 3] [--dpi 300] [--font FILE]

One set of the preset's tokens per seat (``tracker.tokens.tokens_for``), 60 x 90 mm cards,
nine to an A4 page; ``.pdf`` writes one file of all pages, ``.png`` one file a page.
"""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    tokens = subparsers.add_parser("tokens", help="print the bid tokens the camera reads / 打印叫分牌")
    tokens.add_argument("--out", default="tokens.pdf", help="tokens.pdf (A4 pages) or tokens.png (a file a page)")
    tokens.add_argument("--rules", default="classic", help="rules preset: which tokens (default classic)")
    tokens.add_argument("--double", action="store_true",
                        help="add 加倍 / 不加倍 for a table that plays doubling (five players always do)")
    tokens.add_argument("--players", type=int, help="sets to print, one per seat (default: the preset's players)")
    tokens.add_argument("--dpi", type=int, default=300, help="print resolution (default 300)")
    tokens.add_argument("--font", help="a font file that draws Chinese (default: one installed here)")
    tokens.set_defaults(func=run_tokens)


def run_tokens(args: argparse.Namespace) -> int:
    from engine.rules import get_rules
    from tracker.tokens import render_sheets, save_sheets, sheet_format, tokens_for

    try:
        rules = get_rules(args.rules)
        if args.double:
            rules = rules.replace(player_double=True)
        players = rules.players if args.players is None else args.players
        sheet_format(args.out)  # a bad file name is said before the drawing
        tokens = tokens_for(rules)
        pages = render_sheets(tokens, players, args.dpi, chinese=True, font=args.font, title=rules.name)
        written = save_sheets(pages, args.out, args.dpi)
    except ValueError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"cannot write {args.out}: {exc.strerror or exc}")
    names = " ".join(t.zh for t in tokens)
    files = ", ".join(str(p) for p in written)
    print(f"{files}: {len(pages)} A4 page(s), {players} set(s) of {len(tokens)} tokens ({names}). "
          "Print at 100% (no 'fit to page'), cut along the grey lines.")
    return 0


def _fail(message: str) -> int:
    print(f"ddz-table: {message}", file=sys.stderr)
    return 2
