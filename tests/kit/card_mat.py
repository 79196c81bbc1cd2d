"""Cards of a rendered deck laid on the printed mat, seen square on: the second look's tests.

``laid(cards)`` draws the mat (``tracker.mat.render_mat``) at ``PX_PER_MM`` and lays each card
face up at a place and angle, then softens the picture as a camera does (a little blur, a cream
cast, JPEG); ``calibration()`` is the mat seen that way, for a ``TableReader``.
"""

from __future__ import annotations

import cv2
import numpy as np

from sim.synth.decks import load_deck
from tracker.mat import render_mat
from tracker.zones import Calibration, MatLayout
from vision.joker_look import CARD_WIDTH_MM

#: The zone crops' scale (``tracker.zones.CROP_PX_PER_MM``): the mat is drawn at it, so a crop is
#: the drawing itself.
PX_PER_MM = 2.5
LAYOUT = MatLayout.standard(seats=3)


def calibration() -> Calibration:
    w, h = LAYOUT.width_mm * PX_PER_MM, LAYOUT.height_mm * PX_PER_MM
    return Calibration.from_corners([[0, 0], [w, 0], [w, h], [0, h]], LAYOUT, (round(w), round(h)))


def zone_centre(zone: str) -> tuple[float, float]:
    """The middle of a zone of :data:`LAYOUT`, in mm."""
    x, y = LAYOUT.zones[zone].mean(axis=0)
    return float(x), float(y)


def _placing(face: np.ndarray, centre_mm: tuple[float, float], angle: float) -> np.ndarray:
    """The 2x3 map from a face's pixels to the mat drawing's, for a card at ``centre_mm`` turned
    ``angle`` degrees (counter-clockwise on screen)."""
    scale = CARD_WIDTH_MM * PX_PER_MM / face.shape[1]
    centre = (face.shape[1] / 2, face.shape[0] / 2)
    m = cv2.getRotationMatrix2D(centre, angle, scale)
    m[:, 2] += np.array(centre_mm) * PX_PER_MM - np.array(centre)
    return m


def outline_mm(card: str, centre_mm: tuple[float, float], angle: float, deck: str = "orell") -> np.ndarray:
    """The four corners (mm on the mat) of a card laid as :func:`laid` lays it."""
    face = load_deck(deck).faces[card]
    h, w = face.shape[:2]
    m = _placing(face, centre_mm, angle)
    corners = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], np.float64)
    return (corners @ m.T) / PX_PER_MM


def laid(cards: list[tuple[str, tuple[float, float], float]], deck: str = "orell", seed: int = 0) -> np.ndarray:
    """The mat with ``cards`` laid on it: ``(card, centre in mm, angle in degrees)``, later ones
    on top; a BGR image at :data:`PX_PER_MM`."""
    image: np.ndarray = render_mat(LAYOUT, dpi=round(PX_PER_MM * 25.4)).astype(np.float32)
    faces = load_deck(deck).faces
    for card, (x, y), angle in cards:
        face = faces[card]
        m = _placing(face, (x, y), angle)
        size = (image.shape[1], image.shape[0])
        art = cv2.warpAffine(face, m, size, flags=cv2.INTER_AREA, borderValue=(0, 0, 0, 0)).astype(np.float32)
        alpha = art[..., 3:] / 255.0
        image = art[..., :3] * alpha + image * (1 - alpha)
    image *= np.array([0.86, 0.95, 0.98], np.float32)  # a warm lamp on white paper
    image = cv2.GaussianBlur(image, (0, 0), 0.8)
    noise = np.random.default_rng(seed).normal(0, 3, image.shape)
    ok, jpeg = cv2.imencode(".jpg", np.clip(image + noise, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 80])
    assert ok
    out = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
    assert out is not None
    return np.asarray(out)
