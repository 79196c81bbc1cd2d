"""The compiled core against the pure-Python search: the same moves in the same order, the same
verdicts, the same winning move, the same nodes when the table keeps everything, and the same
decisive mistakes in a hand's analysis; then what only the core has (a bounded table, a search
that leaves the GIL and can be stopped)."""

from __future__ import annotations

import random
import threading
import time

import pytest

from engine.analysis import analyse
from engine.cards import Card, full_deck, rank_counts
from engine.classify import classify
from engine.combination import TYPES
from engine.legal import legal_plays
from engine.record import RecordedHand
from engine.rules import CLASSIC, get_rules
from engine.solver import Position, Solver, brute_force, make_solver, random_position
from engine.solver import compiled as compiled_module
from engine.solver.compiled import CompiledSolver, available, huge_pages_cheap, reading, why_not
from engine.solver.search import encode
from sim.bots import play_hand

pytestmark = pytest.mark.skipif(not available(), reason=str(why_not()))

#: Rule options the generators branch on, each set apart from classic.
VARIANTS: list[dict[str, bool | int]] = [
    {"low_straights": True}, {"kicker_core_rank": True, "kicker_rocket": True},
    {"four_two_pair_same": True, "kicker_four_of_rank": True},
    {"airplane_kicker_repeat": False, "airplane_kicker_trio": False},
    {"four_two_single_pair": False, "bomb_size_first": True}, {"trio_single": False, "four_two": False},
    {"trio_pair": False, "straight_min": 3, "pair_chain_min": 2, "trio_chain_min": 3, "chain_high": 10},
]


def random_hand_and_trick(rng: random.Random, rules, most: int):
    deck = full_deck(rules.decks)
    hand = rng.sample(deck, rng.randint(1, most))
    if rng.random() < 0.4:
        return hand, ()
    rest = [c for c in deck if c not in hand]
    plays = legal_plays(rng.sample(rest, min(len(rest), rng.randint(1, 14))), None, rules)
    return hand, tuple(classify(rng.choice(plays).cards, rules))


@pytest.mark.parametrize(("rules", "count", "most"), [
    (CLASSIC, 600, 20), (get_rules("two"), 200, 20), (get_rules("four"), 30, 28),
    *[(CLASSIC.replace(name=f"variant{i}", **v), 60, 20) for i, v in enumerate(VARIANTS)],
])
def test_the_same_moves_in_the_same_order_and_the_same_hand_counts(rules, count, most):
    rng = random.Random(count + most)
    reference, core = Solver(rules, 0), CompiledSolver(rules, 0)
    for _ in range(count):
        hand, trick = random_hand_and_trick(rng, rules, most)
        h = encode(tuple(rank_counts(hand)))
        moves, ordinary = reference.moves(h, reference.trick_id(trick))
        expected = [(play[0], play[1], play[2], pint) for pint, _, play in moves]
        found, found_ordinary = core._core.moves(h, [reading(r) for r in trick])
        assert [(TYPES[t], m, n, pint) for t, m, n, pint in found] == expected, (hand, trick)
        assert found_ordinary == ordinary
        assert core._core.needed(h) == reference.needed(h)


@pytest.mark.parametrize(("preset", "sizes", "count"), [
    ("classic", (1, 6), 150), ("classic", (6, 8), 20), ("two", (1, 8), 60), ("four", (1, 4), 40),
])
def test_the_same_verdict_move_and_nodes_as_the_reference(preset, sizes, count):
    rng = random.Random(sum(sizes) + count)
    for _ in range(count):
        p = random_position(rng, rng.randint(*sizes), preset)
        expected = Solver(p.rules, p.landlord).solve(p)
        same_nodes = CompiledSolver(p.rules, p.landlord, cuts=0).solve(p)
        assert (same_nodes.landlord_wins, same_nodes.move, same_nodes.nodes) == \
            (expected.landlord_wins, expected.move, expected.nodes), p
        # the static win, the proof-number search, both searches in turn, with the ranks
        # renumbered (13: at every position, 29: where a seat leads), the win by a top (37), a
        # seat that takes any trick back (517) and a lead answered and taken back (1029, 1541)
        for cuts in (1, 2, 5, 13, 29, 37, 517, 1029, 1541):
            cut = CompiledSolver(p.rules, p.landlord, cuts=cuts).solve(p)
            assert (cut.landlord_wins, cut.move) == (expected.landlord_wins, expected.move), (p, cuts)
        plain = CompiledSolver(p.rules, p.landlord, table=False, cuts=0).solve(p)
        assert plain.landlord_wins == expected.landlord_wins


