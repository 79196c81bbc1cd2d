"""The Swiss draw keeps players who have met apart where it can; a tie across the cut between
tables is played off (the seed's 并列办法：出现积分并列后，加赛一局) and the director records it."""

from __future__ import annotations

import random

import pytest

from club.app import build_app
from club.formats import FormatError, meetings, swiss
from club.live import Live
from club.sqlite import SqliteStorage
from club.storage import BoxEvent, BoxMatch
from club.tournament import next_session
from engine.events import Concede, Deal, Landlord
from tests.kit.club_server import PIN


def repeats(seating: dict, met: set) -> int:
    return sum(len(meetings([{t: seats}]) & met) for t, seats in seating.items())


def everyone(seating: dict) -> list[int]:
    return sorted(p for seats in seating.values() for p in seats)


# ---------------------------------------------------------------------- Swiss
def test_players_who_have_met_are_kept_apart_and_like_standings_still_meet():
    standing = [(p, 100 - p) for p in range(1, 19)]  # player 1 leads, player 18 is last
    first = {t: tuple(range(3 * t - 2, 3 * t + 1)) for t in range(1, 7)}  # they sat in standing order
    second = swiss(standing, seed=5, salt="evening-2", met=meetings([first]))
    assert repeats(second, meetings([first])) == 0 and everyone(second) == list(range(1, 19))
    # The nearest players they have not met: the top half stays together, the bottom half too.
    assert second == {1: (1, 4, 7), 2: (2, 5, 8), 3: (3, 6, 9), 4: (10, 13, 16), 5: (11, 14, 17), 6: (12, 15, 18)}


def test_four_evenings_of_nine_players_never_repeat_a_meeting():
    # Nine players can meet in four evenings without two of them ever sharing a table twice.
    rng = random.Random(9)
    seatings = [swiss([(p, 0) for p in range(1, 10)], seed=1, salt="evening-1")]
    for evening in range(2, 5):
        standing = [(p, rng.randrange(-10, 10)) for p in range(1, 10)]
        seating = swiss(standing, seed=1, salt=f"evening-{evening}", met=meetings(seatings))
        assert repeats(seating, meetings(seatings)) == 0, (evening, seating)
        seatings.append(seating)
    assert len(meetings(seatings)) == 36  # every pair of the nine met exactly once


def test_when_a_repeat_cannot_be_avoided_the_draw_takes_the_fewest():
    first = {1: (1, 2, 3), 2: (4, 5, 6)}  # any table of three from these six holds two who met
    second = swiss([(p, 10 - p) for p in range(1, 7)], seed=2, salt="evening-2", met=meetings([first]))
    assert everyone(second) == list(range(1, 7))
    assert all(repeats({t: seats}, meetings([first])) == 1 for t, seats in second.items())


def test_the_swiss_draw_is_the_same_under_the_same_seed():
    standing = [(p, p % 3) for p in range(1, 13)]  # many equal points: the seed orders them
    met = meetings([{1: (1, 2, 3), 2: (4, 5, 6), 3: (7, 8, 9), 4: (10, 11, 12)}])
    again = [swiss(standing, seed=11, salt="evening-2", met=met) for _ in range(2)]
    assert again[0] == again[1] and repeats(again[0], met) == 0
    assert any(swiss(standing, seed=s, salt="evening-2", met=met) != again[0] for s in range(12, 20))


def test_a_league_draws_each_evening_away_from_earlier_meetings(tmp_path):
    st = SqliteStorage(str(tmp_path / "club.db"))
    tid = st.create_tournament("联赛", "league", {"evenings": 4, "minutes": 30}, seed=8, now=0.0)
    for p in range(1, 10):
        st.add_player(tid, f"P{p}", "", f"code-{p}")
    live = Live(st)
    now, seatings = 1000.0, []
    for _evening in range(4):
        live.refresh(force=True)
        data = next_session(live.state, live.results(now), now)
        st.act(tid, "session", data, now=now)
        seating = {int(t): tuple(p) for t, p in data["seating"].items()}
        assert repeats(seating, meetings(seatings)) == 0
        seatings.append(seating)
        for action in ("start", "end"):
            now += 60
            st.act(tid, action, {"session": data["key"], "at": now}, now=now)
    st.close()


# ---------------------------------------------------------------------- a tie at the cut
def _hand(landlord: int, landlord_wins: bool) -> list:
    loser = (landlord + 1) % 3 if landlord_wins else landlord
    return [Deal(counts=(17, 17, 17)), Landlord(landlord, 1), Concede(loser)]


def _play(st, table: int, session: str, hands: list[tuple[int, bool]], t0: float) -> None:
    box = f"box-{table:08d}"
    st.register(table, box, "hash")
    info = BoxMatch(table, box, 1, ("A", "B", "C"), {"name": "chips", "changes": {}}, {"club_session": session}, t0)
    events, seq = [], 0
    for number, (landlord, wins) in enumerate(hands, 1):
        for event in _hand(landlord, wins):
            seq += 1
            events.append(BoxEvent(table, box, seq, seq - 1, 1, number, t0 + number, event.kind, "camera",
                                   event.to_dict()))
    st.ingest(table, box, events, [info])


