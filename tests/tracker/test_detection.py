"""The tracker's detector is built in one place (``tracker.detection.build_detector``)."""

from __future__ import annotations

import pytest

from sim.toy import ToyDetector
from tracker.detection import build_detector
from vision.detector import CardDetector
from vision.settings import PHOTO, TRACKER


def test_the_shipped_models_run_with_the_trackers_settings(tmp_path):
    detector = build_detector("onnx", backend="onnx")
    assert isinstance(detector, CardDetector) and detector.settings == TRACKER
    assert build_detector("onnx", backend="onnx", settings=PHOTO).settings == PHOTO
    with pytest.raises(Exception, match="finder.onnx"):
        build_detector("onnx", backend="onnx", models=tmp_path)  # an empty models folder


def test_a_factory_is_named_module_colon_name():
    assert isinstance(build_detector("sim.toy:ToyDetector"), ToyDetector)
    for spec in ("toy", "sim.toy", ":ToyDetector"):
        with pytest.raises(ValueError, match="MODULE:FACTORY"):
            build_detector(spec)
    with pytest.raises(ValueError, match="cannot load detector"):
        build_detector("sim.toy:NoSuchDetector")


def test_the_tracker_package_does_not_import_the_lab():
    from pathlib import Path

    import tracker

    for path in Path(tracker.__file__).parent.glob("*.py"):
        lines = path.read_text(encoding="utf-8").splitlines()
        assert not [s for s in lines if s.strip().startswith(("from sim", "import sim"))], path
