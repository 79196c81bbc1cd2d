"""The referee: every fault of docs/rules.md section 8 becomes an alert; doubtful reads are
suggestions, not accusations; passes and the landlord are inferred from who plays."""

from __future__ import annotations

import pytest

from engine.bidding import next_seat
from engine.cards import Card
from engine.events import Announce, Bid, Correction, Deal, Landlord, Marker, Pass
from engine.rules import get_rules
from tracker.records import Alert
from tracker.referee import CameraReferee, PlayCandidate
from tracker.state import TableState
from tracker.store import EventStore

PLAYERS = ("甲", "乙", "丙")


@pytest.fixture
def store():
    s = EventStore(":memory:")
    yield s
    s.close()


def referee(store, rules="classic", players=PLAYERS, **kw):
    return CameraReferee(store, store.create_match(players, rules), **kw)


def P(seat, text, conf=(), alts=(), t=None):  # noqa: N802 - reads like a play in the tests
    return PlayCandidate(seat, tuple(text.split()), t, conf, alts)


def kinds(records):
    return [r.alert if isinstance(r, Alert) else r.kind for r in records]


def test_first_seat_to_play_becomes_landlord_and_leads(store):
    ref = referee(store)
    assert kinds(ref.play(P(2, "3s 3h"))) == ["deal", "landlord", "play"]
    assert ref.hand.landlord == 2 and ref.hand.base == 1 and ref.hand.cards_left == [17, 17, 18]


def test_entered_bids_set_the_landlord_and_base(store):
    ref = referee(store)
    ref.new_hand()
    for bid in (Bid(0, "pass"), Bid(1, "bid", 2), Bid(2, "pass")):
        store.append(ref.match_id, 1, bid, source="referee")
    assert kinds(ref.play(P(1, "5d"))) == ["play"]
    assert ref.hand.landlord == 1 and ref.hand.base == 2


def test_play_during_unfinished_bidding_crowns_at_the_highest_bid(store):
    ref = referee(store)
    ref.new_hand()
    store.append(ref.match_id, 1, Bid(0, "bid", 2), source="referee")
    assert kinds(ref.play(P(0, "5d"))) == ["landlord", "play"]
    assert ref.hand.base == 2


def test_seats_skipped_by_a_later_play_passed(store):
    ref = referee(store)
    ref.play(P(0, "3s"))
    assert kinds(ref.play(P(2, "9s"))) == ["pass", "play"]
    assert kinds(ref.play(P(2, "4h"))) == ["pass", "pass", "play"]  # 0 and 1 let 9s through
    assert ref.hand.trick.leader == 2


def test_illegal_combination_is_alerted_and_not_played(store):
    ref = referee(store)
    ref.play(P(0, "3s"))
    out = ref.play(P(1, "5h 6d"))
    assert kinds(out) == ["illegal_combination"]
    assert out[0].seat == 1 and out[0].cards == "5h 6d" and out[0].zh
    assert out[0].text("zh", PLAYERS) == "乙 出的 5♥ 6♦ 不成牌型（classic 规则）"
    assert ref.hand.cards_left == [19, 17, 17] and ref.hand.turn == 1


def test_alerts_are_stored_as_data_and_worded_with_the_players_names(store):
    """The referee writes no sentences: the store holds kind, seat, cards and fields, and the
    words come from tracker.alerts when the alert is shown."""
    ref = referee(store)
    ref.play(P(0, "9s"))
    out = ref.play(P(1, "8h", conf=(0.5,), alts=((("10h", 0.4),),)))
    assert kinds(out) == ["uncertain_read", "play"]
    stored = [e.event.to_dict() for e in store.events(ref.match_id) if e.kind == "alert"]
    assert stored == [{"kind": "alert", "alert": "uncertain_read", "seat": 1, "cards": "8h", "suggestion": "10h",
                       "event_index": 3, "time": None, "data": {"cause": "does_not_beat"}}]
    alert = TableState.load(store, ref.match_id).alerts[0]
    assert alert.text("zh", PLAYERS) == "乙 的牌看不清：读到 8♥（管不上），可能是 10♥"
    assert alert.message == "seat 2: read 8♥, which the rules refuse (does not beat); probably 10♥"


def test_does_not_beat(store):
    ref = referee(store)
    ref.play(P(0, "9s"))
    assert kinds(ref.play(P(1, "5h"))) == ["does_not_beat"]


def _after_a_missed_play(store):
    """Seat 0's play over seat 1's 4c was not read; 0's lead Jh Jd is held by a missed_play alert."""
    ref = referee(store)
    ref.play(P(0, "3s"))
    ref.play(P(1, "4c"))
    assert kinds(ref.play(P(0, "Jh Jd"))) == ["pass", "missed_play"]
    return ref


