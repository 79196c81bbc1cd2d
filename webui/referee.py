"""Referee pages (``/referee``): log in with the PIN, then every control is a form that posts one
action (:mod:`webui.actions`); the answer comes back as a message on the same page."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, session, url_for

from engine.events import Play
from engine.rules import PRESETS, SCORING_FORMATS
from webui.actions import ACTIONS, ActionError
from webui.api import judge_request
from webui.app import lang, site
from webui.auth import csrf_ok, csrf_token, is_referee, referee_required, try_pin
from webui.i18n import t
from webui.live import view_for

bp = Blueprint("referee", __name__, url_prefix="/referee")


@bp.route("/login", methods=["GET", "POST"])
def login():
    if request.method == "GET":
        return render_template("login.html", error=None)
    language = lang()
    if not csrf_ok():
        return render_template("login.html", error="CSRF"), 400
    ok, wait = try_pin(request.form.get("pin", ""))
    if wait:
        response = render_template("login.html", error=t("too_many", language, s=int(wait) + 1))
        return response, 429, {"Retry-After": str(int(wait) + 1)}
    if not ok:
        return render_template("login.html", error=t("bad_pin", language)), 403
    session.clear()
    session.permanent = True
    session["referee"] = True
    csrf_token()  # a fresh token for the logged-in session
    return redirect(url_for("referee.panel"))


@bp.post("/logout")
@referee_required
def logout():
    session.clear()
    return redirect(url_for("live.index"))


def _plays(view_state) -> list[dict]:
    """The current hand's plays with their event index, for the correction form."""
    the_site = site()
    match = view_state.get("match")
    if not match:
        return []
    state = the_site.tables.state(match["id"])
    hand = state.hand
    if hand is None:
        return []
    by_index = {p.index: p for p in hand.plays}
    out = []
    for i, event in enumerate(hand.events):
        if isinstance(event, Play) and i in by_index:
            record = by_index[i]
            out.append({"index": i, "seat": event.seat, "name": match["players"][event.seat],
                        "cards": " ".join(str(c) for c in record.cards), "type": record.reading.type})
    return out


@bp.get("")
@referee_required
def panel():
    return _panel()


def _panel(refusal: str | None = None, status: int = 200):
    view = view_for(None)
    verdict, judge_error = None, None
    if request.args.get("cards"):
        try:
            verdict = judge_request(request.args)
        except ActionError as exc:
            judge_error = exc.text(lang())
    hand = view.get("hand") or {}
    bid_options = []
    match = view.get("match")
    if match and hand.get("phase") == "bidding":
        state = site().tables.state(match["id"])
        if state.hand is not None and state.hand.bidding is not None:
            bid_options = [a if a != "bid" else str(v) for a, v in state.hand.bidding.legal()]
    return render_template("referee.html", v=view, plays=_plays(view), presets=PRESETS,
                           scorings=SCORING_FORMATS, verdict=verdict, judge_error=judge_error,
                           bid_options=bid_options, refusal=refusal), status


@bp.post("/act/<action>")
@referee_required
def act(action: str):
    if action not in ACTIONS:
        return render_template("error.html", code=404, message=f"unknown action {action!r}"), 404
    fields = request.form.to_dict()
    fields.pop("csrf", None)
    try:
        result = site().referee.perform(action, fields)
    except ActionError as exc:
        # Shown on the panel itself with a 4xx, so a script or test sees the refusal too.
        return _panel(f"{t('refused', lang())}: {exc.text(lang())}", exc.status)
    flash(f"{t('done', lang())}: {action} (#{result})", "ok")
    return redirect(url_for("referee.panel")), 303


@bp.app_context_processor
def _referee_flag():
    return {"referee_logged_in": is_referee()}
