"""A play the camera shortened because a card was taken back: the referee page records it as
laid in one tap; a play taken off as picked up is entered again with the alert's own button."""

from __future__ import annotations

from engine.events import Bid, Correction, Deal, Play
from tests.kit.table_site import act, api_state, card_tuple, new_match
from tracker.records import Alert


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
