"""``ddz-table analyse RECORD.json``: where a recorded hand was won and lost (复盘).

Solves every position of the hand with all cards visible (engine.analysis) and prints the
verdict from the deal, the decisive mistakes with a move that kept the win, and whether each
seat would have won as landlord. ``--json`` prints one JSON object (for a match record, one
per hand in ``hands``). A match record is analysed hand by hand; a hand that cannot be
analysed (no starting hands, a redeal) says why and the others still are.
"""

from __future__ import annotations

import argparse
import json
import sys

from engine.analysis import DEFAULT_SECONDS
from engine.words import GAME, LANGS, capital

#: Exit status for a record that cannot be read or analysed at all.
BAD_INPUT = 2


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "analyse", aliases=["analyze"],
        help="solve a recorded hand with every card visible: decisive mistakes, bid check / 复盘",
        description="Solve every position of a hand record (the starting hands must be known: dealt in "
                    "the record, or every seat's cards shown after the hand, 亮牌) and name the plays that "
                    "turned a won position into a lost one.",
    )
    p.add_argument("record", help="hand or match record (JSON, as `ddz-table export --format json` writes)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--seconds", type=float, default=DEFAULT_SECONDS,
                   help=f"time for the plays of one hand (default {DEFAULT_SECONDS:g}); positions not solved "
                        "in time are left unknown")
    p.add_argument("--bid-seconds", type=float, default=None,
                   help="time for each seat-as-landlord check (default: a third of --seconds)")
    p.add_argument("--lang", choices=(*LANGS, "both"), default="both", help="language of the text")
    p.set_defaults(func=run_analyse)


def _hand_result(record, args: argparse.Namespace) -> dict:
    from engine.analysis import analyse, not_analysed
    from engine.solver import UnsupportedRules

    try:
        return {"ok": True, "analysis": analyse(record, args.seconds, args.bid_seconds)}
    except UnsupportedRules as exc:  # a preset open-hand analysis does not apply to, and why
        return {"ok": False, "error": f"{not_analysed(exc, 'zh')} / {not_analysed(exc, 'en')}"}
    except ValueError as exc:  # no starting hands, no landlord, rules the solver does not play
        return {"ok": False, "error": str(exc)}


def run_analyse(args: argparse.Namespace) -> int:
    from engine.match import Match
    from engine.record import RecordedHand, load

    if args.seconds <= 0 or (args.bid_seconds is not None and args.bid_seconds <= 0):
        print("error: --seconds and --bid-seconds must be positive", file=sys.stderr)
        return BAD_INPUT
    try:
        with open(args.record, encoding="utf-8") as fh:
            text = fh.read()
        record = load(text)
    except OSError as exc:
        print(f"error: cannot read {args.record}: {exc.strerror}", file=sys.stderr)
        return BAD_INPUT
    except ValueError as exc:
        print(f"error: {args.record}: {exc}", file=sys.stderr)
        return BAD_INPUT
    if isinstance(record, Match):
        hands = [RecordedHand(record.rules, record.players, h.events, h.started, h.note) for h in record.hands]
    else:
        hands = [record]
    results = [_hand_result(h, args) for h in hands]
    if args.json:
        items = [r["analysis"].to_dict() if r["ok"] else {"error": r["error"]} for r in results]
        out = {"hands": items} if isinstance(record, Match) else items[0]
        print(json.dumps(out, ensure_ascii=False))
    else:
        langs = LANGS if args.lang == "both" else (args.lang,)
        for i, r in enumerate(results, 1):
            if isinstance(record, Match):
                print(f"{GAME('hand_no', 'zh', n=i)} / {capital(GAME('hand_no', 'en', n=i))}")
            if not r["ok"]:
                if isinstance(record, Match):
                    print(f"  无法分析 / cannot analyse: {r['error']}")
                continue
            a = r["analysis"]
            for lang in langs:
                for line in a.lines(lang):
                    print(("  " if isinstance(record, Match) else "") + line)
            print(f"({a.seconds:.1f} s, {a.nodes} nodes)")
    if not isinstance(record, Match) and not results[0]["ok"]:
        if not args.json:
            print(f"error: {args.record}: {results[0]['error']}", file=sys.stderr)
        return BAD_INPUT
    return 0
