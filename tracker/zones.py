"""Table geometry: the mat's layout in millimetres and the camera calibration.

The table plane has its own coordinates: millimetres from the mat's top-left corner, x to
the right, y down (as the mat is printed). A :class:`MatLayout` places four ArUco markers
(``DICT_4X4_50``, ids 0-3 clockwise from top-left) in the corners, a numbered play zone in
front of each seat and a kitty zone. Seats go counter-clockwise seen from above (逆时针, the
order of play): seat 0 at the bottom edge, then right, (top,) left.

A :class:`Calibration` is the homography from table millimetres to camera pixels, found from
the markers in one frame (:meth:`Calibration.from_markers`) or from four clicked corners
(:meth:`Calibration.from_corners`), saved as JSON with the zones and the camera resolution.
:meth:`Calibration.crop` rectifies a zone to a fixed pixels-per-millimetre image for the
detector; the returned :class:`ZoneView` maps its detections back to table millimetres.

>>> layout = MatLayout.standard(seats=3, size="A2")
>>> sorted(layout.zones), layout.width_mm, layout.height_mm
(['kitty', 'seat0', 'seat1', 'seat2'], 594.0, 420.0)
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

FORMAT = "ddz-table/calibration"
VERSION = 1
#: Paper sizes (landscape width x height, mm).
PAPER_MM: dict[str, tuple[float, float]] = {"A3": (420.0, 297.0), "A2": (594.0, 420.0), "A1": (841.0, 594.0)}
ARUCO_DICT = "DICT_4X4_50"
#: Pixels per millimetre of a zone crop: a 12 mm corner index comes out about 30 px tall.
CROP_PX_PER_MM = 2.5
#: The mat prints each zone's name (its seat number, ``KITTY``, ``PILE``) this tall, this far
#: in from the zone's top-left corner, in Hershey simplex (``tracker.mat``).
LABEL_MM = 18.0
LABEL_INSET_MM = 4.0
#: A printed seat number looks like a card's rank to the detector (a "2" read as 2s): a read
#: whose box lies this much inside a label's box is the mat, not a card (``TableReader``). A card
#: lying over the label keeps its index: that box is narrower and reaches out of the label's ...
LABEL_INSIDE = 0.6
#: ... or, where an index lies over the label whole (a long play reaching the zone's corner),
#: it is read surer than the label ever was: on the films the labels read at 0.02-0.32 (seat 1's
#: "2" as 2s, seat 2's "3" as 3d, seat 0's "1" as 7d), a 7s lying on seat 0's "1" at 0.65-0.74.
#: A read this sure over a label is a card, unless it has the label's own number.
LABEL_SURE = 0.5


class CalibrationError(ValueError):
    """The calibration cannot be made or read (markers not found, bad JSON, bad corners)."""


def _rect(x1: float, y1: float, x2: float, y2: float) -> np.ndarray:
    return np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64)


@dataclass
class MatLayout:
    """Where the markers and zones are on the mat, in millimetres."""

    size: str
    seats: int
    width_mm: float
    height_mm: float
    marker_mm: float
    margin_mm: float
    zones: dict[str, np.ndarray] = field(default_factory=dict)

    @classmethod
    def standard(cls, seats: int = 3, size: str = "A2", pile: bool = False) -> MatLayout:
        """The printed mat. ``pile``: the centre-pile protocol, with one ``pile`` zone in the
        middle that everyone plays onto (the seat zones then only tell where hands come from)."""
        if size not in PAPER_MM:
            raise ValueError(f"mat size must be one of {', '.join(PAPER_MM)}, not {size!r}")
        if seats not in (2, 3, 4, 5):
            raise ValueError(f"a mat has 2, 3, 4 or 5 seats, not {seats!r}")
        if seats == 5 and pile:
            raise ValueError("the five-seat mat has no centre pile: two seats share the top edge")
        w, h = PAPER_MM[size]
        m, marker = round(0.02 * w, 1), round(0.1 * h, 1)
        side_y = (m + marker + 0.04 * h, h - m - marker - 0.04 * h)
        zones = {"seat0": _rect(0.27 * w, h - m - 0.30 * h, 0.73 * w, h - m)}
        right = _rect(w - m - 0.24 * w, side_y[0], w - m, side_y[1])
        left = _rect(m, side_y[0], m + 0.24 * w, side_y[1])
        top = _rect(0.27 * w, m, 0.73 * w, m + 0.30 * h)
        centre = _rect(0.36 * w, 0.36 * h, 0.64 * w, 0.64 * h)
        if seats == 2:
            zones["seat1"] = top
            zones["kitty"] = _rect(m, side_y[0], m + 0.22 * w, side_y[1]) if pile else centre
        elif seats == 3:
            zones.update(seat1=right, seat2=left, kitty=_rect(0.3 * w, m, 0.7 * w, m + 0.25 * h))
        elif seats == 4:
            zones.update(seat1=right, seat2=top, seat3=left)
            if not pile:  # four players: the kitty is never shown, so the pile may take the centre
                zones["kitty"] = centre
        else:  # five: two seats share the top edge, counter-clockwise from the bottom
            zones.update(seat1=right, seat2=_rect(0.505 * w, m, 0.73 * w, m + 0.30 * h),
                         seat3=_rect(0.27 * w, m, 0.495 * w, m + 0.30 * h), seat4=left, kitty=centre)
        if pile:
            zones["pile"] = _rect(0.3 * w, 0.31 * h, 0.7 * w, 0.64 * h) if seats == 3 else centre
        return cls(size, seats, w, h, marker, m, zones)

    def label_box(self, zone: str) -> tuple[float, float, float, float]:
        """Where the mat prints ``zone``'s name: ``(x1, y1, x2, y2)`` in table mm."""
        x1, y1 = self.zones[zone].min(axis=0)
        w, h, base = label_text_mm(zone_label(zone))
        # the text stands on y + h, and its glyphs are a little under LABEL_MM tall
        x, y = float(x1) + LABEL_INSET_MM, float(y1) + LABEL_INSET_MM
        return (x, y + h - LABEL_MM, x + w, y + h + base)

    def edge_seats(self) -> dict[str, int]:
        """Which seat sits at each edge of the mat (a hand coming in over it is that seat's).
        Five seats: the two at the top edge sit at its right and left half (``top_right``,
        ``top_left``), which a hand over the top edge alone cannot tell apart."""
        return {2: {"bottom": 0, "top": 1}, 3: {"bottom": 0, "right": 1, "left": 2},
                4: {"bottom": 0, "right": 1, "top": 2, "left": 3},
                5: {"bottom": 0, "right": 1, "top_right": 2, "top_left": 3, "left": 4}}[self.seats]

    def seat_towards(self, direction: np.ndarray) -> int | None:
        """The seat at the edge ``direction`` (mat mm, x right, y down) points to most nearly:
        a token on the pile whose words point down the mat faces seat 0. None without edges."""
        outward = {"bottom": (0.0, 1.0), "top": (0.0, -1.0), "right": (1.0, 0.0), "left": (-1.0, 0.0)}
        edges = {edge: seat for edge, seat in self.edge_seats().items() if edge in outward}
        best = max(edges, key=lambda e: float(np.dot(direction, outward[e])), default=None)
        return None if best is None else edges[best]

    def marker_corners(self) -> dict[int, np.ndarray]:
        """Each marker's four corners (mm) in ArUco order: top-left, top-right, bottom-right, bottom-left."""
        w, h, m, s = self.width_mm, self.height_mm, self.margin_mm, self.marker_mm
        origins = {0: (m, m), 1: (w - m - s, m), 2: (w - m - s, h - m - s), 3: (m, h - m - s)}
        return {i: _rect(x, y, x + s, y + s) for i, (x, y) in origins.items()}

    def to_dict(self) -> dict[str, Any]:
        return {"size": self.size, "seats": self.seats, "width_mm": self.width_mm, "height_mm": self.height_mm,
                "marker_mm": self.marker_mm, "margin_mm": self.margin_mm}


