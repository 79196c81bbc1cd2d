"""The benchmark's scoring: matching, AP, thresholds."""

from __future__ import annotations

import numpy as np
import pytest

from sim.training.evaluate import (
    TableTally,
    Tally,
    at_working_scale,
    average_precision,
    grouped_points,
    inside_quad,
    iou_matrix,
    joker_marks,
    match,
    table_cards,
)
from vision.cards import CARD_INDEX
from vision.detections import Detections
from vision.grouping import FUSE_SHARE


def test_iou_of_identical_half_and_disjoint_boxes():
    m = iou_matrix([[0, 0, 10, 10]], [[0, 0, 10, 10], [0, 0, 10, 5], [20, 20, 30, 30]])
    np.testing.assert_allclose(m, [[1.0, 0.5, 0.0]])


def test_each_truth_matches_at_most_one_prediction_best_score_first():
    truth = np.array([[0, 0, 10, 10]])
    preds = np.array([[0, 0, 10, 10], [1, 0, 11, 10]])
    assert match(preds, [0.4, 0.9], truth, 0.5).tolist() == [-1, 0]


def test_ap_is_one_when_every_truth_is_found_above_every_false_alarm():
    assert average_precision(np.array([0.9, 0.8, 0.1]), np.array([1, 1, 0]), 2) == pytest.approx(1.0)


def test_ap_falls_when_a_false_alarm_outranks_a_hit_or_a_truth_is_missed():
    assert average_precision(np.array([0.9, 0.8]), np.array([0, 1]), 1) == pytest.approx(0.5, abs=0.01)
    assert average_precision(np.array([0.9]), np.array([1]), 2) == pytest.approx(0.505, abs=0.01)


def test_tally_scores_cards_only_when_read_right():
    tally = Tally()
    truth = np.array([[0, 0, 10, 10], [50, 50, 60, 60]])
    # Both boxes found; the second read as the wrong card.
    tally.add(truth, [0.9, 0.8], [3, 7], [0.9, 0.8], truth, [3, 5])
    assert tally.finder_ap() == pytest.approx(1.0)
    at = tally.at_threshold(0.5)
    assert at["recall"] == 0.5 and at["precision"] == 0.5
    assert tally.recall_per_class(0.5) == {3: 1.0, 5: 0.0}
    assert tally.at_threshold(0.95)["recall"] == 0.0
    assert tally.best_f1()["f1"] == pytest.approx(2 / 3)


def test_tally_tells_corners_the_finder_missed_from_those_the_reader_misread():
    tally = Tally()
    truth = np.array([[0, 0, 10, 10], [50, 50, 60, 60], [100, 100, 110, 110]])
    # the first boxed and read right, the second boxed but misread, the third not boxed at all
    tally.add(truth[:2], [0.9, 0.8], [3, 7], [0.9, 0.8], truth, [3, 5, 9])
    assert tally.lost(0.5) == {"boxed": pytest.approx(2 / 3), "boxed_read_right": pytest.approx(1 / 3)}
    assert tally.lost(0.85) == {"boxed": pytest.approx(1 / 3), "boxed_read_right": pytest.approx(1 / 3)}
    empty = Tally()
    empty.add(np.zeros((0, 4)), [], [], [], truth[:1], [3])
    assert empty.lost(0.1) == {"boxed": 0.0, "boxed_read_right": 0.0}


def test_lost_by_size_groups_corners_by_their_longer_side():
    tally = Tally()
    truth = np.array([[0, 0, 10, 8], [50, 50, 60, 64], [100, 100, 140, 110], [200, 200, 214, 210]])
    # a 10 px corner found, a 14 px one found but misread, a 40 px one found, a 14 px one missed
    tally.add(truth[:3], [0.9, 0.8, 0.7], [1, 9, 3], [0.9, 0.8, 0.7], truth, [1, 2, 3, 4])
    rows = tally.lost_by_size(0.5, edges=(0, 12, 16, 50))
    assert [(r["from"], r["to"], r["corners"]) for r in rows] == [(0, 12, 1), (12, 16, 2), (16, 50, 1)]
    assert rows[0]["boxed"] == rows[0]["boxed_read_right"] == 1.0
    assert rows[1]["boxed"] == 0.5 and rows[1]["boxed_read_right"] == 0.0
    assert rows[2]["boxed_read_right"] == 1.0
    assert Tally().lost_by_size(0.5) == []


