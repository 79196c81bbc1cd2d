"""Doubling (加倍) at a camera table, switched on from ``ddz-table run --double`` or the box's
config.toml (``[table] double = true``): the match the run starts plays the ``player_double``
rule, so the camera stores the 加倍 tokens it reads."""

from __future__ import annotations

import argparse
import itertools

import cv2
import pytest

from box.config import ConfigError, parse_config, render_config
from cli import table as cli
from cli.table import apply_run_config
from engine.rules import get_rules
from sim.toy_table import ToyTable
from tests.kit.commands import ddz
from tests.kit.hands import tiny_hand
from tracker.store import EventStore


@pytest.fixture(scope="module")
def frames(tmp_path_factory):
    """A few frames of the toy table, to run through and calibrate from."""
    folder = tmp_path_factory.mktemp("frames")
    for i, (image, _) in enumerate(itertools.islice(ToyTable(seed=2).play_hand(tiny_hand()), 3)):
        cv2.imwrite(str(folder / f"{i:05d}.bmp"), image)
    return folder


def run_args(*argv) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["run", *map(str, argv)])


def test_run_double_starts_a_match_where_players_may_double(tmp_path, frames):
    cal, db = tmp_path / "cal.json", tmp_path / "t.db"
    assert ddz("calibrate", "--image", frames / "00000.bmp", "--out", cal) == 0
    base = ("run", "--source", frames, "--calibration", cal, "--db", db, "--no-web", "--detector", "toy")
    assert ddz(*base) == 0
    assert ddz(*base, "--double") == 0
    with EventStore(db) as store:
        first, second = store.matches()
    assert not first.rules.player_double and second.rules.player_double  # a match of its own
    assert ddz(*base, "--double") == 0
    with EventStore(db) as store:
        assert len(store.matches()) == 2  # the unfinished doubling match goes on


def test_the_config_key_switches_doubling_on_and_the_flag_wins(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[table]\ndouble = true\n[camera]\nsource = "0"\ncalibration = "c.json"\n', encoding="utf-8")
    args = run_args("--config", path)
    apply_run_config(args)
    assert args.double is True
    args = run_args("--source", "0", "--calibration", "c.json")
    apply_run_config(args)
    assert args.double is False  # no file, no flag: no doubling
    assert parse_config(render_config(double=True)).double is True and "double = false" in render_config()
    assert cli.choose_match(EventStore(":memory:"), get_rules("classic").replace(player_double=True), None,
                            None, False) == 1


def test_a_double_key_that_is_not_true_or_false_is_refused():
    with pytest.raises(ConfigError, match=r'line 2: table.double = "yes": must be true or false'):
        parse_config('[table]\ndouble = "yes"\n')
