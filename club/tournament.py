"""The tournament as a fold: the director's log + the players + the tables' events -> standings.

Nothing here is stored state: :func:`fold` rebuilds the sessions (who sits where, each clock)
from the stored actions, and :func:`results` / :func:`standings` recompute every table's
result and every player's points from the folded tables, so a corrected hand at a box corrects
the hall screen, and a server restarted from its database shows exactly what it showed.

Actions (``Storage.act``): ``session`` {key, stage, number, seating, salt} (a draw or a table
change, made by :func:`next_session`), ``start`` / ``pause`` / ``resume`` / ``end`` {session},
``withdraw`` {player}, ``playoff`` {stage, order} (a tie at the cut settled by an extra hand:
its players, best first), ``publish`` {}.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from club.clock import Clock
from club.formats import (
    Format,
    FormatError,
    Seating,
    Stage,
    build_format,
    cut_tie,
    draw,
    meetings,
    next_seating,
    ranked,
)
from club.storage import Action, Player, Tournament
from club.tables import TableFold


@dataclass
class Session:
    key: str
    stage: Stage
    number: int
    seating: Seating
    clock: Clock
    salt: str = ""


@dataclass
class State:
    tournament: Tournament
    format: Format
    players: dict[int, Player]
    sessions: list[Session] = field(default_factory=list)
    withdrawn: set[int] = field(default_factory=set)
    published: bool = False
    playoffs: dict[str, list[int]] = field(default_factory=dict)  # stage key -> play-off order, best first

    @property
    def current(self) -> Session | None:
        return self.sessions[-1] if self.sessions else None

    def session(self, key: str) -> Session:
        for s in self.sessions:
            if s.key == key:
                return s
        raise FormatError(f"no session {key!r}")  # a stored action names its session: never from a page

    def name(self, player: int) -> str:
        p = self.players.get(player)
        return p.name if p else f"#{player}"


def format_of(t: Tournament) -> Format:
    s = t.settings
    return build_format(t.format, rounds=int(s.get("rounds", 4)), minutes=int(s.get("minutes", 30)),
                        evenings=int(s.get("evenings", 4)))


def fold(t: Tournament, players: list[Player], actions: list[Action]) -> State:
    state = State(t, format_of(t), {p.player_no: p for p in players})
    for a in actions:
        d = a.data
        if a.action == "session":
            stage = state.format.stage(d["stage"])
            seating = {int(k): tuple(v) for k, v in d["seating"].items()}
            state.sessions.append(Session(d["key"], stage, int(d["number"]), seating, Clock(stage.minutes), d.get("salt", "")))
        elif a.action in ("start", "pause", "resume", "end"):
            s = state.session(d["session"])
            s.clock = getattr(s.clock, {"start": "started", "pause": "paused", "resume": "resumed",
                                        "end": "ended"}[a.action])(d.get("at", a.time))
        elif a.action == "withdraw":
            state.withdrawn.add(int(d["player"]))
        elif a.action == "playoff":
            state.playoffs[d["stage"]] = [int(p) for p in d["order"]]  # a later one replaces it
        elif a.action == "publish":
            state.published = True
    return state


# ---------------------------------------------------------------------- results
@dataclass
class TableResult:
    """One table's result in a session: the one answer the hall, the director, a player's page
    and the exports read (never worked out again by a page).

    ``reason``: ``waiting`` (no hand dealt, time not up), ``playing``, ``last_hand`` (time is up
    and the hand in play is finished first: no winner yet), ``tie_break`` (an extra hand settles a
    tie), ``time``, ``bust``, ``ended`` (the box ended the match), ``dissolved``, or ``no_result``
    (time is up and the table has no match: no box played it). ``finished`` / ``void`` /
    ``in_play``: :meth:`club.tables.MatchFold.tally`."""

    table_no: int
    players: tuple[int, ...]
    start: int
    totals: list[int]
    finished: int
    reason: str
    winners: tuple[int, ...] = ()
    needs_extra_hand: bool = False
    landlord: int | None = None  # player number of the last landlord
    out: tuple[int, ...] = ()  # players whose chips ran out
    void: int = 0
    in_play: int | None = None

    @property
    def net(self) -> dict[int, int]:
        return {p: t - self.start for p, t in zip(self.players, self.totals, strict=True)}

    @property
    def hands(self) -> int:
        """Hands played to an end: finished and void (a void hand has no result and is dealt again)."""
        return self.finished + self.void

    @property
    def decided(self) -> bool:
        return self.reason in DECIDED and not self.needs_extra_hand


#: Table reasons that have a result (a winner, or a table stopped): nothing more is played.
DECIDED = ("bust", "time", "ended", "target", "dissolved")


def table_result(session: Session, table_no: int, fold: TableFold | None, now: float) -> TableResult:
    seats = session.seating[table_no]
    stage = session.stage
    start = stage.chips if stage.preset == "chips" else 0
    match = fold.for_session(session.key) if fold is not None else None
    clock_done = session.clock.state(now) in ("time_up", "ended")
    if match is None:
        return TableResult(table_no, seats, start, [start] * len(seats), 0, "no_result" if clock_done else "waiting")
    tally = match.tally(session.clock.end_time, stage.tie_break)
    sheet, status = tally.match, tally.status
    totals = sheet.totals()
    over = status.over or clock_done or match.ended
    end_time = session.clock.end_time
    dealt = match.dealt_at.get(tally.in_play or 0)
    # The seed's rule: the hand in play when time is called is finished first, then the table is
    # decided (or its tie played off); an extra hand dealt after time is the tie's.
    last_hand = (over and tally.in_play is not None and not status.over
                 and (end_time is None or dealt is None or dealt < end_time))
    tie = over and not last_hand and status.reason != "dissolved" and _needs_tie(totals, stage, sheet)
    if not over:
        reason = "playing" if match.hands else "waiting"
    elif last_hand:
        reason = "last_hand"
    elif tie:
        reason = "tie_break"
    elif status.over:
        reason = status.reason
    else:
        reason = "ended" if match.ended and not clock_done else "time"
    decided = reason in DECIDED
    landlord_seat = match.landlord()
    return TableResult(table_no, seats, start, totals, tally.finished, reason,
                       tuple(seats[s] for s in status.winners) if decided else (), tie,
                       None if landlord_seat is None else seats[landlord_seat],
                       tuple(seats[i] for i, t in enumerate(totals) if stage.preset == "chips" and t <= 0),
                       tally.void, tally.in_play)


def _needs_tie(totals: list[int], stage: Stage, sheet: Any) -> bool:
    from club.formats import tied

    return tied(totals, stage.tie_break, tuple(sheet.disqualified()))


def results(state: State, folds: dict[int, TableFold], now: float) -> dict[str, dict[int, TableResult]]:
    return {s.key: {t: table_result(s, t, folds.get(t), now) for t in sorted(s.seating)} for s in state.sessions}


def stage_points(state: State, res: dict[str, dict[int, TableResult]], stage_key: str) -> dict[int, int]:
    """Each player's points in a stage: chips (or points) won or lost over its sessions."""
    points: dict[int, int] = {}
    for s in state.sessions:
        if s.stage.key != stage_key:
            continue
        for r in res[s.key].values():
            for p, n in r.net.items():
                points[p] = points.get(p, 0) + n
    return points


