"""Who may referee: a PIN, a signed session cookie, a CSRF token, and a brake on guessing.

The PIN is set at start-up (``--pin`` or config ``REFEREE_PIN``) or generated (six digits)
and printed on the console. A correct PIN marks the session as a referee's. Every POST of
the referee's pages carries the session's CSRF token (a hidden form field, or the
``X-CSRF-Token`` header for scripts using the session). A script may instead send the PIN in
an ``X-Referee-PIN`` header; a page on another site cannot set that header without CORS,
so it needs no CSRF token.

Wrong PINs are braked per client address and per session (:class:`Attempts`): after a few
free tries each further wrong PIN locks that address (and that browser) out for a delay that
doubles each time, up to a cap; a quiet spell forgets it. An address that has not failed is
never locked out, however many others guess, so a guessing phone cannot lock the referee out.
When many addresses fail at once (a guesser hopping addresses), each failing address gets a
single free try instead of several. IPv6 addresses count per /64 network, since one machine
can take any number of addresses in its network. Every attempt is logged (logger
``webui.auth``: address and outcome, never the PIN).
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import math
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from functools import wraps
from typing import Any

from flask import abort, current_app, jsonify, redirect, request, session, url_for

from webui.i18n import t

log = logging.getLogger(__name__)


def new_pin(digits: int = 6) -> str:
    return "".join(secrets.choice("0123456789") for _ in range(digits))


@dataclass
class Record:
    """One address's (or one session's) wrong PINs: how many in a row, the last, locked until when."""

    fails: int = 0
    last: float = 0.0
    until: float = 0.0


class Attempts:
    """Wrong PINs per address and per session, with a delay that grows per address.

    ``per_client`` wrong PINs are free; the next ones lock the address for ``window`` seconds,
    then twice that, and so on up to ``max_delay``. An address is forgotten after ``forget``
    quiet seconds once its lock has ended, and cleared by a right PIN. When ``overall`` wrong
    PINs came within ``window`` seconds from all addresses together, an address is locked from
    its first wrong PIN on (never one that has not failed). ``clock`` is wall time (tests
    inject one); a session's record lives in its signed cookie, so it must mean the same after
    a restart.
    """

    def __init__(self, per_client: int = 5, overall: int = 30, window: float = 60.0,
                 max_delay: float = 900.0, forget: float | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        if per_client < 1 or overall < 1 or window <= 0:
            raise ValueError("per_client and overall must be at least 1 and window positive")
        self.per_client, self.overall, self.window = per_client, overall, window
        self.max_delay = max(max_delay, window)
        self.forget = 10 * window if forget is None else forget
        self.clock = clock
        self._lock = threading.Lock()
        self._by_key: dict[str, Record] = {}
        self._all: deque[float] = deque()

    # ------------------------------------------------------------------ the schedule
    def _wait(self, record: Record | None, now: float) -> float:
        if record is None or record.until <= now:
            return 0.0
        return min(record.until - now, self.max_delay)  # a clock set back cannot lock for longer

    def _fail(self, record: Record, now: float, free: int) -> float:
        """Count a wrong PIN on ``record``; the lock it now carries, in seconds (0: none)."""
        if record.fails and now > max(record.until, record.last) + self.forget:
            record.fails = 0
        record.fails += 1
        record.last = now
        over = record.fails - free
        if over < 0:
            return 0.0
        delay = min(self.max_delay, self.window * 2 ** min(over, 32))
        record.until = now + delay
        return delay

    # ------------------------------------------------------------------ addresses
    def blocked_for(self, client: str, now: float | None = None) -> float:
        """Seconds until ``client`` may try again (0: now)."""
        now = self.clock() if now is None else now
        with self._lock:
            return self._wait(self._by_key.get(client_key(client)), now)

    def failed(self, client: str, now: float | None = None) -> float:
        """Count a wrong PIN from ``client``; returns the lock it now carries (0: none)."""
        now = self.clock() if now is None else now
        with self._lock:
            while self._all and self._all[0] <= now - self.window:
                self._all.popleft()
            self._all.append(now)
            crowded = len(self._all) > self.overall
            record = self._by_key.setdefault(client_key(client), Record())
            delay = self._fail(record, now, 1 if crowded else self.per_client)
            if len(self._by_key) > 10000:  # forget quiet addresses rather than grow without end
                for key in [k for k, r in self._by_key.items() if now > max(r.until, r.last) + self.forget]:
                    del self._by_key[key]
            return delay

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._by_key.pop(client_key(client), None)

    # ------------------------------------------------------------------ sessions
    def session_blocked_for(self, store: MutableMapping[str, Any], now: float | None = None) -> float:
        now = self.clock() if now is None else now
        return self._wait(_session_record(store), now)

    def session_failed(self, store: MutableMapping[str, Any], now: float | None = None) -> float:
        now = self.clock() if now is None else now
        record = _session_record(store) or Record()
        delay = self._fail(record, now, self.per_client)
        store["pin_fails"] = [record.fails, record.last, record.until]
        return delay


def _session_record(store: MutableMapping[str, Any]) -> Record | None:
    raw: Any = store.get("pin_fails")  # what the session holds: any JSON value
    try:
        fails, last, until = raw
        return Record(int(fails), float(last), float(until))
    except (TypeError, ValueError):
        return None


def client_key(address: str) -> str:
    """What the brake counts: the address, or its /64 network for IPv6."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return address


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


def wait_seconds(wait: float) -> int:
    """A lock's remaining time as whole seconds to tell the visitor (never 0 while locked)."""
    return max(1, math.ceil(wait))


def locked_message(wait: float) -> str:
    """The lock-out message, Chinese first then English (a locked visitor may not read either page language)."""
    s = wait_seconds(wait)
    return f"{t('pin_locked', 'zh', s=s)} / {t('pin_locked', 'en', s=s)}"


def try_pin(given: Any) -> tuple[bool, float]:
    """Check a PIN under the brake: (accepted, seconds to wait when refused for too many)."""
    attempts: Attempts = current_app.extensions["ddz"].attempts
    address = client()
    wait = max(attempts.blocked_for(address), attempts.session_blocked_for(session))
    if wait > 0:
        log.warning("referee PIN attempt from %s refused: locked for %d s more", address, wait_seconds(wait))
        return False, wait
    if pin_ok(given):
        attempts.succeeded(address)
        session.pop("pin_fails", None)
        log.info("referee PIN accepted from %s", address)
        return True, 0.0
    delay = max(attempts.failed(address), attempts.session_failed(session))
    if delay:
        log.warning("wrong referee PIN from %s: locked for %d s", address, wait_seconds(delay))
    else:
        log.warning("wrong referee PIN from %s", address)
    return False, 0.0


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
            return redirect(url_for("referee.login"))
        if request.method == "POST" and not csrf_ok():
            abort(400, description="missing or wrong CSRF token: reload the page and try again")
        return view(*args, **kwargs)

    return wrapped
