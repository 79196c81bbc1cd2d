"""A club day in a few lines, for the club's tests: an event, its players, a session drawn by
hand, and boxes that report hands won, lost, void or still in play."""

from __future__ import annotations

from club.storage import BoxEvent, BoxMatch, Storage
from engine.events import Concede, Deal, End, Event, Landlord


def hand(kind: str, landlord: int = 0) -> list[Event]:
    """One hand's events: ``won`` / ``lost`` (by the landlord in seat ``landlord``, at base 1),
    ``void`` (dealt, then abandoned: 作废) or ``open`` (dealt and bid: still in play)."""
    dealt = [Deal(counts=(17, 17, 17))]
    if kind == "void":
        return [*dealt, End(abandoned=True, reason="misdeal")]
    bid = [*dealt, Landlord(landlord, 1)]
    if kind == "open":
        return bid
    loser = (landlord + 1) % 3 if kind == "won" else landlord
    return [*bid, Concede(loser)]


class Box:
    """The box at ``table``, playing ``session`` (a ``club_session`` key) for ``players``."""

    def __init__(self, st: Storage, table: int, session: str, players: tuple[str, ...], preset: str = "chips") -> None:
        self.st, self.table, self.session = st, table, session
        self.box = f"box-{table:08d}"
        if st.registration(table) is None:
            st.register(table, self.box, "hash")
        self.match_id = len(st.box_matches(table)) + 1
        self.info = BoxMatch(table, self.box, self.match_id, players, {"name": preset, "changes": {}},
                             {"club_session": session}, 0.0)
        self.hand_no = 0
        self.sent = False

    def acked(self) -> int:
        reg = self.st.registration(self.table)
        assert reg is not None  # registered in __init__
        return reg.acked

    def send(self, number: int, events: list[Event], at: float) -> None:
        """Events of hand ``number`` (0: the match's own, such as its end), all at time ``at``."""
        after = self.acked()
        batch = [BoxEvent(self.table, self.box, after + i + 1, after + i, self.match_id, number, at, e.kind,
                          "camera", e.to_dict()) for i, e in enumerate(events)]
        self.st.ingest(self.table, self.box, batch, [] if self.sent else [self.info])
        self.sent = True

    def deal(self, kind: str, at: float, landlord: int = 0) -> int:
        """A new hand of ``kind`` (see :func:`hand`), dealt at ``at``; its number."""
        self.hand_no += 1
        self.send(self.hand_no, hand(kind, landlord), at)
        return self.hand_no

    def finish(self, kind: str, at: float, landlord: int = 0) -> None:
        """The hand in play ends: ``won`` or ``lost`` by its landlord, or ``void``."""
        if kind == "void":
            self.send(self.hand_no, [End(abandoned=True, reason="table stopped")], at)
        else:
            loser = (landlord + 1) % 3 if kind == "won" else landlord
            self.send(self.hand_no, [Concede(loser)], at)

    def end_match(self, at: float) -> None:
        """The referee ends the match at the box (比赛结束)."""
        after = self.acked()
        self.st.ingest(self.table, self.box, [BoxEvent(self.table, self.box, after + 1, after, self.match_id, 0, at,
                                                       "match_end", "referee", {"kind": "match_end"})],
                       [] if self.sent else [self.info])
        self.sent = True


def knockout(st: Storage, players: int = 3, seed: int = 42, start: float = 1000.0) -> tuple[int, str]:
    """The seed's event with ``players`` players (P1, P2...), its knockout drawn by hand as tables of
    three in player order, the clock started at ``start``: (tournament id, session key)."""
    tid = st.create_tournament("周五俱乐部赛", "seed004", {}, seed=seed, now=0.0)
    for p in range(1, players + 1):
        st.add_player(tid, f"P{p}", f"C{p:03d}", f"code-{p}")
    key = f"{tid}/knockout-1"
    seating = {str(t): [3 * t - 2, 3 * t - 1, 3 * t] for t in range(1, players // 3 + 1)}
    st.act(tid, "session", {"key": key, "stage": "knockout", "number": 1, "salt": "knockout-1", "seating": seating},
           now=start)
    st.act(tid, "start", {"session": key, "at": start}, now=start)
    return tid, key


def end_session(st: Storage, tid: int, key: str, at: float) -> None:
    st.act(tid, "end", {"session": key, "at": at}, now=at)
