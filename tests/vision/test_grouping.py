"""Corner detections become cards: pairs a card diagonal apart, duplicates, one-deck alerts."""

from __future__ import annotations

import numpy as np
import pytest

from vision.cards import CARD_INDEX
from vision.detections import Detections
from vision.grouping import fuse, group_corners, reading


def corners(*items: tuple[str, float, float], size: float = 20.0, score: float = 0.9) -> Detections:
    """Detections of square index boxes centred at (x, y)."""
    boxes = np.array([[x - size / 2, y - size / 2, x + size / 2, y + size / 2] for _, x, y in items])
    return Detections(boxes, np.full(len(items), score), np.zeros(len(items))).with_cards([c for c, _, _ in items])


def read(*items: tuple[str, float, float, float, dict[str, float]], size: float = 20.0,
         finder: float = 0.8) -> Detections:
    """Read corners: (card, x, y, reader probability, {alternative: probability}) each."""
    boxes = np.array([[x - size / 2, y - size / 2, x + size / 2, y + size / 2] for _, x, y, _, _ in items])
    k = max(len(alts) for *_, alts in items)
    alt_ids = np.full((len(items), k), -1)
    alt_probs = np.zeros((len(items), k))
    for row, (*_, alts) in enumerate(items):
        for col, (card, p) in enumerate(alts.items()):
            alt_ids[row, col], alt_probs[row, col] = CARD_INDEX[card], p
    probs = np.array([p for _, _, _, p, _ in items])
    return Detections(boxes, finder * probs, np.array([CARD_INDEX[c] for c, *_ in items]),
                      np.full(len(items), finder), alt_ids, alt_probs)


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


def test_a_corner_misread_in_suit_is_one_card_with_the_corner_that_reads_it_surely():
    # An ace of spades whose second corner reads Ac, with As as the reader's second guess,
    # 4.5 index sizes apart: this deck's span, measured on earlier frames.
    dets = read(("As", 100, 100, 0.9, {"Ac": 0.05}), ("Ac", 154, 172, 0.6, {"As": 0.35, "Ah": 0.02}))
    grouping = group_corners(dets, span=4.5)
    assert grouping.card_ids == ["As"] and grouping.alerts == []
    card = grouping.cards[0]
    assert card.fused and card.corners == (0, 1) and card.span == pytest.approx(4.5)
    # Its confidence is the finder's times the joint reading: As 0.315 of 0.315 + 0.03 + 0.02 * 0.001.
    assert card.confidence == pytest.approx(0.8 * 0.315 / (0.315 + 0.03 + 0.00002), rel=1e-3)
    assert card.alternatives[0][0] == "Ac"
    assert group_corners(dets, span=4.5, fuse_share=None).card_ids == ["As", "Ac"]


def test_misread_corners_are_not_fused_without_a_span_or_off_the_decks_span():
    dets = read(("As", 100, 100, 0.9, {"Ac": 0.05}), ("Ac", 154, 172, 0.6, {"As": 0.35}))
    assert group_corners(dets).card_ids == ["As", "Ac"]
    assert group_corners(dets, span=3.2).card_ids == ["As", "Ac"]  # another deck's cards
    assert group_corners(dets, span=5.2).card_ids == ["As", "Ac"]


def test_the_span_of_cards_paired_in_the_same_image_is_the_decks_span():
    paired = read(("Kh", 400, 100, 0.9, {}), ("Kh", 454, 172, 0.9, {}))
    misread = read(("As", 100, 100, 0.9, {"Ac": 0.05}), ("Ac", 154, 172, 0.6, {"As": 0.35}))
    grouping = group_corners(Detections.concat([paired, misread]), span=3.0)
    assert sorted(grouping.card_ids) == ["As", "Kh"]
    assert grouping.spans == [pytest.approx(4.5)]


def test_two_surely_read_different_cards_a_card_apart_stay_two_cards():
    dets = read(("Kh", 100, 100, 0.95, {"Kd": 0.03}), ("Kd", 154, 172, 0.95, {"Kh": 0.03}))
    grouping = group_corners(dets, span=4.5)
    assert sorted(grouping.card_ids) == ["Kd", "Kh"]
    assert not any(c.fused for c in grouping.cards)


