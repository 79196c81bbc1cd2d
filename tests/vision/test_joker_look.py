"""The second look for jokers (vision.joker_look): card corners found on the mat, jokers read there.

The cards are the held-out decks' own art laid on the printed mat (tests.kit.card_mat), read
with the shipped reader through the shipped detector's look.
"""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import vision.joker_look
from tests.kit.card_mat import PX_PER_MM, calibration, laid, outline_mm, zone_centre
from vision.detector import DEFAULT_FINDER, DEFAULT_READER, CardDetector
from vision.joker_look import CARD_WIDTH_MM, JokerLook, JokerLookSettings, JokerRead, card_corners, cards_of

CARD_PX = CARD_WIDTH_MM * PX_PER_MM


@pytest.fixture(scope="module")
def look() -> JokerLook:
    look = CardDetector(DEFAULT_FINDER, DEFAULT_READER).joker_look
    assert look is not None
    return look


def zone_crop(cards, zone="seat2", deck="orell"):
    return calibration().crop(laid(cards, deck), zone, PX_PER_MM)


def test_a_lone_card_shows_its_four_corners():
    centre = zone_centre("seat2")
    view = zone_crop([("8c", centre, 20)])
    corners = card_corners(view.image, CARD_PX)
    truth = outline_mm("8c", centre, 20)
    found = view.to_table(np.array([c.point for c in corners]))
    assert len(corners) == 4 and len({c.outline for c in corners}) == 1
    distance = np.hypot(*(found[:, None, :] - truth[None, :, :]).transpose(2, 0, 1))
    assert distance.min(axis=0).max() < 4.0, distance.min(axis=0)  # every corner, within 4 mm


@pytest.mark.parametrize("angle", [0, 93, 181])
def test_a_cards_blank_corners_are_told_from_its_index_corners(angle):
    centre = zone_centre("seat2")
    view = zone_crop([("Kc", centre, angle)], deck="atlasnye")
    corners = card_corners(view.image, CARD_PX)
    blank = view.to_table(np.array([c.point for c in corners if c.blank(CARD_PX, 1.2)]))
    # top-right and bottom-left of the upright card carry no index (and a king's sceptre may
    # reach them); top-left and bottom-right are read
    truth = outline_mm("Kc", centre, angle, deck="atlasnye")[[1, 3]]
    assert len(corners) == 4 and len(blank) == 2
    assert np.hypot(*(blank[:, None, :] - truth[None, :, :]).transpose(2, 0, 1)).min(axis=0).max() < 4.0


def test_an_empty_zone_has_no_card_corners():
    assert card_corners(zone_crop([]).image, CARD_PX) == []


def test_a_card_half_under_another_shows_the_corners_left_bare_and_no_notch():
    x, y = zone_centre("seat2")
    view = zone_crop([("8d", (x + 15, y + 40), 0), ("8c", (x, y), 0)])  # 8d's top-left under 8c
    corners = card_corners(view.image, CARD_PX)
    # one outline of six corners: 8c's three outside 8d, 8d's three outside 8c; the two
    # notches where one card's edge meets the other's are no corner
    truth = np.concatenate([outline_mm("8c", (x, y), 0)[[0, 1, 3]], outline_mm("8d", (x + 15, y + 40), 0)[1:]])
    found = view.to_table(np.array([c.point for c in corners]))
    assert len(corners) == 6 and len({c.outline for c in corners}) == 1
    assert np.hypot(*(found[:, None, :] - truth[None, :, :]).transpose(2, 0, 1)).min(axis=0).max() < 4.0


@pytest.mark.parametrize("joker", ["BJ", "RJ"])
@pytest.mark.parametrize("angle", [3, 85, 178])
def test_an_orell_joker_is_read_at_its_corners(look, joker, angle):
    centre = zone_centre("seat2")
    view = zone_crop([(joker, centre, angle)])
    reads = look.look(view.image, CARD_PX)
    assert reads and {r.card for r in reads} == {joker}
    assert all(r.probability >= look.settings.bar for r in reads)
    # each read lies at one of the card's corners, inside it, where the joker's mark is printed
    at = view.to_table(np.array([r.center for r in reads]))
    corners = outline_mm(joker, centre, angle)
    assert np.hypot(*(at[:, None, :] - corners[None, :, :]).transpose(2, 0, 1)).min(axis=1).max() < 0.3 * CARD_WIDTH_MM
    assert len(cards_of(reads)) == 1


