"""Fixtures for the club server's tests: a real PostgreSQL server (started once, as an
unprivileged user, in a temporary folder) and a ``storage`` fixture that runs each storage test
on SQLite and on PostgreSQL."""

from __future__ import annotations

import itertools

import psycopg
import pytest

from club.pglocal import LocalPostgres
from club.sqlite import SqliteStorage
from club.storage import open_storage

_numbers = itertools.count(1)


@pytest.fixture(scope="session")
def postgres():
    with LocalPostgres(durable=False) as pg:
        yield pg


def fresh_database(pg: LocalPostgres) -> str:
    """A new empty database on the test server; its URL."""
    name = f"club_test_{next(_numbers)}"
    with psycopg.connect(pg.url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return pg.url.replace("/postgres?", f"/{name}?")


@pytest.fixture(params=["sqlite", "postgresql"])
def storage_url(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "club.db")
    return fresh_database(request.getfixturevalue("postgres"))


@pytest.fixture
def storage(storage_url):
    st = open_storage(storage_url)
    yield st
    st.close()


@pytest.fixture
def sqlite_storage(tmp_path):
    st = SqliteStorage(str(tmp_path / "club.db"))
    yield st
    st.close()
