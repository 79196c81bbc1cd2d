"""The tracker's own stored records, next to the engine's rules-only events.

The engine's events (``engine.events``) describe the game. The table also produces facts
that are not rules events: the referee's alerts and the end of a match. They are stored in
the same append-only log with their own ``kind``, so the page's history shows them in order.

An alert is stored as data (its kind, seat, cards and named fields); its sentence comes from
``tracker.alerts`` when it is shown, so the wording can change without touching stores.

>>> a = Alert("does_not_beat", seat=1, cards="3s", data={"beaten": "5h", "other": 0})
>>> record_from_dict(a.to_dict()) == a
True
>>> a.message
'seat 2: 3♠ does not beat 5♥ (seat 1)'
>>> a.text("zh", ("甲", "乙", "丙"))
'乙的3♠ 管不上 甲的5♥'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar

from engine.events import Event, event_from_dict
from engine.violations import Data, Violation, freeze_data
from tracker import alerts


@dataclass(frozen=True, init=False)
class Alert:
    """Something the referee wants a person to look at (a fault, or a doubtful read).

    ``alert``: a kind of ``tracker.alerts.ALERTS``. ``seat``: the seat concerned (from 0).
    ``cards``: what the camera read (card text) when the alert is about a play;
    ``suggestion``: card text of the likely correct read, or ``None``. ``event_index``: where
    in the hand's effective events the fault would have gone. ``data``: the other named fields
    its message needs (``{"left": 2}``).

    ``fallback_en``/``fallback_zh``: text shown when the table cannot render the alert: the
    sentences of alerts stored before alerts were data (their ``message``/``zh`` keys), whose
    kind may since have left the table. New alerts leave them empty. ``data`` may be given as a
    mapping (or pairs); the alert holds it as sorted pairs (``engine.violations.freeze_data``).
    """

    kind: ClassVar[str] = "alert"
    alert: str
    fallback_en: str
    fallback_zh: str
    seat: int | None
    cards: str | None
    suggestion: str | None
    event_index: int | None
    time: float | None
    data: Data

    def __init__(self, alert: str, fallback_en: str = "", fallback_zh: str = "", seat: int | None = None,
                 cards: str | None = None, suggestion: str | None = None, event_index: int | None = None,
                 time: float | None = None, data: Mapping[str, object] | Iterable[tuple[str, object]] = ()) -> None:
        if alert not in alerts.ALERTS and not (fallback_en or fallback_zh):
            raise ValueError(f"unknown alert kind {alert!r}")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool) or seat < 0):
            raise ValueError(f"alert seat must be a non-negative integer or null, not {seat!r}")
        if not isinstance(data, Mapping | tuple | list):
            raise ValueError(f"alert data must be an object, not {type(data).__name__}")
        for name, value in (("alert", alert), ("fallback_en", fallback_en), ("fallback_zh", fallback_zh),
                            ("seat", seat), ("cards", cards), ("suggestion", suggestion),
                            ("event_index", event_index), ("time", time), ("data", freeze_data(data))):
            object.__setattr__(self, name, value)

    @classmethod
    def of(cls, violation: Violation, cards: str | None = None, time: float | None = None) -> Alert:
        return cls(violation.kind, seat=violation.seat, cards=cards, event_index=violation.event_index, time=time,
                   data=violation.data)

    @property
    def fields(self) -> dict[str, Any]:
        return dict(self.data)

    @property
    def severity(self) -> str:
        return alerts.severity(self.alert)

    def text(self, lang: str, players: Sequence[str] = ()) -> str:
        """The message in ``lang`` with the players' names (seat numbers without them)."""
        rendered = alerts.render(self.alert, lang, seat=self.seat, cards=self.cards, suggestion=self.suggestion,
                                 data=self.data, players=players)
        if rendered is not None:
            return rendered
        stored = (self.fallback_zh or self.fallback_en) if lang == "zh" else (self.fallback_en or self.fallback_zh)
        return stored or alerts.kind_name(self.alert, lang)

    @property
    def message(self) -> str:
        return self.text("en")

    @property
    def zh(self) -> str:
        return self.text("zh")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "alert": self.alert, "seat": self.seat, "cards": self.cards,
                               "suggestion": self.suggestion, "event_index": self.event_index, "time": self.time,
                               "data": self.fields}
        if self.fallback_en:
            out["message"] = self.fallback_en
        if self.fallback_zh:
            out["zh"] = self.fallback_zh
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Alert:
        """From ``to_dict``; a stored ``message``/``zh`` (all alerts of older stores have them)
        becomes the fallback text."""
        values = {k: v for k, v in data.items() if k not in ("kind", "message", "zh")}
        return cls(fallback_en=data.get("message") or "", fallback_zh=data.get("zh") or "", **values)


@dataclass(frozen=True)
class MatchEnd:
    """The referee ends the match (结束比赛); later hands are refused by the page."""

    kind: ClassVar[str] = "match_end"
    reason: str = ""
    time: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **asdict(self)}


Record = Event | Alert | MatchEnd
TRACKER_TYPES: dict[str, type[Alert] | type[MatchEnd]] = {Alert.kind: Alert, MatchEnd.kind: MatchEnd}


def record_from_dict(data: dict[str, Any]) -> Record:
    """An engine event or a tracker record from its ``to_dict``; bad data raises ``ValueError``."""
    if not isinstance(data, dict):
        raise ValueError(f"a record must be a JSON object, not {type(data).__name__}")
    kind: Any = data.get("kind")  # what the record says: any JSON value
    cls = TRACKER_TYPES.get(kind)
    if cls is None:
        return event_from_dict(data)
    names = {f.name for f in fields(cls)} | ({"message", "zh"} if cls is Alert else set())
    unknown = set(data) - names - {"kind"}
    if unknown:
        raise ValueError(f"{cls.kind} record has unknown field(s): {', '.join(sorted(unknown))}")
    try:
        if cls is Alert:
            return Alert.from_dict(data)
        return cls(**{k: v for k, v in data.items() if k != "kind"})
    except TypeError as exc:
        raise ValueError(f"{cls.kind} record: {exc}") from None
