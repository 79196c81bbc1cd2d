"""Hostile requests against every route of both servers, the table site and the club server
(bench/fuzz_club.py): no answer may be a 5xx, none may hang.

The routes come from the app's ``url_map``, so a new route is fuzzed without a change here.
Each request picks a route and one of four visitors (anonymous; a logged-in referee with the
session's CSRF token; the same referee with a wrong token; a script sending the PIN in
``X-Referee-PIN``), then mutates what the route reads: path parameters, query strings, form
fields and JSON bodies, filled with plausible values (so requests reach the engine) or
hostile ones (numbers past 64 bits, Unicode digits, lone surrogates, control characters,
long text, deep nesting, wrong types, missing fields, no body, a body announced and not sent),
and now and then sends a Host header no URL can be built for (an empty label, a label over 63
characters). Requests go through Flask's test client: every answer is read whole (a live
stream, its first messages), timed, and its status counted.

The tests run a short fixed-seed version of this (tests/webui/test_webui_fuzz.py); this script
runs longer ones and prints, for each server, what it sent, the answers by status, the
slowest requests, and every 5xx or exception with the request that caused it. Exits 1 when
there is one.

    .venv/bin/python -m bench.fuzz --requests 20000 --seed 7              # both servers
    .venv/bin/python -m bench.fuzz --site club --requests 5000
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from werkzeug.test import EnvironBuilder, run_wsgi_app

from engine.rules import PRESETS, SCORING_FORMATS
from webui.actions import ACTIONS
from webui.downloads import FORMATS

#: Numbers that break naive parsing: past 64 bits, signs, spaces, floats, digits Python's
#: ``str.isdigit()`` accepts and ``int()`` refuses or reads as another number, thousands of digits.
HOSTILE_NUMBERS: tuple[str, ...] = (
    "", "0", "-1", "00001", "+1", " 1 ", "1.5", "1e3", "0x10", "1_000", "NaN", "inf", "99999",
    str(2**63 - 1), str(2**63), str(-(2**63) - 1), str(2**64), "9" * 40, "9" * 5000, "-" + "9" * 30,
    "²", "٣", "１", "Ⅻ", "߂", "𝟘",
)

#: Text that breaks naive handling: lone surrogates, control characters, markup, very long text.
HOSTILE_STRINGS: tuple[str, ...] = (
    "", " ", "\ud800", "\udfff", "a\ud800b", "\x00", "\x1b[31m", "\x7f", "\x85", "\u202e", "\ufeff", "\ufffd",
    "😀", "张三\n李四\n王五", "A\n\ud800\nC", "A\x00\nB\nC", "\r\n", "\t", "%", "%%", "%zz", "../../etc/passwd",
    "<script>alert(1)</script>", "' OR 1=1 --", "{{7*7}}", "null", "true", "[]", "{}", ">", "3s >", "> 3s",
    "BJ RJ > 2222", "3s 4s 5s 6s 7s", "3x", "x" * 300, "牌" * 2000, "3s " * 700,
)

HOSTILE_TEXT = HOSTILE_NUMBERS + HOSTILE_STRINGS

#: Single characters slipped into plausible values.
SPOILERS = ("\ud800", "\udc00", "\x00", "\x1b", "\x7f", "\u2028", "²", "٣", "\n", "%")

#: Raw percent-encoded sequences a client can send that are not UTF-8 (or not even escapes).
RAW_ESCAPES: tuple[str, ...] = ("%FF", "%C0%AF", "%ED%A0%80", "%00", "%E2%80", "%zz", "%", "%25%32%35")

#: Values of every JSON type for JSON bodies.
HOSTILE_JSON: tuple[Any, ...] = (
    None, True, False, 0, -1, 1, 2**31, 2**63 - 1, 2**63, -(2**63) - 1, 10**30, 1.5, 1e308, -0.0,
    [], {}, [1, 2], ["A", "B", "C"],
    ["\ud800", "B", "C"], ["A", "A", "A"], [["A"], ["B"], ["C"]], {"a": 1}, [[[[[[[[[["deep"]]]]]]]]]],
)

#: Whole JSON bodies, as sent on the wire: nesting past any limit, broken JSON, not an object.
RAW_BODIES: tuple[bytes, ...] = (
    b"", b" ", b"[" * 1500, b"{\"a\":" * 1500, b"[" * 1500 + b"]" * 1500, b"{not json", b"null", b"[1, 2]",
    b"\"text\"", b"1e999999", b"NaN", b"{\"seat\": NaN}", b"\xff\xfe\x00", "{\"a\": 1}".encode("utf-16"),
    b"{\"players\": \"\\ud800\\n\\udc00\\nC\"}", b"{\"cards\": \"3s\\u0000\"}", b"{\"seat\": " + b"9" * 5000 + b"}",
    b"{\"a\": 1, \"a\": 2}", b"{" + b"\"k\": 1, " * 5000 + b"\"z\": 0}", b"x" * 70_000,
    b"[" * 100_000 + b"]" * 100_000, b"{\"a\":" * 20_000 + b"1" + b"}" * 20_000, b"{\"time\": Infinity}",
    b"{\"\\ud800\": \"\\udfff\"}",
)

#: Host headers no URL can be built for (IDNA refuses them), and other odd ones.
HOSTILE_HOSTS: tuple[str, ...] = (
    "a..b", "x" * 64 + ".example", "x" * 64, ".", "..", "a." * 130, "", "[::1", "例子.测试", "xn--", "a b",
    "host:99999", "host:-1",
)

#: Field and query names the site reads, with values that pass so a request gets deeper.
PLAUSIBLE: dict[str, tuple[Any, ...]] = {
    "match": ("1", "2", 1), "step": ("0", "3", "999"), "cards": ("3s", "BJ RJ", "3s 3h", "3s > 2c", "JOKER"),
    "after": ("4s", ""), "rules": tuple(PRESETS), "lang": ("zh", "en"), "view": ("1", "0"),
    "players": ("张三\n李四\n王五", "A,B,C", ["甲", "乙", "丙"], "A\nB\nC\nD"), "preset": tuple(PRESETS),
    "scoring": tuple(SCORING_FORMATS), "time_limit": ("0", "30", 5), "chips_start": ("100",), "chips_base": ("1",),
    "name": ("决赛", ""), "reason": ("掉牌", ""), "seat": ("0", "1", "2", 0), "points": ("2", "-3"),
    "disqualify": ("on", "", True), "bid": ("1", "2", "3", "pass", "call", "grab"), "base": ("1", "3"),
    "index": ("0", "1", "2", "5"), "what": ("pass", "play", "announce"), "pin": ("0000",),
}

#: The fields read as numbers: hostile numbers go there most of the time, hostile text elsewhere.
NUMERIC = frozenset({"match", "step", "seat", "points", "base", "index", "time_limit", "chips_start", "chips_base",
                     "bid", "view"})

#: Path parameters by name: what makes a route answer, beside anything hostile.
PATH_VALUES: dict[str, tuple[str, ...]] = {
    "match_id": ("1", "2", "3"), "number": ("1", "2"), "action": tuple(ACTIONS), "fmt": FORMATS,
    "filename": ("site.js", "site.css", "nope.js", "../app.py", "..%2Fapp.py"),
}

STREAMS = ("text/event-stream", "multipart/x-mixed-replace")
VISITORS = ("anonymous", "referee", "wrong_csrf", "pin")


@dataclass
class Request:
    """One request as sent: enough to print it and to send it again."""

    method: str
    url: str  # path and query, percent-encoded as on the wire
    visitor: str
    rule: str
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    content_type: str | None = None
    announced: int | None = None  # a Content-Length the body does not fill

    def describe(self, limit: int = 300) -> str:
        body = "" if self.body is None else f" body={self.body[:limit]!r}{'...' if len(self.body) > limit else ''}"
        extra = f" Content-Length={self.announced} (not sent)" if self.announced is not None else ""
        head = f" headers={self.headers}" if self.headers else ""
        url = self.url if len(self.url) <= limit else self.url[:limit] + "..."
        return f"{self.method} {url} [{self.visitor}]{head}{body}{extra} ({self.content_type or 'no type'})"


@dataclass
class Answer:
    request: Request
    status: int | None
    seconds: float
    error: str = ""  # an exception the app let escape


@dataclass
class Report:
    sent: int = 0
    by_status: Counter = field(default_factory=Counter)
    by_route: Counter = field(default_factory=Counter)  # (rule, method, visitor, status)
    failures: list[Answer] = field(default_factory=list)  # 5xx or an escaped exception
    slow: list[Answer] = field(default_factory=list)  # over the time limit
    slowest: list[Answer] = field(default_factory=list)
    relogins: int = 0


class Fuzzer:
    """Hostile requests for the table site ``app`` from ``seed``; the referee logs in with ``pin``.
    Another server's fuzzer (bench/fuzz_club.py) changes the fields, the path values, the
    visitors and how they get in."""

    plausible: dict[str, tuple[Any, ...]] = PLAUSIBLE
    numeric: frozenset[str] = NUMERIC
    path_values: dict[str, tuple[str, ...]] = PATH_VALUES
    visitors: tuple[str, ...] = VISITORS
    visitor_weights: tuple[int, ...] = (1, 3, 1, 2)  # mostly someone allowed in, to get past the door
    logged_in: tuple[str, ...] = ("referee", "wrong_csrf")

    def __init__(self, app: Any, seed: int, pin: str) -> None:
        self.app = app
        self.rng = random.Random(seed)
        self.pin = pin
        self.rules = list(app.url_map.iter_rules())
        # routes that take a body read the most input: ask them more often
        self.weights = [4 if "POST" in r.methods else 1 for r in self.rules]
        self.anonymous = app.test_client()
        self.script = app.test_client()
        self.script.environ_base["REMOTE_ADDR"] = "10.9.9.9"
        self.referee = None
        self.csrf = ""
        self.relogins = 0

    # ------------------------------------------------------------------ the referee
    def login(self) -> None:
        """A fresh referee session from an address no hostile request uses (locks are per address)."""
        client = self.app.test_client()
        client.environ_base["REMOTE_ADDR"] = f"10.8.{self.relogins // 250}.{self.relogins % 250 + 1}"
        client.get("/referee/login")
        with client.session_transaction() as s:
            token = s.get("csrf", "")
        client.post("/referee/login", data={"pin": self.pin, "csrf": token})
        with client.session_transaction() as s:
            self.csrf = s.get("csrf", "")
        self.referee = client
        self.relogins += 1

    # ------------------------------------------------------------------ values
    def encoded(self, value: str) -> str:
        """``value`` percent-encoded as a client would (a lone surrogate as its invalid UTF-8),
        or now and then a raw escape that is no UTF-8 at all."""
        if self.rng.random() < 0.05:
            return self.rng.choice(RAW_ESCAPES)
        return quote(value.encode("utf-8", "surrogatepass"), safe="")

    def fields(self, as_json: bool) -> dict[str, Any]:
        """Nearly right fields: every name the site reads with a plausible value, some of them
        left out (missing fields), one to three made hostile (for a form or a query string,
        text only), now and then a name the site does not read."""
        rng = self.rng
        fields: dict[str, Any] = {}
        for name, plausible in self.plausible.items():
            if rng.random() < 0.35:
                continue
            choices = plausible if as_json else [v for v in plausible if isinstance(v, str)]
            value = rng.choice(choices)
            if isinstance(value, str) and rng.random() < 0.05:  # one bad character in a good value
                at = rng.randint(0, len(value))
                value = value[:at] + rng.choice(SPOILERS) + value[at:]
            fields[name] = value
        for name in rng.sample(sorted(self.plausible), rng.randint(1, 3)):
            if as_json and rng.random() < 0.3:
                fields[name] = rng.choice(HOSTILE_JSON)
            elif (name in self.numeric) == (rng.random() < 0.75):
                fields[name] = rng.choice(HOSTILE_NUMBERS)
            else:
                fields[name] = rng.choice(HOSTILE_STRINGS)
        if rng.random() < 0.1:
            fields[rng.choice(("x", "\ud800", "", "match[]", "a" * 300))] = rng.choice(HOSTILE_TEXT)
        return fields

    def query(self) -> str:
        if self.rng.random() < 0.25:
            return ""
        pairs = [f"{self.encoded(n)}={self.encoded(v)}" for n, v in self.fields(as_json=False).items()]
        if self.rng.random() < 0.1:  # the same name twice
            pairs += ["match=1", f"match={self.encoded(self.rng.choice(HOSTILE_TEXT))}"]
        return "?" + "&".join(pairs)

    def path(self, rule: Any) -> str:
        def fill(found: re.Match) -> str:
            name = found.group(1)
            known = self.path_values.get(name, ())
            if known and self.rng.random() < 0.75:
                return quote(self.rng.choice(known), safe="%")
            return self.encoded(self.rng.choice(HOSTILE_TEXT)) or "%20"

        return re.sub(r"<(?:[^<>:]+:)?([^<>]+)>", fill, rule.rule)

    # ------------------------------------------------------------------ requests
    def request(self) -> Request:
        rng = self.rng
        rule = rng.choices(self.rules, self.weights)[0]
        methods = sorted(rule.methods - {"HEAD", "OPTIONS"})
        method = rng.choice(methods) if rng.random() < 0.95 else rng.choice(("GET", "POST", "PUT", "DELETE"))
        visitor = rng.choices(self.visitors, self.visitor_weights)[0]
        if visitor in self.logged_in and self.referee is None:
            self.login()
        req = Request(method, self.path(rule) + self.query(), visitor, rule.rule)
        self.credentials(req)
        if rng.random() < 0.15:
            req.headers["Accept"] = "application/json"
        if rng.random() < 0.04:
            req.headers["Host"] = rng.choice(HOSTILE_HOSTS)
        if method != "GET":
            self.body(req)
        return req

    def credentials(self, req: Request) -> None:
        """What the visitor sends to get in: the PIN header, the session's CSRF token."""
        if req.visitor == "pin":
            req.headers["X-Referee-PIN"] = (self.pin if self.rng.random() < 0.8
                                            else self.rng.choice(("", "0", "x" * 100, "é")))
        if req.visitor in self.logged_in and self.rng.random() < 0.8:  # scripts on a session send it here
            req.headers["X-CSRF-Token"] = self.csrf if req.visitor == "referee" else "wrong"

    def json_body(self, req: Request) -> dict[str, Any]:
        """A JSON object of nearly right fields for ``req``."""
        return self.fields(as_json=True)

    def body(self, req: Request) -> None:
        rng = self.rng
        kind = rng.random()
        if kind < 0.4:  # a JSON object of fields
            fields = self.json_body(req)
            req.body = json.dumps(fields, ensure_ascii=True).encode()
            req.content_type = "application/json"
        elif kind < 0.7:  # a form
            fields = self.fields(as_json=False)
            if req.visitor in self.logged_in and rng.random() < 0.9:
                fields["csrf"] = "wrong" if req.visitor == "wrong_csrf" else self.csrf
            req.body = "&".join(f"{self.encoded(n)}={self.encoded(v)}" for n, v in fields.items()).encode("ascii")
            req.content_type = "application/x-www-form-urlencoded"
        elif kind < 0.95:  # a raw body: broken JSON, deep nesting, not an object, too long
            req.body = rng.choice(RAW_BODIES)
            req.content_type = rng.choice(("application/json",) * 4 + ("text/plain", None))
        else:  # a body announced and never sent
            req.body = b""
            req.announced = rng.choice((1, 100, 60_000))
            req.content_type = rng.choice(("application/json", "application/x-www-form-urlencoded"))

    def client(self, req: Request) -> Any:
        """The test client ``req`` is sent from."""
        if req.visitor in self.logged_in:
            assert self.referee is not None  # logged in when the request was made
            return self.referee
        if req.url.startswith("/api/") and req.headers.get("X-Referee-PIN") == self.pin:
            return self.script  # an address that never sends a wrong PIN, so no brake ever stops it
        self.anonymous.environ_base["REMOTE_ADDR"] = f"10.7.0.{self.rng.randint(1, 200)}"
        return self.anonymous

    def logged_out(self, status: int | None, response: Any) -> bool:
        """Whether the answer shows the session was logged out (a fuzzed logout)."""
        return status == 401 or response.headers.get("Location", "").endswith("/referee/login")

    def send_bare(self, req: Request) -> Answer:
        """``req`` straight to the WSGI app, with no test client: the test client works out the
        request's URL for its cookie jar, which fails for a host IDNA refuses (a server has no
        jar), so a request with a fuzzed Host header goes this way, without the session."""
        builder = EnvironBuilder(path=req.url.split("?")[0], query_string=req.url.partition("?")[2],
                                 method=req.method, headers=list(req.headers.items()), data=req.body,
                                 content_type=req.content_type, environ_base={"REMOTE_ADDR": "10.6.0.1"})
        environ = builder.get_environ()
        if req.announced is not None:
            environ["CONTENT_LENGTH"] = str(req.announced)
        start = time.perf_counter()
        status, error = None, ""
        try:
            body, line, headers = run_wsgi_app(self.app, environ)
            status = int(line.split()[0])
            chunks = iter(body)
            if headers.get("Content-Type", "").split(";")[0] in STREAMS:  # a live stream: its first messages
                for _ in range(2):
                    next(chunks, None)
            else:
                b"".join(chunks)
            getattr(body, "close", lambda: None)()
        except Exception as exc:  # noqa: BLE001 - what escaped the app is the finding
            error = f"{type(exc).__name__}: {exc}"
        return Answer(req, status, time.perf_counter() - start, error)

    def send(self, req: Request) -> Answer:
        if "Host" in req.headers:
            return self.send_bare(req)
        client = self.client(req)
        overrides = {"CONTENT_LENGTH": str(req.announced)} if req.announced is not None else {}
        start = time.perf_counter()
        status, error = None, ""
        try:
            response = client.open(req.url, method=req.method, data=req.body, headers=req.headers,
                                   content_type=req.content_type, environ_overrides=overrides)
            status = response.status_code
            if response.mimetype in STREAMS:  # a live stream: its first messages, then hang up
                chunks = iter(response.response)
                for _ in range(2):
                    next(chunks, None)
            else:
                response.get_data()
            response.close()
            if req.visitor in self.logged_in and self.logged_out(status, response):
                self.referee = None  # logged out (a fuzzed logout): log in again next time
        except Exception as exc:  # noqa: BLE001 - what escaped the app is the finding
            error = f"{type(exc).__name__}: {exc}"
        return Answer(req, status, time.perf_counter() - start, error)

    def requests(self, count: int) -> Iterator[Request]:
        for _ in range(count):
            yield self.request()


