"""After the hand: the referee page's 亮牌 form, its action and the deck audit it triggers, and
the live page's request that the losers show their cards."""

from __future__ import annotations

from engine.cards import parse_cards
from engine.events import Deal, Landlord, Play
from tests.kit.table_site import act, new_match

FARMER_1 = "3s 4s 5s"
FARMER_2 = "6s 7s 8s"
ACE = "As"



def tiny_hand(store):
    """A short deal (the landlord holds one bomb and goes out with it); the farmers keep 3 cards each."""
    mid = new_match(store)
    for e in (Deal(counts=(1, 3, 3)), Landlord(0), Play(0, tuple(parse_cards("2s 2h 2d 2c")))):
        store.append(mid, 1, e, source="referee")
    return mid


def test_the_shown_form_appears_only_after_the_hand(referee, store):
    mid = new_match(store)
    for e in (Deal(counts=(17, 17, 17)), Landlord(0), Play(0, tuple(parse_cards("3s")))):
        store.append(mid, 1, e, source="referee")
    assert 'id="shown-form"' not in referee.get("/referee").get_data(as_text=True)
    assert "正面朝上" not in referee.get("/").get_data(as_text=True)
    tiny_hand(store)  # a newer match whose hand is over
    page = referee.get("/referee").get_data(as_text=True)
    assert 'id="shown-form"' in page and 'class="row kp-form" id="shown-form"' in page
    live = referee.get("/").get_data(as_text=True)
    assert "请输家把剩余的牌正面朝上摆在自己区域" in live or "lay your remaining cards face up" in live


def test_shown_action_records_the_cards_and_a_refusal_is_a_409(referee, store):
    mid = tiny_hand(store)
    assert act(referee, "shown", seat=1, cards=FARMER_1).status_code == 303
    rows = store.events(mid)
    assert rows[-1].kind == "shown" and rows[-1].event.seat == 1
    refused = act(referee, "shown", seat=0, cards=ACE)  # the winner has no cards left
    assert refused.status_code == 409 and "出完" in refused.get_data(as_text=True)
    assert store.events(mid)[-1].kind == "shown"
    bad = act(referee, "shown", seat=2, cards="3x")
    assert bad.status_code == 400


def test_the_last_show_audits_the_deck_and_a_card_seen_twice_is_an_alert(referee, store):
    mid = tiny_hand(store)
    act(referee, "shown", seat=1, cards=FARMER_1)
    assert act(referee, "shown", seat=2, cards="6s 7s 3s").status_code == 303  # 3s shown by seat 2 too
    last = store.events(mid)[-1]
    assert last.kind == "alert" and last.event.alert == "deck_audit"
    assert last.event.fields["extra"] == "3s"


def test_a_short_deals_undealt_cards_are_not_missing_in_the_audit(referee, store):
    mid = tiny_hand(store)  # 7 cards dealt of 54 (and the kitty): the rest were never in play
    act(referee, "shown", seat=1, cards=FARMER_1)
    act(referee, "shown", seat=2, cards=FARMER_2)
    assert store.events(mid)[-1].kind == "shown"  # the audit passed: no alert


def test_the_live_request_to_show_ends_once_every_loser_has_shown(referee, store):
    tiny_hand(store)
    act(referee, "shown", seat=1, cards=FARMER_1)
    assert "正面朝上" in referee.get("/").get_data(as_text=True)  # seat 3 still holds its cards
    act(referee, "shown", seat=2, cards=FARMER_2)
    assert "正面朝上" not in referee.get("/").get_data(as_text=True)
