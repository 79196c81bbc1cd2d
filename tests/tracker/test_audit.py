"""After the hand: the losers' cards laid face up are recorded as shown (亮牌), not as the next
hand's plays; every seat's starting hand is rebuilt from them, and the deck is audited."""

from __future__ import annotations

import random

import pytest

from engine.cards import Card, format_cards, full_deck, parse_cards
from engine.events import Deal, Kitty, Landlord, Pass, Play
from engine.record import load
from engine.record_text import cards_text
from engine.rules import get_rules
from engine.showdown import deck_audit, starting_hands
from tracker.match_record import match_record
from tracker.records import Alert
from tracker.referee import CameraReferee, PlayCandidate
from tracker.state import TableState
from tracker.store import EventStore


@pytest.fixture
def store():
    s = EventStore(":memory:")
    yield s
    s.close()


def kinds(records):
    return [r.alert if isinstance(r, Alert) else r.kind for r in records]


def text(cards):
    return tuple(str(c) for c in cards)


def deal(rules, seed=1):
    """A shuffled deal: one hand per seat and the kitty."""
    cards = full_deck(rules.decks)
    random.Random(seed).shuffle(cards)
    n = rules.hand_size
    hands = [sorted(cards[i * n:(i + 1) * n]) for i in range(rules.players)]
    return hands, sorted(cards[rules.players * n:])


def play_out(store, preset="classic", landlord=0, seed=1):
    """A camera-refereed hand: the kitty is read, the landlord leads one card at a time while
    the others pass (inferred), until it goes out. Returns the referee, the deal and the kitty."""
    rules = get_rules(preset)
    players = tuple("ABCD"[:rules.players])
    ref = CameraReferee(store, store.create_match(players, preset), remind_announce=False)
    hands, kitty = deal(rules, seed)
    ref.new_hand(time=0.0)
    store.append(ref.match_id, 1, Landlord(landlord), source="referee")
    ref.kitty(text(kitty), time=1.0)
    for i, card in enumerate(hands[landlord] + kitty):
        assert kinds(ref.play(PlayCandidate(landlord, (str(card),), time=2.0 + i)))[-1] == "play"
    assert ref.hand.finished and ref.hand.out_seat == landlord
    return ref, hands, kitty


def show(ref, seat, cards, t=100.0):
    return ref.play(PlayCandidate(seat, text(cards), time=t))


def test_losers_cards_are_shown_and_the_deal_is_rebuilt(store):
    ref, hands, kitty = play_out(store)
    assert kinds(show(ref, 1, hands[1])) == ["shown"]
    assert ref.hand.shown[1] == tuple(hands[1]) and starting_hands(ref.hand) is None  # seat 2 still to show
    assert kinds(show(ref, 2, hands[2])) == ["shown"]  # no audit alert: the deck adds up
    assert ref.state.hand_number == 1 and ref.hand.finished
    assert [list(h) for h in starting_hands(ref.hand)] == hands
    assert deck_audit(ref.hand).ok
    data = match_record(ref.state)
    entry = data["hands"][0]
    assert entry["starting_hands"] == [format_cards(h) for h in hands]
    assert entry["audit"] == {"ok": True, "missing": [], "extra": []}
    assert entry["shown"] == {"1": format_cards(hands[1]), "2": format_cards(hands[2])}
    assert [e["kind"] for e in entry["events"]][-2:] == ["shown", "shown"]
    again = load(data)  # the record reads back with its shown events
    assert again.hands[0].hand(again.rules).shown == ref.hand.shown


def test_a_card_one_show_lacks_that_the_deck_alone_lacks_is_added_with_an_alert(store):
    # Seat 2 shows one card fewer than it holds (two cards read as one, or one dropped), and the
    # deck lacks exactly that card: it is seat 2's, added with an alert naming it.
    ref, hands, _ = play_out(store)
    unseen = hands[2][5]
    show(ref, 1, hands[1])
    out = show(ref, 2, [c for c in hands[2] if c != unseen])
    assert kinds(out) == ["shown", "shown_completed", "shown"]  # no audit alert: it adds up now
    alert = out[1]
    assert alert.seat == 2 and alert.fields["missing"] == str(unseen)
    assert cards_text([unseen]) in alert.text("zh") and cards_text([unseen]) in alert.text("en")
    assert sorted(ref.hand.shown[2]) == sorted(hands[2])
    assert [list(h) for h in starting_hands(ref.hand)] == hands
    assert match_record(ref.state)["hands"][0]["audit"] == {"ok": True, "missing": [], "extra": []}