def test_a_lead_that_does_not_beat_the_trick_on_record_is_a_missed_play(store):
    """Seat 0's red joker over 1's 4c was not read; 1 and 2 passed; 0 leads a pair. The alert
    says a play was probably missed and names the play on record, in both languages."""
    ref = referee(store)
    ref.play(P(0, "3s"))
    ref.play(P(1, "4c"))
    passed, alert = ref.play(P(0, "Jh Jd", t=9.0))  # seat 2's pass is inferred as before
    assert passed.kind == "pass" and alert.alert == "missed_play" and alert.seat == 0 and alert.cards == "Jh Jd" and alert.time == 9.0
    assert "4♣" in alert.message and "seat 1" in alert.message and "not read" in alert.message
    assert alert.text("en", PLAYERS).startswith("甲: J♥ J♦ does not beat 4♣ (乙) but reads as a lead")
    assert "4♣" in alert.zh and "漏读" in alert.zh
    assert ref.hand.cards_left == [19, 16, 17]  # nothing played: the page enters the missed play first


def test_a_weaker_play_of_the_same_kind_stays_does_not_beat(store):
    ref = referee(store)
    ref.play(P(0, "9s 9h"))
    assert kinds(ref.play(P(1, "5h 5d"))) == ["does_not_beat"]
    ref2 = referee(store)
    ref2.play(P(0, "3s 4h 5s 6h 7c"))
    assert kinds(ref2.play(P(1, "3h 4s 5d 6c 7d"))) == ["does_not_beat"]


def test_a_straight_of_another_length_reads_as_a_lead(store):
    ref = referee(store)
    ref.play(P(0, "3s 4h 5s 6h 7c"))
    assert kinds(ref.play(P(1, "8s 9h 10s Jh Qc Kd"))) == ["missed_play"]


def test_the_missed_play_entered_on_the_page_lets_the_lead_through(store):
    from engine.events import Play

    ref = _after_a_missed_play(store)
    assert ref.retry_held() == []  # nothing entered yet: still held
    store.append(ref.match_id, 1, Play(0, ("RJ",)))  # what the referee types in
    assert kinds(ref.retry_held()) == ["pass", "pass", "play"]
    assert ref.hand.cards_left == [16, 16, 17] and ref.hand.turn == 1
    assert ref.retry_held() == []  # stored once


def test_a_held_play_the_rules_still_refuse_is_dropped_quietly(store):
    ref = _after_a_missed_play(store)
    store.append(ref.match_id, 1, Pass(0))  # the page says seat 0 passed: seat 1 leads now
    assert ref.retry_held() == [] and ref.hand.turn == 1
    assert kinds(ref.play(P(1, "6h"))) == ["play"]  # and the table goes on


def test_out_of_turn_at_a_lead(store):
    ref = referee(store)
    ref.play(P(0, "9s"))
    for seat in (1, 2):
        store.append(ref.match_id, 1, Pass(seat), source="referee")  # marked on the page
    out = ref.play(P(1, "3h"))
    assert kinds(out) == ["out_of_turn"] and out[0].seat == 1


def test_more_cards_than_the_seat_holds(store):
    ref = referee(store)
    store.append(ref.match_id, 1, Deal(counts=(17, 2, 17)), source="referee")
    store.append(ref.match_id, 1, Landlord(0), source="referee")
    ref.play(P(0, "3s"))
    assert kinds(ref.play(P(1, "5h 5d 5c"))) == ["too_many_cards"]


def test_duplicate_card_with_a_confident_read_is_a_fault(store):
    ref = referee(store)
    ref.play(P(0, "3s"))
    out = ref.play(P(1, "3s", conf=(0.99,), alts=((("4s", 0.01),),)))
    assert kinds(out) == ["duplicate_card"]


def test_doubtful_card_that_makes_a_refused_play_legal_is_an_uncertain_read(store):
    ref = referee(store)
    ref.play(P(0, "3s"))
    out = ref.play(P(1, "3s", conf=(0.55,), alts=((("3h", 0.3), ("4s", 0.1)),)))
    assert kinds(out) == ["uncertain_read", "play"]
    assert out[0].suggestion == "4s" and out[0].cards == "3s" and out[0].seat == 1
    assert [str(c) for c in ref.hand.plays[-1].cards] == ["4s"]


def test_uncertain_read_can_be_left_to_the_referee(store):
    ref = referee(store, accept_suggestions=False)
    ref.play(P(0, "7s 7h"))
    out = ref.play(P(1, "8s 9h", conf=(0.98, 0.6), alts=((), (("8h", 0.35),))))
    assert kinds(out) == ["uncertain_read"]
    assert out[0].suggestion == "8s 8h"
    assert len(ref.hand.plays) == 1


