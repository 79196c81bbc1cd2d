"""History: matches and hands, a hand replay that steps through the plays, and downloads."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, render_template, request

from engine.cards import format_cards
from engine.events import Bid, Concede, Correction, Deal, End, Escape, Event, Kitty, Landlord, Pass, Play
from engine.hand import Hand
from engine.scoring import settle
from tracker.state import TableState
from webui import i18n
from webui.app import lang, site
from webui.downloads import FORMATS, export_hand, export_match
from webui.tables import UnknownMatch, fast_match
from webui.view import alert_dict, card_parts, hand_block

bp = Blueprint("history", __name__)


def _state(match_id: int) -> TableState:
    try:
        return site().tables.state(match_id)
    except UnknownMatch:
        abort(404, description=f"no match {match_id} in the store")


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


@bp.get("/history/<int:match_id>")
def match(match_id: int):
    state = _state(match_id)
    match = fast_match(state)
    rows = []
    for number in state.hand_numbers:
        hand = state.hand_of(number)
        assert hand is not None
        s = settle(hand, state.info.rules)
        rows.append({"number": number, "landlord": hand.landlord, "base": hand.base, "multiplier": s.multiplier,
                     "outcome": s.outcome if hand.finished else "unfinished", "points": s.points,
                     "plays": len(hand.plays)})
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


@bp.get("/history/<int:match_id>/<int:number>")
def replay(match_id: int, number: int):
    state = _state(match_id)
    hand = state.hand_of(number)
    if hand is None:
        abort(404, description=f"match {match_id} has no hand {number}")
    events = list(hand.events)
    raw = request.args.get("step", str(len(events)))
    if not raw.isdigit():
        abort(400, description=f"step must be a number from 0 to {len(events)}, not {raw!r}")
    step = min(int(raw), len(events))
    rules, players = state.info.rules, state.info.players
    shown = Hand.from_events(rules, events[:step])
    block = hand_block(players, rules, shown, number)
    language = lang()
    steps = [describe(e, players, language) for e in events]
    s = settle(shown, rules)
    alerts = [alert_dict(a, players=players) for a in state.all_alerts.get(number, [])]
    return render_template("replay.html", info=state.info, number=number, step=step, total=len(events),
                           hand=block, steps=steps, points=s.points, final=shown.finished,
                           outcome=s.outcome, played=[format_cards(p.cards) for p in shown.plays], alerts=alerts)


def _download(result, as_text: bool) -> Response:
    response = Response(result.text, mimetype=result.mimetype + "; charset=utf-8")
    if not as_text:
        response.headers["Content-Disposition"] = f'attachment; filename="{result.filename}"'
    return response


def _export_args() -> tuple[str, bool]:
    language = request.args.get("lang", lang())
    if language not in i18n.LANGS:
        abort(400, description=f"lang must be zh or en, not {language!r}")
    return language, request.args.get("view") == "1"


@bp.get("/export/<int:match_id>.<fmt>")
def export_match_view(match_id: int, fmt: str):
    if fmt not in FORMATS:
        abort(404, description=f"no {fmt!r} export; choose {', '.join(FORMATS)}")
    language, as_text = _export_args()
    state = _state(match_id)
    return _download(export_match(state, fmt, language), as_text)


@bp.get("/export/<int:match_id>/<int:number>.<fmt>")
def export_hand_view(match_id: int, number: int, fmt: str):
    if fmt not in FORMATS:
        abort(404, description=f"no {fmt!r} export; choose {', '.join(FORMATS)}")
    language, as_text = _export_args()
    state = _state(match_id)
    try:
        result = export_hand(state, number, fmt, language)
    except LookupError as exc:
        abort(404, description=str(exc))
    return _download(result, as_text)