def run(app: Any, count: int, seed: int, pin: str, slow: float = 3.0, keep: int = 5,
        fuzzer_class: type[Fuzzer] = Fuzzer) -> Report:
    """Send ``count`` requests; a 5xx or an exception is a failure, an answer over ``slow`` s a hang."""
    fuzzer = fuzzer_class(app, seed, pin)
    report = Report()
    for req in fuzzer.requests(count):
        answer = fuzzer.send(req)
        report.sent += 1
        status = answer.status if answer.status is not None else "exception"
        report.by_status[status] += 1
        report.by_route[(req.rule, req.method, req.visitor, status)] += 1
        if answer.error or (answer.status is not None and answer.status >= 500):
            report.failures.append(answer)
        if answer.seconds > slow:
            report.slow.append(answer)
        report.slowest = sorted([*report.slowest, answer], key=lambda a: -a.seconds)[:keep]
    report.relogins = fuzzer.relogins
    return report


def demo_app(pin: str = "135790") -> Any:
    """A site over an in-memory store with two matches, the first with two finished hands."""
    from sim.scripted import random_hand
    from tracker.store import EventStore
    from webui import create_app

    store = EventStore(":memory:")
    first = store.create_match(("张三", "李四", "王五"), "classic", meta={"name": "fuzz", "started": 1000.0})
    for hand, seed in ((1, 1), (2, 2)):
        for event in random_hand("classic", seed).log:
            store.append(first, hand, event)
    store.create_match(("A", "B", "C"), "classic")
    return create_app({"REFEREE_PIN": pin}, store=store)