def test_inside_quad_takes_tilted_quads_in_either_turning_order():
    diamond = np.array([[5, 0], [10, 5], [5, 10], [0, 5]])
    points = np.array([[5, 5], [1, 1], [9, 5], [11, 5]])
    assert inside_quad(points, diamond).tolist() == [True, False, True, False]
    assert inside_quad(points, diamond[::-1]).tolist() == [True, False, True, False]


def test_table_tally_names_a_card_anywhere_on_it_and_counts_a_misread_once_per_image():
    card_a = (3, [[0, 0], [60, 0], [60, 90], [0, 90]], True)
    card_b = (5, [[100, 0], [160, 0], [160, 90], [100, 90]], True)
    hidden = (9, [[200, 0], [260, 0], [260, 90], [200, 90]], False)  # face up, no corner in view
    table = TableTally()
    boxes = np.array([
        [20, 35, 40, 55],     # card 3 read at its middle (a joker's emblem, say): named
        [105, 5, 115, 20],    # card 5 misread as 7 in one corner ...
        [145, 70, 155, 85],   # ... and in the other: one false name, not two
        [210, 5, 220, 20],    # the card without a readable corner, read right: neither
        [300, 300, 310, 310],  # on the bare table: a false name
    ])
    table.add(boxes, [3, 7, 7, 9, 4], [0.9, 0.8, 0.6, 0.7, 0.3], [card_a, card_b, hidden])
    at = table.at_threshold(0.5)
    assert at["cards"] == 2 and at["named"] == 0.5 and at["false_names"] == 1
    assert at["precision"] == 0.5
    assert table.at_threshold(0.2)["false_names"] == 2
    assert table.at_threshold(0.95)["named"] == 0.0


def test_grouped_cards_fuse_a_misread_corner_into_its_card_on_the_table_tally():
    kh, ace = CARD_INDEX["Kh"], CARD_INDEX["As"]
    cards = [(kh, [[0, 0], [70, 0], [70, 100], [0, 100]], True),
             (ace, [[200, 0], [270, 0], [270, 100], [200, 100]], True)]
    boxes = np.array([[5, 5, 15, 25], [55, 75, 65, 95],          # Kh, both corners read alike
                      [205, 5, 215, 25], [255, 75, 265, 95]],    # As, its second corner read Ac
                     np.float32)
    dets = Detections(boxes, np.array([0.8, 0.8, 0.72, 0.48]), np.array([kh, kh, ace, CARD_INDEX["Ac"]]),
                      np.full(4, 0.8), np.array([[-1], [-1], [CARD_INDEX["Ac"]], [ace]]),
                      np.array([[0.0], [0.0], [0.05], [0.35]]))
    counts = {}
    for share in (FUSE_SHARE, None):
        table = TableTally()
        points, classes = grouped_points(dets, 0.17, share)
        table.add(points, classes, np.ones(len(classes)), cards)
        counts[share] = (len(classes), table.at_threshold(0.5))
    assert counts[FUSE_SHARE][0] == 2 and counts[FUSE_SHARE][1]["false_names"] == 0
    assert counts[None][0] == 3 and counts[None][1]["false_names"] == 1
    assert counts[FUSE_SHARE][1]["named"] == counts[None][1]["named"] == 1.0
    # corners under the threshold are not grouped at all: the Kh alone is left
    assert grouped_points(dets, 0.75)[1].tolist() == [kh]


