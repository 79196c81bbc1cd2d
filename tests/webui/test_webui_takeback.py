"""A play the camera shortened because a card was taken back: the referee page records it as
laid in one tap; a play taken off as picked up is entered again with the alert's own button."""

from __future__ import annotations

import html

from engine.events import Bid, Correction, Deal, Play
from tests.kit.table_site import act, api_state, card_tuple, new_match
from tracker.records import Alert
from tracker.referee import CameraReferee, PlayCandidate
from tracker.takeback import TakeBacks


def kinds(records):
    return [r.alert if isinstance(r, Alert) else r.kind for r in records]


def test_a_take_back_alert_restores_the_play_as_laid_in_one_tap(referee, store, client):
    mid = new_match(store)
    for e in (Deal(counts=(17, 17, 17)), Bid(0, "bid", 3), Play(0, card_tuple("7s 7h 7d Kd")),
              Correction("replace", 2, Play(0, card_tuple("7s 7h 7d")), reason="camera: Kd taken back"),
              Alert("taken_back", seat=0, cards="7s 7h 7d", event_index=2,
                    data={"laid": "7s 7h 7d Kd", "taken": "Kd", "kept": "7s 7h 7d"})):
        store.append(mid, 1, e, source="camera")
    page = referee.get("/referee").get_data(as_text=True)
    assert "收回了牌" in page and 'class="restore-laid"' in page and 'value="7s 7h 7d Kd"' in page
    assert act(referee, "correct", index=2, cards="7s 7h 7d Kd", what="play").status_code == 303
    assert api_state(client)["hand"]["seats"][0]["last"]["cards"] == "7s 7h 7d Kd"


def test_a_picked_up_alert_offers_the_play_to_its_seat_on_turn(referee, store):
    mid = new_match(store)
    for e in (Deal(counts=(17, 17, 17)), Bid(0, "bid", 3), Play(0, card_tuple("5s")),
              Alert("picked_up", seat=1, cards="9h", event_index=3, data={"laid": "9h", "taken": "9h", "kept": ""})):
        store.append(mid, 1, e, source="camera")
    page = referee.get("/referee").get_data(as_text=True)
    assert "放下又拿起的牌" in page and 'class="record-as"' in page and 'value="9h"' in page


def _camera(store):
    """The camera's referee on the site's store, a hand dealt and bid (seat 1 the landlord)."""
    mid = new_match(store)
    camera = CameraReferee(store, mid)
    for e in (Deal(counts=(17, 17, 17)), Bid(0, "pass"), Bid(1, "bid", 3)):
        store.append(mid, 1, e, source="referee")
    return camera


def test_a_card_the_camera_saw_taken_back_is_put_back_into_the_play_from_the_page_in_one_tap(referee, store, client):
    camera, takebacks = _camera(store), TakeBacks()
    camera.play(PlayCandidate(1, ("7s", "7h", "7d", "Kd"), 2.0))
    assert kinds(takebacks.taken(camera, 1, ("Kd",), ("7s", "7h", "7d"), False, 4.0)) == ["correction", "taken_back"]
    assert api_state(client)["hand"]["seats"][1]["last"]["cards"] == "7s 7h 7d"
    page = referee.get("/referee").get_data(as_text=True)
    form = page[page.index('class="alert taken_back'):]
    index = int(form.split('name="index" value="', 1)[1].split('"', 1)[0])
    laid = html.unescape(form.split('name="cards" value="', 1)[1].split('"', 1)[0])
    assert laid == "7s 7h 7d Kd"
    assert act(referee, "correct", index=index, cards=laid, what="play").status_code == 303  # the one tap
    state = api_state(client)
    assert state["hand"]["seats"][1]["last"]["cards"] == "7s 7h 7d Kd" and state["hand"]["turn"] == 2
    assert [a["handled"] for a in state["alerts"] if a["alert"] == "taken_back"] == [True]


def test_a_play_the_camera_took_off_as_picked_up_is_entered_again_from_the_page_in_one_tap(referee, store, client):
    camera, takebacks = _camera(store), TakeBacks()
    camera.play(PlayCandidate(1, ("5s",), 2.0))
    camera.play(PlayCandidate(2, ("9h",), 5.0))
    assert kinds(takebacks.taken(camera, 2, ("9h",), (), False, 7.0)) == ["correction", "picked_up"]
    assert api_state(client)["hand"]["turn"] == 2
    page = referee.get("/referee").get_data(as_text=True)
    form = page[page.index('class="alert picked_up'):]
    assert 'class="record-as"' in form
    cards = html.unescape(form.split('name="cards" value="', 1)[1].split('"', 1)[0])
    seat = int(form.split('name="seat" value="', 1)[1].split('"', 1)[0])
    assert act(referee, "play", seat=seat, cards=cards).status_code == 303  # the one tap
    state = api_state(client)
    assert state["hand"]["seats"][2]["last"]["cards"] == "9h" and state["hand"]["turn"] == 0


def test_a_dropped_card_taken_off_again_leaves_the_record_right_and_offers_no_play(referee, store, client):
    camera, takebacks = _camera(store), TakeBacks()
    camera.play(PlayCandidate(1, ("5s",), 2.0))
    camera.play(PlayCandidate(0, ("9h",), 5.0))  # seat 1 (not on turn) drops a card: read as a play
    assert kinds(takebacks.taken(camera, 0, ("9h",), (), False, 7.0)) == ["correction", "correction", "picked_up"]
    state = api_state(client)
    assert state["hand"]["turn"] == 2 and state["hand"]["seats"][0]["last"] is None
    page = referee.get("/referee").get_data(as_text=True)
    form = page[page.index('class="alert picked_up'):].split("</li>", 1)[0]
    assert "放下又拿起的牌" in form and "record-as" not in form  # nothing to tap: it was no play
