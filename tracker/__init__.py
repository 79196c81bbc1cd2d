"""The tracker: from camera frames to refereed plays in a durable event store.

- ``zones``: mat layout, calibration (ArUco markers or four corners), zone crops.
- ``mat``: the printable mat (PNG with its print resolution, or a one-page PDF).
- ``stability``: per-zone debounce of card reads into settled plays.
- ``referee``: the camera's referee: plays checked by ``engine.Hand``; inferred passes and landlord; alerts.
- ``store`` / ``state`` / ``records``: the append-only SQLite log and the fold over it.
- ``reader``: frames -> zone crops -> motion -> detector -> tokens -> stability -> observations.
- ``session``: the live loop: observations -> the camera's referee -> store; pause, match, status.
- ``match_record``: the match record with plain hand keys (what ``run --record`` writes).

The command line (``ddz-table mat``, ``calibrate``, ``run``) is :mod:`cli.table`; the simulated
table the tracker is tested on is the lab's (:mod:`sim`).
"""
