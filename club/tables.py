"""A table's events as the club sees them: each box match folded through the engine.

:class:`TableFold` takes a table's events in seq order (only up to the acknowledged seq, so
nothing is folded past a gap) and keeps, per box match, the hands (``engine.hand.Hand``), when
each was dealt (the box's clock), the match penalties and whether the match was ended. An event
the engine refuses on replay is counted in ``rejected`` and skipped, as the box's own page does.

:meth:`MatchFold.sheet` builds the engine ``Match`` of the hands that count: hands dealt before
``end_time``, and after it (or after a player went out) only the extra hands that settle a tie.
:meth:`MatchFold.tally` says, once for every page, how many of them were finished, how many were
void (作废: abandoned, or cut short when the box ended the match) and which hand is in play.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from club.formats import tied
from club.storage import BoxEvent, BoxMatch
from engine.events import EVENT_TYPES, Deal, Penalty, event_from_dict
from engine.hand import Hand
from engine.match import HandRecord, Match, MatchStatus
from engine.record import rules_from_dict
from engine.rules import RuleSet
from engine.scoring import Settlement
from engine.violations import HandViolation


@dataclass(frozen=True)
class Tally:
    """What :meth:`MatchFold.tally` counts: the sheet (``match``, ``status``, ``time_up`` as
    :meth:`MatchFold.sheet` gives them) and the hands finished, void and in play."""

    match: Match
    status: MatchStatus
    time_up: bool
    finished: int
    void: int
    in_play: int | None


class _KeptMatch(Match):
    """The kept sheet's engine match, whose hands are only ever appended: its settlements are
    worked out once per set of hands, not once per question. A table's result asks for them
    five or six times (the totals, the status, who is disqualified, the leaders), each time
    over every counted hand; a new hand dealt (not yet finished) adds none, so a table's
    result at its deal costs no settling at all."""

    _settled: tuple[list[HandRecord], list[Settlement]] | None = None

    def settlements(self) -> list[Settlement]:
        kept = self._settled
        if kept is not None and len(kept[0]) == len(self.hands) and all(
                a is b for a, b in zip(kept[0], self.hands, strict=True)):
            return list(kept[1])
        rows = super().settlements()
        self._settled = (list(self.hands), rows)
        return list(rows)


@dataclass
class _Sheet:
    """What :meth:`MatchFold.sheet` went through last: its arguments and the penalties
    (``key``), each finished hand it looked at (number, events), the engine match of those that
    count, and whether time was up or the sheet closed."""

    key: tuple
    match: Match
    seen: list[tuple[int, int]] = field(default_factory=list)
    time_up: bool = False
    stopped: bool = False


@dataclass
class MatchFold:
    info: BoxMatch
    rules: RuleSet
    hands: dict[int, Hand] = field(default_factory=dict)
    dealt_at: dict[int, float] = field(default_factory=dict)
    penalties: list[Penalty] = field(default_factory=list)
    ended: bool = False
    rejected: int = 0
    events: int = 0
    last_time: float = 0.0
    #: Grows with every event applied to (or refused by) a hand that is finished after it: the
    #: finished hands, and each one's log, change only when it moves (the hall's kept results).
    finished_mark: int = 0
    _sheet: _Sheet | None = field(default=None, repr=False, compare=False)

    @property
    def session(self) -> str | None:
        value = self.info.meta.get("club_session")
        return value if isinstance(value, str) else None

    def apply(self, e: BoxEvent) -> None:
        self.events += 1
        self.last_time = max(self.last_time, e.time)
        if e.kind == "match_end":
            self.ended = True
            return
        if e.kind not in EVENT_TYPES:  # the box's alerts: kept and exported, not folded
            return
        event = event_from_dict(e.payload)
        if e.hand == 0:
            if isinstance(event, Penalty):
                self.penalties.append(event)
            else:
                self.rejected += 1
            return
        hand = self.hands.get(e.hand)
        if hand is None:
            if not isinstance(event, Deal):
                self.rejected += 1
                return
            hand = self.hands[e.hand] = Hand(self.rules)
            self.dealt_at[e.hand] = e.time
        try:
            hand.apply(event)
        except HandViolation:
            self.rejected += 1
        if hand.finished:  # the event finished the hand, or came after its end: the sheet may read it
            self.finished_mark += 1

    @property
    def current(self) -> tuple[int, Hand | None]:
        if not self.hands:
            return 0, None
        number = max(self.hands)
        return number, self.hands[number]

    def sheet(self, end_time: float | None = None, tie_rule: str = "none") -> tuple[Match, MatchStatus, bool]:
        """The engine match of the hands that count, its status, and whether time is up
        (``end_time`` passed by a hand's deal). A tie under ``tie_rule`` lets extra hands count
        until it is broken (the seed's 加赛一局).

        The sheet is kept and extended: a call that finds the hands it went through unchanged
        (the same finished hands, each as long, the same penalties, ``end_time`` and
        ``tie_rule``) goes on from the last of them, so a hand finishing at hand 200 costs one
        more hand's verdict, not 200. The match returned is the fold's own and a later call may
        extend it: read it, do not keep it."""
        finished = [(number, hand) for number, hand in sorted(self.hands.items()) if hand.finished]
        key = (end_time, tie_rule, len(self.penalties))
        kept = self._sheet
        if kept is None or kept.key != key or kept.seen != [(n, len(h.log)) for n, h in finished[:len(kept.seen)]]:
            untimed = self.rules.replace(time_limit_min=0)
            kept = self._sheet = _Sheet(key, _KeptMatch(untimed, self.info.players, penalties=list(self.penalties)))
        match = kept.match
        for number, hand in finished[len(kept.seen):]:
            if kept.stopped:
                break  # the sheet was closed before a hand it went through: later ones change nothing
            kept.seen.append((number, len(hand.log)))
            status = match.status()
            started = self.dealt_at.get(number)
            late = end_time is not None and started is not None and started >= end_time
            kept.time_up = kept.time_up or late
            if (status.over or kept.time_up) and not tied(match.totals(), tie_rule, tuple(match.disqualified())):
                kept.stopped = True
                break
            match.hands.append(HandRecord(tuple(hand.log), started))
        return match, match.status(), kept.time_up

    def tally(self, end_time: float | None = None, tie_rule: str = "none") -> Tally:
        """The table's hands in the club's three counts (every page shows these, in these words):

        - ``finished``: hands on the sheet with a result (a redeal is one: nobody bid);
        - ``void``: hands on the sheet without one (作废), and a hand cut short by the box's end
          of the match;
        - ``in_play``: the number of the dealt hand still being played that will count: dealt
          before time was called (the seed's rule: that hand is finished first), or an extra
          hand that settles a tie; ``None`` when there is none.
        """
        match, status, time_up = self.sheet(end_time, tie_rule)
        finished = sum(1 for h in match.folded() if not h.abandoned)
        void = len(match.hands) - finished
        in_play = None
        number, hand = self.current
        if hand is not None and not hand.finished:
            if self.ended:
                void += 1
            else:
                dealt = self.dealt_at.get(number)
                late = end_time is not None and dealt is not None and dealt >= end_time
                settles_tie = tied(match.totals(), tie_rule, tuple(match.disqualified()))
                if not ((status.over or late) and not settles_tie):
                    in_play = number
        return Tally(match, status, time_up, finished, void, in_play)

    def landlord(self) -> int | None:
        """The seat of the last landlord (the one who moves on at a table change)."""
        for number in sorted(self.hands, reverse=True):
            if self.hands[number].landlord is not None:
                return self.hands[number].landlord
        return None


@dataclass
class TableFold:
    """Every box match of one table, folded incrementally (``folded``: seq per box)."""

    table_no: int
    matches: dict[tuple[str, int], MatchFold] = field(default_factory=dict)
    folded: dict[str, int] = field(default_factory=dict)
    infos: dict[tuple[str, int], BoxMatch] = field(default_factory=dict)

    def add_matches(self, infos: list[BoxMatch]) -> None:
        for info in infos:
            self.infos.setdefault((info.box, info.match_id), info)

    def apply(self, events: list[BoxEvent]) -> None:
        for e in events:
            if e.seq <= self.folded.get(e.box, 0):
                continue
            self.folded[e.box] = e.seq
            key = (e.box, e.match_id)
            fold = self.matches.get(key)
            if fold is None:
                info = self.infos.get(key)
                if info is None:
                    continue  # ingest refuses events of an undescribed match: never here
                fold = self.matches[key] = MatchFold(info, rules_from_dict(info.rules))
            fold.apply(e)

    def for_session(self, session: str) -> MatchFold | None:
        """The table's match of that session (the latest, if a box made two)."""
        found = [m for m in self.matches.values() if m.session == session]
        return max(found, key=lambda m: m.info.created) if found else None

    def latest(self) -> MatchFold | None:
        return max(self.matches.values(), key=lambda m: (m.last_time, m.info.created), default=None)

    @property
    def events(self) -> int:
        return sum(m.events for m in self.matches.values())


def hand_view(fold: MatchFold | None) -> dict[str, Any]:
    """What the hall shows of a table's current hand."""
    if fold is None:
        return {"hand": 0, "phase": "waiting", "multiplier": 1, "landlord": None, "cards_left": []}
    number, hand = fold.current
    if hand is None:
        return {"hand": 0, "phase": "waiting", "multiplier": 1, "landlord": None, "cards_left": []}
    return {"hand": number, "phase": hand.phase, "multiplier": hand.multiplier, "landlord": hand.landlord,
            "cards_left": list(hand.cards_left)}