def zone_label(zone: str) -> str:
    """What the mat prints in a zone: the seat number counted from 1, or the zone's name."""
    return str(int(zone[4:]) + 1) if zone.startswith("seat") else zone.upper()


@functools.lru_cache(maxsize=64)
def label_text_mm(text: str, px_per_mm: float = 10.0) -> tuple[float, float, float]:
    """Width, height and depth below the baseline (mm) of a label as ``tracker.mat`` draws it."""
    scale, thick = label_font(px_per_mm)
    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    return w / px_per_mm, h / px_per_mm, base / px_per_mm


def label_font(px_per_mm: float) -> tuple[float, int]:
    """Hershey simplex scale and stroke of a ``LABEL_MM`` label (glyphs are ~22 px at scale 1)."""
    return LABEL_MM * px_per_mm / 22, max(1, round(1.2 * px_per_mm))


def aruco_dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICT))


def find_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """ArUco markers found in a BGR or grey image: id -> 4 corners (px), ArUco order."""
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        raise CalibrationError("expected an image (numpy array)")
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    corners, ids, _ = cv2.aruco.ArucoDetector(aruco_dictionary(), params).detectMarkers(grey)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2).astype(np.float64) for i, c in zip(ids.ravel(), corners, strict=True)}


@dataclass
class ZoneView:
    """A rectified zone crop: crop pixel ``(u, v)`` is table point ``origin + (u, v) / px_per_mm``."""

    name: str
    origin: tuple[float, float]
    px_per_mm: float
    image: np.ndarray

    def to_table(self, points: np.ndarray) -> np.ndarray:
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        return pts / self.px_per_mm + np.array(self.origin)

    def boxes_to_table(self, boxes: np.ndarray) -> np.ndarray:
        """(N, 4) crop boxes -> (N, 4) table-mm boxes (the crop is axis-aligned to the table)."""
        b = np.asarray(boxes, np.float64).reshape(-1, 4)
        o = np.array([*self.origin, *self.origin])
        return b / self.px_per_mm + o


