"""Records a person can read at the table, in Chinese or English, and the CSV score sheet."""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from engine.cards import Card
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
from engine.words import (
    GAME,
    LANGS,
    Words,
    capital,
    card_name,
    cause_name,
    outcome_name,
    preset_name,
    status_name,
    type_name,
)

if TYPE_CHECKING:
    from engine.hand import Hand
    from engine.match import Match
    from engine.record import RecordedHand

#: The record's own words (its title, corrections, the deck audit); every game word (a card, a
#: play's type, an event, an outcome, a status) comes from :data:`engine.words.GAME` under it.
RECORD = Words({
    "title": "斗地主对局记录", "seat_no": "{n}号位", "hand_line": "第{n}局",
    "nth": "第 {n} 手", "step": "一步", "replace_play": "更正：{place}出牌改为 {cards}", "replace": "更正：{place}改为 {event}",
    "insert": "补录：{place} {event}", "delete": "删除：{place}（{event}）", "undo_of": "撤销上一步（{event}）",
    "starting": "起手牌", "audit": "查牌", "audit_ok": "整副牌无误", "audit_missing": "缺 {cards}", "audit_extra": "多出 {cards}",
    "reveal_by": "{who} 亮出身份",
    "alone": "两张标记牌同在一手，明地主独自一方", "not_shown": "尚未亮明",
}, {
    "title": "Dou Dizhu hand record", "seat_no": "seat {n}", "hand_line": "Hand {n}",
    "nth": "play {n}", "step": "a step", "replace_play": "correction: {place} changed to {cards}",
    "replace": "correction: {place} changed to {event}", "insert": "added as {place}: {event}",
    "delete": "deleted {place} ({event})", "undo_of": "undid the last step ({event})",
    "starting": "starting hand", "audit": "Deck audit", "audit_ok": "every card accounted for",
    "audit_missing": "missing {cards}", "audit_extra": "seen too often {cards}",
    "reveal_by": "{who} asks to reveal",
    "alone": "both marker cards in one hand: the open landlord plays alone", "not_shown": "not shown yet",
}, under=GAME)


class _Say:
    """The record's words in one language: ``say("kitty")``; ``say.head("kitty")`` starts a line."""

    def __init__(self, lang: str) -> None:
        if lang not in LANGS:
            raise ValueError(f"language must be 'zh' or 'en', not {lang!r}")
        self.lang = lang

    def __call__(self, key: str, **fmt: object) -> str:
        return RECORD(key, self.lang, **fmt)

    def head(self, key: str, **fmt: object) -> str:
        return capital(self(key, **fmt))

    def before_play(self, kind: str) -> str:
        """A step before the first play, named on its own: 叫分 / the bid (a step of another kind: 一步 / a step)."""
        key = {"bid": "bid", "kitty": "kitty", "landlord": "landlord", "deal": "deal"}.get(kind)
        if key is None:
            return self("step")
        return self(key) if self.lang == "zh" else "the " + self(key)


#: Times at or past this (2001-09-09) are Unix times, printed as the local clock; smaller ones
#: are seconds counted from the start of a film or of the hand, printed as minutes and seconds.
WALL_CLOCK_FROM = 1e9

#: Events before the first play: the record lists them in their own lines, not in the numbered plays.
_PREAMBLE = (Deal, Bid, Kitty, Landlord, Marker, Reveal, Double, KittyPick)


def card_text(card: Card, lang: str = "zh") -> str:
    """A card as a reader writes it: ``3♠``, ``10♥``; jokers ``小王``/``大王`` or ``small joker``/``big joker``."""
    if card.is_joker:
        return card_name(card.rank_text, lang)
    return card.rank_text + card.suit_symbol


def cards_text(cards: Iterable[Card], lang: str = "zh") -> str:
    return " ".join(card_text(c, lang) for c in cards)


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


def _cause(cause: str, factor: int, w: _Say) -> str:
    name = cause_name(cause, w.lang)
    if cause == "double":  # the record's multiplier line names the doubles as its "Doubled:" line does
        name = capital(name)
    return f"{name} x{factor}"


def _signed(points: tuple[int, ...] | list[int], names: tuple[str, ...]) -> str:
    return ", ".join(f"{n} {p:+d}" for n, p in zip(names, points, strict=True))


