"""Referee corrections at a point of the hand, and what players declare at the table:
insert a missed pass, delete an event, open hand (明牌), announce (报单/报双), escape (逃跑)."""

from __future__ import annotations

from engine.events import Announce, Bid, Correction, Deal, Escape, OpenHand, Pass, Play
from tests.kit.table_site import act, api, api_state, card_tuple, new_match


def _hand(store, *events, preset: str = "classic") -> int:
    mid = new_match(store, preset)
    for e in (Deal(counts=(17, 17, 17)), Bid(0, "bid", 3), *events):
        store.append(mid, 1, e)
    return mid



def test_a_missed_pass_is_inserted_for_the_seat_whose_turn_it_was(referee, store, client):
    # The camera gave seat 1's turn to seat 2: 9s, then 10s "by seat 1" that seat 2 played.
    mid = _hand(store, Play(0, card_tuple("9s")), Play(1, card_tuple("10s")))
    assert act(referee, "delete", index=3).status_code == 303
    assert act(referee, "insert", index=3, what="pass").status_code == 303
    assert act(referee, "insert", index=4, what="play", seat=2, cards="10s").status_code == 303
    state = api_state(client)
    assert state["hand"]["turn"] == 0 and state["hand"]["seats"][1]["last"]["kind"] == "pass"
    assert [s["cards_left"] for s in state["hand"]["seats"]] == [19, 17, 16]
    fixes = [r.event for r in store.events(mid) if isinstance(r.event, Correction)]
    assert [(f.action, f.target) for f in fixes] == [("delete", 3), ("insert", 3), ("insert", 4)]
    assert fixes[1].event == Pass(1, time=fixes[1].event.time)
    assert {r.source for r in store.events(mid)[-3:]} == {"referee"}


def test_a_pass_where_the_rules_forbid_it_is_refused_and_not_stored(referee, store):
    mid = _hand(store, Play(0, card_tuple("9s")))
    before = store.last_seq()
    response = act(referee, "insert", index=2, what="pass")  # before the landlord's lead: seat 0 must play
    assert response.status_code == 409 and "id=\"refusal\"" in response.get_data(as_text=True)
    assert act(referee, "insert", index=1, what="pass").status_code == 409  # during bidding: nobody to play
    assert store.last_seq() == before and store.events(mid)[-1].kind == "play"


def test_a_pass_the_camera_inferred_becomes_the_play_it_missed(referee, store, client):
    # Seat 1 played 4s 4h unseen; when seat 0 played next the tracker inferred two passes.
    _hand(store, Play(0, card_tuple("3s 3h")), Pass(1), Pass(2), Play(0, card_tuple("6s 6h")))
    assert act(referee, "correct", index=3, what="play", cards="4s 4h").status_code == 303
    hand = api_state(client)["hand"]
    assert [s["cards_left"] for s in hand["seats"]] == [16, 15, 17]
    assert hand["seats"][1]["last"]["cards"] == "4s 4h" and hand["turn"] == 1


def test_a_play_that_was_no_play_becomes_a_pass_and_a_seat_can_be_changed(referee, store, client):
    _hand(store, Play(0, card_tuple("3s")), Play(1, card_tuple("5s")))
    assert act(referee, "correct", index=3, what="pass").status_code == 303
    assert api_state(client)["hand"]["seats"][1]["cards_left"] == 17
    # Several fixes go from the last one back: each step leaves a hand the rules accept.
    assert act(referee, "correct", index=2, seat=1, cards="3s").status_code == 409  # seat 0 leads
    assert act(referee, "correct", index=3, what="sing").status_code == 400


def test_deleting_a_play_gives_the_cards_back_and_the_deal_cannot_be_deleted(referee, store, client):
    _hand(store, Play(0, card_tuple("9s 9h")), Pass(1))
    assert act(referee, "delete", index=0).status_code == 409
    assert act(referee, "delete", index=4).status_code == 400  # no such event
    assert act(referee, "delete", index=2).status_code == 409  # seat 1's pass would then follow nothing
    assert act(referee, "delete", index=3).status_code == 303
    assert act(referee, "delete", index=2).status_code == 303
    state = api_state(client)
    assert state["hand"]["plays"] == 0 and state["hand"]["seats"][0]["cards_left"] == 20


