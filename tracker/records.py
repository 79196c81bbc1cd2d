"""The tracker's own stored records, next to the engine's rules-only events.

The engine's events (``engine.events``) describe the game. The table also produces facts
that are not rules events: the referee's alerts and the end of a match. They are stored in
the same append-only log with their own ``kind``, so the page's history shows them in order.

>>> a = Alert("does_not_beat", "3s does not beat 5h", "管不上", seat=1, cards="3s")
>>> record_from_dict(a.to_dict()) == a
True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar

from engine.events import Event, event_from_dict
from engine.violations import KINDS_ZH, Violation

#: Alert kinds beyond the engine's violations.
ALERT_KINDS_ZH: dict[str, str] = {
    **KINDS_ZH,
    "uncertain_read": "看不清的牌",
    "seen_twice": "同一张牌出现两次",
    "late_card": "出牌后才读到的牌",
    "missed_play": "可能漏读了一手牌",
    "hand_unfinished": "上一局没打完",
    "unknown_zone": "牌放在了区域外",
    "rejected_on_replay": "记录中的事件无效",
    "source": "摄像头问题",
}


@dataclass(frozen=True)
class Alert:
    """Something the referee wants a person to look at (a fault, or a doubtful read).

    ``kind``: a violation kind of ``engine.violations`` or one of ``ALERT_KINDS_ZH``.
    ``message``/``zh``: English and Chinese text for the page. ``cards``: what the camera read
    (card text) when the alert is about a play; ``suggestion``: card text of the likely
    correct read (an "uncertain read"), or ``None``. ``event_index``: where in the hand's
    effective events the fault would have gone.
    """

    kind: ClassVar[str] = "alert"
    alert: str
    message: str
    zh: str = ""
    seat: int | None = None
    cards: str | None = None
    suggestion: str | None = None
    event_index: int | None = None
    time: float | None = None

    def __post_init__(self) -> None:
        if self.alert not in ALERT_KINDS_ZH:
            raise ValueError(f"unknown alert kind {self.alert!r}")
        if self.seat is not None and (not isinstance(self.seat, int) or isinstance(self.seat, bool) or self.seat < 0):
            raise ValueError(f"alert seat must be a non-negative integer or null, not {self.seat!r}")
        if not self.zh:
            object.__setattr__(self, "zh", ALERT_KINDS_ZH[self.alert])

    @classmethod
    def of(cls, violation: Violation, cards: str | None = None, time: float | None = None) -> Alert:
        return cls(violation.kind, violation.message, violation.zh or KINDS_ZH[violation.kind], violation.seat,
                   cards, None, violation.event_index, time)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **asdict(self)}


@dataclass(frozen=True)
class MatchEnd:
    """The referee ends the match (结束比赛); later hands are refused by the page."""

    kind: ClassVar[str] = "match_end"
    reason: str = ""
    time: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **asdict(self)}


Record = Event | Alert | MatchEnd
TRACKER_TYPES: dict[str, type] = {Alert.kind: Alert, MatchEnd.kind: MatchEnd}


def record_from_dict(data: dict[str, Any]) -> Record:
    """An engine event or a tracker record from its ``to_dict``; bad data raises ``ValueError``."""
    if not isinstance(data, dict):
        raise ValueError(f"a record must be a JSON object, not {type(data).__name__}")
    cls = TRACKER_TYPES.get(data.get("kind"))  # type: ignore[arg-type]
    if cls is None:
        return event_from_dict(data)
    names = {f.name for f in fields(cls)}
    unknown = set(data) - names - {"kind"}
    if unknown:
        raise ValueError(f"{cls.kind} record has unknown field(s): {', '.join(sorted(unknown))}")
    try:
        return cls(**{k: v for k, v in data.items() if k != "kind"})
    except TypeError as exc:
        raise ValueError(f"{cls.kind} record: {exc}") from None
