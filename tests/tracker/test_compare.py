"""Comparing a read record with the truth: exact, phantom and missed plays, exact points."""

from __future__ import annotations

from tracker.compare import compare_records


def play(seat, cards, t=None):
    return {"seat": seat, "kind": "play", "cards": cards.split(), "time": t}


def hand(actions, points=(2, -1, -1), landlord=0):
    return {"landlord": landlord, "actions": actions, "result": {"points": list(points)}}


TRUTH = {"hands": [hand([play(0, "3s", 1.0), {"seat": 1, "kind": "pass", "cards": []}, play(2, "9h", 5.0),
                         play(0, "Ks Kh", 9.0)])]}


def test_identical_read_is_all_exact_with_delays():
    read = {"hands": [hand([play(0, "3s", 1.5), play(2, "9h", 5.4), play(0, "Kh Ks", 9.8)])]}
    c = compare_records(TRUTH, read)
    assert (c.plays, c.exact, c.phantom, c.missed, c.hands_exact_points) == (3, 3, 0, 0, 1)
    assert [round(d, 1) for d in c.delays] == [0.5, 0.4, 0.8]
    assert c.to_dict()["delay_max_s"] == 0.8


def test_misread_card_is_one_missed_and_one_phantom():
    read = {"hands": [hand([play(0, "3s"), play(2, "6h"), play(0, "Ks Kh")], points=(4, -2, -2))]}
    c = compare_records(TRUTH, read)
    assert (c.exact, c.phantom, c.missed, c.hands_exact_points) == (2, 1, 1, 0)
    assert round(c.exact_share, 3) == 0.667


def test_unread_hand_is_all_missed_and_extra_hands_are_phantoms():
    c = compare_records(TRUTH, {"hands": []})
    assert (c.missed, c.hands, c.hands_exact_points) == (3, 1, 0)
    extra = {"hands": TRUTH["hands"] + [hand([play(1, "4d")])]}
    assert compare_records(TRUTH, extra).phantom == 1
