"""Who may referee: a PIN, a signed session cookie, a CSRF token, and a brake on guessing.

The PIN is set at start-up (``--pin`` or config ``REFEREE_PIN``) or generated (six digits)
and printed on the console. A correct PIN marks the session as a referee's. Every POST of
the referee's pages carries the session's CSRF token (a hidden form field, or the
``X-CSRF-Token`` header for scripts using the session). A script may instead send the PIN in
an ``X-Referee-PIN`` header; a page on another site cannot set that header without CORS,
so it needs no CSRF token. Wrong PINs are rate-limited per client address and overall.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import deque
from functools import wraps
from typing import Any

from flask import abort, current_app, jsonify, redirect, request, session, url_for


def new_pin(digits: int = 6) -> str:
    return "".join(secrets.choice("0123456789") for _ in range(digits))


class Attempts:
    """Failed PIN attempts in a sliding window: ``per_client`` per address, ``overall`` in all."""

    def __init__(self, per_client: int = 5, overall: int = 30, window: float = 60.0) -> None:
        self.per_client, self.overall, self.window = per_client, overall, window
        self._lock = threading.Lock()
        self._by_client: dict[str, deque[float]] = {}
        self._all: deque[float] = deque()

    def _trim(self, q: deque[float], now: float) -> None:
        while q and q[0] <= now - self.window:
            q.popleft()

    def blocked_for(self, client: str, now: float | None = None) -> float:
        """Seconds until ``client`` may try again (0: now)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            mine = self._by_client.get(client, deque())
            self._trim(mine, now)
            self._trim(self._all, now)
            waits = []
            if len(mine) >= self.per_client:
                waits.append(mine[0] + self.window - now)
            if len(self._all) >= self.overall:
                waits.append(self._all[0] + self.window - now)
            return max(waits, default=0.0)

    def failed(self, client: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        with self._lock:
            self._by_client.setdefault(client, deque()).append(now)
            self._all.append(now)
            if len(self._by_client) > 10000:  # forget quiet addresses rather than grow without end
                for key in [k for k, q in self._by_client.items() if not q or q[-1] <= now - self.window]:
                    del self._by_client[key]


def pin_ok(given: Any) -> bool:
    pin = current_app.config["REFEREE_PIN"]
    return isinstance(given, str) and hmac.compare_digest(given.strip().encode(), str(pin).encode())


def csrf_token() -> str:
    token = session.get("csrf")
    if not token:
        token = session["csrf"] = secrets.token_urlsafe(24)
    return token


def csrf_ok() -> bool:
    sent = request.form.get("csrf") or request.headers.get("X-CSRF-Token") or ""
    token = session.get("csrf") or ""
    return bool(token) and hmac.compare_digest(str(sent).encode(), str(token).encode())


def client() -> str:
    return request.remote_addr or "?"


def is_referee() -> bool:
    return bool(session.get("referee"))


def try_pin(given: Any) -> tuple[bool, float]:
    """Check a PIN under the rate limit: (accepted, seconds to wait when refused for too many)."""
    attempts: Attempts = current_app.extensions["ddz"].attempts
    wait = attempts.blocked_for(client())
    if wait > 0:
        return False, wait
    if pin_ok(given):
        return True, 0.0
    attempts.failed(client())
    return False, 0.0


def referee_required(view):
    """Pages: a referee's session, and for POST the CSRF token. JSON API: or the PIN header."""

    @wraps(view)
    def wrapped(*args, **kwargs):
        api = request.path.startswith("/api/")
        header_pin = request.headers.get("X-Referee-PIN")
        if api and header_pin is not None:
            ok, wait = try_pin(header_pin)
            if wait:
                response = jsonify(error=f"too many wrong PINs; try again in {int(wait) + 1} s")
                response.status_code = 429
                response.headers["Retry-After"] = str(int(wait) + 1)
                return response
            if not ok:
                return jsonify(error="wrong referee PIN"), 403
            return view(*args, **kwargs)
        if not is_referee():
            if api:
                return jsonify(error="referee login required (session or X-Referee-PIN header)"), 401
            return redirect(url_for("referee.login"))
        if request.method == "POST" and not csrf_ok():
            abort(400, description="missing or wrong CSRF token: reload the page and try again")
        return view(*args, **kwargs)

    return wrapped