def test_cards_missing_from_two_shows_are_a_deck_audit_alert_naming_them(store):
    ref, hands, _ = play_out(store)
    dropped = (hands[1][2], hands[2][5])  # whose is which, the deck cannot tell
    show(ref, 1, [c for c in hands[1] if c != dropped[0]])
    out = show(ref, 2, [c for c in hands[2] if c != dropped[1]])
    assert kinds(out) == ["shown", "deck_audit"]
    alert = out[-1]
    assert alert.fields["missing"] == format_cards(sorted(dropped)) and alert.fields["extra"] == ""
    zh, en = alert.text("zh"), alert.text("en")
    assert f"缺少 {cards_text(sorted(dropped))}" in zh and f"missing {cards_text(sorted(dropped))}" in en
    audit = match_record(ref.state)["hands"][0]["audit"]
    assert audit == {"ok": False, "missing": [str(c) for c in sorted(dropped)], "extra": []}


def test_a_card_seen_twice_is_a_deck_audit_alert(store):
    ref, hands, kitty = play_out(store)
    played = hands[0][0]  # the landlord played it; a farmer's card misread as it
    misread = hands[1][3]
    show(ref, 1, [played if c == misread else c for c in hands[1]])
    out = show(ref, 2, hands[2])
    assert kinds(out) == ["shown", "deck_audit"]
    assert out[-1].fields == {"missing": str(misread), "extra": str(played), "decks": 1}
    assert f"seen too often {cards_text([played])}" in out[-1].text("en")


def test_a_card_of_another_deck_among_the_cards_shown_is_seen_too_often(store):
    ref, hands, _ = play_out(store)
    show(ref, 1, hands[1] + [hands[2][0]])  # one more than it holds: within the slack
    out = show(ref, 2, hands[2])
    assert kinds(out) == ["shown", "deck_audit"] and out[-1].fields["extra"] == str(hands[2][0])


def test_cards_laid_in_two_goes_make_one_show(store):
    ref, hands, _ = play_out(store)
    assert kinds(show(ref, 1, hands[1][:16])) == ["shown"]  # one short: within the slack
    assert kinds(show(ref, 1, hands[1][16:])) == ["shown"]  # the rest: the show completed
    assert ref.hand.shown[1] == tuple(hands[1])


def test_the_next_hands_first_play_is_not_taken_as_cards_shown(store):
    ref, hands, _ = play_out(store)
    show(ref, 1, hands[1])
    show(ref, 2, hands[2])
    # after a deal (the next kitty read) every play is the new hand's
    new_hands, new_kitty = deal(get_rules("classic"), seed=2)
    assert kinds(ref.kitty(text(new_kitty), time=200.0)) == ["deal"]
    assert kinds(ref.play(PlayCandidate(1, text(new_hands[1][:1]), time=201.0))) == ["landlord", "kitty", "play"]
    assert ref.state.hand_number == 2 and ref.hand.shown == {}


def test_without_a_deal_a_play_that_does_not_fit_the_cards_left_starts_the_next_hand(store):
    ref, hands, _ = play_out(store)
    show(ref, 1, hands[1])
    # seat 1 has shown all its cards: one more card is the next hand's lead (and seat 2, a
    # loser who showed nothing, is alerted on the hand before)
    assert kinds(ref.play(PlayCandidate(1, ("3s",), time=300.0))) == ["not_shown", "deal", "landlord", "play"]
    assert ref.state.hand_number == 2
    first = ref.state.hand_of(1)
    assert set(first.shown) == {1}  # seat 2 never showed: no audit, no starting hands
    assert starting_hands(first) is None and deck_audit(first) is None


def test_a_small_play_of_a_seat_yet_to_show_is_the_next_hand(store):
    ref, _, _ = play_out(store)
    assert kinds(ref.play(PlayCandidate(2, ("4h", "4d"), time=300.0))) == ["deal", "landlord", "play"]
    assert ref.state.hand_of(1).shown == {}


