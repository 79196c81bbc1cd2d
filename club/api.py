"""The boxes' side of the server, and the hall screen's data.

- ``POST /api/register`` ``{"table": 7, "box": "…", "key": CLUB_KEY}`` -> ``{"token", "acked"}``
  (403 for a wrong key, 409 when another box holds the table);
- ``POST /api/tables/<n>/events`` with ``Authorization: Bearer <token>``: a batch
  (:mod:`club.ingest`) -> ``{"acked", "inserted", "duplicates", "conflicts", "assignment"}``;
  no token 401, a wrong one (or another table's) 403, a malformed batch 400. The token check,
  the parse and the store are one transaction (one pool checkout: :meth:`Storage.post`); the
  answer's ``Server-Timing`` header says how long the server took (``token``: up to the
  table's check, ``parse``, ``store``, ``fold``: the assignment, ``total``; in ms), so a load
  test can tell the server's time from the network's;
- ``GET /api/tables/<n>`` (same token): ``{"acked", "assignment"}``, where a box resumes from;
- ``GET /api/hall``: clock, tables and leaderboard, the snapshot every viewer shares
  (:meth:`club.live.Live.snapshot`), with an ETag (``If-None-Match``: 304 while unchanged),
  gzipped once per snapshot for a viewer that accepts it; a GET or HEAD is answered before
  Flask's request handling (:func:`serve_hall_directly`), with the same answer as the route;
- ``GET /api/hall/stream``: the same snapshots as server-sent events (``event: hall``), each
  once; at most ``HALL_STREAMS`` open (each holds a server thread), beyond that 503 and the
  page polls ``/api/hall``; ``GET /healthz``: ``ok``, the store's schema and dialect, ``process``
  (``main``, or ``screens`` on a connection handed to the hall screens process: :mod:`club.screens`)
  and ``ready`` (the store's evening folded, as after a restart).
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Callable, Iterable

from flask import Blueprint, Flask, Response, current_app, jsonify, request, stream_with_context
from werkzeug.exceptions import HTTPException
from werkzeug.http import parse_accept_header, parse_etags, quote_etag

from club.app import club, refusal
from club.ingest import MAX_DEPTH, MAX_TABLE, BatchError, bearer, check_box, new_token, parse_batch, token_ok
from club.live import Snapshot
from club.storage import BoxEvent, BoxMatch, Registration, StorageError
from webkit.body import BodyError, json_object

bp = Blueprint("api", __name__)
log = logging.getLogger(__name__)


def _body(raw: bytes | None = None) -> dict:
    """The request's JSON object (``raw``: its body, read already), read by
    :func:`webkit.body.json_object`: bad JSON, NaN, deep nesting and anything but an object are a
    :class:`BodyError`, answered 400."""
    return json_object(request.get_data(cache=False) if raw is None else raw, max_depth=MAX_DEPTH)


class _Refused(Exception):
    """A post refused before its batch is kept: the refusal's status and words."""

    def __init__(self, status: int, message: str, zh: str = "") -> None:
        super().__init__(message)
        self.status, self.message, self.zh = status, message, zh


def _table(number: int) -> Registration | tuple:
    """The table's registration if the request's token is its own, else the refusal."""
    if not 1 <= number <= MAX_TABLE:  # a number no table has (nor the database's integers)
        return refusal(404, f"no table {number}: tables are numbered 1 to {MAX_TABLE}", "没有这一桌")
    token = bearer(request.headers.get("Authorization"))
    if token is None:
        return refusal(401, "send the table's token: Authorization: Bearer <token>", "缺少牌桌令牌")
    reg = club().storage.registration(number)
    if reg is None or not token_ok(token, reg.token_hash):
        log.warning("refused a post for table %s from %s: wrong token", number, request.remote_addr)
        return refusal(403, f"this token is not table {number}'s", "牌桌令牌不对")
    return reg


