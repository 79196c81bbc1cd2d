"""Replication of the box's event store to the club server (俱乐部服务器), in the background.

The box's store stays the truth for its table: the replicator only reads it. It registers
once with the club's key (the token and the box's id are kept in a small JSON file beside the
store), then posts what the server has not acknowledged, in batches, each event naming the seq
before it so the server can tell a gap from the end. When the server or the Wi-Fi is away the
table keeps scoring; the replicator retries with a growing pause (1 s, 2 s, 4 s ... 30 s) and
catches up when it can. A restarted box resumes from the server's acknowledged seq.

The server's answer also says what the table should be playing (``assignment``: the session's
players and rules); the replicator starts that match in the store once, and the table session
(``tracker.session``) follows the new match as it does when a referee starts one.

    rep = Replicator(store, "http://192.168.1.10:8080", table=7, key="…")
    rep.start()          # a daemon thread; rep.status() for the page; rep.stop()
    rep.status()         # {"state": "in_step", "pending": 0, ...}: what the referee page shows
    rep.step()           # one round by hand (tests): -> events sent
    rep.attempt()        # one round as the thread runs it (a failure kept for status()): -> pause
"""

from __future__ import annotations

import http.client
import json
import logging
import random
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from tracker.store import EventStore, StoredEvent

log = logging.getLogger(__name__)
BATCH = 500
MAX_BACKOFF = 30.0


class ReplicationError(RuntimeError):
    """The server refused in a way retrying will not fix by itself (a wrong key, a taken table)."""


def state_path_for(store: EventStore) -> Path | None:
    return None if store.path == ":memory:" else Path(store.path + ".club.json")


