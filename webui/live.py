"""The live page (``/``), its fragment, the SSE stream, the camera view and ``/healthz``."""

from __future__ import annotations

import time
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    jsonify,
    render_template,
    request,
    stream_with_context,
)

from engine.words import capital, card_name, type_name
from webui import i18n
from webui.app import lang, site
from webui.chart import score_chart
from webui.fields import ActionError, id_value
from webui.replication import club_now
from webui.sse import message, stream
from webui.tables import UnknownMatch
from webui.view import camera_key, camera_state

bp = Blueprint("live", __name__)
#: How often an open live stream looks at the camera's state (seconds).
CAMERA_TICK_S = 2.0


def match_arg() -> int | None:
    """``?match=N`` (an id, :func:`webui.fields.id_value`) or ``None`` for the latest match; junk is a 400."""
    raw = request.args.get("match")
    if raw in (None, ""):
        return None
    return id_value(raw, "match")


def unknown_match(match_id: int | None) -> ActionError:
    return ActionError(f"no match {match_id} in the store", 404, f"没有第 {match_id} 场比赛")


def view_for(match_id: int | None) -> dict[str, Any]:
    try:
        return site().tables.view(match_id)
    except UnknownMatch:
        raise unknown_match(match_id) from None


def chart_for(view: dict[str, Any], language: str) -> str:
    match = view.get("match")
    if not match or len(view.get("progress", [])) < 2:
        return ""
    return score_chart(view["progress"], match["players"], label=i18n.t("chart", language),
                       marks=view.get("chart_marks"), penalty_word=capital(i18n.t("penalty", language)),
                       end_word=capital(i18n.t("match_over", language)))


def signed(points: int) -> str:
    """Points as a scorer writes them: ``+16``, ``−16`` (a true minus sign), ``0``."""
    return f"{points:+d}".replace("-", "\u2212") if points else "0"


def _rank(rank: str, language: str, plural: bool = False) -> str:
    word = card_name(rank, language)
    return word + "s" if plural and language == "en" else word


def play_phrase(play: dict[str, Any], language: str) -> str:
    """A play to beat in words, by its reading: 对 5 / pair of 5s, 顺子 3–7 / straight 3–7."""
    kind, low = play["type"], play["low"]
    if kind == "rocket":
        return type_name(kind, language)
    key = "ph_bomb_n" if kind == "bomb" and play["size"] > 4 else f"ph_{kind}"
    return i18n.t(key, language, r=_rank(low, language), rs=_rank(low, language, plural=True),
                  h=_rank(play["high"], language), n=play["size"])


#: A bid as said at the table, by its action (``pass_grab``: a pass once the landlord is called, 不抢).
SAID = {"bid": "bids_n", "pass": "no_bid", "pass_grab": "no_grab", "call": "calls", "grab": "grabs"}


def bid_phrase(bid: dict[str, Any], players: list[str], language: str, called: bool = False) -> str:
    """One bid as said at the table: 陈一 叫1分, 李四 不叫 (English: 陈一 bids 1, 李四 no bid);
    ``called``: someone has called the landlord (叫地主), so a pass declines to grab (不抢)."""
    action = "pass_grab" if called and bid["action"] == "pass" else bid["action"]
    said = i18n.t(SAID[action], language, n=bid["value"])
    return f"{players[bid['seat']]} {said}"


def bids_line(bids: list[dict[str, Any]], players: list[str], language: str) -> str:
    """The hand's bidding so far, in order: 陈一 叫1分 · 李四 不叫 · 王五 叫3分."""
    said, called = [], False
    for bid in bids:
        said.append(bid_phrase(bid, players, language, called))
        called = called or bid["action"] == "call"
    return " · ".join(said)


def _with_reason(text: str, reason: str, language: str) -> str:
    if not reason:
        return text
    return f"{text}（{reason}）" if language == "zh" else f"{text} ({reason})"


#: Hands that end with no winner and no losers (作废, a redeal): nobody is asked to show cards.
NO_SHOWDOWN = ("abandoned", "redeal", "redeal_penalty")