def test_the_winner_has_nothing_to_show_and_cards_before_the_end_are_plays(store):
    ref, _, _ = play_out(store)
    out = ref.shown(0, ["3s"], time=300.0)
    assert kinds(out) == ["wrong_phase"] and "出完" in out[0].text("zh")
    ref2 = CameraReferee(store, store.create_match(("A", "B", "C")))
    ref2.play(PlayCandidate(0, ("5s",)))
    assert kinds(ref2.shown(1, ["3s"])) == ["wrong_phase"]


def test_a_store_written_before_shown_cards_loads_and_has_no_audit(store):
    mid = store.create_match(("A", "B", "C"))
    events = [Deal(counts=(0, 17, 17)), Landlord(0), Kitty(tuple(parse_cards("3s 4s 5s")))]
    for e in events:
        store.append(mid, 1, e, source="camera")
    for card in ("3s", "4s", "5s"):
        store.append(mid, 1, Play(0, (Card.parse(card),)), source="camera")
        if card != "5s":
            store.append(mid, 1, Pass(1), source="camera")
            store.append(mid, 1, Pass(2), source="camera")
    state = TableState.load(store, mid)
    assert state.hand.finished and not state.alerts
    entry = match_record(state)["hands"][0]
    assert "starting_hands" not in entry and "audit" not in entry


def test_four_players_two_decks_count_two_copies(store):
    ref, hands, kitty = play_out(store, "four", landlord=1, seed=3)
    assert kinds(show(ref, 0, hands[0])) == ["shown"]
    lost, gone = hands[2][0], hands[3][0]
    assert kinds(show(ref, 2, hands[2][1:])) == ["shown"]
    out = show(ref, 3, hands[3][1:])
    assert kinds(out) == ["shown", "deck_audit"]  # two seats short: whose card is whose is not known
    missing = format_cards(sorted([lost, gone]))
    assert out[-1].fields == {"missing": missing, "extra": "", "decks": 2}  # one copy of two, each
    fixed = ref.shown(3, text(hands[3]), time=400.0)  # the referee enters seat 4's cards in full
    # one seat short now, by the one card the deck lacks: it is added to seat 3's cards shown
    assert kinds(fixed) == ["shown", "shown_completed", "shown"] and fixed[1].seat == 2
    assert deck_audit(ref.hand).ok and [list(h) for h in starting_hands(ref.hand)] == hands
    assert "2 副" not in out[-1].text("zh") and "每张 2 张" in out[-1].text("zh")


def test_a_short_deal_leaves_the_undealt_cards_out_of_the_audit():
    # Two cards a seat (a quick game): the deck's other 45 cards were never dealt.
    from engine.events import Shown
    from engine.hand import Hand

    c = lambda t: tuple(parse_cards(t))  # noqa: E731
    events = [Deal(counts=(2, 2, 2)), Landlord(0), Kitty(c("As 7d 7c")), Play(0, c("3s 3h")), Pass(1), Pass(2),
              Play(0, c("7d 7c")), Pass(1), Pass(2), Play(0, c("As")), Shown(1, c("5s 5h")), Shown(2, c("9d Kc"))]
    hand = Hand.from_events("classic", events)
    audit = deck_audit(hand)
    assert audit.ok and audit.extra == () and len(audit.missing) == audit.set_aside == 54 - 9
    twice = Hand.from_events("classic", events[:-1] + [Shown(2, c("9d 3s"))])
    assert not deck_audit(twice).ok  # a card seen twice is still caught


def answered_once(store, accept=True):
    """A hand where seat 1 answers the landlord's lowest single with its lowest card between the
    landlord's lowest and highest; the landlord's highest takes the trick, then it leads its other
    cards one at a time and goes out. Seat 1's one play, that answer, still lies in its zone.
    Returns the referee, the deal, the answer and seat 1's other cards."""
    rules = get_rules("classic")
    ref = CameraReferee(store, store.create_match(("A", "B", "C"), "classic"), remind_announce=False,
                        accept_suggestions=accept)
    hands, kitty = deal(rules, 3)
    ref.new_hand(time=0.0)
    store.append(ref.match_id, 1, Landlord(0), source="referee")
    ref.kitty(text(kitty), time=1.0)
    lead = sorted(hands[0] + kitty, key=lambda c: c.rank)
    low, top = lead[0], lead[-1]
    answer = min((c for c in hands[1] if low.rank < c.rank < top.rank), key=lambda c: c.rank)
    ref.play(PlayCandidate(0, (str(low),), time=2.0))
    assert kinds(ref.play(PlayCandidate(1, (str(answer),), time=3.0)))[-1] == "play"
    for i, card in enumerate([top, *lead[1:-1]]):
        assert kinds(ref.play(PlayCandidate(0, (str(card),), time=4.0 + i)))[-1] == "play"
    assert ref.hand.finished
    return ref, hands, answer, [c for c in hands[1] if c != answer]


