"""The club server's Flask application: ``build_app(config=None, storage=None)``.

- ``config``: overrides of :data:`DEFAULTS` (``DB``: an SQLite file or ``postgresql://...``;
  ``DIRECTOR_PIN``; ``CLUB_KEY``: what boxes register with; ``PUBLIC_URL``: the address the QR
  codes point at);
- ``storage``: an open :class:`club.storage.Storage` (else ``DB`` is opened and migrated).

Blueprints: ``club.api`` (boxes register and post events; the hall's data), ``club.pages``
(hall screen, player pages, exports) and ``club.director`` (the director's pages, behind the
PIN). Served by waitress (``ddz-table club``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from flask import Flask, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from club import words
from club.live import Live
from club.storage import Storage, open_storage
from webkit.lang import lang, setup
from webkit.lockout import Attempts

DEFAULTS: dict[str, Any] = {
    "DB": ":memory:",
    "DIRECTOR_PIN": None,  # None: a six-digit PIN is generated (read it from app.config)
    "CLUB_KEY": None,  # None: generated; boxes register with it
    "PUBLIC_URL": None,  # where phones reach the server (QR codes); None: the host the visitor used
    "MAX_CONTENT_LENGTH": 4 * 1024 * 1024,  # a batch of 2,000 events fits
    "LOGIN_ATTEMPTS": 5,
    "LOGIN_WINDOW_S": 60.0,
    "SESSION_COOKIE_SAMESITE": "Strict",
    "SESSION_COOKIE_HTTPONLY": True,
    "HALL_STREAMS": 16,  # open hall event streams at most (each holds a server thread); beyond: 503, the page polls
    "HALL_STREAM_S": 300.0,  # a stream closes after this long (the browser reconnects)
    "HALL_KEEPALIVE_S": 15.0,  # a comment on a quiet stream, so a vanished viewer is noticed
}


@dataclass
class Club:
    """What the blueprints share (``app.extensions["club"]``)."""

    storage: Storage
    live: Live
    attempts: Attempts
    known_matches: dict[tuple[int, str], set[int]] = field(default_factory=dict)


def club() -> Club:
    return current_app.extensions["club"]


def public_url() -> str:
    return (current_app.config.get("PUBLIC_URL") or request.host_url).rstrip("/")


def refusal(status: int, message: str, zh: str = ""):
    """JSON for the API (``error``: Chinese and English, ``message``: English), else the plain error
    page in the visitor's language alone (``zh``: the Chinese; a page's own refusals come worded)."""
    if request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json":
        text = f"{zh} / {message}" if zh else message
        return jsonify(error=text, message=message, status=status), status
    text = zh if zh and lang() == "zh" else message
    return render_template("club_error.html", code=status, message=text), status


def _counts(r: Any) -> tuple[int, int, int | None]:
    """A table's hands finished, void and in play, from a result or a hall row."""
    if isinstance(r, dict):
        return r["finished"], r["void"], r["in_play"]
    return r.finished, r.void, r.in_play


def build_app(config: dict[str, Any] | None = None, storage: Storage | None = None) -> Flask:
    app = Flask(__name__)
    app.config.update(DEFAULTS)
    app.config["SECRET_KEY"] = secrets.token_hex(32)
    app.config.update(config or {})
    if not app.config.get("DIRECTOR_PIN"):
        app.config["DIRECTOR_PIN"] = "".join(secrets.choice("0123456789") for _ in range(6))
    app.config["DIRECTOR_PIN"] = str(app.config["DIRECTOR_PIN"])
    if not app.config.get("CLUB_KEY"):
        app.config["CLUB_KEY"] = secrets.token_urlsafe(9)
    storage = storage or open_storage(app.config["DB"])
    app.extensions["club"] = Club(storage, Live(storage, streams=int(app.config["HALL_STREAMS"])),
                                  Attempts(per_client=app.config["LOGIN_ATTEMPTS"], window=app.config["LOGIN_WINDOW_S"]))

    from club.api import bp as api_bp
    from club.api import serve_hall_directly
    from club.director import bp as director_bp
    from club.pages import bp as pages_bp

    for bp in (api_bp, pages_bp, director_bp):
        app.register_blueprint(bp)
    serve_hall_directly(app)

    setup(app, words.t, extra=lambda current: {
        "table_status": lambda status: words.table_status(status, current),
        "table_words": lambda status, winners=(): words.table_words(status, list(winners), current),
        "hands_text": lambda r: words.hands_text(*_counts(r), current),
        "session_name": lambda stage, number: words.session_name(stage, number, current),
        "clock_state": lambda state: words.clock_state(state, current)})

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        return refusal(exc.code or 500, exc.description or exc.name)

    @app.errorhandler(Exception)
    def _server_error(exc: Exception):
        app.logger.exception("unhandled error on %s", request.path)
        return refusal(500, "internal error", "服务器内部错误")

    return app