def test_corners_that_share_no_card_are_never_fused():
    dets = read(("5h", 100, 100, 0.5, {"6h": 0.3}), ("8c", 154, 172, 0.5, {"9c": 0.3}))
    assert sorted(group_corners(dets, span=4.5).card_ids) == ["5h", "8c"]


def test_a_card_already_paired_keeps_its_corners_and_a_lone_misread_corner_stays_apart():
    dets = read(("As", 100, 100, 0.9, {"Ac": 0.05}), ("As", 154, 172, 0.9, {"Ac": 0.05}),
                ("Ac", 100, 260, 0.6, {"As": 0.35}))
    grouping = group_corners(dets, span=4.5)
    assert sorted(grouping.card_ids) == ["Ac", "As"]
    assert [c.corners for c in grouping.cards if c.card == "As"] == [(0, 1)]


def test_one_deck_corners_do_not_fuse_into_a_card_seen_elsewhere():
    # 7d lies paired far away; two single corners that would agree on 7d are two cards.
    dets = read(("7d", 500, 100, 0.9, {}), ("7d", 554, 172, 0.9, {}),
                ("7h", 100, 100, 0.5, {"7d": 0.4}), ("7c", 154, 172, 0.5, {"7d": 0.4}))
    assert sorted(group_corners(dets).card_ids) == ["7c", "7d", "7h"]
    assert sorted(group_corners(dets, decks=2).card_ids) == ["7d", "7d"]


def test_fuse_weighs_both_readings_and_normalises_the_joint():
    card, ratio, joint = fuse({"Qh": 0.7, "Qd": 0.2}, {"Qd": 0.6, "Qh": 0.3})
    assert card == "Qh" and ratio == pytest.approx(0.21 / 0.42)
    assert sum(joint.values()) == pytest.approx(1.0) and joint["Qh"] > joint["Qd"]
    assert fuse({"Qh": 0.9}, {"Qd": 0.9}) is None


def test_reading_is_the_reader_probability_not_the_final_score():
    dets = read(("9s", 0, 0, 0.75, {"9c": 0.2}), finder=0.5)
    assert reading(dets, 0) == pytest.approx({"9s": 0.75, "9c": 0.2})
    unread = Detections(np.array([[0, 0, 10, 10]]), np.array([0.5]), np.array([-1]))
    assert reading(unread, 0) == {}


def test_fuse_share_out_of_range_is_refused():
    with pytest.raises(ValueError, match="fuse_share"):
        group_corners(Detections.empty(), fuse_share=0)
    for span in (0, -4.5, float("nan")):
        with pytest.raises(ValueError, match="span must be positive"):
            group_corners(Detections.empty(), span=span)


def boxes(*items: tuple[str, float, float, float, float], scores: list[float] | None = None) -> Detections:
    """Detections of (card, x1, y1, x2, y2) boxes (scored 0.9 unless ``scores``)."""
    return Detections(np.array([b for _, *b in items], float), np.array(scores or [0.9] * len(items)),
                      np.zeros(len(items))).with_cards([c for c, *_ in items])


def test_a_jokers_long_index_found_in_two_pieces_at_each_corner_is_one_card():
    # JOKER written down the card: each corner's word boxed as two pieces end to end
    # (the pieces of one corner 2 px apart); two decks, so two cards would be allowed.
    dets = boxes(("BJ", 417, 52, 434, 116), ("BJ", 420, 118, 433, 170),
                 ("BJ", 543, 153, 556, 205), ("BJ", 539, 206, 561, 270))
    grouping = group_corners(dets, decks=2)
    assert grouping.card_ids == ["BJ"]


def test_a_jokers_word_split_with_a_gap_of_a_third_of_a_piece_is_still_one_card():
    # atlasnye's red joker on the four-seat film: JOKER boxed as JOK and ER, 6 px apart at one
    # corner and 17 px at the other (pieces 49-61 px long); two decks.
    dets = boxes(("RJ", 297, 67, 313, 128), ("RJ", 300, 134, 312, 183),
                 ("RJ", 425, 164, 436, 213), ("RJ", 419, 230, 441, 282))
    assert group_corners(dets, decks=2).card_ids == ["RJ"]


