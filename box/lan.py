"""The address phones on the club's network use to reach the box's site (局域网地址)."""

from __future__ import annotations

import socket


def lan_address(probe: str = "192.0.2.1") -> str | None:
    """This machine's address on the local network, or None when it has none.

    A UDP socket 'connected' to any outside address makes the kernel pick the outgoing
    interface; nothing is sent. 192.0.2.1 is a documentation address, never routed to anyone."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe_socket:
        try:
            probe_socket.connect((probe, 9))
            address = probe_socket.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith(("0.", "127.")) else address


def join_url(host: str, port: int, lan: str | None = None) -> str | None:
    """The address phones type: the LAN address when the site listens on every interface."""
    if host in ("0.0.0.0", "", "::"):
        lan = lan if lan is not None else lan_address()
        return f"http://{lan}:{port}/" if lan else None
    if host.startswith("127.") or host in ("localhost", "::1"):
        return None  # phones cannot reach it
    return f"http://{host}:{port}/"
