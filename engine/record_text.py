"""Records a person can read at the table, in Chinese or English, and the CSV score sheet."""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from engine.cards import JOKER_NAMES, Card
from engine.combination import type_name
from engine.events import (
    Announce,
    Bid,
    Concede,
    Correction,
    Deal,
    Double,
    End,
    Escape,
    Event,
    Kitty,
    KittyPick,
    Landlord,
    Marker,
    OpenHand,
    Pass,
    Penalty,
    Play,
    Reveal,
    Shown,
    retimed,
)
from engine.scoring import Settlement, settle
from engine.showdown import deck_audit, starting_hands

if TYPE_CHECKING:
    from engine.hand import Hand
    from engine.match import Match
    from engine.record import RecordedHand

_WORDS = {
    "zh": {
        "title": "斗地主对局记录", "rules": "规则", "players": "玩家", "seat": "{}号位", "bids": "叫分", "bids_call": "叫地主",
        "pass_bid": "不叫", "bid": "{}分", "call": "叫地主", "grab": "抢地主", "landlord": "地主",
        "base": "底分", "kitty": "底牌", "plays": "出牌", "pass": "不出", "result": "结果",
        "landlord_won": "地主胜", "farmers_won": "农民胜", "escape": "有人逃跑", "redeal": "无人叫牌，重新发牌",
        "abandoned": "本局作废", "unfinished": "未打完", "redeal_penalty": "连续三次重新发牌（罚分）",
        "multiplier": "倍数", "points": "得分", "total": "合计", "hand": "第{}局", "open_hand": "明牌",
        "spring": "春天", "anti_spring": "反春", "grab_cause": "抢地主", "concede": "认输", "escaped": "逃跑",
        "penalty": "罚分", "correction": "更正", "announce": "报牌", "end": "结束", "winner": "胜者",
        "status": "状态", "playing": "进行中", "time": "时间到", "target": "达到目标分", "bust": "筹码输光",
        "tie_break": "同分加赛", "round": "本轮结束", "rounds_won": "赢得多数轮次", "dissolved": "解散",
        "chips": "筹码", "disqualified": "取消资格", "deal": "发牌",
        "nth": "第 {} 手", "step": "一步", "pre_bid": "叫分", "pre_kitty": "底牌", "pre_landlord": "地主",
        "pre_deal": "发牌", "replace_play": "更正：{}出牌改为 {}", "replace": "更正：{}改为 {}",
        "insert": "补录：{} {}", "delete": "删除：{}（{}）", "undo": "撤销上一步（{}）", "undo_bare": "撤销上一步",
        "shown": "亮牌", "starting": "起手牌", "audit": "查牌", "audit_ok": "整副牌无误",
        "audit_missing": "缺 {}", "audit_extra": "多出 {}",
        "marker": "明牌", "open_landlord": "明地主", "hidden_landlord": "暗地主", "reveal": "亮出身份",
        "reveal_by": "{} 亮出身份", "double": "加倍", "doubled": "加倍", "kitty_pick": "帝主取底牌",
        "took_none": "一张不要", "emperor": "帝主", "hidden_unknown": "暗地主未明，暂不结算",
        "hidden_choice": "亮出身份", "hidden_play": "打出另一张明牌", "hidden_end": "终局亮牌",
        "alone": "两张明牌同在一手，明地主独自一方", "not_shown": "尚未亮明",
    },
    "en": {
        "title": "Dou Dizhu hand record", "rules": "Rules", "players": "Players", "seat": "seat {}",
        "bids": "Bids", "bids_call": "Calls", "pass_bid": "pass", "bid": "{}", "call": "call", "grab": "grab", "landlord": "Landlord",
        "base": "base", "kitty": "Kitty", "plays": "Play", "pass": "pass", "result": "Result",
        "landlord_won": "landlord wins", "farmers_won": "farmers win", "escape": "a player escaped",
        "redeal": "nobody bid: redeal", "abandoned": "hand abandoned", "unfinished": "not finished",
        "redeal_penalty": "third redeal in a row (penalty)", "multiplier": "Multiplier", "points": "Points",
        "total": "Total", "hand": "Hand {}", "open_hand": "open hand", "spring": "spring",
        "anti_spring": "anti-spring", "grab_cause": "grab", "concede": "concedes", "escaped": "escapes",
        "penalty": "penalty", "correction": "correction", "announce": "announces", "end": "end",
        "winner": "Winner", "status": "Status", "playing": "playing", "time": "time is up",
        "target": "target reached", "bust": "a player ran out of chips", "tie_break": "tie: play another hand",
        "round": "round won", "rounds_won": "most rounds won", "dissolved": "game dissolved", "chips": "chips",
        "disqualified": "disqualified", "deal": "deal",
        "nth": "play {}", "step": "a step", "pre_bid": "the bid", "pre_kitty": "the kitty",
        "pre_landlord": "the landlord", "pre_deal": "the deal", "replace_play": "correction: {} changed to {}",
        "replace": "correction: {} changed to {}", "insert": "added as {}: {}", "delete": "deleted {} ({})",
        "undo": "undid the last step ({})", "undo_bare": "undid the last step",
        "shown": "shows", "starting": "starting hand", "audit": "Deck audit", "audit_ok": "every card accounted for",
        "audit_missing": "missing {}", "audit_extra": "seen too often {}",
        "marker": "Marker card", "open_landlord": "Open landlord", "hidden_landlord": "Hidden landlord",
        "reveal": "reveals", "reveal_by": "{} asks to reveal", "double": "doubles", "doubled": "Doubled",
        "kitty_pick": "Di Zhu takes from the kitty", "took_none": "none", "emperor": "Di Zhu",
        "hidden_unknown": "hidden landlord not known: not settled yet", "hidden_choice": "revealed by choice",
        "hidden_play": "shown by playing the twin", "hidden_end": "shown at the end",
        "alone": "both marker cards in one hand: the open landlord plays alone", "not_shown": "not shown yet",
    },
}


