"""The tracker: from camera frames to refereed plays in a durable event store.

- ``zones``: mat layout, calibration (ArUco markers or four corners), zone crops.
- ``mat``: the printable mat (PNG with its print resolution, or a one-page PDF).
- ``stability``: per-zone debounce of card reads into settled plays.
- ``referee``: plays checked by ``engine.Hand``; inferred passes and landlord; alerts.
- ``store`` / ``state`` / ``records``: the append-only SQLite log and the fold over it.
- ``pipeline``: frames -> crops -> detector -> stability -> referee -> store.
- ``match_record``: the match record with plain hand keys (what ``run --record`` writes).

The command line (``ddz-table mat``, ``calibrate``, ``run``) is :mod:`cli.table`; the simulated
table the tracker is tested on is the lab's (:mod:`sim`).
"""
