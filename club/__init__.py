"""The club server (俱乐部服务器): many tables, one event.

Each table's box keeps its own append-only store and replicates it here over HTTP
(``tracker.replicate``); the server keeps the boxes' events (idempotent by table, box and
sequence number), the director's actions and the players, on SQLite or PostgreSQL.
Everything shown (the hall screen, standings, exports) is recomputed from those rows.

- ``storage``: the storage interface, its SQL and migrations; ``sqlite`` and ``postgres``: the two stores.
- ``ingest``: registration tokens and batch checks; ``tables``: folding a table's events.
- ``formats``, ``clock``, ``tournament``: formats, draws and moves; the clock; the event as a fold.
- ``app`` and its blueprints: director pages (PIN), hall screen, player pages, exports, the API.
"""