def standings(state: State, res: dict[str, dict[int, TableResult]], stage_key: str | None = None) -> list[dict]:
    """The leaderboard of a stage (default: the current one), best first.

    ``rank``: players level on points (and not split by a recorded play-off) share a rank, and
    ``tied`` says so (shown ``1=``); before the stage's first hand is on a sheet nobody has a
    rank (``None``). The order of the rows is :func:`club.formats.ranked`'s, which the cut uses."""
    if stage_key is None:
        if state.current is None:
            return []
        stage_key = state.current.stage.key
    points = stage_points(state, res, stage_key)
    playoff = state.playoffs.get(stage_key, ())
    place = {p: i for i, p in enumerate(playoff)}
    level = {p: (-points[p], place.get(p, len(place))) for p in points}
    played = any(r.hands for s in state.sessions if s.stage.key == stage_key for r in res[s.key].values())
    rows = []
    winners = {w for s in state.sessions if s.stage.key == stage_key for r in res[s.key].values() for w in r.winners}
    # How many players stand above each level, and how many share it: one sort, not a pass over
    # every player for each (a hall of 900 players is built four times a second).
    levels = sorted(level.values())
    sharing = Counter(levels)
    for p in ranked(points, state.tournament.seed, stage_key, playoff):
        above = bisect_left(levels, level[p])
        tied = sharing[level[p]] > 1
        rows.append({"rank": above + 1 if played else None, "tied": played and tied,
                     "rank_text": rank_text(above + 1 if played else None, tied),
                     "player": p, "name": state.name(p), "points": points[p],
                     "club_id": state.players[p].club_id if p in state.players else "",
                     "winner": p in winners, "withdrawn": p in state.withdrawn})
    return rows


