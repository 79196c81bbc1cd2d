"""Reading request values: ids, small numbers, text, cards and JSON bodies, each checked once here.

Forms and query strings give strings, the JSON API gives JSON values. Every reader raises
:class:`ActionError` (a 4xx with an English and a Chinese message) for a missing field, a
wrong type or a value out of range, so no bad request reaches the engine or the store.

- ids (matches, hands) are written with the ASCII digits 0-9 and no leading zero (one
  spelling per id, so one address per page), from 1 to SQLite's largest integer;
- small numbers (seats, points, steps) are ASCII digits with an optional minus sign, at most
  18 digits, within the bounds each field names;
- text has no control characters and no lone UTF-16 surrogates (JSON can carry ``"\\ud800"``,
  which no database or page can store or show);
- a JSON body nests at most :data:`MAX_DEPTH` levels.
"""

from __future__ import annotations

import re
from typing import Any, Literal, overload

from engine.cards import parse_cards
from webkit.body import BodyError
from webkit.body import json_object as webkit_json_object

MAX_NAME = 40
MAX_REASON = 200
#: SQLite's largest integer: an id past it cannot be stored, so it names nothing.
MAX_ID = 2**63 - 1
MAX_DIGITS = 18
MAX_DEPTH = 8

_ID = re.compile(r"[1-9][0-9]*")
_NUMBER = re.compile(r"-?[0-9]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


class ActionError(ValueError):
    """A refused action: ``status`` is the HTTP status, the message says why (en / zh)."""

    def __init__(self, message: str, status: int = 400, zh: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.zh = zh

    def text(self, lang: str) -> str:
        return self.zh if lang == "zh" and self.zh else self.message


def shown(value: Any, limit: int = 40) -> str:
    """``value`` quoted for an error message, cut short: a refusal never echoes a whole body."""
    text = repr(value) if isinstance(value, str | int | float | bool) or value is None else type(value).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def id_value(raw: Any, name: str = "match") -> int:
    """A match or hand id from a path, a query string or JSON (see the module docstring)."""
    if isinstance(raw, str):
        if len(raw) > 19 or not _ID.fullmatch(raw):
            raise ActionError(f"{name} must be a number from 1 to {MAX_ID} written with the digits 0-9 "
                              f"and no leading zero, not {shown(raw)}",
                              zh=f"{name} 必须是 1 到 {MAX_ID} 之间的数字（只用 0-9，不以 0 开头）")
        number = int(raw)
    elif isinstance(raw, int) and not isinstance(raw, bool):
        number = raw
    else:
        raise ActionError(f"{name} must be a whole number, not {shown(raw)}", zh=f"{name} 必须是整数")
    if not 1 <= number <= MAX_ID:
        raise ActionError(f"{name} must be a number from 1 to {MAX_ID}, not {shown(number)}",
                          zh=f"{name} 必须是 1 到 {MAX_ID} 之间的数字")
    return number


def int_value(raw: Any, name: str, low: int | None = None, high: int | None = None) -> int:
    """A small whole number: a JSON integer, or ASCII digits with an optional minus sign."""
    if isinstance(raw, str):
        text = raw.strip(" \t\r\n")
        if len(text) > MAX_DIGITS + 1 or not _NUMBER.fullmatch(text):
            raise ActionError(f"{name} must be a whole number written with the digits 0-9, not {shown(raw)}",
                              zh=f"{name} 必须是整数（只用 0-9）")
        number = int(text)
    elif isinstance(raw, int) and not isinstance(raw, bool):
        number = raw
    else:
        raise ActionError(f"{name} must be a whole number, not {shown(raw)}", zh=f"{name} 必须是整数")
    low = -MAX_ID if low is None else low
    high = MAX_ID if high is None else high
    if not low <= number <= high:
        raise ActionError(f"{name} must be between {low} and {high}, not {shown(number)}",
                          zh=f"{name} 必须在 {low} 到 {high} 之间")
    return number


def text_value(value: Any, name: str, limit: int = MAX_REASON) -> str:
    """Text without control characters or lone surrogates, stripped, at most ``limit`` characters."""
    if not isinstance(value, str):
        raise ActionError(f"{name} must be text, not {type(value).__name__}", zh=f"{name} 必须是文字")
    value = value.strip(" \t\r\n")  # ordinary blanks only: no control character is dropped unseen
    if len(value) > limit:
        raise ActionError(f"{name} is longer than {limit} characters", zh=f"{name} 太长（最多 {limit} 个字）")
    bad = _SURROGATE.search(value)
    if bad:
        raise ActionError(f"{name} holds a broken character (a lone UTF-16 surrogate U+{ord(bad.group()):04X})",
                          zh=f"{name} 含有无效字符（单独的代理码位 U+{ord(bad.group()):04X}）")
    bad = _CONTROL.search(value)
    if bad:
        raise ActionError(f"{name} holds a control character (U+{ord(bad.group()):04X}): remove it",
                          zh=f"{name} 含有控制字符（U+{ord(bad.group()):04X}），请删掉")
    return value


def json_object(body: bytes) -> dict[str, Any]:
    """A request body that must be one JSON object of fields, nested at most :data:`MAX_DEPTH`
    deep (:func:`webkit.body.json_object`, its refusal as an :class:`ActionError`)."""
    try:
        return webkit_json_object(body, max_depth=MAX_DEPTH)
    except BodyError as exc:
        raise ActionError(exc.message, zh=exc.zh) from None


def _field(fields: dict[str, Any], name: str, required: bool = True) -> Any:
    value = fields.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise ActionError(f"missing field {name!r}", zh=f"缺少 {name}")
        return None
    return value


def id_field(fields: dict[str, Any], name: str, required: bool = True) -> int | None:
    value = _field(fields, name, required)
    return None if value is None else id_value(value, name)


@overload
def int_field(fields: dict[str, Any], name: str, required: Literal[True] = True, low: int | None = None,
              high: int | None = None, default: int | None = None) -> int: ...
@overload
def int_field(fields: dict[str, Any], name: str, required: bool = True, low: int | None = None,
              high: int | None = None, *, default: int) -> int: ...
@overload
def int_field(fields: dict[str, Any], name: str, required: bool = True, low: int | None = None,
              high: int | None = None, default: None = None) -> int | None: ...
def int_field(fields: dict[str, Any], name: str, required: bool = True, low: int | None = None,
              high: int | None = None, default: int | None = None) -> int | None:
    """The field as a whole number in ``low..high``: required (the default) or with a ``default``,
    it is always a number."""
    value = _field(fields, name, required and default is None)
    if value is None:
        return default
    return int_value(value, name, low, high)


def text_field(fields: dict[str, Any], name: str, required: bool = True, limit: int = MAX_REASON) -> str:
    value = _field(fields, name, required)
    if value is None:
        return ""
    return text_value(value, name, limit)


def cards_field(fields: dict[str, Any], name: str = "cards") -> tuple:
    text = text_field(fields, name)
    try:
        cards = tuple(parse_cards(text))
    except ValueError as exc:
        raise ActionError(f"{name}: {exc}", zh="看不懂这些牌") from None
    if not cards:
        raise ActionError(f"{name}: no cards given", zh="没有写牌")
    return cards


def bool_field(fields: dict[str, Any], name: str) -> bool:
    value = fields.get(name)
    if isinstance(value, bool):
        return value
    return isinstance(value, str) and value.lower() in ("1", "on", "yes", "true")


def players_field(fields: dict[str, Any]) -> tuple[str, ...]:
    value = _field(fields, "players")
    if isinstance(value, str):
        names = [n.strip(" \t") for n in value.replace("\r", "").replace(",", "\n").replace("，", "\n").split("\n")]
    elif isinstance(value, list) and all(isinstance(n, str) for n in value):
        names = [n.strip(" \t\r\n") for n in value]
    else:
        raise ActionError("players must be names, one per seat", zh="玩家名单格式不对")
    names = [n for n in names if n]
    if any(len(n) > MAX_NAME for n in names):
        raise ActionError(f"a player's name is longer than {MAX_NAME} characters", zh="玩家名字太长")
    names = [text_value(n, "players", MAX_NAME) for n in names]
    if len(set(names)) != len(names):
        raise ActionError("two players have the same name", zh="玩家名字重复")
    return tuple(names)
