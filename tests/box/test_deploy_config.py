"""The box's config.toml: defaults, every kind of mistake named with its line, the rendered
template, and `run --config` with flags winning over the file."""

from __future__ import annotations

import argparse
import doctest
import ipaddress
from pathlib import Path

import pytest

from box import config
from box.config import (
    Config,
    ConfigError,
    load_config,
    parse_config,
    render_config,
)
from box.lan import join_url, lan_address
from cli import table as cli
from cli.main import main as cli_main
from cli.table import apply_run_config

REPO = Path(__file__).resolve().parents[2]

GOOD = """\
[table]
seats = 4
preset = "four"
players = ["甲", "乙", "丙", "丁"]
referee_pin = "024680"
protocol = "pile"

[camera]
source = 1
mode = "1920x1080"
calibration = "cal/calibration.json"
height_mm = 1100

[site]
port = 8080

[data]
dir = "data"

[model]
backend = "onnx"
"""


def test_a_good_file_is_read_with_paths_from_its_folder(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(GOOD, encoding="utf-8")
    cfg = load_config(path)
    assert (cfg.seats, cfg.preset, cfg.players, cfg.referee_pin) == (4, "four", ("甲", "乙", "丙", "丁"), "024680")
    assert cfg.source == "1" and cfg.camera_size == (1920, 1080) and cfg.protocol == "pile"
    assert cfg.calibration == str(tmp_path / "cal" / "calibration.json")
    assert cfg.db == str(tmp_path / "data" / "ddz-table.db")
    assert cfg.port == 8080 and cfg.host == "0.0.0.0"  # the box listens for phones by default
    assert cfg.source_options() == {"mains_hz": 50.0, "size": (1920, 1080), "height_mm": 1100.0, "mat": "A2"}


def test_an_empty_file_means_the_defaults():
    cfg = parse_config("")
    assert cfg == Config(path="config.toml")
    assert cfg.source_options() == {"mains_hz": 50.0, "mat": "A2"}
    assert cfg.camera_size is None


@pytest.mark.parametrize("text, message", [
    ("[table]\nseats = 5\n", "config.toml line 2: table.seats = 5: must be 3 or 4"),
    ("[table]\nseats = \"3\"\n", "line 2: table.seats = \"3\": must be a whole number"),
    ("[table]\nseats = true\n", "table.seats = true: must be a whole number"),
    ("\n[camera]\nsource = \"picamera\"\nzoom = 2\n", "config.toml line 4: camera.zoom: unknown key; [camera] takes"),
    ("[tabel]\nseats = 3\n", "config.toml line 1: unknown section [tabel]"),
    ("[table]\nreferee_pin = 123456\n", "table.referee_pin = 123456: must be text in quotes"),
    ("[table]\nreferee_pin = \"12ab\"\n", "must be 4 to 8 digits"),
    ("[table]\npreset = \"classik\"\n", "table.preset = \"classik\": must be one of classic"),
    ("[table]\nseats = 4\n", "preset = 'classic' is for 3 players but table.seats = 4"),
    ("[table]\nplayers = [\"a\", \"b\"]\n", "table.players names 2 players; table.seats = 3"),
    ("[table]\nplayers = [\"a\", 2, \"c\"]\n", "must be a list of names in quotes"),
    ("[camera]\nmode = \"big\"\n", "camera.mode = \"big\": must be \"auto\" or WIDTHxHEIGHT"),
    ("[camera]\nsource = \"\"\n", "camera.source = \"\": must not be empty"),
    ("[camera]\nsource = 2.5\n", "camera.source = 2.5: must be text in quotes or a whole number"),
    ("[camera]\nheight_mm = 50\n", "camera.height_mm = 50: must be the lens-to-table height"),
    ("[camera]\nmains_hz = 55\n", "camera.mains_hz = 55: must be 50 or 60"),
    ("[camera]\nview = \"yes\"\n", "camera.view = \"yes\": must be true or false"),
    ("[site]\nport = 70000\n", "site.port = 70000: must be a port number"),
    ("[model]\nbackend = \"cuda\"\n", "model.backend = \"cuda\": must be 'auto' or 'onnx' or 'openvino' or 'ncnn'"),
    ("table = 3\n", "table must be a [table] section"),
    ("[table]\nseats = \n", "config.toml is not valid TOML"),
    ("[table]\nseats = 3\nseats = 4\n", "not valid TOML"),
])
def test_mistakes_name_the_key_and_line(text, message):
    with pytest.raises(ConfigError) as err:
        parse_config(text)
    assert message in str(err.value)


def test_unreadable_or_missing_files_are_messages(tmp_path):
    with pytest.raises(ConfigError, match="no config file at .*missing.toml"):
        load_config(tmp_path / "missing.toml")
    (tmp_path / "bin.toml").write_bytes(b"\xff\xfe[table]")
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "bin.toml")


