"""The /api/state contract, the live page and the score chart, fed straight from the store."""

from __future__ import annotations

import time

from engine.events import Bid, Deal, Pass, Play
from engine.match import HandRecord, Match
from sim.scripted import random_hand
from tests.kit.table_site import PLAYERS, card_tuple, new_match, play_hands
from tracker.records import Alert
from webui.chart import score_chart


def test_state_before_any_match_is_an_empty_table(client):
    data = client.get("/api/state").get_json()
    assert data["match"] is None and data["hand"] is None
    assert data["scores"] == {"hand": [], "match": []} and data["finished"] == 0


def test_state_has_the_contract_keys_during_a_hand(client, store):
    mid = new_match(store)
    hand = random_hand("classic", 7)
    events = hand.log[:12]
    for e in events:
        store.append(mid, 1, e)
    data = client.get("/api/state").get_json()
    h = data["hand"]
    for key in ("number", "preset", "base", "multiplier", "landlord", "turn", "seats"):
        assert key in h
    assert h["number"] == 1 and h["preset"] == "classic"
    assert [s["name"] for s in h["seats"]] == list(PLAYERS)
    for s in h["seats"]:
        assert set(("name", "role", "cards_left", "last")) <= set(s)
    folded = type(hand).from_events("classic", events)
    assert [s["cards_left"] for s in h["seats"]] == folded.cards_left
    assert h["landlord"] == folded.landlord and h["turn"] == folded.turn
    assert [s["role"] for s in h["seats"]] == ["landlord" if i == folded.landlord else "farmer" for i in range(3)]
    assert set(data["scores"]) >= {"hand", "match"} and "alerts" in data and data["finished"] == 0


def test_finished_hands_score_and_match_totals_match_the_engine(client, store):
    mid = new_match(store)
    play_hands(store, mid, [1, 2, 3])
    data = client.get("/api/state").get_json()
    hands = [random_hand("classic", s) for s in (1, 2, 3)]
    match = Match("classic", PLAYERS, [HandRecord(tuple(h.log)) for h in hands])
    assert data["finished"] == 3
    assert data["scores"]["match"] == match.totals()
    assert data["scores"]["hand"] == list(match.settlements()[-1].points)
    assert data["scores"]["hand_final"] is True
    assert data["progress"][-1] == match.totals() and len(data["progress"]) == 4


def test_bomb_raises_the_multiplier_with_its_cause_and_last_play_shows(client, store):
    mid = new_match(store)
    for e in (Deal(counts=(17, 17, 17)), Bid(0, "bid", 2), Bid(1, "pass"), Bid(2, "pass"),
              Play(0, card_tuple("5s 5h 5d 5c")), Pass(1)):
        store.append(mid, 1, e)
    h = client.get("/api/state").get_json()["hand"]
    assert h["multiplier"] == 2 and h["base"] == 2
    assert h["causes"] == [{"cause": "bomb", "factor": 2}]
    assert h["seats"][0]["last"]["cards"] == "5s 5h 5d 5c" and h["seats"][0]["last"]["type"] == "bomb"
    assert h["seats"][1]["last"]["kind"] == "pass" and h["turn"] == 2
    assert h["seats"][0]["cards_left"] == 16 and h["seats"][0]["role"] == "landlord"


def test_alerts_of_the_current_hand_are_in_the_state_and_on_the_page(client, store):
    mid = new_match(store)
    store.append(mid, 1, Deal(counts=(17, 17, 17)))
    store.append(mid, 1, Alert("does_not_beat", seat=1, cards="3s", data={"beaten": "5h", "other": 0}))
    alerts = client.get("/api/state").get_json()["alerts"]
    assert alerts[0]["alert"] == "does_not_beat" and alerts[0]["seat"] == 1 and alerts[0]["cards"] == "3s"
    # rendered when shown, with the match's player names
    assert alerts[0]["message"] == "李四: 3♠ does not beat 5♥ (张三)" and alerts[0]["zh"] == "李四的3♠ 管不上 张三的5♥"
    assert alerts[0]["severity"] == "fault" and alerts[0]["data"] == {"beaten": "5h", "other": 0}
    page = client.get("/?lang=zh").get_data(as_text=True)
    assert "管不上" in page and "李四的3♠ 管不上 张三的5♥" in page
    assert "李四: 3♠ does not beat 5♥ (张三)" in client.get("/?lang=en").get_data(as_text=True)


