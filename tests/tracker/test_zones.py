"""The mat, calibration from a rendered and perspective-warped mat, zone crops and JSON."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from tracker.mat import MM_PER_INCH, pdf_of_image, render_mat, save_mat
from tracker.zones import Calibration, CalibrationError, MatLayout, find_markers

DPI = 60


def camera_view(layout, h_true, size=(1280, 720), noise=4.0, seed=0):
    """The mat as a camera at ``h_true`` (table mm -> px) sees it, on a grey table, noisy."""
    mat = render_mat(layout, DPI)
    mat_px_per_mm = DPI / MM_PER_INCH
    scale = np.diag([1 / mat_px_per_mm, 1 / mat_px_per_mm, 1.0])  # mat image px -> mm
    frame = cv2.warpPerspective(mat, h_true @ scale, size, borderValue=(90, 100, 95))
    rng = np.random.default_rng(seed)
    return np.clip(frame + rng.normal(0, noise, frame.shape), 0, 255).astype(np.uint8)


def tilted_homography(layout, size=(1280, 720)):
    """A plausible tilted view: the mat's corners land on a trapezoid inside the frame."""
    w, h = layout.width_mm, layout.height_mm
    table = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    image = np.float32([[250, 90], [1050, 60], [1180, 680], [120, 650]])
    return cv2.getPerspectiveTransform(table, image)


@pytest.mark.parametrize("seats, size", [(3, "A2"), (4, "A1"), (2, "A3")])
def test_homography_is_recovered_from_the_markers(seats, size):
    layout = MatLayout.standard(seats, size)
    h_true = tilted_homography(layout)
    cal = Calibration.from_markers(camera_view(layout, h_true), layout)
    assert cal.markers_found == (0, 1, 2, 3)
    corners = np.concatenate(list(layout.zones.values()))
    truth = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), h_true).reshape(-1, 2)
    assert np.abs(cal.table_to_image(corners) - truth).max() < 3.0  # pixels, at 1280x720
    back = cal.image_to_table(truth)
    assert np.abs(back - corners).max() < 3.0  # millimetres


def test_calibration_survives_one_hidden_marker():
    layout = MatLayout.standard(3, "A2")
    h_true = tilted_homography(layout)
    frame = camera_view(layout, h_true)
    corner = layout.marker_corners()[2][0].reshape(1, 1, 2)
    x1, y1 = cv2.perspectiveTransform(corner, h_true).ravel().astype(int)
    frame[y1 - 5:y1 + 80, x1 - 5:x1 + 80] = (30, 60, 200)  # a hand over the bottom-right marker
    cal = Calibration.from_markers(frame, layout)
    assert cal.markers_found == (0, 1, 3)


def test_no_markers_is_a_clear_error():
    layout = MatLayout.standard(3, "A2")
    with pytest.raises(CalibrationError, match="found 0 of the mat's 4 markers"):
        Calibration.from_markers(np.full((720, 1280, 3), 128, np.uint8), layout)


def test_zone_crop_is_rectified_at_fixed_scale_and_maps_back_to_the_table():
    layout = MatLayout.standard(3, "A2")
    h_true = tilted_homography(layout)
    cal = Calibration.from_markers(camera_view(layout, h_true), layout)
    view = cal.crop(camera_view(layout, h_true), "kitty", px_per_mm=2.0)
    (x1, y1), (x2, y2) = layout.zones["kitty"].min(axis=0), layout.zones["kitty"].max(axis=0)
    assert view.image.shape[:2] == (round((y2 - y1) * 2), round((x2 - x1) * 2))
    # the zone's printed outline runs along the crop's border: the border rows are dark-red ink
    edge = view.image[:4, 20:-20].astype(int)
    assert (edge[..., 2] - edge[..., 0]).mean() > 30
    np.testing.assert_allclose(view.to_table([[0, 0]]), [[x1, y1]])
    np.testing.assert_allclose(view.boxes_to_table([[0, 0, 20, 10]]), [[x1, y1, x1 + 10, y1 + 5]])
    assert cal.zone_of(view.to_table([[50, 50]])) == "kitty"
    assert cal.zone_of([layout.width_mm / 2, layout.height_mm / 2]) is None


