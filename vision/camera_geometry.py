"""How much table a camera straight above it sees, and how many pixels a card's corner index gets.

The detector reads corner indices 12-60 px tall (what it was trained on,
:data:`vision.settings.INDEX_PX`; a mounted camera aims for :data:`vision.settings.GOOD_INDEX_PX`),
and the zone crops
cannot add detail the sensor never saw, so what matters is the camera's own pixels per
millimetre on the table. A pinhole looking straight down from ``height_mm`` sees
``2 * height * tan(fov / 2)`` millimetres across; a sensor mode that reads the full sensor
(binned or not) keeps the field of view and only changes the pixel count. The IMX708's
fast 1536x864 mode is binned *and* cropped to the middle 3072x1728 of the sensor: it sees
two thirds of the width, at the same pixels per millimetre as 2304x1296.

The corner index (rank glyph plus the small suit under it) of the 24 decks in
``sim/synth`` measured 16-37 % of the card's height (median 21 %): 14-33 mm on an
87-88 mm card. :data:`INDEX_MM` = 12 mm is a deliberately low figure, so a table that
passes here also reads the smallest-index club decks.

>>> view = coverage("module3", 1000, (2304, 1296))
>>> round(view.view_w_mm), round(view.view_h_mm), round(view.px_per_mm, 2), round(view.index_px)
(1299, 748, 1.73, 21)

Run ``python -m vision.camera_geometry`` for the mounting table in ``deploy/raspberrypi/camera.md``.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from vision.settings import GOOD_INDEX_PX, INDEX_PX

#: Full sensor of the IMX708 (Camera Module 3 and 3 Wide).
SENSOR_PX = (4608, 2592)
#: The IMX708's three sensor modes (libcamera's list on a Camera Module 3).
MODES: tuple[tuple[int, int], ...] = ((1536, 864), (2304, 1296), (4608, 2592))
#: The share of the sensor's width each mode reads (``crop_limits``): 1536x864 is 2x2 binned
#: from the central 3072x1728; the other two read the whole sensor.
MODE_CROP: dict[tuple[int, int], float] = {(1536, 864): 3072 / 4608, (2304, 1296): 1.0, (4608, 2592): 1.0}


@dataclass(frozen=True)
class Lens:
    name: str
    label: str
    hfov_deg: float
    vfov_deg: float
    #: libcamera's model string (``Picamera2.camera_properties["Model"]``).
    sensor_model: str


LENSES: dict[str, Lens] = {
    "module3": Lens("module3", "Camera Module 3", 66.0, 41.0, "imx708"),
    "module3_wide": Lens("module3_wide", "Camera Module 3 Wide", 102.0, 67.0, "imx708_wide"),
}
#: A conservative corner-index height (mm) on a standard 57x87 or 63x88 mm card (see above).
INDEX_MM = 12.0
#: The printed mats (``ddz-table mat --size``), landscape, mm: see ``tracker.zones.PAPER_MM``.
MATS_MM: dict[str, tuple[float, float]] = {"A3": (420.0, 297.0), "A2": (594.0, 420.0), "A1": (841.0, 594.0)}
#: The mats a club table uses (A3 is for trying things out on a desk).
TABLE_MATS = ("A2", "A1")
#: Room around the mat the view should also hold (hands coming in, a mat laid a little askew).
MAT_MARGIN = 1.1


class GeometryError(ValueError):
    """An unknown lens or an impossible height or mode."""


@dataclass(frozen=True)
class View:
    lens: str
    mount_mm: float
    mode: tuple[int, int]
    #: the table area in view (mm), along the frame's width and height
    view_w_mm: float
    view_h_mm: float
    px_per_mm: float
    index_px: float

    def fits(self, mat: str, margin: float = MAT_MARGIN) -> bool:
        """Whether the mat (with ``margin``) lies wholly in the view, long side along the frame's."""
        if mat not in MATS_MM:
            raise GeometryError(f"unknown mat {mat!r}; known: {', '.join(MATS_MM)}")
        w, h = MATS_MM[mat]
        return self.view_w_mm >= w * margin and self.view_h_mm >= h * margin

    def verdict(self) -> str:
        if self.index_px >= GOOD_INDEX_PX:
            return "good"
        return "marginal" if self.index_px >= INDEX_PX[0] else "too small"


