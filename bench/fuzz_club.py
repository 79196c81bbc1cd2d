"""The club server's side of bench/fuzz.py: its fields, path values and visitors.

Visitors: anonymous; the director logged in with the session's CSRF token; the same director
with a wrong token; a box with its table's token (``Authorization: Bearer``). A box's JSON body
is a nearly right batch of events and matches (a short hand's events, as a box posts them), with
one thing spoiled: a lone surrogate in an event, a match's meta or players, an unknown preset,
a time that is no Unix time, a box id in other digits, a wrong type, deep nesting.

    .venv/bin/python -m bench.fuzz --site club --requests 5000 --seed 3
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from bench.fuzz import HOSTILE_JSON, HOSTILE_NUMBERS, HOSTILE_STRINGS, Fuzzer, Request
from club.app import build_app
from club.ingest import new_token
from engine.rules import PRESETS

KEY = "club-key-fuzz"
BOX = "box-0000fuzz"
#: Tables registered to the fuzzing box (a third number is not).
TABLES = (1, 2)

PLAUSIBLE: dict[str, tuple[Any, ...]] = {
    "table": ("1", "2", "3", 1, 2), "box": (BOX, "box-1111fuzz"), "key": (KEY, "wrong-key"),
    "name": ("周五联赛", ""), "format": ("seed004", "swiss", "nope"), "rounds": ("4", "2"), "minutes": ("30",),
    "evenings": ("4", "1"), "seed": ("7", "123"), "lines": ("张三, 001\n李四, 002\n王五\n赵六", "A\nB\nC"),
    "player": ("1", "2", "9"), "order": ("1", "2"), "pin": ("135790", "0000"), "next": ("/director", "//evil"),
}
NUMERIC = frozenset({"table", "rounds", "minutes", "evenings", "seed", "player", "order"})
PATH_VALUES: dict[str, tuple[str, ...]] = {
    "number": ("1", "2", "3"), "code": ("code0", "code1", "nope"),
    "action": ("create", "players", "withdraw", "next", "playoff", "start", "pause", "resume", "end", "publish",
               "release", "nope"),
}


def hand_batch(seed: int = 5) -> dict[str, Any]:
    """A box's batch: one match and the events of one short random hand."""
    from sim.scripted import random_hand

    events = [{"seq": i + 1, "prev": i, "match_id": 1, "hand": 1, "time": 1000.0 + i, "kind": e.to_dict()["kind"],
               "source": "camera", "event": e.to_dict()} for i, e in enumerate(random_hand("chips", seed).log)]
    match = {"id": 1, "players": ["甲", "乙", "丙"], "preset": {"name": "chips", "changes": {}}, "created": 999.0,
             "meta": {"name": "fuzz"}}
    return {"box": BOX, "events": events, "matches": [match]}


#: Ways to spoil a box's batch, each a change of one part.
SPOILS = (
    lambda b, r: b["events"][r.randrange(len(b["events"]))]["event"].update({"\ud800": 1}),
    lambda b, r: b["events"][r.randrange(len(b["events"]))].update(kind="alert", event={"kind": "alert", "text": "\udfff"}),
    lambda b, r: b["matches"][0]["meta"].update(name=r.choice(HOSTILE_STRINGS)),
    lambda b, r: b["matches"][0].update(players=[r.choice(HOSTILE_STRINGS), "乙", "丙"]),
    lambda b, r: b["matches"][0].update(preset=r.choice(({"name": "nope"}, "nope", {"name": "\ud800"}, None, 7,
                                                         {"name": r.choice(tuple(PRESETS)), "changes": "x"}))),
    lambda b, r: b["events"][r.randrange(len(b["events"]))].update(time=r.choice((1e300, -1, "1", None, 2**64))),
    lambda b, r: b["matches"][0].update(created=r.choice((1e300, -5, "now"))),
    lambda b, r: b.update(box=r.choice(("box-١٢٣٤٥٦٧٨", "box-１２３４５６７８", "b", BOX + "\n", 7))),
    lambda b, r: b["events"][r.randrange(len(b["events"]))].update(seq=r.choice(HOSTILE_JSON)),
    lambda b, r: b["events"][r.randrange(len(b["events"]))].update(match_id=r.choice(HOSTILE_JSON)),
    lambda b, r: b.update(events=r.choice(HOSTILE_JSON)),
    lambda b, r: b.update(matches=[r.choice(HOSTILE_JSON)]),
    lambda b, r: b["events"][0]["event"].update(counts=r.choice(HOSTILE_JSON)),
    lambda b, r: b.update(events=b["events"][::-1]),
    lambda b, r: b["matches"][0].update(meta={"deep": [[[[[[[[[[[[[[[[[["x"]]]]]]]]]]]]]]]]]]}),
    lambda b, r: b["events"][0].update(hand=r.choice(HOSTILE_NUMBERS)),
)


