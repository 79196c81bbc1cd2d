"""The session's form token against cross-site requests (one strength for both sites).

Every POST of a logged-in page carries the token of its session: a hidden ``csrf`` form field,
or the ``X-CSRF-Token`` header for a script using the session.
"""

from __future__ import annotations

import hmac
import secrets

from flask import request, session

#: Random bytes in a token (URL-safe base64: 32 characters).
TOKEN_BYTES = 24


def csrf_token() -> str:
    """This session's token, made on first use."""
    token = session.get("csrf")
    if not token:
        token = session["csrf"] = secrets.token_urlsafe(TOKEN_BYTES)
    return str(token)


def csrf_ok() -> bool:
    """Whether this request carries its session's token (a session without one never passes)."""
    sent = request.form.get("csrf") or request.headers.get("X-CSRF-Token") or ""
    token = session.get("csrf") or ""
    return bool(token) and hmac.compare_digest(str(sent).encode(), str(token).encode())
