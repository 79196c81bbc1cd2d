"""Fixtures every test may take (``tests/conftest.py`` loads this module as a plugin).

The table site's: an in-memory ``store``, the ``app`` on it, a ``client`` and a logged-in
``referee`` client. And, for the whole run, one compiled-template cache shared by every Flask
app the tests build (hundreds of them): a template is parsed and compiled once per run instead
of once per app. The cache is keyed by the template's file and checked against its source, so a
changed template is compiled again.
"""

from __future__ import annotations

from collections.abc import Iterator

import flask
import jinja2
import pytest

from tests.kit.table_site import PIN, referee_client
from tracker.store import EventStore
from webui import create_app


class MemoryBytecodeCache(jinja2.BytecodeCache):
    """Jinja's compiled templates kept in a dict for the life of the test process."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = self.compiled.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


@pytest.fixture(scope="session", autouse=True)
def shared_template_cache():
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(flask.Flask, "jinja_options", {**flask.Flask.jinja_options,
                                                     "bytecode_cache": MemoryBytecodeCache()})
        yield


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
