"""The director's login carries the session's form token, as the table site's does: a login posted
from another page (a forged form) is refused in the visitor's language and logs nobody in."""

from __future__ import annotations

import pytest

from club.app import build_app
from club.sqlite import SqliteStorage
from tests.kit.club_server import PIN


@pytest.fixture
def client(tmp_path):
    storage = SqliteStorage(str(tmp_path / "club.db"))
    app = build_app({"DIRECTOR_PIN": PIN, "CLUB_KEY": "k", "TESTING": True}, storage=storage)
    yield app.test_client()
    storage.close()


@pytest.mark.parametrize(("lang", "words"), [("zh", "页面已过期"), ("en", "This page has expired")])
def test_a_login_without_the_form_token_is_refused_in_the_visitors_language(client, lang, words):
    response = client.post(f"/director/login?lang={lang}", data={"pin": PIN})
    assert response.status_code == 400 and words in response.get_data(as_text=True)
    assert client.get("/director").status_code == 302  # still not logged in: sent to the login page


def test_the_login_page_carries_the_token_and_a_login_with_it_gets_in(client):
    page = client.get("/director/login").get_data(as_text=True)
    with client.session_transaction() as s:
        token = s["csrf"]
    assert f'name="csrf" value="{token}"' in page
    response = client.post("/director/login", data={"pin": PIN, "csrf": token})
    assert response.status_code == 302 and client.get("/director").status_code == 200
