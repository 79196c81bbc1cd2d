"""The shipped detector weights, installed with the program.

``finder.onnx`` and ``reader.onnx`` (ONNX Runtime and OpenVINO) and their NCNN conversions in
``*_ncnn_model/``; ``reader.pt``, the reader's checkpoint, which enrollment fine-tunes a copy of
(``sim.training.deck_reader``); the finder's ``.pt`` stays in the source tree for training. ``README.md`` is
the model card, ``docs/training-log.md`` the log of the training runs.
"""

from pathlib import Path

MODELS_DIR = Path(__file__).resolve().parent
