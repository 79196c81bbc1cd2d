"""The default event store: in the user's data folder, never the working directory."""

from __future__ import annotations

import argparse

import pytest

from cli import site
from tracker.paths import data_dir, default_db
from tracker.store import EventStore, StoreError


@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    """Run from an empty working folder, so a store left there would show."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def test_the_default_store_is_under_xdg_data_home(tmp_path, monkeypatch, elsewhere):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_db(create=False) == tmp_path / "data" / "ddz-table" / "ddz-table.db"
    assert not (tmp_path / "data").exists()
    path = default_db()
    assert path.parent.is_dir() and not path.exists()  # the folder is made, the store is not
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("xdg", [None, "", "relative/data"])
def test_without_a_usable_xdg_data_home_it_is_under_local_share(tmp_path, monkeypatch, xdg):
    monkeypatch.setenv("HOME", str(tmp_path))
    if xdg is None:
        monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_DATA_HOME", xdg)
    assert data_dir() == tmp_path / ".local" / "share" / "ddz-table"
    assert default_db() == tmp_path / ".local" / "share" / "ddz-table" / "ddz-table.db"
    assert default_db().parent.is_dir()


def test_an_unmakeable_folder_is_left_to_the_store_to_report(tmp_path, monkeypatch):
    (tmp_path / "data").write_text("a file where the folder should go")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path = default_db()
    assert path == tmp_path / "data" / "ddz-table" / "ddz-table.db"
    with pytest.raises(StoreError, match="ddz-table.db"):
        EventStore(path)


def site_command(*argv):
    parser = argparse.ArgumentParser()
    site.register(parser.add_subparsers())
    return parser.parse_args(list(argv))


def test_serve_and_export_default_to_the_data_folder(tmp_path, monkeypatch, elsewhere, capsys):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    for command in (["serve"], ["export", "last"]):
        args = site_command(*command)
        assert args.db is None
    assert site._store_path(None, create=True) == (str(tmp_path / "ddz-table" / "ddz-table.db"), True)
    assert site._store_path("here.db", create=True) == ("here.db", False)

    args = site_command("export", "last")
    assert args.func(args) == 2  # no store yet: an error naming the default path, and nothing made
    err = capsys.readouterr().err
    assert f"no event store at {tmp_path / 'ddz-table' / 'ddz-table.db'}" in err
    assert "(the default; --db PATH for another)" in err
    assert list(elsewhere.iterdir()) == []

    store = EventStore(default_db())
    store.create_match(("甲", "乙", "丙"), "classic")
    store.close()
    args = site_command("export", "last", "--format", "json")
    assert args.func(args) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("{") and str(tmp_path / "ddz-table" / "ddz-table.db") in captured.err
    assert list(elsewhere.iterdir()) == []


def test_the_db_help_names_the_data_folder():
    parser = argparse.ArgumentParser()
    subparsers = parser.add_subparsers()
    site.register(subparsers)
    for name in ("serve", "export"):
        helps = [a.help for a in subparsers.choices[name]._actions if "--db" in a.option_strings]
        assert helps and "XDG_DATA_HOME" in helps[0] and ".local/share/ddz-table" in helps[0]
