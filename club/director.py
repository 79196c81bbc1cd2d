"""The director's pages (裁判长), behind the PIN: create the event, register players, draw and
move tables, run the clock, publish; see the boxes and release a table for a new box.

Every step is an action appended to the tournament's log (:mod:`club.tournament`); a step that
does not fit (a draw while the clock runs, a pause of a stopped clock) is refused with a message
and nothing is stored.
"""

from __future__ import annotations

import logging
import random
import secrets
import time
from functools import wraps

from flask import Blueprint, abort, current_app, redirect, render_template, request, session, url_for

from club.app import club, lang
from club.formats import FormatError, Refusal, build_format
from club.tournament import State, next_session, playoff_action, playoff_due, publish_check
from club.words import refusal_text, session_name, t
from webkit.csrf import csrf_ok, csrf_token
from webkit.lockout import try_pin, wait_seconds

bp = Blueprint("director", __name__)
CLOCK_ACTIONS = {"start": "started", "pause": "paused", "resume": "resumed", "end": "ended"}
log = logging.getLogger(__name__)


def is_director() -> bool:
    return bool(session.get("director"))


def director_required(view):
    @wraps(view)
    def wrapped(*args, **kwargs):
        if not is_director():
            return redirect(url_for("director.login", next=request.path))
        if request.method == "POST" and not csrf_ok():
            abort(400, t("stale_form", lang()))
        return view(*args, **kwargs)
    return wrapped


@bp.route("/director/login", methods=["GET", "POST"])
def login():
    error = ""
    if request.method == "POST" and not csrf_ok():
        return render_template("club_login.html", error=t("stale_form", lang()), csrf=csrf_token()), 400
    if request.method == "POST":
        ok, wait = try_pin(club().attempts, request.form.get("pin", ""), current_app.config["DIRECTOR_PIN"],
                           request.remote_addr or "?", session, log, "director")
        if wait > 0:
            error = t("too_many", lang(), s=wait_seconds(wait))
        elif ok:
            session.clear()
            session["director"] = True
            target = request.args.get("next") or ""
            return redirect(target if target.startswith("/director") else url_for("director.panel"))
        else:
            error = t("bad_pin", lang())
    return render_template("club_login.html", error=error, csrf=csrf_token()), (401 if error else 200)


@bp.post("/director/logout")
def logout():
    session.clear()
    return redirect(url_for("pages.hall"))


@bp.get("/director")
@director_required
def panel():
    c = club()
    c.live.refresh(force=True)
    state = c.live.state
    now = time.time()
    hall = c.live.hall(now)
    playoff = None if state is None else playoff_due(state, c.live.results(now), now)
    notice = session.pop("notice", None)
    return render_template("club_director.html", state=state, hall=hall, notice=notice, csrf=csrf_token(),
                           playoff=playoff, playoff_names=[state.name(p) for p in playoff.players] if playoff and state is not None else [],
                           regs=c.storage.registrations(), key=current_app.config["CLUB_KEY"],
                           server=request.host_url.rstrip("/"))


def _done(ok: bool, key: str, **fmt: object):
    """Back to the panel with a notice in the director's language: what was done, or why not."""
    session["notice"] = {"ok": ok, "text": t(key, lang(), **fmt)}
    return redirect(url_for("director.panel"))


def _int(name: str, default: int) -> int:
    raw = (request.form.get(name) or "").strip()
    if not raw:
        return default
    if not raw.isdigit():
        raise FormatError(f"{name} must be a whole number, not {raw!r}", "err_number", name=name,
                          top=10**9, value=raw)
    return int(raw)


def _session_of(state: State) -> str:
    current = state.current
    return "" if current is None else session_name(current.stage, current.number, lang())


@bp.post("/director/<action>")
@director_required
def act(action: str):
    c = club()
    st = c.storage
    now = time.time()
    try:
        if action == "create":
            name = (request.form.get("name") or "").strip()
            if not name:
                raise FormatError("give the event a name / 请填写比赛名称", "err_name")
            key = request.form.get("format", "seed004")
            settings = {"rounds": _int("rounds", 4), "minutes": _int("minutes", 30), "evenings": _int("evenings", 4)}
            build_format(key, **settings)  # refuse bad numbers before anything is stored
            seed = _int("seed", random.SystemRandom().randrange(10**9))
            st.create_tournament(name, key, settings, seed, now)
            return _done(True, "ok_create", name=name, seed=seed)
        c.live.refresh(force=True)
        state = c.live.state
        if state is None:
            raise FormatError("create the event first / 请先新建比赛", "err_create_first")
        tid = state.tournament.id
        if action == "players":
            added = 0
            for line in (request.form.get("lines") or "").splitlines():
                parts = [p.strip() for p in line.replace("，", ",").split(",")]
                if parts and parts[0]:
                    st.add_player(tid, parts[0][:40], (parts[1] if len(parts) > 1 else "")[:20],
                                  secrets.token_urlsafe(6))
                    added += 1
            if not added:
                raise FormatError("one player per line: name, club id / 每行一位：姓名, 会员号", "err_player_lines")
            return _done(True, "ok_players", n=added)
        if action == "withdraw":
            player = _int("player", 0)
            if player not in state.players:
                raise FormatError(f"no player {player}", "err_no_player", n=player)
            st.act(tid, "withdraw", {"player": player}, now)
            return _done(True, "ok_withdraw", name=state.name(player))
        if action == "next":
            data = next_session(state, c.live.results(now), now)
            st.act(tid, "session", data, now)
            stage = state.format.stage(data["stage"])
            return _done(True, "ok_next", session=session_name(stage, data["number"], lang()))
        if action == "playoff":
            # The tie at the cut was played off at a table: the director records the places.
            raw = [v.strip() for v in request.form.getlist("order")]
            if not raw or not all(v.isdigit() for v in raw):
                raise FormatError("choose a player for every place / 请为每个名次选择一位选手", "err_playoff_choose")
            data = playoff_action(state, c.live.results(now), now, [int(v) for v in raw])
            st.act(tid, "playoff", data, now)
            return _done(True, "ok_playoff", order=" > ".join(state.name(p) for p in data["order"]))
        if action in CLOCK_ACTIONS:
            session_now = state.current
            if session_now is None:
                raise FormatError("draw the tables first / 请先抽签", "err_draw_first")
            getattr(session_now.clock, CLOCK_ACTIONS[action])(now)  # raises ClockError if it does not fit
            st.act(tid, action, {"session": session_now.key, "at": now}, now)
            return _done(True, f"ok_{action}", session=_session_of(state))
        if action == "publish":
            publish_check(state, c.live.results(now), now)
            st.act(tid, "publish", {}, now)
            return _done(True, "ok_publish")
        if action == "release":
            table = _int("table", 0)
            if not st.release(table):
                raise FormatError(f"table {table} has no box", "err_no_box", n=table)
            return _done(True, "ok_release", n=table)
    except Refusal as exc:
        session["notice"] = {"ok": False, "text": refusal_text(exc, lang())}
        return redirect(url_for("director.panel"))
    abort(404, f"no director action {action!r}")
