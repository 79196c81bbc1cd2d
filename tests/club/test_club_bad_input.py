"""A box's batch the club cannot keep as sent is refused whole with a 400 that says where:
lone UTF-16 surrogates (which no database stores), presets the engine does not know, times that
are no Unix time, box ids in other scripts' digits. Nothing of a refused batch is kept."""

from __future__ import annotations

import json

import pytest

from club.app import build_app
from club.ingest import BatchError, check_box, parse_batch
from tests.kit.club_server import BOX, KEY, PIN, box_events, hand_payloads, wire

MATCH = {"id": 1, "players": ["甲", "乙", "丙"], "preset": {"name": "chips", "changes": {}}, "created": 1.0, "meta": {}}


@pytest.fixture
def client(storage):
    app = build_app({"DIRECTOR_PIN": PIN, "CLUB_KEY": KEY, "TESTING": True}, storage=storage)
    return app.test_client()


def batch() -> dict:
    return {"box": BOX, "events": wire(box_events(4, hand_payloads(21))[:4]), "matches": [json.loads(json.dumps(MATCH))]}


def raw_post(client, token: str, body: dict):
    """``body`` as JSON text with ASCII escapes, so a lone surrogate travels as ``\\ud800``."""
    return client.post("/api/tables/4/events", data=json.dumps(body, ensure_ascii=True),
                       content_type="application/json", headers={"Authorization": f"Bearer {token}"})


def register(client) -> str:
    r = client.post("/api/register", json={"table": 4, "box": BOX, "key": KEY})
    assert r.status_code == 200, r.json
    return r.json["token"]


@pytest.mark.parametrize("spoil, where", [
    (lambda b: b["events"][1].update(kind="alert", event={"kind": "alert", "text": "a\ud800b"}), "events[1].event"),
    (lambda b: b["events"][0]["event"].update({"\udfff": 1}), "events[0].event"),
    (lambda b: b["matches"][0]["meta"].update(name="决赛\ud800"), "matches[0].meta"),
    (lambda b: b["matches"][0].update(players=["甲", "\ud800", "丙"]), "matches[0].players"),
])
def test_a_lone_surrogate_anywhere_is_a_400_naming_where_on_both_stores(client, storage, spoil, where):
    token = register(client)
    body = batch()
    spoil(body)
    r = raw_post(client, token, body)
    assert r.status_code == 400 and where in r.json["message"] and "surrogate" in r.json["message"], r.json
    assert storage.event_count() == 0
    assert raw_post(client, token, batch()).status_code == 200  # the table goes on


@pytest.mark.parametrize("spoil, says", [
    (lambda b: b["matches"][0].update(preset={"name": "nope"}), "unknown rules preset 'nope'"),
    (lambda b: b["matches"][0].update(preset="nope"), "unknown rules preset"),
    (lambda b: b["events"][2].update(time=1e300), "events[2].time"),
    (lambda b: b["events"][2].update(time=-5), "events[2].time"),
    (lambda b: b["matches"][0].update(created=-1), "matches[0].created"),
    (lambda b: b["matches"][0].update(players=["甲", "乙\x00", "丙"]), "control character"),
])
def test_junk_the_engine_or_a_clock_cannot_read_is_a_400(client, storage, spoil, says):
    token = register(client)
    body = batch()
    spoil(body)
    r = raw_post(client, token, body)
    assert r.status_code == 400 and says in r.json["message"], r.json
    assert storage.event_count() == 0 and storage.box_matches(4) == []


@pytest.mark.parametrize("text", [b'"time": Infinity', b'"time": NaN', b'"time": -Infinity', b'"time": 1e999'])
def test_an_event_time_of_infinity_or_nan_is_a_400(client, storage, text):
    token = register(client)
    raw = json.dumps(batch()).encode().replace(b'"time": 1001.0', text, 1)
    assert text in raw
    r = client.post("/api/tables/4/events", data=raw, content_type="application/json",
                    headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 400, r.json
    assert storage.event_count() == 0


@pytest.mark.parametrize("box", ["box-١٢٣٤٥٦٧٨", "box-１２３４５６７８", "box-²²²²²²²²", "bοx-00000000", "box-0000aaaa\n"])
def test_a_box_id_is_ascii_letters_digits_and_dashes(box):
    with pytest.raises(BatchError, match="box must be"):
        check_box(box)
    assert check_box("Box-0000-aaaa") == "Box-0000-aaaa"


def test_registering_a_box_id_in_other_digits_is_a_400(client, storage):
    r = client.post("/api/register", json={"table": 4, "box": "box-١٢٣٤٥٦٧٨", "key": KEY})
    assert r.status_code == 400 and "box must be" in r.json["message"]
    assert storage.registration(4) is None


def test_a_known_preset_in_any_case_and_its_changes_still_pass():
    body = batch()
    body["matches"][0]["preset"] = {"name": "CHIPS", "changes": {}}
    events, matches = parse_batch(4, body)
    assert len(events) == 4 and matches[0].players == ("甲", "乙", "丙")


def test_a_club_key_with_a_lone_surrogate_is_a_wrong_key_not_a_failure(client, storage):
    r = client.post("/api/register", data=json.dumps({"table": 4, "box": BOX, "key": KEY + "\ud800"}),
                    content_type="application/json")
    assert r.status_code == 403 and storage.registration(4) is None


def test_a_table_number_past_any_table_is_a_404_not_a_failure(client):
    token = register(client)
    r = client.post(f"/api/tables/{2**63}/events", json=batch(), headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 404 and "no table" in r.json["message"]
    assert client.get("/api/tables/99999", headers={"Authorization": f"Bearer {token}"}).status_code == 404
