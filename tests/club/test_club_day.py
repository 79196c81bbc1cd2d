"""A club day's screens tell one story: when a table is decided, its hands (finished, void, in
play), its status and tie, the ranks, and every word in the visitor's language alone."""

from __future__ import annotations

import re
import time

import pytest

from club.app import build_app
from club.live import Live
from club.sqlite import SqliteStorage
from club.tournament import next_session
from tests.kit.club_day import Box, end_session, knockout
from tests.kit.club_server import KEY, PIN, ThreadServer, director_client
from tracker.replicate import Replicator
from tracker.store import EventStore
from webui.tables import Tables

PLAYERS = ("P1", "P2", "P3")
CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")


@pytest.fixture
def st(tmp_path):
    storage = SqliteStorage(str(tmp_path / "club.db"))
    yield storage
    storage.close()


def table_one(live: Live, now: float) -> dict:
    return next(t for t in live.hall(now=now)["tables"] if t["table"] == 1)


def text_of(html: str) -> str:
    """A page's visible words: no tags, no script or style."""
    html = re.sub(r"(?s)<(script|style)\b.*?</\1>", " ", html)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


# ---------------------------------------------------------------------- item 3: time, then the hand in play
def test_no_winner_is_named_while_the_hand_in_play_when_time_is_called_is_unfinished(st):
    tid, key = knockout(st)
    box = Box(st, 1, key, PLAYERS)
    box.deal("won", at=1100.0)  # P1 wins hand 1 as landlord: 24 / 18 / 18
    box.deal("open", at=1200.0)  # hand 2 is dealt before time and still played
    end_session(st, tid, key, at=1300.0)
    live = Live(st)
    row = table_one(live, now=1400.0)
    assert row["status"] == "last_hand" and row["winners"] == [] and row["in_play"] == 2
    # The farmers win it: the table is tied at 20 each, and the extra hand is the tie's, not a winner's.
    box.finish("lost", at=1500.0)
    live.refresh(force=True)
    row = table_one(live, now=1600.0)
    assert row["status"] == "tie_break" and row["needs_extra_hand"] and row["winners"] == []
    assert row["totals"] == [20, 20, 20] and row["finished"] == 2 and row["in_play"] is None
    box.deal("open", at=1700.0, landlord=1)  # the extra hand, dealt after time: P2 is its landlord
    live.refresh(force=True)
    assert table_one(live, now=1800.0)["in_play"] == 3 and table_one(live, now=1800.0)["status"] == "tie_break"
    box.finish("won", at=1750.0, landlord=1)
    live.refresh(force=True)
    row = table_one(live, now=1800.0)
    assert row["status"] == "time" and row["winners"] == ["P2"] and row["finished"] == 3


def test_the_next_stage_waits_for_the_hand_in_play_and_says_why_in_the_tables_words(st):
    tid, key = knockout(st, players=6)
    Box(st, 1, key, PLAYERS).deal("won", at=1100.0)
    end_session(st, tid, key, at=1300.0)  # table 2 has no box: it has no result
    live = Live(st)
    with pytest.raises(Exception) as refused:
        next_session(live.state, live.results(1400.0), 1400.0)
    assert refused.value.fmt["tables"] == [(2, "no_result")]
    app = build_app({"DIRECTOR_PIN": PIN, "CLUB_KEY": "k", "TESTING": True}, storage=st)
    client = director_client(app)
    page = text_of(client.post("/director/next", data={"csrf": client.csrf}, follow_redirects=True).get_data(as_text=True))
    assert "还有桌没有决出唯一胜者：第 2 桌：无成绩（没有盒子上报本桌）" in page
    assert "第 2 桌" in page and "等待开始" not in page  # the seating says what the refusal says


# ---------------------------------------------------------------------- item 5: one count of hands everywhere
def test_hands_finished_void_and_in_play_read_the_same_on_hall_director_and_player_page(st):
    tid, key = knockout(st)
    box = Box(st, 1, key, PLAYERS)
    for at in (1100.0, 1110.0, 1120.0):
        box.deal("void", at=at)
    box.deal("won", at=1130.0)
    box.deal("open", at=1140.0)
    live = Live(st)
    row = table_one(live, now=1200.0)
    assert (row["finished"], row["void"], row["in_play"]) == (1, 3, 5)
    app = build_app({"DIRECTOR_PIN": PIN, "CLUB_KEY": "k", "TESTING": True}, storage=st)
    client = director_client(app)
    words = "已完成 1 局 · 作废 3 局 · 第 5 局进行中"
    assert words in text_of(client.get("/director").get_data(as_text=True))
    assert words in text_of(app.test_client().get("/p/code-1").get_data(as_text=True))
    en = text_of(app.test_client().get("/p/code-1?lang=en").get_data(as_text=True))
    assert "1 hand finished · 3 void · hand 5 in play" in en
    exported = client.get("/export/event.json").get_json()["sessions"][0]["tables"][0]
    assert (exported["finished"], exported["void"], exported["in_play"]) == (1, 3, 5)


