"""Corner detections become cards: pairs a card diagonal apart, duplicates, one-deck alerts."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detections import Detections
from vision.grouping import group_corners


def corners(*items: tuple[str, float, float], size: float = 20.0, score: float = 0.9) -> Detections:
    """Detections of square index boxes centred at (x, y)."""
    boxes = np.array([[x - size / 2, y - size / 2, x + size / 2, y + size / 2] for _, x, y in items])
    return Detections(boxes, np.full(len(items), score), np.zeros(len(items))).with_cards([c for c, _, _ in items])


def test_two_corners_of_one_card_a_diagonal_apart_are_one_card():
    # 20 px indices, 90 px apart (4.5 index sizes): a card's two opposite corners.
    grouping = group_corners(corners(("Kh", 100, 100), ("Kh", 154, 172)))
    assert grouping.card_ids == ["Kh"]
    assert grouping.cards[0].paired and grouping.cards[0].corners == (0, 1)
    assert grouping.cards[0].center == pytest.approx((127, 136))
    assert grouping.alerts == []


def test_different_cards_are_never_merged_even_at_card_distance():
    grouping = group_corners(corners(("Kh", 100, 100), ("Kd", 154, 172)))
    assert sorted(grouping.card_ids) == ["Kd", "Kh"]
    assert not any(c.paired for c in grouping.cards)


def test_one_corner_found_twice_is_one_card():
    grouping = group_corners(corners(("5s", 100, 100), ("5s", 104, 102)))
    assert grouping.card_ids == ["5s"] and grouping.cards[0].corners == (0, 1)
    assert grouping.alerts == []


def test_same_card_far_apart_in_a_one_deck_game_is_an_alert():
    grouping = group_corners(corners(("2c", 100, 100), ("2c", 600, 400)))
    assert grouping.card_ids == ["2c", "2c"]
    assert [(a.card, a.instances) for a in grouping.alerts] == [("2c", 2)]
    assert "2c seen in 2 places" in grouping.alerts[0].message


def test_two_decks_allow_two_copies_and_geometry_pairs_the_corners():
    dets = corners(("RJ", 100, 100), ("RJ", 154, 172), ("RJ", 500, 100), ("RJ", 554, 172))
    grouping = group_corners(dets, decks=2)
    assert grouping.alerts == []
    assert sorted(c.corners for c in grouping.cards) == [(0, 1), (2, 3)]
    three = Detections.concat([dets, corners(("RJ", 300, 600))])
    assert [a.instances for a in group_corners(three, decks=2).alerts] == [3]


def test_corners_of_very_different_size_are_not_one_card():
    small = corners(("9h", 100, 100), size=10)
    big = corners(("9h", 140, 140), size=40)
    grouping = group_corners(Detections.concat([small, big]))
    assert len(grouping.cards) == 2 and len(grouping.alerts) == 1


def test_unread_detections_are_left_out():
    dets = Detections(np.array([[0, 0, 10, 10]]), np.array([0.5]), np.array([-1]))
    assert group_corners(dets).cards == []


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="decks"):
        group_corners(Detections.empty(), decks=0)
    with pytest.raises(ValueError, match="pair_range"):
        group_corners(Detections.empty(), pair_range=(5, 2))
