"""Waitress in a thread, as the tests' servers run it."""

from __future__ import annotations

import threading

from waitress import wasyncore


def stop_server(server, thread: threading.Thread) -> None:
    """Close ``server`` (a waitress server whose loop runs in ``thread``) and wait for its loop to end.

    The closing is done by the loop itself, through its trigger: it closes the listening socket and
    the connections clients left open, and takes the trigger out of its map, so the emptied map ends
    the loop at once (closed from this thread instead, the loop would sleep out its poll timeout, a
    second, whenever a connection is still open). The trigger's pipe is left open: a worker thread
    still finishing a response wakes the loop through it, and a write to a closed (or reused)
    descriptor would fail in that thread or land in another file. It is two descriptors a server,
    freed with the test process.
    """

    def close_but_the_trigger() -> None:
        for dispatcher in list(server._map.values()):
            if dispatcher is not server.trigger:
                try:
                    dispatcher.close()
                except OSError:
                    pass  # a connection the client already dropped
        server.trigger.del_channel()

    try:
        server.trigger.pull_trigger(close_but_the_trigger)
    except OSError:  # the loop has closed its trigger already (a poll error on it): close from here
        wasyncore.close_all(server._map)
    thread.join(timeout=5)
