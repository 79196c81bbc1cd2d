"""History: matches and hands, a hand replay that steps through the plays, the printable score
sheet, and downloads.

The match page and the score sheet share one set of rows (:func:`sheet_rows`): a row per hand,
a row per penalty (the referee's match penalties and those entered inside a hand), and under
the chips format the opening chips, so the rows always add up to the match's totals.
"""

from __future__ import annotations

import math
import time
from typing import Any

from flask import Blueprint, Response, has_request_context, render_template, request

from engine.cards import format_cards
from engine.events import (
    Bid,
    Concede,
    Correction,
    Deal,
    End,
    Escape,
    Event,
    Kitty,
    KittyPick,
    Landlord,
    Marker,
    Pass,
    Play,
    Shown,
)
from engine.hand import Hand
from engine.match import Match
from engine.scoring import Settlement, settle
from engine.words import capital, outcome_name, status_name, type_name
from tracker.state import TableState
from webui import i18n
from webui.analysis import hand_analysis, with_analysis
from webui.app import lang, site
from webui.downloads import FORMATS, export_hand, export_match
from webui.fields import ActionError, id_value, int_value
from webui.live import bid_phrase, unknown_match
from webui.tables import UnknownMatch, fast_match
from webui.view import alert_dict, card_parts, corrected_indexes, hand_block, hand_counts, hand_standing

bp = Blueprint("history", __name__)


def _state(raw_id: str) -> TableState:
    """The match a path names (ids are checked here, not by a route converter, so a bad one is
    a clear 400 rather than a silent 404)."""
    match_id = id_value(raw_id, "match")
    try:
        return site().tables.state(match_id)
    except UnknownMatch:
        raise unknown_match(match_id) from None


def _format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise ActionError(f"no {fmt[:20]!r} export; choose {', '.join(FORMATS)}", 404,
                          f"没有这种下载格式；可选 {', '.join(FORMATS)}")
    return fmt


# ---------------------------------------------------------------------- the verdict and the rows
def verdict(state: TableState, match: Match, language: str) -> dict[str, Any]:
    """Where the match stands: ``over``, the ``text`` of its status and its ``winners`` (seats).

    A match has winners only once it is over (its format decided it, or the referee ended it);
    while it is played the leaders are not winners, and the status reads 进行中 / in progress.
    A timed match is judged at the referee's end, or now while it is still open."""
    ended = state.ended
    now = ended.time if ended is not None and ended.time is not None else time.time()
    status = match.status(now)
    over = status.over or ended is not None
    if status.over:
        text = status_name(status.reason, language)
    elif ended is not None:
        text = capital(i18n.t("match_over", language))
    else:
        text = i18n.t("in_progress", language)
        if status.reason != "playing":  # a tie at time: another hand decides it
            text += " · " + status_name(status.reason, language)
    return {"over": over, "text": text, "winners": list(status.winners) if over else []}


def _bid_text(hand: Hand, rules_bidding: str, language: str) -> str:
    """The bid that made the landlord: 3分 under 叫分, the grabs under 叫地主/抢地主."""
    if hand.landlord is None:
        return "–"
    if rules_bidding in ("grab", "call") and any(isinstance(e, Bid) for e in hand.events):
        grabs = sum(1 for e in hand.events if isinstance(e, Bid) and e.action == "grab")
        return i18n.t("sheet_grabs", language, n=grabs) if grabs else i18n.t("called", language)
    return i18n.t("bid_points", language, n=hand.base)


def _doubles(hand: Hand, state: TableState, language: str) -> list[tuple[str, int]]:
    """What doubled the hand and by how much, each cause in the order it happened; a bomb or a
    rocket names its player.

    Under fixed scores only the open hand (明牌) multiplies, so only it is listed there."""
    players = state.info.players
    doubling = iter([p for p in hand.plays if p.doubles])
    out = []
    for cause, factor in hand.causes:
        if cause in ("grab", "open_hand", "spring", "anti_spring"):
            word = i18n.t(cause, language)
        else:  # a doubling play: a bomb or a rocket (four players: big bombs, the four jokers)
            play = next(doubling, None)
            word = type_name("rocket" if cause == "rocket" else "bomb", language)
            if play is not None and play.seat < len(players):
                word = f"{players[play.seat]} {word}"
        if state.info.rules.scoring != "fixed" or cause == "open_hand":
            out.append((word, factor))
    return out


def _ending(hand: Hand, row: Settlement | None, players: tuple[str, ...], language: str,
            standing: str = "finished") -> str:
    """How the hand ended: played out, a concession, an escape, abandoned, a redeal; and who won.
    A hand with no result is in play, or void when the match was ended before it finished."""
    t = lambda key, **kw: i18n.t(key, language, **kw)  # noqa: E731
    if row is None:
        return t("hand_void") if standing == "void" else t("in_progress")
    if row.outcome == "redeal_penalty":
        return outcome_name(row.outcome, language)
    if hand.redeal:
        return t("sheet_redeal")
    if hand.abandoned:
        return outcome_name("abandoned", language, brief=True)
    if hand.escaped is not None:
        return t("sheet_escaped", name=players[hand.escaped])
    how = t("sheet_conceded", name=players[hand.conceded]) if hand.conceded is not None else t("sheet_out")
    return f"{how} · {outcome_name(row.outcome, language)}" if row.outcome in ("landlord_won", "farmers_won") else how