def test_no_suggestion_when_the_doubtful_card_is_not_the_problem(store):
    ref = referee(store)
    ref.play(P(0, "9s"))
    out = ref.play(P(1, "5h", conf=(0.6,), alts=((("6h", 0.3),),)))
    assert kinds(out) == ["does_not_beat"]


def test_a_doubtful_card_whose_alternative_is_in_the_play_may_be_its_other_corner(store):
    ref = referee(store)
    ref.play(P(0, "Kh"))
    # The As's two corners read apart, one of them as Ac (As its next guess): a pair that
    # does not follow a single; without the doubtful corner the As beats the Kh.
    out = ref.play(P(1, "Ac As", conf=(0.65, 0.97), alts=((("As", 0.09), ("Ad", 0.01)), ())))
    assert kinds(out) == ["uncertain_read", "play"]
    assert out[0].cards in ("As Ac", "Ac As")
    assert out[0].suggestion == "As" and [str(c) for c in ref.hand.plays[-1].cards] == ["As"]


def test_a_pair_the_rules_accept_keeps_both_cards_whatever_their_alternatives(store):
    ref = referee(store)
    ref.play(P(0, "3s 3h"))
    out = ref.play(P(1, "2c 2s", conf=(0.65, 0.97), alts=((("2s", 0.3),), ())))
    assert kinds(out) == ["play"] and sorted(map(str, ref.hand.plays[-1].cards)) == ["2c", "2s"]


def test_a_card_read_twice_may_be_two_of_its_rank(store):
    """A one-deck zone reads 4d at two places: one of them is the 4s with its suit misread."""
    ref = referee(store)
    ref.play(P(0, "3s 3h"))
    doubles = (("4d", (("4s", 0.3), ("Ad", 0.1))),)
    out = ref.play(PlayCandidate(1, ("4d",), None, (0.97,), ((("4h", 0.02),),), doubles))
    assert kinds(out) == ["uncertain_read", "play"]
    assert out[0].cards == "4d" and out[0].suggestion in ("4s 4d", "4d 4s")
    assert sorted(str(c) for c in ref.hand.plays[-1].cards) == ["4d", "4s"]


def test_a_double_is_not_added_back_as_another_rank_nor_when_the_play_stands(store):
    ref = referee(store)
    ref.play(P(0, "3s 4s 5s 6s 7s"))
    # Its reads name only another rank (8h would make a straight that beats 3-7): more likely
    # one card's two corners read apart than two cards.
    sure = (0.97,) * 4
    out = ref.play(PlayCandidate(1, ("4h", "5h", "6h", "7h"), None, sure, ((),) * 4, (("7h", (("8h", 0.4),)),)))
    assert "uncertain_read" not in kinds(out) and len(ref.hand.plays) == 1
    # A play the rules accept as read is stored as read: the double is not tried.
    five = ("5d", "6d", "7d", "8d", "9d")
    out = ref.play(PlayCandidate(1, five, None, (0.97,) * 5, ((),) * 5, (("9d", (("9c", 0.4),)),)))
    assert kinds(out) == ["play"] and sorted(map(str, ref.hand.plays[-1].cards)) == sorted(five)


def test_a_double_never_brings_back_a_card_already_played(store):
    ref = referee(store)
    ref.play(P(0, "4s"))
    out = ref.play(PlayCandidate(1, ("4d",), None, (0.97,), ((),), (("4d", (("4s", 0.4),)),)))
    assert "uncertain_read" not in kinds(out) and len(ref.hand.plays) == 1


def test_bomb_quota_for_farmers_who_did_not_bid(store):
    rules = get_rules("four").replace(bomb_quota=True)
    ref = referee(store, rules, players=("A", "B", "C", "D"))
    ref.play(P(0, "5s"))
    assert kinds(ref.play(P(1, "3s 3h 3d 3c"))) == ["play"]
    out = ref.play(P(1, "4s 4h 4d 4c"))  # seats 2, 3, 0 passed; seat 1 leads its second bomb
    assert kinds(out) == ["pass", "pass", "pass", "bomb_quota"]


def test_kitty_seen_before_the_landlord_is_stored_once_he_is_known(store):
    ref = referee(store)
    assert kinds(ref.kitty(["BJ", "2s", "7c"])) == ["deal"]
    assert kinds(ref.play(P(1, "2s"))) == ["landlord", "kitty", "play"]
    assert ref.hand.kitty is not None and sum(ref.hand.kitty_unplayed.values()) == 2  # BJ and 7c still held


