"""How phones join the table: the site's address as text and as a QR code (扫码观看).

The box beside the table (a Pi, a laptop) shows its own address on the live and referee
pages, so a player points a phone at the tablet and follows the match. The address is, in
order: ``JOIN_URL`` from the config (``--join-url``, or set by the server when it listens on
every interface: :func:`box.lan.join_url`), else the host the visitor used. A loopback host
(``127.0.0.1``, ``localhost``) reaches only the box itself, so the page says so instead of
showing a code no phone can use.

The QR code is inline SVG (:func:`webkit.qr.qr_svg`, drawn by ``segno``); nothing is fetched from outside.

>>> join_info("http://192.168.1.20:8000/")["local_only"]
False
>>> join_info("http://127.0.0.1:8000/")["local_only"]
True
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from webkit.qr import qr_svg

MAX_URL = 300


def is_local(host: str) -> bool:
    """Whether ``host`` (a name or an address, without the port) only reaches this machine."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def join_info(url: str) -> dict[str, Any]:
    """What the join element shows for ``url``: the address, whether it is loopback only,
    and the QR code as inline SVG (empty for loopback addresses)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or len(url) > MAX_URL:
        raise ValueError(f"the join address must be an http(s) URL of at most {MAX_URL} characters, not {url!r}")
    local = is_local(parts.hostname)
    return {"url": url, "local_only": local, "svg": "" if local else qr_svg(url)}