def print_report(site: str, report: Report, took: float, routes: int, seed: int, slow: float) -> None:
    print(f"{site}: requests sent: {report.sent} over {routes} routes (seed {seed}) in {took:.1f} s "
          f"({report.sent / took:.0f}/s); logins: {report.relogins}")
    print("answers by status: " + ", ".join(f"{k}: {v}" for k, v in sorted(report.by_status.items(), key=str)))
    print("slowest:")
    for answer in report.slowest:
        print(f"  {answer.seconds * 1000:7.1f} ms  {answer.status}  {answer.request.describe(120)}")
    for answer in report.slow:
        print(f"HANG ({answer.seconds:.1f} s): {answer.request.describe()}")
    for answer in report.failures:
        print(f"FAIL {answer.status or ''} {answer.error}: {answer.request.describe()}")
    print(f"{site}: 5xx or exceptions: {len(report.failures)}; over {slow:g} s: {len(report.slow)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=5000, help="requests per server")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--site", choices=("both", "table", "club"), default="both")
    parser.add_argument("--slow", type=float, default=3.0, help="seconds past which an answer counts as a hang")
    args = parser.parse_args(argv)
    pin = "135790"
    logging.disable(logging.WARNING)  # wrong PINs are logged by the sites; the failures are printed below
    bad = 0
    if args.site in ("both", "table"):
        app = demo_app(pin)
        started = time.perf_counter()
        try:
            report = run(app, args.requests, args.seed, pin, args.slow)
        finally:
            app.extensions["ddz"].watcher.stop()
        print_report("table site", report, time.perf_counter() - started, sum(1 for _ in app.url_map.iter_rules()),
                     args.seed, args.slow)
        bad += len(report.failures) + len(report.slow)
    if args.site in ("both", "club"):
        from bench.fuzz_club import ClubFuzzer, club_demo_app

        app = club_demo_app(pin)
        started = time.perf_counter()
        report = run(app, args.requests, args.seed, pin, args.slow, fuzzer_class=ClubFuzzer)
        print_report("club server", report, time.perf_counter() - started, sum(1 for _ in app.url_map.iter_rules()),
                     args.seed, args.slow)
        bad += len(report.failures) + len(report.slow)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