@bp.post("/api/register")
def register():
    try:
        data = _body()
        table = data.get("table")
        if not isinstance(table, int) or isinstance(table, bool) or not 1 <= table <= MAX_TABLE:
            raise BatchError(f"table must be a table number from 1 to {MAX_TABLE}, not {table!r}")
        box = check_box(data.get("box"))
    except BodyError as exc:
        return refusal(400, exc.message, exc.zh)
    except BatchError as exc:
        return refusal(400, str(exc))
    key = data.get("key")
    # surrogatepass: a key holding a lone surrogate is a wrong key, not a failure
    if not isinstance(key, str) or not hmac.compare_digest(key.encode("utf-8", "surrogatepass"),
                                                           current_app.config["CLUB_KEY"].encode()):
        return refusal(403, "wrong club key (the director page shows it)", "俱乐部密钥不对")
    token, digest = new_token()
    try:
        reg = club().storage.register(table, box, digest)
    except StorageError as exc:
        return refusal(409, str(exc), "这一桌已经绑定了别的盒子，请裁判长先解除绑定")
    log.info("table %s registered box %s", table, box)
    return jsonify(table=table, token=token, acked=reg.acked)


@bp.post("/api/tables/<int:number>/events")
def events(number: int):
    started = time.perf_counter()
    if not 1 <= number <= MAX_TABLE:  # a number no table has (nor the database's integers)
        return refusal(404, f"no table {number}: tables are numbered 1 to {MAX_TABLE}", "没有这一桌")
    token = bearer(request.headers.get("Authorization"))
    if token is None:
        return refusal(401, "send the table's token: Authorization: Bearer <token>", "缺少牌桌令牌")
    c = club()
    raw = request.get_data(cache=False)
    marks: dict[str, float] = {}

    def check(reg: Registration | None) -> None:
        marks["token"] = time.perf_counter()
        if reg is None or not token_ok(token, reg.token_hash):
            log.warning("refused a post for table %s from %s: wrong token", number, request.remote_addr)
            raise _Refused(403, f"this token is not table {number}'s", "牌桌令牌不对")

    def prepare(reg: Registration, known: set[int]) -> tuple[list[BoxEvent], list[BoxMatch]]:
        data = _body(raw)
        if data.get("box") != reg.box:
            raise _Refused(403, f"table {number} is bound to another box", "这一桌绑定的是别的盒子")
        parsed = parse_batch(number, data, known)
        marks["parse"] = time.perf_counter()
        return parsed

    def known_of(reg: Registration) -> set[int] | None:
        return c.known_matches.get((number, reg.box))

    try:
        reg, result, known = c.storage.post(number, check, prepare, known_of)
    except _Refused as exc:
        return refusal(exc.status, exc.message, exc.zh)
    except BodyError as exc:
        return refusal(400, exc.message, exc.zh)
    except BatchError as exc:
        return refusal(400, str(exc))
    stored = time.perf_counter()
    c.known_matches[(number, reg.box)] = known
    if result.conflicts:
        log.warning("table %s sent %d event(s) that differ from those held (seq %s); the first were kept",
                    number, len(result.conflicts), list(result.conflicts)[:5])
    assignment = c.live.assignment(number)  # from the projection: no read of the store
    done = time.perf_counter()
    response = jsonify(acked=result.acked, inserted=result.inserted, duplicates=result.duplicates,
                       conflicts=list(result.conflicts), assignment=assignment)
    checked, parsed = marks.get("token", started), marks.get("parse", stored)
    response.headers["Server-Timing"] = ", ".join(
        f"{name};dur={1000 * span:.2f}" for name, span in (
            ("token", checked - started), ("parse", parsed - checked), ("store", stored - parsed),
            ("fold", done - stored), ("total", done - started)))
    return response


@bp.get("/api/tables/<int:number>")
def table_state(number: int):
    reg = _table(number)
    if not isinstance(reg, Registration):
        return reg
    return jsonify(acked=reg.acked, assignment=club().live.assignment(number))