def _event_line(event: Event, names: tuple[str, ...], w: _Say, reading: str, start: float | None = None) -> str:
    lang = w.lang
    seat = getattr(event, "seat", None)
    who = names[seat] if isinstance(seat, int) and seat < len(names) else ""
    t = _clock(getattr(event, "time", None), start)
    if isinstance(event, Play):
        return f"{t}{who}: {cards_text(event.cards, lang)}  {reading}".rstrip()
    if isinstance(event, Pass):
        return f"{t}{who}: {w('pass')}"
    if isinstance(event, Concede | Escape | OpenHand | Announce):
        word = {Concede: "concedes", Escape: "escapes", OpenHand: "open_hand", Announce: "announce"}[type(event)]
        return f"{t}{who}: {w(word)}"
    if isinstance(event, Penalty):
        return f"{t}{who}: {w('penalty')} -{event.points} {event.reason}".rstrip()
    if isinstance(event, End):
        return f"{t}{w('end')} {event.reason}".rstrip()
    if isinstance(event, Bid):
        return f"{t}{w.head('bids')}: {who} {_said(event, w)}"
    if isinstance(event, Landlord):
        return f"{t}{w.head('landlord')}: {who} ({w('base')} {event.base})"
    if isinstance(event, Kitty):
        return f"{t}{w.head('kitty')}: {cards_text(event.cards, lang)}"
    if isinstance(event, Shown):
        return f"{t}{who}: {w('shows')} {cards_text(event.cards, lang)}"
    if isinstance(event, Deal):
        return f"{t}{w('deal')}"
    if isinstance(event, Marker):
        return f"{t}{w.head('marker')}: {card_text(event.card, lang)} → {who}"
    if isinstance(event, Reveal):
        by = names[event.by] if event.by is not None and event.by != event.seat and event.by < len(names) else ""
        said = w("reveal_by", who=by) + f": {who}" if by else f"{who}: {w('reveals')}"
        return f"{t}{w.head('hidden_landlord')} {said}"
    if isinstance(event, Double):
        return f"{t}{who}: {w('doubles')}"
    if isinstance(event, KittyPick):
        return f"{t}{w('kitty_pick')}: {cards_text(event.cards, lang) or w('took_none')}"
    return f"{t}{event.kind}"


def _said(bid: Bid, w: _Say) -> str:
    """A bid as the record writes it: 3分 / 3, 不叫 / pass, 叫地主 / call, 抢地主 / grab."""
    if bid.action == "bid":
        return w("bid_value", n=bid.value)
    return w("pass_bid" if bid.action == "pass" else bid.action)


def _number(events: list[Event], index: int) -> int | None:
    """The number the record gives ``events[index]`` among the plays, or ``None`` for a bid,
    the kitty, the landlord or the deal (they are not numbered)."""
    if isinstance(events[index], _PREAMBLE):
        return None
    return sum(1 for e in events[:index + 1] if not isinstance(e, _PREAMBLE))


def play_number(events: list[Event], index: int) -> int | None:
    """The number (第 N 手) the text record gives ``events[index]``; ``None`` before the play."""
    return _number(events, index)


def _correction_lines(log: Iterable[Event], names: tuple[str, ...], w: _Say, start: float | None) -> list[str]:
    """Each correction in the hand's log, in words, naming the play by its number in the record.

    The log is replayed: a correction's ``target`` indexes the events in effect when it was made."""
    events: list[Event] = []
    lines: list[str] = []
    for e in log:
        if not isinstance(e, Correction):
            events.append(e)
            continue
        lines.append(_clock(e.time, start) + _correction_text(e, events, names, w))
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


def _correction_text(fix: Correction, events: list[Event], names: tuple[str, ...], w: _Say) -> str:
    def said(event: Event | None) -> str:
        # The correction's own time leads the line; the event it names is shown without one.
        return "" if event is None else _event_line(retimed(event, None), names, w, "")

    def which(number: int | None, event: Event | None) -> str:
        if number is not None:
            return w("nth", n=number)
        return w("step") if event is None else w.before_play(event.kind)

    if fix.action == "undo":
        text = w("undo_of", event=said(events[-1])) if events else w("undid")
    elif fix.action == "insert":
        before = sum(1 for e in events[:fix.target] if not isinstance(e, _PREAMBLE))
        number = None if isinstance(fix.event, _PREAMBLE) else before + 1
        text = w("insert", place=which(number, fix.event), event=said(fix.event))
    elif fix.target >= len(events):  # not a correction the hand accepted; print what it asked
        text = w(fix.action, place=f"#{fix.target}", event=said(fix.event))
    elif fix.action == "replace":
        old = events[fix.target]
        place = which(_number(events, fix.target), old)
        if isinstance(old, Play) and isinstance(fix.event, Play) and old.seat == fix.event.seat:
            # The same player's cards read better alone: 更正：第 5 手出牌改为 3♠ 3♥
            text = w("replace_play", place=place, cards=cards_text(fix.event.cards, w.lang))
        else:
            text = w("replace", place=place, event=said(fix.event))
    else:
        old = events[fix.target]
        text = w("delete", place=which(_number(events, fix.target), old), event=said(old))
    reason = f" · {fix.reason}" if fix.reason else ""
    return text + reason


