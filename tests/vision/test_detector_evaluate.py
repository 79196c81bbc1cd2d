"""The benchmark's scoring: matching, AP, thresholds."""

from __future__ import annotations

import numpy as np
import pytest

from vision.evaluate import Tally, average_precision, iou_matrix, match


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
