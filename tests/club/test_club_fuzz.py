"""Hostile requests on every route of the club server (from ``app.url_map``): never a 5xx, an
escaped exception or a hang. The fuzzer is bench/fuzz.py with the club's fields and visitors
(bench/fuzz_club.py: the director, a box with its token, anyone), here on a fixed seed."""

from __future__ import annotations

import logging

from bench.fuzz import run
from bench.fuzz_club import ClubFuzzer, club_demo_app

REQUESTS = 2000
SEED = 20261205
HANG_S = 5.0
PIN = "135790"


def test_no_club_route_answers_a_hostile_request_with_a_5xx_an_exception_or_a_hang(caplog):
    app = club_demo_app(PIN)
    caplog.set_level(logging.ERROR)
    report = run(app, REQUESTS, SEED, PIN, slow=HANG_S, fuzzer_class=ClubFuzzer)
    assert report.sent == REQUESTS

    failures = [f"{a.status or ''} {a.error} <- {a.request.describe()}" for a in report.failures]
    assert not failures, "\n".join(failures[:20])
    hangs = [f"{a.seconds:.1f} s <- {a.request.describe()}" for a in report.slow]
    assert not hangs, "\n".join(hangs)

    # every route was asked ...
    assert {rule for rule, *_ in report.by_route} == {r.rule for r in app.url_map.iter_rules()}
    # ... boxes' batches got in and the director's actions were done, not only refused at the door ...
    done = {(rule, visitor) for (rule, method, visitor, status) in report.by_route if method == "POST" and status in (200, 302)}
    assert ("/api/tables/<int:number>/events", "box") in done and ("/director/<action>", "director") in done
    # ... and hostile values were refused as 4xx
    assert report.by_status[400] > REQUESTS // 20 and report.by_status[404] > 0 and report.by_status[403] > 0
