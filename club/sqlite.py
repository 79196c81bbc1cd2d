"""The club store on SQLite (the default): the SQL of :class:`club.storage.Storage` on one
file, in WAL mode with ``synchronous=FULL``.

Writes go through one connection, one transaction at a time (SQLite has one writer anyway); reads
go through a second one, so a box's token check and the hall's refresh read the last commit
without waiting behind another box's. ``SqliteStorage(":memory:")`` (tests) is one connection.

    st = SqliteStorage("club.db")      # or open_storage("club.db")
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from club.storage import Storage, StorageError


class SqliteStorage(Storage):
    """A writing connection and a reading one, each shared by the server's threads (each call is
    short); WAL, synchronous=FULL: a batch is on disk when its answer leaves, so a ``kill -9``
    loses nothing acknowledged."""

    dialect = "sqlite"

    def __init__(self, path: str = ":memory:", timeout: float = 10.0) -> None:
        self.path = path
        self._lock = threading.RLock()
        self._read_lock = threading.RLock()
        self._reader: sqlite3.Connection | None = None
        try:
            self._db = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self.migrate()
            if path != ":memory:":  # an in-memory database is one connection's alone
                self._reader = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
        except sqlite3.DatabaseError as exc:
            raise StorageError(f"{path} is not a usable club store ({exc})") from None

    @contextmanager
    def _read(self) -> Iterator[Callable]:
        if self._reader is None:
            with self._tx() as run:
                yield run
            return
        reader = self._reader
        with self._read_lock:
            # WAL: a read transaction sees every commit made before it began, and waits for none.
            reader.execute("BEGIN")
            try:
                yield lambda sql, args=(): reader.execute(sql, args)
            finally:
                reader.execute("COMMIT")

    @contextmanager
    def _tx(self) -> Iterator[Callable]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield lambda sql, args=(): self._db.execute(sql, args)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _table_names(self, run: Callable) -> set[str]:
        return {r[0] for r in run("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}

    def close(self) -> None:
        with self._read_lock:
            if self._reader is not None:
                self._reader.close()
        with self._lock:
            self._db.close()
