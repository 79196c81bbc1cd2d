"""Landlord sides beyond one landlord, and the choices made before the first play.

:class:`TeamPlay` checks and carries out these events on the :class:`engine.hand.Hand` it is
given (the hand's state is the hand's own; ``TeamPlay`` keeps none):

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
from typing import TYPE_CHECKING

from engine.cards import Card
from engine.events import Deal, Double, Event, KittyPick, Marker, Reveal
from engine.violations import HandViolation, fault, identity

if TYPE_CHECKING:
    from engine.hand import Hand

#: The events checked here and carried out by ``TeamPlay.apply`` (a ``Marker`` crowns the
#: landlord, which ``Hand`` does).
TEAM_EVENTS = (Marker, Reveal, Double, KittyPick)
TeamEvent = Marker | Reveal | Double | KittyPick


class TeamPlay:
    """Checks and effects of the team events, on the hand given."""

    def __init__(self, hand: Hand) -> None:
        self.hand = hand

    def _fault(self, kind: str, seat: int | None = None, **data: object) -> HandViolation:
        return fault(self.hand, kind, seat, **data)

    # ------------------------------------------------------------------ sides
    def landlord_side(self) -> tuple[int, ...]:
        """The landlord and, once shown, the hidden landlord (as the table knows them)."""
        hand = self.hand
        if hand.landlord is None:
            return ()
        if hand.hidden is None or hand.hidden == hand.landlord:
            return (hand.landlord,)
        return tuple(sorted((hand.landlord, hand.hidden)))

    def twin_holder(self) -> int | None:
        """Who was dealt the marker's twin, when the deal's hands are known (the open landlord
        when the kitty or his own hand holds both copies); ``None`` when unknown."""
        hand = self.hand
        deal = hand.events[0] if hand.events else None
        if hand.marker is None or hand.landlord is None or not isinstance(deal, Deal) or deal.hands is None:
            return None
        own = list(deal.hands[hand.landlord]) + list(hand.kitty or ())
        if sum(1 for c in own if c == hand.marker) >= 2:
            return hand.landlord
        return next((s for s, h in enumerate(deal.hands) if s != hand.landlord and hand.marker in h), None)

    @property
    def sides_known(self) -> bool:
        """Whether the teams are settled: always, except a five-player hand whose hidden
        landlord is not shown yet."""
        return not self.hand.rules.hidden_landlord or self.hand.hidden is not None

    # ------------------------------------------------------------------ checks
    def check(self, event: TeamEvent) -> None:
        """Raise the fault a team event would be."""
        hand, rules, seat = self.hand, self.hand.rules, event.seat
        if seat >= hand.players:
            raise self._fault("bad_seat", seat, players=hand.players)
        if hand.phase == "not_started":
            raise self._fault("not_started", seat, event=event.kind)
        if hand.phase == "finished" and not isinstance(event, Reveal):
            raise self._fault("finished", seat, event=event.kind)
        if isinstance(event, Marker):
            if rules.bidding != "marker":
                raise self._fault("wrong_phase", seat, reason="no_marker_game")
            if hand.phase != "bidding":
                raise self._fault("wrong_phase", seat, reason="landlord_known")
            if hand.known is not None and event.card not in hand.known[seat]:
                raise self._fault("not_held", seat, card=str(event.card))
            return
        if isinstance(event, Reveal):
            self._check_reveal(event)
            return
        if hand.phase != "play":
            raise self._fault("wrong_phase", seat, reason="no_landlord", event=event.kind)
        if hand.plays:
            raise self._fault("wrong_phase", seat, reason="after_first_play", event=event.kind)
        if isinstance(event, Double):
            if not rules.player_double:
                raise self._fault("wrong_phase", seat, reason="no_doubling_game")
            if seat in hand.doubled:
                raise self._fault("wrong_phase", seat, reason="already_doubled")
        else:
            self._check_pick(event)

    def _check_reveal(self, event: Reveal) -> None:
        hand, seat = self.hand, event.seat
        if not hand.rules.hidden_landlord:
            raise self._fault("wrong_phase", seat, reason="no_hidden_landlord")
        if hand.phase not in ("play", "finished") or hand.landlord is None:
            raise self._fault("wrong_phase", seat, reason="no_landlord", event=event.kind)
        if hand.hidden is not None:
            raise self._fault("wrong_phase", seat, reason="already_revealed")
        if hand.phase == "play" and hand.plays:
            raise self._fault("wrong_phase", seat, reason="after_first_play", event=event.kind)
        if event.by is not None and event.by not in (seat, hand.landlord):
            raise self._fault("wrong_phase", event.by, reason="not_a_landlord")
        twin = self.twin_holder()
        if twin is not None and twin != seat:
            raise self._fault("wrong_phase", seat, reason="not_twin_holder")

    def _check_pick(self, pick: KittyPick) -> None:
        hand, seat = self.hand, pick.seat
        if not hand.rules.kitty_choice:
            raise self._fault("bad_kitty", seat, reason="no_kitty_choice")
        if seat != hand.landlord:
            raise self._fault("bad_kitty", seat, reason="only_landlord_picks")
        if hand.picked is not None:
            raise self._fault("bad_kitty", seat, reason="already_picked")
        if len(pick.cards) > hand.rules.kitty_size:
            raise self._fault("bad_kitty", seat, reason="kitty_size", size=hand.rules.kitty_size,
                              count=len(pick.cards))
        if hand.kitty is not None and Counter(pick.cards) - Counter(hand.kitty):
            raise self._fault("bad_kitty", seat, reason="not_in_kitty",
                              cards=" ".join(map(str, (Counter(pick.cards) - Counter(hand.kitty)).elements())))

    def check_pick_first(self, event: Event) -> None:
        """斗帝主: nobody plays before the landlord has taken his pick of the kitty."""
        hand = self.hand
        if hand.rules.kitty_choice and hand.phase == "play" and hand.picked is None:
            raise self._fault("wrong_phase", getattr(event, "seat", None), reason="kitty_pick_first")

    # ------------------------------------------------------------------ effects
    def apply(self, event: Reveal | Double | KittyPick | Marker) -> None:
        """Carry out a team event that has passed ``check`` (a ``Marker``: ``Hand`` crowns)."""
        hand = self.hand
        if isinstance(event, Reveal):
            hand.hidden = event.seat
            if hand.phase == "finished":
                hand.hidden_shown = "end"
                self.whitewash()
            else:
                hand.hidden_shown = "choice"
                hand.causes.append(("reveal", hand.rules.reveal_multiplier))
        elif isinstance(event, Double):
            hand.doubled.append(event.seat)
            hand.causes.append(("double", 2))
        elif isinstance(event, KittyPick):
            hand.picked = event.cards
            hand.cards_left[event.seat] += len(event.cards)
            hand.kitty_unplayed = Counter(k for k in map(identity, event.cards) if k is not None)
            if hand.known is not None:
                hand.known[event.seat].extend(event.cards)

    def spot_twin(self, seat: int, cards: tuple[Card, ...]) -> None:
        """A play holding the marker's twin shows the hidden landlord (the open landlord's
        second copy shows he plays alone)."""
        hand = self.hand
        if hand.marker is None or hand.hidden is not None:
            return
        copies = sum(1 for c in cards if c == hand.marker)
        if not copies:
            return
        if seat != hand.landlord:
            hand.hidden, hand.hidden_shown = seat, "play"
            return
        hand.marker_copies += copies
        if hand.marker_copies >= 2:
            hand.hidden, hand.hidden_shown = seat, "play"

    def end_sides(self) -> None:
        """The hand is over: a hidden landlord still unshown is named by the dealt hands, when
        known (the cards are turned over at the end)."""
        hand = self.hand
        if hand.rules.hidden_landlord and hand.hidden is None:
            twin = self.twin_holder()
            if twin is not None:
                hand.hidden, hand.hidden_shown = twin, "end"

    def whitewash(self) -> None:
        """Five-player: x2 when the losing side played no card at all [003] (春天 when the
        landlords win, 反春 when the farmers do); re-counted once the sides are known."""
        hand = self.hand
        if not hand.rules.whitewash or hand.out_seat is None:
            return
        hand.causes[:] = [c for c in hand.causes if c[0] not in ("spring", "anti_spring")]
        if not self.sides_known:
            return
        side = set(self.landlord_side())
        won = hand.out_seat in side
        losers = {s for s in range(len(hand.cards_left)) if (s in side) != won}
        if not any(p.seat in losers for p in hand.plays):
            hand.causes.append(("spring" if won else "anti_spring", 2))
