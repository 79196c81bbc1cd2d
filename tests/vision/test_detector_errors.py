"""Bad model files, bad images and bad arguments give clear, typed errors."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from cli.main import main
from vision.backends import ModelFileError, load_backend
from vision.detector import CardDetector, ImageError, check_image, read_image


def test_a_missing_model_file_is_named_in_the_error(tmp_path):
    with pytest.raises(ModelFileError, match="model file not found: .*nope.onnx"):
        CardDetector(tmp_path / "nope.onnx", None)


def test_an_empty_or_corrupt_model_file_is_refused(tmp_path):
    empty = tmp_path / "empty.onnx"
    empty.write_bytes(b"")
    with pytest.raises(ModelFileError, match="empty"):
        load_backend(empty)
    corrupt = tmp_path / "corrupt.onnx"
    corrupt.write_bytes(b"\x08\x07garbage, not a protobuf" * 10)
    with pytest.raises(ModelFileError, match="cannot load ONNX model"):
        load_backend(corrupt)


def test_an_unknown_backend_is_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown backend"):
        load_backend(tmp_path / "x.onnx", "tensorrt")


def test_unreadable_images_raise_image_error(tmp_path):
    with pytest.raises(ImageError, match="image not found"):
        read_image(tmp_path / "missing.jpg")
    text = tmp_path / "notes.jpg"
    text.write_text("not a picture")
    with pytest.raises(ImageError, match="not a readable image"):
        read_image(text)
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    with pytest.raises(ImageError, match="not a readable image"):
        read_image(empty)


def test_images_of_the_wrong_shape_or_type_raise_image_error():
    with pytest.raises(ImageError, match="HxWx3"):
        check_image(np.zeros((4, 4, 3), np.uint8))  # too small to hold an index
    with pytest.raises(ImageError, match="HxWx3"):
        check_image(np.zeros((32, 32, 2), np.uint8))
    with pytest.raises(ImageError, match="uint8"):
        check_image(np.zeros((32, 32, 3), np.float32))
    with pytest.raises(ImageError, match="numpy image"):
        check_image("frame.jpg")
    assert check_image(np.zeros((32, 32), np.uint8)).shape == (32, 32, 3)  # grey is fine
    assert check_image(np.zeros((32, 32, 4), np.uint8)).shape == (32, 32, 3)  # alpha is dropped


def test_reading_a_written_image_round_trips(tmp_path):
    image = np.random.default_rng(0).integers(0, 255, (20, 30, 3), dtype=np.uint8)
    cv2.imwrite(str(tmp_path / "a.png"), image)
    np.testing.assert_array_equal(read_image(tmp_path / "a.png"), image)


def _with_exif_orientation(jpeg: bytes, orientation: int) -> bytes:
    """The JPEG with an APP1 Exif segment whose one tag is the orientation (big-endian TIFF)."""
    ifd = (b"\x00\x01" + b"\x01\x12" + b"\x00\x03" + b"\x00\x00\x00\x01"
           + orientation.to_bytes(2, "big") + b"\x00\x00" + b"\x00\x00\x00\x00")
    body = b"Exif\x00\x00" + b"MM\x00\x2a\x00\x00\x00\x08" + ifd
    return jpeg[:2] + b"\xff\xe1" + (len(body) + 2).to_bytes(2, "big") + body + jpeg[2:]


def test_a_phone_photo_is_read_the_way_up_it_is_shown(tmp_path):
    # Phones store the sensor's pixels and an Exif orientation tag; boxes and the reported
    # width and height must be those of the picture as shown (6: turn 90 degrees clockwise).
    stored = np.zeros((40, 80, 3), np.uint8)
    stored[:, :20] = 255  # a white band down the stored picture's left side
    ok, jpeg = cv2.imencode(".jpg", stored)
    assert ok
    (tmp_path / "phone.jpg").write_bytes(_with_exif_orientation(jpeg.tobytes(), 6))
    shown = read_image(tmp_path / "phone.jpg")
    assert shown.shape == (80, 40, 3)
    assert shown[:15].mean() > 200 and shown[25:].mean() < 50  # the band is now along the top


def test_cli_reports_a_missing_model_without_a_traceback(tmp_path, capsys):
    code = main(["detect", "x.jpg", "--finder", str(tmp_path / "none.onnx"), "--reader", str(tmp_path / "r.onnx")])
    assert code == 2
    assert "model file not found" in capsys.readouterr().err


def test_cli_refuses_a_threshold_outside_zero_to_one(capsys):
    assert main(["detect", "x.jpg", "--conf", "1.5"]) == 2
    assert "--conf" in capsys.readouterr().err



def test_a_number_of_turns_the_reader_cannot_average_is_refused(capsys):
    with pytest.raises(ValueError, match="turns must be one of 1, 2, 4"):
        CardDetector(turns=3)
    with pytest.raises(ValueError, match="sure must be in"):
        CardDetector(sure=0.0)
    with pytest.raises(SystemExit) as exit_:
        main(["detect", "x.png", "--turns", "3"])
    assert exit_.value.code == 2 and "--turns" in capsys.readouterr().err
