"""Constants two packages keep because the layers forbid one to import the other agree.

The vision package knows nothing of the rules, so it keeps its own list of the cards it reads
(``vision.cards``); the engine's card text (``engine.cards``) and its words (``engine.words``)
must name the same cards the same way. Where one package may import the other, the constant is
defined once and imported (``box.config`` takes the backends from ``vision.backends``); this test
checks the rest.
"""

from __future__ import annotations

import engine.cards
import vision.cards
from engine.words import card_name


def test_vision_reads_the_cards_the_engine_knows_in_the_same_order():
    assert vision.cards.SUITS == engine.cards.SUITS
    assert (*vision.cards.RANKS, *vision.cards.JOKERS) == engine.cards.RANK_TEXT
    ordered = sorted(engine.cards.parse_cards(" ".join(vision.cards.CARD_IDS)))
    assert [str(c) for c in ordered] == list(vision.cards.CARD_IDS)


def test_vision_labels_cards_as_the_engine_shows_them():
    assert vision.cards.SUIT_SYMBOLS == engine.cards.SUIT_SYMBOLS
    assert vision.cards.JOKER_NAMES == engine.cards.JOKER_NAMES == {j: card_name(j, "zh") for j in ("BJ", "RJ")}
    for card in vision.cards.CARD_IDS:
        assert vision.cards.card_label(card) == engine.cards.Card.parse(card).label
