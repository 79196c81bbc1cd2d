"""What the vision package reads from disk by name: the image files a folder of photos holds.

A frame source reading a folder of images (:mod:`vision.sources.opencv`), a labelled photo folder
(:mod:`vision.labels`) and a reader's training crops (``sim.training.reader_net``) take the same files.
"""

from __future__ import annotations

#: Image file suffixes (lower case), the ones OpenCV reads on every platform the box runs on.
IMAGE_SUFFIXES: tuple[str, ...] = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
