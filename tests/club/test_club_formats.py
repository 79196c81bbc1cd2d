"""Formats across tables: draws under a seed, the landlord-moves rule, seat rotation, Swiss
tables, the tie rule's extra hand, the clock across a restart, and the seed's three stages."""

from __future__ import annotations

import pytest

from club.clock import Clock, ClockError
from club.formats import FormatError, draw, landlord_moves, rotate, swiss
from club.live import Live
from club.sqlite import SqliteStorage
from club.storage import BoxEvent, BoxMatch
from club.tables import MatchFold
from club.tournament import next_session
from engine.events import Concede, Deal, Landlord
from engine.record import rules_from_dict


def test_a_draw_is_the_same_under_the_same_seed_and_differs_under_another():
    players = list(range(1, 28))
    first = draw(players, seed=2024, salt="knockout-1")
    assert first == draw(list(reversed(players)), seed=2024, salt="knockout-1")
    assert first != draw(players, seed=2025, salt="knockout-1")
    assert sorted(p for seats in first.values() for p in seats) == players
    assert all(len(seats) == 3 for seats in first.values()) and sorted(first) == list(range(1, 10))


def test_players_that_do_not_make_tables_of_three_are_refused_with_the_count():
    with pytest.raises(FormatError, match="add 2"):
        draw(list(range(1, 11)), seed=1, salt="x")


def test_the_last_landlord_moves_to_the_next_table_and_the_last_tables_to_the_first():
    seating = {1: (1, 2, 3), 2: (4, 5, 6), 3: (7, 8, 9)}
    moved = landlord_moves(seating, {1: 3, 2: 4, 3: 8})
    assert moved == {1: (1, 2, 8), 2: (3, 5, 6), 3: (7, 4, 9)}
    assert sorted(p for s in moved.values() for p in s) == list(range(1, 10))


def test_a_table_without_a_landlord_sends_its_first_seat():
    assert landlord_moves({1: (1, 2, 3), 2: (4, 5, 6)}, {2: 6}) == {1: (6, 2, 3), 2: (4, 5, 1)}


def test_seat_rotation_changes_every_players_seat_and_keeps_tables_full():
    seating = {t: (3 * t - 2, 3 * t - 1, 3 * t) for t in range(1, 5)}
    after = rotate(seating)
    assert sorted(p for s in after.values() for p in s) == list(range(1, 13))
    seat_of = lambda s: {p: i for seats in s.values() for i, p in enumerate(seats)}  # noqa: E731
    assert all(seat_of(after)[p] != seat_of(seating)[p] for p in range(1, 13))


def test_swiss_tables_put_like_standings_together():
    standing = [(p, 100 - p) for p in range(1, 10)]
    assert swiss(standing, seed=3, salt="evening-2") == {1: (1, 2, 3), 2: (4, 5, 6), 3: (7, 8, 9)}


# ---------------------------------------------------------------------- the tie rule
def _hand(landlord: int, landlord_wins: bool) -> list:
    loser = (landlord + 1) % 3 if landlord_wins else landlord
    return [Deal(counts=(17, 17, 17)), Landlord(landlord, 1), Concede(loser)]


def _fold(hands: list[tuple[int, bool, float]], preset: str = "chips") -> MatchFold:
    info = BoxMatch(1, "box-0000aaaa", 1, ("A", "B", "C"), {"name": preset, "changes": {}}, {}, 0.0)
    fold = MatchFold(info, rules_from_dict(info.rules))
    seq = 0
    for number, (landlord, wins, dealt) in enumerate(hands, 1):
        for event in _hand(landlord, wins):
            seq += 1
            fold.apply(BoxEvent(1, info.box, seq, seq - 1, 1, number, dealt, event.kind, "camera", event.to_dict()))
    return fold


def test_a_tie_at_time_counts_one_extra_hand_that_settles_it():
    # Hand 1 (before time): seat 0 loses as landlord -> 16/22/22, a tie for first at time.
    fold = _fold([(0, False, 100.0), (1, True, 200.0), (2, True, 300.0)])
    match, status, late = fold.sheet(end_time=150.0, tie_rule="top")
    assert len(match.hands) == 2 and late  # the extra hand counts, the one after it does not
    assert match.totals() == [14, 26, 20] and status.winners == (1,)


def test_without_a_tie_no_hand_after_time_counts():
    fold = _fold([(0, True, 100.0), (1, True, 200.0)])
    match, _status, _late = fold.sheet(end_time=150.0, tie_rule="top")
    assert len(match.hands) == 1 and match.totals() == [24, 18, 18]