def hand_lines(view: dict[str, Any], language: str) -> dict[str, Any]:
    """What the live page says about the hand in play, in ``language``: ``stakes`` (the
    landlord's own points if he wins or loses now, then each farmer's), ``to_beat`` (whose
    play the seat to act must beat), ``turn`` (who acts), ``bids`` (the bidding so far),
    ``penalties`` (given during the hand: who, how many points, why), ``ended_by`` (who
    conceded or escaped) and ``show_hands`` (a hand played out: the seats still holding cards
    are asked to lay them face up, for the deck audit). Empty text where there is nothing to say."""
    match, hand = view.get("match"), view.get("hand")
    lines: dict[str, Any] = {"stakes": "", "to_beat": "", "turn": "", "bids": "", "penalties": [], "ended_by": "",
                             "show_hands": ""}
    if not match or not hand:
        return lines
    players = match["players"]

    def t(key: str, **fmt: object) -> str:
        return i18n.t(key, language, **fmt)

    stakes = hand.get("stakes")
    if stakes:
        landlord = stakes["landlord"]
        parts = [t("stake_landlord", win=signed(landlord["win"]), loss=signed(landlord["loss"]))]
        if stakes["farmer"]:
            farmer = stakes["farmer"]
            parts.append(t("stake_farmer", win=signed(farmer["win"]), loss=signed(farmer["loss"])))
        lines["stakes"] = " · ".join(parts)
        lines["stakes_parts"] = parts  # each kept on one line on a phone
    elif hand.get("stake_pair"):  # five players, hidden landlord not known: what each pair settles
        lines["stakes_parts"] = [t("brief_hidden_unknown"), t("stake_pair", n=hand["stake_pair"])]
        lines["stakes"] = " · ".join(lines["stakes_parts"])
    beat = hand.get("to_beat")
    if beat:
        lines["to_beat"] = t("to_beat", who=players[beat["seat"]], play=play_phrase(beat, language))
    if hand["phase"] == "bidding" and hand.get("to_bid") is not None:
        lines["turn"] = t("bid_turn_of", who=players[hand["to_bid"]])
    elif hand["phase"] == "play" and hand.get("turn") is not None:
        lines["turn"] = t("turn_of" if beat else "lead_of", who=players[hand["turn"]])
    lines["bids"] = bids_line(hand.get("bids", []), players, language)
    for p in hand.get("penalties", []):
        text = _with_reason(t("penalty_of", who=players[p["seat"]], points=signed(-p["points"])), p["reason"], language)
        lines["penalties"].append(text + (" · " + t("disqualified") if p["disqualify"] else ""))
    if hand.get("conceded") is not None:
        lines["ended_by"] = t("conceded_by", who=players[hand["conceded"]])
    elif hand.get("escaped") is not None:
        lines["ended_by"] = t("escaped_by", who=players[hand["escaped"]])
    if hand["phase"] == "finished" and not hand.get("void") and hand.get("landlord") is not None \
            and hand.get("outcome") not in NO_SHOWDOWN and any(seat.get("cards_left") and not seat.get("shown") for seat in hand.get("seats", [])):
        lines["show_hands"] = t("show_hands")
    return lines


def _key(view: dict[str, Any], language: str, kind: str) -> tuple:
    match = view.get("match")
    return kind, match["id"] if match else None, view["seq"], language


def camera_now() -> dict[str, Any]:
    """The camera's state now (:func:`webui.view.camera_state`), for the pages."""
    return camera_state(site().pipeline.status())


def render_fragment(view: dict[str, Any], language: str, cam: dict[str, Any] | None = None) -> str:
    """The live panels as HTML, rendered once per (match, update, camera state, language) for all viewers."""
    cam = camera_now() if cam is None else cam
    return site().cached(_key(view, language, "html") + camera_key(cam),
                         lambda: render_template("_live.html", v=view, chart=chart_for(view, language), cam=cam,
                                                 lines=hand_lines(view, language)))


def sse_message(view: dict[str, Any], language: str, cam: dict[str, Any] | None = None) -> str:
    """The SSE message for an update, encoded once for all viewers of the same language."""
    cam = camera_now() if cam is None else cam
    return site().cached(_key(view, language, "sse") + camera_key(cam), lambda: message(
        {"seq": view["seq"], "html": render_fragment(view, language, cam), "state": view}, ident=view["seq"]))


