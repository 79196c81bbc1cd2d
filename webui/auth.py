"""Who may referee: a PIN, a signed session cookie, a CSRF token, and a brake on guessing.

The PIN is set at start-up (``--pin`` or config ``REFEREE_PIN``) or generated (six digits)
and printed on the console. A correct PIN marks the session as a referee's. Every POST of
the referee's pages carries the session's CSRF token (:mod:`webkit.csrf`: a hidden form field,
or the ``X-CSRF-Token`` header for scripts using the session). A script may instead send the PIN
in an ``X-Referee-PIN`` header; a page on another site cannot set that header without CORS,
so it needs no CSRF token.

Wrong PINs are braked per client address and per session by the kit's one rule
(:class:`webkit.lockout.Attempts`: a few free tries, then a lock that doubles, never on an
address that has not failed). Every attempt is logged (logger ``webui.auth``: address and
outcome, never the PIN).
"""

from __future__ import annotations

import logging
import secrets
from functools import wraps
from typing import Any

from flask import abort, current_app, jsonify, redirect, request, session, url_for

from engine.words import both
from webkit import lockout
from webkit.csrf import csrf_ok
from webkit.lockout import wait_seconds
from webui.i18n import t

log = logging.getLogger(__name__)


def new_pin(digits: int = 6) -> str:
    return "".join(secrets.choice("0123456789") for _ in range(digits))


def client() -> str:
    return request.remote_addr or "?"


def is_referee() -> bool:
    return bool(session.get("referee"))


def locked_message(wait: float) -> str:
    """The lock-out message, Chinese first then English (a locked visitor may not read either page language)."""
    return both("pin_locked", t, s=wait_seconds(wait))


def try_pin(given: Any) -> tuple[bool, float]:
    """Check a PIN under the brake: (accepted, seconds to wait when refused for too many)."""
    return lockout.try_pin(current_app.extensions["ddz"].attempts, given, current_app.config["REFEREE_PIN"],
                           client(), session, log, "referee")


def referee_required(view):
    """Pages: a referee's session, and for POST the CSRF token. JSON API: or the PIN header."""

    @wraps(view)
    def wrapped(*args, **kwargs):
        from webui.app import refusal  # webui.app imports this module

        api = request.path.startswith("/api/")
        header_pin = request.headers.get("X-Referee-PIN")
        if api and header_pin is not None:
            ok, wait = try_pin(header_pin)
            if wait:
                s = wait_seconds(wait)
                response = jsonify(error=f"too many wrong PINs from this address; try again in {s} s",
                                   error_zh=t("pin_locked", "zh", s=s), message=locked_message(wait),
                                   retry_after=s)
                response.status_code = 429
                response.headers["Retry-After"] = str(s)
                return response
            if not ok:
                return refusal(403, "wrong referee PIN", zh="裁判密码不对")
            return view(*args, **kwargs)
        if not is_referee():
            if api:
                return refusal(401, "referee login required (session or X-Referee-PIN header)",
                               zh="需要裁判登录（登录或 X-Referee-PIN 请求头）")
            return redirect(url_for("referee_page.login"))
        if request.method == "POST" and not csrf_ok():
            abort(400, description="missing or wrong CSRF token: reload the page and try again")
        return view(*args, **kwargs)

    return wrapped
