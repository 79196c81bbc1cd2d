"""What the camera reads beyond plays and bids: five players' marker card and reveal, 斗帝主's
pick of the kitty, and a new deal at a four-seat table whose last play the camera missed."""

from __future__ import annotations

import pytest

from engine.bidding import next_seat
from engine.cards import Card
from engine.events import Bid, Deal, Landlord, Marker
from tracker.records import Alert
from tracker.referee import (
    BARS_NEEDED,
    LOW_CONFIDENCE,
    LOW_RANK,
    PHANTOM_CONFIDENCE,
    PHANTOM_RANK,
    CameraReferee,
    PlayCandidate,
    ReaderBars,
)
from tracker.state import TableState
from tracker.store import EventStore


@pytest.fixture
def store():
    s = EventStore(":memory:")
    yield s
    s.close()


def referee(store, rules, players):
    return CameraReferee(store, store.create_match(tuple(f"P{i}" for i in range(players)), rules))


def P(seat, text, t=None):  # noqa: N802 - reads like a play in the tests
    return PlayCandidate(seat, tuple(text.split()), t)


def kinds(records):
    return [r.alert if isinstance(r, Alert) else r.kind for r in records]




def unshown(records):
    """The kinds, less the not-shown alerts of losers the test has show nothing."""
    return [k for k in kinds(records) if k != "not_shown"]

def test_a_single_card_laid_before_a_five_seat_deal_is_the_marker_of_a_new_hand(store):
    ref = referee(store, "five", 5)
    assert kinds(ref.play(P(3, "7h", t=2.0))) == ["deal", "marker"]
    hand = ref.hand
    assert hand.landlord == 3 and hand.marker == Card.parse("7h") and hand.phase == "play" and not hand.plays
    assert hand.cards_left == [21, 21, 21, 24, 21]  # the open landlord took the kitty unseen
    assert kinds(ref.play(P(3, "7h", t=9.0))) == ["play"]  # seen already: now he leads with it


def test_the_twin_shown_by_another_seat_before_the_first_play_is_its_reveal(store):
    ref = referee(store, "five", 5)
    ref.play(P(0, "Qs", t=2.0))
    assert kinds(ref.play(P(2, "Qs", t=5.0))) == ["reveal"]
    hand = ref.hand
    assert hand.hidden == 2 and hand.hidden_shown == "choice" and ("reveal", 2) in hand.causes
    assert kinds(ref.play(P(2, "Qs", t=6.0))) == ["out_of_turn"]  # once revealed, a card there is a play


def test_the_marker_entered_on_the_page_and_then_seen_in_its_zone_is_no_play(store):
    ref = referee(store, "five", 5)
    store.append(ref.match_id, 1, Deal(counts=(21,) * 5), source="referee")
    store.append(ref.match_id, 1, Marker(1, Card.parse("9d")), source="referee")
    assert ref.play(P(1, "9d", t=3.0)) == []  # the marker card lying in its zone
    assert ref.hand.plays == [] and ref.hand.landlord == 1
    assert kinds(ref.play(P(1, "9d", t=8.0))) == ["play"]


def test_a_joker_or_two_cards_before_the_first_play_are_no_marker(store):
    ref = referee(store, "five", 5)
    out = ref.play(P(4, "RJ", t=2.0))
    assert "marker" not in kinds(out) and ref.hand.marker is None
    ref2 = referee(store, "five", 5)
    assert "marker" not in kinds(ref2.play(P(1, "5s 5s", t=2.0)))


def test_the_pick_of_the_kitty_is_the_cards_taken_from_it(store):
    ref = referee(store, "dizhu", 3)
    ref.bid(0, "bid", 3, time=1.0)
    ref.kitty(["As", "2d", "8d", "Ac", "7s", "Qc"], time=3.0)
    assert kinds(ref.kitty_pick(["As", "2d"], time=6.0)) == ["kitty_pick"]
    assert [str(c) for c in ref.hand.picked] == ["As", "2d"] and ref.hand.cards_left[0] == 36
    assert kinds(ref.kitty_pick(["Qc"], time=7.0)) == ["bad_kitty"]  # one pick a hand


def test_a_pick_of_cards_not_in_the_kitty_is_an_alert(store):
    ref = referee(store, "dizhu", 3)
    ref.bid(0, "bid", 3, time=1.0)
    ref.kitty(["As", "2d", "8d", "Ac", "7s", "Qc"], time=3.0)
    assert kinds(ref.kitty_pick(["Kh"], time=6.0)) == ["bad_kitty"] and ref.hand.picked is None
    assert kinds(referee(store, "dizhu", 3).kitty_pick(["Kh"])) == ["not_started"]