def test_an_alert_stored_by_the_previous_program_still_shows(client, store):
    """Older stores hold alerts with their sentences (``message``/``zh``), kinds since retired
    among them: they load, and show their stored text where the table cannot render them."""
    from tracker.records import record_from_dict

    mid = new_match(store)
    store.append(mid, 1, Deal(counts=(17, 17, 17)))
    old = [{"kind": "alert", "alert": "not_announced", "message": "seat 1 has 2 card(s) left and must announce it",
            "zh": "1 号位剩 2 张牌，须报牌", "seat": 1, "cards": None, "suggestion": None, "event_index": None,
            "time": 5.0},
           {"kind": "alert", "alert": "seen_twice", "message": "2c seen in 2 places", "zh": "同一张牌出现两次",
            "seat": None, "cards": "2c", "suggestion": None, "event_index": None, "time": None},
           {"kind": "alert", "alert": "uncertain_read", "message": "seat 0: read 6h, probably 8h",
            "zh": "0 号位的牌看不清：读到 6h，可能是 8h", "seat": 0, "cards": "6h", "suggestion": "8h",
            "event_index": 3, "time": None}]
    for data in old:
        store.append(mid, 1, record_from_dict(data))
    alerts = client.get("/api/state").get_json()["alerts"]
    assert [a["alert"] for a in alerts] == ["not_announced", "seen_twice", "uncertain_read"]
    assert alerts[0]["message"] == old[0]["message"] and alerts[0]["zh"] == old[0]["zh"]  # no "left": stored text
    assert alerts[1]["message"] == "2c seen in 2 places" and alerts[1]["zh"] == "同一张牌出现两次"
    assert alerts[2]["zh"] == old[2]["zh"]  # no "cause" among its fields
    page = client.get("/?lang=zh").get_data(as_text=True)
    assert "1 号位剩 2 张牌，须报牌" in page and "同一张牌出现两次" in page
    assert "2c seen in 2 places" in client.get("/?lang=en").get_data(as_text=True)


def test_alerts_before_a_referee_entry_are_shown_as_handled(client, store):
    mid = new_match(store)
    store.append(mid, 1, Deal(counts=(17, 17, 17)), source="referee")
    for e in (Bid(0, "bid", 1), Bid(1, "pass"), Bid(2, "pass")):
        store.append(mid, 1, e, source="referee")
    store.append(mid, 1, Alert("does_not_beat", seat=1, cards="3s", data={"beaten": "5h", "other": 0}),
                 source="camera")
    store.append(mid, 1, Play(0, card_tuple("4s")), source="camera")  # the camera's own reads leave it open
    assert [a["handled"] for a in client.get("/api/state").get_json()["alerts"]] == [False]
    assert "裁判已处理" not in client.get("/live/fragment?lang=zh").get_json()["html"]
    store.append(mid, 1, Pass(1), source="referee")  # the referee acted on the page
    store.append(mid, 1, Alert("illegal_combination", seat=2, cards="3s 4h", data={"rules": "classic"}),
                 source="camera")
    alerts = client.get("/api/state").get_json()["alerts"]
    assert [(a["alert"], a["handled"]) for a in alerts] == [("does_not_beat", True), ("illegal_combination", False)]
    html = client.get("/live/fragment?lang=zh").get_json()["html"]
    assert html.count("裁判已处理") == 1 and 'class="alert does_not_beat fault handled"' in html


def test_cards_left_warns_at_two_and_one(client, store):
    mid = new_match(store)
    store.append(mid, 1, Deal(counts=(3, 2, 1)))
    html = client.get("/live/fragment").get_json()["html"]
    assert 'class="left warn"' in html and 'class="left danger"' in html


def test_live_page_is_chinese_by_default_and_english_one_tap_away(client, store):
    new_match(store)
    zh = client.get("/")
    assert zh.status_code == 200 and "倍数" in zh.get_data(as_text=True)
    en = client.get("/?lang=en")
    assert "Multiplier" in en.get_data(as_text=True)
    assert "lang=en" in en.headers.get("Set-Cookie", "")
    assert "Multiplier" in client.get("/").get_data(as_text=True)  # the choice is remembered


