"""Ids, numbers, names and bodies from a request: each hostile kind is a clear 4xx, never a 500.

Ids (matches, hands) are the ASCII digits 0-9 with no leading zero, from 1 to SQLite's largest
integer; anything else is a 400 in the visitor's language, an id that names nothing a 404.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest
from waitress.server import create_server

from engine.events import Deal
from tests.kit.table_site import PIN, new_match, play_hands
from tracker.store import EventStore, StoreError

PAST = str(2**63)  # one past SQLite's largest integer
LAST = str(2**63 - 1)  # SQLite's largest integer: a valid id that names nothing here

#: Every place a match id is read, as a URL with ``{}`` for the id.
MATCH_URLS = ("/api/state?match={}", "/live/fragment?match={}", "/api/events?match={}", "/?match={}",
              "/api/judge?cards=4&match={}", "/history/{}", "/history/{}/1", "/export/{}.json",
              "/export/{}/1.csv")


def api(client, action: str, body, **headers):
    return client.post(f"/api/referee/{action}", json=body, headers={"X-Referee-PIN": PIN, **headers})


def raw_api(client, action: str, data: bytes | str):
    return client.post(f"/api/referee/{action}", data=data,
                       headers={"X-Referee-PIN": PIN, "Content-Type": "application/json"})


@pytest.fixture
def played(store) -> int:
    mid = new_match(store)
    play_hands(store, mid, [1])
    return mid


def test_a_match_id_past_sqlites_range_is_a_400(client, played):
    for url in MATCH_URLS:
        response = client.get(url.format(PAST))
        assert response.status_code == 400, url
        assert "match" in response.get_data(as_text=True), url
    for body in ({"match": PAST, "bid": "1"}, {"match": 2**63, "bid": "1"}, {"match": -(2**63) - 1, "bid": "1"}):
        response = api(client, "bid", body)
        assert response.status_code == 400 and "match" in response.get_json()["message"], body


def test_a_hand_number_past_sqlites_range_is_a_400(client, played):
    for url in (f"/history/{played}/{PAST}", f"/export/{played}/{PAST}.json"):
        assert client.get(url).status_code == 400, url


def test_the_largest_id_sqlite_holds_is_a_404_when_no_match_has_it(client, played):
    for url in MATCH_URLS:
        assert client.get(url.format(LAST)).status_code == 404, url
    assert api(client, "bid", {"match": LAST, "bid": "1"}).status_code == 404
    assert client.get(f"/history/{played}/{LAST}").status_code == 404


def test_digits_python_calls_digits_but_int_refuses_are_a_400(client, played):
    for digit in ("%C2%B2", "%C2%B9"):  # ² ¹: str.isdigit() is true, int() fails
        for url in MATCH_URLS:
            assert client.get(url.format(digit)).status_code == 400, (url, digit)
        assert client.get(f"/history/{played}/1?step={digit}").status_code == 400
    assert api(client, "bid", {"bid": "²"}).status_code == 400
    assert api(client, "penalty", {"seat": "²"}).status_code == 400


def test_unicode_digits_do_not_open_a_match(client, played, store):
    for _ in range(2):
        new_match(store)  # matches 2 and 3 exist, so "٣" and "１" would name them if read as numbers
    for digit in ("%D9%A3", "%EF%BC%91", "%E0%A5%A9"):  # Arabic-Indic 3, fullwidth 1, Devanagari 3
        for url in MATCH_URLS:
            response = client.get(url.format(digit))
            assert response.status_code == 400, (url, digit)
            response.close()
    assert api(client, "end_match", {"match": "٣"}).status_code == 400
    assert api(client, "end_match", {"match": "１"}).status_code == 400
    assert client.get("/api/matches").get_json()["matches"][2]["ended"] is False


def test_ids_with_leading_zeros_or_zero_are_a_400(client, played):
    for raw in ("00001", "01", "0", "-1", "+1", " 1", "1 ", "1.0", "0x1"):
        for url in MATCH_URLS:
            assert client.get(url.format(raw.replace(" ", "%20").replace("+", "%2B"))).status_code == 400, (url, raw)
    assert client.get(f"/history/{played}/01").status_code == 400
    assert api(client, "bid", {"match": "01", "bid": "1"}).status_code == 400


def test_plain_ids_still_work(client, played):
    assert client.get(f"/api/state?match={played}").get_json()["match"]["id"] == played
    assert client.get(f"/history/{played}/1").status_code == 200
    assert client.get(f"/export/{played}.json").status_code == 200
    assert client.get(f"/history/{played}/1?step=3").status_code == 200
    assert client.get(f"/history/{played}/1?step=99999999999999999").status_code == 200  # past the end: the end


def test_judge_for_a_match_that_does_not_exist_is_a_404_and_match_0_a_400(client, played):
    missing = client.get("/api/judge?cards=4&match=99999")
    assert missing.status_code == 404 and "99999" in missing.get_json()["error"]
    assert client.get("/api/judge?cards=4&match=0").status_code == 400
    assert client.get(f"/api/judge?cards=4&match={played}").status_code == 200


def test_a_lone_surrogate_in_a_name_is_a_400_and_stores_nothing(client, store):
    cases = [
        {"players": ["\ud800", "B", "C"]},
        {"players": "A\n\udfff\nC"},
        {"players": ["A", "B", "C"], "name": "final \ud83d"},
    ]
    for body in cases:
        response = api(client, "start_match", body)
        assert response.status_code == 400, body
        assert "U+D" in response.get_json()["message"], body
    mid = new_match(store)
    store.append(mid, 1, Deal(counts=(17, 17, 17)))
    assert api(client, "abandon", {"reason": "\ud800"}).status_code == 400
    assert api(client, "play", {"seat": 0, "cards": "3s\udc00"}).status_code == 400
    assert [m.id for m in store.matches()] == [mid]
    assert [e.kind for e in store.events(mid)] == ["deal"]


def test_a_control_character_in_a_name_is_a_400_with_a_clear_message(client, store):
    for bad in ("\x00", "\x1b[31m", "\x7f", "\x85"):
        response = api(client, "start_match", {"players": ["A" + bad, "B", "C"]})
        assert response.status_code == 400
        answer = response.get_json()
        assert "control character" in answer["message"] and "控制字符" in answer["error"]
    english = client.post("/api/referee/start_match?lang=en", json={"players": ["A", "B", "C"], "name": "a\tb"},
                          headers={"X-Referee-PIN": PIN})
    assert english.status_code == 400 and "control character (U+0009)" in english.get_json()["error"]
    assert store.matches() == []


def test_deeply_nested_json_is_a_400(client, store):
    new_match(store)
    for body in ("[" * 1500, '{"a":' * 1500, "[" * 1500 + "]" * 1500,
                 json.dumps({"players": [[[[[[[[[["A"]]]]]]]]]], "seat": 0})):
        response = raw_api(client, "play", body)
        assert response.status_code == 400, body[:30]
        assert response.get_json()["error"]


def test_json_that_is_not_json_is_a_400(client, store):
    new_match(store)
    for body in (b"{not json", b"\xff\xfe\x00", b'{"seat": ' + b"9" * 5000 + b"}", b"NaN", b""):
        assert raw_api(client, "play", body).status_code == 400, body[:20]


def test_errors_speak_the_visitors_language(client, played):
    zh = client.get(f"/api/state?match={PAST}").get_json()
    assert "必须" in zh["error"] and "match must be" in zh["message"] and zh["status"] == 400
    page = client.get(f"/history/{PAST}")
    assert page.mimetype == "text/html"
    text = page.get_data(as_text=True)
    assert text.index("必须") < text.index("match must be")  # Chinese first, then English
    assert "找不到这个页面" in client.get("/no/such/page").get_data(as_text=True)
    en = client.get(f"/api/state?match={PAST}&lang=en").get_json()
    assert en["error"].startswith("match must be")
    assert "必须" in client.get(f"/history/{PAST}").get_data(as_text=True)  # an API call sets no language
    client.get("/?lang=en")  # the page's language switch
    assert "必须" not in client.get(f"/history/{PAST}").get_data(as_text=True)  # the choice is remembered


def test_a_body_announced_and_not_sent_is_a_400_not_a_wait(client, store):
    new_match(store)
    response = client.post("/api/referee/play", data=b"", environ_overrides={"CONTENT_LENGTH": "100"},
                           headers={"X-Referee-PIN": PIN, "Content-Type": "application/json"})
    assert response.status_code == 400


def test_waitress_never_hands_a_half_sent_body_to_a_worker(app, store):
    """Waitress reads a request's body itself and calls the app only once all of it came: a
    client that announces a body and stalls holds a socket, not one of the worker threads,
    and the socket is closed after ``channel_timeout``."""
    server = create_server(app, host="127.0.0.1", port=0, threads=1, channel_timeout=1, cleanup_interval=1)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    port = server.effective_port
    try:
        stalled = socket.create_connection(("127.0.0.1", port), timeout=10)
        stalled.sendall(b"POST /api/referee/start_match HTTP/1.1\r\nHost: x\r\nX-Referee-PIN: " + PIN.encode()
                        + b"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"players\": ")
        for _ in range(3):  # the only worker answers others meanwhile
            with socket.create_connection(("127.0.0.1", port), timeout=10) as other:
                other.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                assert other.recv(100).startswith(b"HTTP/1.1 200")
        started = time.monotonic()
        assert stalled.recv(100) == b""  # closed by the server, with no answer: the app never ran
        assert time.monotonic() - started < 10
        stalled.close()
        assert store.matches() == []
    finally:
        server.close()
        thread.join(timeout=5)


def test_the_store_treats_an_id_past_sqlites_range_as_unknown():
    with EventStore(":memory:") as store:
        mid = new_match(store)
        with pytest.raises(StoreError, match="no match"):
            store.match(2**63)
        with pytest.raises(StoreError, match="no match"):
            store.append(2**63, 1, Deal(counts=(17, 17, 17)))
        with pytest.raises(StoreError, match="hand"):
            store.append(mid, 2**63, Deal(counts=(17, 17, 17)))
        assert store.events(2**63) == [] and store.hands(-(2**63) - 1) == []
        assert store.events(mid, after_seq=2**64) == []


def test_undoing_the_deal_is_refused_so_no_hand_is_left_without_one(client, store):
    """Found by bench/fuzz.py: a hand whose deal was undone had no seats, so delete and
    announce failed with a 500 and no new hand could follow it."""
    new_match(store)
    assert api(client, "new_hand", {}).status_code == 200
    refused = api(client, "undo", {})
    assert refused.status_code == 409 and "abandon" in refused.get_json()["message"]
    assert api(client, "delete", {"index": 0}).status_code == 409
    for bid in ("0", "00", "²", "٣"):  # a bid of 0 has no meaning; the others are no ASCII number (found by the fuzz)
        assert api(client, "bid", {"bid": bid}).status_code == 400, bid
    assert api(client, "bid", {"bid": "1"}).status_code == 200
    assert api(client, "undo", {}).status_code == 200  # the bid goes, the deal stays
    assert api(client, "abandon", {}).status_code == 200
    assert api(client, "new_hand", {}).status_code == 200


def test_a_refused_api_login_answers_in_the_visitors_language(client):
    headers = {"Accept": "application/json"}
    missing = client.post("/api/referee/bid", json={}, headers=headers)
    assert missing.status_code == 401 and missing.get_json()["error"].startswith("需要裁判登录")
    wrong = client.post("/api/referee/bid?lang=en", json={}, headers={**headers, "X-Referee-PIN": "000001"})
    assert wrong.status_code == 403 and wrong.get_json()["error"] == "wrong referee PIN"
    wrong_zh = client.post("/api/referee/bid?lang=zh", json={}, headers={**headers, "X-Referee-PIN": "000002"})
    assert wrong_zh.get_json()["error"] == "裁判密码不对"


def test_the_judge_says_in_chinese_why_it_cannot_answer(client):
    twice = client.get("/api/judge?cards=4s&after=3s%203s&lang=zh")
    assert twice.status_code == 400 and "同一张牌出现了两次" in twice.get_json()["error"]
    empty = client.get("/api/judge?cards=%20&lang=zh")
    assert empty.status_code == 400 and empty.get_json()["error"].startswith("请写出")
    english = client.get("/api/judge?cards=4s&after=3s%203s&lang=en")
    assert "more often than 1 deck(s) hold" in english.get_json()["error"]