def test_four_seats_the_next_deals_first_bid_token_ends_a_hand_whose_last_play_was_missed(store):
    ref = referee(store, "four", 4)
    ref.bid(0, "bid", 3, time=1.0)
    ref.play(P(0, "5h", t=5.0))
    ref.play(P(1, "9h", t=8.0))  # ... the play that ended the hand is missed
    first = next_seat(ref.hand.first_bidder, 4, ref.hand.rules.seat_order)  # bids first in the next deal
    out = ref.bid(first, "bid", 2, time=60.0)
    assert kinds(out) == ["hand_unfinished", "end", "deal", "bid"]
    state = TableState.load(store, ref.match_id)
    assert state.hand_of(1).abandoned and state.hand_number == 2
    assert ref.hand.first_bidder == first and ref.hand.bids_by_seat == {first: 2}


def test_four_seats_another_seats_bid_token_mid_hand_is_refused_not_a_new_deal(store):
    ref = referee(store, "four", 4)
    ref.bid(0, "bid", 3, time=1.0)
    ref.play(P(0, "5h", t=5.0))
    first = next_seat(ref.hand.first_bidder, 4, ref.hand.rules.seat_order)
    other = next_seat(first, 4, ref.hand.rules.seat_order)
    assert kinds(ref.bid(other, "bid", 2, time=9.0)) == ["wrong_phase"]
    assert ref.state.hand_number == 1 and not ref.hand.finished


def test_three_seats_keep_waiting_for_the_kitty_before_a_new_deal(store):
    ref = referee(store, "classic", 3)
    ref.kitty(["BJ", "2s", "7c"])
    ref.play(P(1, "2s"))
    first = next_seat(ref.hand.first_bidder, 3, ref.hand.rules.seat_order)
    assert kinds(ref.bid(first, "bid", 2, time=30.0)) == ["wrong_phase"]  # the shown kitty will say
    assert ref.state.hand_number == 1
    assert isinstance(ref.pending.early_bids[0], Bid)


def test_the_bars_are_the_shipped_ones_for_the_reader_without_a_profile():
    bars = ReaderBars()
    bars.reader(None, follow=False)
    bars.add((0.5,) * 500)  # a reader sure of nothing: the shipped reader's bars stay
    assert (bars.low, bars.phantom) == (LOW_CONFIDENCE, PHANTOM_CONFIDENCE)


def test_with_a_profile_the_bars_are_ranks_among_that_readers_accepted_reads():
    bars = ReaderBars()
    profile = object()
    bars.reader(profile, follow=True)
    # a profile whose blend gives its sure reads 0.55-0.65, under the shipped phantom bar's double
    confidences = [0.55 + 0.1 * i / 1000 for i in range(1000)]
    bars.add(confidences[:BARS_NEEDED - 1])
    assert bars.low == LOW_CONFIDENCE  # too few reads yet to rank
    bars.add(confidences[BARS_NEEDED - 1:])
    assert 0.55 < bars.low < 0.66 and bars.below(bars.low) == pytest.approx(LOW_RANK, abs=0.01)
    assert 0.55 < bars.phantom < bars.low and bars.below(bars.phantom) == pytest.approx(PHANTOM_RANK, abs=0.01)
    bars.reader(object(), follow=True)  # another profile: its reads are counted afresh
    assert len(bars.seen) == 0 and bars.low == LOW_CONFIDENCE


def test_a_profiles_low_bar_lets_the_referee_suggest_the_fix_the_shipped_bar_would_not(store):
    ref = referee(store, "classic", 3)
    ref.bars.reader(object(), follow=True)
    ref.bars.add([0.97 + 0.03 * i / 400 for i in range(400)])  # this reader's accepted reads: all >= 0.97
    ref.play(P(0, "5h 5s"))
    # 6s 7h read at 0.95: sure for the shipped reader, the least sure this reader gives
    out = ref.play(PlayCandidate(1, ("6s", "7h"), 9.0, (0.99, 0.95), ((), (("6h", 0.04),))))
    assert kinds(out) == ["uncertain_read", "play"] and [str(c) for c in ref.hand.plays[-1].cards] == ["6s", "6h"]
    shipped = referee(store, "classic", 3)
    shipped.play(P(0, "5h 5s"))
    assert kinds(shipped.play(PlayCandidate(1, ("6s", "7h"), 9.0, (0.99, 0.95), ((), (("6h", 0.04),))))) == [
        "illegal_combination"]


