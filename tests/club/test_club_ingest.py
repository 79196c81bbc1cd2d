"""Boxes registering and posting over HTTP, on both stores: tokens, refusals, idempotence."""

from __future__ import annotations

import pytest

from club.app import build_app
from club.ingest import token_hash
from tests.kit.club_server import BOX, KEY, PIN, box_events, hand_payloads, wire

MATCH = {"id": 1, "players": ["甲", "乙", "丙"], "preset": {"name": "chips", "changes": {}}, "created": 1.0, "meta": {}}


@pytest.fixture
def client(storage):
    app = build_app({"DIRECTOR_PIN": PIN, "CLUB_KEY": KEY, "TESTING": True}, storage=storage)
    return app.test_client()


def register(client, table=4, box=BOX):
    r = client.post("/api/register", json={"table": table, "box": box, "key": KEY})
    assert r.status_code == 200, r.json
    return r.json["token"]


def post(client, token, events, table=4, box=BOX, matches=(MATCH,)):
    return client.post(f"/api/tables/{table}/events", json={"box": box, "events": wire(events), "matches": list(matches)},
                       headers={"Authorization": f"Bearer {token}"})


def test_only_the_tokens_hash_is_stored(client, storage):
    token = register(client)
    assert storage.registration(4).token_hash == token_hash(token)
    assert token not in storage.registration(4).token_hash


def test_a_batch_twice_and_out_of_order_leaves_every_event_once(client, storage):
    token = register(client)
    events = box_events(4, hand_payloads(11))
    assert post(client, token, events[20:]).json["acked"] == 0
    assert post(client, token, events[:20]).json["acked"] == events[-1].seq
    again = post(client, token, events).json
    assert (again["inserted"], again["duplicates"], again["acked"]) == (0, len(events), events[-1].seq)
    assert storage.event_count() == len(events)


def test_no_token_is_401_and_a_forged_or_other_tables_token_is_403(client, storage):
    token = register(client, table=4)
    other = register(client, table=5, box="box-2222cccc")
    events = box_events(4, hand_payloads(12))[:5]
    assert client.post("/api/tables/4/events", json={"box": BOX, "events": wire(events)}).status_code == 401
    assert post(client, "forged-" + token[7:], events).status_code == 403
    assert post(client, other, events).status_code == 403  # table 5's token on table 4
    assert post(client, token, events, box="box-2222cccc").status_code == 403  # table 4's token, another box
    assert storage.event_count() == 0


def test_registration_needs_the_club_key_and_a_free_table(client):
    assert client.post("/api/register", json={"table": 4, "box": BOX, "key": "guess"}).status_code == 403
    register(client)
    taken = client.post("/api/register", json={"table": 4, "box": "box-3333dddd", "key": KEY})
    assert taken.status_code == 409 and "release" in taken.json["message"]


@pytest.mark.parametrize("change, message", [
    (lambda b: b.update(events="x"), "must be lists"),
    (lambda b: b["events"][0].update(seq=0), "seq must be"),
    (lambda b: b["events"][0]["event"].update(kind="teleport"), "unknown event kind"),
    (lambda b: b["events"].reverse(), "rising seq order"),
    (lambda b: b.update(matches=[]), "does not describe"),
    (lambda b: b["events"][0]["event"].update(counts=[17, 17]), "deal"),
])
def test_a_malformed_batch_is_refused_whole_with_what_is_wrong(client, storage, change, message):
    token = register(client)
    body = {"box": BOX, "events": wire(box_events(4, hand_payloads(13))[:4]), "matches": [MATCH]}
    change(body)
    r = client.post("/api/tables/4/events", json=body, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 400 and message in r.json["message"], r.json
    assert storage.event_count() == 0


def test_a_body_that_is_not_json_is_a_clear_400(client):
    token = register(client)
    r = client.post("/api/tables/4/events", data=b"\xff{", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 400 and "JSON" in r.json["message"]


def test_the_answer_says_how_long_the_server_took(client, storage):
    token = register(client)
    r = post(client, token, box_events(4, hand_payloads(6)))
    assert r.status_code == 200
    spans = dict(part.strip().split(";dur=") for part in r.headers["Server-Timing"].split(","))
    assert set(spans) == {"token", "parse", "store", "fold", "total"}
    assert all(float(v) >= 0 for v in spans.values())
    assert float(spans["total"]) >= float(spans["store"])