def test_the_last_play_still_lying_in_the_zone_is_not_taken_for_a_card_shown(store):
    """The seat's last play lies in its zone when it lays its cards beside it: read with them, it
    is set aside (one deck holds it once), and the starting hands and the audit come out right."""
    ref, hands, answer, rest1 = answered_once(store)
    assert kinds(show(ref, 1, [*rest1, answer])) == ["shown"]  # its played card read with the rest
    assert ref.hand.shown[1] == tuple(rest1)
    assert kinds(show(ref, 2, hands[2])) == ["shown"]  # and no audit alert
    assert [list(h) for h in starting_hands(ref.hand)] == hands and deck_audit(ref.hand).ok


@pytest.mark.parametrize("accept", [True, False])
def test_a_card_of_the_last_play_read_with_another_suit_under_the_cards_shown_is_taken_out(store, accept):
    """The seat's last play lies under the cards it shows, and one of its corners is read with
    another suit (a 2♣ read as 2♠): not an exact copy of the card played, so it is kept as a card
    shown, one more than the seat holds. Once everyone has shown, the deck has that card once too
    often and it has the rank of the last play: it is taken out (with an alert), and the starting
    hands and the audit come out right. Without accepting suggestions only the alert is raised."""
    ref, hands, answer, rest1 = answered_once(store, accept)
    # the answer's corner read with another suit: a card of that rank someone else holds or played
    misread = next(c for c in full_deck(1) if c.rank == answer.rank and c != answer and c not in rest1)
    assert kinds(show(ref, 1, [*rest1, misread])) == ["shown"]
    out = show(ref, 2, hands[2])
    if not accept:
        assert kinds(out) == ["shown", "shown_trimmed", "deck_audit"]
        assert ref.hand.shown[1] == (*rest1, misread)
        return
    assert kinds(out) == ["shown", "shown_trimmed", "shown"]  # no audit alert: it adds up now
    alert = out[1]
    assert alert.seat == 1 and alert.fields["extra"] == str(misread)
    assert cards_text([misread]) in alert.text("zh") and cards_text([misread]) in alert.text("en")
    assert sorted(ref.hand.shown[1]) == sorted(rest1)
    assert [list(h) for h in starting_hands(ref.hand)] == hands and deck_audit(ref.hand).ok


def test_an_extra_card_shown_of_no_rank_of_the_last_play_is_not_taken_out(store):
    """A card shown too many whose rank the seat's last play lacks is not a corner of that play:
    the deck audit alert stands and nothing is taken out."""
    ref, hands, answer, rest1 = answered_once(store)
    other = next(c for c in hands[2] if c.rank != answer.rank)
    show(ref, 1, [*rest1, other])
    out = show(ref, 2, hands[2])
    assert kinds(out) == ["shown", "deck_audit"] and out[-1].fields["extra"] == str(other)
    assert ref.hand.shown[1] == (*rest1, other)


def test_a_card_read_twice_among_the_cards_shown_counts_once_unless_the_seat_holds_two(store):
    """Two decks: a joker among the cards shown is read twice (its two corners taken for two
    cards) and the seat seems to show one card more than it holds: the second read goes. A seat
    that holds both copies and shows as many cards as it holds keeps both."""
    ref, hands, kitty = play_out(store, "four", landlord=1, seed=3)
    shown0 = [*hands[0], hands[0][4]]  # one card read twice: one more than seat 1 holds
    assert kinds(show(ref, 0, shown0)) == ["shown"] and ref.hand.shown[0] == tuple(hands[0])
    pair = min(c for c in hands[2] if hands[2].count(c) == 2)  # this deal gives seat 3 both copies of four cards
    assert kinds(show(ref, 2, hands[2])) == ["shown"] and ref.hand.shown[2].count(pair) == 2