def lens(name: str) -> Lens:
    try:
        return LENSES[name]
    except KeyError:
        raise GeometryError(f"unknown camera {name!r}; known: {', '.join(LENSES)}") from None


def lens_for_model(model: str | None) -> Lens | None:
    """The lens a libcamera model string names (``imx708_wide`` -> 3 Wide), or None when unknown."""
    if not model:
        return None
    model = model.lower()
    # The most specific name first: "imx708_wide_noir" is a Wide.
    for entry in sorted(LENSES.values(), key=lambda e: -len(e.sensor_model)):
        if model.startswith(entry.sensor_model):
            return entry
    return None


def coverage(camera: str | Lens, height_mm: float, mode: Sequence[int], *, crop_fraction: float | None = None,
             index_mm: float = INDEX_MM) -> View:
    """What a camera ``height_mm`` above the table sees in ``mode`` (pinhole, looking straight down).

    ``crop_fraction``: the share of the sensor's width the mode reads (a cropped mode's field
    of view shrinks with it); by default the IMX708's own (:data:`MODE_CROP`), else 1.
    The Wide lens bends straight lines near its edges; there a pinhole overstates the
    pixels per millimetre, so give its figures some margin.
    """
    entry = camera if isinstance(camera, Lens) else lens(camera)
    if not height_mm > 0:
        raise GeometryError(f"the mounting height must be positive, got {height_mm}")
    if len(mode) != 2 or min(mode) <= 0:
        raise GeometryError(f"a mode is (width, height) in pixels, got {mode}")
    if crop_fraction is None:
        crop_fraction = MODE_CROP.get((int(mode[0]), int(mode[1])), 1.0)
    if not 0 < crop_fraction <= 1:
        raise GeometryError(f"crop_fraction must be in (0, 1], got {crop_fraction}")
    w_mm = 2 * height_mm * math.tan(math.radians(entry.hfov_deg) / 2) * crop_fraction
    h_mm = 2 * height_mm * math.tan(math.radians(entry.vfov_deg) / 2) * crop_fraction
    # The published angles are rounded, so the two axes disagree slightly: keep the lower density.
    px_per_mm = min(mode[0] / w_mm, mode[1] / h_mm)
    return View(entry.name, float(height_mm), (int(mode[0]), int(mode[1])), w_mm, h_mm, px_per_mm,
                px_per_mm * index_mm)


def min_mount_mm(camera: str | Lens, mat: str, margin: float = MAT_MARGIN) -> float:
    """The lowest height (mm) from which ``mat`` (with ``margin``) fits in the view."""
    entry = camera if isinstance(camera, Lens) else lens(camera)
    if mat not in MATS_MM:
        raise GeometryError(f"unknown mat {mat!r}; known: {', '.join(MATS_MM)}")
    w, h = MATS_MM[mat]
    return max(w * margin / (2 * math.tan(math.radians(entry.hfov_deg) / 2)),
               h * margin / (2 * math.tan(math.radians(entry.vfov_deg) / 2)))


