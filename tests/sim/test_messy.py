"""The messy table's disturbances on the synthetic table: each one filmed and logged with its
times, the hands and the truth those of the tidy table, unknown names refused clearly."""

from __future__ import annotations

import numpy as np
import pytest

from cli.main import main
from engine.events import Play
from sim.messy import FAULTS, MESSES, parse_messy
from sim.simulate import SimConfig, SimError, SimTable

SMALL = {"size": (320, 180), "fps": 4, "style": "toy", "cards": 6}


@pytest.fixture(scope="module")
def messy_film():
    """A short toy film with every disturbance (seed 4: each kind comes at least once)."""
    table = SimTable(SimConfig(seed=4, messy=MESSES, **SMALL))
    frames = [image for image, _ in table.frames()]
    return table, frames, table.truth()


def test_all_names_every_disturbance_and_names_are_kept_once_in_order():
    assert parse_messy("all") == MESSES
    assert parse_messy(" lamp, knock,lamp ") == ("lamp", "knock")


def test_an_unknown_disturbance_is_refused_with_the_known_ones(tmp_path, capsys):
    with pytest.raises(SimError, match="spill.*known: crooked"):
        SimConfig(messy=("spill",)).check()
    assert main(["simulate", "--out", str(tmp_path), "--style", "toy", "--messy", "lamp,spill"]) == 2
    assert "unknown messy-table disturbance(s) spill" in capsys.readouterr().err


def test_the_synthetic_source_takes_disturbances_joined_by_plus():
    from cli.simulate import parse_spec

    assert parse_spec("synthetic:seed=2,style=toy,messy=lamp+knock").messy == ("lamp", "knock")
    with pytest.raises(SimError, match="unknown messy-table disturbance"):
        parse_spec("synthetic:messy=lamp+spill")


def test_a_messy_table_plays_the_tidy_tables_hands():
    tidy, messy = SimTable(SimConfig(seed=4, **SMALL)), SimTable(SimConfig(seed=4, messy=MESSES, **SMALL))
    assert [h.events for h in tidy.engine_hands] == [h.events for h in messy.engine_hands]
    assert np.array_equal(tidy.corners_px, messy.corners_px)


def test_every_disturbance_is_filmed_and_logged_with_its_times(messy_film):
    table, frames, truth = messy_film
    log = truth["simulate"]["mess"]
    logged = {m["kind"] for m in log}
    assert logged == set(MESSES) - {"crooked", "overlap"}  # those two are how every card lands
    assert truth["simulate"]["messy"] == list(MESSES)
    assert all(m["time"] <= m["end"] <= truth["simulate"]["frames"] / SMALL["fps"] for m in log)
    assert {m["kind"] for m in log if m.get("fault")} <= set(FAULTS)
    assert len(frames) == truth["simulate"]["frames"]


def test_a_card_dropped_or_taken_back_is_no_play_and_not_among_the_cards_placed(messy_film):
    table, _, truth = messy_film
    placed = [(p["card"], p["time"]) for p in truth["simulate"]["placed"]]
    for fault in (m for m in truth["simulate"]["mess"] if m.get("fault")):
        assert all((c, fault["time"]) not in placed for c in fault["cards"])
        hand = table.engine_hands[fault["hand"]]
        if fault["kind"] == "takeback":  # the play itself is in the truth, without the card taken back
            assert any(isinstance(e, Play) and sorted(map(str, e.cards)) == sorted(fault["play"])
                       for e in hand.events)
            assert not set(fault["cards"]) & set(fault["play"])


def test_crooked_cards_turn_further_and_overlapping_ones_lie_closer():
    def play_poses(messy):
        table = SimTable(SimConfig(seed=5, messy=messy, **SMALL))
        return table._poses("seat0", 0, ["3s", "4s", "5s", "6s"])

    tidy, crooked, overlap = play_poses(()), play_poses(("crooked",)), play_poses(("overlap",))
    turn = [abs(p["pose"].angle - t["pose"].angle) for p, t in zip(crooked, tidy, strict=True)]
    assert max(turn) > 0.1

    def step(poses):
        return np.mean([np.linalg.norm(np.subtract(b["centre_mm"], a["centre_mm"]))
                        for a, b in zip(poses, poses[1:], strict=False)])

    assert step(overlap) < 14.5 < 16.0 < step(tidy)  # 11-13 mm apart against 17-21, each with a jitter


def test_a_crooked_play_turns_as_a_whole_its_cards_a_little_each():
    table, tidy_table = SimTable(SimConfig(seed=5, messy=("crooked",), **SMALL)), SimTable(SimConfig(seed=5, **SMALL))
    turns, within = [], []
    for _ in range(30):
        cards = ["3s", "4s", "5s", "6s", "7s"]
        turn = [p["pose"].angle - t["pose"].angle for p, t in zip(table._poses("seat0", 0, cards),
                                                                  tidy_table._poses("seat0", 0, cards), strict=True)]
        turns.append(np.mean(turn))
        within.append(np.std(turn))
    assert np.std(turns) > 0.15  # plays lie turned by up to about 30 degrees
    assert np.mean(within) < 0.12  # a fan's cards keep near one angle: each index shows beside the next card


def test_the_lamp_brightens_and_the_knock_moves_the_view():
    table = SimTable(SimConfig(seed=6, messy=("lamp", "knock"), **SMALL))
    still = next(table.frames())[0].astype(float)
    table.mess.switch_lamp(table.config.size)
    assert table.mess.frame(np.full((180, 320, 3), 100, np.float32)).mean() > 104
    table.mess.lamp = None
    table.mess.knock(6.0)
    moved = table.render().astype(float)
    assert np.abs(moved - still).mean() > np.abs(table.render().astype(float) - moved).mean()


def test_a_seat_squares_up_only_cards_a_later_play_beat(messy_film):
    _, _, truth = messy_film
    squared = [m for m in truth["simulate"]["mess"] if m["kind"] == "squared"]
    assert squared
    placed = [p for p in truth["simulate"]["placed"] if p["zone"].startswith("seat")]
    for m in squared:
        before = [p for p in placed if p["time"] < m["time"]]
        assert set(m["cards"]) <= {p["card"] for p in before if p["zone"] == f"seat{m['seat']}"}
        # the play lying last, the one to beat, is another seat's
        assert before and before[-1]["seat"] != m["seat"]