@pytest.mark.parametrize("accept", [True, False])
def test_a_joker_missing_where_the_seat_played_the_other_alone_completes_its_rocket(store, accept):
    # The landlord's rocket is read as the red joker alone; it loses and shows the rest, and the
    # deck lacks the black joker: its rocket was read short. The play becomes the rocket (an alert
    # says so) and the hand's multiplier doubles; a referee who takes no suggestion gets the alert
    # and the audit's.
    rules = get_rules("classic")
    ref = CameraReferee(store, store.create_match(("A", "B", "C"), "classic"), remind_announce=False,
                        accept_suggestions=accept)
    hands, kitty = deal(rules, seed=4)
    landlord = sorted(hands[0] + kitty)
    for joker in map(Card.parse, ("RJ", "BJ")):  # the landlord holds both jokers
        if joker not in landlord:
            holder = next(h for h in hands[1:] if joker in h)
            swap = landlord[0]
            holder[holder.index(joker)] = swap
            landlord[0] = joker
            landlord.sort()
    hands = [landlord] + [sorted(h) for h in hands[1:]]
    ref.new_hand(time=0.0)
    store.append(ref.match_id, 1, Landlord(0), source="referee")
    ref.kitty(text(kitty), time=1.0)
    lowest = min(c for c in landlord if not c.is_joker)
    assert kinds(ref.play(PlayCandidate(0, ("RJ",), time=2.0)))[-1] == "play"  # BJ RJ laid
    assert kinds(ref.play(PlayCandidate(0, (str(lowest),), time=3.0)))[-1] == "play"
    farmer = sorted(hands[1], reverse=True)
    for i, card in enumerate(farmer):  # seat 1 beats it, then leads out its hand
        assert kinds(ref.play(PlayCandidate(1, (str(card),), time=4.0 + i)))[-1] == "play"
    assert ref.hand.finished and ref.hand.out_seat == 1
    rest = [c for c in landlord if c not in (Card.parse("RJ"), Card.parse("BJ"), lowest)]
    show(ref, 2, hands[2], t=199.0)
    before = ref.hand.multiplier
    out = show(ref, 0, rest, t=200.0)  # 17 cards shown, 18 on record
    assert "shown_completed" not in kinds(out)
    if not accept:
        assert kinds(out) == ["shown", "rocket_completed", "deck_audit"] and out[-1].fields["missing"] == "BJ"
        return
    assert kinds(out) == ["shown", "rocket_completed", "correction"]
    assert out[1].seat == 0 and out[1].cards == "RJ" and out[1].suggestion == "BJ RJ"
    assert "王炸" in out[1].text("zh") and "rocket" in out[1].text("en")
    assert deck_audit(ref.hand).ok and sorted([*starting_hands(ref.hand)[0], *kitty]) == hands[0]
    assert ref.hand.multiplier == 2 * before


def test_a_loser_who_showed_nothing_while_another_did_is_alerted_when_the_next_hand_is_dealt(store):
    """A pair read as a single leaves its seat a card on record after it went out; the hand then
    ends on record on another seat's card shown, and every event fits that story: the loser on
    record who never shows is the sign. At a table that shows nothing, no alert."""
    ref, hands, _ = play_out(store)
    ref.shown(2, text(hands[2]), time=80.0)
    out = ref.new_hand(time=90.0)
    assert kinds(out) == ["not_shown", "deal"]
    alert = out[0]
    assert alert.seat == 1 and dict(alert.data)["left"] == 17
    assert [e.hand for e in store.events(ref.match_id) if isinstance(e.event, Alert)] == [1]  # on the hand before
    # a table whose seats show nothing: nothing to say
    other = EventStore(":memory:")
    quiet, _, _ = play_out(other)
    assert kinds(quiet.new_hand(time=90.0)) == ["deal"]
    other.close()


