"""The perfect-information solver: exact answers, checked against an exhaustive minimax, for
the pure-Python search and the compiled one alike (the ``core`` parameter)."""

from __future__ import annotations

import random

import pytest

from engine.cards import parse_cards, rank_counts
from engine.classify import beats, classify
from engine.rules import get_rules
from engine.solver import (
    PASS,
    Position,
    UnsupportedRules,
    brute_force,
    check_rules,
    make_solver,
    random_position,
    solve,
)
from engine.solver.compiled import available, why_not
from engine.solver.position import counts_cards
from engine.solver.search import decode, encode, play_counts


@pytest.fixture(params=["python", pytest.param("compiled", marks=pytest.mark.skipif(
    not available(), reason=str(why_not())))])
def core(request):
    """Which search answers: the pure-Python reference or the compiled core."""
    return request.param


def after_move(p: Position, move) -> Position | None:
    """The position once the seat to move makes ``move`` (None: that move ended the hand)."""
    nxt = (p.turn + 1) % p.rules.players
    if move == PASS:
        if nxt == p.by:
            return Position(p.hands, p.landlord, nxt, (), None, p.rules)
        return Position(p.hands, p.landlord, nxt, p.to_beat, p.by, p.rules)
    taken = play_counts(move)
    left = tuple(a - b for a, b in zip(p.hands[p.turn], taken, strict=True))
    if not any(left):
        return None
    hands = p.hands[:p.turn] + (left,) + p.hands[p.turn + 1:]
    readings = [r for r in classify(counts_cards(taken), p.rules)
                if not p.to_beat or any(beats(r, t, p.rules) for t in p.to_beat)]
    return Position(hands, p.landlord, nxt, tuple(readings), p.turn, p.rules)


def test_a_seat_that_can_play_out_in_one_move_wins_at_once(core):
    p = Position.from_cards(["3 3 3 4", "BJ RJ", "2 2 2 2"], landlord=0)
    v = solve(p, core=core)
    assert v.landlord_wins is True and v.exact and v.nodes == 0
    assert play_counts(v.move) == tuple(rank_counts(parse_cards("3 3 3 4")))


def test_a_lead_the_next_farmer_can_beat_loses_and_the_pair_first_wins(core):
    # 33 cannot be answered (no pairs out), then 5 goes out; leading 5 first lets 9 or 10 in.
    p = Position.from_cards(["3 3 5", "4 9 10", "6 7 8"], landlord=0)
    v = solve(p, core=core)
    assert v.landlord_wins is True and v.move[0] == "pair"
    assert brute_force(p) is True


def test_farmers_win_as_a_team_when_the_partner_goes_out(core):
    # On a lead of 3, seat 1 cannot go out but passes and lets seat 2 out with its 5.
    p = Position.from_cards(["3 7", "4 8 8", "5"], landlord=0)
    assert solve(p, core=core).landlord_wins is False
    assert brute_force(p) is False


@pytest.mark.parametrize("seed", range(3))
def test_agrees_with_brute_force_on_random_small_classic_positions(seed, core):
    rng = random.Random(seed)
    for _ in range(50):
        p = random_position(rng, rng.randint(1, 5))
        expected = brute_force(p)
        with_table, plain = solve(p, core=core), solve(p, table=False, core=core)
        assert with_table.landlord_wins == plain.landlord_wins == expected, p


@pytest.mark.parametrize(("preset", "most"), [("two", 5), ("four", 3)])
def test_agrees_with_brute_force_in_the_two_and_four_seat_games(preset, most, core):
    rng = random.Random(11)
    for _ in range(30):
        p = random_position(rng, rng.randint(1, most), preset)
        assert solve(p, core=core).landlord_wins == brute_force(p), p


def test_a_winning_move_keeps_the_position_won(core):
    rng = random.Random(5)
    checked = 0
    while checked < 40:
        p = random_position(rng, rng.randint(2, 4))
        v = solve(p, core=core)
        if not v.mover_wins:
            continue
        child = after_move(p, v.move)
        if child is not None:
            landlord_wins = brute_force(child)
            assert landlord_wins == (p.turn == p.landlord), (p, v.move)
        checked += 1


def test_a_trick_ends_after_every_other_seat_passed(core):
    # Seat 2 played 2; seat 0 passed; seat 1 passes too and seat 2 leads its last card.
    p = Position.from_cards(["3 4", "5 6", "7"], landlord=0, to_beat="2", by=2, passes=1)
    assert p.turn == 1 and p.passes == 1
    v = solve(p, core=core)
    assert v.landlord_wins is False and brute_force(p) is False


def test_a_budget_that_runs_out_says_unknown_not_a_guess(core):
    p = random_position(random.Random(2), 12)
    v = make_solver(p.rules, p.landlord, core=core).solve(p, nodes=50)
    assert v.landlord_wins is None and v.mover_wins is None and not v.exact and v.move is None


def test_the_table_is_kept_between_positions_and_answers_stay_the_same(core):
    rng = random.Random(8)
    p = random_position(rng, 5)
    solver = make_solver(p.rules, p.landlord, core=core)
    first = solver.solve(p)
    again = solver.solve(p)
    assert first.landlord_wins == again.landlord_wins and again.nodes <= first.nodes


def test_hands_round_trip_through_their_integer_form():
    counts = tuple(rank_counts(parse_cards("3 3 3 3 10 2 BJ RJ")))
    assert decode(encode(counts)) == counts
    assert decode(encode(counts) - encode(counts)) == (0,) * 15


def test_presets_the_solver_does_not_model_are_refused():
    for name in ("five", "dizhu"):
        with pytest.raises(UnsupportedRules):
            check_rules(name)
    with pytest.raises(UnsupportedRules, match="bomb quota"):
        check_rules(get_rules("four").replace(bomb_quota=True))
    assert check_rules("two").players == 2 and check_rules("classic").players == 3


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"hands": ["3 3 3 3 3", "4", "5"]}, "more cards of rank 3"),
    ({"hands": ["3", "", "5"]}, "no cards"),
    ({"hands": ["3", "4"]}, "3 seats"),
    ({"hands": ["3", "4", "5"], "to_beat": "6"}, "needs 'by'"),
    ({"hands": ["3", "4", "5"], "to_beat": "3 4"}, "no combination"),
    ({"hands": ["3", "4", "5"], "landlord": 5}, "landlord must be a seat"),
])
def test_bad_positions_are_refused_with_a_reason(kwargs, message):
    kwargs.setdefault("landlord", 0)
    with pytest.raises(ValueError, match=message):
        Position.from_cards(**kwargs)


def test_brute_force_refuses_positions_too_large_for_it():
    with pytest.raises(ValueError, match="small positions"):
        brute_force(random_position(random.Random(0), 10))
