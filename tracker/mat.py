"""The printable table mat: markers, numbered play zones and the kitty zone.

``render_mat(layout, dpi)`` draws the mat with OpenCV at print resolution; ``save_mat``
writes it as PNG (with its print resolution recorded, so it prints at 100 %) or as a
one-page PDF of the exact paper size that wraps the image (written with the standard
library: OpenCV has no PDF writer). ``ddz-table mat --seats 3 --size A2 --out mat.pdf``.

>>> from tracker.zones import MatLayout
>>> img = render_mat(MatLayout.standard(3, "A3"), dpi=50)
>>> img.shape
(585, 827, 3)
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from tracker.zones import ARUCO_DICT, LABEL_INSET_MM, MatLayout, aruco_dictionary, label_font, zone_label

MM_PER_INCH = 25.4
SEAT_COLOURS = ((40, 110, 200), (60, 150, 40), (170, 90, 40), (140, 50, 150))  # BGR
KITTY_COLOUR = (30, 30, 160)
PILE_COLOUR = (90, 90, 90)


def render_mat(layout: MatLayout, dpi: int = 200) -> np.ndarray:
    """The mat as a white BGR image, ``dpi`` pixels per inch of paper."""
    if not 30 <= dpi <= 600:
        raise ValueError(f"dpi must be between 30 and 600, not {dpi}")
    ppm = dpi / MM_PER_INCH
    w, h = round(layout.width_mm * ppm), round(layout.height_mm * ppm)
    image = np.full((h, w, 3), 255, np.uint8)

    def px(points: np.ndarray) -> np.ndarray:
        return np.round(np.asarray(points) * ppm).astype(np.int32)

    for marker_id, corners in layout.marker_corners().items():
        (x1, y1), (x2, y2) = px(corners[0]), px(corners[2])
        side = min(x2 - x1, y2 - y1)
        tile = cv2.aruco.generateImageMarker(aruco_dictionary(), marker_id, side)
        image[y1:y1 + side, x1:x1 + side] = tile[..., None]
    thick = max(2, round(1.5 * ppm))
    for name, poly in layout.zones.items():
        colour = {"kitty": KITTY_COLOUR, "pile": PILE_COLOUR}.get(name) or SEAT_COLOURS[int(name[4:]) % len(SEAT_COLOURS)]
        pts = px(poly)
        cv2.fillPoly(image, [pts], tuple(int(255 - (255 - c) * 0.12) for c in colour))
        cv2.polylines(image, [pts], True, colour, thick, cv2.LINE_AA)
        _label(image, layout, name, colour, ppm)
    _footer(image, layout, ppm, dpi)
    return image


def _label(image: np.ndarray, layout: MatLayout, zone: str, colour: tuple, ppm: float) -> None:
    """The zone's name (seat number, 1-based for people) big in its corner, never over the
    middle, at ``layout.label_box(zone)``."""
    x1, y1 = np.round(layout.zones[zone].min(axis=0) * ppm)
    text = zone_label(zone)
    scale, thick = label_font(ppm)
    size, _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, round(ppm)))
    org = (int(x1 + LABEL_INSET_MM * ppm), int(y1 + LABEL_INSET_MM * ppm + size[1]))
    cv2.putText(image, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)


def _footer(image: np.ndarray, layout: MatLayout, ppm: float, dpi: int) -> None:
    """A 50 mm scale bar and how to print, between the top-left marker and the top zone."""
    x0 = round((layout.margin_mm + layout.marker_mm + 6) * ppm)
    y = round((layout.margin_mm + 4) * ppm)
    bar = max(1, round(0.6 * ppm))
    cv2.line(image, (x0, y), (x0 + round(50 * ppm), y), (0, 0, 0), bar)
    for tick in range(0, 51, 10):
        xt = x0 + round(tick * ppm)
        cv2.line(image, (xt, y), (xt, y + round(3 * ppm)), (0, 0, 0), bar)
    lines = ("50 mm: print at 100% scale", f"ddz-table mat {layout.size}, {layout.seats} seats",
             f"markers {ARUCO_DICT} 0-3")
    for i, text in enumerate(lines):
        org = (x0, y + round((9 + 6 * i) * ppm))
        cv2.putText(image, text, org, cv2.FONT_HERSHEY_SIMPLEX, 3.4 * ppm / 22, (0, 0, 0),
                    max(1, round(0.3 * ppm)), cv2.LINE_AA)


def save_mat(image: np.ndarray, path: str | os.PathLike, layout: MatLayout, dpi: int) -> Path:
    """Write the mat as ``.png`` or ``.pdf`` (decided by the file name)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".png":
        ok, data = cv2.imencode(".png", image)
        if not ok:
            raise ValueError("could not encode the mat as PNG")
        path.write_bytes(_with_dpi(data.tobytes(), dpi))
    elif suffix == ".pdf":
        path.write_bytes(pdf_of_image(image, layout.width_mm, layout.height_mm))
    else:
        raise ValueError(f"the mat is written as .png or .pdf, not {suffix or 'no extension'!r}")
    return path


def _with_dpi(png: bytes, dpi: int) -> bytes:
    """The PNG with a ``pHYs`` chunk after the header, so viewers print it at its real size."""
    ppm = round(dpi / 0.0254)
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    head = 8 + 25  # signature + IHDR chunk
    return png[:head] + chunk + png[head:]


def pdf_of_image(image: np.ndarray, width_mm: float, height_mm: float) -> bytes:
    """A one-page PDF of the given paper size showing the BGR image edge to edge (Flate, lossless)."""
    return pdf_of_pages([image], width_mm, height_mm)


def pdf_of_pages(images: Sequence[np.ndarray], width_mm: float, height_mm: float) -> bytes:
    """A PDF with one page per BGR image, each edge to edge on paper of the given size."""
    if not len(images):
        raise ValueError("a PDF needs at least one page")
    pw, ph = width_mm / MM_PER_INCH * 72, height_mm / MM_PER_INCH * 72
    # objects: 1 catalog, 2 page tree, then per page its page, image and content stream
    kids = " ".join(f"{3 + 3 * i} 0 R" for i in range(len(images)))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {len(images)} >>".encode(),
    ]
    for i, image in enumerate(images):
        h, w = image.shape[:2]
        rgb = np.ascontiguousarray(image[..., ::-1])
        pixels = zlib.compress(rgb.tobytes(), 6)
        content = f"q {pw:.2f} 0 0 {ph:.2f} 0 0 cm /Im0 Do Q".encode()
        page = 3 + 3 * i
        objects += [
            (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw:.2f} {ph:.2f}] "
             f"/Resources << /XObject << /Im0 {page + 1} 0 R >> >> /Contents {page + 2} 0 R >>").encode(),
            (f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceRGB "
             f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(pixels)} >>\nstream\n").encode()
            + pixels + b"\nendstream",
            f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
        ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)