def _penalty_row(penalty: Any, n: int, players: tuple[str, ...], language: str,
                 hand_no: int | None = None) -> dict[str, Any]:
    points = [-penalty.points if s == penalty.seat else 0 for s in range(n)]
    words = [capital(i18n.t("penalty", language)), players[penalty.seat]]
    if penalty.reason:
        words.append(penalty.reason)
    if penalty.disqualify:
        words.append(capital(i18n.t("disqualify", language)))
    if hand_no is not None:
        words.append(i18n.t("sheet_penalty_in", language, n=hand_no))
    return {"kind": "penalty", "text": " · ".join(words), "points": points, "seat": penalty.seat}


def sheet_rows(state: TableState, match: Match, language: str) -> list[dict[str, Any]]:
    """The sheet's rows in order; the ``points`` of all rows but an unfinished hand's (``None``)
    add up to ``match.totals()``.

    A hand row's points are what the play won or lost; a penalty the referee entered inside that
    hand follows it as its own row, and the match penalties close the list."""
    players, rules = state.info.players, state.info.rules
    n = len(players)
    rows: list[dict[str, Any]] = []
    if rules.scoring == "chips":
        rows.append({"kind": "start", "text": i18n.t("sheet_start", language), "points": [rules.chips_start] * n})
    settled = iter(match.settlements())
    for number in state.hand_numbers:
        hand = state.hand_of(number)
        if hand is None or not hand.events:
            continue
        row = next(settled) if hand.finished else None
        standing = hand_standing(state, hand)
        causes = _doubles(hand, state, language)
        game = None if row is None else [p - q for p, q in zip(row.points, row.penalties or (0,) * n, strict=True)]
        rows.append({
            "kind": "hand", "number": number, "bid": _bid_text(hand, rules.bidding, language),
            "landlord": hand.landlord, "base": hand.base, "doubles": [f"{w} ×{f}" for w, f in causes],
            "multiplier": math.prod(f for _, f in causes),
            "ending": _ending(hand, row, players, language, standing), "points": game, "finished": row is not None,
            "standing": standing, "outcome": ("void" if standing == "void" else "unfinished") if row is None
            else row.outcome,
            "corrected": any(isinstance(e, Correction) for e in hand.log)})
        if row is not None:
            rows.extend(_penalty_row(p, n, players, language, number) for p in hand.penalties)
    rows.extend(_penalty_row(p, n, players, language) for p in match.penalties)
    return rows


