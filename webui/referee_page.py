"""The referee's pages (``/referee``, blueprint ``referee_page``): log in with the PIN, then every
control is a form that posts one action to the :class:`~webui.actions.RefereeDesk`; the answer
comes back as a message on the same page.

A refused action shows the page again with what was entered still in its form (the cards, the
seat), so the referee fixes the entry instead of making it again. Cards are entered by typing or
with the page's keypad (``static/keypad.js``), which fills the same text field and submits the
same form: the server has one path for both."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, session, url_for

from engine.events import Bid, Correction, Deal, End, Event, Kitty, Landlord, Play, Shown
from engine.rules import PRESETS, SCORING_FORMATS
from engine.words import capital
from tracker.alerts import judge_text
from webkit.csrf import csrf_ok, csrf_token
from webkit.lockout import wait_seconds
from webui.actions import ACTIONS, ActionError, event_words
from webui.api import judge_request
from webui.app import lang, site
from webui.auth import is_referee, locked_message, referee_required, try_pin
from webui.i18n import t
from webui.live import camera_now, hand_lines, view_for
from webui.replication import club_now
from webui.view import corrected_indexes

bp = Blueprint("referee_page", __name__, url_prefix="/referee")


@bp.route("/login", methods=["GET", "POST"])
def login():
    if request.method == "GET":
        return render_template("login.html", error=None)
    language = lang()
    if not csrf_ok():
        return render_template("login.html", error=t("stale_form", language)), 400
    ok, wait = try_pin(request.form.get("pin", ""))
    if wait:
        response = render_template("login.html", error=locked_message(wait))
        return response, 429, {"Retry-After": str(wait_seconds(wait))}
    if not ok:
        return render_template("login.html", error=t("bad_pin", language)), 403
    session.clear()
    session.permanent = True
    session["referee"] = True
    csrf_token()  # a fresh token for the logged-in session
    return redirect(url_for("referee_page.panel"))


@bp.post("/logout")
@referee_required
def logout():
    session.clear()
    return redirect(url_for("live.index"))


def _timeline(view_state, language: str) -> list[dict]:
    """The current hand's events after the deal, each with its index (the point a correction
    names), for the list the referee corrects, deletes and inserts at; ``words`` says the event
    in words (what undo asks about), ``corrected`` marks one a correction put there (已更正)."""
    match = view_state.get("match")
    if not match:
        return []
    hand = site().tables.state(match["id"]).hand
    if hand is None:
        return []
    by_index = {p.index: p for p in hand.plays}
    fixed = corrected_indexes(hand)
    out = []
    for i, event in enumerate(hand.events):
        if i == 0:
            continue  # the deal: abandoning the hand is how it goes
        seat = getattr(event, "seat", None)
        row = {"index": i, "kind": event.kind, "seat": seat, "name": match["players"][seat] if seat is not None else "",
               "cards": "", "type": "", "value": "", "words": event_words(event, language, match["players"]),
               "corrected": i in fixed}
        if isinstance(event, Play) and i in by_index:
            row.update(cards=" ".join(str(c) for c in by_index[i].cards), type=by_index[i].reading.type)
        elif isinstance(event, Kitty | Shown):
            row["cards"] = " ".join(str(c) for c in event.cards)
        elif isinstance(event, Bid):
            row["value"] = str(event.value) if event.action == "bid" else event.action
        elif isinstance(event, Landlord):
            row["value"] = str(event.base)
        out.append(row)
    return out


def end_confirm(view: dict, language: str) -> str:
    """What 结束比赛 asks: which match, the hand left unfinished (void once ended), and who wins
    on the totals now."""
    match = view.get("match")
    if not match:
        return t("confirm", language)
    words = [t("confirm_end_match", language, id=match["id"])]
    in_play = view.get("counts", {}).get("in_play")
    if in_play is not None:
        words.append(t("confirm_end_void", language, n=in_play))
    leaders = match["status"].get("winners") or []
    if leaders:
        names = (", " if language == "en" else "、").join(match["players"][s] for s in leaders)
        words.append(t("confirm_end_winner", language, who=names))
    return " ".join(words) if language == "en" else "".join(words)


def done_words(action: str, result: int, language: str, what: str = "") -> str:
    """What the referee just did, in words (已开始新比赛 #3, 已记录罚分：李四 罚 2 分（掉牌）),
    never the action's internal name; ``result`` is the new match id for ``start_match``, else
    the event's seq; ``what``: the recorded event in words, said after it."""
    key = f"done_{action}"
    if t(key, language) == key:  # an action without its own words still reads as recorded
        done = t("done", language)
    else:
        done = t(key, language, n=result) if action == "start_match" else t(key, language)
    return t("done_what", language, done=done, what=what) if what else done


def recorded_words(seq: int, language: str) -> str:
    """The event stored at ``seq`` in words (:func:`webui.actions.event_words`), or "" for one a
    sentence does not say better than the acknowledgement (a match's end, a correction)."""
    the_site = site()
    stored = next(iter(the_site.store.events(None, after_seq=seq - 1, limit=1)), None)
    if stored is None or stored.seq != seq or not isinstance(stored.event, Event) \
            or isinstance(stored.event, Correction | Deal):
        return ""  # a match's end, an alert, a correction, a deal: the acknowledgement says it all
    if isinstance(stored.event, End):  # an abandoned hand: which one
        return t("hand_no", language, n=stored.hand)
    players = the_site.store.match(stored.match_id).players
    return event_words(stored.event, language, players)


@bp.get("")
@referee_required
def panel():
    return _panel()


def _panel(refusal: str | None = None, status: int = 200, entered: dict | None = None):
    """The page; after a refusal ``entered`` holds the refused action's fields (``action`` names
    it), and the form it came from shows them again."""
    view = view_for(None)
    verdict, judge_error = None, None
    if request.args.get("cards"):
        try:
            verdict = judge_request(request.args)
            if verdict.get("reason") == "duplicate_card":
                verdict["why"] = judge_text("duplicate_card", lang(), cards=" ".join(verdict["duplicates"]),
                                            decks=verdict["decks"])
        except ActionError as exc:
            judge_error = exc.text(lang())
    hand = view.get("hand") or {}
    bid_options: list[str] = []
    extras = {"is_open": False, "open_factor": 2, "owing": [], "announce_at": 2, "decks": 1}
    match = view.get("match")
    if match:
        state = site().tables.state(match["id"])
        rules = state.info.rules
        extras.update(open_factor=rules.open_hand_multiplier, announce_at=rules.announce_at, decks=rules.decks)
        if state.hand is not None:
            extras.update(is_open=state.hand.open_hand, owing=state.hand.unannounced())
        if hand.get("phase") == "bidding" and state.hand is not None and state.hand.bidding is not None:
            bid_options = [a if a != "bid" else str(v) for a, v in state.hand.bidding.legal()]
    return render_template("referee.html", v=view, end_confirm=end_confirm(view, lang()), timeline=_timeline(view, lang()), presets=PRESETS,
                           scorings=SCORING_FORMATS, verdict=verdict, judge_error=judge_error,
                           bid_options=bid_options, extras=extras, refusal=refusal, cam=camera_now(),
                           entered=entered or {}, club=club_now(site().replicator),
                           lines=hand_lines(view, lang())), status


@bp.post("/act/<action>")
@referee_required
def act(action: str):
    if action not in ACTIONS:
        raise ActionError(f"unknown action {action[:40]!r}; one of {', '.join(ACTIONS)}", 404, "没有这个操作")
    fields = request.form.to_dict()
    fields.pop("csrf", None)
    try:
        result = site().desk.perform(action, fields)
    except ActionError as exc:
        # Shown on the panel itself with a 4xx, so a script or test sees the refusal too.
        return _panel(f"{t('refused', lang())}: {exc.text(lang())}", exc.status, {**fields, "action": action})
    what = "" if action == "start_match" else recorded_words(result, lang())
    if action == "end_match":  # who won, as the live page and the history now say
        match = view_for(None).get("match") or {}
        winners = (match.get("status") or {}).get("winners") or []
        if winners:
            what = f"{capital(t('winner', lang()))} {'、'.join(match['players'][s] for s in winners)}"
    flash(done_words(action, result, lang(), what), "ok")
    return redirect(url_for("referee_page.panel")), 303


@bp.app_context_processor
def _referee_flag():
    return {"referee_logged_in": is_referee()}
