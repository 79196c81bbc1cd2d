"""``run`` on a film after a crash or a stop: it reads on from where the store's camera events
end and never stores a hand of the film twice; into a match whose camera events it cannot tie to
this film it refuses until told ``--resume`` or ``--from-start``."""

from __future__ import annotations

import dataclasses
import doctest
from typing import Any, cast

import pytest

import cli.resume
from engine.events import Bid, Deal
from sim.toy_table import ToyTable
from tests.kit.commands import ddz
from tests.kit.films import film_hand
from tests.kit.hands import short_hand
from tracker.store import EventStore


@pytest.fixture(scope="module")
def film(tmp_path_factory):
    """A filmed short hand (MJPG, 10 frames a second) and its calibration."""
    folder = tmp_path_factory.mktemp("resume")
    table = ToyTable(seed=0)
    video = folder / "hand.avi"
    film_hand(table, short_hand(), video)
    cal = folder / "cal.json"
    table.calibration().save(cal)
    return video, cal


def page_match(db) -> None:
    """A match made on the page, with the deal and the spoken bids entered by the referee."""
    truth = short_hand()
    with EventStore(db) as store:
        mid = store.create_match(("甲", "乙", "丙"))
        deal = truth.events[0]
        assert isinstance(deal, Deal)
        store.append(mid, 1, Deal(counts=tuple(deal.counts), first_bidder=truth.first_bidder), source="referee")
        for bid in (e for e in truth.events if isinstance(e, Bid)):
            store.append(mid, 1, bid, source="referee")


def run(film, db, *extra):
    video, cal = film
    return ddz("run", "--source", video, "--calibration", cal, "--db", db, "--no-web",
               "--detector", "sim.toy_table:ToyDetector", *extra)


def stored(db) -> list[tuple[int, str, object]]:
    """Every event of the store with its hand, without times."""
    with EventStore(db) as store:
        return [(e.hand, e.source, dataclasses.replace(cast(Any, e.event), time=None))
                for m in store.matches() for e in store.events(m.id)]


@pytest.fixture(scope="module")
def read_once(film, tmp_path_factory):
    """The store one uninterrupted read of the film leaves."""
    db = tmp_path_factory.mktemp("once") / "t.db"
    page_match(db)
    assert run(film, db) == 0
    return stored(db)


def test_the_film_read_once_is_one_hand(read_once):
    assert {hand for hand, _, _ in read_once} == {1}
    assert sum(1 for _, source, e in read_once if source == "camera" and type(e).__name__ == "Play") == 5


def test_reading_the_film_again_into_the_page_match_is_refused_and_adds_nothing(film, read_once, tmp_path, capsys):
    db = tmp_path / "t.db"
    page_match(db)
    assert run(film, db) == 0
    capsys.readouterr()
    assert run(film, db) == 2
    err = capsys.readouterr().err
    assert "--resume" in err and "--from-start" in err and "14.2 s" in err and "视频" in err.split(" / ")[0]
    assert stored(db) == read_once  # hand 1 was not stored again as hand 2


@pytest.mark.parametrize("stop", [60, 100])
def test_resume_after_a_stop_ends_as_one_uninterrupted_read(film, read_once, tmp_path, stop, capsys):
    db = tmp_path / "t.db"
    page_match(db)
    assert run(film, db, "--max-frames", stop) == 0
    assert run(film, db, "--resume") == 0
    assert "resuming" in capsys.readouterr().out
    assert stored(db) == read_once


def test_a_match_run_made_for_the_film_resumes_by_itself(film, tmp_path, capsys):
    db = tmp_path / "t.db"
    assert run(film, db, "--max-frames", 100) == 0
    with EventStore(db) as store:
        (match,) = store.matches()
        assert match.meta["video"]["path"] == str(film[0].resolve())
    first = stored(db)
    assert run(film, db) == 0
    assert "resuming" in capsys.readouterr().out
    again = stored(db)
    assert again[: len(first)] == first and {hand for hand, _, _ in again} == {1}


def test_from_start_reads_the_whole_film_again(film, read_once, tmp_path):
    db = tmp_path / "t.db"
    page_match(db)
    assert run(film, db) == 0
    assert run(film, db, "--from-start") == 0
    assert len(stored(db)) > len(read_once)  # another film of the match: all of it is read


def test_doctests():
    assert doctest.testmod(cli.resume).failed == 0