def test_agrees_with_brute_force_on_small_positions_of_every_preset_it_plays():
    rng = random.Random(48)
    for preset, most, count in (("classic", 6, 150), ("two", 7, 40), ("four", 4, 25), ("grab", 5, 20)):
        for _ in range(count):
            p = random_position(rng, rng.randint(1, most), preset)
            assert make_solver(p.rules, p.landlord, core="compiled").solve(p).landlord_wins == brute_force(p), p


def gapped_position(rng: random.Random) -> Position:
    """Each seat holds a chain with one rank taken out of it (five singles over six ranks, three
    pairs over four, two trios over three) and a card or two more, from the ranks 3 to J; about
    half the time there is a trick, often of a rank nobody holds. Renumbering ranks that put the
    two sides of the hole next to each other would make chains that are not there."""
    while True:
        counts = [[0] * 15 for _ in range(3)]
        for seat in counts:
            width = rng.choice((1, 2, 3))
            length = {1: 6, 2: 4, 3: 3}[width]
            low = rng.randint(0, 9 - length)
            hole = rng.randint(low + 1, low + length - 2)
            for r in range(low, low + length):
                if r != hole:
                    seat[r] += width
            for _ in range(rng.randint(0, 2)):
                seat[rng.randint(0, 14)] += 1
        totals = [sum(seat[r] for seat in counts) for r in range(15)]
        if all(t <= (1 if r >= 13 else 4) for r, t in enumerate(totals)):
            break
    hands = tuple(tuple(seat) for seat in counts)
    landlord, turn = rng.randrange(3), rng.randrange(3)
    if rng.random() < 0.5:
        return Position(hands, landlord, turn)
    rest = [Card(r) for r in range(15) for _ in range((1 if r >= 13 else 4) - totals[r])]
    play = rng.choice(legal_plays(rng.sample(rest, 8), None, CLASSIC))
    by = rng.choice([s for s in range(3) if s != turn])
    return Position(hands, landlord, turn, to_beat=tuple(classify(play.cards, CLASSIC)), by=by)


def test_renumbered_ranks_change_no_answer_where_chains_meet_empty_ranks():
    rng = random.Random(88)
    for _ in range(200):
        p = gapped_position(rng)
        expected = brute_force(p)
        reference = CompiledSolver(p.rules, p.landlord, cuts=5).solve(p)
        for cuts in (13, 29):
            v = CompiledSolver(p.rules, p.landlord, cuts=cuts).solve(p)
            assert (v.landlord_wins, v.move) == (expected, reference.move), (p, cuts)


def played_trick_position(rng: random.Random) -> Position:
    """A position as a game leaves it: the seat that made the trick played it from its own hand,
    so it often still holds cards of the trick's rank or between the trick and the next card up
    of the others (the renumbering places a trick by the cards of the seats that may answer it)."""
    while True:
        deck = full_deck()
        rng.shuffle(deck)
        sizes = [rng.randint(2, 6) for _ in range(3)]
        hands = [deck[sum(sizes[:i]):sum(sizes[:i + 1])] for i in range(3)]
        by = rng.randrange(3)
        plays = [c for c in legal_plays(hands[by], None, CLASSIC) if len(c.cards) < len(hands[by])]
        if plays:
            break
    play = rng.choice(plays)
    for card in play.cards:
        hands[by].remove(card)
    turn = rng.choice([s for s in range(3) if s != by])
    return Position(tuple(tuple(rank_counts(h)) for h in hands), rng.randrange(3), turn,
                    to_beat=tuple(classify(play.cards, CLASSIC)), by=by)