def test_two_decks_two_copies_side_by_side_in_a_fan_stay_two_cards():
    # Tall indices of two 5c a little apart across their width, and two a row apart along it.
    beside = boxes(("5c", 100, 100, 112, 130), ("5c", 121, 100, 133, 130))
    assert group_corners(beside, decks=2).card_ids == ["5c", "5c"]
    rows = boxes(("5c", 100, 100, 112, 130), ("5c", 100, 142, 112, 172))
    assert group_corners(rows, decks=2).card_ids == ["5c", "5c"]


def test_two_decks_two_identical_tall_indices_a_fan_step_apart_stay_two_cards():
    # Two Qs in a fan, the second laid 41 px (about 20 mm) beside the first: under 0.6 of their index's
    # length apart, yet side by side across their width, not overlapping; the second's far corner.
    fan = boxes(("Qs", 15, 62, 48, 133), ("Qs", 55, 70, 88, 141), ("Qs", 182, 198, 220, 268))
    assert group_corners(fan, decks=2).card_ids.count("Qs") == 2
    # one deck: that is one card (its corner boxed twice), as before
    assert group_corners(fan, decks=1).card_ids.count("Qs") == 1
    # one corner boxed twice, a little shifted, overlaps itself: still one corner with two decks
    twice = boxes(("Qs", 15, 62, 48, 133), ("Qs", 19, 64, 52, 136))
    assert group_corners(twice, decks=2).card_ids == ["Qs"]


def test_two_decks_two_copies_in_one_row_a_deck_span_apart_stay_two_cards():
    # Five seats, plastic: a hand shown in a fan, two Qs four cards apart in one row, 176 px
    # (2.6 index sizes) apart, inside this deck's span (2.7-3.4). Side by side across their
    # length, they are two cards, neither paired nor fused; the same two marks a card's length
    # apart along it (one card's corners) are still one card.
    row = boxes(("Qs", 63, 106, 94, 174), ("Qs", 239, 111, 270, 177))
    assert group_corners(row, decks=2).card_ids == ["Qs", "Qs"]
    assert group_corners(row, decks=2, span=2.8).card_ids == ["Qs", "Qs"]
    card = boxes(("Qs", 63, 106, 94, 174), ("Qs", 160, 240, 191, 308))
    assert group_corners(card, decks=2, span=2.8).card_ids == ["Qs"]


def test_corners_side_by_side_in_one_row_are_never_fused():
    # Two single corners that agree on Qs, a deck's span apart but beside each other in one row
    # (two cards fanned): not one card's corners, whatever they agree on.
    def tall(card: str, x: float, y: float, p: float, alts: dict[str, float]) -> Detections:
        dets = read((card, x, y, p, alts))
        dets.boxes[:] = [[x - 14, y - 34, x + 14, y + 34]]
        return dets
    row = Detections.concat([tall("Qs", 80, 140, 0.9, {"Qc": 0.05}), tall("Qc", 255, 144, 0.6, {"Qs": 0.35})])
    assert sorted(group_corners(row, decks=2, span=2.8).card_ids) == ["Qc", "Qs"]
    card = Detections.concat([tall("Qs", 80, 140, 0.9, {"Qc": 0.05}), tall("Qc", 178, 282, 0.6, {"Qs": 0.35})])
    assert group_corners(card, decks=2, span=2.8).card_ids == ["Qs"]


def test_two_decks_two_copies_far_beyond_the_decks_span_are_two_cards():
    # A hand shown in rows: one 7h ends the first row, the other starts the second, 230 px (11.5
    # index sizes) apart; the deck's corners lie 5 sizes apart. Generic pairing takes them for one
    # card; with the deck's span known they are two, and a true pair at the span is still one.
    far = corners(("7h", 500, 40), ("7h", 280, 100))
    assert group_corners(far, decks=2).card_ids == ["7h"]
    assert group_corners(far, decks=2, span=5.0).card_ids == ["7h", "7h"]
    near = corners(("7h", 100, 100), ("7h", 160, 180))  # 100 px: 5 sizes
    assert group_corners(near, decks=2, span=5.0).card_ids == ["7h"]
    assert group_corners(far, decks=1, span=5.0).card_ids == ["7h"]  # one deck: one card, as before


