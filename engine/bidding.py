"""Bidding (叫分 / 叫地主抢地主): who becomes landlord and at what base.

One small state machine per style of ``RuleSet.bidding``:

- ``score`` (叫分) [000, 001]: in play order each seat bids once, 1..3 or pass; a bid must
  exceed the current one; the top bid ends it at once. All pass: redeal, or (option
  ``all_pass="first_bidder"``) the first bidder is landlord at 1. Option
  ``third_must_bid_two``: when every earlier seat passed, the last seat must bid 2 or more.
- ``auction`` [003]: like ``score`` but the bidding goes round until every other seat has
  passed in a row after a bid (two passes with three players) or someone bids the top.
- ``grab`` (叫地主/抢地主) [001]: seats in order call or decline; after a call each later
  seat that has not declined may grab once, each grab doubling; the last grabber is landlord.
- ``call`` (two-player) [003]: the first seat to call is landlord; nobody calls: redeal.
- ``marker`` (five-player) [003]: nobody bids; the seat dealt the face-up marker card is the
  landlord at base 1 (the hand's ``Marker`` event, engine.teams). No bid is ever legal.

Seats are numbered in play order from the table's point of view: ``next`` is seat + 1
(``seat_order="ccw"``, the default) or seat - 1 (``"cw"``), modulo the number of players.

>>> from engine.rules import get_rules
>>> b = new_bidding(get_rules("classic"), first=0)
>>> b.apply(0, "bid", 1); b.apply(1, "pass"); b.apply(2, "bid", 3)
>>> b.landlord, b.base, b.done
(2, 3, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.rules import RuleSet, get_rules


class BidError(ValueError):
    """An out-of-order or illegal bid. ``kind`` names the fault; ``zh`` says it in Chinese."""

    def __init__(self, kind: str, message: str, zh: str = "") -> None:
        super().__init__(f"{message}" + (f" / {zh}" if zh else ""))
        self.kind = kind
        self.message = message
        self.zh = zh


def next_seat(seat: int, players: int, order: str = "ccw") -> int:
    """The seat that acts after ``seat`` in play order."""
    return (seat + 1) % players if order == "ccw" else (seat - 1) % players


@dataclass
class Bidding:
    """Common state: who acts, what was said, and the outcome once ``done``."""

    rules: RuleSet
    first: int = 0
    to_act: int | None = None
    history: list[tuple[int, str, int]] = field(default_factory=list)
    landlord: int | None = None
    base: int = 0
    grabs: int = 0
    redeal: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.first < self.rules.players:
            raise BidError("bad_seat", f"first bidder {self.first} is not a seat of {self.rules.players}",
                           f"首叫座位 {self.first} 不存在")
        self.to_act = self.first

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def done(self) -> bool:
        return self.landlord is not None or self.redeal

    def _next(self, seat: int) -> int:
        return next_seat(seat, self.players, self.rules.seat_order)

    def legal(self) -> list[tuple[str, int]]:
        """What the seat to act may say, as ``(action, value)`` pairs."""
        raise NotImplementedError

    def check(self, seat: int, action: str, value: int = 0) -> BidError | None:
        """The fault of this bid, or ``None`` if it is legal now (nothing changes)."""
        if self.done:
            return BidError("bidding_over", "bidding is over", "叫牌已结束")
        if seat != self.to_act:
            return BidError("out_of_turn", f"seat {seat} bid out of turn; seat {self.to_act} is to bid",
                            f"{seat} 号位抢先叫牌，应由 {self.to_act} 号位叫")
        allowed = self.legal()
        if action == "pass" and ("pass", 0) in allowed:
            return None
        if (action, value) in allowed or (action in ("call", "grab") and (action, 0) in allowed):
            return None
        options = ", ".join(a if not v else f"{v}" for a, v in allowed)
        return BidError("illegal_bid", f"seat {seat} may not say {action}{' ' + str(value) if value else ''}; "
                        f"allowed: {options}", f"{seat} 号位不能这样叫")

    def apply(self, seat: int, action: str, value: int = 0) -> None:
        """Record a bid; an illegal or out-of-order one raises :class:`BidError`."""
        error = self.check(seat, action, value)
        if error is not None:
            raise error
        if action in ("call", "grab", "pass"):
            value = 0
        self.history.append((seat, action, value))
        self._step(seat, action, value)
        if self.done:
            self.to_act = None

    def _step(self, seat: int, action: str, value: int) -> None:
        raise NotImplementedError

    @property
    def multiplier(self) -> int:
        """What bidding adds to the hand's multiplier (grabs)."""
        return 2 ** self.grabs if self.rules.grab_doubles else 1


