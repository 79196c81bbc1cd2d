"""Cards picked up again: a card taken back from a play, a dropped card (掉牌) picked up, a pile
squared or covered for a while; the zone reports them and the referee corrects the record or
raises an alert, never storing a card that was only put down."""

from __future__ import annotations

import pytest

from engine.cards import parse_cards
from engine.events import Correction, Pass
from tests.kit.zone_feed import FPS, run
from tracker.records import Alert
from tracker.referee import CameraReferee, PlayCandidate
from tracker.stability import Seen, ZoneTracker
from tracker.store import EventStore
from tracker.takeback import TakeBacks


def card(c, x, y=50.0, conf=0.95):
    return Seen(c, conf, (), (x, y))




def still(seen, seconds):
    return [(list(seen), False)] * int(seconds * FPS)


def hand_over(seconds=0.5):
    return [([], True)] * int(seconds * FPS)


PAIR = [card("7s", 20), card("7h", 45)]


@pytest.fixture
def ref():
    store = EventStore(":memory:")
    yield CameraReferee(store, store.create_match(("甲", "乙", "丙")))
    store.close()


def P(seat, text, t=None):  # noqa: N802 - reads like a play in the tests
    return PlayCandidate(seat, tuple(text.split()), t)


def kinds(records):
    return [r.alert if isinstance(r, Alert) else r.kind for r in records]


def play(takebacks, ref, candidate):
    """What the session does with a play: an emptied zone held as maybe swept is decided first."""
    return takebacks.before_play(ref, candidate) + ref.play(candidate)


def plays(ref):
    return [(p.seat, " ".join(str(c) for c in p.cards)) for p in ref.hand.plays]


# ---------------------------------------------------------------------- the zone
def test_a_card_taken_back_from_a_play_is_reported_and_no_longer_played():
    zone = ZoneTracker(seat=0)
    laid = PAIR + [card("Kd", 70)]
    out, t = run(zone, hand_over() + still(laid, 1.5) + hand_over() + still(PAIR, 1.5))
    assert [(s.cards, s.taken) for _, s in out] == [(("7s", "7h", "Kd"), ()), (("7s", "7h"), ("Kd",))]
    assert zone.played == {"7s": 1, "7h": 1}
    # the Kd lying again where it lay (a cup lifted off it): the play whole again
    out, _ = run(zone, hand_over() + still(laid, 1.5), start=t)
    assert [(s.cards, s.returned) for _, s in out] == [(("7s", "7h", "Kd"), ("Kd",))]
    assert zone.played == {"7s": 1, "7h": 1, "Kd": 1}


def test_a_read_that_drops_out_with_no_hand_over_the_zone_is_no_take_back():
    zone = ZoneTracker(seat=0)
    out, _ = run(zone, hand_over() + still(PAIR + [card("Kd", 70)], 1.5) + still(PAIR, 1.5))
    assert [s.taken for _, s in out] == [()]


def test_a_pile_squared_up_is_no_take_back():
    zone = ZoneTracker(seat=0)
    first = [card("Kd", 120)]
    stacked = [card("7h", 80)]  # every card onto one stack: the Kd and the 7s lie under the 7h
    out, _ = run(zone, hand_over() + still(first, 1.5) + hand_over() + still(first + PAIR, 1.5)
                 + hand_over() + still(stacked, 1.5))
    assert [(s.cards, s.taken) for _, s in out] == [(("Kd",), ()), (("7s", "7h"), ())]
    assert zone.played == {"Kd": 1, "7s": 1, "7h": 1}


def test_a_lone_play_squared_into_one_stack_reads_as_a_card_taken_back():
    # nothing lay there before the pair: a card hidden under the other and a card picked up look
    # alike, so the referee gets a taken_back alert (and a button to record the pair as laid)
    zone = ZoneTracker(seat=0)
    out, _ = run(zone, hand_over() + still(PAIR, 1.5) + hand_over() + still([card("7h", 35)], 1.5))
    assert [(s.cards, s.taken) for _, s in out] == [(("7s", "7h"), ()), (("7h",), ("7s",))]


# ---------------------------------------------------------------------- the referee
def test_a_card_taken_back_leaves_the_play_as_the_cards_left_and_comes_back_with_it(ref):
    takebacks = TakeBacks()
    ref.play(P(1, "7s 7h 7d Kd", t=2.0))
    records = takebacks.taken(ref, 1, ("Kd",), ("7s", "7h", "7d"), False, 4.0)
    assert kinds(records) == ["correction", "taken_back"]
    assert plays(ref) == [(1, "7s 7h 7d")]
    alert = records[-1]
    assert alert.text("zh", ("甲", "乙", "丙")) == "乙 放下 7♠ 7♥ 7♦ K♦ 后又收回了 K♦，这一手按留下的 7♠ 7♥ 7♦ 记：请核对"
    assert "took back K♦" in alert.message
    # the Kd was only covered: lying there again, the correction is reverted
    assert kinds(takebacks.returned(ref, 1, ("Kd",), ("7s", "7h", "7d", "Kd"), 6.0)) == ["correction"]
    assert plays(ref) == [(1, "7s 7h 7d Kd")]