class ClubFuzzer(Fuzzer):
    """Hostile requests for the club server ``app`` (from :func:`club_demo_app`); the director
    logs in with ``pin``, the box posts with its tables' tokens."""

    plausible = PLAUSIBLE
    numeric = NUMERIC
    path_values = PATH_VALUES
    visitors = ("anonymous", "director", "wrong_csrf", "box")
    visitor_weights = (2, 3, 1, 3)
    logged_in = ("director", "wrong_csrf")

    def __init__(self, app: Any, seed: int, pin: str) -> None:
        super().__init__(app, seed, pin)
        self.tokens: dict[int, str] = app.config["FUZZ_TOKENS"]
        self.batch = hand_batch()

    def login(self) -> None:
        client = self.app.test_client()
        client.environ_base["REMOTE_ADDR"] = f"10.8.{self.relogins // 250}.{self.relogins % 250 + 1}"
        client.get("/director/login")
        with client.session_transaction() as s:
            token = s.get("csrf", "")
        client.post("/director/login", data={"pin": self.pin, "csrf": token})
        with client.session_transaction() as s:
            self.csrf = s.get("csrf", "")
        self.referee = client
        self.relogins += 1

    def credentials(self, req: Request) -> None:
        if req.visitor == "box":
            named = re.match(r"/api/tables/(\d{1,4})/", req.url)
            if named and int(named.group(1)) in self.tokens and self.rng.random() < 0.8:
                table = int(named.group(1))  # mostly its own table's token, to get past the door
            else:
                table = self.rng.choice((*TABLES, 3))
            token = self.tokens.get(table, "no-token")
            req.headers["Authorization"] = self.rng.choice((f"Bearer {token}",) * 8 + ("Bearer ", "Basic x", "\ud800"))
        elif req.visitor in self.logged_in and self.rng.random() < 0.8:
            req.headers["X-CSRF-Token"] = self.csrf if req.visitor == "director" else "wrong"

    def body(self, req: Request) -> None:
        if req.visitor == "box" and "/events" in req.rule and self.rng.random() < 0.6:
            req.body = json.dumps(self.json_body(req), ensure_ascii=True).encode()
            req.content_type = "application/json"
        else:
            super().body(req)

    def json_body(self, req: Request) -> dict[str, Any]:
        if req.visitor != "box" or "/events" not in req.rule:
            return self.fields(as_json=True)
        batch = copy.deepcopy(self.batch)
        for spoil in self.rng.sample(SPOILS, self.rng.choice((0, 1, 1, 2))):
            try:
                spoil(batch, self.rng)
            except (TypeError, AttributeError, KeyError, IndexError, ValueError):
                pass  # an earlier spoil changed the part this one changes
        return batch

    def client(self, req: Request) -> Any:
        if req.visitor in self.logged_in:
            assert self.referee is not None
            return self.referee
        self.anonymous.environ_base["REMOTE_ADDR"] = f"10.7.0.{self.rng.randint(1, 200)}"
        return self.anonymous

    def logged_out(self, status: int | None, response: Any) -> bool:
        return "/director/login" in response.headers.get("Location", "")


def club_demo_app(pin: str = "135790") -> Any:
    """A club server over an in-memory SQLite store: an event with four players, two tables
    bound to the fuzzing box (their tokens in ``app.config["FUZZ_TOKENS"]``), one hand posted."""
    app = build_app({"DIRECTOR_PIN": pin, "CLUB_KEY": KEY, "DB": ":memory:"})
    storage = app.extensions["club"].storage
    tid = storage.create_tournament("fuzz", "seed004", {"rounds": 4, "minutes": 30, "evenings": 4}, 7, 1000.0)
    for n, name in enumerate(("张三", "李四", "王五", "赵六")):
        storage.add_player(tid, name, f"00{n}", f"code{n}")
    tokens = {}
    for table in TABLES:
        token, digest = new_token()
        storage.register(table, BOX, digest)
        tokens[table] = token
    app.config["FUZZ_TOKENS"] = tokens
    client = app.test_client()
    posted = client.post("/api/tables/1/events", json=hand_batch(), headers={"Authorization": f"Bearer {tokens[1]}"})
    assert posted.status_code == 200, posted.get_data(as_text=True)
    return app