def test_a_loser_who_showed_nothing_in_the_last_hand_is_alerted_when_the_camera_stops(store):
    """The last hand of the evening has no next deal: when the camera stops, the loser on record
    who never showed gets the same alert, once (the next deal, should the table play on, does
    not raise it again)."""
    ref, hands, _ = play_out(store)
    ref.shown(2, text(hands[2]), time=80.0)
    out = ref.close(time=85.0)
    assert kinds(out) == ["not_shown"] and out[0].seat == 1 and out[0].time == 85.0
    assert ref.close(time=86.0) == []
    assert kinds(ref.new_hand(time=90.0)) == ["deal"]
    # no hand yet, a hand every loser showed, or a hand under way: nothing to say
    other = EventStore(":memory:")
    fresh = CameraReferee(other, other.create_match(("A", "B", "C"), "classic"), remind_announce=False)
    assert fresh.close(time=1.0) == [] and fresh.close() == []
    whole, hands2, _ = play_out(other)
    whole.shown(1, text(hands2[1]), time=80.0)
    whole.shown(2, text(hands2[2]), time=81.0)
    assert whole.close(time=85.0) == []
    whole.new_hand(time=90.0)
    assert whole.close(time=91.0) == []
    other.close()


@pytest.mark.parametrize("bare", [1, 2])
def test_a_card_stored_by_its_rank_alone_gets_its_suit_from_the_audit(store, bare):
    """A card hidden inside a straight is stored by its rank alone ("K"); once everyone has shown,
    the deck lacks one card of that rank: the play is corrected to it (a notice says so). Two
    cards of one rank stored without a suit: which suit was whose is not known, nothing changes."""
    rules = get_rules("classic")
    ref = CameraReferee(store, store.create_match(("A", "B", "C"), "classic"), remind_announce=False)
    hands, kitty = deal(rules, seed=5)
    ref.new_hand(time=0.0)
    store.append(ref.match_id, 1, Landlord(0), source="referee")
    ref.kitty(text(kitty), time=1.0)
    lead = sorted(hands[0] + kitty)
    rank = next(c.rank for c in lead if not c.is_joker and sum(d.rank == c.rank for d in lead) >= bare)
    hidden = [c for c in lead if c.rank == rank][:bare]
    for i, card in enumerate(lead):
        read = str(card)[:-1] if card in hidden else str(card)  # "K" for K♠: its suit never seen
        assert kinds(ref.play(PlayCandidate(0, (read,), time=2.0 + i)))[-1] == "play"
    bare_cards = lambda: sum(c.suit is None and not c.is_joker for p in ref.hand.plays for c in p.cards)  # noqa: E731
    assert ref.hand.finished and bare_cards() == bare
    show(ref, 1, hands[1])
    out = show(ref, 2, hands[2])
    if bare == 2:
        assert kinds(out) == ["shown"] and bare_cards() == 2
        return
    assert kinds(out) == ["shown", "suit_completed", "correction"]
    assert out[1].seat == 0 and out[1].suggestion == str(hidden[0])
    assert cards_text([hidden[0]]) in out[1].text("en") and cards_text([hidden[0]]) in out[1].text("zh")
    assert bare_cards() == 0
    assert sorted([*starting_hands(ref.hand)[0], *kitty]) == lead and deck_audit(ref.hand).ok


def test_a_card_read_late_under_the_phantom_bar_is_no_more_of_a_whole_show(store):
    """Four seats atlasnye: a seat shows its 13 cards, A♥ twice among them (two decks); a moment
    later a 4♣ settles beside them at 0.04. Its cards shown were whole: that read is no more of
    them (with it, 14 cards for 13 held, one A♥ had gone as a card read twice)."""
    ref, hands, _ = play_out(store)
    show(ref, 1, hands[1])
    seat2 = tuple(hands[2])
    sure = (0.8,) * len(seat2)
    assert kinds(ref.play(PlayCandidate(2, text(seat2), time=100.0, confidences=sure))) == ["shown"]
    stray = next(c for c in hands[1] if c not in seat2)
    late = PlayCandidate(2, (*text(seat2), str(stray)), time=105.0, confidences=(*sure, 0.04))
    assert ref.late_cards(late, text(seat2)) == []  # settled with them, late
    assert ref.play(PlayCandidate(2, (str(stray),), time=106.0, confidences=(0.04,))) == []  # or alone, after
    assert ref.hand.shown[2] == seat2 and deck_audit(ref.hand).ok


