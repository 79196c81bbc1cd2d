"""The card detector the tracker runs, built in one place.

``build_detector("onnx")`` is the shipped two-stage ONNX models (or those in a ``models``
folder) with the tracker's thresholds (:data:`vision.settings.TRACKER`); ``MODULE:FACTORY``
is any object with ``detect(image) -> Detections`` that ``FACTORY()`` returns (the lab's toy
reader is ``sim.toy:ToyDetector``). A deck profile (``profile``, :mod:`vision.profile`) goes to the
ONNX detector.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any

from vision.settings import TRACKER, DetectorSettings


def build_detector(spec: str = "onnx", backend: str = "auto", models: str | os.PathLike | None = None,
                   settings: DetectorSettings = TRACKER, profile: Any = None) -> Any:
    """The tracker's card detector: ``onnx`` (``models``: a folder holding ``finder.onnx`` and
    ``reader.onnx``, else the shipped ones; ``backend`` and ``settings`` as
    :class:`vision.detector.CardDetector` takes them) or ``MODULE:FACTORY`` (called with no
    arguments). ``profile``: a :class:`vision.profile.DeckProfile` the ONNX detector reads with.
    A spec that is neither, a factory that cannot be imported, or a profile for any other
    detector, is a ValueError."""
    if spec == "onnx":
        from vision.detector import DEFAULT_FINDER, DEFAULT_READER, CardDetector

        finder, reader = (Path(models) / "finder.onnx", Path(models) / "reader.onnx") if models else \
            (DEFAULT_FINDER, DEFAULT_READER)
        return CardDetector(finder, reader, backend=backend, settings=settings, profile=profile)
    if profile is not None:
        raise ValueError(f"a deck profile works only with the 'onnx' detector, not {spec!r}")
    module, _, name = spec.partition(":")
    if not module or not name:
        raise ValueError(f"a detector is 'onnx' or MODULE:FACTORY, not {spec!r}")
    try:
        factory = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"cannot load detector {spec}: {exc}") from None
    return factory()
