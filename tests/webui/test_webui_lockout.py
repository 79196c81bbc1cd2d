"""The brake on PIN guessing: per address and per session, growing delays, logged, and never a
lock on an address that has not failed."""

from __future__ import annotations

import logging

import pytest

from tests.kit.table_site import PIN
from webkit.lockout import Attempts, client_key


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(app) -> Clock:
    fake = Clock()
    app.extensions["ddz"].attempts.clock = fake
    return fake


def login(app, address: str, pin: str, client=None):
    """One login POST from ``address`` (a fresh browser unless ``client`` is given)."""
    c = client or app.test_client()
    c.get("/referee/login", environ_base={"REMOTE_ADDR": address})
    with c.session_transaction() as s:
        token = s["csrf"]
    return c.post("/referee/login", data={"pin": pin, "csrf": token}, environ_base={"REMOTE_ADDR": address})


def test_guessers_on_six_addresses_do_not_lock_out_the_referee(app, clock):
    for n in range(6):
        for _ in range(5):
            assert login(app, f"10.0.0.{n + 10}", "000000").status_code in (403, 429)
    response = login(app, "10.0.0.99", PIN)
    assert response.status_code == 302 and response.headers["Location"].endswith("/referee")


def test_the_failing_address_is_locked_with_a_message_in_both_languages(app, clock):
    codes = [login(app, "10.0.0.7", "000000").status_code for _ in range(5)]
    assert codes == [403] * 5
    locked = login(app, "10.0.0.7", PIN)
    page = locked.get_data(as_text=True)
    assert locked.status_code == 429
    assert "这个地址输错密码太多次" in page and "Too many wrong PINs from this address" in page
    assert page.index("这个地址输错密码太多次") < page.index("Too many wrong PINs")
    assert locked.headers["Retry-After"] == "60"
    # Another address is untouched by that lock.
    assert login(app, "10.0.0.8", PIN).status_code == 302


def test_the_lock_ends_after_its_time_and_grows_with_more_failures(app, clock):
    for _ in range(5):
        login(app, "10.0.0.7", "000000")
    clock.now += 59
    assert login(app, "10.0.0.7", PIN).status_code == 429
    clock.now += 2
    assert login(app, "10.0.0.7", "000000").status_code == 403  # the sixth wrong PIN: a longer lock
    refused = login(app, "10.0.0.7", PIN)
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "120"
    clock.now += 121
    assert login(app, "10.0.0.7", PIN).status_code == 302


def test_a_browser_that_changes_address_keeps_its_lock(app, clock):
    browser = app.test_client()
    for n in range(5):
        assert login(app, f"10.0.1.{n}", "000000", client=browser).status_code == 403
    assert login(app, "10.0.1.200", PIN, client=browser).status_code == 429
    assert login(app, "10.0.1.200", PIN).status_code == 302  # the same address, another browser


def test_the_api_header_is_braked_per_address_too(app, clock):
    def api(address, pin):
        return app.test_client().post("/api/referee/new_hand", json={}, headers={"X-Referee-PIN": pin},
                                      environ_base={"REMOTE_ADDR": address})

    assert [api("10.0.2.1", "1").status_code for _ in range(5)] == [403] * 5
    locked = api("10.0.2.1", PIN)
    body = locked.get_json()
    assert locked.status_code == 429 and locked.headers["Retry-After"] == str(body["retry_after"])
    assert "请" in body["error_zh"] and "try again" in body["error"]
    assert api("10.0.2.2", PIN).status_code != 429


def test_a_right_pin_clears_the_address_count(app, clock):
    for _ in range(4):
        assert login(app, "10.0.0.5", "000000").status_code == 403
    assert login(app, "10.0.0.5", PIN).status_code == 302
    assert [login(app, "10.0.0.5", "000000").status_code for _ in range(5)] == [403] * 5


def test_attempts_are_logged_without_the_pin(app, clock, caplog):
    with caplog.at_level(logging.INFO, logger="webui.auth"):
        login(app, "10.0.0.9", "135799")
        login(app, "10.0.0.9", PIN)
    text = caplog.text
    assert "wrong referee PIN from 10.0.0.9" in text and "accepted from 10.0.0.9" in text
    assert "135799" not in text and PIN not in text


def test_many_failing_addresses_get_one_free_try_each():
    clock = Clock()
    attempts = Attempts(per_client=5, overall=10, window=60, clock=clock)
    for n in range(11):
        attempts.failed(f"10.9.0.{n}")
    assert attempts.blocked_for("10.9.0.10") == 60  # one wrong PIN in a crowd of guessers: locked
    assert attempts.blocked_for("10.9.0.0") == 0  # failed before the crowd: still free
    assert attempts.blocked_for("10.9.0.200") == 0  # never failed: never locked


def test_ipv6_addresses_count_per_network():
    assert client_key("2001:db8:1:2::5") == client_key("2001:db8:1:2:abcd::9") == "2001:db8:1:2::/64"
    assert client_key("::ffff:10.0.0.1") == "10.0.0.1"
    assert client_key("10.0.0.1") == "10.0.0.1" and client_key("?") == "?"


def test_a_quiet_address_is_forgotten_and_delays_are_capped():
    clock = Clock()
    attempts = Attempts(per_client=2, window=10, max_delay=40, forget=100, clock=clock)
    waits = []
    for _ in range(6):
        waits.append(attempts.failed("a"))
        clock.now += attempts.blocked_for("a")
    assert waits == [0, 10, 20, 40, 40, 40]
    clock.now += 101
    assert attempts.failed("a") == 0