def rank_text(rank: int | None, tied: bool) -> str:
    """A rank as every page writes it: ``3``, ``1=`` when shared, ``–`` before any hand.

    >>> rank_text(1, True), rank_text(4, False), rank_text(None, False)
    ('1=', '4', '–')
    """
    if rank is None:
        return "–"
    return f"{rank}=" if tied else str(rank)


# ---------------------------------------------------------------------- the director's next step
def qualifiers(state: State, res: dict[str, dict[int, TableResult]], stage: Stage) -> list[int]:
    """Who goes on from ``stage``: each table's winner, or the best ``advance_count``."""
    sessions = [s for s in state.sessions if s.stage.key == stage.key]
    if stage.advance == "table_winner":
        last = res[sessions[-1].key]
        pending = [(t, r.reason) for t, r in last.items() if not r.decided or len(r.winners) != 1]
        if pending:
            raise FormatError(f"table(s) {', '.join(str(t) for t, _ in pending)} have no single winner yet "
                              "(a tie plays one extra hand) / 还有桌未决出胜者", "err_no_winner", tables=pending)
        return [r.winners[0] for r in last.values() if r.winners[0] not in state.withdrawn]
    if stage.advance == "top":
        tie = playoff_needed(state, res, stage)
        if tie is not None:
            raise FormatError(f"{', '.join(state.name(p) for p in tie.players)} are tied on {tie.points} points "
                              f"across the cut for {tie.places} place(s): play one extra hand and record its "
                              f"result / 晋级名额同分：请加赛一局并登记结果", "err_cut_tie",
                              names=[state.name(p) for p in tie.players], points=tie.points, places=tie.places)
        return cut_order(state, res, stage)[:stage.advance_count]
    raise FormatError(f"nobody advances from {stage.en}")


# ---------------------------------------------------------------------- ties at the cut
@dataclass(frozen=True)
class Playoff:
    """Players tied across a stage's cut (the seed's 并列办法: 加赛一局): ``places`` of them go on."""

    stage: Stage
    players: tuple[int, ...]  # in the standings' order
    places: int
    first_place: int  # the overall place the best of them takes
    points: int


def cut_order(state: State, res: dict[str, dict[int, TableResult]], stage: Stage) -> list[int]:
    """The stage's players still in, best first (a recorded play-off orders its players)."""
    points = stage_points(state, res, stage.key)
    return [p for p in ranked(points, state.tournament.seed, stage.key, state.playoffs.get(stage.key, ()))
            if p not in state.withdrawn]


def playoff_needed(state: State, res: dict[str, dict[int, TableResult]], stage: Stage) -> Playoff | None:
    """The tie at ``stage``'s cut still to be played off; ``None`` when there is none, or when a
    play-off of exactly these players is recorded (a correction that changes who is tied calls
    for a new one)."""
    if stage.advance != "top":
        return None
    points = stage_points(state, res, stage.key)
    order = cut_order(state, res, stage)
    group = cut_tie(order, points, stage.advance_count)
    if group is None or sorted(state.playoffs.get(stage.key, ())) == sorted(group):
        return None
    above = order.index(group[0])
    return Playoff(stage, tuple(group), stage.advance_count - above, above + 1, points[group[0]])


