"""Bid tokens (叫分牌): printed cards a seat lays in its zone to bid, read by the camera.

The camera cannot hear bids, so each seat gets a set of small cards, one per thing it may
say: 叫1分 / 叫2分 / 叫3分 / 不叫 (score bidding), 叫地主 / 抢地主 / 不抢 (call and grab),
明牌 (open hand) and, where the table plays doubling (the ``player_double`` rule: each player
may double once before the first play, x2 each), 加倍 / 不加倍. Each meaning has its own ArUco
marker in ``DICT_5X5_50`` (ids 20-29), a
dictionary other than the mat's (``DICT_4X4_50``, ids 0-3), so a token is never taken for the
mat. Measured on rendered crops (a 40 mm marker, blurred, noisy, JPEG, read back at 2.5 px/mm),
the 5x5 dictionary read more of them than the 4x4 one at low resolution (0.6 px/mm in the
frame: 211 of 240 against 182; a 30 mm marker at 0.8 px/mm: 209 against 179) and both read
every one from 0.9 px/mm up (a 1280x720 camera over an A2 mat gives about 1.5); neither found
a marker on 216 card faces of four decks. A preset with ``max_bid`` over 3 gets tokens up to 3;
the five-player game, whose landlord is the marker card's holder, gets no bid tokens.

A token card is 60 x 90 mm: the marker (40 mm) at the top, the meaning in large Chinese below
it and small English under that (:func:`render_token`; Chinese needs Pillow and a Chinese
font, :func:`chinese_font`). :func:`render_sheets` lays the cards of a preset
(:func:`tokens_for`) out on A4 pages, one set per seat (``ddz-table tokens``).

:func:`find_tokens` reads the markers in an image (the table reader: in each seat zone's crop);
a :class:`FoundToken` knows its card's outline there, so card reads lying on a token (a marker's
squares read as an index) are dropped. A token reads with its words covered, or with a card
over one corner of its marker by less than one of the marker's squares (4 mm); a card over
more of the marker (6 mm of a corner, half of it) hides the token. :class:`TokenWatch` says once
when a token has been laid in a zone and stayed put (the cards' k-of-n and settle rule).

>>> [t.zh for t in tokens_for("classic")]
['叫1分', '叫2分', '叫3分', '不叫', '明牌']
>>> found = find_tokens(render_token(token_named("no_bid"), px_per_mm=4, chinese=False))
>>> [(f.token.name, f.corners.shape) for f in found]
[('no_bid', (4, 2))]
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections import Counter, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from engine.rules import RuleSet, get_rules

TOKEN_DICT = "DICT_5X5_50"
#: A token card (width, height) in mm, portrait; its marker's side and top-left corner on it.
TOKEN_MM = (60.0, 90.0)
MARKER_MM = 40.0
MARKER_AT_MM = (10.0, 6.0)
#: Where the Chinese and the English words go on the card: (x1, y1, x2, y2) mm.
ZH_BOX_MM = (4.0, 51.0, 56.0, 73.0)
EN_BOX_MM = (4.0, 77.0, 56.0, 84.0)
INK = (30, 30, 30)
#: Sheets: A4 portrait, cards in a grid with this much paper between and around them.
A4_MM = (210.0, 297.0)
SHEET_COLUMNS, SHEET_ROWS = 3, 3


class TokenError(ValueError):
    """A token sheet cannot be drawn or written (no Chinese font, a bad file name)."""


@dataclass(frozen=True)
class Token:
    """One meaning: its marker id, its words, and what it says as a bid.

    ``action`` is an :class:`engine.events.Bid` action (``bid`` with ``value``, ``pass``,
    ``call``, ``grab``), ``open`` (明牌, :class:`engine.events.OpenHand`), ``double`` (加倍,
    :class:`engine.events.Double`) or ``no_double`` (不加倍: said at the table, nothing to record)."""

    name: str
    marker: int
    zh: str
    en: str
    action: str
    value: int = 0


TOKENS: tuple[Token, ...] = (
    Token("bid1", 20, "叫1分", "bid 1", "bid", 1),
    Token("bid2", 21, "叫2分", "bid 2", "bid", 2),
    Token("bid3", 22, "叫3分", "bid 3", "bid", 3),
    Token("no_bid", 23, "不叫", "no bid", "pass"),
    Token("call", 24, "叫地主", "call landlord", "call"),
    Token("grab", 25, "抢地主", "grab landlord", "grab"),
    Token("no_grab", 26, "不抢", "no grab", "pass"),
    Token("open", 27, "明牌", "open hand", "open"),
    Token("double", 28, "加倍", "double", "double"),
    Token("no_double", 29, "不加倍", "no double", "no_double"),
)
_BY_MARKER = {t.marker: t for t in TOKENS}
_BY_NAME = {t.name: t for t in TOKENS}


def token_named(name: str) -> Token:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise TokenError(f"no token {name!r}; tokens are {', '.join(_BY_NAME)}") from None


def tokens_for(rules: RuleSet | str) -> tuple[Token, ...]:
    """The tokens a seat needs under ``rules``, in the order they are printed."""
    rules = get_rules(rules)
    if rules.bidding in ("score", "auction"):
        names = [f"bid{v}" for v in range(1, min(rules.max_bid, 3) + 1)] + ["no_bid"]
    elif rules.bidding == "grab":
        names = ["call", "no_bid", "grab", "no_grab"]
    elif rules.bidding == "marker":  # five players: the marker card's holder is landlord
        names = []
    else:  # "call": the first to call is landlord
        names = ["call", "no_bid"]
    if rules.open_hand_multiplier > 1:
        names.append("open")
    if rules.player_double:
        names += ["double", "no_double"]
    return tuple(_BY_NAME[n] for n in names)


def bid_token(action: str, value: int = 0, called: bool = False) -> Token:
    """The token that says a bid (``called``: someone has called, so a pass is 不抢)."""
    if action == "bid":
        return token_named(f"bid{value}")
    if action == "pass":
        return token_named("no_grab" if called else "no_bid")
    return token_named(action)


# ---------------------------------------------------------------------- finding
class FoundToken(NamedTuple):
    """A token read in an image: its meaning and its marker's corners (px, ArUco order)."""

    token: Token
    corners: np.ndarray

    def outline(self) -> np.ndarray:
        """The whole card's corners in the image (px), from where its marker lies."""
        x, y = MARKER_AT_MM
        s = MARKER_MM
        marker_mm = np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], np.float32)
        h = cv2.getPerspectiveTransform(marker_mm, self.corners.astype(np.float32))
        w, ht = TOKEN_MM
        card = np.array([[0, 0], [w, 0], [w, ht], [0, ht]], np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(card, h).reshape(-1, 2)

    @property
    def centre(self) -> np.ndarray:
        return self.corners.mean(axis=0)


@functools.lru_cache(maxsize=1)
def _detector() -> cv2.aruco.ArucoDetector:
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, TOKEN_DICT))
    return cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())


