"""What a table reader needs of a card detector: :class:`Detector`.

A detector finds the corner indices in an image (``detect``), groups them into cards
(``group``) and says which deck profile it reads with (``profile``, None for the base
reader). :class:`vision.detector.CardDetector` is one: its ``group`` also reads an unsure suit
from the card's face. A detector that only finds corners (the toy deck's reader, a test's
stand-in) inherits :class:`CornerDetector`, which groups them by their places alone
(:func:`vision.grouping.group_corners`) and has no profile.

>>> import numpy as np
>>> class Blank(CornerDetector):
...     def detect(self, image: Image) -> Detections:
...         return Detections.empty()
>>> blank = Blank()
>>> isinstance(blank, Detector), blank.profile, blank.group(np.zeros((4, 4, 3), np.uint8), Detections.empty()).cards
(True, None, [])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from numpy.typing import NDArray

from vision.detections import Detections
from vision.grouping import Grouping, group_corners

if TYPE_CHECKING:
    from vision.joker_look import JokerLook
    from vision.profile import DeckProfile

#: A BGR image as the frame sources give it (``uint8``, height x width x 3).
Image = NDArray[Any]

__all__ = ["CornerDetector", "Detector", "Image", "LooksForJokers"]


@runtime_checkable
class Detector(Protocol):
    """Reads cards in an image: corner indices, then the cards they make up."""

    @property
    def profile(self) -> DeckProfile | None:
        """The club's deck profile the reads are blended with; None: the base reader alone."""
        ...

    def detect(self, image: Image) -> Detections:
        """The corner indices in ``image`` with the card each reads as, in its pixels."""
        ...

    def group(self, image: Image, detections: Detections, decks: int = 1, span: float | None = None) -> Grouping:
        """The cards ``detections`` (read in ``image``) show, with ``decks`` copies of a card at
        most before one is a duplicate; ``span``: the deck's corner span measured so far."""
        ...


@runtime_checkable
class LooksForJokers(Protocol):
    """A detector that can look a second time for jokers at the corners of the cards in a zone
    (:mod:`vision.joker_look`): ``joker_look`` is None where it has no reader to look with."""

    joker_look: JokerLook | None


class CornerDetector:
    """The grouping a detector that only finds corners inherits: by the corners' places and
    reads alone, no card face consulted and no deck profile. Subclasses define ``detect``."""

    profile: DeckProfile | None = None

    def detect(self, image: Image) -> Detections:
        raise NotImplementedError(f"{type(self).__name__} must define detect(image)")

    def group(self, image: Image, detections: Detections, decks: int = 1, span: float | None = None) -> Grouping:
        return group_corners(detections, decks, span=span)
