"""The brake on PIN guessing, one rule for the referee's and the director's PIN (:class:`Attempts`).

Wrong PINs are braked per client address and per session: after a few free tries each further
wrong PIN locks that address (and that browser) out for a delay that doubles each time, up to a
cap; a quiet spell forgets it. An address that has not failed is never locked out, however many
others guess, so a guessing phone cannot lock the referee out. When many addresses fail at once
(a guesser hopping addresses), each failing address gets a single free try instead of several.
IPv6 addresses count per /64 network, since one machine can take any number of addresses in its
network. :func:`try_pin` checks a PIN under the brake and logs every attempt (the address and the
outcome, never the PIN).

>>> clock = lambda: 1000.0
>>> a = Attempts(per_client=2, window=10, clock=clock)
>>> [a.failed("10.0.0.1") for _ in range(4)], a.blocked_for("10.0.0.1"), a.blocked_for("10.0.0.2")
([0.0, 10.0, 20.0, 40.0], 40.0, 0.0)
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from typing import Any


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
        self.per_client, self.overall, self.window = per_client, overall, float(window)
        self.max_delay = float(max(max_delay, window))
        self.forget = 10 * self.window if forget is None else float(forget)
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
        delay: float = min(self.max_delay, self.window * 2 ** min(over, 32))
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

    def session_cleared(self, store: MutableMapping[str, Any]) -> None:
        store.pop("pin_fails", None)


def _session_record(store: MutableMapping[str, Any]) -> Record | None:
    raw = store.get("pin_fails")
    try:
        fails, last, until = raw  # type: ignore[misc]
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


def wait_seconds(wait: float) -> int:
    """A lock's remaining time as whole seconds to tell the visitor (never 0 while locked)."""
    return max(1, math.ceil(wait))


def pin_matches(given: Any, pin: str) -> bool:
    """Whether ``given`` (a form field, a header) is the PIN, compared in constant time."""
    return isinstance(given, str) and hmac.compare_digest(given.strip().encode(), str(pin).encode())


def try_pin(attempts: Attempts, given: Any, pin: str, address: str, store: MutableMapping[str, Any],
            log: logging.Logger, role: str) -> tuple[bool, float]:
    """Check ``given`` against ``pin`` under the brake, for the ``role``'s login (``referee``,
    ``director``) from ``address`` with the session ``store``: (accepted, seconds to wait when
    refused for too many)."""
    wait = max(attempts.blocked_for(address), attempts.session_blocked_for(store))
    if wait > 0:
        log.warning("%s PIN attempt from %s refused: locked for %d s more", role, address, wait_seconds(wait))
        return False, wait
    if pin_matches(given, pin):
        attempts.succeeded(address)
        attempts.session_cleared(store)
        log.info("%s PIN accepted from %s", role, address)
        return True, 0.0
    delay = max(attempts.failed(address), attempts.session_failed(store))
    if delay:
        log.warning("wrong %s PIN from %s: locked for %d s", role, address, wait_seconds(delay))
    else:
        log.warning("wrong %s PIN from %s", role, address)
    return False, 0.0