def _dealt(store, fixed, seed, accept=True):
    """A classic hand dealt with ``fixed`` cards in the seats named, the rest shuffled; seat 0 is
    the landlord and the kitty is read. Returns the referee, the hands and the kitty."""
    ref = CameraReferee(store, store.create_match(("A", "B", "C"), "classic"), remind_announce=False,
                        accept_suggestions=accept)
    rest = [c for c in full_deck(1) if not any(c in cards for cards in fixed.values())]
    random.Random(seed).shuffle(rest)
    hands = []
    for seat in range(3):
        need = 17 - len(fixed.get(seat, ()))
        hands.append(sorted(list(fixed.get(seat, ())) + rest[:need]))
        rest = rest[need:]
    kitty = sorted(rest)
    ref.new_hand(time=0.0)
    store.append(ref.match_id, 1, Landlord(0), source="referee")
    ref.kitty(text(kitty), time=1.0)
    return ref, hands, kitty


def _pair_read_as_one(store, accept=True):
    """Seat 1 leads 9♣ 9♦, read as the 9♣ alone (legal as a single lead); the landlord answers
    with the rocket (legal against either) and goes out. Returns the referee and the deal."""
    ref, hands, kitty = _dealt(store, {0: parse_cards("3s BJ RJ"), 1: parse_cards("4h 9c 9d")}, 7, accept)
    landlord = sorted(hands[0] + kitty)
    t = iter(range(2, 200))
    steps = [(0, "3s"), (1, "4h"), (1, "9c"), (0, "BJ RJ")]  # the passes between are inferred
    steps += [(0, str(c)) for c in landlord if str(c) not in ("3s", "BJ", "RJ")]
    for seat, cards in steps:
        assert kinds(ref.play(PlayCandidate(seat, tuple(cards.split()), time=float(next(t)))))[-1] == "play"
    assert ref.hand.finished and ref.hand.out_seat == 0
    return ref, hands, kitty


@pytest.mark.parametrize("accept", [True, False])
def test_cards_the_deck_lacks_that_make_a_short_seats_play_whole_go_to_that_play(store, accept):
    """Seat 1's pair was read as one card and it shows the rest: it is a card short and the
    deck lacks the 9♦. Of its plays, only the 9♣ takes it (a pair the rocket still beats): the
    play is corrected to the pair with an alert, not the card added to its cards shown."""
    ref, hands, kitty = _pair_read_as_one(store, accept)
    show(ref, 2, hands[2])
    out = show(ref, 1, [c for c in hands[1] if str(c) not in ("4h", "9c", "9d")], t=150.0)
    if not accept:
        assert kinds(out) == ["shown", "play_completed", "deck_audit"] and out[-1].fields["missing"] == "9d"
        return
    assert kinds(out) == ["shown", "play_completed", "correction"]
    alert = out[1]
    assert alert.seat == 1 and alert.cards == "9c" and sorted(alert.suggestion.split()) == ["9c", "9d"]
    assert "9♦" in alert.text("zh") and "read short" in alert.text("en")
    assert sorted(str(c) for c in ref.hand.plays[2].cards) == ["9c", "9d"] and deck_audit(ref.hand).ok
    assert [list(h) for h in starting_hands(ref.hand)][1:] == hands[1:]


def test_a_card_the_deck_lacks_that_fits_no_play_of_the_short_seat_is_among_its_cards_shown(store):
    """The same hand, but seat 1 shows all but one card it still holds: no play of its takes
    that card and stays legal (the 4♥ and 9♣ were singles the next play had to follow), so it
    is added to its cards shown as before."""
    ref, hands, kitty = _pair_read_as_one(store)
    held = [c for c in hands[1] if str(c) not in ("4h", "9c")]  # 9d shown, so the play read right
    unseen = next(c for c in held if c.rank not in (Card.parse("4h").rank, Card.parse("9c").rank))
    show(ref, 2, hands[2])
    out = show(ref, 1, [c for c in held if c != unseen], t=150.0)
    assert kinds(out) == ["shown", "shown_completed", "shown"] and out[1].fields["missing"] == str(unseen)


