"""Hand events: the plain, JSON-serialisable facts a hand is folded from.

Every event is a small frozen dataclass with a ``kind`` and an optional ``time`` (seconds,
as the recorder counts them: since the hand started, or a Unix time; the engine only
carries it). Cards travel as card text in ``to_dict`` so a record reads like a score sheet,
and ``event_from_dict(e.to_dict()) == e`` for every event.

>>> from engine.cards import parse_cards
>>> e = Play(seat=1, cards=tuple(parse_cards("3s 3h")), time=12.5)
>>> event_from_dict(e.to_dict()) == e
True
>>> e.to_dict()["kind"]
'play'
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from engine.cards import Card, format_cards, parse_cards

BID_ACTIONS = ("bid", "pass", "call", "grab")
CORRECTION_ACTIONS = ("replace", "insert", "delete", "undo")


@dataclass(frozen=True)
class Event:
    """Base of every event. Subclasses set ``kind`` and add their own fields."""

    kind: ClassVar[str] = "event"
    _card_fields: ClassVar[tuple[str, ...]] = ()
    _one_card_fields: ClassVar[tuple[str, ...]] = ()

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name in self._card_fields and value is not None:
                value = _cards_out(value)
            elif isinstance(value, Card):
                value = str(value)
            elif isinstance(value, Event):
                value = value.to_dict()
            elif isinstance(value, tuple):
                value = list(value)
            data[f.name] = value
        return data


def _cards_out(value: Any) -> Any:
    """Card tuples become text; tuples of hands become lists of text."""
    if value and isinstance(value[0], tuple):
        return [format_cards(hand) for hand in value]
    return format_cards(value)


def _cards_in(value: Any, name: str) -> Any:
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(parse_cards(value))
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return tuple(tuple(parse_cards(v)) for v in value)
    raise ValueError(f"{name} must be card text (or a list of card text), not {value!r}")


def _seat(value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"seat must be a non-negative integer, not {value!r}")


@dataclass(frozen=True)
class SeatEvent(Event):
    """An event that only names a seat (and when): a pass, an open hand, a double..."""

    seat: int
    time: float | None = None

    def __post_init__(self) -> None:
        _seat(self.seat)


@dataclass(frozen=True)
class Deal(Event):
    """The deal (发牌). ``counts``: cards dealt per seat. ``hands``/``kitty`` are known only to
    a simulator or a referee who saw them; a camera referee leaves them ``None``."""

    kind: ClassVar[str] = "deal"
    _card_fields: ClassVar[tuple[str, ...]] = ("hands", "kitty")
    counts: tuple[int, ...]
    first_bidder: int = 0
    hands: tuple[tuple[Card, ...], ...] | None = None
    kitty: tuple[Card, ...] | None = None
    time: float | None = None

    def __post_init__(self) -> None:
        # Lists given by callers become tuples, so equal deals compare equal after a round trip.
        object.__setattr__(self, "counts", tuple(self.counts))
        if self.hands is not None:
            object.__setattr__(self, "hands", tuple(tuple(h) for h in self.hands))
        if self.kitty is not None:
            object.__setattr__(self, "kitty", tuple(self.kitty))
        if not self.counts or any(not isinstance(c, int) or c < 0 for c in self.counts):
            raise ValueError(f"deal counts must be non-negative integers, not {self.counts!r}")
        _seat(self.first_bidder)
        if self.hands is not None:
            if len(self.hands) != len(self.counts):
                raise ValueError("deal: one known hand per seat")
            for seat, (hand, count) in enumerate(zip(self.hands, self.counts, strict=True)):
                if len(hand) != count:
                    raise ValueError(f"deal: seat {seat} holds {len(hand)} cards, counts say {count}")


@dataclass(frozen=True)
class Bid(Event):
    """A bid (叫分/叫地主/抢地主). ``action``: ``bid`` with ``value`` 1..3, ``pass`` (不叫/不抢),
    ``call`` (叫地主) or ``grab`` (抢地主)."""

    kind: ClassVar[str] = "bid"
    seat: int
    action: str
    value: int = 0
    time: float | None = None

    def __post_init__(self) -> None:
        _seat(self.seat)
        if self.action not in BID_ACTIONS:
            raise ValueError(f"bid action must be one of {BID_ACTIONS}, not {self.action!r}")
        if self.action == "bid" and (not isinstance(self.value, int) or self.value < 1):
            raise ValueError(f"a bid needs a value of at least 1, not {self.value!r}")


@dataclass(frozen=True)
class Landlord(Event):
    """The referee names the landlord directly (no bids seen). ``base`` defaults to 1."""

    kind: ClassVar[str] = "landlord"
    seat: int
    base: int = 1
    time: float | None = None

    def __post_init__(self) -> None:
        _seat(self.seat)
        if not isinstance(self.base, int) or self.base < 1:
            raise ValueError(f"landlord base must be a positive integer, not {self.base!r}")


@dataclass(frozen=True)
class Kitty(Event):
    """The kitty (底牌) is revealed (or, four-player, recorded by the referee)."""

    kind: ClassVar[str] = "kitty"
    _card_fields: ClassVar[tuple[str, ...]] = ("cards",)
    cards: tuple[Card, ...]
    time: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(self.cards))


@dataclass(frozen=True)
class Play(Event):
    """A seat plays cards (出牌)."""

    kind: ClassVar[str] = "play"
    _card_fields: ClassVar[tuple[str, ...]] = ("cards",)
    seat: int
    cards: tuple[Card, ...]
    time: float | None = None

    def __post_init__(self) -> None:
        _seat(self.seat)
        object.__setattr__(self, "cards", tuple(self.cards))
        if not self.cards:
            raise ValueError("a play needs at least one card (an empty play is a Pass)")


@dataclass(frozen=True)
class Pass(SeatEvent):
    """A seat passes (不出/要不起)."""

    kind: ClassVar[str] = "pass"


@dataclass(frozen=True)
class OpenHand(SeatEvent):
    """The landlord shows his hand (明牌) for the open-hand multiplier."""

    kind: ClassVar[str] = "open_hand"


@dataclass(frozen=True)
class Concede(SeatEvent):
    """A seat gives up the hand (认输): its side loses as if the other side went out."""

    kind: ClassVar[str] = "concede"


@dataclass(frozen=True)
class Escape(SeatEvent):
    """A seat leaves the table mid-hand (逃跑): the hand ends with the escape penalty."""

    kind: ClassVar[str] = "escape"


@dataclass(frozen=True)
class Penalty(Event):
    """Points a referee deducts (``points`` > 0 is taken off): dropped card 2 [001],
    misconduct, or ``disqualify`` for hiding cards [000 part 5]."""

    kind: ClassVar[str] = "penalty"
    seat: int
    points: int = 0
    reason: str = ""
    disqualify: bool = False
    time: float | None = None

    def __post_init__(self) -> None:
        _seat(self.seat)
        if not isinstance(self.points, int) or isinstance(self.points, bool):
            raise ValueError(f"penalty points must be an integer, not {self.points!r}")


@dataclass(frozen=True)
class Announce(SeatEvent):
    """A seat announces how many cards it has left (报牌/报单/报双)."""

    kind: ClassVar[str] = "announce"


@dataclass(frozen=True)
class Shown(Event):
    """After the hand, a seat lays the cards it still holds face up (亮牌, the club habit of
    showing hands): with the plays and the kitty they account for the whole deck. A later
    ``Shown`` of the same seat is a fuller or corrected read and takes the earlier one's place."""

    kind: ClassVar[str] = "shown"
    _card_fields: ClassVar[tuple[str, ...]] = ("cards",)
    seat: int
    cards: tuple[Card, ...]
    time: float | None = None

    def __post_init__(self) -> None:
        _seat(self.seat)
        object.__setattr__(self, "cards", tuple(self.cards))
        if not self.cards:
            raise ValueError("cards shown need at least one card")


