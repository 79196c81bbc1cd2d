"""A toy table's hand filmed as the CLI reads it: an MJPG video at 10 frames a second."""

from __future__ import annotations

from pathlib import Path

import cv2


def film_hand(table, hand, path: Path) -> list:
    """Film ``hand`` played on ``table`` (a :class:`sim.toy_table.ToyTable`) to ``path``; the
    frames written, in order."""
    images = [image for image, _ in table.play_hand(hand)]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, table.size)
    writer.set(cv2.VIDEOWRITER_PROP_QUALITY, 95)
    for image in images:
        writer.write(image)
    writer.release()
    return images
