"""A camera's view of a card table, with a label for every corner index it can read.

Cards are laid on a flat table plane (face art warped by a similarity each), hands and
clutter go on top, and the plane is seen through a tilted camera (a homography), then
the camera effects run. A per-pixel map of which card is on top tells, for each corner
index, how much of it shows: only indices at least ``min_visible`` visible are labelled.

>>> rng = np.random.default_rng(0)
>>> image, corners = render_scene(rng, ["anglo"], imgsz=320)   # doctest: +SKIP
>>> corners[0]["card"], corners[0]["box"]                       # doctest: +SKIP
('7d', [101.2, 40.5, 118.9, 71.0])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from sim.synth import clutter, effects, layout
from sim.synth.decks import Deck, load_deck
from sim.synth.textures import table_surface
from vision.cards import CARD_IDS
from vision.settings import INDEX_PX  # the index heights the scenes cover, before the camera's tilt

MAX_TILT_DEG = 25.0


@dataclass
class Scene:
    image: np.ndarray
    corners: list[dict] = field(default_factory=list)
    cards: list[dict] = field(default_factory=list)  # every card's outline, face up or down
    hidden: list[dict] = field(default_factory=list)  # corner indices under something


def _homography(rng, imgsz: int, plane: int, max_tilt: float, squash: float) -> np.ndarray:
    """Plane -> image: a camera above the plane's centre, tilted, then stretched."""
    tilt = np.radians(max_tilt) * np.sqrt(rng.random())
    axis_a = rng.uniform(0, 2 * np.pi)
    axis = np.array([np.cos(axis_a), np.sin(axis_a), 0.0])
    rvec = axis * tilt
    r, _ = cv2.Rodrigues(rvec)
    f = imgsz * rng.uniform(0.7, 1.6)
    k = np.array([[f, 0, imgsz / 2], [0, f, imgsz / 2], [0, 0, 1]])
    rt = np.column_stack([r[:, 0], r[:, 1], [0, 0, f]])
    centre = np.array([[1, 0, -plane / 2], [0, 1, -plane / 2], [0, 0, 1]])
    sx, sy = (squash, 1.0) if rng.random() < 0.5 else (1.0, squash)
    stretch = np.array([[sx, 0, imgsz / 2 * (1 - sx)], [0, sy, imgsz / 2 * (1 - sy)], [0, 0, 1]])
    h = stretch @ k @ rt @ centre
    return h / h[2, 2]


def _apply(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.column_stack([pts, np.ones(len(pts))]) @ h.T
    return p[:, :2] / p[:, 2:3]


def card_affine(pose: layout.CardPose, face_w: int, face_h: int) -> np.ndarray:
    """2x3 matrix: face pixels -> plane pixels."""
    c, s = np.cos(pose.angle) * pose.scale, np.sin(pose.angle) * pose.scale
    rs = np.array([[c, -s], [s, c]])
    t = np.array(pose.centre) - rs @ np.array([face_w / 2, face_h / 2])
    return np.column_stack([rs, t])


def _box_quads(box) -> tuple[np.ndarray, np.ndarray]:
    """Index quads in face pixels, each starting at the index's own upper-left corner."""
    (x1, y1, x2, y2), (u1, v1, u2, v2) = box
    top = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], float)
    bottom = np.array([[u2, v2], [u1, v2], [u1, v1], [u2, v1]], float)
    return top, bottom


