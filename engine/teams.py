"""Landlord sides beyond one landlord, and the choices made before the first play.

Mixed into :class:`engine.hand.Hand` (it reads and sets the hand's fields):

- **Five players** (preset ``five``) [003]: a non-joker card is turned face up in the deal
  (:class:`~engine.events.Marker`); its holder is the open landlord (明地主), leads, and takes
  the kitty unseen. The holder of its twin (the other copy: same rank and suit) is the hidden
  landlord (暗地主); when one hand holds both copies the open landlord plays alone (1 vs 4).
  Before the first play either landlord may reveal (亮出身份, :class:`~engine.events.Reveal`,
  x ``reveal_multiplier``); otherwise the hidden landlord is shown when the twin is played (the
  open landlord playing a second copy shows he is alone), and at the latest when the hand ends
  and the cards are known (a ``Reveal`` after the hand, or the dealt hands). Each player may
  double once before the first play (加倍, :class:`~engine.events.Double`, x2 each).
- **斗帝主** (preset ``dizhu``) [003]: the six kitty cards are shown to the landlord (帝主), who
  takes any of them, or none (:class:`~engine.events.KittyPick`), before his first play; the
  cards he leaves are out of play.

What the table knows is ``hand.hidden`` (the hidden landlord's seat once shown, ``None`` before)
and ``hand.hidden_shown`` (how: ``choice``, ``play`` or ``end``): a page shows no more than that.
:meth:`TeamPlay.twin_holder` is the truth when the deal's hands are known (simulator, tests).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from engine.cards import Card
from engine.events import Double, Event, KittyPick, Marker, Reveal
from engine.violations import identity

#: The events this mixin checks and applies.
TEAM_EVENTS = (Marker, Reveal, Double, KittyPick)


class TeamPlay:
    """Checks and effects of the team events; the hand's fields are declared on ``Hand``."""

    rules: Any
    landlord: int | None
    hidden: int | None
    hidden_shown: str
    marker: Card | None
    doubled: list[int]
    picked: tuple[Card, ...] | None
    marker_copies: int
    plays: list
    events: list
    phase: str
    known: list[list[Card]] | None
    kitty: tuple[Card, ...] | None
    cards_left: list[int]
    causes: list[tuple[str, int]]
    kitty_unplayed: Counter
    out_seat: int | None

    # ------------------------------------------------------------------ sides
    def landlord_side(self) -> tuple[int, ...]:
        """The landlord and, once shown, the hidden landlord (as the table knows them)."""
        if self.landlord is None:
            return ()
        if self.hidden is None or self.hidden == self.landlord:
            return (self.landlord,)
        return tuple(sorted((self.landlord, self.hidden)))

    def twin_holder(self) -> int | None:
        """Who was dealt the marker's twin, when the deal's hands are known (the open landlord
        when the kitty or his own hand holds both copies); ``None`` when unknown."""
        deal = self.events[0] if self.events else None
        if self.marker is None or self.landlord is None or deal is None or deal.hands is None:
            return None
        own = list(deal.hands[self.landlord]) + list(self.kitty or ())
        if sum(1 for c in own if c == self.marker) >= 2:
            return self.landlord
        return next((s for s, h in enumerate(deal.hands) if s != self.landlord and self.marker in h), None)

    @property
    def sides_known(self) -> bool:
        """Whether the teams are settled: always, except a five-player hand whose hidden
        landlord is not shown yet."""
        return not self.rules.hidden_landlord or self.hidden is not None

    # ------------------------------------------------------------------ checks
    def _check_team(self, event: Event) -> None:
        rules = self.rules
        seat = event.seat  # type: ignore[attr-defined]
        if isinstance(event, Marker):
            if rules.bidding != "marker":
                raise self._fault("wrong_phase", seat, reason="no_marker_game")  # type: ignore[attr-defined]
            if self.phase != "bidding":
                raise self._fault("wrong_phase", seat, reason="landlord_known")  # type: ignore[attr-defined]
            if self.known is not None and event.card not in self.known[seat]:
                raise self._fault("not_held", seat, card=str(event.card))  # type: ignore[attr-defined]
            return
        if isinstance(event, Reveal):
            self._check_reveal(event)
            return
        if self.phase != "play":
            raise self._fault("wrong_phase", seat, reason="no_landlord", event=event.kind)  # type: ignore[attr-defined]
        if self.plays:
            raise self._fault("wrong_phase", seat, reason="after_first_play", event=event.kind)  # type: ignore[attr-defined]
        if isinstance(event, Double):
            if not rules.player_double:
                raise self._fault("wrong_phase", seat, reason="no_doubling_game")  # type: ignore[attr-defined]
            if seat in self.doubled:
                raise self._fault("wrong_phase", seat, reason="already_doubled")  # type: ignore[attr-defined]
        elif isinstance(event, KittyPick):
            self._check_pick(event)

    def _check_reveal(self, event: Reveal) -> None:
        seat = event.seat
        if not self.rules.hidden_landlord:
            raise self._fault("wrong_phase", seat, reason="no_hidden_landlord")  # type: ignore[attr-defined]
        if self.phase not in ("play", "finished") or self.landlord is None:
            raise self._fault("wrong_phase", seat, reason="no_landlord", event=event.kind)  # type: ignore[attr-defined]
        if self.hidden is not None:
            raise self._fault("wrong_phase", seat, reason="already_revealed")  # type: ignore[attr-defined]
        if self.phase == "play" and self.plays:
            raise self._fault("wrong_phase", seat, reason="after_first_play", event=event.kind)  # type: ignore[attr-defined]
        if event.by is not None and event.by not in (seat, self.landlord):
            raise self._fault("wrong_phase", event.by, reason="not_a_landlord")  # type: ignore[attr-defined]
        twin = self.twin_holder()
        if twin is not None and twin != seat:
            raise self._fault("wrong_phase", seat, reason="not_twin_holder")  # type: ignore[attr-defined]

    def _check_pick(self, pick: KittyPick) -> None:
        seat = pick.seat
        if not self.rules.kitty_choice:
            raise self._fault("bad_kitty", seat, reason="no_kitty_choice")  # type: ignore[attr-defined]
        if seat != self.landlord:
            raise self._fault("bad_kitty", seat, reason="only_landlord_picks")  # type: ignore[attr-defined]
        if self.picked is not None:
            raise self._fault("bad_kitty", seat, reason="already_picked")  # type: ignore[attr-defined]
        if len(pick.cards) > self.rules.kitty_size:
            raise self._fault("bad_kitty", seat, reason="kitty_size", size=self.rules.kitty_size,  # type: ignore[attr-defined]
                              count=len(pick.cards))
        if self.kitty is not None and Counter(pick.cards) - Counter(self.kitty):
            raise self._fault("bad_kitty", seat, reason="not_in_kitty",  # type: ignore[attr-defined]
                              cards=" ".join(map(str, (Counter(pick.cards) - Counter(self.kitty)).elements())))

    def _check_pick_first(self, event: Event) -> None:
        """斗帝主: nobody plays before the landlord has taken his pick of the kitty."""
        if self.rules.kitty_choice and self.phase == "play" and self.picked is None:
            raise self._fault("wrong_phase", getattr(event, "seat", None), reason="kitty_pick_first")  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ effects
    def _do_team(self, event: Event) -> None:
        if isinstance(event, Marker):
            self.marker = event.card
            self._crown(event.seat, 1, [])  # type: ignore[attr-defined]
        elif isinstance(event, Reveal):
            self.hidden = event.seat
            if self.phase == "finished":
                self.hidden_shown = "end"
                self._whitewash()
            else:
                self.hidden_shown = "choice"
                self.causes.append(("reveal", self.rules.reveal_multiplier))
        elif isinstance(event, Double):
            self.doubled.append(event.seat)
            self.causes.append(("double", 2))
        elif isinstance(event, KittyPick):
            self.picked = event.cards
            self.cards_left[event.seat] += len(event.cards)
            self.kitty_unplayed = Counter(k for k in map(identity, event.cards) if k is not None)
            if self.known is not None:
                self.known[event.seat].extend(event.cards)

    def _spot_twin(self, seat: int, cards: tuple[Card, ...]) -> None:
        """A play holding the marker's twin shows the hidden landlord (the open landlord's
        second copy shows he plays alone)."""
        if self.marker is None or self.hidden is not None:
            return
        copies = sum(1 for c in cards if c == self.marker)
        if not copies:
            return
        if seat != self.landlord:
            self.hidden, self.hidden_shown = seat, "play"
            return
        self.marker_copies += copies
        if self.marker_copies >= 2:
            self.hidden, self.hidden_shown = seat, "play"

    def _end_sides(self) -> None:
        """The hand is over: a hidden landlord still unshown is named by the dealt hands, when
        known (the cards are turned over at the end)."""
        if self.rules.hidden_landlord and self.hidden is None:
            twin = self.twin_holder()
            if twin is not None:
                self.hidden, self.hidden_shown = twin, "end"

    def _whitewash(self) -> None:
        """Five-player: x2 when the losing side played no card at all [003] (春天 when the
        landlords win, 反春 when the farmers do); re-counted once the sides are known."""
        if not self.rules.whitewash or self.out_seat is None:
            return
        self.causes[:] = [c for c in self.causes if c[0] not in ("spring", "anti_spring")]
        if not self.sides_known:
            return
        side = set(self.landlord_side())
        won = self.out_seat in side
        losers = {s for s in range(len(self.cards_left)) if (s in side) != won}
        if not any(p.seat in losers for p in self.plays):
            self.causes.append(("spring" if won else "anti_spring", 2))