def test_a_double_read_while_bidding_is_stored_once_the_landlord_is_known(store):
    rules = get_rules("classic").replace(player_double=True)
    ref = referee(store, rules)
    ref.new_hand()
    assert ref.bid(0, "bid", 2) and ref.bid(1, "pass")
    assert ref.double(2, 5.0) == []  # seat 2's 加倍 settled before seat 2's own last bid
    out = ref.bid(2, "pass")
    assert kinds(out) == ["bid", "double"]
    assert (ref.hand.landlord, ref.hand.base, ref.hand.multiplier) == (0, 2, 2)
    assert kinds(ref.double(0)) == ["double"] and ref.hand.multiplier == 4
    assert kinds(ref.double(0)) == ["wrong_phase"]  # once a hand
    ref.play(P(0, "3s"))
    assert kinds(ref.double(1)) == ["wrong_phase"] and ref.hand.multiplier == 4  # after the first play


def test_a_double_where_the_table_does_not_double_is_an_alert(store):
    ref = referee(store)
    ref.new_hand()
    ref.bid(0, "bid", 3)
    out = ref.double(1)
    assert kinds(out) == ["wrong_phase"] and out[0].fields.get("reason") == "no_doubling_game"
    assert ref.hand.multiplier == 1


def test_doubles_held_for_a_hand_nobody_bid_are_dropped(store):
    ref = referee(store, get_rules("classic").replace(player_double=True))
    ref.new_hand()
    assert ref.double(1) == []
    for seat in (0, 1, 2):
        out = ref.bid(seat, "pass")
    assert "double" not in kinds(out) and ref.hand.redeal


def test_new_hand_starts_when_a_play_follows_a_finished_hand(store):
    ref = referee(store)
    store.append(ref.match_id, 1, Deal(counts=(1, 17, 17)), source="referee")
    store.append(ref.match_id, 1, Landlord(0, base=1), source="referee")
    # the landlord's 1 + 3 kitty cards: a trio with a single goes out at once (spring)
    out = ref.play(P(0, "9s 9h 9d 3c"))
    assert ref.hand.finished and ref.state.match.totals() == [4, -2, -2]  # base 1, spring x2
    out = ref.play(P(1, "4s"))
    assert kinds(out) == ["deal", "landlord", "play"]
    assert ref.state.hand_number == 2
    assert store.events(ref.match_id, hand=2)[0].event.first_bidder == 1


def test_state_after_refolding_the_store_equals_the_referees(store):
    ref = referee(store)
    for cand in (P(0, "3s"), P(1, "5h 6d"), P(2, "9s"), P(2, "4h 4d")):
        ref.play(cand)
    fresh = TableState.load(store, ref.match_id)
    assert fresh.hand == ref.hand and fresh.alerts == ref.state.alerts


def test_bad_candidates_are_refused():
    with pytest.raises(ValueError, match="at least one card"):
        PlayCandidate(0, ())
    with pytest.raises(ValueError, match="one entry per card"):
        PlayCandidate(0, ("3s", "4s"), confidences=(0.9,))
    with pytest.raises(ValueError, match="seat"):
        PlayCandidate(-1, ("3s",))
    with pytest.raises(ValueError, match="each double"):
        PlayCandidate(0, ("4d",), doubles=("4d",))


def test_unknown_seat_is_an_alert_not_a_crash(store):
    ref = referee(store)
    ref.play(P(0, "3s"))
    assert kinds(ref.play(P(5, "4s"))) == ["bad_seat"]


def test_seat_down_to_two_cards_gets_one_announce_reminder(store):
    ref = referee(store)
    store.append(ref.match_id, 1, Deal(counts=(17, 5, 17)), source="referee")
    store.append(ref.match_id, 1, Landlord(0), source="referee")
    ref.play(P(0, "3s 3h"))
    assert kinds(ref.play(P(1, "5h 5d"))) == ["play"]  # 3 left: nothing to say yet
    ref.play(P(2, "7s 7h"))
    ref.play(P(0, "9s 9h"))
    out = ref.play(P(1, "Js Jh"))
    assert kinds(out) == ["play", "not_announced"] and out[1].seat == 1 and "cards left (1)" in out[1].message


def test_no_reminder_once_the_seat_announced(store):
    ref = referee(store)
    store.append(ref.match_id, 1, Deal(counts=(17, 4, 17)), source="referee")
    store.append(ref.match_id, 1, Landlord(0), source="referee")
    ref.play(P(0, "3s 3h"))
    store.append(ref.match_id, 1, Announce(1), source="referee")  # entered on the page
    assert kinds(ref.play(P(1, "5h 5d"))) == ["play"]
    quiet = CameraReferee(store, store.create_match(PLAYERS), remind_announce=False)
    store.append(quiet.match_id, 1, Deal(counts=(17, 4, 17)), source="referee")
    store.append(quiet.match_id, 1, Landlord(0), source="referee")
    quiet.play(P(0, "3s 3h"))
    assert kinds(quiet.play(P(1, "5h 5d"))) == ["play"]