def render_hand(record: RecordedHand, lang: str = "zh", settlement: Settlement | None = None,
                void: bool = False) -> str:
    """The hand as lines a person reads: bids, landlord, kitty, every play, result, points.
    ``void``: the match was ended before this hand finished, so its result reads 未打完 · 作废."""
    w = _Say(lang)
    names = record.players
    hand = record.hand()
    rules = record.rules
    lines = [f"{w('title')} · {w.head('rules')}: {preset_name(rules.name, lang)}"]
    lines.append(_players_line(names, w))
    bids = [f"{names[e.seat]} {_said(e, w)}" for e in hand.events if isinstance(e, Bid)]
    if bids:
        heading = w.head("bids" if rules is None or rules.bidding == "score" else "calls")
        lines.append(f"{heading}: " + ", ".join(bids))
    lines += _landlord_lines(hand, names, w)
    readings = {p.index: p for p in hand.plays}
    start = hand.events[0].time if hand.events and isinstance(hand.events[0], Deal) else None
    number = 0
    lines.append(f"{w.head('play')}:")
    for i, e in enumerate(hand.events):
        if isinstance(e, _PREAMBLE):
            continue
        reading = ""
        if i in readings:
            r = readings[i].reading
            reading = type_name(r.type, lang)
        number += 1
        lines.append(f"  {number:>2}. " + _event_line(e, names, w, reading, start))
    for line in _correction_lines(hand.log, names, w, start):
        lines.append("  * " + line)
    s = settlement or settle(hand)
    result = w("hand_void") if void and not hand.finished else outcome_name(s.outcome, lang)
    lines.append(f"{w.head('result')}: {result}")
    if s.causes:
        lines.append(f"{w.head('multiplier')}: {s.multiplier} = " + ", ".join(_cause(c, f, w) for c, f in s.causes))
    else:
        lines.append(f"{w.head('multiplier')}: {s.multiplier}")
    unit = f" ({w('chips')})" if s.unit == "chips" else ""
    lines.append(f"{w.head('score')}{unit}: {_signed(s.points, names)}")
    lines += showdown_lines(hand, names, lang)
    return "\n".join(lines) + "\n"


def _players_line(names: tuple[str, ...], w: _Say) -> str:
    return f"{w.head('players')}: " + ", ".join(f"{w('seat_no', n=i)} {n}" for i, n in enumerate(names, 1))


def _landlord_lines(hand: Hand, names: tuple[str, ...], w: _Say) -> list[str]:
    """The landlord (five-player: the marker card, the open and the hidden landlord; 斗帝主: the
    帝主 and his pick of the kitty), the kitty, and who doubled."""
    rules = hand.rules
    lang = w.lang
    lines = []
    if hand.marker is not None:
        lines.append(f"{w.head('marker')}: {card_text(hand.marker, lang)}")
    if hand.landlord is not None:
        title = "open_landlord" if rules.hidden_landlord else "emperor" if rules.kitty_choice else "landlord"
        lines.append(f"{w.head(title)}: {names[hand.landlord]} ({w('base')} {hand.base})")
        if rules.hidden_landlord:
            hidden = w.head("hidden_landlord")
            if hand.hidden is None:
                lines.append(f"{hidden}: {w('not_shown')}")
            elif hand.hidden == hand.landlord:
                lines.append(f"{hidden}: {w('alone')} ({w('hidden_' + hand.hidden_shown)})")
            else:
                lines.append(f"{hidden}: {names[hand.hidden]} ({w('hidden_' + hand.hidden_shown)})")
    if hand.kitty is not None:
        lines.append(f"{w.head('kitty')}: {cards_text(hand.kitty, lang)}")
    if hand.picked is not None:
        lines.append(f"{w('kitty_pick')}: {cards_text(hand.picked, lang) or w('took_none')}")
    if hand.doubled:
        lines.append(f"{w.head('doubled')}: " + ", ".join(names[s] for s in hand.doubled))
    return lines