def test_a_table_stops_when_a_player_is_out_of_chips():
    fold = _fold([(0, True, float(t)) for t in range(1, 13)])  # each farmer pays 2 a hand: out after 10
    match, status, _late = fold.sheet(end_time=None, tie_rule="top")
    assert status.over and status.reason == "bust" and match.totals() == [60, 0, 0]
    assert len(match.hands) == 10  # the two hands dealt after the table stopped do not count


# ---------------------------------------------------------------------- the clock
def test_the_clock_is_rebuilt_from_stored_times_after_a_restart(tmp_path):
    path = str(tmp_path / "club.db")
    st = SqliteStorage(path)
    tid = st.create_tournament("t", "session", {"rounds": 2, "minutes": 30}, seed=1, now=0.0)
    for p in range(3):
        st.add_player(tid, f"P{p}", "", f"code{p}")
    live = Live(st)
    st.act(tid, "session", next_session(live.state, {}, 1000.0), now=1000.0)
    key = f"{tid}/round-1"
    st.act(tid, "start", {"session": key, "at": 1000.0}, now=1000.0)
    st.act(tid, "pause", {"session": key, "at": 1600.0}, now=1600.0)
    st.act(tid, "resume", {"session": key, "at": 1900.0}, now=1900.0)
    before = Live(st).hall(now=2000.0)["clock"]
    st.close()
    again = SqliteStorage(path)  # the server comes back: no timer survived, the times did
    after = Live(again).hall(now=2000.0)["clock"]
    assert before == after and after["remaining"] == 30 * 60 - 700 and after["state"] == "running"
    again.close()


def test_a_clock_refuses_steps_that_do_not_fit():
    with pytest.raises(ClockError):
        Clock(30).paused(10.0)
    with pytest.raises(ClockError):
        Clock(30).started(0.0).started(5.0)


# ---------------------------------------------------------------------- the seed's three stages
def _play(st, table: int, session: str, hands: list[tuple[int, bool]], t0: float) -> None:
    box = f"box-{table:08d}"
    if st.registration(table) is None:
        st.register(table, box, "hash")
    mid = len([m for m in st.box_matches(table)]) + 1
    info = BoxMatch(table, box, mid, ("A", "B", "C"), {"name": "chips", "changes": {}}, {"club_session": session}, t0)
    after = st.registration(table).acked
    events = []
    for number, (landlord, wins) in enumerate(hands, 1):
        for event in _hand(landlord, wins):
            after += 1
            events.append(BoxEvent(table, box, after, after - 1, mid, number, t0 + number, event.kind, "camera",
                                   event.to_dict()))
    st.ingest(table, box, events, [info])


def test_the_seed_event_knockout_round_robin_and_final(tmp_path):
    st = SqliteStorage(str(tmp_path / "club.db"))
    tid = st.create_tournament("周五赛", "seed004", {}, seed=77, now=0.0)
    for p in range(1, 28):
        st.add_player(tid, f"P{p}", f"C{p}", f"code-{p}")
    live = Live(st)
    now = 1000.0

    def step(action: str, data: dict | None = None) -> None:
        nonlocal now
        now += 10
        live.refresh(force=True)
        if action == "session":
            data = next_session(live.state, live.results(now), now)
        st.act(tid, action, data or {"session": live.state.current.key, "at": now}, now=now)
        live.refresh(force=True)

    step("session")
    ko = live.state.current
    assert ko.seating == draw(list(range(1, 28)), 77, "knockout-1")
    step("start")
    for table in ko.seating:  # seat (table % 3) wins two hands as landlord
        _play(st, table, ko.key, [(table % 3, True), (table % 3, True)], now)
    step("end")
    winners = [ko.seating[t][t % 3] for t in sorted(ko.seating)]
    step("session")
    rr = live.state.current
    assert rr.stage.key == "round_robin" and rr.seating == draw(winners, 77, "round_robin-1")
    for period in (1, 2, 3):
        step("start")
        for table in rr.seating:  # seat 1 is landlord of the last hand, and loses
            _play(st, table, rr.key, [(0, True), (1, False)], now)
        step("end")
        landlords = {t: seats[1] for t, seats in rr.seating.items()}
        step("session")
        if period < 3:
            nxt = live.state.current
            assert nxt.number == period + 1 and nxt.seating == landlord_moves(rr.seating, landlords)
            rr = nxt
    final = live.state.current
    assert final.stage.key == "final" and len(final.seating) == 1
    board = live.hall(now=now)["leaderboard"]
    assert len(board) == 3 and sorted(r["player"] for r in board) == sorted(final.seating[1])
    with pytest.raises(FormatError, match="end the current session"):
        step("start")
        next_session(live.state, live.results(now), now)
    st.close()