def test_a_hand_cut_short_by_the_boxs_end_of_the_match_is_void_and_the_table_is_decided(st):
    tid, key = knockout(st)
    box = Box(st, 1, key, PLAYERS)
    box.deal("won", at=1100.0)
    box.deal("open", at=1200.0)
    box.end_match(at=1250.0)
    row = table_one(Live(st), now=1300.0)
    assert (row["finished"], row["void"], row["in_play"]) == (1, 1, None)
    assert row["status"] == "ended" and row["winners"] == ["P1"]


# ---------------------------------------------------------------------- item 5: ranks
def test_before_any_hand_nobody_has_a_rank_and_players_level_on_points_share_one(st):
    tid, key = knockout(st, players=6)
    live = Live(st)
    board = live.hall(now=1050.0)["leaderboard"]
    assert {r["rank_text"] for r in board} == {"–"} and {r["rank"] for r in board} == {None}
    Box(st, 1, key, PLAYERS).deal("won", at=1100.0)  # P1 24, P2 and P3 18, table 2 all 20
    live.refresh(force=True)
    ranks = {r["name"]: r["rank_text"] for r in live.hall(now=1200.0)["leaderboard"]}
    assert ranks == {"P1": "1", "P4": "2=", "P5": "2=", "P6": "2=", "P2": "5=", "P3": "5="}
    app = build_app({"DIRECTOR_PIN": PIN, "CLUB_KEY": "k", "TESTING": True}, storage=st)
    mine = text_of(app.test_client().get("/p/code-4").get_data(as_text=True))
    assert "2= / 6" in mine
    csv_rows = director_client(app).get("/export/results.csv").get_data(as_text=True).splitlines()
    assert [line.split(",")[1] for line in csv_rows[1:]] == ["1", "2=", "2=", "2=", "5=", "5="]


# ---------------------------------------------------------------------- item 4: a tie said once, the same way
def test_a_tie_is_said_once_and_the_hall_and_director_agree(st):
    tid, key = knockout(st)
    box = Box(st, 1, key, PLAYERS)
    box.deal("won", at=1100.0)
    box.deal("lost", at=1200.0)  # 20 / 20 / 20
    end_session(st, tid, key, at=1300.0)
    app = build_app({"DIRECTOR_PIN": PIN, "CLUB_KEY": "k", "TESTING": True}, storage=st)
    client = director_client(app)
    page = text_of(client.get("/director").get_data(as_text=True))
    assert page.count("同分：加赛一局") == 1 and "需要加赛" not in page
    hall = app.test_client().get("/api/hall").get_json()["tables"][0]
    assert hall["status"] == "tie_break" and hall["winners"] == []


# ---------------------------------------------------------------------- item 6: the director's words, one language
def test_the_directors_notices_and_page_speak_the_directors_language_alone(st):
    app = build_app({"DIRECTOR_PIN": PIN, "CLUB_KEY": "k", "TESTING": True}, storage=st)
    client = director_client(app)
    created = text_of(client.post("/director/create", data={"csrf": client.csrf, "name": "周五俱乐部赛", "seed": "42",
                                                            "format": "seed004"}, follow_redirects=True).get_data(as_text=True))
    assert "已新建「周五俱乐部赛」，抽签种子 42" in created and "seed 42" not in created
    assert "淘汰赛 + 循环赛 + 总决赛（筹码）" in created and "Knockout" not in created
    early = text_of(client.post("/director/start", data={"csrf": client.csrf}, follow_redirects=True).get_data(as_text=True))
    assert "请先抽签" in early and "draw the tables" not in early and "未完成" not in early
    client.post("/director/players", data={"csrf": client.csrf, "lines": "\n".join(f"选手{i}" for i in range(1, 4))})
    drawn = text_of(client.post("/director/next", data={"csrf": client.csrf}, follow_redirects=True).get_data(as_text=True))
    assert "已抽签：淘汰赛 第 1 节" in drawn and "knockout-1" not in drawn and "已完成:" not in drawn
    assert "盒子" in drawn and re.search(r"\bbox\b", drawn) is None
    en = client.get("/director?lang=en").get_data(as_text=True)
    names = {"周五俱乐部赛", "选手1", "选手2", "选手3", "中文"}
    leftover = text_of(en)
    for name in names:
        leftover = leftover.replace(name, "")
    assert not CJK.findall(leftover), CJK.findall(leftover)
    assert "Knockout period 1" in text_of(en)
    cards = text_of(client.get("/cards?lang=zh").get_data(as_text=True))
    assert "淘汰赛 第 1 节" in cards and "Knockout" not in cards