def choose_mode(camera: str | Lens, height_mm: float, modes: Iterable[Sequence[int]] = MODES, *,
                target_px: float = GOOD_INDEX_PX, crop_fractions: Sequence[float | None] | None = None,
                mat: str | None = None) -> tuple[int, int]:
    """The smallest mode whose corner indices reach ``target_px`` (and that holds ``mat`` in
    view, when given); else the one that comes closest.

    Smaller modes mean faster frames and less work per crop on the Pi, so more pixels than the
    detector needs are not taken.
    """
    sizes = [(int(m[0]), int(m[1])) for m in modes]
    if not sizes:
        raise GeometryError("no sensor modes to choose from")
    fractions = list(crop_fractions) if crop_fractions is not None else [None] * len(sizes)
    views = [coverage(camera, height_mm, m, crop_fraction=f) for m, f in zip(sizes, fractions, strict=True)]
    ranked = sorted(zip(views, sizes, strict=True), key=lambda vm: vm[1][0] * vm[1][1])
    if mat is not None:
        in_view = [vm for vm in ranked if vm[0].fits(mat)]
        ranked = in_view or ranked
    for view, mode in ranked:
        if view.index_px >= target_px:
            return mode
    return max(ranked, key=lambda vm: vm[0].index_px)[1]


def mounting_table(heights_cm: Iterable[int] = range(60, 151, 10), cameras: Iterable[str] = tuple(LENSES),
                   modes: Iterable[Sequence[int]] = MODES) -> list[View]:
    """Every (camera, height, mode) of the guide's table, in that order."""
    return [coverage(c, h * 10.0, m) for c in cameras for h in heights_cm for m in modes]


def markdown(views: list[View], mats: Sequence[str] = TABLE_MATS) -> str:
    """The guide's table: one row per camera and height; the view (and which mats fit) per
    field of view, the corner index height in pixels per mode.

    An index figure is marked ``*`` when it is under the detector's 12 px floor and ``~``
    when it is under the 18 px we aim for.
    """
    rows: dict[tuple[str, float], list[View]] = {}
    for v in views:
        rows.setdefault((v.lens, v.mount_mm), []).append(v)
    modes = sorted({v.mode for v in views}, key=lambda m: m[0] * m[1])
    fields = sorted({MODE_CROP.get(m, 1.0) for m in modes}, reverse=True)
    head = ["camera", "height cm"]
    for f in fields:
        names = "/".join(f"{w}x{h}" for w, h in modes if MODE_CROP.get((w, h), 1.0) == f)
        head += [f"view mm ({names})", *mats]
    head += [f"index px {w}x{h}" for w, h in modes]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (name, mount), group in rows.items():
        by_mode = {v.mode: v for v in group}
        cells = [lens(name).label, f"{mount / 10:.0f}"]
        for f in fields:
            v = next(by_mode[m] for m in modes if MODE_CROP.get(m, 1.0) == f and m in by_mode)
            cells += [f"{v.view_w_mm:.0f} x {v.view_h_mm:.0f}", *["yes" if v.fits(mat) else "no" for mat in mats]]
        cells += [_index_cell(by_mode[m]) if m in by_mode else "" for m in modes]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _index_cell(view: View) -> str:
    mark = {"good": "", "marginal": " ~", "too small": " *"}[view.verdict()]
    return f"{view.index_px:.0f}{mark}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.camera_geometry",
                                     description="Mounting height vs. field of view vs. index size in pixels.")
    parser.add_argument("--heights", type=int, nargs="+", default=list(range(60, 151, 10)), metavar="CM")
    parser.add_argument("--cameras", nargs="+", choices=tuple(LENSES), default=list(LENSES))
    parser.add_argument("--modes", nargs="+", default=[f"{w}x{h}" for w, h in MODES], metavar="WxH")
    parser.add_argument("--index-mm", type=float, default=INDEX_MM, help="corner index height on the card")
    args = parser.parse_args(argv)
    try:
        modes = [tuple(int(v) for v in m.lower().split("x")) for m in args.modes]
    except ValueError:
        parser.error("modes are WIDTHxHEIGHT, e.g. 2304x1296")
    views = [coverage(c, h * 10.0, m, index_mm=args.index_mm)
             for c in args.cameras for h in args.heights for m in modes]
    print(markdown(views))
    print()
    for name in args.cameras:
        lows = ", ".join(f"{mat} from {min_mount_mm(name, mat) / 10:.0f} cm" for mat in TABLE_MATS)
        print(f"{lens(name).label}: the mat fits in view with {MAT_MARGIN - 1:.0%} to spare: {lows}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