def test_a_jokers_two_small_stars_a_card_apart_are_one_card():
    # orell's red joker turned round on the four-seat film: its two stars, 18 px boxes 249 px
    # (99 mm) apart, 14 of their sizes: past a rank index's reach, within a joker's; two decks.
    dets = boxes(("RJ", 112, 230, 129, 247), ("RJ", 228, 450, 246, 468))
    assert group_corners(dets, decks=2).card_ids == ["RJ"]
    # a rank's index that far apart is two cards
    far = boxes(("5c", 112, 230, 129, 247), ("5c", 228, 450, 246, 468))
    assert group_corners(far, decks=2).card_ids == ["5c", "5c"]


def test_a_jokers_mark_in_pieces_along_a_row_is_one_corner():
    # plastic's "◆ Joker ◆" across the card's top boxed as three touching pieces, the bottom
    # row as one box, 176 px below: one red joker, even with two decks.
    dets = boxes(("RJ", 106, 246, 148, 275), ("RJ", 148, 250, 211, 270), ("RJ", 206, 246, 249, 273),
                 ("RJ", 107, 421, 169, 451))
    grouping = group_corners(dets, decks=2)
    assert grouping.card_ids == ["RJ"]
    assert grouping.cards[0].paired


def test_two_jokers_fanned_a_step_apart_stay_two_cards():
    # two decks' red jokers fanned 20 mm (50 px) apart: their marks lie a gap apart along the row
    dets = boxes(("RJ", 106, 246, 148, 275), ("RJ", 156, 246, 198, 275))
    assert group_corners(dets, decks=2).card_ids == ["RJ", "RJ"]


def test_a_jokers_other_marks_inside_its_card_are_not_a_second_joker():
    # plastic's black joker lying sideways on the five-seat film: its two words read (0.31, 0.19)
    # and paired 189 px apart; a mark in a third corner and the emblem in the middle of its face
    # read as BJ at 0.03, and pair with each other: weak, inside the first card's circle, one card.
    dets = boxes(("BJ", 127, 149, 153, 220), ("BJ", 304, 204, 333, 290),
                 ("BJ", 302, 145, 331, 178), ("BJ", 207, 203, 247, 237), scores=[0.31, 0.19, 0.034, 0.028])
    grouping = group_corners(dets, decks=2)
    assert grouping.card_ids == ["BJ"]
    assert grouping.cards[0].corners == (0, 1, 2, 3)
    # read as surely as the card's own corners, they are a second joker
    sure = boxes(("BJ", 127, 149, 153, 220), ("BJ", 304, 204, 333, 290),
                 ("BJ", 302, 145, 331, 178), ("BJ", 207, 203, 247, 237), scores=[0.31, 0.19, 0.3, 0.28])
    assert group_corners(sure, decks=2).card_ids == ["BJ", "BJ"]


def test_two_jokers_fanned_stay_two_cards():
    # two red jokers, their marks' corners 125 x 188 px apart, the second laid 35 px (14 mm) on
    # the first and hiding its far corner: the first's corner lies outside the second's card
    dets = boxes(("RJ", 90, 90, 110, 110), ("RJ", 125, 90, 145, 110), ("RJ", 250, 278, 270, 298))
    assert group_corners(dets, decks=2).card_ids == ["RJ", "RJ"]


def test_a_jokers_weak_wider_pair_of_marks_joins_its_surely_read_pair_of_words():
    # plastic's black joker lying sideways (the five-seat film's third hand): the words on its
    # long sides read 0.32 and 0.20 and pair; the marks of two corners read 0.15 and 0.08, pair
    # 207 px apart, wider than the words; the emblem on its face 0.02: one card
    dets = boxes(("BJ", 238.1, 189.5, 266.1, 267.2), ("BJ", 62.6, 117.9, 91.5, 185.4), ("BJ", 61.4, 232.6, 89.1, 261.7),
                 ("BJ", 239.3, 121.6, 267.3, 161.1), ("BJ", 146.3, 174.3, 180.3, 219.7),
                 scores=[0.195, 0.318, 0.149, 0.078, 0.022])
    grouping = group_corners(dets, decks=2)
    assert grouping.card_ids == ["BJ"]
    assert len(grouping.cards[0].corners) == 5
