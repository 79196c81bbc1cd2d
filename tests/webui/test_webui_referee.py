"""Referee controls: PIN login, CSRF, rate limit, and every action an event in the store."""

from __future__ import annotations

from engine.cards import parse_cards
from engine.events import Bid, Correction, Deal, Play
from tests.kit.table_site import PIN, PLAYERS, act, api, new_match
from tracker.records import MatchEnd
from tracker.state import TableState


def test_referee_page_needs_a_login(client):
    response = client.get("/referee")
    assert response.status_code == 302 and "/referee/login" in response.headers["Location"]
    assert client.post("/referee/act/new_hand", data={}).status_code == 302


def test_wrong_pin_is_refused_and_guessing_is_rate_limited(client):
    client.get("/referee/login")
    with client.session_transaction() as s:
        token = s["csrf"]
    codes = [client.post("/referee/login", data={"pin": "000000", "csrf": token}).status_code for _ in range(6)]
    assert codes[:5] == [403] * 5 and codes[5] == 429
    # Even the right PIN waits out the lock: guessing cannot be rushed.
    locked = client.post("/referee/login", data={"pin": PIN, "csrf": token})
    assert locked.status_code == 429 and "Retry-After" in locked.headers


def test_login_without_csrf_token_is_refused(client):
    response = client.post("/referee/login", data={"pin": PIN})
    assert response.status_code == 400 and "页面已过期" in response.get_data(as_text=True)


def test_forms_without_the_csrf_token_are_refused(referee, store):
    new_match(store)
    response = referee.post("/referee/act/new_hand", data={})
    assert response.status_code == 400 and "CSRF" in response.get_data(as_text=True)
    assert store.events(None) == []


def test_start_match_new_hand_bids_and_plays_are_referee_events(referee, store):
    response = act(referee, "start_match", players="\n".join(PLAYERS), preset="classic", name="周五", time_limit=90)
    assert response.status_code == 303
    mid = store.matches()[-1].id
    info = store.match(mid)
    assert info.players == PLAYERS and info.rules.time_limit_min == 90 and info.meta["name"] == "周五"
    assert act(referee, "new_hand").status_code == 303
    assert act(referee, "bid", seat=0, bid="3").status_code == 303
    assert act(referee, "play", seat=0, cards="3s 3h").status_code == 303
    assert act(referee, "pass", seat=1).status_code == 303
    rows = store.events(mid)
    assert [r.kind for r in rows] == ["deal", "bid", "play", "pass"]
    assert {r.source for r in rows} == {"referee"}
    assert rows[1].event == Bid(0, "bid", 3, time=rows[1].event.time)
    page = referee.get("/referee").get_data(as_text=True)
    assert "3s 3h" in page  # listed for correction


def test_a_classic_match_started_with_doubling_takes_the_referees_doubles(referee, store):
    page = referee.get("/referee").get_data(as_text=True)
    assert 'name="player_double"' in page and "允许加倍" in page
    assert act(referee, "start_match", players="\n".join(PLAYERS), preset="classic", player_double="1").status_code == 303
    mid = store.matches()[-1].id
    assert store.match(mid).rules.player_double
    act(referee, "new_hand")
    act(referee, "bid", seat=0, bid="3")
    page = referee.get("/referee").get_data(as_text=True)
    assert 'id="double-form"' in page  # offered once the landlord is known, before the first play
    assert act(referee, "double", seat=1).status_code == 303
    state = TableState.load(store, mid)
    assert (state.hand.base, state.hand.multiplier) == (3, 2)
    assert act(referee, "double", seat=1).status_code == 409  # once a hand
    # without the box ticked a classic table does not double
    act(referee, "start_match", players="\n".join(PLAYERS), preset="classic")
    assert not store.match(store.matches()[-1].id).rules.player_double