#: English names of the jokers; Chinese uses :data:`engine.cards.JOKER_NAMES` (小王, 大王).
_EN_JOKERS = {"BJ": "small joker", "RJ": "big joker"}

#: Times at or past this (2001-09-09) are Unix times, printed as the local clock; smaller ones
#: are seconds counted from the start of a film or of the hand, printed as minutes and seconds.
WALL_CLOCK_FROM = 1e9

#: Events before the first play: the record lists them in their own lines, not in the numbered plays.
_PREAMBLE = (Deal, Bid, Kitty, Landlord, Marker, Reveal, Double, KittyPick)


def card_text(card: Card, lang: str = "zh") -> str:
    """A card as a reader writes it: ``3♠``, ``10♥``; jokers ``小王``/``大王`` or ``small joker``/``big joker``."""
    if card.is_joker:
        return (JOKER_NAMES if lang == "zh" else _EN_JOKERS)[card.rank_text]
    return card.rank_text + card.suit_symbol


def cards_text(cards: Iterable[Card], lang: str = "zh") -> str:
    return " ".join(card_text(c, lang) for c in cards)


def _w(lang: str) -> dict[str, str]:
    if lang not in _WORDS:
        raise ValueError(f"language must be 'zh' or 'en', not {lang!r}")
    return _WORDS[lang]


def _clock(t: float | None, start: float | None = None) -> str:
    """``[HH:MM:SS] `` on the local clock for a Unix time (what the site and a live camera store);
    ``[mm:ss] `` into the hand for seconds counted from a film's start (less the deal's time when
    the deal carries one); nothing when the event has no time."""
    if t is None:
        return ""
    if t >= WALL_CLOCK_FROM:
        return time.strftime("[%H:%M:%S] ", time.localtime(t))
    if start is not None and start < WALL_CLOCK_FROM and start <= t:
        t -= start
    minutes, seconds = divmod(int(t), 60)
    hours, minutes = divmod(minutes, 60)
    return f"[{hours}:{minutes:02d}:{seconds:02d}] " if hours else f"[{minutes:02d}:{seconds:02d}] "


def _cause(cause: str, factor: int, w: dict[str, str], lang: str) -> str:
    name = {"grab": w["grab_cause"], "open_hand": w["open_hand"], "spring": w["spring"],
            "anti_spring": w["anti_spring"], "reveal": w["hidden_choice"], "double": w["doubled"]}.get(cause) \
        or type_name(cause, lang)
    return f"{name} x{factor}"


def _signed(points: tuple[int, ...] | list[int], names: tuple[str, ...]) -> str:
    return ", ".join(f"{n} {p:+d}" for n, p in zip(names, points, strict=True))