class ScoreBidding(Bidding):
    """叫分: each seat bids once, 1..max or pass; the top bid ends it."""

    def _high(self) -> tuple[int | None, int]:
        best_seat, best = None, 0
        for seat, action, value in self.history:
            if action == "bid" and value > best:
                best_seat, best = seat, value
        return best_seat, best

    def legal(self) -> list[tuple[str, int]]:
        _, high = self._high()
        bids = [("bid", v) for v in range(high + 1, self.rules.max_bid + 1)]
        last_to_speak = len(self.history) == self.players - 1
        if self.rules.third_must_bid_two and last_to_speak and high == 0:
            return [b for b in bids if b[1] >= 2]
        return [("pass", 0), *bids]

    def _step(self, seat: int, action: str, value: int) -> None:
        if action == "bid" and value >= self.rules.max_bid:
            self.landlord, self.base = seat, value
            return
        if len(self.history) < self.players:
            self.to_act = self._next(seat)
            return
        high_seat, high = self._high()
        if high_seat is not None:
            self.landlord, self.base = high_seat, high
        elif self.rules.all_pass == "first_bidder":
            self.landlord, self.base = self.first, 1
        else:
            self.redeal = True


class AuctionBidding(ScoreBidding):
    """Auction [003]: round and round until all others pass in a row after a bid."""

    def legal(self) -> list[tuple[str, int]]:
        _, high = self._high()
        return [("pass", 0), *[("bid", v) for v in range(high + 1, self.rules.max_bid + 1)]]

    def _step(self, seat: int, action: str, value: int) -> None:
        high_seat, high = self._high()
        if action == "bid" and value >= self.rules.max_bid:
            self.landlord, self.base = seat, value
            return
        if high_seat is None:
            if len(self.history) >= self.players:  # a full round of passes: 荒牌
                self.redeal = True
                return
        else:
            trailing = 0
            for _, act, _ in reversed(self.history):
                if act != "pass":
                    break
                trailing += 1
            if trailing >= self.players - 1:
                self.landlord, self.base = high_seat, high
                return
        self.to_act = self._next(seat)


class GrabBidding(Bidding):
    """叫地主/抢地主 [001]: call or decline; later seats that did not decline may grab once."""

    caller: int | None = None
    landlord_so_far: int | None = None

    def _grabbers(self) -> list[int]:
        """Seats still entitled to grab, in order, after the call."""
        assert self.caller is not None
        declined = {s for s, a, _ in self.history if a == "pass"}
        spoke_after_call = {s for s, a, _ in self.history[self._call_index() + 1:]}
        seats, seat = [], self._next(self.caller)
        while seat != self.caller:
            if seat not in declined and seat not in spoke_after_call:
                seats.append(seat)
            seat = self._next(seat)
        return seats

    def _call_index(self) -> int:
        return next(i for i, (_, a, _) in enumerate(self.history) if a == "call")

    def legal(self) -> list[tuple[str, int]]:
        if self.caller is None:
            return [("pass", 0), ("call", 0)]
        return [("pass", 0), ("grab", 0)]

    def _step(self, seat: int, action: str, value: int) -> None:
        if self.caller is None:
            if action == "call":
                self.caller = seat
                self.landlord_so_far = seat
            elif len(self.history) >= self.players:
                self.redeal = True
                return
            else:
                self.to_act = self._next(seat)
                return
        elif action == "grab":
            self.grabs += 1
            self.landlord_so_far = seat
        remaining = self._grabbers()
        if remaining:
            self.to_act = remaining[0]
        else:
            self.landlord, self.base = self.landlord_so_far, 1


class CallBidding(Bidding):
    """Two-player [003]: the first seat to call is landlord; nobody calls: redeal."""

    def legal(self) -> list[tuple[str, int]]:
        return [("pass", 0), ("call", 0)]

    def _step(self, seat: int, action: str, value: int) -> None:
        if action == "call":
            self.landlord, self.base = seat, 1
        elif len(self.history) >= self.players:
            self.redeal = True
        else:
            self.to_act = self._next(seat)


class MarkerBidding(Bidding):
    """Five-player [003]: no bids; the marker card names the landlord (``Hand`` applies it)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.to_act = None

    def legal(self) -> list[tuple[str, int]]:
        return []

    def check(self, seat: int, action: str, value: int = 0) -> BidError | None:
        return BidError("illegal_bid", "nobody bids in a marker game: the marker card names the landlord",
                        "本玩法不叫牌，标记牌定地主")

    def _step(self, seat: int, action: str, value: int) -> None:  # pragma: no cover - nothing is legal
        raise BidError("illegal_bid", "no bids in a marker game", "本玩法不叫牌")


_STYLES: dict[str, type[Bidding]] = {
    "score": ScoreBidding, "auction": AuctionBidding, "grab": GrabBidding, "call": CallBidding,
    "marker": MarkerBidding,
}


def new_bidding(rules: RuleSet | str = "classic", first: int = 0) -> Bidding:
    """A fresh bidding state machine for the rule set's bidding style."""
    rules = get_rules(rules)
    return _STYLES[rules.bidding](rules=rules, first=first)
