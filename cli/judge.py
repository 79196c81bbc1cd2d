"""Engine commands: ``judge`` (settle a dispute about a play) and ``score`` (settle a record).

``judge --json`` and ``judge --batch -`` print exactly the contract other checks rely on:
one JSON object per query with ``valid``, ``readings`` (each ``type``, ``main``, ``length``,
``core``, ``kickers``) and, when ``--after`` / ``"after"`` is given, ``beats``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import IO, Any

from engine.judge import JudgeError, judge
from engine.rules import PRESETS, RuleSet, get_rules
from engine.words import LANGS, both, type_name
from tracker.alerts import judge_text


def register(subparsers: argparse._SubParsersAction) -> None:
    judge = subparsers.add_parser(
        "judge",
        help="every reading of some cards, and whether they beat a previous play / 裁定牌型",
        description="Read CARDS as every combination they form and say whether they beat --after.",
    )
    judge.add_argument("cards", nargs="?", help="cards, e.g. '333 4' or '10h 10s' (quote them)")
    judge.add_argument("--after", help="the play on the table that CARDS must beat")
    judge.add_argument("--rules", default="classic", help=f"rules preset: {', '.join(PRESETS)}")
    judge.add_argument("--json", action="store_true", help="print JSON")
    judge.add_argument("--batch", metavar="FILE", help="JSON lines {'cards', 'after'} from FILE ('-' = stdin)")
    judge.set_defaults(func=run_judge)

    score = subparsers.add_parser(
        "score", help="settle a recorded hand or match and print the score sheet / 结算记录",
    )
    score.add_argument("record", help="hand or match record (JSON)")
    score.add_argument("--lang", choices=LANGS, help="txt: default zh; csv: default en (the columns other programs read)")
    score.add_argument("--format", choices=("txt", "csv", "json"), default="txt")
    score.set_defaults(func=run_score)


def _describe(verdict: dict[str, Any]) -> str:
    lines = [f"{verdict['cards']}:"]
    readings = verdict["readings"]
    if verdict.get("reason") == "duplicate_card":
        fields = {"cards": " ".join(verdict["duplicates"]), "decks": verdict.get("decks", 1)}
        lines.append(f"  {judge_text('duplicate_card', 'zh', **fields)}")
        lines.append(f"  {judge_text('duplicate_card', 'en', **fields)}")
    elif not readings:
        lines.append(f"  {both('not_combo')}")
    for r in readings:
        zh = type_name(r["type"], "zh")
        kick = f" + {r['kickers']}" if r["kickers"] else ""
        mark = ""
        if "beats" in r:
            mark = f"  ✓ {both('beats')}" if r["beats"] else f"  ✗ {both('not_beats')}"
        lines.append(f"  {zh} {r['type']}  main {r['main']}  length {r['length']}:  {r['core']}{kick}{mark}")
    if "beats" in verdict:
        lines.append(f"  → {both('beats' if verdict['beats'] else 'not_beats')} {verdict['after']}")
    return "\n".join(lines)


#: A batch line longer than this is refused unread (a play is at most a few dozen cards).
MAX_LINE_CHARS = 10_000


class BadLine(ValueError):
    """A batch line that is no query: its reason in Chinese and in English."""

    def __init__(self, zh: str, en: str) -> None:
        super().__init__(en)
        self.zh = zh
        self.en = en


def _judge_line(line: str, default_rules: RuleSet) -> dict[str, object]:
    """The verdict for one batch line; raises :class:`BadLine` for a line that is no query."""
    if len(line) > MAX_LINE_CHARS:
        raise BadLine(f"超过 {MAX_LINE_CHARS} 个字符", f"longer than {MAX_LINE_CHARS} characters")
    try:
        query = json.loads(line)
    except RecursionError:  # brackets nested past Python's recursion limit
        raise BadLine("JSON 嵌套太深", "JSON nested too deeply") from None
    except ValueError as exc:  # json.JSONDecodeError
        raise BadLine("不是 JSON", f"not JSON: {exc}") from None
    if not isinstance(query, dict) or not isinstance(query.get("cards"), str):
        raise BadLine('每行须是一个带 "cards" 字符串的 JSON 对象', 'each line must be a JSON object with a "cards" string')
    after = query.get("after")
    if after is not None and not isinstance(after, str):
        raise BadLine('"after" 须是字符串', '"after" must be a string')
    try:
        rules = get_rules(query["rules"]) if "rules" in query else default_rules
    except (ValueError, TypeError) as exc:
        raise BadLine(f"没有这种规则 {query['rules']!r}", str(exc)) from None
    try:
        return judge(query["cards"], after, rules)
    except ValueError as exc:
        reason = exc.reason if isinstance(exc, JudgeError) else "unreadable"
        raise BadLine(judge_text(reason, "zh", decks=rules.decks), str(exc)) from None


def _judge_batch(stream: Iterable[str | bytes], out: IO[str], default_rules: RuleSet) -> int:
    """One JSON answer per non-blank line, in order: a bad line gets an ``error`` answer, its
    reason in Chinese then English (第 3 行：… / line 3: …), and the batch goes on (exit status 1
    at the end if any line was bad)."""
    bad = 0
    for number, raw in enumerate(stream, 1):
        try:
            line = raw.decode("utf-8") if isinstance(raw, bytes) else raw
            if not line.strip():
                continue
            result = _judge_line(line, default_rules)
        except UnicodeDecodeError:
            bad += 1
            result = {"valid": False, "readings": [], "error": f"第 {number} 行：不是 UTF-8 文本 / line {number}: not UTF-8 text"}
        except BadLine as exc:
            bad += 1
            result = {"valid": False, "readings": [], "error": f"第 {number} 行：{exc.zh} / line {number}: {exc.en}"}
        out.write(json.dumps(result, ensure_ascii=False) + "\n")
        out.flush()
    return 1 if bad else 0


def refusal_text(exc: ValueError, rules: RuleSet) -> str:
    """Why the judge gave no verdict, Chinese then English: a :class:`JudgeError`'s reason in
    both languages, else unreadable cards (the English names the first card it could not read)."""
    reason = exc.reason if isinstance(exc, JudgeError) else "unreadable"
    return f"{judge_text(reason, 'zh', decks=rules.decks)} / {exc}"


def run_judge(args: argparse.Namespace) -> int:
    try:
        rules = get_rules(args.rules)
    except ValueError as exc:
        print(f"error: 没有这种规则 / {exc}", file=sys.stderr)
        return 2
    if args.batch:
        if args.batch == "-":
            # Bytes, so that a line that is not UTF-8 is one bad line, not the end of the batch.
            return _judge_batch(getattr(sys.stdin, "buffer", sys.stdin), sys.stdout, rules)
        try:
            with open(args.batch, "rb") as stream:
                return _judge_batch(stream, sys.stdout, rules)
        except OSError as exc:
            print(f"error: 读不了文件 {args.batch} / cannot read {args.batch}: {exc.strerror}", file=sys.stderr)
            return 2
    if args.cards is None:
        print(f"error: {judge_text('no_cards', 'zh')} / give CARDS or --batch FILE", file=sys.stderr)
        return 2
    if not args.cards.strip():
        print(f"error: {judge_text('no_cards', 'zh')} / {judge_text('no_cards', 'en')}", file=sys.stderr)
        return 2
    try:
        verdict = judge(args.cards, args.after, rules)
    except ValueError as exc:
        message = refusal_text(exc, rules)
        if args.json:
            print(json.dumps({"valid": False, "readings": [], "error": message}, ensure_ascii=False))
        else:
            print(f"error: {message}", file=sys.stderr)
        return 2
    print(json.dumps(verdict, ensure_ascii=False) if args.json else _describe(verdict))
    return 0


def run_score(args: argparse.Namespace) -> int:
    from engine import record as records

    try:
        with open(args.record, encoding="utf-8") as fh:
            text = fh.read()
        sheet = records.score_sheet(text, fmt=args.format, lang=args.lang)
    except OSError as exc:
        print(f"error: 读不了文件 {args.record} / cannot read {args.record}: {exc.strerror}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"error: {args.record} 不是能结算的记录 / {args.record}: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(sheet if sheet.endswith("\n") else sheet + "\n")
    return 0

