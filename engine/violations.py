"""Typed faults a referee reports (RULES.md section 8), in English and Chinese.

``Hand.check(event)`` returns a :class:`Violation` (or ``None``); ``Hand.apply(event)``
raises :class:`HandViolation`, a ``ValueError`` carrying it.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Every kind of fault, with its Chinese name for the referee page.
KINDS_ZH: dict[str, str] = {
    "illegal_combination": "不成牌型",
    "does_not_beat": "管不上",
    "out_of_turn": "没轮到",
    "too_many_cards": "手牌不够",
    "duplicate_card": "重复的牌",
    "not_held": "手中没有这张牌",
    "bomb_quota": "炸弹超出限额",
    "cannot_pass": "首出不能不出",
    "not_started": "牌局未开始",
    "finished": "牌局已结束",
    "wrong_phase": "此时不能这样做",
    "bad_bid": "叫牌不合规",
    "bad_kitty": "底牌不对",
    "bad_deal": "发牌不对",
    "bad_correction": "更正无效",
    "bad_seat": "没有这个座位",
    "not_announced": "没有报牌",
}
KINDS: tuple[str, ...] = tuple(KINDS_ZH)


@dataclass(frozen=True)
class Violation:
    """One fault: its ``kind``, the seat at fault (if any), and a message in both languages."""

    kind: str
    message: str
    seat: int | None = None
    zh: str = ""
    event_index: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS_ZH:
            raise ValueError(f"unknown violation kind {self.kind!r}")

    def __str__(self) -> str:
        zh = self.zh or KINDS_ZH[self.kind]
        return f"{self.kind}: {self.message} / {zh}"

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "message": self.message, "seat": self.seat, "zh": self.zh,
                "event_index": self.event_index}


class HandViolation(ValueError):
    """Raised by ``Hand.apply`` when an event breaks a rule; ``.violation`` says which."""

    def __init__(self, violation: Violation) -> None:
        super().__init__(str(violation))
        self.violation = violation

    @property
    def kind(self) -> str:
        return self.violation.kind
