"""What the tests share, in one package: test modules import helpers from ``tests.kit.<module>``
and take fixtures from :mod:`tests.kit.fixtures` (loaded for every test by ``tests/conftest.py``),
never from one another (``tests/test_layers.py`` checks it).

- :mod:`~tests.kit.hands`: short scripted hands (engine events only).
- :mod:`~tests.kit.commands`: ``ddz(...)``, a ``ddz-table`` subcommand called in-process.
- :mod:`~tests.kit.table_site`: the table site: a logged-in referee client, form posts, a real
  site on a free port, SSE reading, matches with played hands, a blind detector.
- :mod:`~tests.kit.browser`: Debian's chromium for playwright.
- :mod:`~tests.kit.club_server`: box events and a club server on a free port (thread or process).
- :mod:`~tests.kit.serving`: stopping a waitress server that runs in a thread, at once.
- :mod:`~tests.kit.enroll_frames`: stand-ins for deck enrollment (a session, a detector, a trainer).
- :mod:`~tests.kit.toy_frames`: toy-table detectors (zone labels read, every tile unsure) and the
  toy table with bid tokens laid in its frames.
- :mod:`~tests.kit.labelled`: tiny labelled YOLO folders written on disk.
- :mod:`~tests.kit.tiny_cards`: a hand-drawn card dataset for training smoke tests.
- :mod:`~tests.kit.store_writer`: the writer the durability test runs and kills
  (``python -m tests.kit.store_writer DB SEED``).
- :mod:`~tests.kit.fixtures`: the site's fixtures, and one template cache for every Flask app.
"""