@dataclass
class Calibration:
    """Table millimetres -> camera pixels, with the mat's zones and the camera's resolution."""

    homography: np.ndarray
    image_size: tuple[int, int]
    layout: MatLayout
    method: str = "markers"
    error_px: float = 0.0
    markers_found: tuple[int, ...] = ()

    @property
    def zones(self) -> dict[str, np.ndarray]:
        return self.layout.zones

    @property
    def seat_zones(self) -> list[str]:
        return [f"seat{i}" for i in range(self.layout.seats)]

    # ------------------------------------------------------------------ making one
    @classmethod
    def from_markers(cls, image: np.ndarray, layout: MatLayout, min_markers: int = 3) -> Calibration:
        found = find_markers(image)
        known = layout.marker_corners()
        usable = sorted(i for i in found if i in known)
        if len(usable) < min_markers:
            raise CalibrationError(f"found {len(usable)} of the mat's 4 markers (ids {usable}); need "
                                   f"{min_markers}: check the lighting and that the whole mat is in view")
        table = np.concatenate([known[i] for i in usable])
        pixels = np.concatenate([found[i] for i in usable])
        h, _ = cv2.findHomography(table, pixels, cv2.RANSAC, 3.0)
        if h is None:
            raise CalibrationError("the markers do not give a consistent view of the table")
        error = float(np.abs(_project(h, table) - pixels).max())
        return cls(h, (image.shape[1], image.shape[0]), layout, "markers", error, tuple(usable))

    @classmethod
    def from_corners(cls, corners_px: Any, layout: MatLayout, image_size: tuple[int, int]) -> Calibration:
        """Four clicked mat corners in pixels: top-left, top-right, bottom-right, bottom-left."""
        pts = np.asarray(corners_px, np.float64)
        if pts.shape != (4, 2) or not np.isfinite(pts).all():
            raise CalibrationError(f"need four (x, y) corners, got {pts.tolist()}")
        table = _rect(0, 0, layout.width_mm, layout.height_mm)
        if abs(cv2.contourArea(pts.astype(np.float32))) < 100:
            raise CalibrationError("the four corners enclose almost no area")
        h = cv2.getPerspectiveTransform(table.astype(np.float32), pts.astype(np.float32))
        return cls(h, (int(image_size[0]), int(image_size[1])), layout, "corners", 0.0, ())

    # ------------------------------------------------------------------ using one
    def table_to_image(self, points: Any) -> np.ndarray:
        return _project(self.homography, np.asarray(points, np.float64).reshape(-1, 2))

    def image_to_table(self, points: Any) -> np.ndarray:
        return _project(np.linalg.inv(self.homography), np.asarray(points, np.float64).reshape(-1, 2))

    def crop(self, frame: np.ndarray, zone: str, px_per_mm: float = CROP_PX_PER_MM,
             margin: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)) -> ZoneView:
        """The zone rectified to ``px_per_mm`` (the zone's bounding box in table mm, widened by
        ``margin``: mm beyond its left, top, right and bottom edges)."""
        if zone not in self.zones:
            raise KeyError(f"no zone {zone!r}; zones are {', '.join(self.zones)}")
        poly = self.zones[zone]
        (x1, y1), (x2, y2) = poly.min(axis=0) - margin[:2], poly.max(axis=0) + margin[2:]
        size = (max(1, round((x2 - x1) * px_per_mm)), max(1, round((y2 - y1) * px_per_mm)))
        crop_to_table = np.array([[1 / px_per_mm, 0, x1], [0, 1 / px_per_mm, y1], [0, 0, 1]])
        m = self.homography @ crop_to_table  # crop px -> image px
        image = cv2.warpPerspective(frame, m, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                    borderMode=cv2.BORDER_REPLICATE)
        return ZoneView(zone, (float(x1), float(y1)), px_per_mm, image)

    def rectify(self, frame: np.ndarray, px_per_mm: float) -> np.ndarray:
        """The whole mat, top-down, at ``px_per_mm`` (what lies outside the frame is black)."""
        size = (max(1, round(self.layout.width_mm * px_per_mm)), max(1, round(self.layout.height_mm * px_per_mm)))
        m = self.homography @ np.diag([1 / px_per_mm, 1 / px_per_mm, 1.0])
        return cv2.warpPerspective(frame, m, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)

    def margins(self, zone: str, most_mm: float, free: tuple[str, ...] = ()) -> tuple[float, float, float, float]:
        """How far (mm, at most ``most_mm``) a crop of ``zone`` may reach beyond each edge (left,
        top, right, bottom): up to halfway to a zone lying beyond that edge (but the zones named in
        ``free``, which nothing is read in then), and not past the mat."""
        boxes = {name: (poly.min(axis=0), poly.max(axis=0)) for name, poly in self.zones.items()}
        (x1, y1), (x2, y2) = boxes[zone]
        room = [min(most_mm, x1), min(most_mm, y1), min(most_mm, self.layout.width_mm - x2),
                min(most_mm, self.layout.height_mm - y2)]
        for name, ((a1, b1), (a2, b2)) in boxes.items():
            if name == zone or name in free:
                continue
            if b1 < y2 and b2 > y1:  # beside it, across its height
                if a2 <= x1:
                    room[0] = min(room[0], (x1 - a2) / 2)
                if a1 >= x2:
                    room[2] = min(room[2], (a1 - x2) / 2)
            if a1 < x2 and a2 > x1:  # above or below it, across its width
                if b2 <= y1:
                    room[1] = min(room[1], (y1 - b2) / 2)
                if b1 >= y2:
                    room[3] = min(room[3], (b1 - y2) / 2)
        left, top, right, bottom = (float(max(0.0, v)) for v in room)
        return left, top, right, bottom

    def zone_of(self, point_mm: Any) -> str | None:
        """The zone holding a table point (None: outside every zone)."""
        p = tuple(float(v) for v in np.asarray(point_mm).ravel()[:2])
        for name, poly in self.zones.items():
            if cv2.pointPolygonTest(poly.astype(np.float32), p, False) >= 0:
                return name
        return None

    def refind(self, image: np.ndarray) -> Calibration | None:
        """The markers found again on this frame, or None when they are not all in view."""
        try:
            return Calibration.from_markers(image, self.layout)
        except CalibrationError:
            return None

    def shift_px(self, other: Calibration) -> float:
        """How far (pixels) the mat's corners lie apart in the two calibrations."""
        corners = _rect(0, 0, self.layout.width_mm, self.layout.height_mm)
        return float(np.abs(self.table_to_image(corners) - other.table_to_image(corners)).max())

    def moved(self, image: np.ndarray, tolerance_px: float = 3.0) -> Calibration | None:
        """Re-find the markers (the camera may be knocked): a new calibration if the view moved."""
        fresh = self.refind(image)
        return fresh if fresh is not None and self.shift_px(fresh) > tolerance_px else None

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT, "version": VERSION, "method": self.method,
            "image_size": list(self.image_size), "mat": self.layout.to_dict(),
            "homography": self.homography.tolist(), "seat_order": "ccw",
            "seats": self.seat_zones,
            "zones": {k: v.tolist() for k, v in self.zones.items()},
            "markers": {"dictionary": ARUCO_DICT, "found": list(self.markers_found)},
            "error_px": round(self.error_px, 3),
        }

    def save(self, path: str | os.PathLike) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1), encoding="utf-8")

    @classmethod
    def from_dict(cls, data: Any) -> Calibration:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CalibrationError(f"not a {FORMAT} file")
        if data.get("version") != VERSION:
            raise CalibrationError(f"calibration version {data.get('version')!r} is not supported")
        try:
            mat = data["mat"]
            layout = MatLayout.standard(int(mat["seats"]), str(mat["size"]))
            layout.width_mm, layout.height_mm = float(mat["width_mm"]), float(mat["height_mm"])
            layout.zones = {str(k): _polygon(v, k) for k, v in data["zones"].items()}
            h = np.asarray(data["homography"], np.float64)
            size = tuple(int(v) for v in data["image_size"])
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(f"calibration is missing or has a bad field: {exc}") from None
        if h.shape != (3, 3) or not np.isfinite(h).all() or abs(np.linalg.det(h)) < 1e-12:
            raise CalibrationError("homography must be an invertible 3x3 matrix")
        if len(size) != 2 or min(size) <= 0:
            raise CalibrationError(f"image_size must be [width, height], not {data['image_size']!r}")
        markers = data.get("markers", {}).get("found", [])
        return cls(h, size, layout, str(data.get("method", "markers")), float(data.get("error_px", 0.0)),
                   tuple(int(i) for i in markers))

    @classmethod
    def load(cls, path: str | os.PathLike) -> Calibration:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise CalibrationError(f"cannot read calibration {path}: {exc.strerror}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CalibrationError(f"{path} is not JSON: {exc}") from None
        return cls.from_dict(data)


def _polygon(value: Any, name: str) -> np.ndarray:
    poly = np.asarray(value, np.float64)
    if poly.ndim != 2 or poly.shape[1] != 2 or len(poly) < 3:
        raise ValueError(f"zone {name!r} must be a list of at least 3 [x, y] points")
    return poly


def _project(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    if not len(pts):
        return pts.reshape(0, 2)
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), h).reshape(-1, 2)
