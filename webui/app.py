"""The Flask application behind :func:`webui.create_app`.

``build_app(config=None, store=None, pipeline_status=None)`` builds the application:

- ``config``: overrides of :data:`DEFAULTS` (``DB``, ``REFEREE_PIN``, ``CAMERA_VIEW``, ...);
- ``store``: an open :class:`tracker.store.EventStore` (else ``DB`` is opened);
- ``pipeline_status``: the live pipeline's hook, a callable returning
  ``{"source", "fps", "last_frame"}`` or an object with ``status()`` and, for the camera
  view, ``jpeg()`` (the latest annotated frame as JPEG bytes, or ``None``);
- ``enroller``: the live pipeline's :class:`tracker.enroll.DeckEnroller` for the referee's deck
  walk-through (``/referee/deck``), or the ``ENROLLER`` config key; None: no camera to enroll with;
- ``replicator``: the box's :class:`tracker.replicate.Replicator` (``run --club``), whose
  ``status()`` the referee page shows (:mod:`webui.replication`); None: no club server.

Served by waitress (``ddz-table serve`` / ``demo``); the Flask dev server is never used.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from engine import words
from engine.cards import RANK_TEXT, SUIT_SYMBOLS, parse_cards
from tracker.store import EventStore
from webkit.lang import lang, setup
from webkit.lockout import Attempts
from webui import analysis, i18n, join
from webui.actions import RefereeDesk, cards_words
from webui.auth import is_referee, new_pin
from webui.fields import ActionError, json_object
from webui.sse import Watcher
from webui.tables import Tables
from webui.view import card_list

DEFAULTS: dict[str, Any] = {
    "DB": ":memory:",
    "REFEREE_PIN": None,  # None: a six-digit PIN is generated (read it from app.config)
    "CAMERA_VIEW": False,  # MJPEG camera view: off by default on slow hardware
    "CAMERA_SHOWN": False,  # with the view on: shown when the page opens (the demo's camera feed)
    "JOIN_URL": None,  # the address phones join at (QR code); None: the host the visitor used
    "MAX_CONTENT_LENGTH": 64 * 1024,
    "SSE_INTERVAL": 0.05,
    "SSE_LIMIT": 64,  # open live streams; keep it below the server's thread count
    "SSE_KEEPALIVE": 15.0,
    "SSE_LIFETIME": 600.0,
    "LOGIN_ATTEMPTS": 5,
    "LOGIN_WINDOW_S": 60.0,
    "SESSION_COOKIE_SAMESITE": "Strict",
    "SESSION_COOKIE_HTTPONLY": True,
    "PERMANENT_SESSION_LIFETIME": 12 * 3600,
}


class FeedStatus:
    """The live pipeline as the site sees it; without one, the table is fed by hand."""

    def __init__(self, hook: Any = None) -> None:
        self.hook = hook

    def status(self) -> dict[str, Any]:
        if self.hook is None:
            return {"source": None, "fps": 0.0, "last_frame": None, "running": False}
        get = getattr(self.hook, "status", self.hook)
        data = dict(get())
        data.setdefault("running", True)
        return data

    def jpeg(self) -> bytes | None:
        get = getattr(self.hook, "jpeg", None)
        return get() if get is not None else None


@dataclass
class Site:
    """What the blueprints share (``app.extensions["ddz"]``)."""

    store: EventStore
    tables: Tables
    watcher: Watcher
    desk: RefereeDesk  # the referee's actions (the person's, from the page)
    attempts: Attempts
    pipeline: FeedStatus
    enroller: Any = None  # tracker.enroll.DeckEnroller, with a live camera
    replicator: Any = None  # tracker.replicate.Replicator, when the box copies its table to a club server
    # Rendered live panels and SSE messages per (match, seq, language), shared by all viewers.
    rendered: dict = field(default_factory=dict)
    render_lock: threading.Lock = field(default_factory=threading.Lock)

    def cached(self, key: tuple, make: Callable[[], str]) -> str:
        with self.render_lock:
            text = self.rendered.get(key)
        if text is None:
            text = make()
            with self.render_lock:
                if len(self.rendered) > 128:
                    self.rendered.clear()
                self.rendered[key] = text
        return text


def site() -> Site:
    from flask import current_app

    return current_app.extensions["ddz"]


def join_here() -> dict[str, Any]:
    """The join element's data (:func:`webui.join.join_info`) for this request."""
    from flask import current_app

    try:
        return join.join_info(current_app.config.get("JOIN_URL") or request.host_url)
    except ValueError:  # a Host header no browser sends: show no code rather than fail the page
        return {"url": "", "local_only": True, "svg": ""}


def wants_json() -> bool:
    return request.path.startswith("/api/") or request.path in ("/healthz", "/live/fragment") or (
        request.accept_mimetypes.best == "application/json")