@dataclass(frozen=True)
class End(Event):
    """The referee closes the hand. ``abandoned``: no result (misdeal, table stopped)."""

    kind: ClassVar[str] = "end"
    abandoned: bool = False
    reason: str = ""
    time: float | None = None


@dataclass(frozen=True)
class Correction(Event):
    """A referee's fix of event ``target`` (an index into the hand's effective events).

    ``replace`` puts ``event`` in its place, ``insert`` puts ``event`` before it, ``delete``
    removes it, ``undo`` removes the last effective event (``target`` is ignored)."""

    kind: ClassVar[str] = "correction"
    action: str
    target: int = -1
    event: Event | None = field(default=None)
    reason: str = ""
    time: float | None = None

    def __post_init__(self) -> None:
        if self.action not in CORRECTION_ACTIONS:
            raise ValueError(f"correction action must be one of {CORRECTION_ACTIONS}, not {self.action!r}")
        if self.action in ("replace", "insert") and self.event is None:
            raise ValueError(f"a {self.action} correction needs the event to {self.action}")
        if isinstance(self.event, Correction):
            raise ValueError("a correction cannot carry another correction")
        if self.action != "undo" and (not isinstance(self.target, int) or self.target < 0):
            raise ValueError(f"correction target must be an event index, not {self.target!r}")