def test_at_a_token_table_a_losers_cards_after_the_hand_are_shown_whatever_their_number(store):
    ref = referee(store, "classic", 3)
    store.append(ref.match_id, 1, Deal(counts=(1, 2, 2)), source="referee")  # a short deal
    ref.bid(0, "bid", 3, time=1.0)
    ref.kitty(["3h", "3d", "3c"], time=2.0)
    ref.play(P(0, "3s 3h 3d 3c", t=5.0))  # the landlord goes out: seats 1 and 2 hold 2 each
    assert ref.hand.finished
    # a misread hand makes seat 1's cards shown 9: still its cards shown, no new hand
    out = ref.play(P(1, "4s 5s 6s 7s 8s 9s 10s Js Qs", t=50.0))
    assert kinds(out)[0] == "shown" and ref.state.hand_number == 1
    # the next deal starts with its token (seat 2, a loser who showed nothing, is alerted first)
    assert kinds(ref.bid(1, "bid", 1, time=60.0))[:3] == ["not_shown", "deal", "bid"]


def test_without_tokens_cards_that_do_not_fit_after_the_hand_are_the_next_hands_play(store):
    ref = referee(store, "classic", 3)
    store.append(ref.match_id, 1, Deal(counts=(1, 2, 2)), source="referee")
    ref.kitty(["3h", "3d", "3c"], time=2.0)
    ref.play(P(0, "3s 3h 3d 3c", t=5.0))
    assert ref.hand.finished
    out = ref.play(P(1, "4s 5s 6s 7s 8s 9s 10s Js Qs", t=50.0))
    assert kinds(out)[:2] == ["deal", "landlord"] and ref.state.hand_number == 2


def five_seat_hand_in_play(ref):
    """A five-seat hand dealt by its marker (seat 3 the open landlord) whose first play is on
    record: its doubling round is over."""
    ref.play(P(3, "7h", t=2.0))
    ref.doubling_token(3, False, time=4.0)
    ref.play(P(3, "5s 5s", t=10.0))
    ref.play(P(4, "9h 9d", t=13.0))  # ... and the hand goes on; the play that ended it is missed


def test_five_seats_a_single_card_then_that_seats_doubling_token_mid_hand_is_the_next_deal(store):
    ref = referee(store, "five", 5)
    five_seat_hand_in_play(ref)
    ref.play(P(1, "Kc", t=60.0))  # the next deal's marker, read into the hand on record
    out = ref.doubling_token(1, False, time=65.0)  # the marker's seat doubles first
    assert kinds(out) == ["hand_unfinished", "end", "deal", "marker"]
    state = TableState.load(store, ref.match_id)
    assert state.hand_of(1).abandoned and state.hand_number == 2
    assert ref.hand.landlord == 1 and ref.hand.marker == Card.parse("Kc") and not ref.hand.plays
    assert kinds(ref.doubling_token(2, True, time=66.0)) == ["double"]  # the round goes on in the new hand
    assert ref.state.hand_number == 2 and ref.hand.multiplier == 2
    assert kinds(ref.play(P(1, "Kc", t=70.0))) == ["play"]  # the marker seen already: now his lead


def test_five_seats_a_doubling_token_mid_hand_alone_is_no_new_deal(store):
    ref = referee(store, "five", 5)
    five_seat_hand_in_play(ref)
    assert not ref.deals_again(2)  # the last cards read were two, no marker
    assert kinds(ref.doubling_token(2, True, time=20.0)) == ["wrong_phase"]
    ref.play(P(0, "Kc", t=25.0))
    assert not ref.deals_again(2)  # a single card, but another seat's
    assert kinds(ref.doubling_token(2, False, time=30.0)) == []
    assert ref.state.hand_number == 1 and not ref.hand.finished


def test_five_seats_a_joker_is_never_the_next_deals_marker(store):
    ref = referee(store, "five", 5)
    five_seat_hand_in_play(ref)
    ref.play(P(1, "BJ", t=60.0))
    assert not ref.deals_again(1)