def test_four_corners_by_hand_give_the_same_mapping():
    layout = MatLayout.standard(3, "A2")
    h_true = tilted_homography(layout)
    clicked = [[250, 90], [1050, 60], [1180, 680], [120, 650]]
    cal = Calibration.from_corners(clicked, layout, (1280, 720))
    pts = layout.zones["seat1"]
    truth = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), h_true).reshape(-1, 2)
    assert np.abs(cal.table_to_image(pts) - truth).max() < 1e-3
    with pytest.raises(CalibrationError, match="four"):
        Calibration.from_corners([[0, 0], [1, 1]], layout, (1280, 720))
    with pytest.raises(CalibrationError, match="no area"):
        Calibration.from_corners([[5, 5]] * 4, layout, (1280, 720))


def test_calibration_json_round_trip_and_bad_files(tmp_path):
    layout = MatLayout.standard(4, "A1")
    cal = Calibration.from_markers(camera_view(layout, tilted_homography(layout)), layout)
    path = tmp_path / "calibration.json"
    cal.save(path)
    again = Calibration.load(path)
    np.testing.assert_allclose(again.homography, cal.homography)
    assert again.image_size == (1280, 720) and again.layout.seats == 4
    assert {k: v.tolist() for k, v in again.zones.items()} == {k: v.tolist() for k, v in cal.zones.items()}
    data = json.loads(path.read_text())
    assert data["seats"] == ["seat0", "seat1", "seat2", "seat3"] and data["seat_order"] == "ccw"
    for bad, message in [("not json", "not JSON"), ("{}", "not a ddz-table/calibration"),
                         (json.dumps({**data, "homography": [[0] * 3] * 3}), "invertible"),
                         (json.dumps({**data, "zones": {"seat0": [[1, 2]]}}), "bad field"),
                         (json.dumps({**data, "version": 9}), "version")]:
        path.write_text(bad)
        with pytest.raises(CalibrationError, match=message):
            Calibration.load(path)
    with pytest.raises(CalibrationError, match="cannot read"):
        Calibration.load(tmp_path / "missing.json")


def test_camera_knocked_gives_a_new_calibration_only_when_it_moved():
    layout = MatLayout.standard(3, "A2")
    h_true = tilted_homography(layout)
    cal = Calibration.from_markers(camera_view(layout, h_true), layout)
    assert cal.moved(camera_view(layout, h_true, seed=1)) is None
    shifted = np.array([[1, 0, 25], [0, 1, 10], [0, 0, 1]]) @ h_true
    fresh = cal.moved(camera_view(layout, shifted))
    assert fresh is not None
    assert np.abs(fresh.table_to_image([[0, 0]]) - cal.table_to_image([[0, 0]]) - [25, 10]).max() < 2


def test_mat_png_records_its_print_resolution_and_pdf_has_the_paper_size(tmp_path):
    layout = MatLayout.standard(3, "A2")
    image = render_mat(layout, 40)
    assert set(find_markers(image)) == {0, 1, 2, 3}
    png = save_mat(image, tmp_path / "mat.png", layout, 40).read_bytes()
    assert b"pHYs" in png[:64]
    assert cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR).shape == image.shape
    pdf = save_mat(image, tmp_path / "mat.pdf", layout, 40).read_bytes()
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    assert b"/MediaBox [0 0 1683.78 1190.55]" in pdf  # A2 landscape in points
    assert pdf_of_image(image, 10, 10).count(b" obj") == 5
    with pytest.raises(ValueError, match=".png or .pdf"):
        save_mat(image, tmp_path / "mat.jpg", layout, 40)


@pytest.mark.parametrize("kw, message", [({"seats": 6}, "seats"), ({"size": "A0"}, "mat size"),
                                         ({"seats": 5, "pile": True}, "no centre pile")])
def test_bad_mat_options(kw, message):
    with pytest.raises(ValueError, match=message):
        MatLayout.standard(**kw)
    with pytest.raises(ValueError, match="dpi"):
        render_mat(MatLayout.standard(), dpi=5)


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("pile", [False, True])
def test_zones_never_overlap_each_other_or_the_markers(seats, pile):
    layout = MatLayout.standard(seats, "A2", pile=pile)
    boxes = {name: (*poly.min(axis=0), *poly.max(axis=0)) for name, poly in layout.zones.items()}
    boxes.update({f"marker{i}": (*c.min(axis=0), *c.max(axis=0)) for i, c in layout.marker_corners().items()})
    names = sorted(boxes)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            (ax1, ay1, ax2, ay2), (bx1, by1, bx2, by2) = boxes[a], boxes[b]
            assert ax2 <= bx1 or bx2 <= ax1 or ay2 <= by1 or by2 <= ay1, f"{a} overlaps {b}"
        assert 0 <= boxes[a][0] and boxes[a][2] <= layout.width_mm and boxes[a][3] <= layout.height_mm


