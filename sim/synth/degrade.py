"""Named camera degradations, one at a time, for measuring the detector and (later) training it.

Each degradation is a function ``(image, rng, strength) -> image``: ``strength`` runs from 0
(the mildest a real camera gives) to 1 (the worst one still worth reading), and ``rng`` (a
``numpy.random.Generator``) draws everything random, so the same seed gives byte-identical
output. Images are BGR (``H x W x 3``) or grey (``H x W`` or ``H x W x 1``), uint8 or float
(0-255); the result keeps the shape and dtype. Unlike :mod:`sim.synth.effects` (a random chain
applied while rendering), each degradation here is switched on by name with a set strength, so
a benchmark can score the detector against each one on its own:

>>> import numpy as np
>>> image = np.full((32, 32, 3), 128, np.uint8)
>>> out = apply(image, "jpeg", np.random.default_rng(0), 0.5)
>>> out.shape, out.dtype
((32, 32, 3), dtype('uint8'))
>>> sorted(DEGRADATIONS)[:3]
['defocus', 'downscale', 'exposure']
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

Degradation = Callable[[np.ndarray, np.random.Generator, float], np.ndarray]


def _working(image: np.ndarray) -> np.ndarray:
    """The image as float32 ``H x W x C`` (C = 1 or 3), values 0-255."""
    out = np.asarray(image, np.float32)
    return out[..., None] if out.ndim == 2 else out


def _restore(out: np.ndarray, like: np.ndarray) -> np.ndarray:
    """``out`` (float, ``H x W x C``) clipped to 0-255 and given the shape and dtype of ``like``."""
    out = np.clip(out, 0, 255).reshape(like.shape)
    if np.issubdtype(like.dtype, np.integer):
        out = np.rint(out)
    return out.astype(like.dtype)


def _filter(img: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """``img`` (``H x W x C``) convolved with ``kernel``, edges replicated (OpenCV drops a
    single channel's axis, so it is put back)."""
    out = cv2.filter2D(img, -1, kernel.astype(np.float32), borderType=cv2.BORDER_REPLICATE)
    return out.reshape(img.shape)


def _disc(radius: float) -> np.ndarray:
    """A lens's out-of-focus spot: a flat disc of ``radius`` px, its rim anti-aliased."""
    r = int(np.ceil(radius))
    yy, xx = np.mgrid[-r:r + 1, -r:r + 1].astype(np.float32)
    kernel = np.clip(radius + 0.5 - np.hypot(xx, yy), 0, 1)
    return kernel / kernel.sum()


def defocus(image: np.ndarray, rng: np.random.Generator, strength: float = 0.5) -> np.ndarray:
    """The camera focused above or below the table: a disc blur of 0.5-2 px radius."""
    img = _working(image)
    radius = (0.5 + 1.5 * strength) * rng.uniform(0.85, 1.15)
    return _restore(_filter(img, _disc(radius)), image)


def motion_blur(image: np.ndarray, rng: np.random.Generator, strength: float = 0.5) -> np.ndarray:
    """The camera or the table shaken during the exposure: a streak of 1.5-7 px at any angle."""
    img = _working(image)
    length = (1.5 + 5.5 * strength) * rng.uniform(0.85, 1.15)
    angle = rng.uniform(0, np.pi)
    size = int(np.ceil(length)) | 1
    kernel = np.zeros((size, size), np.float32)
    centre = size // 2
    # Points along the streak, splatted bilinearly so that short streaks at any angle stay smooth.
    for t in np.linspace(-length / 2, length / 2, max(2, int(4 * length))):
        x, y = centre + t * np.cos(angle), centre + t * np.sin(angle)
        x0, y0 = int(np.floor(x)), int(np.floor(y))
        fx, fy = x - x0, y - y0
        for dx, dy, w in ((0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)), (0, 1, (1 - fx) * fy), (1, 1, fx * fy)):
            if 0 <= x0 + dx < size and 0 <= y0 + dy < size:
                kernel[y0 + dy, x0 + dx] += w
    return _restore(_filter(img, kernel / kernel.sum()), image)


def downscale(image: np.ndarray, rng: np.random.Generator, strength: float = 0.5) -> np.ndarray:
    """A sensor read out binned (a 5 MP sensor giving 720p is about 2x) and the frame enlarged
    back: shrunk 1.5-3 times (area average), then enlarged by bilinear interpolation."""
    img = _working(image)
    h, w = img.shape[:2]
    factor = (1.5 + 1.5 * strength) * rng.uniform(0.9, 1.1)
    small = cv2.resize(img, (max(1, round(w / factor)), max(1, round(h / factor))), interpolation=cv2.INTER_AREA)
    out = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    return _restore(out.reshape(img.shape), image)