def test_unknown_match_is_404_and_bad_match_number_400(client):
    assert client.get("/api/state?match=42").status_code == 404
    response = client.get("/api/state?match=abc")
    assert response.status_code == 400 and "match" in response.get_json()["error"]


def test_healthz_reports_the_pipeline_hook(store):
    from webui import create_app

    status = {"source": "camera 0", "fps": 9.5, "last_frame": 1234.5}
    app = create_app({"REFEREE_PIN": "1"}, store=store, pipeline_status=lambda: status)
    data = app.test_client().get("/healthz").get_json()
    assert data["ok"] is True
    assert data["pipeline"]["source"] == "camera 0" and data["pipeline"]["fps"] == 9.5
    assert data["pipeline"]["last_frame"] == 1234.5


def test_healthz_without_a_pipeline_says_so(client):
    data = client.get("/healthz").get_json()
    assert data["pipeline"]["running"] is False and data["pipeline"]["source"] is None


def test_score_chart_draws_one_line_per_player_through_the_totals():
    svg = score_chart([[0, 0, 0], [8, -4, -4], [2, -1, -1]], ("A", "B", "C"))
    assert svg.count("<polyline") == 3 and "+2" in svg and "-1" in svg
    assert "http" not in svg.replace('xmlns="http://www.w3.org/2000/svg"', "")  # nothing fetched


def test_camera_view_is_off_by_default(client):
    response = client.get("/camera.mjpg")
    assert response.status_code == 404 and "off" in response.get_data(as_text=True)


def test_timed_matches_show_the_clock(client, store):
    from engine.rules import get_rules

    store.create_match(PLAYERS, get_rules("classic").replace(time_limit_min=45),
                       meta={"started": time.time() - 600})
    data = client.get("/api/state").get_json()
    assert data["match"]["time_limit_min"] == 45 and 2090 <= data["match"]["remaining_s"] <= 2100
    page = client.get("/").get_data(as_text=True)
    assert 'id="clock">35:00' in page or 'id="clock">34:5' in page


def test_every_word_has_both_languages():
    from webui.i18n import WORDS

    assert set(WORDS["zh"]) == set(WORDS["en"])


def test_camera_view_streams_the_pipeline_frames_when_switched_on(store):
    from webui import create_app

    class Pipeline:
        def status(self):
            return {"source": "fake", "fps": 1.0, "last_frame": 0.0}

        def jpeg(self):
            return b"\xff\xd8fake-jpeg\xff\xd9"

    app = create_app({"REFEREE_PIN": "1", "CAMERA_VIEW": True}, store=store, pipeline_status=Pipeline())
    response = app.test_client().get("/camera.mjpg", buffered=False)
    assert response.status_code == 200 and response.mimetype == "multipart/x-mixed-replace"
    first = next(response.response)
    assert b"Content-Type: image/jpeg" in first and b"fake-jpeg" in first
    response.close()
    assert "camera-toggle" in app.test_client().get("/").get_data(as_text=True)


def test_time_up_with_a_hand_in_play_waits_for_that_hand_before_the_verdict(client, store):
    """The seeds' rule: when time is called the hand in play is finished first; only then is the
    match decided (the club's screens say the same: club.tables.MatchFold.tally)."""
    from engine.rules import get_rules

    mid = store.create_match(PLAYERS, get_rules("classic").replace(time_limit_min=30),
                             meta={"started": time.time() - 31 * 60})
    play_hands(store, mid, [3])
    hand = random_hand("classic", 4).log
    first_play = next(i for i, e in enumerate(hand) if isinstance(e, Play))
    for event in hand[:first_play + 1]:
        store.append(mid, 2, event)
    status = client.get("/api/state").get_json()["match"]["status"]
    assert status["reason"] == "last_hand" and not status["over"]
    assert "打完手上这局" in client.get("/").get_data(as_text=True)
    for event in hand[first_play + 1:]:
        store.append(mid, 2, event)
    status = client.get("/api/state").get_json()["match"]["status"]
    assert status["over"] or status["reason"] == "tie_break"
    assert status["reason"] in ("time", "tie_break")
