"""The club store's schema, as numbered migrations written once for both databases.

``{id}`` becomes an auto-numbered key and ``{real}`` a float column in each dialect; the
rest is SQL both SQLite and PostgreSQL read the same. ``schema_version`` records each
migration applied; a new version appends a list here, never edits an old one.

>>> render(["CREATE TABLE t (id {id}, at {real})"], "postgresql")
['CREATE TABLE t (id BIGSERIAL PRIMARY KEY, at DOUBLE PRECISION)']
"""

from __future__ import annotations

_TYPES = {
    "sqlite": {"id": "INTEGER PRIMARY KEY AUTOINCREMENT", "real": "REAL"},
    "postgresql": {"id": "BIGSERIAL PRIMARY KEY", "real": "DOUBLE PRECISION"},
}

#: Append-only tables refuse UPDATE and DELETE, as the box's own store does.
_APPEND_ONLY = {
    "sqlite": [
        "CREATE TRIGGER {t}_append_only_update BEFORE UPDATE ON {t} BEGIN SELECT RAISE(ABORT, '{t} are append-only'); END",
        "CREATE TRIGGER {t}_append_only_delete BEFORE DELETE ON {t} BEGIN SELECT RAISE(ABORT, '{t} are append-only'); END",
    ],
    "postgresql": [
        "CREATE TRIGGER {t}_append_only BEFORE UPDATE OR DELETE ON {t} FOR EACH ROW EXECUTE FUNCTION club_append_only()",
    ],
}

MIGRATIONS: dict[int, list[str]] = {
    1: [
        "CREATE TABLE boxes (table_no BIGINT NOT NULL, box TEXT NOT NULL, token_hash TEXT NOT NULL, "
        "registered {real} NOT NULL, acked BIGINT NOT NULL DEFAULT 0, last_seen {real}, "
        "active INTEGER NOT NULL DEFAULT 1, PRIMARY KEY (table_no, box))",
        "CREATE TABLE box_events (id {id}, table_no BIGINT NOT NULL, box TEXT NOT NULL, seq BIGINT NOT NULL, "
        "prev BIGINT NOT NULL, match_id BIGINT NOT NULL, hand BIGINT NOT NULL, time {real} NOT NULL, "
        "kind TEXT NOT NULL, source TEXT NOT NULL, payload TEXT NOT NULL, received {real} NOT NULL, "
        "UNIQUE (table_no, box, seq))",
        "CREATE INDEX box_events_chain ON box_events (table_no, box, prev)",
        "CREATE TABLE box_matches (table_no BIGINT NOT NULL, box TEXT NOT NULL, match_id BIGINT NOT NULL, "
        "players TEXT NOT NULL, rules TEXT NOT NULL, meta TEXT NOT NULL, created {real} NOT NULL, "
        "PRIMARY KEY (table_no, box, match_id))",
        "CREATE TABLE tournaments (id {id}, name TEXT NOT NULL, format TEXT NOT NULL, settings TEXT NOT NULL, "
        "seed BIGINT NOT NULL, created {real} NOT NULL)",
        "CREATE TABLE players (tournament_id BIGINT NOT NULL, player_no BIGINT NOT NULL, name TEXT NOT NULL, "
        "club_id TEXT NOT NULL, code TEXT NOT NULL UNIQUE, PRIMARY KEY (tournament_id, player_no))",
        "CREATE TABLE actions (seq {id}, tournament_id BIGINT NOT NULL, time {real} NOT NULL, action TEXT NOT NULL, "
        "data TEXT NOT NULL)",
        "CREATE INDEX actions_by_tournament ON actions (tournament_id, seq)",
        "APPEND_ONLY box_events",
        "APPEND_ONLY actions",
    ],
}


def render(statements: list[str], dialect: str) -> list[str]:
    """The statements of one migration in ``dialect`` (``sqlite`` or ``postgresql``)."""
    out: list[str] = []
    if dialect == "postgresql" and any(s.startswith("APPEND_ONLY") for s in statements):
        out.append("CREATE OR REPLACE FUNCTION club_append_only() RETURNS trigger AS $$ BEGIN "
                   "RAISE EXCEPTION '% rows are append-only', TG_TABLE_NAME; END $$ LANGUAGE plpgsql")
    for statement in statements:
        if statement.startswith("APPEND_ONLY "):
            table = statement.split()[1]
            out += [s.replace("{t}", table) for s in _APPEND_ONLY[dialect]]
        else:
            out.append(statement.format(**_TYPES[dialect]))
    return out
