"""Reading a referee action's fields: forms give strings, the JSON API gives JSON values.

Every reader raises :class:`ActionError` (a 4xx with an English and a Chinese message) for a
missing field, a wrong type or a value out of range, so no bad request reaches the engine.
"""

from __future__ import annotations

from typing import Any

from engine.cards import parse_cards

MAX_NAME = 40
MAX_REASON = 200


class ActionError(ValueError):
    """A refused action: ``status`` is the HTTP status, the message says why (en / zh)."""

    def __init__(self, message: str, status: int = 400, zh: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.zh = zh

    def text(self, lang: str) -> str:
        return self.zh if lang == "zh" and self.zh else self.message


def _field(fields: dict[str, Any], name: str, required: bool = True) -> Any:
    value = fields.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise ActionError(f"missing field {name!r}", zh=f"缺少 {name}")
        return None
    return value


def int_field(fields: dict[str, Any], name: str, required: bool = True, low: int | None = None,
              high: int | None = None, default: int | None = None) -> int | None:
    value = _field(fields, name, required and default is None)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ActionError(f"{name} must be a whole number, not {value!r}", zh=f"{name} 必须是整数")
    try:
        number = int(value)
    except ValueError:
        raise ActionError(f"{name} must be a whole number, not {value!r}", zh=f"{name} 必须是整数") from None
    if (low is not None and number < low) or (high is not None and number > high):
        raise ActionError(f"{name} must be between {low} and {high}, not {number}", zh=f"{name} 超出范围")
    return number


def text_field(fields: dict[str, Any], name: str, required: bool = True, limit: int = MAX_REASON) -> str:
    value = _field(fields, name, required)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ActionError(f"{name} must be text, not {type(value).__name__}", zh=f"{name} 必须是文字")
    value = value.strip()
    if len(value) > limit:
        raise ActionError(f"{name} is longer than {limit} characters", zh=f"{name} 太长")
    return value


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
        names = [n.strip() for n in value.replace("\r", "").replace(",", "\n").replace("，", "\n").split("\n")]
    elif isinstance(value, list) and all(isinstance(n, str) for n in value):
        names = [n.strip() for n in value]
    else:
        raise ActionError("players must be names, one per seat", zh="玩家名单格式不对")
    names = [n for n in names if n]
    if any(len(n) > MAX_NAME for n in names):
        raise ActionError(f"a player's name is longer than {MAX_NAME} characters", zh="玩家名字太长")
    if len(set(names)) != len(names):
        raise ActionError("two players have the same name", zh="玩家名字重复")
    return tuple(names)