def test_open_hand_doubles_by_the_preset_and_only_the_landlord_opens_once(referee, store, client):
    mid = new_match(store)
    store.append(mid, 1, Deal(counts=(17, 17, 17)))
    assert act(referee, "open_hand").status_code == 409  # nobody is landlord yet
    store.append(mid, 1, Bid(0, "bid", 3))
    assert act(referee, "open_hand", seat=1).status_code == 409  # a farmer
    assert act(referee, "open_hand").status_code == 303  # default: the landlord
    assert act(referee, "open_hand").status_code == 409  # already open
    hand = api_state(client)["hand"]
    assert hand["multiplier"] == 2 and [c["cause"] for c in hand["causes"]] == ["open_hand"]
    assert act(referee, "concede", seat=1).status_code == 303
    assert api_state(client)["scores"]["hand"] == [12, -6, -6]  # base 3 x open hand 2


def test_open_hand_in_the_fixed_score_format_pays_six_and_two(referee, store, client):
    _hand(store, preset="fixed")
    assert act(referee, "open_hand").status_code == 303
    assert act(referee, "concede", seat=2).status_code == 303
    assert api_state(client)["scores"]["hand"] == [6, -2, -2]


def test_announce_only_at_the_presets_card_count(referee, store, client):
    mid = new_match(store)
    for e in (Deal(counts=(17, 3, 17)), Bid(0, "bid", 3), Play(0, card_tuple("3s")), Play(1, card_tuple("4s"))):
        store.append(mid, 1, e)
    assert act(referee, "announce", seat=0).status_code == 409  # 19 cards left
    assert act(referee, "announce").status_code == 303  # seat 1 alone owes it (2 left)
    assert store.events(mid)[-1].event == Announce(1, time=store.events(mid)[-1].event.time)
    assert api_state(client)["hand"]["seats"][1]["announced"] is True
    live = client.get("/?lang=en").get_data(as_text=True)
    assert live.count('class="announced"') == 1 and ">announced<" in live


def test_escape_ends_the_hand_with_the_escape_penalty(referee, store, client):
    mid = _hand(store)
    assert act(referee, "escape", seat=2).status_code == 303
    assert isinstance(store.events(mid)[-1].event, Escape)
    state = api_state(client)
    assert state["hand"]["phase"] == "finished" and state["hand"]["outcome"] == "escape"
    assert state["scores"]["hand"][2] == -9  # base 3 x multiplier 1 x 3


def test_the_page_lists_the_hand_with_insert_and_delete_at_every_point(referee, store):
    _hand(store, Play(0, card_tuple("9s")), Pass(1), OpenHand(0))
    page = referee.get("/referee").get_data(as_text=True)
    for index in (1, 2, 3, 4):
        assert f'data-event-index="{index}"' in page
    assert 'data-event-index="0"' not in page  # the deal
    assert page.count('formaction="/referee/act/delete"') == 4
    assert 'data-play-index="2"' in page and 'data-pass-index="3"' in page  # the cards to correct
    assert 'id="open-hand"' not in page  # already open
    assert 'id="insert-form"' in page


def test_bad_correction_requests_get_4xx_with_a_message(client, store):
    _hand(store, Play(0, card_tuple("9s")))
    cases = [
        ("insert", {"index": 3, "what": "bomb"}, 400),
        ("insert", {"index": 3, "what": "play", "seat": 1}, 400),  # no cards
        ("insert", {"index": 3, "what": "play", "cards": "10s"}, 400),  # no seat
        ("insert", {"index": 0, "what": "pass"}, 400),  # before the deal
        ("insert", {"index": 9, "what": "pass"}, 400),
        ("insert", {"index": "x"}, 400),
        ("delete", {}, 400),
        ("delete", {"index": -1}, 400),
        ("open_hand", {"seat": 5}, 400),
        ("announce", {"seat": "one"}, 400),
        ("escape", {}, 400),
    ]
    for action, body, code in cases:
        response = api(client, action, body)
        assert response.status_code == code, (action, body, response.get_json())
        assert response.get_json()["error"]
    assert api(client, "insert", {"index": 3, "what": "pass"}).status_code == 200  # the good one goes in


