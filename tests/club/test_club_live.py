"""The hall's view kept between asks (each table's result until its match or clock changes)
is the same as one folded afresh: after new hands at one table, and when the clock runs out."""

from __future__ import annotations

from club.live import Live
from club.sqlite import SqliteStorage
from club.storage import BoxEvent, BoxMatch
from club.tournament import next_session
from tests.kit.club_server import hand_payloads


def send(st, table: int, session: str, hand: int, seed: int) -> None:
    box = f"box-{table:08d}"
    if st.registration(table) is None:
        st.register(table, box, "hash")
    after = st.registration(table).acked
    info = BoxMatch(table, box, 1, ("A", "B", "C"), {"name": "chips", "changes": {}}, {"club_session": session}, 0.0)
    events = [BoxEvent(table, box, after + i + 1, after + i, 1, hand, 1000.0 + hand, p["kind"], "camera", p)
              for i, p in enumerate(hand_payloads(seed))]
    st.ingest(table, box, events, [info])


def same(kept: Live, st, now: float) -> dict:
    view = kept.hall(now)
    assert view == Live(st).hall(now)  # a new Live over the same database: nothing kept
    return view


def test_the_hall_kept_between_asks_equals_a_fresh_fold(tmp_path):
    st = SqliteStorage(str(tmp_path / "club.db"))
    tid = st.create_tournament("t", "seed004", {}, seed=3, now=0.0)
    for p in range(1, 10):
        st.add_player(tid, f"P{p}", "", f"code-{p}")
    live = Live(st, min_interval=0.0)
    st.act(tid, "session", next_session(live.state, {}, 900.0), now=900.0)
    key = f"{tid}/knockout-1"
    st.act(tid, "start", {"session": key, "at": 1000.0}, now=1000.0)
    send(st, 1, key, 1, 11)
    send(st, 2, key, 1, 12)
    first = same(live, st, 1500.0)
    send(st, 1, key, 2, 13)  # table 1 moves on, table 2 does not
    second = same(live, st, 1500.0)
    assert [t["hand"] for t in second["tables"]] == [2, 1, 0] and first["tables"][1] == second["tables"][1]
    after_time = same(live, st, 1000.0 + 46 * 60)  # the clock ran out: every table's status changes
    assert {t["status"] for t in after_time["tables"]} != {t["status"] for t in second["tables"]}
    st.close()