def unsharp(image: np.ndarray, rng: np.random.Generator, strength: float = 0.5) -> np.ndarray:
    """The sharpening of webcams and phone pipelines: an unsharp mask, which rings bright and
    dark halos along every edge (amount 0.5-2.5, radius 1-2.5 px)."""
    img = _working(image)
    sigma = (1.0 + 1.5 * strength) * rng.uniform(0.85, 1.15)
    amount = (0.5 + 2.0 * strength) * rng.uniform(0.85, 1.15)
    soft = cv2.GaussianBlur(img, (0, 0), sigma, borderType=cv2.BORDER_REPLICATE).reshape(img.shape)
    return _restore(img + amount * (img - soft), image)


def subsample_chroma(image: np.ndarray) -> np.ndarray:
    """4:2:0 by hand: chroma (YCrCb) averaged over 2x2 blocks and spread back, luma kept
    (for an OpenCV without ``IMWRITE_JPEG_SAMPLING_FACTOR``). ``image``: uint8 BGR."""
    h, w = image.shape[:2]
    ycc = cv2.cvtColor(image, cv2.COLOR_BGR2YCrCb).astype(np.float32)
    chroma = ycc[..., 1:]
    padded = np.pad(chroma, ((0, h % 2), (0, w % 2), (0, 0)), mode="edge")
    blocks = padded.reshape(padded.shape[0] // 2, 2, padded.shape[1] // 2, 2, 2).mean(axis=(1, 3))
    ycc[..., 1:] = cv2.resize(blocks, (w, h), interpolation=cv2.INTER_LINEAR).reshape(h, w, 2)
    return cv2.cvtColor(np.clip(np.rint(ycc), 0, 255).astype(np.uint8), cv2.COLOR_YCrCb2BGR)


def encode_jpeg(image: np.ndarray, quality: int) -> np.ndarray:
    """``image`` (uint8, grey or BGR) through a JPEG of ``quality`` with 4:2:0 chroma, decoded."""
    params = [cv2.IMWRITE_JPEG_QUALITY, int(quality)]
    colour = image.ndim == 3 and image.shape[2] == 3
    if colour:
        if hasattr(cv2, "IMWRITE_JPEG_SAMPLING_FACTOR"):
            params += [cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_420]
        else:
            image = subsample_chroma(image)
    ok, buf = cv2.imencode(".jpg", image, params)
    if not ok:
        raise ValueError(f"OpenCV could not encode a {image.shape} image as JPEG")
    out = cv2.imdecode(buf, cv2.IMREAD_COLOR if colour else cv2.IMREAD_GRAYSCALE)
    if out is None:
        raise ValueError(f"OpenCV could not decode the JPEG of a {image.shape} image")
    return out.reshape(image.shape)


def jpeg(image: np.ndarray, rng: np.random.Generator, strength: float = 0.5) -> np.ndarray:
    """A camera's or a messenger's JPEG: quality 85 down to 50, chroma at half resolution each
    way (4:2:0), as nearly every camera and phone writes it."""
    img = _working(image)
    quality = int(round(np.clip(85 - 35 * strength + rng.uniform(-3, 3), 50, 85)))
    plane = np.clip(np.rint(img), 0, 255).astype(np.uint8)
    return _restore(encode_jpeg(plane if plane.shape[2] == 3 else plane[..., 0], quality).astype(np.float32)
                    .reshape(img.shape), image)


def low_light(image: np.ndarray, rng: np.random.Generator, strength: float = 0.5) -> np.ndarray:
    """A dim room: the sensor catches 2-16 times less light than the picture shows, so photon
    (shot) noise and the sensor's read noise grow against the signal; the gain that brings the
    picture back up amplifies both. A white pixel collects about 800 electrons at full light."""
    img = _working(image)
    darker = 2.0 ** ((1.0 + 3.0 * strength) * rng.uniform(0.9, 1.1))
    full_well = 800.0 / darker
    electrons = rng.poisson(img / 255.0 * full_well).astype(np.float32)
    read = rng.normal(0.0, 1.5 + 1.5 * strength, img.shape).astype(np.float32)
    return _restore((electrons + read) / full_well * 255.0, image)


def exposure(image: np.ndarray, rng: np.random.Generator, strength: float = 0.5) -> np.ndarray:
    """Auto-exposure fooled (a dark cloth, a bright lamp): 0.3-1.5 stops over or under, applied
    to linear light (gamma 2.2) and clipped, so highlights burn out or shadows close up."""
    img = _working(image)
    stops = (0.3 + 1.2 * strength) * rng.uniform(0.9, 1.1) * (1 if rng.random() < 0.5 else -1)
    linear = (img / 255.0) ** 2.2 * 2.0 ** stops
    return _restore(np.clip(linear, 0, 1) ** (1 / 2.2) * 255.0, image)


def white_balance(image: np.ndarray, rng: np.random.Generator, strength: float = 0.5) -> np.ndarray:
    """White balance set for the wrong light: warm (tungsten) or cool (shade) by 8-33%, and a
    green or magenta tint by up to half that. A grey image has no colour to shift: it comes
    back unchanged."""
    img = _working(image)
    if img.shape[2] != 3:
        return _restore(img, image)
    shift = (0.08 + 0.25 * strength) * rng.uniform(0.85, 1.15) * (1 if rng.random() < 0.5 else -1)
    tint = (0.5 * (0.08 + 0.25 * strength)) * rng.uniform(-1, 1)
    gains = np.array([1 - shift, 1 + tint, 1 + shift], np.float32)  # B, G, R
    return _restore(img * gains / gains.mean(), image)


def glare(image: np.ndarray, rng: np.random.Generator, strength: float = 0.5) -> np.ndarray:
    """A lamp's reflection on glossy cards: a soft elliptical blob, 10-30% of the frame across,
    washing out towards white (a screen blend, so dark glyphs under it lose contrast)."""
    img = _working(image)
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = rng.uniform(0.15, 0.85) * w, rng.uniform(0.15, 0.85) * h
    size = (0.1 + 0.2 * strength) * max(h, w)
    sx, sy = size * rng.uniform(0.6, 1.4), size * rng.uniform(0.6, 1.4)
    a = rng.uniform(0, np.pi)
    u = (xx - cx) * np.cos(a) + (yy - cy) * np.sin(a)
    v = -(xx - cx) * np.sin(a) + (yy - cy) * np.cos(a)
    peak = min(1.0, (0.55 + 0.45 * strength) * rng.uniform(0.9, 1.1))
    spot = (peak * np.exp(-0.5 * ((u / sx) ** 2 + (v / sy) ** 2)))[..., None]
    return _restore(255.0 - (255.0 - img) * (1.0 - spot), image)


#: Every degradation by name, in the order a camera applies them when chained.
DEGRADATIONS: dict[str, Degradation] = {
    "glare": glare,
    "exposure": exposure,
    "defocus": defocus,
    "motion_blur": motion_blur,
    "low_light": low_light,
    "downscale": downscale,
    "white_balance": white_balance,
    "unsharp": unsharp,
    "jpeg": jpeg,
}


def check_image(image) -> np.ndarray:
    """``image`` as an array a degradation takes, or a ValueError saying what is wrong."""
    if not isinstance(image, np.ndarray):
        raise ValueError(f"image must be a numpy array, got {type(image).__name__}")
    if image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (1, 3)) or image.size == 0:
        raise ValueError(f"image must be H x W grey or H x W x 1 or 3 (BGR), not empty; got shape {image.shape}")
    if not (np.issubdtype(image.dtype, np.integer) or np.issubdtype(image.dtype, np.floating)):
        raise ValueError(f"image must hold numbers, got {image.dtype}")
    return image


