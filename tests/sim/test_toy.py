"""The toy deck: every card's code is distinct and is read back under a lamp's fall-off, a
colour cast, noise and JPEG; the mat's printing and unknown colours are not read at all."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from cli import table as cli
from sim.toy import CODES, LEVELS, PAPER, ToyDetector, code_colour, toy_face
from tracker.mat import MM_PER_INCH, render_mat
from tracker.zones import CROP_PX_PER_MM, MatLayout
from vision.cards import CARD_IDS

PPM = CROP_PX_PER_MM


def table_with_cards(cards: list[str], rng: np.random.Generator) -> np.ndarray:
    """A zone crop: pale mat, toy cards side by side (scaled to the crop's px per mm)."""
    per_row = 6
    rows = -(-len(cards) // per_row)
    w, h = int(per_row * 70 * PPM), int(rows * 95 * PPM)
    img = np.full((h, w, 3), (238, 232, 226), np.uint8)
    size = (int(63 * PPM), int(63 * PPM * 88 / 63))
    for i, card in enumerate(cards):
        face = toy_face(card, size)
        r, c = divmod(i, per_row)
        x, y = int((c * 70 + 3) * PPM), int((r * 95 + 3) * PPM)
        alpha = face[..., 3:4] / 255.0
        roi = img[y:y + size[1], x:x + size[0]]
        roi[:] = (roi * (1 - alpha) + face[..., :3] * alpha).astype(np.uint8)
    return img


def camera(img: np.ndarray, rng: np.random.Generator, gain: float, cast: tuple[float, float, float]) -> np.ndarray:
    h, w = img.shape[:2]
    ramp = np.linspace(0.8, 1.1, w, dtype=np.float32)[None, :, None]  # a lamp off to one side
    out = img.astype(np.float32) * ramp * gain * np.array(cast, np.float32)
    out += rng.normal(0, 4, out.shape).astype(np.float32)
    ok, buf = cv2.imencode(".jpg", np.clip(out, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 75])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    assert decoded is not None
    return decoded


def read(image: np.ndarray) -> list[str]:
    dets = ToyDetector().detect(image)
    return sorted(CARD_IDS[i] for i in dets.class_ids)


def test_every_card_has_its_own_clearly_coloured_code():
    colours = {code_colour(c) for c in CARD_IDS}
    assert len(colours) == len(CARD_IDS) == len(CODES)
    for code in CODES:  # two channels at least two levels apart: never a grey
        assert max(code) - min(code) >= 2 and all(0 <= v < len(LEVELS) for v in code)


@pytest.mark.parametrize("gain, cast", [(1.0, (1.0, 1.0, 1.0)), (0.7, (1.1, 1.0, 0.85)), (0.85, (0.85, 1.05, 1.15))])
def test_the_whole_deck_is_read_under_light_cast_noise_and_jpeg(gain, cast):
    rng = np.random.default_rng(3)
    image = camera(table_with_cards(list(CARD_IDS), rng), rng, gain, cast)
    # each card shows two code patches (opposite corners): both read, as the same card
    assert read(image) == sorted(list(CARD_IDS) * 2)


def test_the_mat_printing_is_not_read_as_cards():
    layout = MatLayout.standard(3, "A2")
    dpi = round(PPM * MM_PER_INCH)
    mat = render_mat(layout, dpi)
    assert read(mat) == []


def test_a_colour_between_levels_or_outside_the_code_is_not_read():
    img = np.full((200, 300, 3), PAPER, np.uint8)
    x, y, w, h = 40, 40, int(13 * PPM), int(20 * PPM)
    between = tuple(int(255 * v) for v in (0.2, 0.6, 0.9))  # blue and green half-way between levels
    cv2.rectangle(img, (x, y), (x + w, y + h), between, -1)
    grey = (130, 130, 130)  # no spread: not a code patch at all
    cv2.rectangle(img, (x + 150, y), (x + 150 + w, y + h), grey, -1)
    assert read(img) == []
    cv2.rectangle(img, (x, y), (x + w, y + h), code_colour("Qs"), -1)
    assert read(img) == ["Qs"]


def test_run_loads_the_toy_reader_by_name():
    assert isinstance(cli.load_detector("toy"), ToyDetector)
    with pytest.raises(ValueError, match="'toy'"):
        cli.load_detector("no-such-detector")