def test_the_results_refusal_before_they_are_published_is_in_the_visitors_language(st):
    knockout(st)
    app = build_app({"DIRECTOR_PIN": PIN, "CLUB_KEY": "k", "TESTING": True}, storage=st)
    zh = app.test_client().get("/export/results?lang=zh")
    assert zh.status_code == 403 and "成绩还没有公布" in text_of(zh.get_data(as_text=True))
    assert "published" not in zh.get_data(as_text=True)
    en = app.test_client().get("/export/results?lang=en")
    assert en.status_code == 403 and "not published yet" in en.get_data(as_text=True)


# ---------------------------------------------------------------------- item 11: publish and end ask, and a tie holds publishing
def test_publishing_with_a_tie_unresolved_is_refused_and_nothing_is_stored(st):
    tid, key = knockout(st)
    box = Box(st, 1, key, PLAYERS)
    box.deal("won", at=1100.0)
    box.deal("lost", at=1200.0)
    end_session(st, tid, key, at=1300.0)
    app = build_app({"DIRECTOR_PIN": PIN, "CLUB_KEY": "k", "TESTING": True}, storage=st)
    client = director_client(app)
    page = text_of(client.post("/director/publish", data={"csrf": client.csrf}, follow_redirects=True).get_data(as_text=True))
    assert "还不能公布：第 1 桌：同分：加赛一局" in page
    assert not [a for a in st.actions(tid) if a.action == "publish"]
    box.deal("open", at=1400.0, landlord=2)  # the extra hand settles it: P3
    box.finish("won", at=1450.0, landlord=2)
    page = text_of(client.post("/director/publish", data={"csrf": client.csrf}, follow_redirects=True).get_data(as_text=True))
    assert "成绩已公布" in page and [a for a in st.actions(tid) if a.action == "publish"]


def test_ending_the_period_and_publishing_ask_first_naming_the_period_and_the_event(st):
    knockout(st)
    app = build_app({"DIRECTOR_PIN": PIN, "CLUB_KEY": "k", "TESTING": True}, storage=st)
    page = director_client(app).get("/director").get_data(as_text=True)
    end = re.search(r'id="do-end" data-confirm="([^"]+)"', page)
    publish = re.search(r'id="do-publish" data-confirm="([^"]+)"', page)
    assert end and "结束淘汰赛 第 1 节？" in end.group(1) and "打完手上这局" in end.group(1)
    assert publish and "周五俱乐部赛" in publish.group(1)
    assert "director.js" in page


# ---------------------------------------------------------------------- item 3: one clock, the club's, on the box too
def test_the_boxs_page_shows_the_clubs_clock_and_stops_when_the_director_ends_the_period(tmp_path):
    storage = SqliteStorage(str(tmp_path / "club.db"))
    tid, key = knockout(storage, start=time.time() - 60)  # the clock has run a minute of its 45
    box_store = EventStore(str(tmp_path / "box.db"))
    with ThreadServer(storage) as server:
        rep = Replicator(box_store, server.url, table=1, key=KEY, timeout=2.0, heartbeat=0.0)
        rep.step()  # the box learns its assignment: the session's match, and the club's clock
        [match] = box_store.matches()
        tables = Tables(box_store, club_clock=rep.club_clock)
        shown = tables.view(match.id)["match"]
        assert shown["clock_state"] == "running" and 43 * 60 < shown["remaining_s"] <= 44 * 60
        storage.act(tid, "end", {"session": key, "at": time.time()}, now=time.time())
        server.app.extensions["club"].live.refresh(force=True)  # not waiting out its refresh interval
        rep.step()
        shown = tables.view(match.id, now=time.time() + 2)["match"]  # past the view's one-second cache
        assert shown["clock_state"] == "ended" and 43 * 60 < shown["remaining_s"] <= 44 * 60
        assert rep.club_clock("another-session") is None
    box_store.close()
    storage.close()
