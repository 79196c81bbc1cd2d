"""Waitress in a thread, as the tests' servers run it."""

from __future__ import annotations

import threading

from waitress import wasyncore


def stop_server(server, thread: threading.Thread) -> None:
    """Close ``server`` (a waitress server whose loop runs in ``thread``) and wait for its loop to end.

    The closing is done by the loop itself, through its trigger: it closes the listening socket,
    the connections clients left open and the trigger, and the emptied map ends the loop at once.
    Closed from this thread instead, the loop would sleep out its poll timeout (a second) first
    whenever a connection is still open.
    """
    server.trigger.pull_trigger(lambda: wasyncore.close_all(server._map))
    thread.join(timeout=5)
