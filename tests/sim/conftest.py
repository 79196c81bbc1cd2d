"""The demo feeds' tests use the site's fixtures (a store, the app, a client, a logged-in referee)."""

from tests.webui.conftest import app, client, referee, store  # noqa: F401
