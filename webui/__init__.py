"""The table site: live scoreboard, referee controls, history and exports (Flask).

The package stays cheap to import (the ``ddz-table`` command line loads ``cli.main`` for
every command); Flask and the store are imported when an application is built.
"""

from __future__ import annotations

from typing import Any


def create_app(config: dict[str, Any] | None = None, store: Any = None, pipeline_status: Any = None,
               enroller: Any = None, replicator: Any = None):
    """The Flask application factory; see :func:`webui.app.build_app` for the arguments."""
    from webui.app import build_app

    return build_app(config, store, pipeline_status, enroller, replicator)