def request_fields() -> dict[str, Any]:
    """A POST's fields: one JSON object (``Content-Type: application/json``) or a form.

    The body is read only once the server holds all of it (waitress buffers a request's body
    before it calls the app, and Werkzeug ends a read short of ``Content-Length`` with a 400),
    and is never longer than ``MAX_CONTENT_LENGTH`` (a 413).
    """
    if request.is_json:
        return json_object(request.get_data(cache=True))
    if request.form:
        return request.form.to_dict()
    raise ActionError("send the fields as a JSON object (Content-Type: application/json) or as a form",
                      zh="请用 JSON 对象（Content-Type: application/json）或表单发送字段")


#: What each refusal means, in Chinese, for answers whose detail only exists in English.
_ZH_STATUS = {400: "请求有误", 401: "需要裁判登录", 403: "没有权限", 404: "找不到这个页面", 405: "不支持这种请求方式",
              413: "请求内容太大", 429: "尝试太多次，请稍后再试", 500: "服务器内部错误", 503: "暂时无法服务，请稍后再试"}


def refusal(status: int, message: str, zh: str = "", headers: dict[str, str] | None = None):
    """An error answer in the visitor's language: JSON for the API (``error`` in that language,
    ``message`` in English), else the error page (for a Chinese visitor: Chinese, then the
    English). Without a Chinese text, a Chinese visitor reads what the status means in
    Chinese, then the English detail."""
    chinese = lang() == "zh"
    response: Response | str
    if wants_json():
        text = (zh or f"{_ZH_STATUS.get(status, '请求未完成')} / {message}") if chinese else message
        response = jsonify(error=text, message=message, status=status)
    else:
        text = f"{zh or _ZH_STATUS.get(status, '请求未完成')} / {message}" if chinese else message
        response = render_template("error.html", code=status, message=text)
    return response, status, headers or {}


def build_app(config: dict[str, Any] | None = None, store: EventStore | None = None,
               pipeline_status: Any = None, enroller: Any = None, replicator: Any = None) -> Flask:
    app = Flask(__name__)
    app.config.update(DEFAULTS)
    app.config["SECRET_KEY"] = secrets.token_hex(32)
    app.config.update(config or {})
    if not app.config.get("REFEREE_PIN"):
        app.config["REFEREE_PIN"] = new_pin()
    app.config["REFEREE_PIN"] = str(app.config["REFEREE_PIN"])
    if app.config.get("JOIN_URL"):
        join.join_info(app.config["JOIN_URL"])  # a bad address fails at start-up, not on every page
    if store is None:
        store = EventStore(app.config["DB"])
    tables = Tables(store, club_clock=replicator.club_clock if replicator is not None else None)
    watcher = Watcher(store, interval=app.config["SSE_INTERVAL"], limit=app.config["SSE_LIMIT"])
    app.extensions["ddz"] = Site(
        store=store, tables=tables, watcher=watcher, desk=RefereeDesk(store, tables, watcher.poke),
        attempts=Attempts(per_client=app.config["LOGIN_ATTEMPTS"], window=app.config["LOGIN_WINDOW_S"]),
        pipeline=FeedStatus(pipeline_status), enroller=enroller or app.config.get("ENROLLER"),
        replicator=replicator,
    )

    from webui.api import bp as api_bp
    from webui.deck import bp as deck_bp
    from webui.history import bp as history_bp
    from webui.live import bp as live_bp
    from webui.referee_page import bp as referee_bp

    for bp in (live_bp, api_bp, referee_bp, deck_bp, history_bp):
        app.register_blueprint(bp)
    analysis.start(app, tables)  # every finished hand's 复盘, solved in the background

    def card_words(text: str | None, language: str) -> str:
        """Cards the state carries as codes (``7h``), named as the reader reads them (``7♥``)."""
        try:
            return cards_words(parse_cards(text or ""), language)
        except ValueError:
            return text or ""

    def page_helpers(current: str) -> dict[str, Any]:
        return {"cards": card_list, "type_name": words.type_name, "cause_name": words.cause_name,
                "status_name": words.status_name, "outcome_name": words.outcome_name,
                "preset_name": words.preset_name, "scoring_name": words.scoring_name,
                "alert_name": i18n.alert_name, "kind_word": i18n.kind_word, "status_word": i18n.status_word,
                "hands_line": i18n.hands_line, "card_words": card_words, "counted": i18n.counted, "ranks": RANK_TEXT,
                "suit_symbols": SUIT_SYMBOLS, "is_referee": is_referee(), "join": join_here}

    # A download or an API answer in another language leaves the site's language alone.
    setup(app, i18n.t, quiet=("/export/", "/api/"), extra=page_helpers)

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        message = exc.description or exc.name
        if exc.code == 413:
            limit = app.config["MAX_CONTENT_LENGTH"]
            message = f"request body too large (limit {limit} bytes)"
        kept = {k: v for k, v in exc.get_headers() if k in ("Allow", "Retry-After")}
        return refusal(exc.code or 500, message, headers=kept)

    @app.errorhandler(ActionError)
    def _refused(exc: ActionError):  # bad input found by a reader of webui.fields
        return refusal(exc.status, exc.message, exc.zh)

    @app.errorhandler(Exception)
    def _server_error(exc: Exception):  # a bug: say so plainly, and keep the trace in the log
        app.logger.exception("unhandled error on %s", request.path)
        return refusal(500, "internal error", "服务器内部错误")

    return app