def hall_answer(snap: Snapshot, if_none_match: str | None, accept_encoding: str | None) -> tuple[
        int, list[tuple[str, str]], bytes]:
    """``/api/hall``'s answer from the shared snapshot: 304 while the viewer's ETag is current,
    else the JSON, gzipped once per snapshot for a viewer that accepts it. Status, headers, body."""
    headers = [("ETag", quote_etag(snap.etag)), ("Vary", "Accept-Encoding"),
               ("Cache-Control", "no-cache"),  # the browser asks again each time, with the ETag
               ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "same-origin")]
    if if_none_match and parse_etags(if_none_match).contains(snap.etag):
        return 304, headers, b""
    body = snap.body
    if accept_encoding and "gzip" in parse_accept_header(accept_encoding):
        body = snap.gzipped
        headers.append(("Content-Encoding", "gzip"))
    return 200, [*headers, ("Content-Type", "application/json"), ("Content-Length", str(len(body)))], body


@bp.get("/api/hall")
def hall():
    status, headers, body = hall_answer(club().live.snapshot(), request.headers.get("If-None-Match"),
                                        request.headers.get("Accept-Encoding"))
    return Response(body, status=status, headers=headers)


def serve_hall_directly(app: Flask) -> None:
    """Answer ``GET /api/hall`` before Flask's request handling: every hall screen that polls
    asks once a second, and the answer is the shared snapshot's bytes, so the routing, request
    and response objects would cost more than the answer itself. Anything else, and a snapshot
    that cannot be had (the store away) or a Host header no URL can be built for (Flask's 400,
    :mod:`webkit.host`), goes through Flask as before."""
    inner, live = app.wsgi_app, app.extensions["club"].live
    hosts: dict[str, bool] = {}  # Host header -> a URL can be built for it (screens keep asking with one)

    def host_ok(environ: dict) -> bool:
        host = environ.get("HTTP_HOST") or ""
        ok = hosts.get(host)
        if ok is None:
            try:
                app.url_map.bind_to_environ(environ, server_name=app.config["SERVER_NAME"])
                ok = True
            except HTTPException:  # BadHost: an empty label, a label over 63 characters
                ok = False
            if len(hosts) < 256:
                hosts[host] = ok
        return ok

    def wsgi(environ: dict, start_response: Callable) -> Iterable[bytes]:
        method = environ.get("REQUEST_METHOD")
        if environ.get("PATH_INFO") != "/api/hall" or method not in ("GET", "HEAD") or not host_ok(environ):
            return inner(environ, start_response)
        try:
            snap = live.snapshot()
        except Exception:  # noqa: BLE001 - Flask's own route answers it with the error page
            return inner(environ, start_response)
        status, headers, body = hall_answer(snap, environ.get("HTTP_IF_NONE_MATCH"),
                                            environ.get("HTTP_ACCEPT_ENCODING"))
        start_response("200 OK" if status == 200 else "304 Not Modified", headers)
        return [b"" if method == "HEAD" else body]

    app.wsgi_app = wsgi  # type: ignore[method-assign]


@bp.get("/api/hall/stream")
def hall_stream():
    live = club().live
    if not live.open_stream():
        response = refusal(503, "too many open hall streams: poll /api/hall", "大厅实时连接已满，请改为轮询")
        response[0].headers["Retry-After"] = "30"
        return response
    config = current_app.config
    body = live.stream(lifetime=config["HALL_STREAM_S"], keepalive=config["HALL_KEEPALIVE_S"])
    response = Response(stream_with_context(body), mimetype="text/event-stream")
    response.call_on_close(live.close_stream)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@bp.get("/healthz")
def healthz():
    c = club()
    st = c.storage
    # process: "main", or "screens" on a connection handed to the hall screens process (club.screens);
    # ready: the evening in the store is folded (a server's start)
    return jsonify(ok=True, schema=st.schema_version(), dialect=st.dialect,
                   process=current_app.config.get("PROCESS", "main"), ready=c.live.ready)
