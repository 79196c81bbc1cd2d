"""Procedural card decks: many more index designs than Debian's 24 decks give.

The reader's mistakes on held-out decks are per design (one deck's fat three-blob clubs
read as spades; jokers drawn as words or emblems it has never seen). Each procedural deck
draws its own design from a seed: the font, weight and width of the rank glyphs, the shape
of the four suit symbols (lobe sizes, stems, curved or straight diamond sides, or a font's
own suit glyphs), the index's size, place and spacing, ink and paper colours, the pip
layout, stand-ins for court-card pictures, the jokers' corner (a stacked ``JOKER``, a
sideways word, a star or, from deck ``proc_360`` on, an emblem: a disc, ring, oval or shield
around a star, crown, letter or dot, sometimes over a small stacked word) and the back. Cards are drawn as SVG with the fonts installed
here (DejaVu, Liberation, Noto CJK) and rendered with ``rsvg-convert`` like the Debian
decks. The corner index boxes are exact: a second rendering draws only the indices.

>>> deck = build_procedural(7)          # doctest: +SKIP
>>> deck.name, len(deck.faces), deck.boxes["10h"][0]   # doctest: +SKIP
('proc_7', 54, (14, 12, 47, 79))

Decks are named ``proc_<n>``; :func:`sim.synth.decks.load_deck` builds and caches them.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from sim.synth import art
from vision.cards import CARD_IDS

#: Bump when the designs change, so cached procedural decks are rebuilt.
DESIGN_VERSION = 1
#: Decks from this number on may draw emblem jokers. The decks before it draw exactly as
#: they did when the datasets up to v13s were made, so those recipes still give the same bytes.
EMBLEM_DECKS_FROM = 360
#: Decks from this number on draw their suit symbols from a wider range: clubs of three small
#: lobes held apart on a thin stem (orell, atlasnye, tigullio draw them so) or of fat lobes
#: squashed low (plastic's), bulb-shaped spades, fatter or leaner hearts and diamonds. The
#: held-out decks' clubs read as spades more than anything else (models/README.md, Known weaknesses).
SUIT_DECKS_FROM = 720
CLUB_STYLES = ("round", "open", "squat")
JOKER_STYLES = ("stacked", "sideways", "star", "emblem")
NAME = re.compile(r"proc_(\d{1,6})$")
WIDTH = art.CARD_WIDTH

FONTS = (
    "DejaVu Sans", "DejaVu Serif", "DejaVu Sans Mono", "DejaVu Sans Condensed", "Liberation Sans",
    "Liberation Serif", "Liberation Sans Narrow", "Liberation Mono", "Noto Sans CJK SC", "Noto Serif CJK SC",
)
#: Fonts whose suit glyphs (U+2660..2666) differ enough to be worth drawing.
GLYPH_FONTS = ("DejaVu Sans", "DejaVu Serif", "Noto Sans CJK SC", "Liberation Sans")
SUIT_GLYPHS = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}

# Pip centres for number cards, in the pip area's unit square (x, y); y > 0.5 is drawn turned.
_SIDES = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)]
PIPS: dict[str, list[tuple[float, float]]] = {
    "2": [(0.5, 0.0), (0.5, 1.0)],
    "3": [(0.5, 0.0), (0.5, 0.5), (0.5, 1.0)],
    "4": _SIDES,
    "5": _SIDES + [(0.5, 0.5)],
    "6": _SIDES + [(0.0, 0.5), (1.0, 0.5)],
    "7": _SIDES + [(0.0, 0.5), (1.0, 0.5), (0.5, 0.25)],
    "8": _SIDES + [(0.0, 0.5), (1.0, 0.5), (0.5, 0.25), (0.5, 0.75)],
    "9": [(x, y) for x in (0.0, 1.0) for y in (0.0, 1 / 3, 2 / 3, 1.0)] + [(0.5, 0.5)],
    "10": [(x, y) for x in (0.0, 1.0) for y in (0.0, 1 / 3, 2 / 3, 1.0)] + [(0.5, 1 / 6), (0.5, 5 / 6)],
}


def is_procedural(name: str) -> bool:
    return bool(NAME.match(name))


def _hex(bgr) -> str:
    b, g, r = (int(np.clip(v, 0, 255)) for v in bgr)
    return f"#{r:02x}{g:02x}{b:02x}"


class _Design:
    """Everything one deck draws the same way, drawn once from its seed."""

    def __init__(self, n: int):
        rng = np.random.default_rng([20261130, n])
        self.aspect = rng.uniform(1.36, 1.52)
        self.height = int(round(WIDTH * self.aspect))
        self.radius = WIDTH * rng.uniform(0.03, 0.09)
        tone = rng.uniform(225, 255)
        self.paper = _hex(tone - rng.uniform(0, 25, 3) * (rng.random() < 0.4))
        self.border = _hex(rng.uniform(0, 160, 3)) if rng.random() < 0.5 else None
        self.font = FONTS[rng.integers(len(FONTS))]
        self.weight = "bold" if rng.random() < 0.45 else "normal"
        self.rank_size = WIDTH * rng.uniform(0.12, 0.2)
        self.narrow_ten = rng.random() < 0.6  # "10" squeezed to about one glyph's width
        self.suit_size = self.rank_size * rng.uniform(0.55, 0.95)
        self.margin_x = WIDTH * rng.uniform(0.05, 0.1)
        self.margin_y = WIDTH * rng.uniform(0.04, 0.1)
        self.gap = self.rank_size * rng.uniform(0.02, 0.25)
        self.suit_beside = rng.random() < 0.12  # suit to the right of the rank, not under it
        self.glyph_suits = GLYPH_FONTS[rng.integers(len(GLYPH_FONTS))] if rng.random() < 0.3 else None
        self.red = _hex((rng.uniform(0, 60), rng.uniform(0, 50), rng.uniform(170, 235)))
        self.black = _hex(rng.uniform(0, 50, 3))
        four = rng.random() < 0.1
        self.ink = {"s": self.black, "h": self.red,
                    "d": _hex((rng.uniform(150, 210), rng.uniform(60, 110), 0)) if four else self.red,
                    "c": _hex((40, rng.uniform(110, 150), 0)) if four else self.black}
        self.heart = rng.uniform(0.8, 1.2, 3)  # lobe width, lobe height, point length
        self.spade = rng.uniform(0.8, 1.2, 3)
        self.stem = (rng.uniform(0.15, 0.5), rng.uniform(0.2, 0.45))  # half-width at foot, length
        self.club_r = rng.uniform(0.3, 0.5)  # 0.5: fat touching blobs
        self.club_spread = rng.uniform(0.8, 1.15)
        self.diamond_bulge = rng.uniform(0.25, 0.55)  # 0.375 straight sides
        self.club_style = "round"
        self.pip_size = WIDTH * rng.uniform(0.11, 0.17)
        self.court = [_hex(rng.uniform(0, 255, 3)) for _ in range(4)]
        self.joker_style = JOKER_STYLES[rng.choice(3, p=[0.55, 0.25, 0.2])]  # no emblems
        self.joker_colour = {"BJ": self.black, "RJ": self.red if rng.random() < 0.8 else _hex((0, 140, 230))}
        self.back = (_hex(rng.uniform(20, 200, 3)), _hex(rng.uniform(150, 255, 3)), rng.uniform(6, 18))
        if n >= EMBLEM_DECKS_FROM:  # a stream of its own: nothing drawn above changes
            erng = np.random.default_rng([20261130, n, 2])
            self.joker_style = JOKER_STYLES[erng.choice(4, p=[0.3, 0.15, 0.1, 0.45])]
            self.emblem: dict[str, Any] = {
                "outer": ("circle", "oval", "shield")[erng.choice(3, p=[0.45, 0.35, 0.2])],
                "solid": bool(erng.random() < 0.45),  # a filled shape with the mark cut out, else a ring
                "mark": ("star", "star4", "crown", "letter", "dot")[erng.choice(5, p=[0.4, 0.15, 0.15, 0.15, 0.15])],
                "size": float(erng.uniform(0.9, 1.5)),  # in rank heights
                "ring": float(erng.uniform(0.07, 0.16)),  # ring width, in emblem widths
                "word": bool(erng.random() < 0.3),  # a small stacked JOKER under the emblem
            }
            if self.emblem["word"]:  # emblem and word stay inside the corner
                self.emblem["size"] = min(self.emblem["size"], 1.1)
        if n >= SUIT_DECKS_FROM:  # a stream of its own too
            self._wider_suits(np.random.default_rng([20261130, n, 3]))

    def _wider_suits(self, rng: np.random.Generator) -> None:
        self.club_style = CLUB_STYLES[rng.choice(3, p=[0.3, 0.4, 0.3])]
        if self.club_style == "open":  # small lobes apart, joined by a small hub
            self.club_r = rng.uniform(0.3, 0.38)
            self.club_spread = rng.uniform(0.85, 1.05)
            self.stem = (rng.uniform(0.12, 0.4), rng.uniform(0.3, 0.55))
        elif self.club_style == "squat":  # fat lobes, the top one pulled down
            self.club_r = rng.uniform(0.42, 0.55)
            self.club_spread = rng.uniform(0.9, 1.15)
            self.stem = (rng.uniform(0.25, 0.6), rng.uniform(0.15, 0.3))
        else:
            self.stem = (rng.uniform(0.1, 0.6), rng.uniform(0.15, 0.55))
        self.spade = np.array([rng.uniform(0.7, 1.45), rng.uniform(0.6, 1.4), rng.uniform(0.6, 1.4)])
        self.heart = np.array([rng.uniform(0.7, 1.35), rng.uniform(0.7, 1.35), rng.uniform(0.7, 1.3)])
        self.diamond_bulge = rng.uniform(0.2, 0.6)
        if rng.random() < 0.3:  # a symbol much smaller or larger beside the rank
            self.suit_size = self.rank_size * rng.uniform(0.45, 1.05)

    # --- suit symbols, centred on (0, 0) with half-size 1 -------------------------------
    def suit_shape(self, suit: str, colour: str) -> str:
        if self.glyph_suits:
            return (f'<text x="0" y="0.72" font-family="{self.glyph_suits}" font-size="2.1" '
                    f'text-anchor="middle" fill="{colour}">{SUIT_GLYPHS[suit]}</text>')
        if suit == "d":
            b = self.diamond_bulge
            return (f'<path fill="{colour}" d="M0,-1 Q{b:.3f},{-b:.3f} 0.72,0 Q{b:.3f},{b:.3f} 0,1 '
                    f'Q{-b:.3f},{b:.3f} -0.72,0 Q{-b:.3f},{-b:.3f} 0,-1Z"/>')
        if suit == "h":
            w, h, p = self.heart
            return (f'<path fill="{colour}" d="M0,{-0.5 * h:.3f} C0,{-1.05 * h:.3f} {-w:.3f},{-1.05 * h:.3f} '
                    f'{-w:.3f},{-0.35 * h:.3f} C{-w:.3f},{0.2 * p:.3f} -0.35,{0.55 * p:.3f} 0,1 '
                    f'C0.35,{0.55 * p:.3f} {w:.3f},{0.2 * p:.3f} {w:.3f},{-0.35 * h:.3f} '
                    f'C{w:.3f},{-1.05 * h:.3f} 0,{-1.05 * h:.3f} 0,{-0.5 * h:.3f}Z"/>')
        foot, length = self.stem
        stem = (f'<path fill="{colour}" d="M-0.07,{0.55 - length:.3f} L{-foot:.3f},1 L{foot:.3f},1 '
                f'L0.07,{0.55 - length:.3f}Z"/>')
        if suit == "s":
            w, h, p = self.spade
            lobe = (f'<path fill="{colour}" d="M0,-1 C{-0.35 * p:.3f},-0.45 {-w:.3f},{-0.2 * h:.3f} {-w:.3f},0.25 '
                    f'C{-w:.3f},0.75 -0.3,0.8 0,0.45 C0.3,0.8 {w:.3f},0.75 {w:.3f},0.25 '
                    f'C{w:.3f},{-0.2 * h:.3f} {0.35 * p:.3f},-0.45 0,-1Z"/>')
            return lobe + stem
        r, s = self.club_r, self.club_spread
        top = -1 + r if self.club_style != "squat" else -0.85 + r
        centres = ((0, top), (-s * (1 - r) * 0.95, 0.02 + r * 0.2), (s * (1 - r) * 0.95, 0.02 + r * 0.2))
        blobs = "".join(f'<circle cx="{x:.3f}" cy="{y:.3f}" r="{r:.3f}" fill="{colour}"/>' for x, y in centres)
        hub_y = 0.05 + r * 0.1
        if self.club_style == "open":  # thin arms from the hub out to each lobe
            arms = "".join(f'<line x1="0" y1="{hub_y:.3f}" x2="{x:.3f}" y2="{y:.3f}" stroke="{colour}" '
                           f'stroke-width="{r * 0.35:.3f}"/>' for x, y in centres)
            return blobs + arms + f'<circle cx="0" cy="{hub_y:.3f}" r="{r * 0.4:.3f}" fill="{colour}"/>' + stem
        return blobs + f'<circle cx="0" cy="{hub_y:.3f}" r="{r * 0.55:.3f}" fill="{colour}"/>' + stem

    def _symbol(self, suit: str, x: float, y: float, half: float, turned: bool = False) -> str:
        turn = " rotate(180)" if turned else ""
        return (f'<g transform="translate({x:.2f},{y:.2f}){turn} scale({half:.3f})">'
                f'{self.suit_shape(suit, self.ink[suit])}</g>')

    # --- one corner index, drawn at the card's top left ---------------------------------
    def index(self, card: str) -> str:
        if card in ("BJ", "RJ"):
            return self._joker_index(card)
        rank, suit = card[:-1], card[-1]
        colour = self.ink[suit]
        size = self.rank_size
        x, top = self.margin_x, self.margin_y
        width = size * (0.62 if rank != "10" else 1.15)
        squeeze = (f' textLength="{width * 0.95:.1f}" lengthAdjust="spacingAndGlyphs"'
                   if rank == "10" and self.narrow_ten else "")
        cx = x + width / 2
        text = (f'<text x="{cx:.1f}" y="{top + size * 0.74:.1f}" font-family="{self.font}" font-weight="{self.weight}" '
                f'font-size="{size:.1f}" text-anchor="middle" fill="{colour}"{squeeze}>{rank}</text>')
        half = self.suit_size / 2
        if self.suit_beside:
            return text + self._symbol(suit, x + width + self.gap + half, top + size * 0.37, half)
        return text + self._symbol(suit, cx, top + size * 0.74 + self.gap + half, half)

    @staticmethod
    def _star(cx: float, cy: float, r: float, points: int, inner: float, colour: str) -> str:
        pts = []
        for k in range(2 * points):
            a = -np.pi / 2 + k * np.pi / points
            rr = r if k % 2 == 0 else r * inner
            pts.append(f"{cx + rr * np.cos(a):.1f},{cy + rr * np.sin(a):.1f}")
        return f'<polygon fill="{colour}" points="{" ".join(pts)}"/>'

    def _stacked_word(self, cx: float, top: float, lead: float, size: float, colour: str) -> str:
        """JOKER written downwards, a letter a line, centred on ``cx``; the first baseline
        ``lead`` letter sizes under ``top``."""
        return "".join(f'<text x="{cx:.1f}" y="{top + size * (lead + 0.95 * i):.1f}" '
                       f'font-family="{self.font}" font-weight="{self.weight}" font-size="{size:.1f}" '
                       f'text-anchor="middle" fill="{colour}">{ch}</text>' for i, ch in enumerate("JOKER"))

    def _emblem(self, colour: str) -> str:
        """A joker emblem at the corner: an outer shape (filled with the mark cut out in paper,
        or a ring around the mark in ink), then maybe a small stacked word under it."""
        e = self.emblem
        x, top = self.margin_x, self.margin_y
        w = self.rank_size * e["size"]
        h = w * (1.3 if e["outer"] == "oval" else 1.0)
        cx, cy, stroke = x + w / 2, top + h / 2, w * e["ring"]
        fill, line = (colour, "none") if e["solid"] else ("none", colour)
        if e["outer"] == "shield":
            outer = (f'<path fill="{fill}" stroke="{line}" stroke-width="{stroke:.1f}" d="M{x:.1f},{top:.1f} '
                     f'H{x + w:.1f} V{top + h * 0.55:.1f} Q{x + w:.1f},{top + h * 0.85:.1f} {cx:.1f},{top + h:.1f} '
                     f'Q{x:.1f},{top + h * 0.85:.1f} {x:.1f},{top + h * 0.55:.1f}Z"/>')
        else:
            inset = 0 if e["solid"] else stroke / 2
            outer = (f'<ellipse cx="{cx:.1f}" cy="{cy:.1f}" rx="{w / 2 - inset:.1f}" ry="{h / 2 - inset:.1f}" '
                     f'fill="{fill}" stroke="{line}" stroke-width="{stroke:.1f}"/>')
        ink = self.paper if e["solid"] else colour
        r = w * (0.32 if e["solid"] else 0.28)
        if e["mark"] == "star":
            mark = self._star(cx, cy, r, 5, 0.42, ink)
        elif e["mark"] == "star4":
            mark = self._star(cx, cy, r * 1.1, 4, 0.3, ink)
        elif e["mark"] == "crown":
            mark = (f'<polygon fill="{ink}" points="{cx - r:.1f},{cy + r * 0.6:.1f} {cx - r:.1f},{cy - r * 0.6:.1f} '
                    f'{cx - r / 2:.1f},{cy:.1f} {cx:.1f},{cy - r * 0.8:.1f} {cx + r / 2:.1f},{cy:.1f} '
                    f'{cx + r:.1f},{cy - r * 0.6:.1f} {cx + r:.1f},{cy + r * 0.6:.1f}"/>')
        elif e["mark"] == "letter":
            mark = (f'<text x="{cx:.1f}" y="{cy + r * 0.7:.1f}" font-family="{self.font}" font-weight="bold" '
                    f'font-size="{r * 2:.1f}" text-anchor="middle" fill="{ink}">J</text>')
        else:
            mark = f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r * 0.45:.1f}" fill="{ink}"/>'
        word = self._stacked_word(cx, top + h, 0.95, self.rank_size * 0.4, colour) if e["word"] else ""
        return outer + mark + word

    def _joker_index(self, card: str) -> str:
        colour = self.joker_colour[card]
        x, top = self.margin_x, self.margin_y
        if self.joker_style == "emblem":
            return self._emblem(colour)
        if self.joker_style == "star":
            r = self.rank_size * 0.6
            return self._star(x + r, top + r, r, 5, 0.45, colour)
        size = self.rank_size * (0.55 if self.joker_style == "stacked" else 0.5)
        if self.joker_style == "sideways":
            return (f'<text transform="translate({x + size * 0.75:.1f},{top:.1f}) rotate(90)" x="0" y="0" '
                    f'font-family="{self.font}" font-weight="{self.weight}" font-size="{size:.1f}" fill="{colour}">'
                    f'JOKER</text>')
        return self._stacked_word(x + size * 0.4, top, 0.74, size, colour)

    # --- the rest of the face -----------------------------------------------------------
    def centre(self, card: str) -> str:
        w, h = WIDTH, self.height
        if card in ("BJ", "RJ"):
            colour = self.joker_colour[card]
            return (f'<text x="{w / 2:.1f}" y="{h / 2:.1f}" font-family="{self.font}" font-weight="bold" '
                    f'font-size="{w * 0.16:.1f}" text-anchor="middle" fill="{colour}">JOKER</text>'
                    f'<circle cx="{w / 2:.1f}" cy="{h * 0.68:.1f}" r="{w * 0.14:.1f}" fill="none" '
                    f'stroke="{colour}" stroke-width="{w * 0.02:.1f}"/>')
        rank, suit = card[:-1], card[-1]
        if rank == "A":
            return self._symbol(suit, w / 2, h / 2, self.pip_size * 1.4)
        if rank in ("J", "Q", "K"):
            x1, y1, x2, y2 = w * 0.24, h * 0.15, w * 0.76, h * 0.85
            c = self.court
            bands = "".join(f'<rect x="{x1:.1f}" y="{y1 + (y2 - y1) * k / 6:.1f}" width="{x2 - x1:.1f}" '
                            f'height="{(y2 - y1) / 6:.1f}" fill="{c[k % 4]}" opacity="0.55"/>' for k in range(6))
            letter = (f'<text x="{w / 2:.1f}" y="{h * 0.42:.1f}" font-family="{self.font}" font-size="{w * 0.3:.1f}" '
                      f'text-anchor="middle" fill="{self.ink[suit]}">{rank}</text>')
            return (bands + f'<rect x="{x1:.1f}" y="{y1:.1f}" width="{x2 - x1:.1f}" height="{y2 - y1:.1f}" '
                    f'fill="none" stroke="{self.ink[suit]}" stroke-width="2"/>' + letter
                    + self._symbol(suit, w / 2, h * 0.66, self.pip_size * 0.8))
        x1, x2, y1, y2 = w * 0.33, w * 0.67, h * 0.2, h * 0.8
        return "".join(self._symbol(suit, x1 + (x2 - x1) * u, y1 + (y2 - y1) * v, self.pip_size / 2, v > 0.5)
                       for u, v in PIPS[rank])

    def face(self, card: str, index_only: bool) -> str:
        w, h = WIDTH, self.height
        corner = self.index(card)
        turned = f'<g transform="rotate(180 {w / 2:.1f} {h / 2:.1f})">{corner}</g>'
        if index_only:
            return corner + turned
        stroke = f' stroke="{self.border}" stroke-width="2"' if self.border else ""
        paper = (f'<rect x="1" y="1" width="{w - 2}" height="{h - 2}" rx="{self.radius:.1f}" '
                 f'fill="{self.paper}"{stroke}/>')
        return paper + self.centre(card) + corner + turned

    def back_face(self) -> str:
        w, h = WIDTH, self.height
        dark, light, step = self.back
        lines = "".join(f'<line x1="{x:.1f}" y1="0" x2="{x + h:.1f}" y2="{h}" stroke="{light}" stroke-width="2"/>'
                        for x in np.arange(-h, w, step))
        return (f'<clipPath id="bk"><rect x="1" y="1" width="{w - 2}" height="{h - 2}" rx="{self.radius:.1f}"/>'
                f'</clipPath><g clip-path="url(#bk)"><rect width="{w}" height="{h}" fill="{dark}"/>{lines}</g>')


def _sheet(design: _Design, cards: list[str], index_only: bool) -> str:
    w, h = WIDTH, design.height
    cells = []
    for k, card in enumerate(cards):
        body = design.back_face() if card == "back" else design.face(card, index_only)
        cells.append(f'<g transform="translate({k * w},0)">{body}</g>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w * len(cards)}" height="{h}" '
            f'viewBox="0 0 {w * len(cards)} {h}">{"".join(cells)}</svg>')


def _render(svg: str) -> np.ndarray:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sheet.svg"
        path.write_text(svg, encoding="utf-8")
        return art._run_rsvg([str(path)])


def _ink_box(alpha: np.ndarray) -> tuple[int, int, int, int] | None:
    ys, xs = np.nonzero(alpha > 64)
    if len(xs) == 0:
        return None
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


def build_procedural(n: int):
    """Deck ``proc_<n>``: 54 faces, a back and exact corner index boxes (about a second)."""
    from sim.synth.decks import Deck, DeckError

    design = _Design(n)
    cards = [*CARD_IDS, "back"]
    w, h = WIDTH, design.height
    faces_sheet = _render(_sheet(design, cards, index_only=False))
    index_sheet = _render(_sheet(design, cards[:-1], index_only=True))
    faces, boxes = {}, {}
    for k, card in enumerate(cards):
        face = np.ascontiguousarray(faces_sheet[:h, k * w : (k + 1) * w])
        if card == "back":
            back = face
            continue
        faces[card] = face
        alpha = index_sheet[:h, k * w : (k + 1) * w, 3]
        top, bottom = _ink_box(alpha[: h // 2]), _ink_box(alpha[h // 2 :])
        if top is None or bottom is None:
            raise DeckError(f"procedural deck {n}: no corner index drawn on {card}")
        boxes[card] = (top, (bottom[0], bottom[1] + h // 2, bottom[2], bottom[3] + h // 2))
    return Deck(f"proc_{n}", faces, back, boxes)
