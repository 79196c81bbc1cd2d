"""A QR code as inline SVG, drawn by ``segno`` (pure Python): nothing is fetched from outside.

>>> svg = qr_svg("http://192.168.1.20:8000/")
>>> svg.startswith("<svg") and 'class="qr"' in svg and 'viewBox="0 0 ' in svg
True
"""

from __future__ import annotations

import functools
import io
import re


@functools.lru_cache(maxsize=64)
def qr_svg(text: str, scale: int = 4) -> str:
    """``text`` as a QR code (a full one, never a micro code; medium error correction): an SVG
    element with ``class="qr"``, its natural size in CSS pixels and a ``viewBox``, so a page's CSS
    may scale it; dark modules on a white quiet zone so phones read it on a dark page too."""
    import segno

    code = segno.make_qr(text, error="m")
    out = io.BytesIO()
    code.save(out, kind="svg", scale=scale, border=4, xmldecl=False, svgns=True, dark="#000", light="#fff",
              svgclass="qr", lineclass=None, title=None)
    svg = out.getvalue().decode("ascii")
    size = re.search(r'width="(\d+)" height="(\d+)"', svg)
    if size:
        w, h = size.groups()
        svg = svg.replace(size.group(0), f'{size.group(0)} viewBox="0 0 {w} {h}" role="img"', 1)
    return svg
