"""The live page (``/``), its fragment, the SSE stream, the camera view and ``/healthz``."""

from __future__ import annotations

import time
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    jsonify,
    render_template,
    request,
    stream_with_context,
)

from webui import i18n
from webui.app import lang, site
from webui.chart import score_chart
from webui.sse import message, stream
from webui.tables import UnknownMatch

bp = Blueprint("live", __name__)

def match_arg() -> int | None:
    """``?match=N`` (a positive number) or ``None`` for the latest match; junk is a 400."""
    raw = request.args.get("match")
    if raw in (None, ""):
        return None
    if not raw.isdigit() or int(raw) < 1:
        abort(400, description=f"match must be a positive number, not {raw!r}")
    return int(raw)


def view_for(match_id: int | None) -> dict[str, Any]:
    try:
        return site().tables.view(match_id)
    except UnknownMatch:
        abort(404, description=f"no match {match_id} in the store")


def chart_for(view: dict[str, Any], language: str) -> str:
    match = view.get("match")
    if not match or len(view.get("progress", [])) < 2:
        return ""
    return score_chart(view["progress"], match["players"], label=i18n.t("chart", language))


def _key(view: dict[str, Any], language: str, kind: str) -> tuple:
    match = view.get("match")
    return kind, match["id"] if match else None, view["seq"], language


def render_fragment(view: dict[str, Any], language: str) -> str:
    """The live panels as HTML, rendered once per (match, update, language) for all viewers."""
    return site().cached(_key(view, language, "html"),
                         lambda: render_template("_live.html", v=view, chart=chart_for(view, language)))


def sse_message(view: dict[str, Any], language: str) -> str:
    """The SSE message for an update, encoded once for all viewers of the same language."""
    return site().cached(_key(view, language, "sse"), lambda: message(
        {"seq": view["seq"], "html": render_fragment(view, language), "state": view}, ident=view["seq"]))


@bp.get("/")
def index():
    match_id = match_arg()
    view = view_for(match_id)
    return render_template("live.html", v=view, fragment=render_fragment(view, lang()), match_id=match_id,
                           camera=current_app.config["CAMERA_VIEW"], camera_shown=current_app.config["CAMERA_SHOWN"])


@bp.get("/join")
def join_page():
    """The join code full size, for a tablet held up to the players' phones."""
    return render_template("join.html")


@bp.get("/live/fragment")
def fragment():
    """The panels alone: what the page polls when it cannot hold an event stream."""
    view = view_for(match_arg())
    return {"seq": view["seq"], "html": render_fragment(view, lang())}


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

    def render() -> tuple[int, str]:
        view = the_site.tables.view(match_id)
        return view["seq"], sse_message(view, language)

    body = stream(the_site.watcher, render, keepalive=config["SSE_KEEPALIVE"], lifetime=config["SSE_LIFETIME"])
    response = Response(stream_with_context(body), mimetype="text/event-stream")
    response.call_on_close(the_site.watcher.release)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@bp.get("/healthz")
def healthz():
    the_site = site()
    status = the_site.pipeline.status()
    return jsonify(ok=True, pipeline=status, store={"path": the_site.store.path, "last_seq": the_site.store.last_seq()},
                   live_streams=the_site.watcher.streams, time=time.time())


@bp.get("/camera.mjpg")
def camera():
    """The pipeline's annotated frames as MJPEG (``CAMERA_VIEW`` on and a pipeline that draws)."""
    if not current_app.config["CAMERA_VIEW"]:
        abort(404, description="the camera view is off (start the site with --camera)")
    the_site = site()
    pipeline = the_site.pipeline
    if pipeline.jpeg() is None:
        abort(503, description="no camera frame yet")
    if not the_site.watcher.acquire():
        abort(503, description="too many viewers")
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