def test_kitty_read_after_the_landlord_played_from_it_is_no_duplicate(store):
    """The kitty zone settles late (or is shown late): its 2s was already played by the
    landlord. That is not a repeated card; a farmer's 2s would have been."""
    ref = referee(store)
    assert kinds(ref.play(P(1, "2s"))) == ["deal", "landlord", "play"]
    assert kinds(ref.kitty(["BJ", "2s", "7c"])) == ["kitty"]
    assert sorted(str(c) for c in ref.hand.kitty) == ["2s", "7c", "BJ"] and ref.hand.kitty_unplayed.total() == 2
    assert TableState.load(store, ref.match_id).alerts == []
    other = referee(store, players=("a", "b", "c"))
    other.play(P(1, "3s"))
    assert kinds(other.play(P(2, "2s"))) == ["play"]
    assert kinds(other.kitty(["BJ", "2s", "7c"])) == ["duplicate_card"]


def test_a_late_card_completes_the_last_play_with_a_correction(store):
    ref = referee(store)
    ref.play(P(0, "5h"))
    ref.play(P(1, "RJ"))  # the rocket read short: BJ flickered below the threshold
    records = ref.late_cards(P(1, "RJ BJ", t=9.0), ("RJ",))
    assert kinds(records) == ["correction"] and isinstance(records[0], Correction)
    last = ref.hand.events[-1]
    assert last.seat == 1 and sorted(str(c) for c in last.cards) == ["BJ", "RJ"]
    assert ref.hand.multiplier == 2  # the rocket doubles
    assert TableState.load(store, ref.match_id).hand.events[-1] == last  # stored, refolds the same


def test_a_late_card_after_someone_else_played_is_an_alert_not_a_rewrite(store):
    ref = referee(store)
    ref.play(P(0, "5h"))
    ref.play(P(1, "6h"))
    ref.play(P(2, "9h"))
    before = list(ref.hand.events)
    records = ref.late_cards(P(1, "6h 6s", t=9.0), ("6h",))
    assert kinds(records) == ["late_card"]
    assert records[0].seat == 1 and "6s" in records[0].message and "6s" in records[0].zh
    assert list(ref.hand.events) == before


def test_a_late_card_the_rules_refuse_is_an_alert(store):
    ref = referee(store)
    ref.play(P(0, "5h"))
    ref.play(P(1, "6h"))
    records = ref.late_cards(P(1, "6h 9s", t=9.0), ("6h",))  # 6h 9s is no combination
    assert kinds(records) == ["late_card"]
    assert [str(c) for c in ref.hand.events[-1].cards] == ["6h"]


def test_a_new_kitty_while_a_hand_is_unfinished_closes_it_and_deals_the_next(store):
    ref = referee(store)
    ref.kitty(["BJ", "2s", "7c"])
    ref.play(P(1, "2s"))
    ref.play(P(2, "RJ"))  # ... the camera then misses a play, and the hand never ends
    out = ref.kitty(["3d", "9h", "Kc"])  # the next deal's kitty
    assert kinds(out) == ["hand_unfinished", "end", "deal"]
    state = TableState.load(store, ref.match_id)
    first = state.hand_of(1)
    assert first.finished and first.abandoned and state.hand_number == 2
    assert [a.alert for a in state.all_alerts[1]] == ["hand_unfinished"] and "3♦" in state.all_alerts[1][0].message
    assert kinds(ref.play(P(0, "9h"))) == ["landlord", "kitty", "play"]  # the new hand goes on
    assert sorted(str(c) for c in ref.hand.kitty) == ["3d", "9h", "Kc"]


def test_bid_tokens_laid_while_a_hand_seemed_unfinished_go_to_the_new_deal(store):
    ref = referee(store)
    ref.kitty(["BJ", "2s", "7c"])
    ref.play(P(1, "2s"))
    ref.play(P(2, "RJ"))  # the camera then misses the play that ended the hand
    first_bidder = next_seat(ref.hand.first_bidder, 3, ref.hand.rules.seat_order)  # the next deal's
    assert kinds(ref.bid(first_bidder, "bid", 2, time=30.0)) == ["wrong_phase"]  # the next deal's bid
    out = ref.kitty(["3d", "9h", "Kc"])  # the next deal's kitty: the table dealt again
    assert kinds(out) == ["hand_unfinished", "end", "deal", "bid"]
    assert ref.state.hand_number == 2 and ref.hand.bids_by_seat == {first_bidder: 2}


def test_a_stray_bid_token_during_play_is_not_carried_to_the_next_deal(store):
    ref = referee(store)
    ref.kitty(["BJ", "2s", "7c"])
    ref.play(P(1, "2s"))
    ref.bid(0, "bid", 2, time=30.0)  # a token laid by mistake
    ref.play(P(2, "RJ"))  # the hand went on after it
    out = ref.kitty(["3d", "9h", "Kc"])
    assert kinds(out) == ["hand_unfinished", "end", "deal"]


