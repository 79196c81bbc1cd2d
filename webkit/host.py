"""A request whose ``Host`` header names no host a URL can be built for (an empty label as in
``a..b``, a label over 63 characters): refused with a 400 on the site's own error page.

Werkzeug cannot encode such a name (IDNA), so Flask keeps no URL builder for the request and
answers it with ``BadHost`` (400); the error page then calls ``url_for`` for its stylesheet and
links, which needs a builder. :func:`guard` gives such a request one bound to ``localhost``
before anything else runs: the page's links are paths, never the host, so they come out the
same, and the request still ends in the 400 it deserves.
"""

from __future__ import annotations

from flask import Flask, request
from flask.globals import request_ctx

#: The name a refused request's URLs are built under (they are paths: the name never shows).
NEUTRAL_HOST = "localhost"


def guard(app: Flask) -> None:
    """Give every request of ``app`` whose Host header no URL can be built for a neutral URL
    builder, first of all its ``before_request`` functions."""

    def _neutral_builder() -> None:
        if request_ctx.url_adapter is None:
            request_ctx.url_adapter = app.url_map.bind(NEUTRAL_HOST, script_name=request.script_root or "/",
                                               subdomain=app.url_map.default_subdomain or "",
                                               url_scheme=request.scheme, path_info=request.path)

    app.before_request_funcs.setdefault(None, []).insert(0, _neutral_builder)
