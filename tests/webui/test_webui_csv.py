"""CSV score sheets never carry live spreadsheet formulas, and downloads name their charset once."""

from __future__ import annotations

import argparse
import csv
import io

import pytest

from cli import site as site_commands
from cli.main import main
from engine.events import Penalty
from engine.match import HandRecord, Match
from engine.record import dumps
from engine.record_text import FORMULA_START, csv_cell, csv_sheet
from sim.scripted import random_hand
from tests.kit.table_site import play_hands
from tracker.store import EventStore

EVIL = ('=HYPERLINK("http://evil","x")', "+SUM(1)", "@cmd")


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def _check_sheet(text: str, players: tuple[str, ...], match: Match) -> None:
    rows = _rows(text)
    assert rows[0][-3:] == ["'" + name for name in players]
    for row in rows:
        for cell in row:
            assert not cell.startswith(FORMULA_START) or cell.lstrip("-").isdigit(), cell
    totals = rows[-1][-3:]
    assert [int(x) for x in totals] == match.totals()
    assert any(int(x) < 0 for x in totals)  # a negative score is written as a plain number


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_text_that_starts_a_formula_is_quoted(start):
    assert csv_cell(start + "1+2") == "'" + start + "1+2"


def test_other_cells_are_kept_as_they_are():
    assert csv_cell(-3) == -3 and csv_cell(0) == 0 and csv_cell(12) == 12
    assert csv_cell("张三") == "张三" and csv_cell("") == "" and csv_cell("a=b") == "a=b"
    assert csv_cell("'already") == "'already"


def test_the_sheet_neutralises_names_and_reasons_and_keeps_scores_numbers():
    match = Match("classic", EVIL, [HandRecord(tuple(random_hand("classic", s).log)) for s in (1, 2, 3)])
    match.penalise(1, 2, reason="-2+cmd|' /C calc'!A0")
    text = csv_sheet(match, "en")
    _check_sheet(text, EVIL, match)
    penalty = [row for row in _rows(text) if row[0] == "penalty"][0]
    assert penalty[1] == "'-2+cmd|' /C calc'!A0" and penalty[-2] == "-2"


@pytest.fixture
def evil_match(store):
    mid = store.create_match(EVIL, "classic", meta={"name": "=1+1", "started": 1000.0})
    play_hands(store, mid, [1, 2, 3])
    store.append(mid, 0, Penalty(seat=0, points=2, reason="@SUM(A1)"))
    return mid


def _expected(store, mid) -> Match:
    from tracker.state import TableState

    return TableState.load(store, mid).match


def test_the_site_download_is_neutralised(client, store, evil_match):
    response = client.get(f"/export/{evil_match}.csv")
    assert response.status_code == 200
    _check_sheet(response.get_data(as_text=True), EVIL, _expected(store, evil_match))
    assert "'@SUM(A1)" in response.get_data(as_text=True)
    one = client.get(f"/export/{evil_match}/2.csv").get_data(as_text=True)
    assert _rows(one)[0][-3:] == ["'" + name for name in EVIL]


@pytest.mark.parametrize(("path", "header"), [
    ("{mid}.csv", "text/csv; charset=utf-8"),
    ("{mid}.json", "application/json; charset=utf-8"),
    ("{mid}.txt", "text/plain; charset=utf-8"),
    ("{mid}/1.csv", "text/csv; charset=utf-8"),
    ("{mid}/1.txt?view=1", "text/plain; charset=utf-8"),
])
def test_downloads_name_their_charset_once(client, evil_match, path, header):
    response = client.get("/export/" + path.format(mid=evil_match))
    assert response.status_code == 200 and response.headers["Content-Type"] == header


def test_the_export_command_is_neutralised(tmp_path, capsys):
    db = tmp_path / "club.db"
    store = EventStore(db)
    mid = store.create_match(EVIL, "classic", meta={"name": "x", "started": 1000.0})
    play_hands(store, mid, [1, 2, 3])
    expected = _expected(store, mid)
    store.close()
    parser = argparse.ArgumentParser()
    site_commands.register(parser.add_subparsers())
    args = parser.parse_args(["export", str(mid), "--format", "csv", "--db", str(db)])
    assert args.func(args) == 0
    _check_sheet(capsys.readouterr().out, EVIL, expected)


def test_the_score_command_is_neutralised(tmp_path, capsys):
    match = Match("classic", EVIL, [HandRecord(tuple(random_hand("classic", s).log)) for s in (1, 2, 3)])
    path = tmp_path / "match.json"
    path.write_text(dumps(match), encoding="utf-8")
    assert main(["score", str(path), "--format", "csv"]) == 0
    _check_sheet(capsys.readouterr().out, EVIL, match)
