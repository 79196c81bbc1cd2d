"""History: matches and hands, a hand replay that steps through the plays, and downloads."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, has_request_context, render_template, request

from engine.cards import format_cards
from engine.events import Bid, Concede, Correction, Deal, End, Escape, Event, Kitty, Landlord, Pass, Play
from engine.hand import Hand
from engine.scoring import settle
from tracker.state import TableState
from webui import i18n
from webui.app import lang, site
from webui.downloads import FORMATS, export_hand, export_match
from webui.fields import ActionError, id_value, int_value
from webui.live import unknown_match
from webui.tables import UnknownMatch, fast_match
from webui.view import alert_dict, card_parts, corrected_indexes, hand_block

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


@bp.get("/history")
def matches():
    the_site = site()
    rows = []
    for info in reversed(the_site.store.matches()):
        state = the_site.tables.state(info.id)
        match = fast_match(state)
        rows.append({"id": info.id, "name": match.name, "players": info.players, "preset": info.rules.name,
                     "started": match.started, "hands": len(match.hands), "totals": match.totals(),
                     "ended": state.ended is not None})
    return render_template("history.html", matches=rows)


@bp.get("/history/<match_id>")
def match(match_id: str):
    state = _state(match_id)
    match = fast_match(state)
    rows = []
    for number in state.hand_numbers:
        hand = state.hand_of(number)
        assert hand is not None
        s = settle(hand, state.info.rules)
        rows.append({"number": number, "landlord": hand.landlord, "base": hand.base, "multiplier": s.multiplier,
                     "outcome": s.outcome if hand.finished else "unfinished", "points": s.points,
                     "plays": len(hand.plays), "corrected": any(isinstance(e, Correction) for e in hand.log)})
    return render_template("match.html", info=state.info, match=match, hands=rows, totals=match.totals(),
                           status=match.status(), ended=state.ended is not None)


def describe(event: Event, players: tuple[str, ...], language: str) -> dict[str, Any]:
    """One step of a replay in words, with the cards to draw."""
    t = lambda key, **kw: i18n.t(key, language, **kw)  # noqa: E731
    who = players[event.seat] if isinstance(getattr(event, "seat", None), int) and event.seat < len(players) else ""  # type: ignore[attr-defined]
    cards: list[dict[str, str]] = []
    if isinstance(event, Deal):
        text = t("new_hand")
    elif isinstance(event, Bid):
        said = {"pass": t("bid_pass"), "call": t("call"), "grab": t("grab")}.get(event.action, f"{event.value}")
        text = f"{who}: {t('bid')} {said}" if event.action == "bid" else f"{who}: {said}"
    elif isinstance(event, Landlord):
        text = f"{t('landlord')}: {who} ({t('base')} {event.base})"
    elif isinstance(event, Kitty):
        text, cards = t("kitty"), [card_parts(c) for c in event.cards]
    elif isinstance(event, Play):
        text, cards = who, [card_parts(c) for c in event.cards]
    elif isinstance(event, Pass):
        text = f"{who}: {t('pass')}"
    elif isinstance(event, Concede | Escape):
        text = f"{who}: {t('concede') if isinstance(event, Concede) else t('escape')}"
    elif isinstance(event, End):
        text = t("end_hand_abandoned") if event.abandoned else event.kind
    elif isinstance(event, Correction):
        text = f"{t('correct')}: {event.action}"
    else:
        text = f"{who} {event.kind}".strip()
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
    steps = [{**describe(e, players, language), "corrected": i in fixed} for i, e in enumerate(events)]
    s = settle(shown, rules)
    alerts = [alert_dict(a, players=players) for a in state.all_alerts.get(hand_no, [])]
    return render_template("replay.html", info=state.info, number=hand_no, step=step, total=len(events),
                           hand=block, steps=steps, points=s.points, final=shown.finished,
                           outcome=s.outcome, played=[format_cards(p.cards) for p in shown.plays], alerts=alerts)


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
    return _download(result, as_text)
