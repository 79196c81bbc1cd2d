"""The box's copy to the club server (``run --club``) as the referee page shows it.

:func:`club_line` turns :meth:`tracker.replicate.Replicator.status` into the words of one line
(俱乐部服务器：已同步 / 未连接，待上传 N 条), shown only when the box replicates to a club:

>>> club_line({"state": "unreachable", "pending": 12, "last_ok": None, "error": "timed out"})["word"]
'club_unreachable'
>>> club_line(None) is None
True
"""

from __future__ import annotations

import time
from typing import Any

STATES = ("connecting", "in_step", "sending", "unreachable", "refused")


def club_line(status: dict[str, Any] | None) -> dict[str, Any] | None:
    """``state`` (one of :data:`STATES`), ``word`` (its :mod:`webui.i18n` key), ``pending``
    (events the server does not hold yet), ``since_text`` (the last time the server answered,
    ``HH:MM:SS`` local time) and ``error``; ``None`` for a box that replicates to no club."""
    if status is None:
        return None
    state = status.get("state")
    if state not in STATES:
        state = "connecting"
    pending = status.get("pending")
    word = "club_unreachable_never" if state == "unreachable" and pending is None else f"club_{state}"
    last_ok = status.get("last_ok")
    since = time.strftime("%H:%M:%S", time.localtime(last_ok)) if isinstance(last_ok, int | float) else None
    return {"state": state, "word": word, "pending": pending or 0, "since_text": since,
            "error": str(status.get("error") or "")}


def club_now(replicator: Any) -> dict[str, Any] | None:
    """The line for the site's replicator now (``None`` without one)."""
    return None if replicator is None else club_line(replicator.status())

