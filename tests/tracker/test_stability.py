"""Zone stability on scripted detection streams: flicker, a hand over the zone, missed frames,
cards covered by later plays, sweeps, and misreads outvoted."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tests.kit.zone_feed import FPS, run
from tracker.stability import Seen, ZoneTracker


def card(c, x, y=50.0, conf=0.95, alts=()):
    return Seen(c, conf, alts, (x, y))




def still(seen, seconds, motion=False):
    return [(list(seen), motion)] * int(seconds * FPS)


def hand_over(seconds=0.5):
    return [([], True)] * int(seconds * FPS)


PAIR = [card("7s", 20), card("7h", 45)]


def test_a_play_commits_once_after_the_settle_time():
    zone = ZoneTracker(seat=1, settle=0.6)
    out, _ = run(zone, hand_over() + still(PAIR, 3))
    assert [s.cards for _, s in out] == [("7s", "7h")]
    t, settled = out[0]
    assert settled.seat == 1 and 0.6 <= t - 0.5 <= 1.2  # within a settle time (plus debounce) of the hand leaving
    assert settled.candidate().cards == ("7s", "7h")


def test_flicker_does_not_split_or_duplicate_a_play():
    rng = random.Random(4)
    zone = ZoneTracker(seat=0, k=3, n=5, settle=0.6)
    frames = hand_over()
    for _ in range(40):
        frames.append(([c for c in PAIR if rng.random() > 0.2], False))  # each card missed 1 frame in 5
    out, _ = run(zone, frames)
    assert [s.cards for _, s in out] == [("7s", "7h")]


def test_a_single_missed_frame_changes_nothing():
    zone = ZoneTracker(seat=0)
    frames = hand_over() + still(PAIR, 1.5) + [([], False)] + still(PAIR, 1.5)
    out, _ = run(zone, frames)
    assert len(out) == 1


def test_a_hand_over_the_zone_is_not_a_sweep_and_adds_nothing():
    zone = ZoneTracker(seat=2)
    half_seen = [card("7s", 20, conf=0.4)]  # the hand hides 7h while it hovers
    frames = hand_over() + still(PAIR, 1.5) + [(half_seen, True)] * 15 + still(PAIR, 1.5)
    out, _ = run(zone, frames)
    assert [s.cards for _, s in out] == [("7s", "7h")]


def test_cards_put_on_top_are_a_new_play_and_covered_ones_stay_played():
    zone = ZoneTracker(seat=0)
    second = [card("9d", 25), card("9c", 40)]  # lands on top of the pair and hides both 7s
    out, _ = run(zone, hand_over() + still(PAIR, 1.5) + hand_over() + still(second, 1.5))
    assert [s.cards for _, s in out] == [("7s", "7h"), ("9d", "9c")]


def test_cards_put_beside_earlier_ones_are_the_new_play():
    zone = ZoneTracker(seat=0)
    beside = PAIR + [card("Ks", 90)]
    out, _ = run(zone, hand_over() + still(PAIR, 1.5) + hand_over() + still(beside, 1.5))
    assert [s.cards for _, s in out] == [("7s", "7h"), ("Ks",)]


def test_sweep_clears_the_zone_for_the_next_trick():
    zone = ZoneTracker(seat=0)
    frames = hand_over() + still(PAIR, 1.5) + hand_over() + still([], 1.5) + hand_over() + still([card("Qs", 30)], 1.5)
    out, _ = run(zone, frames)
    # the emptied zone is reported (swept or picked up: the referee tells), then the next play
    assert [(s.cards, s.taken, s.emptied) for _, s in out] == [
        (("7s", "7h"), (), False), ((), ("7s", "7h"), True), (("Qs",), (), False)]
    assert zone.committed == {"Qs": 1}


def test_uncovered_card_already_played_this_hand_is_not_played_again():
    zone = ZoneTracker(seat=0)
    frames = (hand_over() + still(PAIR, 1.5) + hand_over() + still([], 1.5)  # sweep
              + still(PAIR, 1.5))  # the camera sees the swept pair again (pushed back into view)
    out, _ = run(zone, frames)
    assert [s.cards for _, s in out if not s.taken] == [("7s", "7h")]
    zone.new_hand()
    out, _ = run(zone, hand_over() + still([], 1.5) + hand_over() + still(PAIR, 1.5), start=20)
    assert [s.cards for _, s in out] == [("7s", "7h")]


def test_a_misread_is_outvoted_and_offered_as_an_alternative():
    zone = ZoneTracker(seat=0, k=3, n=5)
    frames = hand_over()
    for i in range(20):
        read = "8h" if i % 5 == 0 else "6h"  # one frame in five the 6 reads as 8
        frames.append(([card(read, 30, conf=0.8, alts=(("5h", 0.1),))], False))
    out, _ = run(zone, frames)
    settled = out[0][1]
    assert settled.cards == ("6h",)
    assert settled.confidences[0] < 0.8  # the vote share lowers it
    assert [a for a, _ in settled.alternatives[0]] == ["8h", "5h"]


def test_a_card_read_late_without_a_hand_amends_the_play():
    zone = ZoneTracker(seat=0)
    # the second card is only read once the first play has settled, and nobody reached in:
    # it was part of that play (its read flickered below k of n while the other settled)
    frames = hand_over() + still(PAIR[:1], 1.5) + still(PAIR, 1.5)
    out, _ = run(zone, frames)
    assert [(s.cards, s.amends) for _, s in out] == [(("7s",), ()), (("7s", "7h"), ("7s",))]
    assert len(out[1][1].confidences) == len(out[1][1].alternatives) == 2


def test_a_hand_over_the_zone_makes_the_next_card_a_new_play_not_a_late_one():
    zone = ZoneTracker(seat=0)
    out, _ = run(zone, hand_over() + still(PAIR[:1], 1.5) + hand_over() + still(PAIR, 1.5))
    assert [(s.cards, s.amends) for _, s in out] == [(("7s",), ()), (("7h",), ())]


def test_after_a_restart_late_reads_stay_nothing():
    zone = ZoneTracker(seat=0)
    zone.motion_since_commit = False  # what the pipeline does on a restart
    out, _ = run(zone, still(PAIR[:1], 1.5) + still(PAIR, 1.5))
    assert out == []


def test_without_a_motion_signal_settled_new_cards_are_plays():
    zone = ZoneTracker(seat=0)
    out, _ = run(zone, [(s, None) for s, _ in still(PAIR[:1], 1.5) + still(PAIR, 1.5)])
    assert [s.cards for _, s in out] == [("7s",), ("7h",)]


def test_reads_without_positions_are_matched_by_card():
    zone = ZoneTracker(seat=0)
    out, _ = run(zone, hand_over() + still([Seen("BJ"), Seen("RJ")], 1.5))
    assert sorted(out[0][1].cards) == ["BJ", "RJ"]


def test_two_decks_allow_the_same_card_twice():
    zone = ZoneTracker(seat=0, decks=2)
    two = [card("5s", 20), card("5s", 60)]
    out, _ = run(zone, hand_over() + still(two, 1.5))
    assert out[0][1].cards == ("5s", "5s")


def test_one_id_at_two_places_in_one_deck_is_played_once_with_the_other_as_a_double():
    zone = ZoneTracker(seat=0)
    # The 4s is read 4d (4s its next guess) beside the 4d, which reads 4d every frame.
    frames = hand_over()
    for i in range(15):
        misread = card("4d", 60, alts=(("4s", 0.3),)) if i % 3 else card("4s", 60)
        frames.append(([card("4d", 20), misread, card("9c", 100)], False))
    out, _ = run(zone, frames)
    settled = out[0][1]
    assert sorted(settled.cards) == ["4d", "9c"]
    assert len(settled.doubles) == 1
    double, alts = settled.doubles[0]
    assert double == "4d" and alts[0][0] == "4s"  # its other read, by vote share
    assert settled.candidate().doubles == settled.doubles


def test_a_card_played_before_and_uncovered_is_no_double():
    zone = ZoneTracker(seat=0, settle=0.6)
    out, t = run(zone, hand_over() + still([card("4d", 20)], 1.5))
    assert out[0][1].cards == ("4d",)
    out, _ = run(zone, hand_over() + still([card("4d", 20), card("5h", 60)], 1.5), start=t)
    assert out[0][1].cards == ("5h",) and out[0][1].doubles == ()


def test_two_decks_make_a_double_only_of_a_third_copy():
    zone = ZoneTracker(seat=0, decks=2)
    three = [card("5s", 20), card("5s", 60), card("5s", 100)]
    out, _ = run(zone, hand_over() + still(three, 1.5))
    assert out[0][1].cards == ("5s", "5s") and [d for d, _ in out[0][1].doubles] == ["5s"]


def test_kitty_zone_settles_without_a_seat():
    zone = ZoneTracker(seat=None)
    out, _ = run(zone, hand_over() + still(PAIR + [card("BJ", 70)], 1.5))
    assert out[0][1].seat is None and len(out[0][1].cards) == 3
    with pytest.raises(ValueError, match="kitty"):
        out[0][1].candidate()


@pytest.mark.parametrize("kw", [{"k": 0}, {"k": 6, "n": 5}, {"settle": -1}])
def test_bad_settings_are_refused(kw):
    with pytest.raises(ValueError):
        ZoneTracker(seat=0, **kw)


def test_a_card_whose_read_keeps_flipping_still_settles():
    zone = ZoneTracker(seat=2, k=3, n=5)
    frames = hand_over()
    for i in range(20):
        read = ("As", "As", "Kc", "Kd", "Kd")[i % 5]  # no read holds a majority of any five frames
        frames.append(([card("Ks", 20), card(read, 45, conf=0.7)], False))
    out, _ = run(zone, frames)
    assert len(out) == 1
    settled = out[0][1]
    assert settled.cards[0] == "Ks" and settled.cards[1] in ("As", "Kd")
    assert settled.confidences[1] < 0.7 * 0.5  # its read is right at most 2 times in 5
    assert {a for a, _ in settled.alternatives[1]} == {"As", "Kc", "Kd"} - {settled.cards[1]}


def test_a_different_card_dropped_on_the_same_spot_is_a_new_card():
    zone = ZoneTracker(seat=0)
    out, _ = run(zone, hand_over() + still([card("7s", 30)], 1.5) + hand_over() + still([card("9d", 31)], 1.5))
    assert [s.cards for _, s in out] == [("7s",), ("9d",)]


def test_a_card_read_now_at_one_corner_now_at_both_still_settles():
    # A rocket: BJ read steadily; RJ's reads come from its top corner, its bottom corner or
    # both (their midpoint), each more than a slot apart, as a card near the finder's
    # threshold is read on a real table. The zone holds the same two cards all along.
    zone = ZoneTracker(seat=0, k=3, n=5, settle=0.5)
    frames = hand_over()
    for i in range(40):
        x = (20.0, 64.0, 108.0)[(i // 3) % 3]
        frames.append(([card("BJ", 40, y=150), card("RJ", x, conf=0.2)], False))
    out, _ = run(zone, frames)
    assert [sorted(s.cards) for _, s in out] == [["BJ", "RJ"]]


@pytest.mark.parametrize("decks", [1, 2])
def test_a_played_card_lost_and_found_at_its_place_is_no_new_play(decks):
    # The 4d is played, then covered by the next play for a while, then seen again where it
    # lay: with two decks a second 4d exists, but not at the place of the first.
    zone = ZoneTracker(seat=0, decks=decks)
    out, t = run(zone, hand_over() + still([card("4d", 20)], 1.5))
    assert out[0][1].cards == ("4d",)
    out, _ = run(zone, hand_over() + still([card("5h", 24)], 1.5) + still([card("5h", 24), card("4d", 20)], 1.5),
                 start=t)
    assert [s.cards for _, s in out] == [("5h",)]


def test_two_decks_a_second_copy_put_down_elsewhere_is_a_play():
    zone = ZoneTracker(seat=0, decks=2)
    out, t = run(zone, hand_over() + still([card("4d", 20)], 1.5))
    out, _ = run(zone, hand_over() + still([card("4d", 20), card("4d", 160)], 1.5), start=t)
    assert [s.cards for _, s in out] == [("4d",)]


def test_two_decks_a_played_card_seen_again_by_one_corner_is_no_new_play():
    # Both corners read: its place is the card's middle; once the next play covers one
    # corner, the other is read half a card away, a new place.
    zone = ZoneTracker(seat=0, decks=2)
    out, t = run(zone, hand_over() + still([card("5c", 60, 60)], 1.5))
    out, _ = run(zone, hand_over() + still([card("10d", 84), card("5c", 35, 24)], 2.0), start=t)
    assert [s.cards for _, s in out] == [("10d",)]


def test_a_card_the_referee_left_out_of_a_play_may_come_later_as_itself():
    zone = ZoneTracker(seat=2)
    out, t = run(zone, hand_over() + still([card("RJ", 20), card("8c", 60, conf=0.2)], 1.5))
    assert sorted(out[0][1].cards) == ["8c", "RJ"]
    zone.replace_played(Counter(out[0][1].cards), Counter(["RJ"]))  # the 8c was a face's picture
    out, t = run(zone, hand_over() + still([], 1.5), start=t)  # the trick is swept
    out, _ = run(zone, hand_over() + still([card("8c", 40)], 1.5), start=t)
    assert [s.cards for _, s in out] == [("8c",)]


def test_a_card_whose_read_flickers_after_it_counted_still_settles():
    # The five-seat film's marker K♣: laid alone for 1.4 s, read in frames 1 1 1 0 1 0 0 1 then
    # in none until the hand took it back; it counted for 0.3 s at a time and never settled.
    zone = ZoneTracker(seat=2, k=3, n=5, settle=0.5)
    seen = "11101001000000"
    frames = hand_over() + [([card("Kc", 385, 82, conf=0.7)] if c == "1" else [], False) for c in seen]
    out, _ = run(zone, frames + hand_over())
    assert [s.cards for _, s in out] == [("Kc",)]


def test_a_lone_read_that_never_counted_settles_nothing():
    zone = ZoneTracker(seat=2, k=3, n=5, settle=0.5)
    frames = hand_over() + [([card("Kc", 385, 82, conf=0.3)] if c == "1" else [], False) for c in "1001000100100"]
    out, _ = run(zone, frames)
    assert out == []


def test_after_a_hand_over_the_zone_a_card_is_held_only_on_reads_since():
    # Four seats orell: seat 3 swept its trio away; one card was read once more after the hand
    # left, then never. Held on its reads from before the hand, it stayed counted while the
    # others went (the referee took the others for picked up from the play). It leaves as soon
    # as it is under 3 of 5, as a card never held would.
    zone = ZoneTracker(seat=3, k=3, n=5, settle=0.5)
    trio = [card("10d", 85, 196), card("10h", 121, 144), card("10s", 124, 131)]
    zone_frames = [(trio, False)] * 8
    for t, (seen, motion) in enumerate(zone_frames):
        zone.update(t / 10, seen, motion=motion)
    assert zone.stable == Counter({"10d": 1, "10h": 1, "10s": 1})
    zone.update(0.8, [], motion=True)  # the hand sweeps the trio
    zone.update(0.9, [trio[2]], motion=False)  # the 10♠ read once more, then nothing
    for t in (1.0, 1.1, 1.2):
        zone.update(t, [], motion=False)
    assert zone.stable == Counter()  # 2 of 5 reads: gone, all three together
    # a card read 3 times since the hand is held again while its read flickers
    zone.update(1.3, [], motion=True)
    for t, seen in zip((1.4, 1.5, 1.6, 1.7, 1.8, 1.9), ([trio[0]],) * 3 + ([],) * 3, strict=True):
        zone.update(t, seen, motion=False)
    assert zone.stable == Counter({"10d": 1})


def test_a_card_read_now_and_then_settles_less_sure_than_one_read_in_every_frame():
    """A club pip on a queen's face read as a 7♠ in 3 frames of 5 settles beside the queen, at
    its read's confidence times that share: under the referee's phantom bar (0.3), so that the
    play refused as read (Q♣ 7♠) is tried without it."""
    zone = ZoneTracker(seat=3, k=3, n=5)
    frames = hand_over()
    for i in range(20):
        seen = [card("Qc", 20, conf=0.65)] + ([card("7s", 32, conf=0.36)] if i % 5 in (0, 2, 4) else [])
        frames.append((seen, False))
    out, _ = run(zone, frames)
    settled = out[0][1]
    assert settled.cards == ("Qc", "7s")
    assert settled.confidences[0] == pytest.approx(0.65)
    assert settled.confidences[1] <= 0.36 * 0.6 + 1e-6 < 0.3