def test_renumbered_tricks_placed_by_the_seats_that_answer_them_change_no_answer():
    rng = random.Random(89)
    for _ in range(200):
        p = played_trick_position(rng)
        expected = brute_force(p)
        reference = CompiledSolver(p.rules, p.landlord, cuts=5).solve(p)
        for cuts in (13, 29):
            v = CompiledSolver(p.rules, p.landlord, cuts=cuts).solve(p)
            assert (v.landlord_wins, v.move) == (expected, reference.move), (p, cuts)


def topped_position(rng: random.Random, preset: str, most: int) -> Position:
    """A random position in which a seat often holds the rocket or a bomb (or two): the cards of
    a rank or the jokers are moved into one seat, so that cut 32 (a win by a top) has a seat to
    try and opponents' bombs to weigh against it; at most 24 cards in all (brute force's bound)."""
    while sum((p := _topped_position(rng, preset, most)).cards_left) > 24:
        pass
    return p


def _topped_position(rng: random.Random, preset: str, most: int) -> Position:
    rules = get_rules(preset)
    n = rules.players
    deck = full_deck(rules.decks)
    rng.shuffle(deck)
    hands: list[list[Card]] = []
    for _ in range(n):
        k = rng.randint(1, most)
        hands.append(deck[:k])
        deck = deck[k:]
    ranks = ["BJ RJ"] if rng.random() < 0.6 else []
    ranks += [rng.choice("3 4 5 6 7 8 9 10 J Q K A 2".split()) for _ in range(rng.randint(0, 2))]
    for wanted in ranks:
        seat = rng.randrange(n)
        for source in [*(h for i, h in enumerate(hands) if i != seat), deck]:
            for card in [c for c in source if c.rank_text in wanted.split()]:
                if source is deck or len(source) > 1:
                    source.remove(card)
                    hands[seat].append(card)
    landlord, turn = rng.randrange(n), rng.randrange(n)
    if rng.random() < 0.5 or not deck:
        return Position.from_cards(hands, landlord, turn, rules=rules)
    play = rng.choice(legal_plays(rng.sample(deck, min(len(deck), 8)), None, rules))
    by = rng.choice([s for s in range(n) if s != turn])
    return Position(tuple(tuple(rank_counts(h)) for h in hands), landlord, turn,
                    to_beat=tuple(classify(play.cards, rules)), by=by, rules=rules)


def wins_sooner_with(p: Position, cut: int) -> None:
    """``p`` is a landlord's win (brute force) that the compiled core with ``cuts=cut`` finds with
    the same move as without the cut (``cuts=5``) and in fewer nodes."""
    assert brute_force(p) is True
    with_cut, without = (CompiledSolver(p.rules, p.landlord, cuts=c).solve(p) for c in (cut, 5))
    assert with_cut.landlord_wins is True and with_cut.move == without.move
    assert with_cut.nodes < without.nodes


def test_a_top_wins_for_a_seat_before_its_turn_comes():
    # the landlord (seat 0) holds the rocket, and a 2 and a 3 that go out after it: whatever the
    # farmers do first, it wins; neither farmer can go out in one play
    p = Position.from_cards(["BJ RJ 3 2", "6 7 9 J K", "8 10 Q A 2"], landlord=0, turn=1)
    wins_sooner_with(p, 37)
    # a farmer who plays out in one go first, or a bomb above the landlord's, and it is no top
    for hands, turn in ((["BJ RJ 3 2", "9 9", "8 10 Q A K"], 1), (["BJ RJ 3 2", "6 7 9 J K", "8 8 8 8 A"], 1),
                        (["5 5 5 5 3 2", "6 7 9 J K", "8 8 8 8 A"], 1)):
        q = Position.from_cards(hands, landlord=0, turn=turn)
        expected = brute_force(q)
        assert CompiledSolver(q.rules, q.landlord, cuts=37).solve(q).landlord_wins == expected, q