def test_rendered_config_reads_back_with_the_values_given():
    text = config.render_config(seats=4, preset="four", source="0", referee_pin="135790", port=9000,
                                data_dir="/srv/ddz", players=("东", "南", "西", "北"), height_mm=1250.5)
    cfg = parse_config(text)
    assert (cfg.seats, cfg.preset, cfg.source, cfg.referee_pin, cfg.port) == (4, "four", "0", "135790", 9000)
    assert cfg.data_dir == "/srv/ddz" and cfg.players == ("东", "南", "西", "北") and cfg.height_mm == 1250.5
    assert "# 座位数" in text and "sudo systemctl restart ddz-table" in text  # the comments guide an editor
    with pytest.raises(ConfigError, match="unknown setting"):
        config.render_config(colour="red")
    with pytest.raises(ConfigError, match="table.seats = 5"):  # never writes a file the service refuses
        config.render_config(seats=5)
    # quotes and backslashes in a path survive the round trip
    assert parse_config(config.render_config(calibration='C:\\x "y".json')).calibration == 'C:\\x "y".json'


def test_the_shipped_example_is_the_installer_default():
    example = (REPO / "deploy/raspberrypi/config.example.toml").read_text(encoding="utf-8")
    assert example == config.render_config(data_dir="/var/lib/ddz-table", model_dir="/opt/ddz-table/models",
                                           calibration="/var/lib/ddz-table/calibration.json")


def test_the_config_tool_for_shell_scripts(tmp_path, capsys):
    assert cli_main(["config", "render", "--set", "seats=4", "--set", "preset=four", "--set", "referee_pin=9999"]) == 0
    path = tmp_path / "c.toml"
    path.write_text(capsys.readouterr().out, encoding="utf-8")
    assert cli_main(["config", "check", str(path)]) == 0
    assert cli_main(["config", "get", str(path), "seats"]) == 0 and capsys.readouterr().out.strip().endswith("4")
    assert cli_main(["config", "get", str(path), "db"]) == 0
    assert capsys.readouterr().out.strip() == "/var/lib/ddz-table/ddz-table.db"
    assert cli_main(["config", "get", str(path), "colour"]) == 2
    assert "no setting 'colour'" in capsys.readouterr().err
    assert cli_main(["config", "render", "--set", "port=http"]) == 2
    assert cli_main(["config", "check", str(tmp_path / "nope.toml")]) == 2
    assert "no config file" in capsys.readouterr().err


def run_args(*argv) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["run", *map(str, argv)])


