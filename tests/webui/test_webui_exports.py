"""History pages and downloads, and ``ddz-table export`` on a store file."""

from __future__ import annotations

import argparse
import csv
import io

import pytest

from cli import site as commands
from engine.match import HandRecord, Match
from engine.record import RecordedHand, load
from sim.scripted import random_hand
from tests.kit.table_site import PLAYERS, new_match, play_hands
from tracker.store import EventStore
from webui.downloads import parse_target


@pytest.fixture
def played(store):
    mid = new_match(store)
    play_hands(store, mid, [1, 2, 3])
    return mid


def _match():
    return Match("classic", PLAYERS, [HandRecord(tuple(random_hand("classic", s).log)) for s in (1, 2, 3)])


def test_history_lists_matches_and_hands(client, played):
    page = client.get("/history").get_data(as_text=True)
    assert f"/history/{played}" in page and PLAYERS[0] in page
    sheet = client.get(f"/history/{played}").get_data(as_text=True)
    for n in (1, 2, 3):
        assert f"/history/{played}/{n}" in sheet


def test_replay_steps_through_the_plays(client, played):
    hand = random_hand("classic", 1)
    first = client.get(f"/history/{played}/1?step=0").get_data(as_text=True)
    last = client.get(f"/history/{played}/1").get_data(as_text=True)
    assert "step=1" in first and f"{len(hand.events)}" in last
    assert 'class="outcome"' in last and 'class="outcome"' not in first
    middle = client.get(f"/history/{played}/1?step=6&lang=en").get_data(as_text=True)
    assert "Step 6 of" in middle


def test_the_replay_lists_the_hands_alerts_in_the_readers_language(client, store, played):
    from tracker.records import Alert

    store.append(played, 2, Alert("not_announced", seat=2, data={"left": 1}))
    zh = client.get(f"/history/{played}/2?lang=zh").get_data(as_text=True)
    en = client.get(f"/history/{played}/2?lang=en").get_data(as_text=True)
    assert f"{PLAYERS[2]} 剩 1 张牌，须报牌" in zh and "没有报牌" in zh
    assert f"{PLAYERS[2]} must announce the cards left (1)" in en and "did not announce" in en
    assert "须报牌" not in client.get(f"/history/{played}/1?lang=zh").get_data(as_text=True)


def test_match_downloads_parse_and_agree_with_the_engine(client, played):
    match = _match()
    record = load(client.get(f"/export/{played}.json").get_data(as_text=True))
    assert isinstance(record, Match) and record.totals() == match.totals()
    response = client.get(f"/export/{played}.csv")
    assert "attachment" in response.headers["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert rows[0][-3:] == list(PLAYERS) and rows[-1][0] == "合计"  # the sheet speaks the page's language
    assert [int(x) for x in rows[-1][-3:]] == match.totals()
    zh = client.get(f"/export/{played}.txt?lang=zh").get_data(as_text=True)
    en = client.get(f"/export/{played}.txt?lang=en").get_data(as_text=True)
    assert "合计" in zh and "Total" in en


def test_hand_downloads(client, played):
    record = load(client.get(f"/export/{played}/2.json").get_data(as_text=True))
    assert isinstance(record, RecordedHand) and record.events == tuple(random_hand("classic", 2).log)
    text = client.get(f"/export/{played}/2.txt?lang=en").get_data(as_text=True)
    assert "Dou Dizhu hand record" in text


def test_parse_target():
    assert parse_target("3") == (3, None) and parse_target("3/2") == (3, 2) and parse_target(" 4:1 ") == (4, 1)
    for bad in ("", "x", "3/", "0", "1/0", "-2"):
        with pytest.raises(ValueError):
            parse_target(bad)


def _run(argv):
    parser = argparse.ArgumentParser()
    commands.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.func(args)


def test_export_command_writes_each_format(tmp_path, capsys):
    db = tmp_path / "table.db"
    store = EventStore(db)
    mid = new_match(store)
    play_hands(store, mid, [1, 2, 3])
    store.close()
    assert _run(["export", str(mid), "--format", "json", "--db", str(db)]) == 0
    assert load(capsys.readouterr().out).totals() == _match().totals()
    assert _run(["export", f"{mid}/1", "--format", "txt", "--lang", "en", "--db", str(db)]) == 0
    assert "Landlord" in capsys.readouterr().out
    out = tmp_path / "sheet.csv"
    assert _run(["export", "last", "--format", "csv", "--db", str(db), "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8").splitlines()[-1].startswith("total")  # the columns programs read
    assert _run(["export", "last", "--format", "csv", "--lang", "zh", "--db", str(db), "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8").splitlines()[-1].startswith("合计")


def test_export_command_errors_are_messages(tmp_path, capsys):
    assert _run(["export", "1", "--db", str(tmp_path / "missing.db")]) == 2
    assert "no event store" in capsys.readouterr().err
    db = tmp_path / "t.db"
    store = EventStore(db)
    mid = new_match(store)
    store.close()
    assert _run(["export", f"{mid}/4", "--db", str(db)]) == 2
    assert "no hand 4" in capsys.readouterr().err
    assert _run(["export", "9", "--db", str(db)]) == 2
    assert "no match 9" in capsys.readouterr().err
    assert _run(["export", "three", "--db", str(db)]) == 2
    not_a_store = tmp_path / "notes.db"
    not_a_store.write_text("hello")
    assert _run(["export", "1", "--db", str(not_a_store)]) == 2


def test_site_commands_bind_localhost_by_default():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    commands.register(sub)
    assert {"serve", "export", "demo"} <= set(sub.choices)
    args = parser.parse_args(["serve"])
    assert args.host == "127.0.0.1" and args.port == 8000 and args.camera is False
    demo = parser.parse_args(["demo", "--speed", "5"])
    assert demo.speed == 5.0 and demo.host == "127.0.0.1" and demo.port == 8000