@pytest.fixture
def tied_round_robin(tmp_path):
    """The round robin's last period over, with players 3 and 6 (at different tables) tied for
    third place, the last place in the final."""
    st = SqliteStorage(str(tmp_path / "club.db"))
    tid = st.create_tournament("周五赛", "seed004", {}, seed=4, now=0.0)
    for p in range(1, 7):
        st.add_player(tid, f"P{p}", "", f"code-{p}")
    key = f"{tid}/round_robin-3"
    st.act(tid, "session", {"key": key, "stage": "round_robin", "number": 3, "salt": "round_robin-3",
                            "seating": {"1": [1, 2, 3], "2": [4, 5, 6]}}, now=1000.0)
    st.act(tid, "start", {"session": key, "at": 1000.0}, now=1000.0)
    # At each table: seat 0 wins a hand as landlord, then seat 1 loses one as landlord.
    for table in (1, 2):
        _play(st, table, key, [(0, True), (1, False)], 1000.0)
    st.act(tid, "end", {"session": key, "at": 1100.0}, now=1100.0)
    yield st, tid
    st.close()


def director(st):
    app = build_app({"DIRECTOR_PIN": PIN, "CLUB_KEY": "k", "TESTING": True}, storage=st)
    client = app.test_client()
    client.get("/director/login")
    with client.session_transaction() as s:
        token = s["csrf"]
    client.post("/director/login", data={"pin": PIN, "csrf": token})
    with client.session_transaction() as s:
        client.csrf = s.get("csrf") or ""
    if not client.csrf:
        client.get("/director")
        with client.session_transaction() as s:
            client.csrf = s["csrf"]
    return app, client


def test_a_tie_across_the_cut_is_played_off_not_drawn(tied_round_robin):
    st, tid = tied_round_robin
    live = Live(st)
    board = live.hall(now=2000.0)["leaderboard"]
    points = {row["player"]: row["points"] for row in board}
    assert points[3] == points[6] and sorted(points.values(), reverse=True)[2] == points[3]
    assert sum(points[p] > points[3] for p in points) == 2  # two clear of them: one place left
    with pytest.raises(FormatError, match="P3, P6 are tied .* 1 place"):
        next_session(live.state, live.results(2000.0), 2000.0)
    assert {row["player"] for row in board if row["playoff"]} == {3, 6}
    assert live.hall(now=2000.0)["playoff"]["players"] in (["P3", "P6"], ["P6", "P3"])


def test_the_director_page_offers_the_play_off_and_its_result_decides_who_goes_on(tied_round_robin):
    st, tid = tied_round_robin
    app, client = director(st)
    page = client.get("/director").get_data(as_text=True)
    assert 'id="playoff"' in page and "二人斗地主" in page and "P3" in page and "P6" in page
    # A place left empty is refused with the reason, and nothing is stored.
    refused = client.post("/director/playoff", data={"csrf": client.csrf, "order": ["6", ""]}, follow_redirects=True)
    assert "请为每个名次选择一位选手" in refused.get_data(as_text=True)
    wrong = client.post("/director/playoff", data={"csrf": client.csrf, "order": ["6", "2"]}, follow_redirects=True)
    assert "请为每位加赛选手（P3、P6）各填一个名次" in wrong.get_data(as_text=True)  # player 2 was not in the tie
    assert not [a for a in st.actions(tid) if a.action == "playoff"]
    # P6 won the extra hand.
    done = client.post("/director/playoff", data={"csrf": client.csrf, "order": ["6", "3"]}, follow_redirects=True)
    assert "P6 &gt; P3" in done.get_data(as_text=True)
    [action] = [a for a in st.actions(tid) if a.action == "playoff"]
    assert action.data == {"stage": "round_robin", "order": [6, 3]}
    assert 'id="playoff"' not in client.get("/director").get_data(as_text=True)
    live = Live(st)
    ranks = {row["player"]: row["rank"] for row in live.hall(now=2000.0)["leaderboard"]}
    assert ranks[6] == 3 and ranks[3] == 4
    final = next_session(live.state, live.results(2000.0), 2000.0)
    assert final["stage"] == "final" and sorted(final["seating"]["1"]) == sorted([p for p, r in ranks.items() if r <= 3])
    assert 6 in final["seating"]["1"] and 3 not in final["seating"]["1"]
    # A play-off when there is no tie to settle is refused.
    again = client.post("/director/playoff", data={"csrf": client.csrf, "order": ["3", "6"]}, follow_redirects=True)
    assert "现在没有需要加赛的同分" in again.get_data(as_text=True)
    assert len([a for a in st.actions(tid) if a.action == "playoff"]) == 1