def showdown_lines(hand: Hand, names: tuple[str, ...], lang: str) -> list[str]:
    """Once every seat left holding cards has shown them: a starting-hand line per seat (the
    landlord's as dealt, before the kitty) and the deck audit; nothing before."""
    hands, audit = starting_hands(hand), deck_audit(hand)
    if hands is None or audit is None:
        return []
    w = _Say(lang)
    lines = [f"{w('starting')} {names[seat]}: {cards_text(cards, lang)}" for seat, cards in enumerate(hands)]
    found = ([w("audit_missing", cards=cards_text(audit.missing, lang))] if audit.missing else []) + \
        ([w("audit_extra", cards=cards_text(audit.extra, lang))] if audit.extra else [])
    lines.append(f"{w('audit')}: " + ("; ".join(found) if found else w("audit_ok")))
    return lines


def render_match(match: Match, lang: str = "zh", now: float | None = None, ended: bool = False,
                 unfinished: int | None = None) -> str:
    """Hand by hand points, the totals and the match verdict.

    ``ended``: the referee ended the match (比赛结束), so its leaders are its winners;
    ``unfinished``: the number of a hand begun and not finished, listed as in play, or as
    未打完 · 作废 once the match is ended."""
    w = _Say(lang)
    names = match.players
    rows = match.settlements()
    lines = [f"{match.name or w('title')} · {w.head('rules')}: {preset_name(match.rules.name, lang)}"]
    lines.append(_players_line(names, w))
    for i, row in enumerate(rows, 1):
        lines.append(f"{w('hand_line', n=i)}: {outcome_name(row.outcome, lang)}; x{row.multiplier}; "
                     + _signed(row.points, names))
    if unfinished is not None:
        lines.append(f"{w('hand_line', n=unfinished)}: {w('hand_void') if ended else w('status_playing')}")
    for p in match.penalties:
        extra = f" ({w('disqualified')})" if p.disqualify else ""
        lines.append(f"{w.head('penalty')}: {names[p.seat]} -{p.points} {p.reason}{extra}".rstrip())
    lines.append(f"{w.head('total')}: " + ", ".join(f"{n} {t}" for n, t in zip(names, match.totals(), strict=True)))
    status = match.status(now)
    over = status.over or ended
    verdict = status_name(status.reason, lang) if status.over or not ended else w("match_over")
    if over and status.winners:
        verdict += f"; {w.head('winner')}: " + ", ".join(names[s] for s in status.winners)
    lines.append(f"{w.head('status')}: {verdict}")
    return "\n".join(lines) + "\n"


#: What makes a spreadsheet read a text cell as a formula (OWASP's CSV-injection list).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """A cell a spreadsheet shows as written: text that would start a formula gets a leading
    single quote (``=HYPERLINK(...)`` becomes ``'=HYPERLINK(...)``); numbers stay numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def csv_sheet(match: Match, lang: str = "en") -> str:
    """One row per hand, a column per player, then a totals row (penalties in their own rows),
    with heads, labels and outcomes in ``lang`` (English by default: the sheet other programs read
    since the first release; people's downloads ask for their language).

    Player names and penalty reasons are typed by people, so every text cell goes through
    :func:`csv_cell`."""
    w = _Say(lang)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")

    def row_of(*cells: object) -> None:
        writer.writerow([csv_cell(c) for c in cells])

    row_of(w("hand"), w("result"), w("landlord"), w("base"), w("multiplier"), *match.players)
    for i, row in enumerate(match.settlements(), 1):
        landlord = "" if row.landlord is None else match.players[row.landlord]
        row_of(i, outcome_name(row.outcome, lang, brief=True), landlord, row.base, row.multiplier, *row.points)
    for p in match.penalties:
        cells = [-p.points if s == p.seat else 0 for s in range(len(match.players))]
        row_of(w("penalty"), p.reason, "", "", "", *cells)
    row_of(w("total"), "", "", "", "", *match.totals())
    return out.getvalue()
