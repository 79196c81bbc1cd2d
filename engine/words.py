"""Words in two languages, Chinese first, and how a visitor's language is chosen.

The table site (``webui.i18n``) and the club server (``club.words``) each keep their own words
and look them up the same way: the visitor's language, else Chinese, and a key with no word
shows itself, so a gap is visible on the page rather than an error.

>>> t = Words({"hand_no": "第 {n} 局"}, {"hand_no": "Hand {n}"})
>>> t("hand_no", "en", n=3), t("hand_no", "fr", n=3), t("missing", "en")
('Hand 3', '第 3 局', 'missing')
>>> choose_lang(None, "en"), choose_lang("xx", None), switch_url("/live", {"t": "1"}, "en")
('en', 'zh', '/live?t=1&lang=en')
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlencode

LANGS = ("zh", "en")
DEFAULT_LANG = "zh"


def normal_lang(value: str | None) -> str | None:
    """``value`` if it names a language the sites speak, else None."""
    return value if value in LANGS else None


def choose_lang(*asked: str | None) -> str:
    """The first language of ``asked`` the sites speak (``?lang=``, then the cookie), else Chinese."""
    for value in asked:
        lang = normal_lang(value)
        if lang:
            return lang
    return DEFAULT_LANG


def other_lang(lang: str) -> str:
    """The language the zh/en switch offers."""
    return "en" if lang == "zh" else "zh"


def switch_url(path: str, args: Mapping[str, str], lang: str) -> str:
    """This page again in ``lang``, its other query arguments kept."""
    return path + "?" + urlencode({**args, "lang": lang})


class Words:
    """One site's words: ``words(key, lang, **fmt)``; ``words.by_lang`` holds the tables."""

    def __init__(self, zh: dict[str, str], en: dict[str, str]):
        self.by_lang = {"zh": zh, "en": en}

    def __call__(self, key: str, lang: str = DEFAULT_LANG, **fmt: object) -> str:
        zh = self.by_lang["zh"]
        text = self.by_lang.get(lang, zh).get(key) or zh.get(key) or key
        return text.format(**fmt) if fmt else text