def test_the_same_kitty_read_again_is_not_a_new_deal(store):
    ref = referee(store)
    ref.kitty(["BJ", "2s", "7c"])
    ref.play(P(1, "2s"))
    out = ref.kitty(["BJ", "2s", "7d"])  # shown again (two of three cards the same, one misread)
    assert "end" not in kinds(out) and ref.state.hand_number == 1 and not ref.hand.finished


def test_a_short_read_the_rules_refused_is_refereed_again_whole(store):
    ref = referee(store)
    assert kinds(ref.play(P(0, "9s 9h 3c"))) == ["deal", "landlord", "illegal_combination"]
    assert kinds(ref.late_cards(P(0, "9s 9h 3c 9d", t=3.0), ("9s", "9h", "3c"))) == ["play"]
    assert sorted(str(c) for c in ref.hand.events[-1].cards) == ["3c", "9d", "9h", "9s"]
    # once something else was stored after the refusal, a late card only raises an alert
    ref.play(P(1, "Js Jh Jd 4c"))
    assert kinds(ref.play(P(2, "Qs Qh 5c"))) == ["illegal_combination"]
    ref.play(P(0, "Ks Kh Kd 6c"))
    assert kinds(ref.late_cards(P(2, "Qs Qh 5c Qd", t=9.0), ("Qs", "Qh", "5c"))) == ["late_card"]


def test_a_held_play_never_moves_to_the_next_hand(store):
    from engine.events import Deal, Landlord

    ref = _after_a_missed_play(store)
    mid = ref.match_id
    for event in (Deal(counts=(17, 17, 17)), Landlord(0, 1)):  # the page deals the next hand
        store.append(mid, 2, event)
    assert ref.retry_held() == [] and ref.refresh().hand.cards_left == [20, 17, 17]


def test_the_next_play_read_ends_the_hold(store):
    from engine.events import Play

    ref = _after_a_missed_play(store)
    assert kinds(ref.play(P(1, "5c"))) == ["pass", "play"]  # read before anyone fixed anything
    store.append(ref.match_id, 1, Play(2, ("6c",)))
    assert ref.retry_held() == []


def test_a_card_read_barely_at_all_that_makes_the_play_illegal_is_left_out_as_uncertain(store):
    ref = referee(store)
    ref.play(P(0, "9s"))
    # A joker's face picture read as 8c (0.18 sure) beside the RJ: no combination; the RJ alone is.
    out = ref.play(P(1, "RJ 8c", conf=(0.9, 0.18), alts=((), (("8s", 0.09), ("10c", 0.08)))))
    assert kinds(out) == ["uncertain_read", "play"]
    assert out[0].suggestion == "RJ" and [str(c) for c in ref.hand.plays[-1].cards] == ["RJ"]


def test_a_card_read_fairly_surely_is_never_left_out_to_make_a_play_legal(store):
    ref = referee(store)
    ref.play(P(0, "9s"))
    out = ref.play(P(1, "RJ 8c", conf=(0.9, 0.5), alts=((), (("8s", 0.09),))))
    assert kinds(out) == ["illegal_combination"]


def five_seats_dealt(store):
    """A five-seat referee whose first hand is dealt, the marker (2♠) falling to seat 0."""
    ref = CameraReferee(store, store.create_match(tuple(f"P{i}" for i in range(5)), "five"))
    store.append(ref.match_id, 1, Deal(counts=(21,) * 5), source="referee")
    store.append(ref.match_id, 1, Marker(0, Card.parse("2s")), source="referee")
    return ref


def test_a_refused_play_that_one_card_alone_keeps_from_a_combination_is_suggested_without_it(store):
    # The five-seat film: seat 3's Q♥ Q♣ were never read; A♣ A♠ laid on them read with the Q♣'s
    # corner (0.5 sure): no combination, but the pair of aces, and only it, beats the kings.
    ref = five_seats_dealt(store)
    ref.play(P(0, "4s 4d"))
    ref.play(P(1, "8s 8d"))
    ref.play(P(1, "Kh Kh"))
    out = ref.play(P(3, "Qc Ac As", conf=(0.5, 0.71, 0.74), alts=((("Qs", 0.01),), (), ())))
    assert kinds(out) == ["pass", "uncertain_read", "play"]  # seat 2 let the kings through
    assert sorted(str(c) for c in ref.hand.plays[-1].cards) == ["Ac", "As"]


def test_a_refused_play_that_several_cards_could_be_left_out_of_is_no_suggestion(store):
    ref = referee(store)
    # four and one is no combination; the four (a bomb) or a trio with the 9 are: anyone's guess
    out = ref.play(P(0, "4s 4h 4d 4c 9c", conf=(0.8,) * 5, alts=((),) * 5))
    assert kinds(out)[-1] == "illegal_combination" and not ref.hand.plays


