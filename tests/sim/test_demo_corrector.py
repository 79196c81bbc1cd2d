"""The camera demo's referee: what the camera got wrong is corrected the way the page does it."""

from __future__ import annotations

import time

import pytest

from engine.cards import Card
from engine.events import Correction, Kitty, Pass, Play
from sim.demo.camera_feed import CameraTable
from sim.demo.corrector import REVIEW_S, DemoCorrector, due_events, event_key
from tests.kit.table_site import SMALL, Blind, new_match
from tracker.state import TableState

pytestmark = pytest.mark.art  # renders Debian's card art (apt: deploy/system-deps.sh)


def _filmed(store, **kw) -> CameraTable:
    """A feed whose first hand is dealt and bid in the store, the film's truth at hand."""
    feed = CameraTable(store, new_match(store), speed=1000, seed=4, size=SMALL, fps=2, detector=Blind(),
                       hands_per_table=2, **kw)
    feed._next_hand(feed.table, 0)
    return feed


def _played(truth) -> list[int]:
    """Indices of the film's plays and kitty (what the camera reads)."""
    return [i for i, e in enumerate(truth.events) if isinstance(e, Play | Kitty)]


def _hand(store, feed):
    return TableState.load(store, feed.match_id).hand_of(1)


def _camera(store, feed, events) -> None:
    for event in events:
        store.append(feed.match_id, 1, event, source="camera")


def test_a_play_is_due_only_after_it_has_lain_still_and_passes_wait_for_the_next_play(store):
    truth = _filmed(store).table.engine_hands[0]
    plays = _played(truth)
    landed = [float(i) for i in range(len(truth.events))]
    first = plays[0]
    assert due_events(truth, landed, now=first + REVIEW_S - 0.01) == first  # deal and bids only
    assert due_events(truth, landed, now=first + REVIEW_S) == first + 1
    # A pass is never due on its own: the camera infers it when the next seat plays.
    later = next(i for i in plays if any(isinstance(e, Pass) for e in truth.events[first:i]))
    before = max(i for i in plays if i < later)
    assert due_events(truth, landed, now=later + REVIEW_S - 0.01) == before + 1
    assert due_events(truth, landed[:first], now=1e9) == first  # not yet filmed


def _suit_swapped(play: Play, unused: set[str]) -> Play | None:
    """The play with one card read in another suit (same rank: the same combination)."""
    for k, card in enumerate(play.cards):
        rank = str(card)[:-1]
        for suit in "shdc":
            other = rank + suit
            if str(card) not in ("BJ", "RJ") and other != str(card) and other in unused:
                return Play(play.seat, (*play.cards[:k], Card.parse(other), *play.cards[k + 1:]))
    return None