def sheet_date(started: float | None) -> str:
    """When a match started, as every page prints it (``2026-12-03 19:30``, the box's clock):
    one form in both languages, never the browser's locale."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(started)) if started else ""


def _sheet_context(match_id: str) -> dict[str, Any]:
    """What the match page and the printed sheet show."""
    state = _state(match_id)
    match = fast_match(state)
    language = lang()
    started = match.started if isinstance(match.started, int | float) else state.info.created
    return {"info": state.info, "match": match, "rows": sheet_rows(state, match, language),
            "totals": match.totals(), "verdict": verdict(state, match, language),
            "date": sheet_date(started),
            "finished": match.finished_hands(), "counts": hand_counts(state)}


# ---------------------------------------------------------------------- pages
@bp.get("/history")
def matches():
    the_site = site()
    language = lang()
    rows = []
    for info in reversed(the_site.store.matches()):
        state = the_site.tables.state(info.id)
        match = fast_match(state)
        rows.append({"id": info.id, "name": match.name, "players": info.players, "preset": info.rules.name,
                     "started": match.started, "hands": match.finished_hands(), "counts": hand_counts(state),
                     "date": sheet_date(match.started if isinstance(match.started, int | float) else info.created),
                     "totals": match.totals(),
                     "verdict": verdict(state, match, language)})
    return render_template("history.html", matches=rows)


@bp.get("/history/<match_id>")
def match(match_id: str):
    return render_template("match.html", **_sheet_context(match_id))


@bp.get("/history/<match_id>/sheet")
def sheet(match_id: str):
    """The score sheet to print (A4 portrait): one row per hand and penalty, totals, a signature."""
    return render_template("sheet.html", **_sheet_context(match_id))


def describe(event: Event, players: tuple[str, ...], language: str, called: bool = False) -> dict[str, Any]:
    """One step of a replay in words, with the cards to draw; ``called``: the landlord was called
    before this step (叫地主), so a pass declines to grab (不抢)."""
    t = lambda key, **kw: i18n.t(key, language, **kw)  # noqa: E731
    seat = getattr(event, "seat", None)
    who = players[seat] if isinstance(seat, int) and seat < len(players) else ""
    cards: list[dict[str, str]] = []
    if isinstance(event, Deal):
        text = t("new_hand")
    elif isinstance(event, Bid):  # said as the live page's bid line says it: 张三 叫3分, 李四 no bid
        text = bid_phrase({"seat": event.seat, "action": event.action, "value": event.value}, list(players),
                          language, called)
    elif isinstance(event, Landlord):
        text = f"{capital(t('landlord'))}: {who} ({capital(t('base'))} {event.base})"
    elif isinstance(event, Kitty):
        text, cards = capital(t("kitty")), [card_parts(c) for c in event.cards]
    elif isinstance(event, Marker):
        text, cards = f"{capital(t('marker'))} · {t('open_landlord')}: {who}", [card_parts(event.card)]
    elif isinstance(event, KittyPick):  # 斗帝主: the cards the 帝主 took from the kitty (none: 一张不要)
        text = f"{who}: {t('kitty_pick')}" + ("" if event.cards else f" · {t('took_none')}")
        cards = [card_parts(c) for c in event.cards]
    elif isinstance(event, Shown):
        text, cards = f"{who}: {t('shown')}", [card_parts(c) for c in event.cards]
    elif isinstance(event, Play):
        text, cards = who, [card_parts(c) for c in event.cards]
    elif isinstance(event, Pass):
        text = f"{who}: {t('pass')}"
    elif isinstance(event, Concede | Escape):
        text = f"{who}: {i18n.kind_word(event.kind, language)}"
    elif isinstance(event, End):
        text = capital(t("abandon")) if event.abandoned else i18n.kind_word(event.kind, language)
    elif isinstance(event, Correction):
        text = f"{capital(t('correct'))}: {event.action}"
    else:
        text = f"{who} {i18n.kind_word(event.kind, language)}".strip()
    return {"text": text, "cards": cards, "kind": event.kind}


@bp.get("/history/<match_id>/<number>")
def replay(match_id: str, number: str):
    state = _state(match_id)
    hand_no = id_value(number, "hand")
    hand = state.hand_of(hand_no)
    if hand is None:
        raise ActionError(f"match {state.info.id} has no hand {hand_no}", 404,
                          f"第 {state.info.id} 场比赛没有第 {hand_no} 局")
    events = list(hand.events)
    raw = request.args.get("step")
    step = len(events) if raw in (None, "") else min(int_value(raw, "step", low=0), len(events))
    rules, players = state.info.rules, state.info.players
    shown = Hand.from_events(rules, events[:step])
    block = hand_block(players, rules, shown, hand_no)
    language = lang()
    fixed = corrected_indexes(hand)
    steps, called = [], False
    for i, e in enumerate(events):
        steps.append({**describe(e, players, language, called), "corrected": i in fixed})
        called = called or isinstance(e, Bid) and e.action == "call"
    s = settle(shown, rules)
    alerts = [alert_dict(a, players=players) for a in state.all_alerts.get(hand_no, [])]
    analysis = hand_analysis(state.info.id, hand_no, rules, players, hand, language,
                             solve=request.args.get("analyse") == "1")
    return render_template("replay.html", info=state.info, number=hand_no, step=step, total=len(events),
                           hand=block, steps=steps, points=s.points, final=shown.finished,
                           outcome=s.outcome, played=[format_cards(p.cards) for p in shown.plays], alerts=alerts,
                           analysis=analysis)


@bp.url_defaults
def _text_in_the_page_language(endpoint: str, values: dict[str, Any]) -> None:
    """A text download linked from a page is written in that page's language: ``url_for`` adds
    ``lang`` to the text links that do not name one (a link naming it keeps its own)."""
    if endpoint in ("history.export_match_view", "history.export_hand_view") and values.get("fmt") == "txt" \
            and has_request_context():
        values.setdefault("lang", lang())


def _download(result, as_text: bool) -> Response:
    response = Response(result.text, content_type=result.content_type)
    if not as_text:
        response.headers["Content-Disposition"] = f'attachment; filename="{result.filename}"'
    return response


def _export_args() -> tuple[str, bool]:
    language = request.args.get("lang", lang())
    if language not in i18n.LANGS:
        raise ActionError(f"lang must be zh or en, not {language[:20]!r}", zh="lang 只能是 zh 或 en")
    return language, request.args.get("view") == "1"


@bp.get("/export/<match_id>.<fmt>")
def export_match_view(match_id: str, fmt: str):
    state = _state(match_id)
    fmt = _format(fmt)
    language, as_text = _export_args()
    return _download(export_match(state, fmt, language), as_text)


@bp.get("/export/<match_id>/<number>.<fmt>")
def export_hand_view(match_id: str, number: str, fmt: str):
    state = _state(match_id)
    hand_no = id_value(number, "hand")
    fmt = _format(fmt)
    language, as_text = _export_args()
    try:
        result = export_hand(state, hand_no, fmt, language)
    except LookupError as exc:
        raise ActionError(str(exc), 404, f"第 {state.info.id} 场比赛没有第 {hand_no} 局") from None
    if fmt == "txt":
        result = with_analysis(result, state.info.id, hand_no, state.hand_of(hand_no), language)
    return _download(result, as_text)
