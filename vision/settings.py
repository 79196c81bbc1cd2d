"""Every threshold the card detector runs with, in one frozen :class:`DetectorSettings`.

Two presets: :data:`PHOTO`, what ``ddz-table detect`` reads a single photo with, and
:data:`TRACKER`, what the live tracker runs (the same, plus the joker floors: the tracker
keeps a card only once it is read in several frames, so it can afford weaker joker reads;
and no smaller views of close-ups, which a mounted camera never gives; zone crops read at
their own pixels).
A variant is ``PHOTO.replace(conf=0.3)``; :class:`vision.detector.CardDetector` takes one
as ``settings``.

The index sizes the shipped models read (:data:`INDEX_PX`, :data:`GOOD_INDEX_PX`) are facts
about the models and the camera set up for them, not knobs of one detector, so they are
module constants here beside the settings.

>>> PHOTO.replace(conf=0.3).conf, PHOTO.conf
(0.3, 0.17)
>>> TRACKER.differences(PHOTO)
{'enlarge_max': 1.0, 'smaller': False, 'joker_floor': 0.05, 'joker_pair_floor': 0.02}
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

#: Index heights (image pixels) the synthetic training scenes cover, before the camera's tilt:
#: the sizes the shipped models were trained to read; under the lower end they read nothing sure.
INDEX_PX = (12.0, 60.0)
#: The index height a mounted camera is set up to give (and the benchmarks' working scale):
#: above the trained minimum, as blur and tilt eat some, and where misreads stop growing fast.
GOOD_INDEX_PX = 18.0
#: Quarter-turns a reader can average over (0 degrees; 0 and 90; all four).
TURNS = (1, 2, 4)


@dataclass(frozen=True)
class DetectorSettings:
    """What a :class:`vision.detector.CardDetector` keeps, and how it looks and reads."""

    #: Threshold on the final confidence (finder score x reader probability): the one with the
    #: best F1 (precision against recall) on the held-out synthetic scenes.
    conf: float = 0.17
    #: NMS: boxes overlapping a better one more than this are one index.
    iou: float = 0.5
    #: How many alternative cards each detection carries (for grouping's fusing and the referee).
    top_k: int = 3
    #: Finder score a box needs to be read when ``find`` is called on its own: low, since the
    #: reader's probability still multiplies in (``detect`` uses its own threshold instead).
    finder_floor: float = 0.1
    #: Margin added around an index box, as a share of its size, before the crop is read.
    reader_pad: float = 0.15
    #: Quarter-turns each index crop is read at, probabilities averaged: a corner lies at any
    #: angle on a table, and the reader, trained on every rotation, errs differently at each.
    turns: int = 4
    #: A crop whose best card is at least this sure at the first turn keeps that read; only the
    #: others are read at the remaining turns (1.0: all are): half the cost, the same cards read.
    sure: float = 0.8
    #: The first look enlarges an image smaller than the finder's input at most this many times
    #: (None: until it fills the input). A table reader's zone crops are cut at the scale the
    #: finder reads best (indices of 20-30 px); filling the input doubles them to 40-60 px, where
    #: some designs' indices are not found at all (plastic's queens: finder 0.03 at twice their
    #: size, 0.7-0.8 at their own), and nothing sure is left to ask for a second look at.
    #: A finder of one input size (an NCNN export) gets the image at most this many times
    #: enlarged, in a wider border.
    enlarge_max: float | None = None
    #: Look a second time at the scale the finder reads best when the first look's indices are
    #: too small or too large (needs a finder with a free input size).
    zoom: bool = True
    #: The finder reads indices of 20-45 px far better than smaller or larger ones: a second look
    #: is taken when the first look's indices (median long side) come out under this ...
    zoom_below: float = 20.0
    #: ... or, in an image the first look enlarged, over this ...
    zoom_above: float = 45.0
    #: ... at the size that brings them to about this, mid-range.
    zoom_target: float = 30.0
    #: A closer look enlarges the image at most this many times the larger of its own pixels and
    #: the first look's scale: beyond that it adds no detail the sensor saw, only cost.
    zoom_up: float = 1.5
    #: Nor past this long side (px): the cost of a look grows with its area.
    zoom_max: int = 1920
    #: Finder scores that count as found when measuring the indices' size.
    zoom_sure: float = 0.3
    #: A second look that would scale the first look's image by less than this is not worth its time.
    zoom_gain: float = 1.2
    #: A first look's box is kept beside the second look's when it overlaps none of them this much
    #: (an index near the camera may come out too large to find at the closer size).
    zoom_alone: float = 0.1
    #: Look again through smaller views when the first look's indices may be too large for the
    #: finder to find (a phone close-up: one or two cards filling the frame): it was trained on
    #: indices of at most ``INDEX_PX[1]`` px and finds much larger ones only in pieces, or not at all.
    #: Needs a finder with a free input size, as ``zoom`` does.
    smaller: bool = True
    #: Smaller views are taken when the first look finds fewer sure indices (``zoom_sure``) than
    #: this (a close-up's index too large to find leaves at most a glyph or two) ...
    smaller_few: int = 2
    #: ... or when the longest side of a sure index comes out over this at its input (the top of
    #: the sizes the finder was trained on, ``INDEX_PX``): what it finds of a close-up's indices
    #: may be their pieces, or a smaller card beside larger ones it does not find.
    smaller_above: float = 60.0
    #: Each smaller view halves the one before, from the first look's input, while its long side
    #: stays at least this (px): on a coarser grid the finder's cells hold a whole card.
    smaller_floor: int = 160
    #: A smaller view's box counts only when it would come out at least this long (px) at the first
    #: look's scale, over the sizes the finder reads best (``zoom_above``): smaller indices are the
    #: first look's to find, so an ordinary table reads the same with smaller views on.
    smaller_keep: float = 45.0
    #: A detection lying this much inside a better one of the same card (or holding one), by the
    #: smaller box's area, is dropped (``vision.boxes.nested``): the finder sometimes boxes a rank
    #: glyph alone beside its whole index, and NMS keeps both, their IoU being low.
    nested: float = 0.6
    #: Jokers' corners differ in every deck (a word along the edge, a star, an emblem) and the
    #: finder scores them lowest of all cards, while the reader is sure of them: with
    #: ``joker_floor`` set, a read at least this sure of a joker is kept from that finder score.
    joker_sure: float = 0.9
    #: Finder score from which a joker read ``joker_sure`` sure is kept, under ``conf`` (None:
    #: jokers need ``conf`` like every card). Off for single photos, where it trades precision
    #: for joker recall about evenly.
    joker_floor: float | None = None
    #: With ``joker_pair_floor`` set, a joker read at least this sure is also kept from that
    #: (lower) finder score when another read of the same joker lies a card's corners away
    #: (``vision.grouping.PAIR_RANGE``): two corners of one card agreeing is more evidence than one.
    joker_pair_sure: float = 0.8
    #: Finder score from which such a pair of joker reads is kept (None: no such pairs).
    joker_pair_floor: float | None = None
    #: With a deck profile (``ddz-table enroll``, :mod:`vision.profile`), the share of an enrolled
    #: card's probability taken from the prototypes' softmax, the rest from the reader's own
    #: scores with the deck's suit and rank bias: on the held-out decks (``bench/detector.py
    #: profile``) the bias fixes most of what can be fixed, and a larger share of prototypes
    #: trades recall for precision, much as a higher ``conf`` does.
    profile_weight: float = 0.2
    #: The prototypes' softmax temperature over the distances (floored log-probability units) from
    #: a crop's reader output to each card's prototype: at 1 a crop between two prototypes reads
    #: as the nearer too surely (precision fell on the held-out decks); at 4 every read fades.
    profile_temperature: float = 2.0
    #: Read the suit of a card whose two corners are grouped from its face too: its large pips
    #: (``models/pips.onnx``, :mod:`vision.face_suit`) survive blur that turns the index's small
    #: club into a spade. Applies where corners become cards (:meth:`vision.detector.CardDetector.group`,
    #: the tracker); ``detect`` lists corners as they are read. On: on rendered tables it turns
    #: more wrong suits right than right ones wrong (``bench/face_suit.py``, docs/detector.md).
    face_suit: bool = True
    #: The face is asked only when the card's likeliest suit, by its indices, is under this:
    #: sure reads are left alone, so that a face half covered by another card, or a court card
    #: whose figure reads as a suit, cannot overturn a sure index. On training-deck tables 0.8-0.97
    #: fixed about as many suits; asking every card (1.0) began to break right ones.
    face_suit_below: float = 0.9
    #: The face's exponent in the joint reading (index x face^weight, normalised). The face's
    #: probabilities are a mean over its pips and come out modest (0.6-0.75 for a blurred right
    #: suit) where the index is wrongly sure at 0.7: squared, the face wins those. On training-deck
    #: tables 2 and 3 fixed the most (1.0: fewer) without breaking a right read at 0.9; 2 is the
    #: more cautious.
    face_weight: float = 2.0

    def __post_init__(self) -> None:
        if not 0 <= self.conf <= 1 or not 0 < self.iou <= 1:
            raise ValueError(f"conf must be in [0, 1] and iou in (0, 1], got {self.conf}, {self.iou}")
        for name in ("joker_floor", "joker_pair_floor"):
            floor = getattr(self, name)
            if floor is not None and not 0 < floor <= 1:
                raise ValueError(f"{name} must be in (0, 1], got {floor}")
        if self.turns not in TURNS:
            raise ValueError(f"turns must be one of {', '.join(map(str, TURNS))}, got {self.turns}")
        for name in ("sure", "joker_sure", "joker_pair_sure"):
            value = getattr(self, name)
            if not 0 < value <= 1:
                raise ValueError(f"{name} must be in (0, 1], got {value}")
        if self.top_k < 0 or self.reader_pad < 0 or not 0 <= self.finder_floor <= 1:
            raise ValueError("top_k and reader_pad must not be negative and finder_floor must be in [0, 1], got "
                             f"{self.top_k}, {self.reader_pad}, {self.finder_floor}")
        if not 0 < self.zoom_below < self.zoom_target < self.zoom_above or self.zoom_up < 1 or self.zoom_gain < 1:
            raise ValueError("zoom needs 0 < zoom_below < zoom_target < zoom_above and zoom_up, zoom_gain >= 1")
        if self.enlarge_max is not None and self.enlarge_max < 1:
            raise ValueError(f"enlarge_max must be at least 1 (or None), got {self.enlarge_max}")
        if not 0 <= self.profile_weight <= 1 or self.profile_temperature <= 0:
            raise ValueError("profile_weight must be in [0, 1] and profile_temperature positive, got "
                             f"{self.profile_weight}, {self.profile_temperature}")
        if not 0 < self.face_suit_below <= 1 or not self.face_weight > 0:
            raise ValueError("face_suit_below must be in (0, 1] and face_weight above 0, got "
                             f"{self.face_suit_below}, {self.face_weight}")
        if self.smaller_few < 0 or self.smaller_floor < 32 or self.smaller_above <= 0 or self.smaller_keep <= 0:
            raise ValueError("smaller needs smaller_few >= 0, smaller_floor >= 32 and smaller_above, smaller_keep > 0, "
                             f"got {self.smaller_few}, {self.smaller_floor}, {self.smaller_above}, {self.smaller_keep}")

    def replace(self, **changes: Any) -> DetectorSettings:
        """These settings with some fields changed (checked again)."""
        return dataclasses.replace(self, **changes)

    def differences(self, other: DetectorSettings) -> dict[str, object]:
        """The fields whose value here differs from ``other``'s, with the value here."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if getattr(self, f.name) != getattr(other, f.name)}


#: A single photo (``ddz-table detect``, the benchmarks): every card needs ``conf``.
PHOTO = DetectorSettings()
#: The live tracker: a play settles only on a card read in k of n frames of the few seconds it
#: lies still, so a one-frame false joker does not settle, and weak joker reads are kept. A
#: mounted camera gives indices of the size it was set up for, never a close-up: no smaller
#: views, which an empty zone (no sure index) would otherwise take on every frame it is read.
#: Its zone crops are read at their own pixels (``enlarge_max``): they are cut at the scale the
#: finder reads best, and a look at a third of the pixels is cheaper too.
TRACKER = PHOTO.replace(joker_floor=0.05, joker_pair_floor=0.02, smaller=False, enlarge_max=1.0)