def test_alerts_on_the_referee_page_offer_the_fix(referee, store, client):
    from tracker.records import Alert

    mid = _hand(store, Play(0, card_tuple("9s")))
    # The camera read 8h for seat 1 (does not beat 9s); the table shows 10h.
    store.append(mid, 1, Alert("does_not_beat", seat=1, cards="8h", data={"beaten": "9s", "other": 0}))
    page = referee.get("/referee").get_data(as_text=True)
    assert 'id="ref-alerts"' in page and 'value="8h"' in page and 'class="record-as"' in page
    assert act(referee, "play", seat=1, cards="10h").status_code == 303
    assert api_state(client)["hand"]["seats"][1]["last"]["cards"] == "10h"
    page = referee.get("/referee").get_data(as_text=True)
    assert 'class="record-as"' not in page  # seat 1 has played: nothing left to fix there


def test_a_not_announced_reminder_offers_the_announcement(referee, store):
    from tracker.records import Alert

    mid = new_match(store)
    for e in (Deal(counts=(17, 3, 17)), Bid(0, "bid", 3), Play(0, card_tuple("3s")), Play(1, card_tuple("4s")),
              Alert("not_announced", seat=1, data={"left": 2})):
        store.append(mid, 1, e)
    page = referee.get("/referee").get_data(as_text=True)
    assert 'class="announce-now"' in page
    store.append(mid, 1, Announce(1))
    assert 'class="announce-now"' not in referee.get("/referee").get_data(as_text=True)


def test_the_judge_takes_one_field_with_the_play_to_beat(client, referee):
    data = client.get("/api/judge", query_string={"cards": "BJ RJ > 2s 2h 2d 2c"}).get_json()
    assert data["after"] == "2s 2h 2d 2c" and data["beats"] is True
    assert client.get("/api/judge", query_string={"cards": "3s >"}).status_code == 400
    page = referee.get("/referee", query_string={"cards": "3s 3h > 4s 4h", "lang": "en"}).get_data(as_text=True)
    assert "does not beat" in page


def test_a_missed_play_is_entered_on_the_page_and_the_held_play_follows(referee, store, client):
    """The camera missed seat 0's RJ over seat 1's 4c, then read 0's lead Jh Jd: a missed_play
    alert, an empty field for the missed cards; once they are entered the tracker stores Jh Jd."""
    from tracker.referee import CameraReferee, PlayCandidate

    mid = new_match(store, "classic")
    table = CameraReferee(store, mid)
    table.play(PlayCandidate(0, ("3s",)))
    table.play(PlayCandidate(1, ("4c",)))
    assert [r.alert for r in table.play(PlayCandidate(0, ("Jh", "Jd"))) if r.kind == "alert"] == ["missed_play"]
    page = referee.get("/referee").get_data(as_text=True)
    assert "可能漏读" in page and 'placeholder="漏读的牌"' in page and 'value="Jh Jd"' not in page
    assert act(referee, "play", seat=0, cards="RJ").status_code == 303
    assert [r.kind for r in table.retry_held()] == ["pass", "pass", "play"]
    hand = api_state(client)["hand"]
    assert hand["seats"][0]["last"]["cards"] == "Jh Jd" and [s["cards_left"] for s in hand["seats"]] == [16, 16, 17]


def test_corrected_plays_are_marked_in_the_replay_and_the_match_page(referee, store, client):
    mid = _hand(store, Play(0, card_tuple("9s")), Play(1, card_tuple("10s")))
    before = client.get(f"/history/{mid}/1?lang=zh").get_data(as_text=True)
    assert "corrected-tag" not in before
    assert act(referee, "correct", index=3, what="play", seat=1, cards="Js").status_code == 303
    replay = client.get(f"/history/{mid}/1?lang=zh").get_data(as_text=True)
    assert replay.count("corrected-tag") == 1 and "已更正" in replay
    page = client.get(f"/history/{mid}?lang=zh").get_data(as_text=True)
    assert "corrected-tag" in page
