"""Joining from a phone: the box's address and QR code on the live and referee pages."""

from __future__ import annotations

import re

import cv2
import numpy as np
import pytest
import segno

from box import lan as tracker_config
from cli.site import make_server
from tests.kit.table_site import PIN
from tracker.store import EventStore
from webui import create_app, join


def _svg(page: str) -> str:
    found = re.search(r'<svg[^>]*class="qr".*?</svg>', page, re.S)
    assert found, "no QR code on the page"
    return found.group(0)


def _found(pattern: str, text: str) -> str:
    match = re.search(pattern, text)
    assert match is not None, pattern
    return match.group(1)


def _decode_svg_modules(svg: str) -> str:
    """Read the code back from the SVG's own path (rows of ``h`` runs), as a phone would
    from the drawing: rasterise the runs and let OpenCV decode them."""
    scale = int(_found(r'transform="scale\((\d+)\)"', svg))
    size = int(_found(r'viewBox="0 0 (\d+) \d+"', svg)) // scale
    d = _found(r'<path stroke="#000" d="([^"]+)"', svg)
    grid = np.full((size, size), 255, np.uint8)
    x = y = 0.0
    for op, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?:[ ,](-?[\d.]+))?", d):
        if op == "M":
            x, y = float(a), float(b)
        elif op == "m":
            x, y = x + float(a), y + float(b)
        else:
            n = float(a)
            grid[int(y), int(x):int(x + n)] = 0
            x += n
    big = cv2.resize(grid, (size * 8, size * 8), interpolation=cv2.INTER_NEAREST)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(big)
    return text


def test_the_configured_address_shows_as_text_and_a_code_that_reads_back(store):
    app = create_app({"REFEREE_PIN": PIN, "JOIN_URL": "http://192.168.1.20:8000/"}, store=store)
    client = app.test_client()
    page = client.get("/").get_data(as_text=True)
    assert "http://192.168.1.20:8000/" in page
    assert _decode_svg_modules(_svg(page)) == "http://192.168.1.20:8000/"
    assert "http://192.168.1.20:8000/" in client.get("/join").get_data(as_text=True)
    app.extensions["ddz"].watcher.stop()


def test_the_referee_page_shows_it_too(referee, app):
    app.config["JOIN_URL"] = "http://10.0.0.7:8000/"
    page = referee.get("/referee").get_data(as_text=True)
    assert 'id="join"' in page and "http://10.0.0.7:8000/" in page and _svg(page)


def test_without_a_configured_address_the_visitors_host_is_used(client):
    page = client.get("/", headers={"Host": "192.168.0.9:8000"}).get_data(as_text=True)
    assert _decode_svg_modules(_svg(page)) == "http://192.168.0.9:8000/"


def test_a_loopback_address_says_phones_cannot_reach_it_and_draws_no_code(client):
    page = client.get("/", headers={"Host": "127.0.0.1:8000"}).get_data(as_text=True)
    assert 'class="qr"' not in page and "--host 0.0.0.0" in page


def test_a_bad_join_address_fails_at_start_up():
    with pytest.raises(ValueError, match="join address"):
        create_app({"JOIN_URL": "ftp://x"}, store=EventStore(":memory:"))
    with pytest.raises(ValueError, match="join address"):
        join.join_info("not a url")


def test_a_strange_host_header_shows_no_code_rather_than_an_error(client):
    response = client.get("/", headers={"Host": "[::1"})
    assert response.status_code in (200, 400) and 'class="qr"' not in response.get_data(as_text=True)


def test_a_server_on_every_interface_sets_the_join_address(monkeypatch, store, capsys):
    monkeypatch.setattr(tracker_config, "lan_address", lambda probe="": "192.168.5.5")
    app = create_app({"REFEREE_PIN": PIN}, store=store)
    server = make_server(app, host="0.0.0.0", port=0)
    try:
        port = server.effective_port
        assert app.config["JOIN_URL"] == f"http://192.168.5.5:{port}/"
        assert f"phones join at: http://192.168.5.5:{port}/" in capsys.readouterr().out
    finally:
        server.close()
        app.extensions["ddz"].watcher.stop()


def test_a_server_on_loopback_leaves_the_address_to_the_visitor(store):
    app = create_app({"REFEREE_PIN": PIN}, store=store)
    server = make_server(app, host="127.0.0.1", port=0)
    try:
        assert not app.config["JOIN_URL"]
    finally:
        server.close()
        app.extensions["ddz"].watcher.stop()


def test_the_code_is_the_same_text_segno_encodes():
    # The SVG decoder above is checked against a PNG of the same code, read by OpenCV alone.
    url = "http://192.168.1.20:8000/"
    png = segno.make_qr(url, error="m").png_data_uri(scale=8)
    import base64

    image = cv2.imdecode(np.frombuffer(base64.b64decode(png.split(",", 1)[1]), np.uint8), cv2.IMREAD_GRAYSCALE)
    assert cv2.QRCodeDetector().detectAndDecode(image)[0] == url
    assert _decode_svg_modules(join.qr_svg(url)) == url