def test_a_refused_play_that_a_faint_read_makes_whole_is_suggested_with_it(store):
    # The messy film: 9♠ 9♥ 10♠ 10♦ J♣ J♥ laid overlapping, the J♥'s index half under the J♣'s
    # card reads at 0.12, under the threshold: kept aside as faint, it completes the pair chain.
    from dataclasses import replace

    ref = referee(store)
    seen = P(0, "9s 9h 10s 10d Jc", conf=(0.82, 0.8, 0.8, 0.79, 0.55), alts=((),) * 5)
    out = ref.play(replace(seen, faint=(("3d", 0.122), ("Jh", 0.116))))
    assert kinds(out)[-2:] == ["uncertain_read", "play"]
    assert sorted(str(c) for c in ref.hand.plays[-1].cards) == ["10d", "10s", "9h", "9s", "Jc", "Jh"]
    # a faint read that makes nothing whole is no suggestion, and none is made up
    out = ref.play(replace(P(1, "Qs Qh Ks Kh Ac", conf=(0.8,) * 5, alts=((),) * 5), faint=(("5d", 0.1),)))
    assert kinds(out)[-1] == "illegal_combination"
    with pytest.raises(ValueError, match="faint"):
        PlayCandidate(0, ("3s",), faint=("Jh",))


def test_a_faint_read_that_could_be_two_ranks_is_no_suggestion_of_its_own(store):
    # The messy film: J♠ J♥ K♥ K♦ with the J♣ all but hidden between them: its sliver reads K♣
    # at 0.12, J♣ next; a trio of kings or of jacks are both whole, so no faint read is taken.
    # A card under the others of a rank read twice is: as many jacks as kings are unseen, so
    # the lower, by its rank alone, for the audit to settle once everyone has shown.
    from dataclasses import replace

    ref = referee(store)
    seen = P(0, "Js Jh Kh Kd", conf=(0.68, 0.42, 0.67, 0.7), alts=((),) * 4)
    out = ref.play(replace(seen, faint=(("Kc", 0.12), ("Ks", 0.08), ("Jc", 0.06))))
    assert kinds(out)[-2:] == ["uncertain_read", "play"]
    assert sorted(str(c) for c in ref.hand.plays[-1].cards) == ["J", "Jh", "Js", "Kd", "Kh"]
    ref = referee(store)
    # of one rank only, the surest read's suit is suggested
    out = ref.play(replace(seen, faint=(("Kc", 0.12), ("Ks", 0.08), ("4c", 0.06))))
    assert kinds(out)[-2:] == ["uncertain_read", "play"]
    assert sorted(str(c) for c in ref.hand.plays[-1].cards) == ["Jh", "Js", "Kc", "Kd", "Kh"]


def test_a_seat_going_out_with_one_card_hidden_is_suggested_its_rank(store):
    # The three-seat film: the landlord goes out with a 4-to-A straight, the K♠ wholly under the
    # A♥; read as 4-Q and A (10 cards, no combination) while the seat holds 11.
    ref = referee(store)
    store.append(ref.match_id, 1, Deal(counts=(8, 8, 8)), source="referee")  # the landlord takes 3 more
    out = ref.play(P(0, "4c 5s 6h 7d 8d 9s 10h Jh Qs Ah", conf=(0.7,) * 10, alts=((),) * 10))
    assert kinds(out)[-2:] == ["uncertain_read", "play"]
    assert sorted(str(c) for c in ref.hand.plays[-1].cards) == sorted("4c 5s 6h 7d 8d 9s 10h Jh Qs Ah K".split())
    assert ref.hand.finished  # the seat is out: the hand is over and scored
    # a seat that keeps cards after it: the K lies inside the straight read, so the same
    ref = referee(store)
    ref.play(P(0, "4c 5s 6h 7d 8d 9s 10h Jh Qs Ah", conf=(0.7,) * 10, alts=((),) * 10))
    assert sorted(str(c) for c in ref.hand.plays[-1].cards) == sorted("4c 5s 6h 7d 8d 9s 10h Jh Qs Ah K".split())
    # a rank beyond the cards read is made up only for a seat going out: 5-to-9 pairs and a 10
    ref = referee(store)
    ref.play(P(0, "5s 5h 6s 6h 7s 7h 8s 8h 9s 9h 10s", conf=(0.7,) * 11, alts=((),) * 11))
    assert all(c.suit is not None for p in ref.hand.plays for c in p.cards)