def test_a_trio_guessed_of_the_wrong_rank_takes_the_card_the_deck_lacks(store):
    """K♣ K♦ K♥ J♠ J♥ read K♣ K♦ J♠ J♥: a trio of kings or of jacks, as many of each unseen, so
    stored with a jack by its rank alone. Once everyone has shown, the deck lacks the K♥ and no
    jack: the K♥ is the one card that makes the play whole, and the play takes it."""
    fixed = parse_cards("Kc Kd Kh Js Jh")
    ref, hands, kitty = _dealt(store, {0: fixed}, 11)
    out = ref.play(PlayCandidate(0, ("Kc", "Kd", "Js", "Jh"), time=2.0, confidences=(0.8,) * 4,
                                 alternatives=((),) * 4))
    assert kinds(out)[-2:] == ["uncertain_read", "play"] and "J" in [str(c) for c in ref.hand.plays[0].cards]
    for i, card in enumerate(c for c in sorted(hands[0] + kitty) if c not in fixed):
        assert kinds(ref.play(PlayCandidate(0, (str(card),), time=3.0 + i)))[-1] == "play"
    assert ref.hand.finished
    show(ref, 1, hands[1])
    out = show(ref, 2, hands[2])
    assert kinds(out) == ["shown", "suit_completed", "correction"]
    assert out[1].suggestion.split() == format_cards(sorted(fixed)).split()
    assert "K♥" in out[1].text("zh") and deck_audit(ref.hand).ok


def _goes_out_with_a_pair_read_as_one(store, accept=True):
    """Seat 1 takes the lead, leads its cards one by one and goes out with 9♣ 9♦, read as the
    9♣ alone: on record it still holds a card. Returns the referee and the deal."""
    ref, hands, kitty = _dealt(store, {0: parse_cards("3s"), 1: parse_cards("4h 9c 9d")}, 5, accept)
    steps = [(0, "3s"), (1, "4h")] + [(1, str(c)) for c in hands[1] if str(c) not in ("4h", "9c", "9d")]
    for i, (seat, card) in enumerate(steps + [(1, "9c")]):  # the passes between are inferred
        assert kinds(ref.play(PlayCandidate(seat, (card,), time=2.0 + i)))[-1] == "play"
    assert not ref.hand.finished and ref.hand.cards_left[1] == 1
    return ref, hands, kitty


def test_a_seat_that_went_out_with_a_card_unread_is_seen_out_when_the_others_lay_their_hands(store):
    """Both other seats then lay exactly the cards each holds, each refused as a play: the hand
    had ended. The deck lacks the one card seat 1 holds on record, and only its 9♣ takes it:
    the play becomes the pair, the hand ends, and the cards laid are the cards shown."""
    ref, hands, kitty = _goes_out_with_a_pair_read_as_one(store)
    landlord = sorted(c for c in hands[0] + kitty if str(c) != "3s")
    first = ref.play(PlayCandidate(2, text(hands[2]), time=80.0))
    assert "shown" not in kinds(first) and not ref.hand.finished  # one seat's lay alone says nothing yet
    out = ref.play(PlayCandidate(0, text(landlord), time=81.0))
    # seat 2 passing is inferred first, then dropped: the hand had ended
    assert kinds(out) == ["pass", "correction", "play_completed", "correction", "shown", "shown"]
    out = out[1:]
    assert out[1].seat == 1 and out[1].cards == "9c" and sorted(out[1].suggestion.split()) == ["9c", "9d"]
    assert ref.hand.finished and ref.hand.out_seat == 1 and deck_audit(ref.hand).ok
    assert sorted(str(c) for c in ref.hand.plays[-1].cards) == ["9c", "9d"]
    assert [list(h) for h in starting_hands(ref.hand)][1:] == hands[1:]
    assert ref.hand.result().landlord_won is False


def test_seats_laying_their_hands_end_nothing_when_no_play_of_the_last_seat_fits(store):
    """The same, but one of the cards laid is misread as the 4♥ seat 1 played: the deck then
    lacks two cards and holds the 4♥ twice, and nothing is guessed; nor for a referee who takes
    no suggestion."""
    ref, hands, kitty = _goes_out_with_a_pair_read_as_one(store)
    landlord = sorted(c for c in hands[0] + kitty if str(c) != "3s")
    misread = hands[2][1:] + [Card.parse("4h")]
    ref.play(PlayCandidate(2, text(misread), time=80.0))
    out = ref.play(PlayCandidate(0, text(landlord), time=81.0))
    assert "play_completed" not in kinds(out) and not ref.hand.finished
    other_store = EventStore(":memory:")
    ref, hands, kitty = _goes_out_with_a_pair_read_as_one(other_store, accept=False)
    ref.play(PlayCandidate(2, text(hands[2]), time=80.0))
    out = ref.play(PlayCandidate(0, text(sorted(c for c in hands[0] + kitty if str(c) != "3s")), time=81.0))
    assert "play_completed" not in kinds(out) and not ref.hand.finished
    other_store.close()