def test_an_illegal_play_is_refused_with_a_message_and_not_stored(referee, store):
    mid = new_match(store)
    store.append(mid, 1, Deal(counts=(17, 17, 17)))
    store.append(mid, 1, Bid(0, "bid", 3))
    before = store.last_seq()
    response = act(referee, "play", seat=1, cards="3s")
    assert response.status_code == 409 and "id=\"refusal\"" in response.get_data(as_text=True)
    assert "没轮到 李四 出牌，轮到的是 张三" in response.get_data(as_text=True)  # worded by tracker.alerts
    response = act(referee, "play", seat=0, cards="3s 4h")
    assert response.status_code == 409
    assert store.last_seq() == before


def test_correcting_a_misread_play_updates_multiplier_and_scores(referee, store, client):
    mid = new_match(store)
    # The landlord (seat 2) holds 4 cards after the kitty and goes out at once: a spring (x2).
    for e in (Deal(counts=(17, 17, 1)), Bid(0, "pass"), Bid(1, "pass"), Bid(2, "bid", 1),
              Play(2, tuple(parse_cards("5s 5h 5d 4c")))):
        store.append(mid, 1, e)
    before = client.get("/api/state").get_json()
    assert before["hand"]["multiplier"] == 2 and before["hand"]["phase"] == "finished"
    assert before["scores"]["hand"] == [-2, -2, 4] and before["scores"]["match"] == [-2, -2, 4]
    # The camera read 4c where the table shows 5c: the play was a bomb.
    assert act(referee, "correct", index=4, cards="5s 5h 5d 5c").status_code == 303
    after = client.get("/api/state").get_json()
    assert after["hand"]["multiplier"] == 4
    assert {c["cause"] for c in after["hand"]["causes"]} == {"bomb", "spring"}
    assert after["scores"]["hand"] == [-4, -4, 8] and after["scores"]["match"] == [-4, -4, 8]
    last = store.events(mid)[-1]
    assert last.source == "referee" and isinstance(last.event, Correction) and last.event.target == 4
    # A correction the rules refuse is not stored.
    assert act(referee, "correct", index=4, cards="5s 6h").status_code == 409  # not a combination
    assert store.events(mid)[-1].seq == last.seq


def test_undo_concede_penalty_and_end_match(referee, store, client):
    mid = new_match(store)
    for e in (Deal(counts=(17, 17, 17)), Bid(0, "bid", 3), Play(0, tuple(parse_cards("3s")))):
        store.append(mid, 1, e)
    assert act(referee, "undo").status_code == 303
    assert client.get("/api/state").get_json()["hand"]["plays"] == 0
    assert act(referee, "concede", seat=1).status_code == 303
    state = client.get("/api/state").get_json()
    assert state["hand"]["phase"] == "finished" and state["scores"]["hand"] == [6, -3, -3]
    assert act(referee, "penalty", seat=2, points=2, reason="掉牌").status_code == 303
    assert client.get("/api/state").get_json()["scores"]["match"] == [6, -3, -5]
    assert act(referee, "end_match", reason="time").status_code == 303
    assert isinstance(store.events(mid)[-1].event, MatchEnd)
    assert client.get("/api/state").get_json()["match"]["status"]["over"] is True
    assert act(referee, "new_hand").status_code == 409


def test_new_hand_refused_while_a_hand_is_being_played(referee, store):
    mid = new_match(store)
    store.append(mid, 1, Deal(counts=(17, 17, 17)))
    assert act(referee, "new_hand").status_code == 409
    assert act(referee, "abandon").status_code == 303
    assert act(referee, "new_hand").status_code == 303
    assert store.hands(mid) == [1, 2]
    assert store.events(mid, hand=2)[0].event.first_bidder == 1  # the first bidder rotates


def test_json_api_with_the_pin_header(client, store):
    response = api(client, "start_match", {"players": list(PLAYERS), "preset": "chips"})
    assert response.status_code == 200 and response.get_json()["ok"] is True
    mid = response.get_json()["match"]
    assert store.match(mid).rules.scoring == "chips"
    assert api(client, "new_hand", {}).get_json()["seq"] == store.last_seq()
    assert api(client, "new_hand", {}, pin="999999").status_code == 403
    assert client.post("/api/referee/new_hand", json={}).status_code == 401


