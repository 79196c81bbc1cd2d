"""What both sites refuse alike, through the web kit: a Host header no URL can be built for (an
empty label, a label over 63 characters) and a JSON body nested too deep are a 400 with the
site's error page or JSON, never a 500."""

from __future__ import annotations

import doctest

import pytest

import webkit.body
from club.app import build_app
from tests.kit.club_server import KEY, PIN
from tests.kit.table_site import PIN as SITE_PIN
from webkit.body import BodyError, depth, json_object

BAD_HOSTS = ("a..b", "x" * 64 + ".example", ".", "..", "x" * 64)


def club_app(tmp_path):
    from club.sqlite import SqliteStorage

    return build_app({"DIRECTOR_PIN": PIN, "CLUB_KEY": KEY, "TESTING": True},
                     storage=SqliteStorage(str(tmp_path / "club.db")))


def html_routes(app) -> list[str]:
    """Every GET route without path parameters, and one that does not exist."""
    return [r.rule for r in app.url_map.iter_rules() if "GET" in r.methods and "<" not in r.rule] + ["/no-such-page"]


@pytest.mark.parametrize("host", BAD_HOSTS)
def test_a_host_no_url_can_be_built_for_is_a_400_on_every_table_site_route(client, app, host):
    for path in html_routes(app):
        r = client.get(path, headers={"Host": host})
        assert r.status_code == 400, (path, r.status_code)
        assert "400" in r.get_data(as_text=True)


@pytest.mark.parametrize("host", BAD_HOSTS)
def test_a_host_no_url_can_be_built_for_is_a_400_on_every_club_route(tmp_path, host):
    app = club_app(tmp_path)
    client = app.test_client()
    for path in html_routes(app):
        r = client.get(path, headers={"Host": host})
        assert r.status_code == 400, (path, r.status_code)
    page = client.get("/", headers={"Host": host, "Accept": "text/html"})
    assert "<html" in page.get_data(as_text=True)  # the club's error page, in the visitor's language


def test_a_bad_host_error_page_is_in_the_visitors_language(client):
    zh = client.get("/history", headers={"Host": "a..b"}).get_data(as_text=True)
    en = client.get("/history?lang=en", headers={"Host": "a..b"}).get_data(as_text=True)
    assert "请求有误" in zh and "请求有误" not in en


DEEP = b"[" * 100_000 + b"]" * 100_000
DEEP_OBJECT = b'{"a":' * 3000 + b"1" + b"}" * 3000


@pytest.mark.parametrize("body", [DEEP, DEEP_OBJECT, b'{"a":' * 40 + b"1" + b"}" * 40])
def test_deep_nesting_is_a_400_on_the_clubs_api(tmp_path, body):
    client = club_app(tmp_path).test_client()
    r = client.post("/api/register", data=body, content_type="application/json")
    assert r.status_code == 400 and "nests deeper" in r.json["message"], r.json
    token = client.post("/api/register", json={"table": 3, "box": "box-0000aaaa", "key": KEY}).json["token"]
    r = client.post("/api/tables/3/events", data=body, content_type="application/json",
                    headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 400 and "nests deeper" in r.json["message"], r.json


def test_deep_nesting_is_refused_in_chinese_first(tmp_path):
    client = club_app(tmp_path).test_client()
    assert "嵌套太深" in client.post("/api/register", data=DEEP, content_type="application/json").json["error"]


def test_deep_nesting_is_a_400_on_the_table_sites_api(client):
    r = client.post("/api/referee/pass", data=DEEP_OBJECT, content_type="application/json",
                    headers={"X-Referee-PIN": SITE_PIN})
    assert r.status_code == 400 and "nests deeper" in r.json["message"]


@pytest.mark.parametrize("body, says", [
    (b"\xff{", "not valid JSON"), (b'{"time": NaN}', "NaN is not a JSON number"),
    (b'{"time": -Infinity}', "Infinity"), (b'{"time": 1e999}', "too large"), (b"[1]", "JSON object"),
    (b'{"a": [[[[[[[[1]]]]]]]]}', "nests deeper than 8"),
])
def test_a_body_that_is_not_a_plain_json_object_is_refused_with_why(body, says):
    with pytest.raises(BodyError) as refused:
        json_object(body)
    assert says in refused.value.message and refused.value.zh and refused.value.status == 400


def test_depth_counts_levels_without_recursion():
    deep: list = []
    for _ in range(50_000):  # far past Python's recursion limit
        deep = [deep]
    assert depth(deep, stop=10) == 11 and depth({"a": {"b": []}}) == 3 and depth("x") == 0
    assert json_object(b'{"a": [1, {"b": [2]}]}', max_depth=4) == {"a": [1, {"b": [2]}]}


def test_doctests():
    assert doctest.testmod(webkit.body).failed == 0