def playoff_due(state: State, res: dict[str, dict[int, TableResult]], now: float) -> Playoff | None:
    """The play-off the director must hold now: the current session is its stage's last, its
    time is over, and players are tied across the cut."""
    current = state.current
    if current is None or current.number < current.stage.sessions \
            or current.clock.state(now) not in ("time_up", "ended"):
        return None
    return playoff_needed(state, res, current.stage)


def playoff_action(state: State, res: dict[str, dict[int, TableResult]], now: float,
                   order: list[int]) -> dict[str, Any]:
    """The ``playoff`` action for the play-off due now, its players in ``order`` (best first)."""
    due = playoff_due(state, res, now)
    if due is None:
        raise FormatError("no tie at the cut to play off now / 现在没有需要加赛的同分", "err_no_playoff")
    if sorted(order) != sorted(due.players) or len(set(order)) != len(order):
        raise FormatError(f"give each of {', '.join(state.name(p) for p in due.players)} one place "
                          "/ 请为每位加赛选手各填一个名次", "err_playoff_places", names=[state.name(p) for p in due.players])
    return {"stage": due.stage.key, "order": list(order)}


def publish_check(state: State, res: dict[str, dict[int, TableResult]], now: float) -> None:
    """Refuse to publish while the current session has a table still playing or tied (its
    winner is not decided yet) or a tie at the cut waits for its play-off. A table no box
    reported (``no_result``) waits for nothing and does not hold the results back."""
    current = state.current
    if current is None:
        raise FormatError("draw the tables first / 请先抽签", "err_draw_first")
    pending = [(t, r.reason) for t, r in res[current.key].items()
               if r.reason in ("waiting", "playing", "last_hand") or r.needs_extra_hand]
    if pending:
        raise FormatError(f"table(s) {', '.join(str(t) for t, _ in pending)} are not decided yet / 还有桌没有结果",
                          "err_publish_open", tables=pending)
    due = playoff_needed(state, res, current.stage) if current.number >= current.stage.sessions else None
    if due is not None:
        raise FormatError("a tie at the cut is not played off yet / 同分还没有加赛", "err_publish_playoff",
                          names=[state.name(p) for p in due.players])


def next_session(state: State, res: dict[str, dict[int, TableResult]], now: float) -> dict[str, Any]:
    """The ``session`` action that comes next: the first draw, the next period's tables, or the
    next stage's draw. The current session must be over (time up or ended) first."""
    fmt, seed = state.format, state.tournament.seed
    current = state.current
    if current is None:
        stage, number = fmt.stages[0], 1
        players = [p for p in state.players if p not in state.withdrawn]
        seating = draw(players, seed, f"{stage.key}-1")
    else:
        if current.clock.state(now) not in ("time_up", "ended"):
            raise FormatError("end the current session first (the clock is still on) / 请先结束本节", "err_end_first")
        stage = current.stage
        if current.number < stage.sessions:
            number = current.number + 1
            landlords = {t: r.landlord for t, r in res[current.key].items() if r.landlord is not None}
            order = ranked(stage_points(state, res, stage.key), seed, f"{stage.key}-{number}")
            standing = [(p, -i) for i, p in enumerate(order)]
            met = meetings([s.seating for s in state.sessions if s.stage.key == stage.key])
            seating = next_seating(stage, current.seating, landlords, standing, seed, f"{stage.key}-{number}", met)
        else:
            index = fmt.stages.index(stage)
            if index + 1 >= len(fmt.stages):
                raise FormatError("this was the last stage: publish the results / 已是最后阶段", "err_last_stage")
            going_on = qualifiers(state, res, stage)
            stage, number = fmt.stages[index + 1], 1
            seating = draw(going_on, seed, f"{stage.key}-1")
    key = f"{state.tournament.id}/{stage.key}-{number}"
    return {"key": key, "stage": stage.key, "number": number, "salt": f"{stage.key}-{number}",
            "seating": {str(t): list(p) for t, p in seating.items()}}