def test_a_play_refused_as_laid_is_refereed_again_as_the_cards_left(ref):
    takebacks = TakeBacks()
    assert kinds(ref.play(P(1, "7s 7h Kd", t=2.0)))[-1] == "illegal_combination"
    records = takebacks.taken(ref, 1, ("Kd",), ("7s", "7h"), False, 4.0)
    assert kinds(records) == ["taken_back", "play"]
    assert plays(ref) == [(1, "7s 7h")]


def test_a_refused_play_half_hidden_by_a_sleeve_is_refereed_whole_again_once_the_sleeve_lifts(ref):
    takebacks = TakeBacks()
    assert kinds(ref.play(P(1, "7s 7h Kd", t=2.0)))[-1] == "illegal_combination"
    # a sleeve rests over the 7h and the Kd: they look taken back, and the 7s is refereed as the play
    assert kinds(takebacks.taken(ref, 1, ("7h", "Kd"), ("7s",), False, 4.0)) == ["taken_back", "play"]
    assert plays(ref) == [(1, "7s")]
    # the sleeve lifted, the cards lie there again: the 7s comes off, the three are refereed again
    records = takebacks.returned(ref, 1, ("7h", "Kd"), ("7s", "7h", "Kd"), 6.0)
    assert kinds(records) == ["correction", "illegal_combination"]
    assert plays(ref) == [] and ref.hand.turn == 1


def test_a_dropped_card_picked_up_beside_other_cards_comes_off_the_record_with_its_passes(ref):
    takebacks = TakeBacks()
    ref.play(P(1, "5s", t=2.0))
    ref.play(P(0, "9h", t=5.0))  # seat 3 (not on turn) is inferred to have passed
    assert plays(ref) == [(1, "5s"), (0, "9h")]
    records = takebacks.taken(ref, 0, ("9h",), (), False, 7.0)
    assert kinds(records) == ["correction", "correction", "picked_up"]
    assert all(r.action == "delete" for r in records if isinstance(r, Correction))
    assert plays(ref) == [(1, "5s")] and ref.hand.turn == 2 and not any(isinstance(e, Pass) for e in ref.hand.events)
    assert takebacks.returned(ref, 0, ("9h",), ("9h",), 8.0) and plays(ref) == [(1, "5s"), (0, "9h")]


def test_a_dropped_card_the_rules_refused_is_no_play_once_picked_up_and_its_passes_come_off(ref):
    takebacks = TakeBacks()
    play(takebacks, ref, P(1, "Ks Kh", t=2.0))
    # seat 1 (not on turn: seat 3 is) drops a 3s beside a card already there: a lead that does not
    # beat the pair, as if a play were missed (held for the page), seat 3's pass inferred before it
    assert kinds(play(takebacks, ref, P(0, "3s", t=5.0))) == ["pass", "missed_play"]
    assert ref.pending.held is not None
    records = takebacks.taken(ref, 0, ("3s",), (), False, 7.0)
    assert kinds(records) == ["correction", "picked_up"]
    assert ref.hand.turn == 2 and plays(ref) == [(1, "Ks Kh")] and not any(isinstance(e, Pass) for e in ref.hand.events)
    assert ref.pending.held is None and ref.pending.refused is None
    assert "放下后又拿起来了" in records[-1].text("zh", ("甲", "乙", "丙"))
    # seat 3 on turn beats the pair: stored as read, nothing held comes back with it
    assert kinds(play(takebacks, ref, P(2, "2h 2d", t=9.0))) == ["play"]
    assert plays(ref) == [(1, "Ks Kh"), (2, "2h 2d")]


def test_a_refused_card_gone_from_its_emptied_zone_is_picked_up_when_another_seat_plays_while_the_trick_lies(ref):
    takebacks = TakeBacks()
    play(takebacks, ref, P(1, "Ks Kh", t=2.0))
    assert kinds(play(takebacks, ref, P(0, "3s", t=5.0))) == ["pass", "missed_play"]  # dropped in an empty zone
    assert takebacks.taken(ref, 0, ("3s",), (), True, 7.0) == []  # a sweep looks the same: held
    records = play(takebacks, ref, P(2, "2h 2d", t=9.0))  # seat 3 beats the pair still lying
    assert kinds(records) == ["correction", "picked_up", "play"]
    assert plays(ref) == [(1, "Ks Kh"), (2, "2h 2d")]
    assert takebacks.released == [(0, ("3s",))]  # the zone may play the 3s later


