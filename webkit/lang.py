"""The visitor's language and what every page of both sites is given (:func:`setup`).

A visitor's language comes from ``?lang=zh|en`` (remembered in a cookie when the visitor goes to
a page with it: the zh/en switch), else the cookie, else Chinese.

>>> choose_lang(None, "en"), choose_lang("xx", None), other_lang("zh")
('en', 'zh', 'en')
>>> switch_url("/live", {"t": "1"}, "en")
'/live?t=1&lang=en'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, Flask, Response, request

from engine.words import DEFAULT_LANG, LANGS, Words, capital
from webkit.csrf import csrf_token
from webkit.host import guard

#: How long the language cookie lasts, in seconds.
COOKIE_AGE = 365 * 86400


def normal_lang(value: str | None) -> str | None:
    """``value`` if it names a language the sites speak, else None."""
    return value if value in LANGS else None


def choose_lang(*asked: str | None) -> str:
    """The first language of ``asked`` the sites speak (``?lang=``, then the cookie), else Chinese."""
    for value in asked:
        chosen = normal_lang(value)
        if chosen:
            return chosen
    return DEFAULT_LANG


def other_lang(lang: str) -> str:
    """The language the zh/en switch offers."""
    return "en" if lang == "zh" else "zh"


def switch_url(path: str, args: Mapping[str, str], lang: str) -> str:
    """This page again in ``lang``, its other query arguments kept."""
    return path + "?" + urlencode({**args, "lang": lang})


def lang() -> str:
    """This request's language: ``?lang=``, else the cookie, else Chinese."""
    return choose_lang(request.args.get("lang"), request.cookies.get("lang"))


def setup(app: Flask, words: Words, quiet: tuple[str, ...] = (),
          extra: Callable[[str], dict[str, Any]] | None = None) -> None:
    """Give ``app`` the kit: its templates (``webkit/base.html``), and for every page ``lang``,
    ``other_lang``, ``switch_url``, ``t`` (a word of ``words`` in the page's language),
    ``csrf_token`` and the ``cap`` filter (a word as a heading: :func:`engine.words.capital`),
    plus what ``extra(lang)`` adds; every answer is marked ``nosniff`` and sends no referrer
    to another site, and a Host header no URL can be built for is a 400 on the site's error
    page (:func:`webkit.host.guard`).

    A page with ``?lang=`` remembers the language in a cookie, except under the paths ``quiet``
    begins with (downloads and API answers: one in another language leaves the site's alone).
    """
    app.register_blueprint(Blueprint("webkit", __name__, template_folder=str(Path(__file__).parent / "templates")))
    app.add_template_filter(capital, "cap")
    guard(app)

    @app.context_processor
    def _words() -> dict[str, Any]:
        current = lang()
        other = other_lang(current)
        given: dict[str, Any] = {
            "lang": current, "other_lang": other, "switch_url": switch_url(request.path, request.args.to_dict(), other),
            "t": lambda key, **fmt: words(key, current, **fmt), "csrf_token": csrf_token}
        if extra is not None:
            given.update(extra(current))
        return given

    @app.after_request
    def _remember_lang(response: Response) -> Response:
        chosen = normal_lang(request.args.get("lang"))
        page = request.method == "GET" and response.mimetype == "text/html" and not request.path.startswith(quiet)
        if chosen and page and request.cookies.get("lang") != chosen:
            response.set_cookie("lang", chosen, max_age=COOKIE_AGE, samesite="Lax")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response