def test_table_tally_keeps_false_names_of_different_images_apart():
    table = TableTally()
    for _ in range(2):
        table.add(np.array([[0, 0, 10, 10]]), [7], [0.9], [])
    assert table.at_threshold(0.5)["false_names"] == 2
    assert table.at_threshold(0.5)["precision"] == 0.0


def test_table_cards_keeps_face_up_cards_and_marks_those_with_a_visible_corner():
    square = [[0, 0], [60, 0], [60, 90], [0, 90]]
    row = {"corners": [{"card": "3s", "box": [2, 2, 12, 20], "visible": 1.0},
                       {"card": "5h", "box": [2, 2, 12, 20], "visible": 0},  # under another card
                       {"card": "3s", "box": [300, 300, 310, 320], "visible": 1.0}],  # another 3s
           "cards": [{"card": "3s", "face_up": True, "quad": square},
                     {"card": "5h", "face_up": True, "quad": square},
                     {"card": "7d", "face_up": False, "quad": square}]}
    cards = table_cards(row)
    assert [(c, readable) for c, _, readable in cards] == [(CARD_INDEX["3s"], True), (CARD_INDEX["5h"], False)]


def test_a_joker_read_on_its_own_unlabelled_marks_is_set_aside_and_nothing_else():
    rj, bj, five = CARD_INDEX["RJ"], CARD_INDEX["BJ"], CARD_INDEX["5h"]
    row = {
        "cards": [
            {"card": "RJ", "face_up": True, "quad": [[0, 0], [60, 0], [60, 90], [0, 90]]},
            {"card": "5h", "face_up": True, "quad": [[40, 60], [100, 60], [100, 150], [40, 150]]},  # over RJ's corner
            {"card": "BJ", "face_up": False, "quad": [[200, 0], [260, 0], [260, 90], [200, 90]]},
        ],
        "corners": [{"card": "RJ", "box": [2, 2, 10, 20], "visible": 1.0}],
    }
    boxes = np.array([
        [2, 2, 10, 20],     # RJ on its labelled corner: scored as usual
        [48, 2, 56, 20],    # RJ on the emblem in its other top corner: set aside
        [25, 40, 35, 50],   # RJ on its middle emblem: set aside
        [25, 40, 35, 50],   # ... but read as the black joker: a false alarm still
        [50, 70, 58, 88],   # RJ where the 5h lies over it: a false alarm still
        [205, 5, 215, 20],  # BJ on a face-down card: a false alarm still
        [28, 40, 38, 50],   # 5h read on the joker: a false alarm still
    ])
    classes = [rj, rj, rj, bj, rj, bj, five]
    assert joker_marks(boxes, classes, row).tolist() == [False, True, True, False, False, False, False]
    assert joker_marks(np.zeros((0, 4)), [], row).tolist() == []


def test_at_working_scale_sets_aside_small_corners_and_small_false_alarms_only():
    truth = np.array([[0, 0, 10, 24],      # 24 px: scored
                      [100, 0, 108, 14]])  # 14 px: set aside
    boxes = np.array([
        [0, 0, 10, 22],        # on the large corner, itself under 20 px: counts
        [100, 0, 108, 14],     # on the small corner: set aside
        [300, 300, 308, 314],  # a small false alarm: set aside
        [400, 400, 412, 430],  # a large false alarm: counts
    ])
    kept, corners = at_working_scale(boxes, truth, 20)
    assert kept.tolist() == [True, False, False, True]
    assert corners.tolist() == [True, False]
    kept, corners = at_working_scale(boxes, truth, 10)  # everything counts
    assert kept.all() and corners.all()
    kept, corners = at_working_scale(np.zeros((0, 4)), truth, 20)
    assert kept.tolist() == [] and corners.tolist() == [True, False]
    kept, corners = at_working_scale(boxes, np.zeros((0, 4)), 20)  # by their own size alone
    assert kept.tolist() == [True, False, False, True] and corners.tolist() == []