def place_card(canvas, labels, art, m, label, shadow):
    """Warp one card's BGRA art onto the plane with its drop shadow; update the top-card map."""
    ph, pw = labels.shape
    h, w = art.shape[:2]
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], float) @ m[:, :2].T + m[:, 2]
    pad = 6
    x1, y1 = np.floor(corners.min(0)).astype(int) - pad
    x2, y2 = np.ceil(corners.max(0)).astype(int) + pad
    x1, y1, x2, y2 = max(x1, 0), max(y1, 0), min(x2, pw), min(y2, ph)
    if x2 <= x1 or y2 <= y1:
        return
    mm = m.copy()
    mm[:, 2] -= (x1, y1)
    warped = cv2.warpAffine(art, mm, (x2 - x1, y2 - y1), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
    alpha = warped[..., 3:4].astype(np.float32) / 255
    roi = canvas[y1:y2, x1:x2]
    dx, dy, strength, blur = shadow
    sh = cv2.GaussianBlur(np.roll(alpha[..., 0], (dy, dx), (0, 1)), (0, 0), blur)
    roi *= 1 - strength * sh[..., None]
    roi *= 1 - alpha
    roi += alpha * warped[..., :3]
    labels[y1:y2, x1:x2][alpha[..., 0] > 0.5] = label


def scaled_art(art: np.ndarray, scale: float) -> tuple[np.ndarray, float]:
    """Shrink art with area averaging first, so the warp does not alias fine print."""
    if scale >= 0.9:
        return art, 1.0
    f = min(1.0, scale * 1.25)
    small = cv2.resize(art, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    return small, small.shape[1] / art.shape[1]


def _visible(labels_img: np.ndarray, quad: np.ndarray, label: int) -> float:
    area = abs(cv2.contourArea(quad.astype(np.float32)))
    if area < 1:
        return 0.0
    h, w = labels_img.shape
    x1, y1 = np.floor(quad.min(0)).astype(int)
    x2, y2 = np.ceil(quad.max(0)).astype(int) + 1
    cx1, cy1, cx2, cy2 = max(x1, 0), max(y1, 0), min(x2, w), min(y2, h)
    if cx2 <= cx1 or cy2 <= cy1:
        return 0.0
    mask = np.zeros((cy2 - cy1, cx2 - cx1), np.uint8)
    cv2.fillPoly(mask, [np.round(quad - (cx1, cy1)).astype(np.int32)], 1)
    inside = mask.sum()
    if inside == 0:
        return 0.0
    shown = np.count_nonzero(labels_img[cy1:cy2, cx1:cx2][mask > 0] == label)
    # Pixels of the quad outside the frame count as hidden.
    return float(min(1.0, shown / inside * min(1.0, inside / area)))


def tint(rng, art: np.ndarray) -> np.ndarray:
    """Cards age, print and lie differently: brightness and warmth per card, and on some a
    curl (light falling off across it) or a glossy sheen band."""
    h, w = art.shape[:2]
    gain = rng.uniform(0.88, 1.04) * np.clip(rng.normal(1, 0.025, 3), 0.9, 1.1)
    rgb = art[..., :3].astype(np.float32) * gain.astype(np.float32)
    r = rng.random()
    if r < 0.45:
        a = rng.uniform(0, 2 * np.pi)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        t = ((xx / w - 0.5) * np.cos(a) + (yy / h - 0.5) * np.sin(a)) * 2  # -1..1 across the card
        if r < 0.3:  # curled: a smooth fall-off to one side
            light = 1 - rng.uniform(0.05, 0.22) * (t + 1) ** 2 / 4
            rgb *= light[..., None]
        else:  # glossy: a soft bright band
            band = np.exp(-0.5 * ((t - rng.uniform(-0.6, 0.6)) / rng.uniform(0.08, 0.3)) ** 2)
            rgb += rng.uniform(20, 70) * band[..., None]
    out = art.copy()
    out[..., :3] = np.clip(rgb, 0, 255).astype(np.uint8)
    return out


def check_index_range(index_range, largest: float = math.inf) -> tuple[float, float]:
    """``index_range`` as two floats in order, from 4 px to ``largest``, or a ValueError."""
    span = tuple(float(v) for v in index_range)
    if len(span) != 2 or not 4 <= span[0] <= span[1] <= largest:
        raise ValueError(f"index heights must be two sizes in order, from 4 px to {largest:g}, got {span}")
    return span


def render_full(
    rng: np.random.Generator,
    decks: Sequence[Deck | str],
    imgsz: int = 416,
    *,
    n_cards: int | None = None,
    index_px: float | None = None,
    index_range: tuple[float, float] = INDEX_PX,
    max_tilt: float = MAX_TILT_DEG,
    min_visible: float = 0.7,
    clutter_p: float = 0.5,
    hands_p: float = 0.3,
    camera_effects: bool = True,
    poses: list[layout.CardPose] | None = None,
    joker_p: float = 0.0,
    play_p: float = 0.0,
) -> Scene:
    """Render one table; see :func:`render_scene` for the short form.

    ``poses`` places the cards yourself (plane pixels; the plane is ``1.7 * imgsz``
    square and its centre is the image centre); ``CardPose.deck`` indexes ``decks``.
    ``joker_p``: the chance that a scene deals both jokers among its cards (0 leaves the
    shuffle alone and draws nothing from ``rng``, so older datasets stay byte-identical).
    ``index_range``: the (smallest, largest) index height in pixels, drawn log-uniformly when
    ``index_px`` is not given (the default draws exactly as before).
    ``play_p``: the chance that a scene's cards lie as plays and shown hands, rows of cards
    0.15-0.33 of a card apart (:func:`layout.plays`); 0 draws nothing from ``rng``.
    """
    if not decks:
        raise ValueError("render_scene needs at least one deck")
    if imgsz < 64:
        raise ValueError(f"imgsz {imgsz} is too small (at least 64)")
    if n_cards is not None and not 1 <= n_cards <= 108:
        raise ValueError(f"n_cards must be 1..108, got {n_cards}")
    check_index_range(index_range)
    loaded = [load_deck(d) if isinstance(d, str) else d for d in decks]
    if poses is not None:
        chosen = loaded
    else:
        two = len(loaded) > 1 and rng.random() < 0.15
        chosen = [loaded[i] for i in rng.choice(len(loaded), 2 if two else 1, replace=False)]
    face_w, face_h = chosen[0].size
    plane = int(imgsz * 1.7)
    squash = rng.uniform(0.8, 1.25) if rng.random() < 0.3 else 1.0
    h_mat = _homography(rng, imgsz, plane, max_tilt, squash)
    h_inv = np.linalg.inv(h_mat)
    seen = _apply(h_inv, np.array([[0, 0], [imgsz, 0], [imgsz, imgsz], [0, imgsz]], float))

    def region(r, margin: float = 0.12):
        # Groups start inside the frame's middle, so most of a play stays in view.
        a, b = margin + (1 - 2 * margin) * r.random(2)
        top = seen[0] + (seen[1] - seen[0]) * a
        bottom = seen[3] + (seen[2] - seen[3]) * a
        return np.clip(top + (bottom - top) * b, 0, plane)

    u = index_px if index_px is not None else float(np.exp(rng.uniform(*np.log(index_range))))
    index_h = np.median([b[0][3] - b[0][1] for d in chosen for b in d.boxes.values()])
    scale = u / index_h
    as_plays = play_p > 0 and rng.random() < play_p
    if n_cards is None and as_plays:
        n_cards = int(rng.integers(4, (30 if u < 30 else 16) + 1))
    if n_cards is None:
        n_max = 20 if u < 35 else 10
        # Busy tables are the hard case and give more labels per image; keep some sparse ones.
        low = 1 if rng.random() < 0.4 else n_max // 2
        n_cards = int(rng.integers(low, n_max + 1))
    canvas = table_surface(rng, plane, plane)
    labels = np.zeros((plane, plane), np.int16)
    card_w = face_w * scale
    if rng.random() < clutter_p * 0.6:  # clutter under the cards
        for _ in range(rng.integers(1, 4)):
            clutter.DISTRACTORS[rng.integers(len(clutter.DISTRACTORS))](rng, canvas, card_w)
    cards_per_deck = [[c for c in CARD_IDS if c in d.faces] for d in chosen]
    if poses is None:
        favour = ("BJ", "RJ") if joker_p > 0 and rng.random() < joker_p else ()
        if as_plays:
            poses = layout.deal_plays(rng, n_cards, cards_per_deck, (face_w, face_h), scale, region, plane, favour)
        else:
            poses = layout.deal(rng, n_cards, cards_per_deck, (face_w, face_h), scale, region, favour)
    light = rng.uniform(0, 2 * np.pi)
    lift = rng.uniform(0.5, 3.0)
    shadow = (int(round(np.cos(light) * lift)), int(round(np.sin(light) * lift)), rng.uniform(0.15, 0.5), rng.uniform(0.8, 2.5))
    for k, pose in enumerate(poses):
        deck = chosen[pose.deck]
        art = deck.faces[pose.card] if pose.face_up else deck.back
        art, f = scaled_art(art, scale)
        art = tint(rng, art)
        m = card_affine(pose, *deck.size)
        m_art = m.copy()
        m_art[:, :2] /= f
        place_card(canvas, labels, art, m_art, k + 1, shadow)
    if rng.random() < clutter_p * 0.5:  # clutter on top
        for _ in range(rng.integers(1, 3)):
            hit = clutter.DISTRACTORS[rng.integers(len(clutter.DISTRACTORS))](rng, canvas, card_w)
            labels[hit] = -1
    if rng.random() < hands_p:
        for _ in range(rng.integers(1, 3)):
            labels[clutter.hand(rng, canvas, card_w)] = -1
    image = cv2.warpPerspective(canvas, h_mat, (imgsz, imgsz), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    seen_labels = cv2.warpPerspective(labels, h_mat, (imgsz, imgsz), flags=cv2.INTER_NEAREST, borderValue=-2)
    image = effects.camera(rng, image, u) if camera_effects else np.clip(image, 0, 255).astype(np.uint8)

    scene = Scene(image)
    for k, pose in enumerate(poses):
        deck = chosen[pose.deck]
        dw, dh = deck.size
        m = card_affine(pose, dw, dh)
        to_img = h_mat @ np.vstack([m, [0, 0, 1]])
        outline = _apply(to_img, np.array([[0, 0], [dw, 0], [dw, dh], [0, dh]], float))
        scene.cards.append(
            {"card": pose.card, "deck": deck.name, "face_up": pose.face_up,
             "quad": np.round(outline, 2).tolist()}
        )
        if not pose.face_up:
            continue
        for quad_face in _box_quads(deck.boxes[pose.card]):
            quad = _apply(to_img, quad_face)
            vis = _visible(seen_labels, quad, k + 1)
            clipped = np.clip(quad, 0, imgsz)
            x1, y1 = clipped.min(0)
            x2, y2 = clipped.max(0)
            item = {
                "card": pose.card,
                "deck": deck.name,
                "quad": np.round(clipped, 2).tolist(),
                "box": [round(float(v), 2) for v in (x1, y1, x2, y2)],
                "visible": round(vis, 3),
            }
            if vis >= min_visible and x2 - x1 >= 2 and y2 - y1 >= 2:
                scene.corners.append(item)
            else:
                scene.hidden.append(item)
    return scene


def render_scene(rng: np.random.Generator, decks: list[Deck | str], imgsz: int = 416, **options):
    """``(image_bgr, corners)``: a table photo and its labelled corner indices.

    Each corner is ``{"card", "deck", "quad", "box", "visible"}``; ``quad`` lists four
    image points starting at the index's own upper-left corner (rank side), clockwise in
    the index's upright frame; ``box`` is its axis-aligned ``[x1, y1, x2, y2]``.
    Options: ``n_cards``, ``index_px``, ``index_range``, ``max_tilt``, ``min_visible``, ``clutter_p``,
    ``hands_p``, ``camera_effects``, ``joker_p``, ``play_p``.
    """
    scene = render_full(rng, decks, imgsz, **options)
    return scene.image, scene.corners
