"""A request body read as one JSON object, or a clear refusal (both sites' JSON bodies).

:func:`json_object` turns bad UTF-8, bad JSON, ``NaN`` and ``Infinity`` (not JSON, though
Python's reader takes them), a number too large for a float, nesting deeper than the caller's
limit, and anything but an object into a :class:`BodyError`: an HTTP 400 with an English and a
Chinese text, never a 500. Deep nesting is refused before any code walks the value: Python's
reader stops at about a thousand levels with a ``RecursionError``, and what it does read is
measured level by level, without recursion.

>>> json_object(b'{"seat": 1, "cards": ["3s", "3h"]}')
{'seat': 1, 'cards': ['3s', '3h']}
>>> try:
...     json_object(b'{"a": ' * 100 + b'1' + b'}' * 100, max_depth=16)
... except BodyError as exc:
...     print(exc.message, "/", exc.zh)
the JSON body nests deeper than 16 levels / JSON 内容嵌套太深（最多 16 层）
>>> try:
...     json_object(b'{"time": Infinity}')
... except BodyError as exc:
...     print(exc.message)
the body is not valid JSON: Infinity is not a JSON number
"""

from __future__ import annotations

import json
import math
from typing import Any

#: How deep a body may nest unless the caller says otherwise (an object of fields holding lists).
MAX_DEPTH = 8


class BodyError(ValueError):
    """A request body refused as a whole: HTTP 400, ``message`` in English, ``zh`` in Chinese."""

    status = 400

    def __init__(self, message: str, zh: str) -> None:
        super().__init__(message)
        self.message = message
        self.zh = zh


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:20]} is too large a number")
    return value


def depth(value: Any, stop: int | None = None) -> int:
    """How many levels of lists and objects ``value`` nests (a scalar: 0), counted level by
    level without recursion; past ``stop`` the count ends early (a body already refused).

    >>> depth(1), depth([]), depth({"a": [1, [2]]})
    (0, 1, 3)
    """
    levels = 0
    level = [value]
    while level := [item for item in level if isinstance(item, list | dict)]:
        levels += 1
        if stop is not None and levels > stop:
            break
        level = [v for item in level for v in (item.values() if isinstance(item, dict) else item)]
    return levels


def json_object(body: bytes, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """``body`` as one JSON object nested at most ``max_depth`` levels, else :class:`BodyError`."""
    try:
        value = json.loads(body, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise BodyError(f"the JSON body nests deeper than {max_depth} levels",
                        f"JSON 内容嵌套太深（最多 {max_depth} 层）") from None
    except ValueError as exc:  # bad JSON, bad UTF-8, NaN, a number of thousands of digits
        raise BodyError(f"the body is not valid JSON: {str(exc)[:80]}", "请求内容不是有效的 JSON") from None
    if not isinstance(value, dict):
        raise BodyError("the request body must be a JSON object", "请求格式不对（需要 JSON 对象）")
    if depth(value, stop=max_depth) > max_depth:
        raise BodyError(f"the JSON body nests deeper than {max_depth} levels",
                        f"JSON 内容嵌套太深（最多 {max_depth} 层）")
    return value
