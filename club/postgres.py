"""The club store on PostgreSQL: psycopg 3 with a connection pool, the same SQL as SQLite.

``PostgresStorage("postgresql://user@host:5432/club")``. Each call borrows a connection for
one transaction; ingests of one box take a row lock on that box, so two overlapping posts (a
retry racing its original) cannot both advance ``acked``. Migrations run under an advisory
lock, so two servers started at once do not both apply them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from club.storage import Storage, StorageError

_MIGRATION_LOCK = 0x64647A  # any fixed number: one migration at a time per database


class PostgresStorage(Storage):
    dialect = "postgresql"
    _for_update = " FOR UPDATE"  # a post locks its own box's row; the hall's reads lock nothing

    def __init__(self, url: str, min_size: int = 2, max_size: int = 16, timeout: float = 10.0) -> None:
        try:
            import psycopg
            from psycopg_pool import ConnectionPool
        except ImportError:
            raise StorageError("PostgreSQL needs psycopg 3 and psycopg-pool: pip install 'psycopg[binary]' "
                               "psycopg-pool") from None
        self.url = url
        self._errors = (psycopg.Error,)
        try:
            self._pool = ConnectionPool(url, min_size=min_size, max_size=max_size, timeout=timeout, open=True)
            self._pool.wait(timeout=timeout)
        except Exception as exc:  # the pool reports a refused connection as its own PoolTimeout
            raise StorageError(f"cannot connect to PostgreSQL at {_safe(url)}: {exc}") from None
        self.migrate()

    @contextmanager
    def _tx(self) -> Iterator[Callable]:
        with self._pool.connection() as conn:
            with conn.transaction():
                yield lambda sql, args=(): conn.execute(sql.replace("?", "%s"), args or None)

    def _lock_migrations(self, run: Callable) -> None:
        run(f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK})")

    def _table_names(self, run: Callable) -> set[str]:
        rows = run("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()").fetchall()
        return {r[0] for r in rows}

    def _lock_box(self, run: Callable, table_no: int, box: str) -> None:
        run("SELECT 1 FROM boxes WHERE table_no = ? AND box = ? FOR UPDATE", (table_no, box))

    def close(self) -> None:
        self._pool.close()


def _safe(url: str) -> str:
    """The URL without its password, for messages."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        who, where = rest.rsplit("@", 1)
        return f"{scheme}://{who.split(':')[0]}@{where}"
    return url