@pytest.mark.parametrize("deck", ["orell", "plastic", "tigullio", "atlasnye"])
def test_cards_that_are_no_joker_give_the_look_nothing(look, deck):
    x, y = zone_centre("seat2")
    for cards in ([("Qs", (x, y), 4), ("Kh", (x, y + 130), 92)], [("8c", (x, y), 178), ("As", (x, y + 130), 87)],
                  [("Jd", (x, y), 0), ("2h", (x, y + 40), 0)]):
        view = zone_crop(cards, deck=deck)
        assert card_corners(view.image, CARD_PX)  # the look did read corners
        assert look.look(view.image, CARD_PX) == [], cards


def test_a_mark_the_reader_splits_between_the_jokers_is_the_joker_given_more():
    # tigullio's two jokers carry one star in two colours: beside the red joker the black
    # one's star reads about 0.9 a joker, split 0.6 / 0.3 between the two
    view = zone_crop([("8c", zone_centre("seat2"), 20)])

    def reader(bj: float, rj: float):
        return lambda image, boxes: np.tile([bj, rj, 1 - bj - rj], (len(boxes), 1))

    split = JokerLook(reader(0.55, 0.3), ["BJ", "RJ", "none"]).look(view.image, CARD_PX)
    assert [r.card for r in split] == ["BJ", "BJ"]  # its two index corners
    assert split[0].probability == pytest.approx(0.55)
    assert JokerLook(reader(0.4, 0.3), ["BJ", "RJ", "none"]).look(view.image, CARD_PX) == []


@pytest.mark.parametrize("joker", ["BJ", "RJ"])
def test_the_marks_ink_tells_the_joker_the_reader_cannot(joker):
    # tigullio's jokers: one star, black or red; a reader split evenly between them
    view = zone_crop([(joker, zone_centre("seat2"), 90)], deck="tigullio")
    even = JokerLook(lambda image, boxes: np.tile([0.45, 0.45, 0.1], (len(boxes), 1)), ["BJ", "RJ", "none"])
    reads = even.look(view.image, CARD_PX)
    assert reads and {r.card for r in reads} == {joker}


def test_a_corner_holding_a_sure_read_is_not_read_again(look):
    centre = zone_centre("seat2")
    view = zone_crop([("RJ", centre, 3)])
    reads = look.look(view.image, CARD_PX)
    assert len(reads) == 2
    held = look.look(view.image, CARD_PX, sure_centers=np.array([reads[0].center]))
    assert [r.center for r in held] == [reads[1].center]


def test_two_corners_of_one_outline_are_one_card_and_decks_cap_each_joker():
    def read(card, outline, p=0.9):
        return JokerRead(card, p, (0.0, 0.0), outline)

    assert [r.card for r in cards_of([read("RJ", 0), read("RJ", 0, 0.95)])] == ["RJ"]
    assert cards_of([read("RJ", 0), read("RJ", 0, 0.95)])[0].probability == 0.95
    assert [r.card for r in cards_of([read("BJ", 0), read("BJ", 1)], decks=2)] == ["BJ", "BJ"]
    assert [r.card for r in cards_of([read("BJ", 0), read("BJ", 1)], decks=1)] == ["BJ"]
    assert sorted(r.card for r in cards_of([read("BJ", 0), read("RJ", 0)])) == ["BJ", "RJ"]
    assert cards_of([]) == []


def test_bad_settings_and_a_reader_without_jokers_are_refused():
    with pytest.raises(ValueError, match="bar"):
        JokerLookSettings(bar=0)
    with pytest.raises(ValueError, match="places"):
        JokerLookSettings(places=(0.6,))
    with pytest.raises(ValueError, match="side"):
        JokerLookSettings(side=1.5)
    with pytest.raises(ValueError, match="BJ, RJ"):
        JokerLook(lambda image, boxes: np.zeros((len(boxes), 2)), ["3s", "none"])


def test_the_modules_example_runs():
    result = doctest.testmod(vision.joker_look)
    assert result.attempted >= 1 and result.failed == 0