@pytest.mark.parametrize(("preset", "most", "count"), [("classic", 5, 300), ("two", 6, 80), ("four", 4, 60)])
def test_the_win_by_a_top_agrees_with_brute_force(preset, most, count):
    rng = random.Random(most * count)
    nodes = {5: 0, 37: 0}
    for _ in range(count):
        p = topped_position(rng, preset, most)
        expected = brute_force(p)
        verdicts = {c: CompiledSolver(p.rules, p.landlord, table_mb=1, cache_mb=2, cuts=c).solve(p) for c in nodes}
        assert verdicts[37].landlord_wins == expected, p
        assert verdicts[37].move == verdicts[5].move, p
        for c, v in verdicts.items():
            nodes[c] += v.nodes
    assert nodes[37] < nodes[5]  # the cut is taken on some of them


def test_a_seat_that_takes_any_trick_back_wins_before_its_turn_comes():
    # cut 512: the landlord (seat 0) holds the highest card, a 2, and one card more; whatever the
    # farmers lead or play on each other it beats it with the 2, which nobody answers, and goes out
    # with the 3; neither farmer can go out in one play. No bomb anywhere: cut 32 has no top
    p = Position.from_cards(["2 3", "6 7 9 J K", "8 10 Q A"], landlord=0, turn=1)
    wins_sooner_with(p, 517)
    # a farmer who goes out in one play, a straight the landlord cannot beat, two cards to lead
    # after the 2: no such win, and the answer stays brute force's
    for hands in (["2 3", "9 9", "8 10 Q A"], ["2 3", "6 7 8 9 10 Q", "8 10 Q A"], ["2 3 4", "6 7 9 J K", "8 10 Q A"],
                  ["2 3", "6 7 9 J K", "8 10 Q BJ"]):
        q = Position.from_cards(hands, landlord=0, turn=1)
        assert CompiledSolver(q.rules, q.landlord, cuts=517).solve(q).landlord_wins == brute_force(q), q


def test_a_lead_answered_and_taken_back_is_a_static_win():
    # cut 1024: the landlord (seat 0) leads the pair of 4s or the 6, which the farmers may answer;
    # it takes any answer back with the A A or the 2 (nobody holds a higher pair or single, and
    # neither goes out on an answer) and goes out leading the rest, the last one answerable
    p = Position.from_cards(["4 4 6 A A 2", "3 5 7 9 J", "8 10 Q K K"], landlord=0, turn=1)
    wins_sooner_with(p, 1029)
    # a farmer who goes out on the answer, a pair above the landlord's, a joker above its 2
    for hands in (["4 4 6 A A 2", "3 5 7 9 J", "K K"], ["4 4 6 A A 2", "3 5 7 9 J", "8 10 Q 2 2"],
                  ["4 4 6 A A 2", "3 5 7 9 J", "8 10 Q K RJ"]):
        for turn in (0, 1, 2):
            q = Position.from_cards(hands, landlord=0, turn=turn)
            assert CompiledSolver(q.rules, q.landlord, cuts=1029).solve(q).landlord_wins == brute_force(q), q