def test_run_flags_win_over_the_file_and_the_file_over_defaults(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(GOOD, encoding="utf-8")
    args = run_args("--config", path, "--port", 9001, "--rules", "four", "--camera-mode", "640x480")
    apply_run_config(args)
    assert args.port == 9001 and args.rules == "four"  # flags
    assert args.source == "1" and args.pin == "024680" and args.players == "甲,乙,丙,丁"  # the file
    assert args.db == str(tmp_path / "data" / "ddz-table.db") and args.host == "0.0.0.0"
    assert args.protocol == "pile" and args.backend == "onnx" and args.camera_view is False
    assert args.source_options == {"mains_hz": 50.0, "height_mm": 1100.0, "size": (640, 480), "mat": "A2"}


def test_run_without_a_config_keeps_its_old_defaults(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    args = run_args("--source", "0", "--calibration", "c.json")
    apply_run_config(args)
    db = str(tmp_path / "ddz-table" / "ddz-table.db")  # the user's data folder, never the working directory
    assert (args.rules, args.db, args.host, args.port, args.backend) == ("classic", db, "127.0.0.1", 8000, "onnx")
    assert args.pin is None and args.models is None and args.source_options == {}
    with pytest.raises(ConfigError, match="give --source"):
        apply_run_config(run_args("--calibration", "c.json"))
    with pytest.raises(ConfigError, match="--camera-mode 12: must be"):
        apply_run_config(run_args("--source", "0", "--calibration", "c.json", "--camera-mode", "12"))


def test_run_with_a_broken_config_fails_with_one_line(tmp_path, capsys):
    path = tmp_path / "config.toml"
    path.write_text("[site]\nport = \"eighty\"\n", encoding="utf-8")
    args = run_args("--config", path, "--no-web")
    assert args.func(args) == 2
    err = capsys.readouterr().err
    assert err.strip() == f'ddz-table: 设置有误 / {path} line 2: site.port = "eighty": must be a whole number'


def test_auto_backend_is_ncnn_only_on_arm_with_its_model_and_runtime(tmp_path):
    cfg = Config(model_dir=str(tmp_path))
    assert cfg.resolved_backend("x86_64") == "onnx"
    assert cfg.resolved_backend("aarch64") == "onnx"  # no NCNN model folder
    (tmp_path / "finder_ncnn_model").mkdir()
    assert cfg.resolved_backend("aarch64") == "onnx"  # the reader has none: CardDetector needs both
    (tmp_path / "reader_ncnn_model").mkdir()
    import importlib.util

    expected = "ncnn" if importlib.util.find_spec("ncnn") else "onnx"  # the runtime decides the rest
    assert cfg.resolved_backend("aarch64") == expected and cfg.resolved_backend("x86_64") == "onnx"
    assert Config(backend="openvino").resolved_backend("aarch64") == "openvino"


def test_the_phones_address_is_a_lan_address_or_none():
    address = lan_address()
    assert address is None or not ipaddress.ip_address(address).is_loopback
    assert join_url("0.0.0.0", 8000, lan="192.168.1.20") == "http://192.168.1.20:8000/"
    assert join_url("127.0.0.1", 8000) is None  # phones cannot reach a loopback site
    assert join_url("10.0.0.5", 80) == "http://10.0.0.5:80/"
    assert lan_address(probe="not an address") is None


def test_doctests():
    assert doctest.testmod(config).failed == 0


def test_the_deck_profile_is_a_name_in_the_box_data_folder_or_a_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(GOOD + 'deck = "club"\n', encoding="utf-8")
    args = run_args("--config", path)
    apply_run_config(args)
    assert args.deck == str(tmp_path / "data" / "decks" / "club.npz")  # where enroll saves it on the box
    path.write_text(GOOD + 'deck = "decks/ours.npz"\n', encoding="utf-8")
    args = run_args("--config", path)
    apply_run_config(args)
    assert args.deck == str(tmp_path / "decks" / "ours.npz")  # a file, from the config's folder
    args = run_args("--config", path, "--deck", "other")
    apply_run_config(args)
    assert args.deck == "other"  # the flag wins
    path.write_text(GOOD, encoding="utf-8")
    args = run_args("--config", path)
    apply_run_config(args)
    assert args.deck is None  # no key: no profile
    assert 'deck = ""' in render_config() and parse_config(render_config(deck="club")).deck == "club"


def test_a_deck_that_is_neither_a_name_nor_a_file_is_refused():
    with pytest.raises(ConfigError, match=r'line 2: model.deck = "my deck!": must be a deck name'):
        parse_config('[model]\ndeck = "my deck!"\n')
