"""End to end through the command line: ``ddz-table simulate`` films a short game,
``ddz-table run --record`` reads the video into a record, and ``sim.compare`` scores it
against ``truth.json``.

The toy deck (``--style toy`` / ``--detector toy``) leaves the card reader out, so
everything else must be exact: every play and pass by seat, the kitty, the points. With
the shipped detector on a rendered deck only what holds whatever it reads is checked: the
run ends cleanly, the record is a valid record with the contract keys, the store holds the
referee's and the camera's events.

As a referee would on the page, the test enters the deal and the spoken bids into the
store before the camera starts (the camera cannot hear bids).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.main import main
from engine.events import Bid, Deal
from engine.match import Match
from engine.record import load
from sim.compare import compare_records
from tracker.state import TableState
from tracker.store import EventStore

pytestmark = pytest.mark.art  # renders Debian's card art (apt: deploy/system-deps.sh)

CONTRACT_HAND_KEYS = {"landlord", "bid", "actions", "result"}


def simulate(out: Path, *argv: str) -> dict:
    assert main(["simulate", "--out", str(out), *argv]) == 0
    return json.loads((out / "truth.json").read_text(encoding="utf-8"))


def enter_deal_and_bids(db: Path, truth: dict) -> int:
    """The referee's part: the deal's counts and the bids, as typed on the page."""
    record = load(truth)
    assert isinstance(record, Match)
    hand = record.folded()[0]
    deal = hand.events[0]
    assert isinstance(deal, Deal)
    store = EventStore(db)
    match = store.create_match(("P0", "P1", "P2"))
    store.append(match, 1, Deal(counts=deal.counts, first_bidder=deal.first_bidder), source="referee")
    for bid in (e for e in hand.events if isinstance(e, Bid)):
        store.append(match, 1, bid, source="referee")
    store.close()
    return match


def run(sim: Path, db: Path, record: Path, *argv: str) -> int:
    return main(["run", "--source", str(sim / "video.mp4"), "--calibration", str(sim / "calibration.json"),
                 "--db", str(db), "--record", str(record), "--no-web", *argv])


def steps(hand: dict) -> list[tuple]:
    return [(a["seat"], a["kind"], sorted(a["cards"])) for a in hand["actions"]]


@pytest.fixture(scope="module")
def toy_game(tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("toy") / "sim"
    return out, simulate(out, "--seed", "0", "--style", "toy", "--cards", "2", "--fps", "4")


def test_a_toy_deck_game_is_read_exactly(toy_game, tmp_path, capsys):
    sim, truth = toy_game
    db, out = tmp_path / "table.db", tmp_path / "record.json"
    match = enter_deal_and_bids(db, truth)
    assert run(sim, db, out, "--detector", "toy") == 0
    assert "1 finished hand(s)" in capsys.readouterr().out
    record = json.loads(out.read_text(encoding="utf-8"))
    score = compare_records(truth, record)
    plays = sum(1 for a in truth["hands"][0]["actions"] if a["kind"] == "play")
    assert plays >= 3
    assert (score.plays, score.exact, score.phantom, score.missed) == (plays, plays, 0, 0)
    assert score.hands_exact_points == 1 and score.landlord_right == 1
    read, true = record["hands"][0], truth["hands"][0]
    assert steps(read) == steps(true)  # the inferred passes too
    assert (read["landlord"], read["bid"], sorted(read["kitty"])) == (true["landlord"], true["bid"], sorted(true["kitty"]))
    assert read["result"] == true["result"]
    assert 0 < max(score.delays) < 3.0  # each play's event came within seconds of it landing
    state = TableState.load(EventStore(db), match)
    assert [a for a in state.alerts if a.alert != "not_announced"] == []


def test_the_shipped_detector_runs_a_training_deck_game_to_a_valid_record(tmp_path, capsys):
    """Whatever the model reads: a clean end, a valid record, the events in the store."""
    sim = tmp_path / "sim"
    truth = simulate(sim, "--seed", "4", "--deck", "anglo", "--cards", "1", "--fps", "4", "--size", "640x360")
    db, out = tmp_path / "table.db", tmp_path / "record.json"
    match = enter_deal_and_bids(db, truth)
    # the kitty shown and the first plays: enough frames for the detector to read something
    assert run(sim, db, out, "--max-frames", "40") == 0
    assert "finished hand(s)" in capsys.readouterr().out
    check_record_and_store(json.loads(out.read_text(encoding="utf-8")), db, match)


def check_record_and_store(record: dict, db: Path, match: int) -> None:
    assert {"version", "hands", "alerts"} <= record.keys()
    load(record)  # the engine reads it back
    for hand in record["hands"]:
        assert CONTRACT_HAND_KEYS <= hand.keys()
        for action in hand["actions"]:
            assert action["kind"] in ("play", "pass") and isinstance(action["seat"], int)
            assert isinstance(action["cards"], list)
        assert {"winner", "multiplier", "points"} <= hand["result"].keys() and len(hand["result"]["points"]) == 3
    store = EventStore(db)
    events = store.events(match)
    referee = [e.kind for e in events if e.source == "referee"]
    assert referee[0] == "deal" and set(referee[1:]) == {"bid"}  # what the test entered, kept
    assert {e.source for e in events} <= {"referee", "camera"}
    state = TableState.load(store, match)
    assert state.hand is not None and state.hand.landlord is not None  # the hand is there, bid for
    stored = {str(n): [a.to_dict() for a in alerts] for n, alerts in state.all_alerts.items()}
    assert record["alerts"] == stored  # every alert the camera raised is in the record


@pytest.mark.slow
def test_the_shipped_detector_on_a_full_size_game(tmp_path, capsys):
    sim = tmp_path / "sim"
    truth = simulate(sim, "--seed", "1", "--deck", "anglo", "--cards", "2", "--fps", "5")
    db, out = tmp_path / "table.db", tmp_path / "record.json"
    match = enter_deal_and_bids(db, truth)
    assert run(sim, db, out) == 0
    record = json.loads(out.read_text(encoding="utf-8"))
    check_record_and_store(record, db, match)
    print(json.dumps(compare_records(truth, record).to_dict()))  # accuracy is the bench's business


def test_a_five_seat_toy_game_is_read_through_run(tmp_path, capsys):
    """Five players, two decks: the referee enters the deal, the marker card and the doubles
    (the page's part); the camera reads every play, the cards shown, and the hidden landlord
    comes out when the twin of the marker is played or shown."""
    sim = tmp_path / "sim"
    truth = simulate(sim, "--seats", "5", "--seed", "4", "--style", "toy", "--cards", "3", "--fps", "4")
    hand = load(truth).folded()[0]
    db, out = tmp_path / "table.db", tmp_path / "record.json"
    store = EventStore(db)
    match = store.create_match(tuple(f"P{i}" for i in range(5)), "five")
    deal = hand.events[0]
    store.append(match, 1, type(deal)(counts=deal.counts, first_bidder=deal.first_bidder), source="referee")
    for event in hand.events:
        if event.kind in ("marker", "double"):
            store.append(match, 1, event, source="referee")
    store.close()
    assert run(sim, db, out, "--detector", "toy", "--rules", "five",
               "--players", ",".join(f"P{i}" for i in range(5))) == 0
    record = json.loads(out.read_text(encoding="utf-8"))
    score = compare_records(truth, record)
    assert score.plays == score.exact > 0 and score.phantom == 0
    read, true = record["hands"][0], truth["hands"][0]
    assert read["result"] == true["result"]
    # every seat's starting hand rebuilt from its plays and the cards shown (the kitty the open
    # landlord took unseen stays in his) and the deck audited
    assert score.starting_right == score.shown_hands == 1 and read["audit"]["ok"]