def test_a_refused_play_swept_with_the_trick_is_no_pick_up(ref):
    takebacks = TakeBacks()
    play(takebacks, ref, P(1, "Ks Kh", t=2.0))
    play(takebacks, ref, P(2, "2h 2d", t=4.0))
    assert kinds(play(takebacks, ref, P(0, "3s 4d", t=6.0)))[-1] == "illegal_combination"  # a lead misread
    for seat, cards in ((1, ("Ks", "Kh")), (2, ("2h", "2d")), (0, ("3s", "4d"))):  # the trick swept
        takebacks.taken(ref, seat, cards, (), True, 9.0)
    assert kinds(play(takebacks, ref, P(2, "5c", t=11.0))) == ["pass", "pass", "play"]  # its winner leads
    assert not any(a.alert == "picked_up" for a in ref.state.alerts)


def test_a_refused_play_picked_up_after_something_else_was_stored_changes_nothing(ref):
    takebacks = TakeBacks()
    play(takebacks, ref, P(1, "Ks", t=2.0))
    play(takebacks, ref, P(0, "3s", t=5.0))
    ref.notice(Alert("unfamiliar_deck", data={"read": 40, "unsure": 12}))
    before = ref.store.last_seq()
    assert takebacks.taken(ref, 0, ("3s",), (), False, 7.0) == []
    assert ref.store.last_seq() == before


def test_an_emptied_zone_was_picked_up_when_another_seat_plays_while_the_trick_still_lies(ref):
    takebacks = TakeBacks()
    play(takebacks, ref, P(1, "5s", t=2.0))
    play(takebacks, ref, P(0, "9h", t=5.0))  # dropped by seat 1 into its empty zone
    assert takebacks.taken(ref, 0, ("9h",), (), True, 7.0) == []  # a sweep looks the same: held
    records = play(takebacks, ref, P(2, "Js", t=9.0))  # seat 3 beats the 5s lying in seat 2's zone
    assert kinds(records) == ["correction", "correction", "picked_up", "play"]
    assert plays(ref) == [(1, "5s"), (2, "Js")]
    assert takebacks.released == [(0, ("9h",))]  # the session lets the zone play the 9h later


def test_a_dropped_card_stored_as_the_referees_suggestion_comes_off_when_picked_up(ref):
    takebacks = TakeBacks()
    play(takebacks, ref, P(1, "2d", t=2.0))
    # seat 3 drops a Kh, read unsure: the referee stores its other read, BJ, which beats the 2d
    dropped = PlayCandidate(2, ("Kh",), 5.0, (0.5,), ((("BJ", 0.4),),))
    assert kinds(play(takebacks, ref, dropped)) == ["uncertain_read", "play"]
    assert takebacks.taken(ref, 2, ("Kh",), (), True, 7.0) == []  # picked up: held as maybe swept
    records = play(takebacks, ref, P(1, "Js Jc", t=9.0))  # seat 2's pair while the 2d still lies
    assert kinds(records) == ["correction", "picked_up", "pass", "pass", "play"]
    assert plays(ref) == [(1, "2d"), (1, "Js Jc")]


def test_a_card_dropped_on_a_swept_table_comes_off_when_the_tricks_winner_leads(ref):
    takebacks = TakeBacks()
    play(takebacks, ref, P(1, "2d", t=2.0))
    takebacks.taken(ref, 1, ("2d",), (), True, 5.0)  # the trick swept: seat 2 won it and leads
    assert kinds(play(takebacks, ref, P(2, "BJ", t=6.0))) == ["play"]  # a card dropped by seat 3, read as a play
    takebacks.taken(ref, 2, ("BJ",), (), True, 9.0)  # and picked up: every zone is empty again
    records = play(takebacks, ref, P(1, "Js Jc", t=10.0))
    assert kinds(records) == ["correction", "picked_up", "pass", "pass", "play"]
    assert plays(ref) == [(1, "2d"), (1, "Js Jc")]


def test_an_emptied_zone_was_swept_when_its_seat_leads_or_nothing_else_lies(ref):
    takebacks = TakeBacks()
    play(takebacks, ref, P(1, "5s", t=2.0))
    play(takebacks, ref, P(2, "9h", t=5.0))
    takebacks.taken(ref, 1, ("5s",), (), True, 8.0)  # the trick swept: every zone empties
    takebacks.taken(ref, 2, ("9h",), (), True, 8.0)
    assert kinds(play(takebacks, ref, P(2, "3c", t=10.0))) == ["pass", "pass", "play"]  # the winner leads
    takebacks.taken(ref, 2, ("3c",), (), True, 12.0)
    assert kinds(play(takebacks, ref, P(0, "4c", t=14.0))) == ["play"]  # nothing lies: a sweep, and a follow
    assert plays(ref) == [(1, "5s"), (2, "9h"), (2, "3c"), (0, "4c")]


def test_cards_taken_back_from_a_hand_over_change_nothing(ref):
    takebacks = TakeBacks()
    ref.play(P(1, "5s", t=2.0))
    before = ref.store.last_seq()
    assert takebacks.taken(ref, 2, ("Kd",), (), False, 4.0) == []  # not the seat's last play: nothing to undo
    assert ref.store.last_seq() == before and plays(ref) == [(1, "5s")]
    assert [str(c) for c in parse_cards("Kd")] == ["Kd"]
