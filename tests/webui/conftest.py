"""Fixtures for the site's tests: an in-memory store, the app, a client, a logged-in referee."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.webui.webui_site import PIN, referee_client
from tracker.store import EventStore
from webui import create_app


@pytest.fixture
def store() -> Iterator[EventStore]:
    s = EventStore(":memory:")
    yield s
    s.close()


@pytest.fixture
def app(store):
    app = create_app({"REFEREE_PIN": PIN, "TESTING": True}, store=store)
    yield app
    app.extensions["ddz"].watcher.stop()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def referee(app):
    """A test client logged in as the referee; ``referee.csrf`` is its form token."""
    return referee_client(app)