def test_misread_and_missed_plays_are_corrected_until_the_store_matches_the_film(store):
    feed = _filmed(store)
    truth, referee = feed.table.engine_hands[0], feed.referee
    assert isinstance(referee, DemoCorrector)
    events = truth.events
    plays = [i for i in _played(truth) if isinstance(events[i], Play)]
    upto = plays[4] + 1
    used = {str(c) for e in events[:upto] if isinstance(e, Play | Kitty) for c in e.cards}
    unused = {r + s for r in ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2") for s in "shdc"} - used
    misread = next(i for i in plays if _suit_swapped(events[i], unused) is not None)
    missed = next(i for i in plays if i > misread)
    hand = _hand(store, feed)
    for i in range(len(hand.events), upto):
        event = _suit_swapped(events[i], unused) if i == misread else events[i]
        if i == missed:
            continue  # the camera never saw it
        if hand.check(event) is None:  # what the rules refuse, the camera's referee only alerts
            _camera(store, feed, [event])
            hand = _hand(store, feed)
    made = referee.reconcile(upto)
    hand = _hand(store, feed)
    assert [event_key(e) for e in hand.events] == [event_key(e) for e in events[:upto]]
    assert made >= 2 and referee.fixes == made
    rows = [r for r in store.events(feed.match_id) if r.kind == "correction"]
    assert rows and {r.source for r in rows} == {"referee"} and all("demo referee" in r.event.reason for r in rows)
    # The camera's own figure counts the plays it had before the fixes: not the two broken ones.
    assert referee.plays_checked == 5 and 1 <= referee.camera_exact <= 3
    assert referee.reconcile(upto) == 0  # nothing left to fix


def test_a_phantom_play_is_deleted(store):
    feed = _filmed(store)
    truth, referee = feed.table.engine_hands[0], feed.referee
    first = _played(truth)[0]
    lead = truth.events[first]
    assert isinstance(lead, Play | Kitty)
    _camera(store, feed, [lead])
    hand = _hand(store, feed)
    # The camera saw the next seat play the same rank again (a reflection, a card moved back).
    phantom = next(Play(hand.turn, (Card.parse(c),)) for c in ("3s", "3h", "3d", "3c", "4s", "4h", "4d", "4c")
                   if hand.check(Play(hand.turn, (Card.parse(c),))) is None and not _in(truth, c))
    _camera(store, feed, [phantom])
    second = _played(truth)[1]
    referee.reconcile(second + 1)
    assert [event_key(e) for e in _hand(store, feed).events] == [event_key(e) for e in truth.events[:second + 1]]
    assert any(r.kind == "correction" and r.event.action in ("delete", "replace") for r in store.events(feed.match_id))


def _in(truth, card: str) -> bool:
    return any(str(c) == card for e in truth.events if isinstance(e, Play | Kitty) for c in e.cards)


def test_with_the_referee_a_hand_the_camera_saw_nothing_of_is_finished_and_scored(store):
    feed = _filmed(store)
    truth = feed.table.engine_hands[0]
    feed._next_hand(feed.table, 1)  # the last look at hand 1 before hand 2 is dealt
    hand = _hand(store, feed)
    assert hand.finished and hand.out_seat == truth.out_seat
    assert [event_key(e) for e in hand.events] == [event_key(e) for e in truth.events]
    plays = sum(isinstance(e, Play) for e in truth.events)
    assert feed.reads["hands_finished"] == 1 and feed.reads["abandoned"] == 0
    assert feed.reads["plays"] == plays and feed.reads["read"] == 0 and feed.reads["fixes"] >= plays
    assert not any(r.kind == "end" for r in store.events(feed.match_id))


def test_a_correction_the_rules_refuse_is_not_written(store):
    feed = _filmed(store)
    referee = feed.referee
    hand = _hand(store, feed)
    refused = Correction("delete", 0, reason="the deal", time=time.time())
    before = len(store.events(feed.match_id))
    assert referee._append(hand, refused) is False
    assert len(store.events(feed.match_id)) == before


def test_without_the_referee_nothing_is_corrected(store):
    feed = _filmed(store, referee=False)
    assert feed.referee is None
    feed._next_hand(feed.table, 1)
    assert not any(r.kind == "correction" for r in store.events(feed.match_id))
    assert feed.reads["abandoned"] == 1


def test_the_referee_enters_the_announcements_the_camera_cannot_hear(store):
    feed = _filmed(store, cards=3)  # three cards a seat: the first play leaves two or fewer
    truth, referee = feed.table.engine_hands[0], feed.referee
    for i in _played(truth)[:-1]:  # play by play, as the film goes
        referee.reconcile(i + 1)
        hand = _hand(store, feed)
        assert not hand.unannounced()  # whoever is down to two cards or fewer has said so
    announced = [r.event.seat for r in store.events(feed.match_id) if r.kind == "announce"]
    assert announced and set(announced) == set(hand.announced)
    referee.reconcile(len(truth.events))  # announcements do not count as differences from the film
    hand = _hand(store, feed)
    assert hand.finished and [event_key(e) for e in hand.events if e.kind != "announce"] == [
        event_key(e) for e in truth.events]


def test_review_looks_again_only_when_another_play_is_due(store, monkeypatch):
    feed = _filmed(store)
    truth, referee = feed.table.engine_hands[0], feed.referee
    landed = [float(i) for i in range(len(truth.events))]
    looks = []
    monkeypatch.setattr(referee, "reconcile", lambda due: looks.append(due) or 0)
    first = _played(truth)[0]
    for now in (first + REVIEW_S, first + REVIEW_S + 0.1, first + REVIEW_S + 0.2):
        referee.review(landed, now)
    assert looks == [first + 1]
    referee.review(landed, 1e9)
    assert looks == [first + 1, len(truth.events)]