def _event_line(event: Event, names: tuple[str, ...], w: dict[str, str], lang: str, reading: str,
                start: float | None = None) -> str:
    who = names[event.seat] if hasattr(event, "seat") and event.seat < len(names) else ""
    t = _clock(getattr(event, "time", None), start)
    if isinstance(event, Play):
        return f"{t}{who}: {cards_text(event.cards, lang)}  {reading}".rstrip()
    if isinstance(event, Pass):
        return f"{t}{who}: {w['pass']}"
    if isinstance(event, Concede | Escape | OpenHand | Announce):
        word = {Concede: "concede", Escape: "escaped", OpenHand: "open_hand", Announce: "announce"}[type(event)]
        return f"{t}{who}: {w[word]}"
    if isinstance(event, Penalty):
        return f"{t}{who}: {w['penalty']} -{event.points} {event.reason}".rstrip()
    if isinstance(event, End):
        return f"{t}{w['end']} {event.reason}".rstrip()
    if isinstance(event, Bid):
        said = w["bid"].format(event.value) if event.action == "bid" else w["pass_bid"] if event.action == "pass" \
            else w[event.action]
        return f"{t}{w['bids']}: {who} {said}"
    if isinstance(event, Landlord):
        return f"{t}{w['landlord']}: {who} ({w['base']} {event.base})"
    if isinstance(event, Kitty):
        return f"{t}{w['kitty']}: {cards_text(event.cards, lang)}"
    if isinstance(event, Shown):
        return f"{t}{who}: {w['shown']} {cards_text(event.cards, lang)}"
    if isinstance(event, Deal):
        return f"{t}{w['deal']}"
    if isinstance(event, Marker):
        return f"{t}{w['marker']}: {card_text(event.card, lang)} → {who}"
    if isinstance(event, Reveal):
        by = names[event.by] if event.by is not None and event.by != event.seat and event.by < len(names) else ""
        said = w["reveal_by"].format(by) + f": {who}" if by else f"{who}: {w['reveal']}"
        return f"{t}{w['hidden_landlord']} {said}"
    if isinstance(event, Double):
        return f"{t}{who}: {w['double']}"
    if isinstance(event, KittyPick):
        return f"{t}{w['kitty_pick']}: {cards_text(event.cards, lang) or w['took_none']}"
    return f"{t}{event.kind}"


def _number(events: list[Event], index: int) -> int | None:
    """The number the record gives ``events[index]`` among the plays, or ``None`` for a bid,
    the kitty, the landlord or the deal (they are not numbered)."""
    if isinstance(events[index], _PREAMBLE):
        return None
    return sum(1 for e in events[:index + 1] if not isinstance(e, _PREAMBLE))


def play_number(events: list[Event], index: int) -> int | None:
    """The number (第 N 手) the text record gives ``events[index]``; ``None`` before the play."""
    return _number(events, index)


def _correction_lines(log: Iterable[Event], names: tuple[str, ...], w: dict[str, str], lang: str,
                      start: float | None) -> list[str]:
    """Each correction in the hand's log, in words, naming the play by its number in the record.

    The log is replayed: a correction's ``target`` indexes the events in effect when it was made."""
    events: list[Event] = []
    lines: list[str] = []
    for e in log:
        if not isinstance(e, Correction):
            events.append(e)
            continue
        lines.append(_clock(e.time, start) + _correction_text(e, events, names, w, lang))
        if e.action == "undo":
            if events:
                events.pop()
        elif e.action == "replace" and e.target < len(events) and e.event is not None:
            events[e.target] = e.event
        elif e.action == "insert" and e.target <= len(events) and e.event is not None:
            events.insert(e.target, e.event)
        elif e.action == "delete" and e.target < len(events):
            del events[e.target]
    return lines


def _correction_text(fix: Correction, events: list[Event], names: tuple[str, ...], w: dict[str, str],
                     lang: str) -> str:
    def said(event: Event | None) -> str:
        # The correction's own time leads the line; the event it names is shown without one.
        return "" if event is None else _event_line(retimed(event, None), names, w, lang, "")

    def which(number: int | None, event: Event | None) -> str:
        if number is not None:
            return w["nth"].format(number)
        return w["step"] if event is None else w.get("pre_" + event.kind, w["step"])

    if fix.action == "undo":
        text = w["undo"].format(said(events[-1])) if events else w["undo_bare"]
    elif fix.action == "insert":
        before = sum(1 for e in events[:fix.target] if not isinstance(e, _PREAMBLE))
        number = None if isinstance(fix.event, _PREAMBLE) else before + 1
        text = w["insert"].format(which(number, fix.event), said(fix.event))
    elif fix.target >= len(events):  # not a correction the hand accepted; print what it asked
        text = w[fix.action].format(f"#{fix.target}", said(fix.event))
    elif fix.action == "replace":
        old = events[fix.target]
        place = which(_number(events, fix.target), old)
        if isinstance(old, Play) and isinstance(fix.event, Play) and old.seat == fix.event.seat:
            # The same player's cards read better alone: 更正：第 5 手出牌改为 3♠ 3♥
            text = w["replace_play"].format(place, cards_text(fix.event.cards, lang))
        else:
            text = w["replace"].format(place, said(fix.event))
    else:
        old = events[fix.target]
        text = w["delete"].format(which(_number(events, fix.target), old), said(old))
    reason = f" · {fix.reason}" if fix.reason else ""
    return text + reason