@pytest.mark.parametrize(("preset", "most", "count"), [("classic", 6, 400), ("two", 7, 100), ("four", 4, 60)])
def test_takeovers_and_retakes_agree_with_brute_force(preset, most, count):
    rng = random.Random(most * count + 1)
    nodes = {5: 0, 517: 0, 1029: 0, 1541: 0}
    for i in range(count):
        p = topped_position(rng, preset, most) if i % 2 else random_position(rng, rng.randint(1, most), preset)
        expected = brute_force(p)
        verdicts = {c: CompiledSolver(p.rules, p.landlord, table_mb=1, cache_mb=2, cuts=c).solve(p) for c in nodes}
        for c, v in verdicts.items():
            assert v.landlord_wins == expected, (p, c)
            assert v.move == verdicts[5].move, (p, c)
            nodes[c] += v.nodes
    assert nodes[517] < nodes[5] and nodes[1029] < nodes[5]  # the cuts are taken on some of them


def played_record(seed: int, cards: int) -> RecordedHand:
    rng = random.Random(seed)
    hand = play_hand("classic", rng, cards=cards)
    while hand.redeal:
        hand = play_hand("classic", rng, cards=cards)
    return RecordedHand.of(hand, ("甲", "乙", "丙"))


@pytest.mark.parametrize("seed", range(6))
def test_a_hand_analysed_by_either_search_has_the_same_decisive_mistakes(seed):
    record = played_record(seed, 6)
    reference = analyse(record, seconds=60, core="python")
    fast = analyse(record, seconds=60, core="compiled")
    assert reference.start is not None and reference.solved_from == 1
    assert [(s.before, s.after, s.better) for s in fast.steps] == [(s.before, s.after, s.better) for s in reference.steps]
    assert fast.lines("zh") == reference.lines("zh") and fast.as_landlord == reference.as_landlord


def test_the_analysis_reports_its_progress_position_by_position():
    record = played_record(3, 5)
    seen: list[tuple[int, int]] = []
    a = analyse(record, seconds=60, progress=lambda done, total: seen.append((done, total)))
    total = len(a.steps) + 3
    assert seen == [(k, total) for k in range(1, total + 1)]


def test_a_small_table_forgets_answers_but_never_changes_one():
    rng = random.Random(7)
    for _ in range(6):
        p = random_position(rng, 8)
        roomy = CompiledSolver(p.rules, p.landlord).solve(p)
        tight = CompiledSolver(p.rules, p.landlord, table_mb=1, cache_mb=2)
        small = tight.solve(p)
        assert (small.landlord_wins, small.move) == (roomy.landlord_wins, roomy.move)
        assert tight.stats()["table_mb"] <= 1


def _kept_block_position() -> Position:
    """A position whose search grows its table into a block the process keeps for the next solver
    (2 MiB: larger than the first table, and kept, where caches of cache_mb=2 are not)."""
    rng = random.Random(3)
    for _ in range(3):
        random_position(rng, 7)
    return random_position(rng, 7)


def test_a_table_block_kept_from_an_earlier_solver_lends_the_next_no_answer():
    p = _kept_block_position()
    first = CompiledSolver(p.rules, p.landlord, cuts=0, cache_mb=2)
    fresh = first.solve(p)
    assert first.stats()["table_mb"] >= 2
    del first  # its table's block is kept, its answers in it
    again = CompiledSolver(p.rules, p.landlord, cuts=0, cache_mb=2)
    reused = again.solve(p)
    assert again.stats()["table_mb"] >= 2
    assert (reused.landlord_wins, reused.move, reused.nodes) == (fresh.landlord_wins, fresh.move, fresh.nodes)


def test_a_solver_started_on_a_kept_table_block_of_the_largest_size_lends_no_answer():
    p = _kept_block_position()
    first = CompiledSolver(p.rules, p.landlord, cuts=0, table_mb=2, cache_mb=2)
    fresh = first.solve(p)
    assert first.stats()["table_mb"] == 2  # grown to its largest
    del first  # its table's block is kept, its answers in it
    again = CompiledSolver(p.rules, p.landlord, cuts=0, table_mb=2, cache_mb=2)
    assert again.stats()["table_mb"] == 2  # started on the kept block, not grown to it
    reused = again.solve(p)
    assert (reused.landlord_wins, reused.move, reused.nodes) == (fresh.landlord_wins, fresh.move, fresh.nodes)


