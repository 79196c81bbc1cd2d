"""The tracker: from camera frames to refereed plays in a durable event store.

- ``zones``: mat layout, calibration (ArUco markers or four corners), zone crops.
- ``mat``: the printable mat (PNG with its print resolution, or a one-page PDF).
- ``stability``: per-zone debounce of card reads into settled plays.
- ``referee``: plays checked by ``engine.Hand``; inferred passes and landlord; alerts.
- ``store`` / ``state`` / ``records``: the append-only SQLite log and the fold over it.
- ``pipeline``: frames -> crops -> detector -> stability -> referee -> store.
- ``export`` / ``compare``: records with plain hand keys, and comparing them with the truth.
- ``cli``: ``ddz-table mat``, ``calibrate`` and ``run``.
"""