def render_hand(record: RecordedHand, lang: str = "zh", settlement: Settlement | None = None) -> str:
    """The hand as lines a person reads: bids, landlord, kitty, every play, result, points."""
    w = _w(lang)
    names = record.players
    hand = record.hand()
    rules = record.rules
    lines = [f"{w['title']} · {w['rules']}: {rules.name}"]
    lines.append(f"{w['players']}: " + ", ".join(f"{w['seat'].format(i)} {n}" for i, n in enumerate(names, 1)))
    bids = []
    for e in hand.events:
        if isinstance(e, Bid):
            said = w["bid"].format(e.value) if e.action == "bid" else w["pass_bid"] if e.action == "pass" else w[e.action]
            bids.append(f"{names[e.seat]} {said}")
    if bids:
        heading = w["bids"] if rules is None or rules.bidding == "score" else w["bids_call"]
        lines.append(f"{heading}: " + ", ".join(bids))
    lines += _landlord_lines(hand, names, w, lang)
    readings = {p.index: p for p in hand.plays}
    start = hand.events[0].time if hand.events and isinstance(hand.events[0], Deal) else None
    number = 0
    lines.append(f"{w['plays']}:")
    for i, e in enumerate(hand.events):
        if isinstance(e, _PREAMBLE):
            continue
        reading = ""
        if i in readings:
            r = readings[i].reading
            reading = type_name(r.type, lang)
        number += 1
        lines.append(f"  {number:>2}. " + _event_line(e, names, w, lang, reading, start))
    for line in _correction_lines(hand.log, names, w, lang, start):
        lines.append("  * " + line)
    s = settlement or settle(hand)
    lines.append(f"{w['result']}: {w.get(s.outcome, s.outcome)}")
    if s.causes:
        lines.append(f"{w['multiplier']}: {s.multiplier} = " + ", ".join(_cause(c, f, w, lang) for c, f in s.causes))
    else:
        lines.append(f"{w['multiplier']}: {s.multiplier}")
    unit = f" ({w['chips']})" if s.unit == "chips" else ""
    lines.append(f"{w['points']}{unit}: {_signed(s.points, names)}")
    lines += showdown_lines(hand, names, w, lang)
    return "\n".join(lines) + "\n"


def _landlord_lines(hand: Hand, names: tuple[str, ...], w: dict[str, str], lang: str) -> list[str]:
    """The landlord (five-player: the marker card, the open and the hidden landlord; 斗帝主: the
    帝主 and his pick of the kitty), the kitty, and who doubled."""
    rules = hand.rules
    lines = []
    if hand.marker is not None:
        lines.append(f"{w['marker']}: {card_text(hand.marker, lang)}")
    if hand.landlord is not None:
        title = w["open_landlord"] if rules.hidden_landlord else w["emperor"] if rules.kitty_choice else w["landlord"]
        lines.append(f"{title}: {names[hand.landlord]} ({w['base']} {hand.base})")
        if rules.hidden_landlord:
            if hand.hidden is None:
                lines.append(f"{w['hidden_landlord']}: {w['not_shown']}")
            elif hand.hidden == hand.landlord:
                lines.append(f"{w['hidden_landlord']}: {w['alone']} ({w['hidden_' + hand.hidden_shown]})")
            else:
                lines.append(f"{w['hidden_landlord']}: {names[hand.hidden]} ({w['hidden_' + hand.hidden_shown]})")
    if hand.kitty is not None:
        lines.append(f"{w['kitty']}: {cards_text(hand.kitty, lang)}")
    if hand.picked is not None:
        lines.append(f"{w['kitty_pick']}: {cards_text(hand.picked, lang) or w['took_none']}")
    if hand.doubled:
        lines.append(f"{w['doubled']}: " + ", ".join(names[s] for s in hand.doubled))
    return lines