class Replicator:
    def __init__(self, store: EventStore, url: str, table: int, key: str | None = None,
                 state_path: str | Path | None = None, batch: int = BATCH, interval: float = 1.0,
                 timeout: float = 5.0, follow_assignments: bool = True, heartbeat: float = 5.0) -> None:
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"the club server's address must start with http:// or https://, not {url!r}")
        if not isinstance(table, int) or table < 1:
            raise ValueError(f"the table number must be 1 or more, not {table!r}")
        self.store, self.url, self.table, self.key = store, url.rstrip("/"), table, key
        self.batch, self.interval, self.timeout = batch, interval, timeout
        self.follow_assignments = follow_assignments
        self.heartbeat = heartbeat  # with nothing to send, still post this often: the hall shows the box online
        self.path = Path(state_path) if state_path else state_path_for(store)
        self.state: dict[str, Any] = self._load()
        self.acked: int | None = None  # what the server holds; asked for again after a restart
        self.known_acked: int | None = None  # the last acked the server gave: kept through a failure
        self.error: str | None = None
        self.refused = False  # the last failure was a refusal (a wrong key, a taken table): not the Wi-Fi
        self.last_ok: float | None = None
        self.sent = 0
        self.failures = 0  # in a row: the pause before the next try grows with them
        self.clock: dict[str, Any] | None = None  # the club's session clock as last heard, with ``session`` and ``heard``
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ the state file
    def _load(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.path is not None and self.path.exists():
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                log.warning("%s is unreadable (%s); registering again", self.path, exc)
        if data.get("url") != self.url or data.get("table") != self.table:
            data = {"box": data.get("box") or str(uuid.uuid4()), "url": self.url, "table": self.table}
        data.setdefault("sessions", [])
        return data

    def _save(self) -> None:
        if self.path is None:
            return
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.state, ensure_ascii=False), encoding="utf-8")
        tmp.replace(self.path)  # never a half-written file after a power cut

    # ------------------------------------------------------------------ HTTP
    def _call(self, method: str, path: str, body: dict | None = None, token: str | None = None) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.status, json.loads(response.read() or b"{}")
        except http.client.HTTPException as exc:
            # the server stopped mid-answer (killed, or its machine went away): not an OSError,
            # and it must not end the replicator's thread
            raise ConnectionError(f"the server's answer was cut short ({type(exc).__name__})") from exc
        except urllib.error.HTTPError as exc:
            try:
                answer = json.loads(exc.read() or b"{}")
            except ValueError:
                answer = {}
            return exc.code, answer

    def register(self) -> None:
        if not self.key:
            raise ReplicationError("no token and no club key to register with (give --club-key)")
        status, answer = self._call("POST", "/api/register", {"table": self.table, "box": self.state["box"],
                                                              "key": self.key})
        if status != 200:
            raise ReplicationError(f"registration refused ({status}): {answer.get('message', answer)}")
        self.state["token"] = answer["token"]
        self.acked = self.known_acked = int(answer.get("acked", 0))
        self._save()
        log.info("registered with %s as table %d", self.url, self.table)

    # ------------------------------------------------------------------ one round
    def _event(self, e: StoredEvent, prev: int) -> dict[str, Any]:
        return {"seq": e.seq, "prev": prev, "match_id": e.match_id, "hand": e.hand, "time": e.time,
                "kind": e.kind, "source": e.source, "event": e.event.to_dict()}

    def step(self) -> int:
        """Register if needed, learn where the server stands, post one batch; events sent."""
        if not self.state.get("token"):
            self.register()
        token = self.state["token"]
        if self.acked is None:
            status, answer = self._call("GET", f"/api/tables/{self.table}", token=token)
            if status in (401, 403):
                self.state.pop("token", None)
                raise ConnectionError(f"the server no longer knows this box's token ({status}); registering again")
            if status != 200:
                raise ConnectionError(f"server answered {status}")
            self.acked = self.known_acked = int(answer["acked"])
            self._follow(answer.get("assignment"))
        if self.store.last_seq() <= self.acked and self.last_ok is not None \
                and time.time() - self.last_ok < self.heartbeat:
            return 0
        # Only one batch is read: a box catching up on an evening's log reads it a piece at a time.
        pending = self.store.events(None, after_seq=self.acked, limit=self.batch)
        events, prev = [], self.acked
        for e in pending:
            events.append(self._event(e, prev))
            prev = e.seq
        known = set(self.state.get("matches", []))
        matches = [self.store.match(mid).to_dict() for mid in sorted({e.match_id for e in pending} - known)]
        status, answer = self._call("POST", f"/api/tables/{self.table}/events",
                                    {"box": self.state["box"], "events": events, "matches": matches}, token=token)
        if status in (401, 403):
            self.state.pop("token", None)  # released or the server was replaced: register again
            raise ConnectionError(f"the server refused this box's token ({status}); registering again")
        if status != 200:
            raise ReplicationError(f"the server refused a batch ({status}): {answer.get('message', answer)}")
        self.acked = self.known_acked = int(answer["acked"])
        if matches:
            self.state["matches"] = sorted(known | {m["id"] for m in matches})
            self._save()
        self.sent += len(events)
        self.last_ok, self.error, self.refused = time.time(), None, False
        self._follow(answer.get("assignment"))
        return len(events)

    def _follow(self, assignment: dict | None) -> None:
        """Start the session's match at this table once (the table session moves onto it), and
        keep the club's clock for the box's pages (:meth:`club_clock`)."""
        if assignment and isinstance(assignment.get("clock"), dict):
            self.clock = {**assignment["clock"], "session": assignment["session"], "heard": time.time()}
        if not self.follow_assignments or not assignment or assignment["session"] in self.state["sessions"]:
            return
        if any(m.meta.get("club_session") == assignment["session"] for m in self.store.matches()):
            self.state["sessions"].append(assignment["session"])
            self._save()
            return
        meta = {"club_session": assignment["session"], "name": assignment.get("name", ""),
                "started": assignment.get("started") or time.time()}
        mid = self.store.create_match(tuple(assignment["players"]), assignment["preset"], meta=meta)
        self.state["sessions"].append(assignment["session"])
        self._save()
        log.info("club session %s: match %d for %s", assignment["session"], mid, ", ".join(assignment["players"]))

    def club_clock(self, session: str | None, now: float | None = None) -> dict[str, Any] | None:
        """The club's clock for ``session`` (a match's ``club_session``) as it stands ``now``: its
        ``state`` (running, paused, time_up, ended...) and ``remaining`` seconds, run on from when it
        was last heard while it runs. ``None`` for another session or before the server answered:
        one clock, the club's, on every screen (the director pauses, ends a period)."""
        clock = self.clock
        if clock is None or session is None or clock["session"] != session:
            return None
        now = time.time() if now is None else now
        remaining = float(clock.get("remaining") or 0.0)
        state = clock.get("state", "running")
        if state == "running" and clock.get("minutes"):
            remaining = max(0.0, remaining - max(0.0, now - clock["heard"]))
            state = "running" if remaining > 0 else "time_up"
        return {"state": state, "remaining": remaining, "minutes": clock.get("minutes", 0)}

    # ------------------------------------------------------------------ the thread
    def attempt(self) -> float:
        """One round as the thread runs it: a step, its failure kept for :meth:`status`; returns
        the pause before the next round (none while catching up, growing while failing)."""
        try:
            sent = self.step()
        except (OSError, ConnectionError, ValueError, KeyError, ReplicationError) as exc:
            # The table goes on scoring; only the copy to the club waits.
            self.failures += 1
            self.acked = None  # ask the server again: it may have restarted from an older copy
            self.error = str(exc)
            self.refused = isinstance(exc, ReplicationError)
            wait = min(MAX_BACKOFF, 2 ** min(self.failures - 1, 5)) * random.uniform(0.8, 1.2)
            log.warning("club server %s: %s (retry in %.0f s)", self.url, exc, wait)
            return wait
        self.failures = 0
        return 0.0 if sent >= self.batch else self.interval  # catching up: no pause between full batches

    def run(self) -> None:
        while not self._stop.is_set():
            wait = self.attempt()
            if wait:
                self._stop.wait(wait)

    def start(self) -> Replicator:
        self._thread = threading.Thread(target=self.run, name="club-replicator", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def status(self) -> dict[str, Any]:
        """Where the copy stands, for the box's own pages. ``state``: ``connecting`` (no answer
        yet), ``in_step`` (the server holds every event), ``sending`` (catching up), ``unreachable``
        (the last try failed: the Wi-Fi or the server is away) or ``refused`` (the server said no:
        a wrong key, another box on the table). ``pending``: events the server does not hold yet,
        counted from the last ``acked`` it gave (``None`` before any answer)."""
        last = self.store.last_seq()
        acked = self.known_acked
        pending = None if acked is None else max(0, last - acked)
        if self.error is not None:
            state = "refused" if self.refused else "unreachable"
        elif self.last_ok is None and acked is None:
            state = "connecting"
        else:
            state = "in_step" if pending == 0 else "sending"
        return {"state": state, "url": self.url, "table": self.table, "acked": acked, "pending": pending,
                "last_seq": last, "last_ok": self.last_ok, "error": self.error, "sent": self.sent}
