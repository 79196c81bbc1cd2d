"""What a cheap camera above a card table does to the picture.

Lighting gradients, soft shadows, glare, colour casts, defocus and motion blur, sensor
noise and JPEG artefacts. Each effect takes the image as float32 BGR and a Generator.
"""

from __future__ import annotations

import cv2
import numpy as np

from sim.synth.textures import smooth_noise


def lighting(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """A lamp off to one side: a linear or radial brightness gradient, plus vignetting."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if rng.random() < 0.5:
        a = rng.uniform(0, 2 * np.pi)
        t = ((xx - w / 2) * np.cos(a) + (yy - h / 2) * np.sin(a)) / max(h, w)
        gain = 1 + rng.uniform(0.1, 0.8) * t
    else:
        cx, cy = rng.uniform(-0.2, 1.2) * w, rng.uniform(-0.2, 1.2) * h
        d = np.hypot(xx - cx, yy - cy) / max(h, w)
        gain = 1.2 - rng.uniform(0.2, 0.7) * d
    gain *= rng.uniform(0.55, 1.25)
    if rng.random() < 0.5:
        d = np.hypot(xx - w / 2, yy - h / 2) / np.hypot(w / 2, h / 2)
        gain *= 1 - rng.uniform(0.1, 0.4) * d**2
    return img * gain[..., None]


def shadows(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Soft shadows of things outside the frame (a head, an arm, a lamp arm)."""
    h, w = img.shape[:2]
    blob = smooth_noise(rng, h, w, rng.uniform(60, 200))
    mask: np.ndarray = np.clip((blob - rng.uniform(0.3, 1.2)) * 2, 0, 1)
    mask = cv2.GaussianBlur(mask, (0, 0), rng.uniform(3, 15))
    return img * (1 - rng.uniform(0.2, 0.55) * mask)[..., None]


def glare(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """A specular patch from an overhead light on glossy cards."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    sx, sy = rng.uniform(0.03, 0.25) * w, rng.uniform(0.03, 0.25) * h
    a = rng.uniform(0, np.pi)
    u = (xx - cx) * np.cos(a) + (yy - cy) * np.sin(a)
    v = -(xx - cx) * np.sin(a) + (yy - cy) * np.cos(a)
    spot = np.exp(-0.5 * ((u / sx) ** 2 + (v / sy) ** 2))
    return img + rng.uniform(40, 170) * spot[..., None]


def colour_cast(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """White balance off: warm bulbs, cool daylight, a green-ish fluorescent tube."""
    gains = np.clip(rng.normal(1.0, 0.1, 3), 0.7, 1.3).astype(np.float32)
    if rng.random() < 0.5:  # tungsten: more red, less blue
        k = rng.uniform(0, 0.25)
        gains *= np.array([1 - k, 1, 1 + k * 0.8], np.float32)
    out = img * gains
    if rng.random() < 0.3:  # washed-out or punchy colour
        grey = out.mean(axis=2, keepdims=True)
        out = grey + (out - grey) * rng.uniform(0.5, 1.4)
    return out


def defocus(rng: np.random.Generator, img: np.ndarray, index_px: float = 30.0) -> np.ndarray:
    # Blur is capped by the index size: a 12 px index blurred by 1.6 px is unreadable to
    # anyone, and a label nobody can read only teaches the model to guess.
    return cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, min(1.6, 0.3 + 0.04 * index_px)))


def motion_blur(rng: np.random.Generator, img: np.ndarray, index_px: float = 30.0) -> np.ndarray:
    length = int(rng.integers(3, max(4, min(8, int(0.2 * index_px)))))
    kernel: np.ndarray = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1
    rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
    kernel = cv2.warpAffine(kernel, rot, (length, length))
    return cv2.filter2D(img, -1, kernel / max(kernel.sum(), 1e-6))


def sharpen(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Phone cameras sharpen: an unsharp mask leaves halos along the card edges and glyphs."""
    soft = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.8, 2.0))
    return img + rng.uniform(0.3, 1.2) * (img - soft)


def low_resolution(rng: np.random.Generator, img: np.ndarray, index_px: float = 30.0) -> np.ndarray:
    """A small sensor scaled up: detail lost, then interpolated back."""
    h, w = img.shape[:2]
    f = rng.uniform(1.2, max(1.3, min(2.2, index_px / 12)))
    small = cv2.resize(img, (max(8, int(w / f)), max(8, int(h / f))), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def sensor_noise(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Shot noise grows with brightness; read noise is flat; colour noise in dim scenes."""
    sigma_read = rng.uniform(1, 8)
    shot = rng.uniform(0, 0.6)
    std = np.sqrt(sigma_read**2 + shot * np.clip(img, 0, 255))
    noise = rng.standard_normal(img.shape).astype(np.float32) * std
    if rng.random() < 0.5:  # luminance-correlated noise, as after demosaicing
        noise = 0.6 * noise + 0.4 * noise.mean(axis=2, keepdims=True)
    return img + noise


def jpeg(rng: np.random.Generator, img: np.ndarray, quality: int | None = None) -> np.ndarray:
    q = int(rng.integers(35, 95)) if quality is None else quality
    ok, buf = cv2.imencode(".jpg", np.clip(img, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, q])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if decoded is None:
        raise ValueError(f"OpenCV could not decode the JPEG of a {img.shape} image")
    return decoded.astype(np.float32)


def camera(rng: np.random.Generator, img: np.ndarray, index_px: float = 30.0) -> np.ndarray:
    """The usual chain, each step on with its own probability; returns uint8 BGR.

    ``index_px`` (the scene's corner index height) bounds the blur.
    """
    if rng.random() < 0.85:
        img = lighting(rng, img)
    if rng.random() < 0.35:
        img = shadows(rng, img)
    if rng.random() < 0.3:
        img = glare(rng, img)
    if rng.random() < 0.7:
        img = colour_cast(rng, img)
    if index_px > 18 and rng.random() < 0.2:  # small indices have no detail to spare
        img = low_resolution(rng, img, index_px)
    r = rng.random()
    if r < 0.35:
        img = defocus(rng, img, index_px)
    elif r < 0.5:
        img = motion_blur(rng, img, index_px)
    if rng.random() < 0.3:
        img = sharpen(rng, img)
    if rng.random() < 0.8:
        img = sensor_noise(rng, img)
    if rng.random() < 0.7:
        img = jpeg(rng, img)
    return np.clip(img, 0, 255).astype(np.uint8)