def test_the_third_of_a_trio_hidden_under_the_other_two_is_added_by_its_rank(store):
    # The messy film: 2♣ 2♥ 2♠ 8♥ laid overlapping, the 2♣ wholly under the 2♥: read 2♥ 2♠ 8♥.
    # Leaving the 8♥ out would make a pair too; a rank read twice that makes the play whole is
    # the likelier story (three of a kind are laid overlapping).
    ref = referee(store)
    out = ref.play(P(0, "2h 2s 8h", conf=(0.8,) * 3, alts=((),) * 3))
    assert kinds(out)[-2:] == ["uncertain_read", "play"]
    assert sorted(str(c) for c in ref.hand.plays[-1].cards) == ["2", "2h", "2s", "8h"]
    # following a pair, only the pair beats it: the card read with it lay under it
    ref = referee(store)
    ref.play(P(0, "Ks Kh"))
    out = ref.play(P(1, "Ac As 7d", conf=(0.8,) * 3, alts=((),) * 3))
    assert sorted(str(c) for c in ref.hand.plays[-1].cards) == ["Ac", "As"]


def test_cards_the_seat_laid_before_are_never_taken_for_a_trio_with_a_card_hidden(store):
    # Two decks: seat 0 leads 5♠ 5♥, everyone passes, and it leads 9♣ 9♦ onto them, read with
    # them. A hidden third nine (9 9 9 5 5) or five (9 9 5 5 5) would each make the play whole,
    # but the fives are the seat's own cards lying there: no trio is made up.
    ref = referee(store, "four", tuple(f"P{i}" for i in range(4)))
    ref.play(P(0, "5s 5h"))
    out = ref.play(P(0, "9c 9d 5s 5h", conf=(0.8,) * 4, alts=((),) * 4))
    assert kinds(out)[-1] == "illegal_combination" and len(ref.hand.plays) == 1


def test_two_cards_hidden_inside_a_straight_are_added_by_their_ranks(store):
    # The messy film: 3♦ 4♥ 5♥ 6♥ 7♣ 8♠ laid crooked, the 4♥ and 7♣ wholly under their
    # neighbours: read 3 5 6 8. Only a 4 and a 7 make it whole.
    ref = referee(store)
    out = ref.play(P(0, "3d 5h 6h 8s", conf=(0.8,) * 4, alts=((),) * 4))
    assert kinds(out)[-2:] == ["uncertain_read", "play"]
    assert sorted(str(c) for c in ref.hand.plays[-1].cards) == ["3d", "4", "5h", "6h", "7", "8s"]
    # cards no pair of ranks inside them completes: no guess
    ref = referee(store)
    out = ref.play(P(0, "3d 6h 9s", conf=(0.8,) * 3, alts=((),) * 3))
    assert kinds(out)[-1] == "illegal_combination"


def test_two_cards_that_make_no_play_lose_the_one_the_seat_laid_there_before(store):
    # The five-seat film: seat 3 leads Q♣ onto its own 7♠ of an earlier trick, read together (a
    # two-deck game, so a second 7♠ is no misread): the 7♠ it played is the card under.
    ref = five_seats_dealt(store)
    ref.play(P(0, "4s"))
    ref.play(P(1, "5d"))
    ref.play(P(3, "7s"))
    out = ref.play(P(3, "Qc 7s", conf=(0.9, 0.6), alts=((), ())))  # all passed: seat 3 leads
    assert kinds(out)[-2:] == ["uncertain_read", "play"]
    assert [str(c) for c in ref.hand.plays[-1].cards] == ["Qc"]
    # a seat that never laid either card gets no guess: both singles are as likely
    out = ref.play(P(4, "Kd 9h", conf=(0.9, 0.6), alts=((), ())))
    assert kinds(out)[-1] == "illegal_combination"


def test_two_decks_a_joker_read_once_where_a_pair_of_it_beats_the_trick_is_suggested_twice(store):
    # The four-seat film: seat 0 answers 2♠ 2♥ with both red jokers laid overlapping; one mark reads.
    ref = CameraReferee(store, store.create_match(tuple(f"P{i}" for i in range(4)), "four"))
    ref.play(P(1, "2s 2h"))
    out = ref.play(P(2, "RJ", conf=(0.8,), alts=((),)))
    assert kinds(out)[-2:] == ["uncertain_read", "play"]
    assert [str(c) for c in ref.hand.plays[-1].cards] == ["RJ", "RJ"]
    # both red jokers now on record: a third is never suggested
    ref.play(P(2, "3s 3h"))
    out = ref.play(P(3, "RJ", conf=(0.8,), alts=((),)))
    assert "uncertain_read" not in kinds(out) and [str(c) for c in ref.hand.plays[-1].cards] == ["3s", "3h"]


def test_one_deck_a_single_joker_is_never_read_as_two(store):
    ref = referee(store)
    ref.play(P(0, "2s 2h"))
    out = ref.play(P(1, "RJ", conf=(0.8,), alts=((),)))
    assert "uncertain_read" not in kinds(out) and len(ref.hand.plays) == 1
