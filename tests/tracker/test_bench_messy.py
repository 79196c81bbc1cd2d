"""``python -m bench.tracker --messy``: its figures from a film's truth and what was read (a
silent wrong score, a fault answered by an alert) and, on a toy film, the whole run."""

from __future__ import annotations

import json

import pytest

from bench import tracker as tracker_bench


def _hand(points, plays=(("3s",), ("5s",))):
    actions = [{"seat": i % 3, "kind": "play", "cards": list(c), "time": 2.0 + 3 * i} for i, c in enumerate(plays)]
    return {"landlord": 0, "bid": 1, "actions": actions, "result": {"points": points}}


def _truth(*hands, mess=()):
    return {"hands": list(hands), "simulate": {"mess": list(mess)}}


def _alert(hand, t, kind="picked_up"):
    return {"hand": hand, "alert": kind, "seat": 1, "cards": "9h", "time": t}


def test_a_hand_scored_wrong_with_no_alert_on_it_is_a_silent_wrong_score():
    truth = _truth(_hand([2, -1, -1]), _hand([-2, 1, 1]))
    read = {"hands": [_hand([2, -1, -1]), _hand([2, -1, -1])], "alerts": [_alert(2, 5.0, "not_announced")]}
    figures = tracker_bench.messy_figures(truth, read)
    assert figures["silent_wrong"] == 1 and figures["hands_exact_points"] == 1
    assert figures["alerts"] == 0  # a reminder to announce says nothing about a play
    read["alerts"].append(_alert(2, 6.0, "does_not_beat"))
    assert tracker_bench.messy_figures(truth, read)["silent_wrong"] == 0


def test_a_fault_counts_as_alerted_by_an_alert_in_its_hand_from_its_landing_on():
    fault = {"kind": "dropped", "hand": 0, "time": 10.0, "end": 12.0, "seat": 1, "cards": ["9h"], "fault": True}
    truth = _truth(_hand([2, -1, -1]), mess=[fault, {"kind": "lamp", "hand": 0, "time": 4.0, "end": 4.0}])
    read = {"hands": [_hand([2, -1, -1])], "alerts": [_alert(1, 8.0)]}  # before the card was dropped
    assert tracker_bench.messy_figures(truth, read)["faults"] == 1
    assert tracker_bench.messy_figures(truth, read)["faults_alerted"] == 0
    read["alerts"].append(_alert(1, 14.5))
    figures = tracker_bench.messy_figures(truth, read)
    assert figures["faults_alerted"] == 1 and figures["alert_kinds"] == {"picked_up": 2}


def test_an_unknown_film_name_is_refused(capsys):
    with pytest.raises(SystemExit):
        tracker_bench.main(["--messy", "runs/x", "--only", "spill"])
    assert "unknown film(s) spill" in capsys.readouterr().err


@pytest.mark.slow
def test_the_take_back_and_dropped_card_toy_films_are_read_with_every_fault_alerted(tmp_path, capsys):
    whole = tracker_bench.bench_messy(tmp_path, hands=1, cards=6, detector_spec="toy", backend="onnx", style="toy",
                                      only=("dropped", "takeback"))
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert [line["name"] for line in lines] == ["messy: dropped", "messy: takeback", "messy: all films"]
    assert whole["faults"] >= 2 and whole["faults_alerted"] == whole["faults"]
    assert whole["silent_wrong"] == 0 and whole["phantom"] == 0


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["pushed", "object", "sleeve", "knock"])
def test_a_toy_film_of_a_disturbance_the_camera_reads_through_is_read_exactly(tmp_path, capsys, kind):
    whole = tracker_bench.bench_messy(tmp_path, hands=1, cards=6, detector_spec="toy", backend="onnx", style="toy",
                                      only=(kind,))
    assert whole["exact"] == whole["plays"] > 0 and whole["phantom"] == 0
    assert whole["silent_wrong"] == 0 and whole["alerts"] == 0
