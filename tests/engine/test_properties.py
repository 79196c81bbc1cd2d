"""Properties of the rules engine that hold for every input (hypothesis)."""

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import Card, format_cards, full_deck, parse_cards, rank_counts
from engine.classify import beats, classify, to_combination
from engine.legal import brute_force_plays, legal_plays, rank_legal_plays
from engine.rules import CLASSIC, get_rules

FOUR = get_rules("four")
RULE_SETS = {
    "classic": CLASSIC,
    "four": FOUR,
    "loose": CLASSIC.replace(
        kicker_core_rank=True, kicker_four_of_rank=True, kicker_rocket=True, four_two_pair_same=True,
        low_straights=True,
    ),
}
DECKS = {1: full_deck(1), 2: full_deck(2)}
rule_names = st.sampled_from(sorted(RULE_SETS))


@st.composite
def hands(draw, max_size=20):
    """A rule set's name and a hand dealt from its deck(s)."""
    name = draw(rule_names)
    deck = DECKS[RULE_SETS[name].decks]
    size = draw(st.integers(1, max_size))
    seed = draw(st.integers(0, 2**32 - 1))
    return name, random.Random(seed).sample(deck, size)


RICH_HANDS = {
    1: "3333 4444 555 666 777 8 9 10 J Q K A 2 2 BJ RJ",
    2: "3333 4444 555 666 777 88 99 10 J Q K A 2 2 BJ BJ RJ RJ 22222",
}


def _pool(rules, seed, n_hands=10):
    """Combinations of every type the rules have: the leads of a rich hand and random hands."""
    rng = random.Random(seed)
    plays = set(legal_plays(RICH_HANDS[rules.decks], None, rules))
    for _ in range(n_hands):
        plays.update(legal_plays(rng.sample(DECKS[rules.decks], 20), None, rules))
    return sorted(plays, key=str)


POOLS = {name: _pool(rules, seed=5) for name, rules in RULE_SETS.items()}
BY_TYPE = {name: {t: [p for p in pool if p.type == t] for t in {p.type for p in pool}} for name, pool in POOLS.items()}


def pick(data, plays):
    """One of ``plays``, drawn by index (cheaper than sampled_from on thousands)."""
    return plays[data.draw(st.integers(0, len(plays) - 1))]


def test_the_pools_hold_every_type_the_rules_allow():
    assert len({p.type for p in POOLS["classic"]}) == 14
    assert {p.type for p in POOLS["four"]} >= {"airplane_pair", "bomb", "rocket", "pair_straight", "trio_pair"}


@settings(max_examples=150, deadline=None)
@given(hands())
def test_every_reading_uses_exactly_the_input_cards(case):
    name, cards = case
    for reading in classify(cards, RULE_SETS[name]):
        assert Counter(reading.cards) == Counter(cards)
        assert len(reading.core) > 0


@settings(max_examples=150, deadline=None)
@given(rule_names, st.data())
def test_beats_is_irreflexive(name, data):
    play = pick(data, POOLS[name])
    assert not beats(play, play, RULE_SETS[name])


@settings(max_examples=300, deadline=None)
@given(rule_names, st.data())
def test_beats_is_transitive_within_a_type(name, data):
    rules = RULE_SETS[name]
    same = BY_TYPE[name][pick(data, sorted(BY_TYPE[name]))]
    first, second, third = pick(data, same), pick(data, same), pick(data, same)
    if beats(first, second, rules) and beats(second, third, rules):
        assert beats(first, third, rules)


@settings(max_examples=300, deadline=None)
@given(rule_names, st.data())
def test_beats_is_transitive_across_types(name, data):
    rules = RULE_SETS[name]
    a, b, c = (pick(data, POOLS[name]) for _ in range(3))
    if beats(a, b, rules) and beats(b, c, rules):
        assert beats(a, c, rules)


@settings(max_examples=100, deadline=None)
@given(rule_names, st.data())
def test_the_rocket_beats_everything(name, data):
    rules = RULE_SETS[name]
    rocket = classify(["BJ RJ", "BJ BJ RJ RJ"][rules.rocket_jokers == 4], rules)[0]
    other = pick(data, POOLS[name])
    if other.type != "rocket":
        assert beats(rocket, other, rules)
        assert not beats(other, rocket, rules)


@settings(max_examples=60, deadline=None)
@given(hands(max_size=13), st.data())
def test_legal_plays_equal_brute_force(case, data):
    name, cards = case
    rules = RULE_SETS[name]
    counts = tuple(rank_counts(cards))
    reference = brute_force_plays(counts, None, rules)
    assert set(rank_legal_plays(counts, None, rules)) == reference
    groups = [(Card(r),) * k for r, k in enumerate(counts)]
    prev = pick(data, POOLS[name])
    expected = {q for q in reference if beats(to_combination(q, groups), prev, rules)}
    key = (prev.type, prev.main, prev.length, prev.size)
    assert set(rank_legal_plays(counts, key, rules)) == expected


@settings(max_examples=60, deadline=None)
@given(hands(max_size=20))
def test_legal_plays_come_from_the_hand_and_classify_as_themselves(case):
    name, cards = case
    rules = RULE_SETS[name]
    have = Counter(cards)
    for play in legal_plays(cards, None, rules)[:200]:
        assert not Counter(play.cards) - have
        assert play in classify(list(play.cards), rules)


CARDISH = st.text(alphabet="0123456789TJQKAtjqkaSHDCshdcBRbr小大王鬼♠♥♦♣ ,，+/|x-", max_size=30)


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.text(max_size=30), CARDISH))
def test_card_parser_never_crashes(text):
    try:
        cards = parse_cards(text)
    except ValueError as exc:
        assert str(exc)
    else:
        assert all(isinstance(c, Card) for c in cards)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(DECKS[2] + [Card(r) for r in range(15)]), max_size=30))
def test_card_text_round_trips(cards):
    assert parse_cards(format_cards(cards)) == cards