def test_bad_requests_get_4xx_with_a_message_never_500(client, store):
    cases = [
        ("play", {"cards": "3s"}, 409),  # no match yet
        ("start_match", {}, 400),  # missing players
        ("start_match", {"players": 5}, 400),  # wrong type
        ("start_match", {"players": ["A", "B"]}, 400),  # classic needs three
        ("start_match", {"players": ["A", "B", "C"], "preset": "nope"}, 400),
        ("start_match", {"players": ["A", "B", "C"], "time_limit": "soon"}, 400),
    ]
    for action, body, code in cases:
        response = api(client, action, body)
        assert response.status_code == code, (action, body, response.get_json())
        assert response.get_json()["error"]
    mid = new_match(store)
    store.append(mid, 1, Deal(counts=(17, 17, 17)))
    more = [
        ("bid", {"seat": "x", "bid": "3"}, 400),
        ("bid", {"seat": 7, "bid": "3"}, 400),
        ("bid", {"bid": "four"}, 400),
        ("play", {"seat": 0, "cards": ["3s"]}, 400),
        ("play", {"seat": 0, "cards": "3x"}, 400),
        ("correct", {"index": 99, "cards": "3s"}, 404),
        ("penalty", {"seat": 0, "points": "a lot"}, 400),
        ("bid", {"match": 99, "bid": "3"}, 404),
        ("nope", {}, 404),
    ]
    for action, body, code in more:
        response = api(client, action, body)
        assert response.status_code == code, (action, body, response.get_json())
        assert response.get_json()["error"]
    assert api(client, "bid", ["not", "an", "object"]).status_code == 400
    raw = client.post("/api/referee/bid", data="{not json", headers={"X-Referee-PIN": PIN,
                                                                     "Content-Type": "application/json"})
    assert raw.status_code == 400
    big = client.post("/api/referee/play", data="x" * 100_000,
                      headers={"X-Referee-PIN": PIN, "Content-Type": "application/json"})
    assert big.status_code == 413 and "too large" in big.get_json()["error"]
    assert client.get("/history/5/1").status_code == 404
    assert client.get("/history/1/9").status_code == 404
    assert client.get("/history/1/1?step=x").status_code == 400
    assert client.get("/export/1/9.json").status_code == 404
    assert client.get("/export/1.pdf").status_code == 404
    assert client.get("/export/1.txt?lang=fr").status_code == 400


def test_judge_reads_cards_against_the_play_on_the_table(client, store):
    data = client.get("/api/judge?cards=333 4&after=5 5 5 6").get_json()
    assert data["valid"] is True and data["beats"] is False
    mid = new_match(store)
    for e in (Deal(counts=(17, 17, 17)), Bid(0, "bid", 3), Play(0, tuple(parse_cards("9s")))):
        store.append(mid, 1, e)
    data = client.get("/api/judge?cards=10h").get_json()
    assert data["after"] == "9s" and data["beats"] is True
    assert client.get("/api/judge?cards=").status_code == 400
    assert client.get("/api/judge?cards=zz").status_code == 400


def test_judge_on_the_referee_page(referee):
    page = referee.get("/referee?cards=BJ RJ&after=2s 2h 2d 2c&lang=en").get_data(as_text=True)
    assert "rocket" in page and "beats" in page


def test_the_referee_page_says_a_card_named_twice_is_not_in_one_deck(referee):
    page = referee.get("/referee?cards=3s 3s 3s 3s&lang=zh").get_data(as_text=True)
    assert "不成牌型" in page and "同一张牌出现两次" in page and "3s" in page
    bomb = referee.get("/referee?cards=3s 3h 3d 3c&lang=zh").get_data(as_text=True)
    assert "同一张牌出现两次" not in bomb
