"""Comparing a read record with the truth: exact, phantom and missed plays, exact points."""

from __future__ import annotations

from sim.compare import align_hands, compare_records


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


H1 = hand([play(0, "3s"), play(1, "5d")])
H2 = hand([play(2, "7c"), play(0, "9c")], points=(-2, 1, 1))
H3 = hand([play(1, "Jd"), play(2, "Qd"), play(0, "2h")])


def test_a_hand_never_read_does_not_shift_the_hands_after_it():
    c = compare_records({"hands": [H1, H2, H3]}, {"hands": [H1, H3]})
    assert (c.hands, c.exact, c.missed, c.phantom, c.hands_exact_points) == (3, 5, 2, 0, 2)
    assert align_hands([H1, H2, H3], [H1, H3]) == [0, None, 1]


def test_an_extra_read_hand_counts_as_phantom_plays_only():
    junk = hand([play(1, "4h"), play(2, "4h")])
    c = compare_records({"hands": [H1, H3]}, {"hands": [H1, junk, H3]})
    assert (c.exact, c.missed, c.phantom, c.hands_exact_points) == (5, 0, 2, 2)


def test_a_hand_read_all_wrong_still_pairs_with_its_place():
    wrong = hand([play(2, "8c"), play(0, "10c")], points=(-2, 1, 1))
    assert align_hands([H1, H2, H3], [H1, wrong, H3]) == [0, 1, 2]
    c = compare_records({"hands": [H1, H2, H3]}, {"hands": [H1, wrong, H3]})
    assert (c.exact, c.missed, c.phantom, c.hands_exact_points) == (5, 2, 2, 3)