def test_a_kept_table_block_is_emptied_before_its_generation_comes_round_again():
    p = _kept_block_position()
    first = CompiledSolver(p.rules, p.landlord, cuts=0, cache_mb=2)
    fresh = first.solve(p)
    del first
    for _ in range(compiled_module._core.GENERATIONS - 1):  # solvers whose tables stay small
        CompiledSolver(p.rules, p.landlord, cache_mb=2)
    same_generation = CompiledSolver(p.rules, p.landlord, cuts=0, cache_mb=2)
    reused = same_generation.solve(p)
    assert (reused.landlord_wins, reused.nodes) == (fresh.landlord_wins, fresh.nodes)


def test_answers_stay_the_same_when_the_table_moves_onto_huge_pages_mid_search():
    rng = random.Random(11)
    moved = 0
    for _ in range(150):
        p = random_position(rng, rng.randint(3, 6))
        expected = brute_force(p)
        solver = CompiledSolver(p.rules, p.landlord, huge_after=6)  # from the 64th node on
        assert solver.solve(p).landlord_wins == expected
        moved += solver.stats()["huge_pages"]
    assert moved  # the searches of 64 nodes and more went over


def test_a_short_search_stays_on_small_pages_where_it_is_told_when_to_move():
    p = Position.from_cards(["3 3 5", "4 9 10", "6 7 8"], landlord=0)
    solver = CompiledSolver(p.rules, p.landlord, huge_after=24)
    solver.solve(p)
    assert solver.stats()["huge_pages"] == 0
    with pytest.raises(ValueError):
        CompiledSolver(p.rules, p.landlord, huge_after=-1)


def test_a_solver_starts_on_huge_pages_where_the_machine_finds_them_cheap():
    p = Position.from_cards(["3 3 5", "4 9 10", "6 7 8"], landlord=0)
    solver = CompiledSolver(p.rules, p.landlord)
    assert solver.stats()["huge_pages"] == huge_pages_cheap()  # before any node
    assert solver.solve(p).landlord_wins == brute_force(p)


def test_the_search_leaves_the_gil_and_stops_when_asked():
    p = random_position(random.Random(4), 25, "four")  # four hands of 25 cards: far beyond 30 s
    solver = CompiledSolver(p.rules, p.landlord)
    result = []
    worker = threading.Thread(target=lambda: result.append(solver.solve(p, seconds=30)))
    worker.start()
    time.sleep(0.05)
    started = time.perf_counter()
    for _ in range(50):  # this thread keeps running while the other searches (a held GIL: 30 s)
        time.sleep(0.001)
    assert worker.is_alive() and time.perf_counter() - started < 10
    solver.stop()
    worker.join(5)
    assert not worker.is_alive() and result and not result[0].exact


def test_without_the_core_the_pure_python_search_answers(monkeypatch):
    monkeypatch.setattr(compiled_module, "_core", None)
    p = Position.from_cards(["3 3 5", "4 9 10", "6 7 8"], landlord=0)
    solver = make_solver(p.rules, p.landlord)
    assert isinstance(solver, Solver) and solver.solve(p).landlord_wins is True
    with pytest.raises(RuntimeError):
        make_solver(p.rules, p.landlord, core="compiled")


def test_the_solver_bench_refuses_a_negative_node_bound(capsys):
    from bench.solver import main

    with pytest.raises(SystemExit) as stop:
        main(["--sizes", "", "--full", "0", "--check", "0", "--same-nodes", "-5"])
    assert stop.value.code == 2 and "--same-nodes must be 0 or more" in capsys.readouterr().err


def test_the_node_bench_refuses_a_table_bound_that_is_not_positive(capsys):
    from bench.solver_nodes import main

    with pytest.raises(SystemExit) as stop:
        main(["--which", "0", "--table-mb", "0"])
    assert stop.value.code == 2 and "--table-mb must be positive" in capsys.readouterr().err
