"""The boxes' side of the server, and the hall screen's data.

- ``POST /api/register`` ``{"table": 7, "box": "…", "key": CLUB_KEY}`` -> ``{"token", "acked"}``
  (403 for a wrong key, 409 when another box holds the table);
- ``POST /api/tables/<n>/events`` with ``Authorization: Bearer <token>``: a batch
  (:mod:`club.ingest`) -> ``{"acked", "inserted", "duplicates", "conflicts", "assignment"}``;
  no token 401, a wrong one (or another table's) 403, a malformed batch 400; the answer's
  ``Server-Timing`` header says how long the server took (``token``: the table's check,
  ``parse``, ``store``, ``fold``: the hall's refresh, ``total``; in ms), so a load test can
  tell the server's time from the network's;
- ``GET /api/tables/<n>`` (same token): ``{"acked", "assignment"}``, where a box resumes from;
- ``GET /api/hall``: clock, tables and leaderboard (:meth:`club.live.Live.hall`); ``GET /healthz``.
"""

from __future__ import annotations

import hmac
import logging
import time

from flask import Blueprint, current_app, jsonify, request

from club.app import club, refusal
from club.ingest import MAX_DEPTH, MAX_TABLE, BatchError, bearer, check_box, new_token, parse_batch, token_ok
from club.storage import Registration, StorageError
from webkit.body import BodyError, json_object

bp = Blueprint("api", __name__)
log = logging.getLogger(__name__)


def _body() -> dict:
    """The request's JSON object (:func:`webkit.body.json_object`: bad JSON, NaN, deep nesting
    and anything but an object are a :class:`BodyError`, answered 400)."""
    return json_object(request.get_data(cache=False), max_depth=MAX_DEPTH)


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
    reg = _table(number)
    if not isinstance(reg, Registration):
        return reg
    known_box = time.perf_counter()
    c = club()
    try:
        data = _body()
        if data.get("box") != reg.box:
            return refusal(403, f"table {number} is bound to another box", "这一桌绑定的是别的盒子")
        known = c.known_matches.get((number, reg.box))
        if known is None:
            known = {m.match_id for m in c.storage.box_matches(number) if m.box == reg.box}
        batch, matches = parse_batch(number, data, known)
    except BodyError as exc:
        return refusal(400, exc.message, exc.zh)
    except BatchError as exc:
        return refusal(400, str(exc))
    parsed = time.perf_counter()
    result = c.storage.ingest(number, reg.box, batch, matches)
    stored = time.perf_counter()
    c.known_matches[(number, reg.box)] = known | {m.match_id for m in matches}
    if result.conflicts:
        log.warning("table %s sent %d event(s) that differ from those held (seq %s); the first were kept",
                    number, len(result.conflicts), list(result.conflicts)[:5])
    assignment = c.live.assignment(number)  # refreshes the folded tables when they are due
    done = time.perf_counter()
    response = jsonify(acked=result.acked, inserted=result.inserted, duplicates=result.duplicates,
                       conflicts=list(result.conflicts), assignment=assignment)
    response.headers["Server-Timing"] = ", ".join(
        f"{name};dur={1000 * span:.2f}" for name, span in (
            ("token", known_box - started), ("parse", parsed - known_box), ("store", stored - parsed),
            ("fold", done - stored), ("total", done - started)))
    return response


@bp.get("/api/tables/<int:number>")
def table_state(number: int):
    reg = _table(number)
    if not isinstance(reg, Registration):
        return reg
    return jsonify(acked=reg.acked, assignment=club().live.assignment(number))


@bp.get("/api/hall")
def hall():
    return jsonify(club().live.hall())


@bp.get("/healthz")
def healthz():
    st = club().storage
    return jsonify(ok=True, schema=st.schema_version(), dialect=st.dialect)