def apply(image: np.ndarray, name: str, rng: np.random.Generator, strength: float = 0.5) -> np.ndarray:
    """``image`` through the degradation ``name`` at ``strength`` (0-1); ``"none"`` returns a copy."""
    image = check_image(image)
    if not 0.0 <= float(strength) <= 1.0:
        raise ValueError(f"strength must be between 0 and 1, got {strength}")
    if name == "none":
        return image.copy()
    if name not in DEGRADATIONS:
        raise ValueError(f"unknown degradation {name!r}; known: none, {', '.join(DEGRADATIONS)}")
    return DEGRADATIONS[name](image, rng, float(strength))


def random_chain(rng: np.random.Generator, p: float = 0.4, max_strength: float = 1.0) -> list[tuple[str, float]]:
    """A random camera for training: each degradation on with chance ``p``, at a strength drawn
    uniformly up to ``max_strength``, in the order a camera applies them (:data:`DEGRADATIONS`);
    one of the two blurs at most. Returns ``[(name, strength)]``, for :func:`apply_chain`."""
    chain: list[tuple[str, float]] = []
    for name in DEGRADATIONS:
        on = rng.random() < p
        strength = float(rng.uniform(0, max_strength))
        if on and not (name == "motion_blur" and any(n == "defocus" for n, _ in chain)):
            chain.append((name, strength))
    return chain


def apply_chain(image: np.ndarray, chain: list[tuple[str, float]], rng: np.random.Generator) -> np.ndarray:
    """``image`` through each ``(name, strength)`` of ``chain`` in turn."""
    for name, strength in chain:
        image = apply(image, name, rng, strength)
    return image