def find_tokens(image: np.ndarray) -> list[FoundToken]:
    """Tokens in a BGR or grey image, in the order the markers were found; other ids of the
    dictionary (nothing of ours prints them) are left out."""
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        raise TokenError("expected an image (numpy array)")
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    corners, ids, _ = _detector().detectMarkers(grey)
    if ids is None:
        return []
    return [FoundToken(_BY_MARKER[int(i)], c.reshape(4, 2).astype(np.float64))
            for i, c in zip(ids.ravel(), corners, strict=True) if int(i) in _BY_MARKER]


def on_tokens(boxes: np.ndarray, found: Sequence[FoundToken]) -> np.ndarray:
    """Which ``(N, 4)`` boxes (px, the image the tokens were found in) have their centre on a
    token's card: the card detector may take a marker's squares or the printed ``1`` for an index."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    hit = np.zeros(len(b), bool)
    for token in found:
        poly = token.outline().astype(np.float32)
        for i, (x1, y1, x2, y2) in enumerate(b):
            hit[i] |= cv2.pointPolygonTest(poly, ((x1 + x2) / 2, (y1 + y2) / 2), False) >= 0
    return hit


# ---------------------------------------------------------------------- watching a zone
class TokenWatch:
    """Which tokens lie in one zone, read after read; says once when one has been laid.

    A token is laid when it was read in ``k`` of the last ``n`` reads and no hand has been
    over the zone for ``settle`` seconds (the cards' rule, :mod:`tracker.stability`); it is
    lifted once it is missing from all of the last ``n`` reads, and may then be laid again.
    Reads with a hand over the zone (``None``) are not counted, so a hand covering a token
    does not lift it. What lies there when the watch first judges, with no hand seen over the
    zone before (a restart, the end of a pause), was laid before: it is not said again.

    >>> watch, out = TokenWatch(k=2, n=3, settle=0.0), []
    >>> for t in range(4):
    ...     out += watch.update(t, [token_named("bid2")] if t else [])
    >>> [t.name for t in out]
    ['bid2']
    """

    def __init__(self, k: int = 3, n: int = 5, settle: float = 0.5) -> None:
        self.k, self.settle = k, settle
        self._reads: deque[frozenset[str]] = deque(maxlen=n)
        self._lying: set[str] = set()
        self._moved_at: float | None = None
        self._fresh = True  # nothing judged yet, and no hand seen

    @property
    def lying(self) -> tuple[Token, ...]:
        return tuple(t for t in TOKENS if t.name in self._lying)

    def update(self, time: float, read: Iterable[Token] | None) -> list[Token]:
        """One frame: the tokens read in the zone, or ``None`` while a hand is over it."""
        if read is None:
            self._moved_at = time
            self._fresh = False  # what a hand leaves there is new
            return []
        self._reads.append(frozenset(t.name for t in read))
        seen = Counter(name for names in self._reads for name in names)
        self._lying &= set(seen)
        if len(self._reads) < self.k or (self._moved_at is not None and time - self._moved_at < self.settle):
            return []
        laid = {name for name, count in seen.items() if count >= self.k} - self._lying
        self._lying |= laid
        if self._fresh:
            self._fresh = False
            return []
        return [t for t in TOKENS if t.name in laid]


# ---------------------------------------------------------------------- drawing
_FONT_FILES = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "/System/Library/Fonts/PingFang.ttc",
    "/System/Library/Fonts/STHeiti Medium.ttc",
    "C:/Windows/Fonts/msyh.ttc",
    "C:/Windows/Fonts/simhei.ttf",
)


@functools.lru_cache(maxsize=8)
def chinese_font(path: str | None = None) -> tuple[str, int] | None:
    """A font file that draws Chinese, and the face in it (a collection's Simplified Chinese
    face), or None when Pillow or such a font is missing. ``path``: use this file."""
    try:
        from PIL import ImageFont
    except ImportError:
        return None
    candidates = [path] if path else [*_FONT_FILES, *_fc_match()]
    for file in candidates:
        if not file or not os.path.isfile(file):
            continue
        faces = []
        for index in range(12):
            try:
                faces.append((index, ImageFont.truetype(file, 20, index=index)))
            except OSError:
                break
        if not faces:
            continue
        index = next((i for i, f in faces if " SC" in " ".join(filter(None, f.getname()))), faces[0][0])
        font = dict(faces)[index]
        if all(font.getmask(ch).getbbox() for ch in "叫抢牌"):
            return file, index
    return None


def _fc_match() -> list[str]:
    """Where fontconfig finds a Chinese font (nothing when it is not installed)."""
    if shutil.which("fc-match") is None:
        return []
    try:
        done = subprocess.run(["fc-match", "-f", "%{file}", ":lang=zh-cn"], capture_output=True, text=True,
                              timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    return [done.stdout.strip()] if done.returncode == 0 and done.stdout.strip() else []


def _chinese_ink(text: str, size: tuple[int, int], font: tuple[str, int]) -> np.ndarray:
    """The text's ink (0-255 grey, white text on black) scaled to fit ``size`` = (w, h) px, centred."""
    from PIL import Image, ImageDraw, ImageFont

    w, h = size
    face = ImageFont.truetype(font[0], max(8, h), index=font[1])
    x1, y1, x2, y2 = face.getbbox(text)
    canvas = Image.new("L", (int(x2 - x1 + 2), int(y2 - y1 + 2)), 0)
    ImageDraw.Draw(canvas).text((1 - x1, 1 - y1), text, fill=255, font=face)
    ink = np.asarray(canvas)
    f = min(w / ink.shape[1], h / ink.shape[0])
    ink = cv2.resize(ink, (max(1, round(ink.shape[1] * f)), max(1, round(ink.shape[0] * f))),
                     interpolation=cv2.INTER_AREA)
    out = np.zeros((h, w), np.uint8)
    y, x = (h - ink.shape[0]) // 2, (w - ink.shape[1]) // 2
    out[y:y + ink.shape[0], x:x + ink.shape[1]] = ink
    return out


def _hershey(image: np.ndarray, text: str, box: tuple[int, int, int, int], colour: tuple) -> None:
    """Latin text in Hershey simplex, as large as fits ``box`` (px), centred."""
    x1, y1, x2, y2 = box
    thick = max(1, round((y2 - y1) / 9))
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 1.0, thick)
    scale = min((x2 - x1) / w, (y2 - y1) / h)
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    org = (x1 + (x2 - x1 - w) // 2, y1 + (y2 - y1 + h) // 2)
    cv2.putText(image, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)


def render_token(token: Token, px_per_mm: float = 12.0, chinese: bool | None = None,
                 font: str | None = None) -> np.ndarray:
    """One token card as a white BGR image (60 x 90 mm at ``px_per_mm``), its edge drawn thin
    for cutting. ``chinese``: True needs the Chinese words (a :class:`TokenError` without a
    font), False leaves them out, None draws them when a font is found (the English stands
    large in their place otherwise: the marker is what the camera reads)."""
    ppm = float(px_per_mm)
    if not 2 <= ppm <= 40:
        raise TokenError(f"px_per_mm must be between 2 and 40, not {px_per_mm}")
    found = chinese_font(font) if chinese is not False else None
    if chinese and found is None:
        raise TokenError("drawing the Chinese words needs Pillow and a Chinese font "
                         "(Debian: apt install python3-pil fonts-noto-cjk; or give --font FILE)")
    w, h = (round(v * ppm) for v in TOKEN_MM)
    card = np.full((h, w, 3), 255, np.uint8)
    x, y = (round(v * ppm) for v in MARKER_AT_MM)
    side = round(MARKER_MM * ppm)
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, TOKEN_DICT))
    card[y:y + side, x:x + side] = cv2.aruco.generateImageMarker(dictionary, token.marker, side)[..., None]

    def px(box: tuple[float, ...]) -> tuple[int, int, int, int]:
        x1, y1, x2, y2 = (round(v * ppm) for v in box)
        return x1, y1, x2, y2

    zx1, zy1, zx2, zy2 = px(ZH_BOX_MM)
    if found is not None:
        ink = _chinese_ink(token.zh, (zx2 - zx1, zy2 - zy1), found).astype(np.float32)[..., None] / 255
        area = card[zy1:zy2, zx1:zx2].astype(np.float32)
        card[zy1:zy2, zx1:zx2] = (area * (1 - ink) + np.array(INK, np.float32) * ink).astype(np.uint8)
        _hershey(card, token.en, px(EN_BOX_MM), INK)
    else:
        _hershey(card, token.en, (zx1, zy1 + (zy2 - zy1) // 4, zx2, zy2 - (zy2 - zy1) // 4), INK)
    ix1, iy1, ix2, iy2 = px((40.0, 85.5, 57.0, 88.5))
    _hershey(card, f"#{token.marker}", (ix1, iy1, ix2, iy2), (150, 150, 150))
    cv2.rectangle(card, (0, 0), (w - 1, h - 1), (170, 170, 170), max(1, round(0.25 * ppm)))
    return card


def render_sheets(tokens: Sequence[Token], copies: int, dpi: int = 300, chinese: bool | None = True,
                  font: str | None = None, title: str = "") -> list[np.ndarray]:
    """A4 pages (BGR, portrait) holding ``copies`` sets of ``tokens`` (one set per seat), nine
    cards a page, each set starting where the last ended."""
    if not 1 <= copies <= 8:
        raise TokenError(f"print 1 to 8 sets (one per seat), not {copies}")
    if not 100 <= dpi <= 600:
        raise TokenError(f"dpi must be between 100 and 600, not {dpi}")
    ppm = dpi / 25.4
    cards = [render_token(t, ppm, chinese, font) for t in tokens]
    order = [cards[i] for _ in range(copies) for i in range(len(cards))]
    per_page = SHEET_COLUMNS * SHEET_ROWS
    pw, ph = A4_MM
    gap_x = (pw - SHEET_COLUMNS * TOKEN_MM[0]) / (SHEET_COLUMNS + 1)
    gap_y = (ph - SHEET_ROWS * TOKEN_MM[1]) / (SHEET_ROWS + 1)
    pages: list[np.ndarray] = []
    for start in range(0, len(order), per_page):
        page = np.full((round(ph * ppm), round(pw * ppm), 3), 255, np.uint8)
        for i, card in enumerate(order[start:start + per_page]):
            row, col = divmod(i, SHEET_COLUMNS)
            x = round((gap_x + col * (TOKEN_MM[0] + gap_x)) * ppm)
            y = round((gap_y + row * (TOKEN_MM[1] + gap_y)) * ppm)
            page[y:y + card.shape[0], x:x + card.shape[1]] = card
        note = " ".join(filter(None, ("ddz-table tokens", title, f"- page {len(pages) + 1} - print at 100%",
                                      "(cards 60 x 90 mm)")))
        box = (round(gap_x * ppm), round(1.5 * ppm), round((pw - gap_x) * ppm), round(min(4.5, gap_y - 1) * ppm))
        _hershey(page, note, box, (120, 120, 120))
        pages.append(page)
    return pages


def sheet_format(path: str | os.PathLike) -> str:
    """``pdf`` or ``png``, from the file name; anything else is a :class:`TokenError`."""
    suffix = Path(path).suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise TokenError(f"the tokens are written as .pdf or .png, not {suffix or 'no extension'!r}")
    return suffix[1:]


def save_sheets(pages: Sequence[np.ndarray], path: str | os.PathLike, dpi: int) -> list[Path]:
    """Write the pages as one ``.pdf`` (A4, a page each) or as ``.png`` files (``NAME.png`` for
    one page, ``NAME-1.png``, ``NAME-2.png``, ... for more); returns the files written."""
    from tracker.mat import _with_dpi, pdf_of_pages

    path = Path(path)
    if sheet_format(path) == "pdf":
        path.write_bytes(pdf_of_pages(pages, *A4_MM))
        return [path]
    names = [path] if len(pages) == 1 else [path.with_name(f"{path.stem}-{i}.png") for i in range(1, len(pages) + 1)]
    for page, name in zip(pages, names, strict=True):
        ok, data = cv2.imencode(".png", page)
        if not ok:
            raise TokenError("could not encode a token page as PNG")
        name.write_bytes(_with_dpi(data.tobytes(), dpi))
    return names