@dataclass(frozen=True)
class Marker(Event):
    """Five-player: the marker card (明牌) turned face up in the deal, and the seat it fell to,
    the open landlord (明地主), who takes the kitty unseen. Whoever holds its twin (the other
    copy, same rank and suit) is the hidden landlord (暗地主). Never a joker; the suit is needed
    to tell the twin.

    >>> Marker(2, Card.parse("7h")).to_dict()
    {'kind': 'marker', 'seat': 2, 'card': '7h', 'time': None}
    """

    kind: ClassVar[str] = "marker"
    _one_card_fields: ClassVar[tuple[str, ...]] = ("card",)
    seat: int
    card: Card
    time: float | None = None

    def __post_init__(self) -> None:
        _seat(self.seat)
        if not isinstance(self.card, Card):
            raise ValueError(f"the marker is one card, not {self.card!r}")
        if self.card.is_joker or self.card.suit is None:
            raise ValueError(f"the marker must be a suited card, not a joker: {self.card}")


@dataclass(frozen=True)
class Reveal(Event):
    """Five-player: the hidden landlord is shown (亮出身份). ``seat`` holds the marker's twin (the
    open landlord himself when he holds both and plays alone); ``by``: the landlord who chose to
    reveal (``None``: ``seat`` itself). Before the first play it doubles; after the hand it only
    names him for the settlement."""

    kind: ClassVar[str] = "reveal"
    seat: int
    by: int | None = None
    time: float | None = None

    def __post_init__(self) -> None:
        _seat(self.seat)
        if self.by is not None:
            _seat(self.by)


@dataclass(frozen=True)
class Double(SeatEvent):
    """Five-player: a player doubles (加倍), once a hand, before the first play."""

    kind: ClassVar[str] = "double"


@dataclass(frozen=True)
class KittyPick(Event):
    """斗帝主: of the kitty cards shown to him, the landlord (帝主) takes these (any, or none).

    >>> e = KittyPick(0, tuple(parse_cards("2s BJ")))
    >>> event_from_dict(e.to_dict()) == e, e.to_dict()["cards"]
    (True, '2s BJ')
    """

    kind: ClassVar[str] = "kitty_pick"
    _card_fields: ClassVar[tuple[str, ...]] = ("cards",)
    seat: int
    cards: tuple[Card, ...] = ()
    time: float | None = None

    def __post_init__(self) -> None:
        _seat(self.seat)
        object.__setattr__(self, "cards", tuple(self.cards))


AnyEvent = TypeVar("AnyEvent", bound=Event)


def retimed(event: AnyEvent, time: float | None) -> AnyEvent:
    """``event`` with another ``time``.

    >>> retimed(Pass(1, time=3.0), None)
    Pass(seat=1, time=None)
    """
    return dataclasses.replace(event, time=time)  # type: ignore[call-arg]  # each kind has a time, Event none


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (Deal, Bid, Landlord, Kitty, Play, Pass, OpenHand, Concede, Escape, Penalty, Announce, Shown, End,
                Correction, Marker, Reveal, Double, KittyPick)
}


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild an event from ``to_dict`` output; malformed data raises ``ValueError``."""
    if not isinstance(data, dict):
        raise ValueError(f"an event must be a JSON object, not {type(data).__name__}")
    kind: Any = data.get("kind")  # what the record says: any JSON value
    cls = EVENT_TYPES.get(kind)
    if cls is None:
        raise ValueError(f"unknown event kind {kind!r}; expected one of {', '.join(EVENT_TYPES)}")
    names = {f.name: f for f in dataclasses.fields(cls)}
    unknown = set(data) - set(names) - {"kind"}
    if unknown:
        raise ValueError(f"{kind} event has unknown field(s): {', '.join(sorted(unknown))}")
    kwargs: dict[str, Any] = {}
    for name, value in data.items():
        if name == "kind":
            continue
        if name in cls._card_fields:
            value = _cards_in(value, f"{kind}.{name}")
        elif name in cls._one_card_fields:
            if not isinstance(value, str):
                raise ValueError(f"{kind}.{name} must be the text of one card, not {value!r}")
            value = Card.parse(value)
        elif name == "event" and value is not None:
            value = event_from_dict(value)
        elif name == "time" and value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise ValueError(f"{kind} event: time must be a number of seconds or null, not {value!r}")
        elif name == "counts":
            if not isinstance(value, list | tuple):
                raise ValueError(f"deal counts must be a list, not {value!r}")
            value = tuple(value)
        kwargs[name] = value
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise ValueError(f"{kind} event: {exc}") from None