@bp.get("/")
def index():
    match_id = match_arg()
    view = view_for(match_id)
    return render_template("live.html", v=view, fragment=render_fragment(view, lang()), match_id=match_id,
                           camera=current_app.config["CAMERA_VIEW"], camera_shown=current_app.config["CAMERA_SHOWN"])


@bp.get("/favicon.ico")
def favicon():
    """Browsers ask for ``/favicon.ico`` whatever the page links: answer with the site's SVG icon."""
    return current_app.send_static_file("favicon.svg")


@bp.get("/join")
def join_page():
    """The join code full size, for a tablet held up to the players' phones."""
    return render_template("join.html")


@bp.get("/live/fragment")
def fragment():
    """The panels alone: what the page polls when it cannot hold an event stream."""
    view = view_for(match_arg())
    cam = camera_now()
    club = club_now(site().replicator)  # the copy to the club server (run --club), for the referee page
    return {"seq": view["seq"], "html": render_fragment(view, lang(), cam),
            "camera": render_template("_camera.html", cam=cam),
            "club": render_template("_club.html", club=club) if club else None}


@bp.get("/api/events")
def events():
    """Server-Sent Events: ``state`` messages with ``seq``, ``html`` (the panels) and ``state``."""
    match_id = match_arg()
    view_for(match_id)  # an unknown match is a 404 now, not a broken stream
    language = lang()
    the_site = site()
    if not the_site.watcher.acquire():
        response = jsonify(error="too many live viewers; poll /api/state instead")
        response.status_code = 503
        response.headers["Retry-After"] = "10"
        return response
    config = current_app.config

    def render() -> tuple[tuple, str]:
        view = the_site.tables.view(match_id)
        cam = camera_state(the_site.pipeline.status())
        club_clock = (view.get("match") or {}).get("clock_state")  # the club's clock stopping is news too
        return (view["seq"], club_clock, *camera_key(cam)), sse_message(view, language, cam)

    # The camera's state changes without a store update: look at it every CAMERA_TICK_S seconds.
    body = stream(the_site.watcher, render, keepalive=config["SSE_KEEPALIVE"], lifetime=config["SSE_LIFETIME"],
                  tick=CAMERA_TICK_S)
    response = Response(stream_with_context(body), mimetype="text/event-stream")
    response.call_on_close(the_site.watcher.release)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@bp.get("/healthz")
def healthz():
    the_site = site()
    status = the_site.pipeline.status()
    return jsonify(ok=True, pipeline=status, camera=camera_state(status), store={"path": the_site.store.path, "last_seq": the_site.store.last_seq()},
                   club=None if the_site.replicator is None else the_site.replicator.status(),
                   live_streams=the_site.watcher.streams, time=time.time())


@bp.get("/camera.mjpg")
def camera():
    """The pipeline's annotated frames as MJPEG (``CAMERA_VIEW`` on and a pipeline that draws)."""
    if not current_app.config["CAMERA_VIEW"]:
        raise ActionError("the camera view is off (start the site with --camera)", 404, "摄像头画面未开启（用 --camera 启动网站）")
    the_site = site()
    pipeline = the_site.pipeline
    if pipeline.jpeg() is None:
        raise ActionError("no camera frame yet", 503, "还没有摄像头画面")
    if not the_site.watcher.acquire():
        raise ActionError("too many viewers", 503, "观看的人太多")
    lifetime = current_app.config["SSE_LIFETIME"]

    def frames():
        last, opened = None, time.monotonic()
        while time.monotonic() - opened < lifetime and not the_site.watcher.stopped:
            frame = pipeline.jpeg()
            if frame is not None and frame is not last:
                last = frame
                yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: " + str(len(frame)).encode()
                       + b"\r\n\r\n" + frame + b"\r\n")
            time.sleep(0.1)

    response = Response(frames(), mimetype="multipart/x-mixed-replace; boundary=frame")
    response.call_on_close(the_site.watcher.release)
    return response