def test_five_seats_the_marker_then_its_twin_in_another_zone_are_the_next_deals_marker_and_reveal(store):
    ref = referee(store, "five", 5)
    five_seat_hand_in_play(ref)
    ref.play(P(1, "Kc", t=60.0))  # the marker
    ref.play(P(4, "Kc", t=63.0))  # its twin: the hidden landlord shows himself
    assert not ref.deals_again(4)  # the round starts at the marker's seat, not the revealing one
    out = ref.doubling_token(1, False, time=65.0)
    assert kinds(out) == ["hand_unfinished", "end", "deal", "marker", "reveal"]
    assert (ref.hand.landlord, ref.hand.hidden, ref.hand.multiplier) == (1, 4, 2)


def test_five_seats_a_doubling_round_going_round_mid_hand_is_the_next_deal_without_its_marker(store):
    ref = referee(store, "five", 5)
    five_seat_hand_in_play(ref)  # the next deal's marker card is not read
    assert kinds(ref.doubling_token(2, True, time=60.0)) == ["wrong_phase"]  # one token: maybe a stray one
    after = ref.hand.next_seat(2)
    out = ref.doubling_token(after, False, time=63.0)  # the next seat in turn: a round
    assert kinds(out) == ["hand_unfinished", "end", "deal", "landlord", "double"]
    assert (ref.state.hand_number, ref.hand.landlord, ref.hand.multiplier) == (2, 2, 2)


def test_five_seats_a_doubling_token_after_the_hand_is_over_deals_the_next_with_that_seat_landlord(store):
    ref = referee(store, "five", 5)
    store.append(ref.match_id, 1, Deal(counts=(1, 2, 2, 2, 2)), source="referee")  # a short deal
    store.append(ref.match_id, 1, Marker(0, Card.parse("3h")), source="referee")
    ref.play(P(0, "2s 2s", t=5.0))  # the open landlord took the kitty unseen: 4 cards, plays 2
    ref.play(P(0, "2d 2d", t=9.0))
    assert ref.hand.finished
    out = ref.doubling_token(3, False, time=30.0)  # the next deal's marker was not read
    assert kinds(out) == ["deal", "landlord"] and (ref.state.hand_number, ref.hand.landlord) == (2, 3)


def test_five_seats_one_card_from_a_seat_that_showed_all_it_holds_is_the_next_deals_marker(store):
    ref = referee(store, "five", 5)
    store.append(ref.match_id, 1, Deal(counts=(1, 2, 2, 2, 2)), source="referee")
    store.append(ref.match_id, 1, Marker(0, Card.parse("3h")), source="referee")
    ref.play(P(0, "2s 2s", t=5.0))
    ref.play(P(0, "2d 2d", t=9.0))  # the landlord goes out: seat 1 holds 2
    assert kinds(ref.play(P(1, "Jd Qc", t=20.0)))[0] == "shown"
    out = ref.play(P(1, "Jd", t=40.0))  # the other Jd: the next deal's marker, fallen to seat 1
    assert unshown(out) == ["deal", "marker"] and (ref.hand.landlord, str(ref.hand.marker)) == (1, "Jd")


def seat_one_showed_two_of_three(store):
    """A short five-seat hand over: the landlord went out, seat 1 holds 3 and showed 2 of them."""
    ref = referee(store, "five", 5)
    store.append(ref.match_id, 1, Deal(counts=(1, 3, 2, 2, 2)), source="referee")
    store.append(ref.match_id, 1, Marker(0, Card.parse("3h")), source="referee")
    ref.play(P(0, "2s 2s", t=5.0))
    ref.play(P(0, "2d 2d", t=9.0))
    assert kinds(ref.play(P(1, "Jd Qc", t=20.0)))[0] == "shown"  # one of its cards not read
    return ref


def test_five_seats_one_card_alone_in_the_zone_of_a_seat_that_showed_is_the_next_deals_marker(store):
    ref = seat_one_showed_two_of_three(store)
    # one card alone in the zone, the cards it showed swept away: the next deal's marker
    out = ref.play(PlayCandidate(1, ("7c",), 40.0, alone=True))
    assert unshown(out) == ["deal", "marker"] and (ref.hand.landlord, str(ref.hand.marker)) == (1, "7c")


def test_five_seats_one_card_beside_the_cards_a_seat_showed_is_the_rest_of_them(store):
    ref = seat_one_showed_two_of_three(store)
    assert kinds(ref.play(PlayCandidate(1, ("5h",), 25.0))) == ["shown"] and ref.state.hand_number == 1