@pytest.mark.parametrize("seats, size, pile", [(3, "A2", False), (4, "A3", True), (2, "A1", False)])
def test_label_box_is_where_the_mat_prints_each_zones_name(seats, size, pile):
    layout = MatLayout.standard(seats, size, pile=pile)
    ppm = 254 / MM_PER_INCH  # 10 px per mm
    image = render_mat(layout, 254).astype(np.int16)
    for zone, poly in layout.zones.items():
        x1, y1 = np.round(poly.min(axis=0) * ppm).astype(int)
        x2, y2 = np.round(poly.max(axis=0) * ppm).astype(int)
        inner = image[y1 + 30:y2 - 30, x1 + 30:x2 - 30]  # inside the zone's outline
        fill = inner[-1, -1]  # the tinted paper of the zone, far from its name
        ink = np.abs(inner - fill).sum(axis=2) > 60
        ys, xs = np.nonzero(ink)
        printed = np.array([xs.min() + x1 + 30, ys.min() + y1 + 30, xs.max() + x1 + 31, ys.max() + y1 + 31]) / ppm
        box = np.array(layout.label_box(zone))
        # the box holds the printed name (to half a millimetre) and is no more than 2 mm bigger
        assert (printed[:2] >= box[:2] - 0.5).all() and (printed[2:] <= box[2:] + 0.5).all(), (zone, printed, box)
        assert (printed[:2] - box[:2] <= 2).all() and (box[2:] - printed[2:] <= 2).all(), (zone, printed, box)


def test_the_five_seat_mat_has_five_zones_apart_and_the_two_top_seats_share_the_top_edge():
    layout = MatLayout.standard(5)
    seats = [f"seat{i}" for i in range(5)]
    assert set(layout.zones) == {*seats, "kitty"}
    boxes = [(z.min(axis=0), z.max(axis=0)) for z in layout.zones.values()]
    for i, (lo, hi) in enumerate(boxes):
        for lo2, hi2 in boxes[i + 1:]:
            assert (hi <= lo2).any() or (hi2 <= lo).any(), "zones overlap"
    assert layout.edge_seats() == {"bottom": 0, "right": 1, "top_right": 2, "top_left": 3, "left": 4}
    assert layout.zones["seat2"][:, 0].min() > layout.zones["seat3"][:, 0].max()  # counter-clockwise


def test_the_seat_a_direction_on_the_mat_points_to():
    three, four = MatLayout.standard(3), MatLayout.standard(4)
    assert [three.seat_towards(np.array(v)) for v in [(0, 1), (1, 0.3), (-1, -0.2)]] == [0, 1, 2]
    assert [four.seat_towards(np.array(v)) for v in [(0.2, 1), (1, 0), (0, -1), (-1, 0)]] == [0, 1, 2, 3]


def test_a_zone_is_read_beyond_its_edges_up_to_halfway_to_the_next():
    layout = MatLayout.standard(seats=4)
    cal = Calibration.from_corners([[0, 0], [594, 0], [594, 420], [0, 420]], layout, (594, 420))
    boxes = {n: (p.min(axis=0), p.max(axis=0)) for n, p in layout.zones.items()}
    (x1, y1), (x2, y2) = boxes["seat2"]
    left, top, right, bottom = cal.margins("seat2", 10.0)
    assert top == 10.0  # the mat's edge lies further
    assert bottom == pytest.approx((boxes["kitty"][0][1] - y2) / 2)  # halfway to the kitty
    assert left == pytest.approx((x1 - boxes["seat3"][1][0]) / 2) and right == pytest.approx(left)
    assert max(cal.margins("seat2", 2.0)) == 2.0
    view = cal.crop(np.zeros((420, 594, 3), np.uint8), "seat2", 2.0, (left, top, right, bottom))
    assert view.origin == pytest.approx((x1 - left, y1 - top))
    assert view.image.shape[1] == round((x2 - x1 + left + right) * 2.0)
