"""The compiled core's plays (engine.compiled_plays) against the Python generators: the same
plays in the same order on the same cards, for every rule set the core plays; the table of every
combination against classifying each; and the Python path when the core is not built."""

from __future__ import annotations

import random

import pytest

from engine import compiled_plays
from engine.cards import full_deck, parse_cards, rank_counts
from engine.classify import _classify_cards, classify, clear_caches, combinations, group_by_rank
from engine.combination import TYPES
from engine.legal import legal_plays, prev_key, rank_legal_plays
from engine.rank_plays import generate
from engine.rules import CLASSIC, get_rules
from engine.solver.search import encode, play_counts

pytestmark = pytest.mark.skipif(compiled_plays.generator(CLASSIC) is None,
                                reason="the compiled core is not built (python setup.py build_ext --inplace)")

RULE_SETS = [CLASSIC, get_rules("two"), get_rules("four"), get_rules("grab"),
             CLASSIC.replace(name="low", low_straights=True),
             CLASSIC.replace(name="spare", kicker_core_rank=True, kicker_rocket=True, four_two_pair_same=True),
             CLASSIC.replace(name="wings", airplane_kicker_repeat=False, airplane_kicker_trio=False,
                             kicker_four_of_rank=True),
             CLASSIC.replace(name="size", four_two_single_pair=False, bomb_size_first=True)]


def random_hands(rules, count: int, seed: int):
    rng = random.Random(seed)
    deck = full_deck(rules.decks)
    for _ in range(count):
        hand = rng.sample(deck, rng.randint(1, 20 if rules.decks == 1 else 30))
        prev = rng.choice(legal_plays(rng.sample(deck, rng.randint(1, 10)), None, rules)) \
            if rng.random() < 0.7 else None
        yield hand, prev


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.name)
def test_legal_plays_are_the_python_generators_plays_in_their_order_on_the_same_cards(rules):
    for hand, prev in random_hands(rules, 300, 48):
        groups = group_by_rank(hand)
        expected = combinations(rank_legal_plays(tuple(map(len, groups)), prev_key(prev), rules), groups)
        assert compiled_plays.legal(groups, prev, rules) == expected, (hand, prev)
        assert legal_plays(hand, prev, rules) == expected


@pytest.mark.parametrize("rules", RULE_SETS[:3], ids=lambda r: r.name)
def test_the_cores_generation_order_is_rank_plays_generate(rules):
    gen = compiled_plays.generator(rules)
    for hand, prev in random_hands(rules, 200, 7):
        counts = tuple(rank_counts(hand))
        key = None if prev is None else (TYPES.index(prev.type), prev.main, prev.length)
        found = gen.plays(encode(counts), key) if key else gen.plays(encode(counts))
        expected = [(TYPES.index(p[0]), p[1], p[2], encode(play_counts(p))) for p in
                    generate(counts, prev_key(prev), rules)]
        assert found == expected


def test_the_rules_the_core_does_not_play_keep_the_python_generators():
    for name in ("five", "dizhu"):
        assert compiled_plays.generator(get_rules(name)) is None
    quad = classify("3 3 3 3 4 4 4", get_rules("dizhu"))[0]
    assert compiled_plays.legal(group_by_rank(full_deck(1)[:20]), quad, CLASSIC) is None


def test_the_table_holds_every_combination_and_reads_it_as_classify_does():
    tokens, table = compiled_plays.reading_table(CLASSIC)
    full = tuple([4] * 13 + [1, 1])
    signatures = {encode(play_counts(p)) for p in rank_legal_plays(full, None, CLASSIC)}
    assert set(table) == signatures
    rng = random.Random(3)
    deck = full_deck(1)
    texts = ["3 3 3 3 3", "bj rj", "小王 大王", "T T T 9", "t j q k a", " 3   3 ", "10 J Q K A", "2 2 BJ"]
    for _ in range(3000):
        texts.append(" ".join(c.rank_text for c in rng.choice(legal_plays(rng.sample(deck, 20))).cards))
        texts.append(" ".join(c.rank_text for c in rng.sample(deck, rng.randint(1, 15))))
    for text in texts:
        found = compiled_plays.classify_text(text, CLASSIC)
        if len(text.split()) > 15:  # four bits a rank: longer text is parsed and classified
            assert found is None
        else:
            assert found == tuple(_classify_cards(parse_cards(text), CLASSIC)), text


def test_classify_looks_rank_text_up_in_the_table_and_answers_as_parsing_does():
    assert compiled_plays.reading_table(CLASSIC) is not None  # the table classify looks text up in first
    compiled_plays.classify_text("3", CLASSIC)
    rng = random.Random(5)
    deck = full_deck(1)
    texts = ["3 3 3 3 3", "bj rj", "T T T 9", " 3   3 ", "3s 3h 3d 4c", "3 3 x", "", "3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3"]
    for _ in range(2000):
        texts.append(" ".join(c.rank_text for c in rng.sample(deck, rng.randint(1, 17))))
        texts.append(" ".join(str(c) for c in rng.sample(deck, rng.randint(1, 6))))  # suited
    for text in texts:
        try:
            expected = _classify_cards(parse_cards(text), CLASSIC)
        except ValueError:
            with pytest.raises(ValueError):
                classify(text)
            continue
        found = classify(text)
        assert found == expected, text
        found.clear()  # a caller's list is its own
        assert classify(text) == expected, text


@pytest.mark.parametrize("text", ["3s 3h 3d 4c", "333 4", "3,3,3,4", "3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3"])
def test_text_the_table_does_not_read_is_parsed_and_classified(text):
    assert compiled_plays.classify_text(text, CLASSIC) is None
    clear_caches()
    assert classify(text) == _classify_cards(parse_cards(text), CLASSIC)


def test_clearing_the_caches_leaves_the_table_and_the_answers_alone():
    before = classify("3 3 3 4 4 4 5 6")
    clear_caches()
    assert compiled_plays.reading_table(CLASSIC) is not None and classify("3 3 3 4 4 4 5 6") == before


def test_without_the_core_the_python_generators_answer(monkeypatch):
    hand = full_deck(1)[10:30]
    expected = legal_plays(hand)
    monkeypatch.setattr(compiled_plays, "_module", [None])
    compiled_plays.forget()
    try:
        assert compiled_plays.generator(CLASSIC) is None and compiled_plays.classify_text("3 3", CLASSIC) is None
        assert legal_plays(hand) == expected
        clear_caches()
        assert [c.type for c in classify("3 3 3 4")] == ["trio_single"]
    finally:
        compiled_plays.forget()