def dizhu_in_play(store):
    """A 斗帝主 hand bid by seat 0, who takes two cards of the kitty: play may start."""
    ref = referee(store, "dizhu", 3)
    ref.bid(0, "bid", 3, time=1.0)
    ref.kitty(["As", "2d", "8d", "Ac", "7s", "Qc"], time=3.0)
    ref.kitty_pick(["As", "2d"], time=6.0)
    return ref


def test_two_decks_a_joker_read_twice_in_a_refused_play_is_suggested_once(store):
    ref = dizhu_in_play(store)
    ref.play(P(0, "Kc", t=8.0))
    out = ref.play(PlayCandidate(1, ("RJ", "RJ"), 9.0, (0.95, 0.95), ((), ())))  # one RJ, corners unpaired
    assert kinds(out) == ["uncertain_read", "play"] and [str(c) for c in ref.hand.plays[-1].cards] == ["RJ"]


def test_two_decks_a_joker_pair_the_rules_accept_is_kept(store):
    ref = dizhu_in_play(store)
    ref.play(P(0, "5c 5c", t=8.0))
    assert kinds(ref.play(PlayCandidate(1, ("RJ", "RJ"), 9.0, (0.95, 0.95)))) == ["play"]


def test_five_seats_one_card_of_a_seat_yet_to_show_while_others_show_is_its_cards_shown(store):
    # the five-seat film's third hand: seat 1 has shown its cards, seat 2 lays its three and the
    # camera reads one of them first; the rest settle after it
    ref = referee(store, "five", 5)
    store.append(ref.match_id, 1, Deal(counts=(1, 2, 3, 2, 2)), source="referee")
    store.append(ref.match_id, 1, Marker(0, Card.parse("3h")), source="referee")
    ref.play(P(0, "2s 2s", t=5.0))
    ref.play(P(0, "2d 2d", t=9.0))  # the landlord goes out
    assert kinds(ref.play(P(1, "Jd Qc", t=20.0))) == ["shown"]
    out = ref.play(P(2, "5h", t=24.0))
    assert kinds(out) == ["shown"] and ref.state.hand_number == 1
    # the whole of it, settled later, replaces the first card read
    whole = ref.late_cards(P(2, "5h 6h 7c", t=25.0), ("5h",))
    assert kinds(whole)[0] == "shown" and sorted(map(str, ref.hand.shown[2])) == ["5h", "6h", "7c"]


@pytest.mark.parametrize(("rules", "players"), [("five", 5), ("four", 4)])
def test_cards_in_the_kitty_zone_after_the_hand_deal_nothing_where_no_kitty_is_shown(store, rules, players):
    # the five-seat films: a loser's cards shown past its zone, three of them read by the kitty
    # zone, had dealt a phantom hand; at a table whose kitty is never shown they are no deal
    ref = referee(store, rules, players)
    counts = (1,) + (2,) * (players - 1)
    store.append(ref.match_id, 1, Deal(counts=counts), source="referee")
    if rules == "five":
        store.append(ref.match_id, 1, Marker(0, Card.parse("3h")), source="referee")
    else:
        for seat, action in enumerate(["bid"] + ["pass"] * (players - 1)):
            ref.bid(seat, action, 3 if action == "bid" else 0, time=1.0 + seat)
    if rules == "five":  # the open landlord took the kitty unseen: 4 cards
        ref.play(P(0, "2s 2s", t=5.0))
        ref.play(P(0, "2d 2d", t=9.0))
    else:  # the landlord took the kitty of 8: 9 cards
        ref.play(P(0, "3s 4s 5s 6s 7s 8s 9s Ts Js", t=5.0))
    assert ref.hand.finished
    assert kinds(ref.play(P(1, "Jd Qc", t=20.0))) == ["shown"]
    assert ref.kitty(["5c", "4c", "3d"], time=22.0) == []
    assert ref.state.hand_number == 1 and ref.hand.finished


def test_three_seats_a_kitty_after_the_hand_still_deals_the_next(store):
    ref = referee(store, "classic", 3)
    store.append(ref.match_id, 1, Deal(counts=(1, 2, 2)), source="referee")
    store.append(ref.match_id, 1, Landlord(0, 3), source="referee")
    ref.play(P(0, "2s 2d", t=5.0))  # the landlord took the kitty: 4 cards
    ref.play(P(0, "Ks Kd", t=9.0))
    assert ref.hand.finished
    assert kinds(ref.kitty(["5c", "4c", "3d"], time=22.0)) == ["deal"]
    assert ref.state.hand_number == 2
