"""Camera geometry: view size, pixels per millimetre, index height, mode choice and the guide's table."""

from __future__ import annotations

import math

import pytest

from vision import camera_geometry as geo


def test_view_follows_the_field_of_view():
    view = geo.coverage("module3", 1000, (2304, 1296))
    assert view.view_w_mm == pytest.approx(2000 * math.tan(math.radians(33)))  # 1298.8 mm
    assert view.view_h_mm == pytest.approx(2000 * math.tan(math.radians(20.5)))
    # The lower of the two axes' densities: 1296 px over 747.8 mm is less than 2304 over 1298.8.
    assert view.px_per_mm == pytest.approx(min(2304 / view.view_w_mm, 1296 / view.view_h_mm))
    assert view.index_px == pytest.approx(12 * view.px_per_mm)


def test_twice_as_high_halves_the_pixels_per_mm():
    low, high = geo.coverage("module3", 700, (4608, 2592)), geo.coverage("module3", 1400, (4608, 2592))
    assert high.px_per_mm == pytest.approx(low.px_per_mm / 2)
    assert high.view_w_mm == pytest.approx(2 * low.view_w_mm)


def test_cropped_fast_mode_sees_less_at_the_same_density():
    crop, full = geo.coverage("module3", 1000, (1536, 864)), geo.coverage("module3", 1000, (2304, 1296))
    assert crop.view_w_mm == pytest.approx(full.view_w_mm * 2 / 3)
    assert crop.px_per_mm == pytest.approx(full.px_per_mm)


def test_wide_lens_sees_more_with_fewer_pixels_per_mm():
    normal, wide = geo.coverage("module3", 1000, (4608, 2592)), geo.coverage("module3_wide", 1000, (4608, 2592))
    assert wide.view_w_mm > 1.8 * normal.view_w_mm and wide.index_px < normal.index_px


def test_mat_fit_and_lowest_mount():
    low = geo.min_mount_mm("module3", "A2")
    assert not geo.coverage("module3", low - 5, (2304, 1296)).fits("A2")
    assert geo.coverage("module3", low + 5, (2304, 1296)).fits("A2")
    assert geo.min_mount_mm("module3", "A1") > low > geo.min_mount_mm("module3_wide", "A2")


def test_choose_mode_takes_the_smallest_that_is_enough():
    assert geo.choose_mode("module3", 600) == (1536, 864)
    assert geo.choose_mode("module3", 700, mat="A2") == (2304, 1296)  # the crop is too narrow for the mat
    assert geo.choose_mode("module3", 600, mat="A2") == (1536, 864)  # no mode holds it: density decides
    assert geo.choose_mode("module3", 1000) == (1536, 864)
    assert geo.choose_mode("module3", 1000, mat="A1") == (2304, 1296)
    assert geo.choose_mode("module3", 1500) == (4608, 2592)
    assert geo.choose_mode("module3_wide", 3000) == (4608, 2592)  # nothing is enough: the closest


def test_lens_from_libcamera_model():
    assert geo.lens_for_model("imx708").name == "module3"
    assert geo.lens_for_model("imx708_wide_noir").name == "module3_wide"
    assert geo.lens_for_model("imx477") is None and geo.lens_for_model(None) is None


def test_table_lists_every_height_and_marks_small_indices(capsys):
    assert geo.main(["--heights", "60", "150", "--cameras", "module3_wide"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| Camera")]
    assert len(rows) == 2
    # 150 cm with the Wide lens at 2304x1296: 1.24 px/mm at most, a 12 mm index about 7 px.
    cells = [c.strip() for c in rows[1].split("|")[1:-1]]
    assert cells[:2] == ["Camera Module 3 Wide", "150"] and cells[-2] == "7 *"
    assert "A2 from 35 cm" in out


def test_bad_input_is_a_clear_error():
    with pytest.raises(geo.GeometryError, match="positive"):
        geo.coverage("module3", 0, (2304, 1296))
    with pytest.raises(geo.GeometryError, match="unknown camera"):
        geo.coverage("hq", 1000, (2304, 1296))
    with pytest.raises(geo.GeometryError, match="width, height"):
        geo.coverage("module3", 1000, (2304,))
    with pytest.raises(geo.GeometryError, match="unknown mat"):
        geo.min_mount_mm("module3", "A0")
    with pytest.raises(SystemExit):
        geo.main(["--modes", "big"])