def showdown_lines(hand: Hand, names: tuple[str, ...], w: dict[str, str], lang: str) -> list[str]:
    """Once every seat left holding cards has shown them: a starting-hand line per seat (the
    landlord's as dealt, before the kitty) and the deck audit; nothing before."""
    hands, audit = starting_hands(hand), deck_audit(hand)
    if hands is None or audit is None:
        return []
    lines = [f"{w['starting']} {names[seat]}: {cards_text(cards, lang)}" for seat, cards in enumerate(hands)]
    found = ([w["audit_missing"].format(cards_text(audit.missing, lang))] if audit.missing else []) + \
        ([w["audit_extra"].format(cards_text(audit.extra, lang))] if audit.extra else [])
    lines.append(f"{w['audit']}: " + ("; ".join(found) if found else w["audit_ok"]))
    return lines


def render_match(match: Match, lang: str = "zh", now: float | None = None) -> str:
    """Hand by hand points, the totals and the match verdict."""
    w = _w(lang)
    names = match.players
    rows = match.settlements()
    lines = [f"{match.name or w['title']} · {w['rules']}: {match.rules.name}"]
    lines.append(f"{w['players']}: " + ", ".join(f"{w['seat'].format(i)} {n}" for i, n in enumerate(names, 1)))
    for i, row in enumerate(rows, 1):
        lines.append(f"{w['hand'].format(i)}: {w.get(row.outcome, row.outcome)}; x{row.multiplier}; "
                     + _signed(row.points, names))
    for p in match.penalties:
        extra = f" ({w['disqualified']})" if p.disqualify else ""
        lines.append(f"{w['penalty']}: {names[p.seat]} -{p.points} {p.reason}{extra}".rstrip())
    lines.append(f"{w['total']}: " + ", ".join(f"{n} {t}" for n, t in zip(names, match.totals(), strict=True)))
    status = match.status(now)
    verdict = w.get(status.reason, status.reason)
    if status.over and status.winners:
        verdict += f"; {w['winner']}: " + ", ".join(names[s] for s in status.winners)
    lines.append(f"{w['status']}: {verdict}")
    return "\n".join(lines) + "\n"


#: What makes a spreadsheet read a text cell as a formula (OWASP's CSV-injection list).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """A cell a spreadsheet shows as written: text that would start a formula gets a leading
    single quote (``=HYPERLINK(...)`` becomes ``'=HYPERLINK(...)``); numbers stay numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


#: The score sheet's words: column heads, row labels and each hand's outcome.
_SHEET = {
    "zh": {"hand": "局", "outcome": "结果", "landlord": "地主", "base": "底分", "multiplier": "倍数",
           "penalty": "罚分", "total": "合计", "landlord_won": "地主胜", "farmers_won": "农民胜",
           "abandoned": "作废", "redeal": "重新发牌", "escape": "逃跑", "unfinished": "未打完",
           "hidden_unknown": "暗地主未明"},
    "en": {"hand": "hand", "outcome": "result", "landlord": "landlord", "base": "base", "multiplier": "multiplier",
           "penalty": "penalty", "total": "total", "landlord_won": "landlord won", "farmers_won": "farmers won",
           "abandoned": "abandoned", "redeal": "redeal", "escape": "escape", "unfinished": "unfinished",
           "hidden_unknown": "hidden landlord unknown"},
}


def csv_sheet(match: Match, lang: str = "en") -> str:
    """One row per hand, a column per player, then a totals row (penalties in their own rows),
    with heads, labels and outcomes in ``lang`` (English by default: the sheet other programs read
    since the first release; people's downloads ask for their language).

    Player names and penalty reasons are typed by people, so every text cell goes through
    :func:`csv_cell`."""
    _w(lang)
    words = _SHEET[lang]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")

    def row_of(*cells: object) -> None:
        writer.writerow([csv_cell(c) for c in cells])

    row_of(words["hand"], words["outcome"], words["landlord"], words["base"], words["multiplier"], *match.players)
    for i, row in enumerate(match.settlements(), 1):
        landlord = "" if row.landlord is None else match.players[row.landlord]
        row_of(i, words.get(row.outcome, row.outcome), landlord, row.base, row.multiplier, *row.points)
    for p in match.penalties:
        cells = [-p.points if s == p.seat else 0 for s in range(len(match.players))]
        row_of(words["penalty"], p.reason, "", "", "", *cells)
    row_of(words["total"], "", "", "", "", *match.totals())
    return out.getvalue()
