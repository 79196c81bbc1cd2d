"""Tracker benchmark: how exactly a filmed game is read, and how fast.

Prints, over all hands: plays read exactly (seat and cards), phantom and missed plays, hands
whose final points are exact, the delay from a play landing to its event (table clock), and
frames per second of the whole session (crop, motion, detector, stability, referee, store).
Targets (issue 4): >= 99 % plays exact, no phantom plays, >= 97 % hands with exact points,
<= 1.0 s settle-to-event, >= 8 fps with three seats at 1280x720 on two cores. The full-deal
suite's (issue 45): >= 99.5 % plays exact, no phantom, every hand's points exact, every starting
hand rebuilt and audit passed where the losers show their cards, nobody entering anything.

Two modes:

    python -m bench.tracker --sim runs/sim/seed*        # ddz-table simulate output folders
    python -m bench.tracker --toy 3 --size 1280x720     # the test suite's toy table
    python -m bench.tracker --render 100 --size 1280x720  # simulate's drawing speed
    python -m bench.tracker --suite runs/suite-full [--hands 3] [--cards 8] [--only 5p]  # the acceptance films
    python -m bench.tracker --messy runs/messy [--hands 1] [--cards 6] [--only lamp,all]  # the messy-table films

``--suite`` films :data:`SUITE` (two, three, four and five seats and 斗帝主, each on two held-out
decks, full deals unless ``--cards``, bids by tokens, the five-player marker card, reveal and the
帝主's kitty pick laid on the table, the cards left shown after each hand) unless already there,
reads each with nobody entering anything (a short deal's counts excepted), and prints each film,
each variant and the whole suite, with the hands whose every starting hand was rebuilt from the
cards shown and the deck audits passed, and where the referee's bars lie among the reads
(``below_low``, ``below_phantom``: tracker.referee's ``ReaderBars``).

``--messy`` films :data:`MESSY_FILMS` (3 seats, a held-out deck, tokens, full deals unless
``--cards``: each disturbance of :mod:`sim.messy` alone, then all at once) unless already
there, reads each with nobody correcting (a short deal's counts excepted, as for ``--suite``),
and prints per film: plays exact, phantom, hands with exact points, the faults injected (cards
on the table that are no play) and how many of them an alert followed, the alerts raised, and
the silent wrong scores (a hand whose points differ from the truth's with no alert on it). Targets (issue 45): no silent wrong score, every fault an alert, >= 98 %
plays exact.

``--sim`` folders hold ``video.mp4`` (or ``.avi``), ``calibration.json`` and ``truth.json``; the shipped
detector reads them (``--detector`` to change). As a referee would on the page, the bench
enters each hand's landlord and bid when it starts (the camera cannot hear bids); on a film
made with ``simulate --tokens`` (its truth says so), or with ``--no-referee-bids``, the bids come
from the tokens the camera reads, so the landlord, base and points are the camera's alone, and
the bench enters a full deal only where the film does not show its marker card (the camera
infers each deal from the first bid token, the marker card or a kitty shown).
``--toy`` films random engine hands as coloured tiles read by a toy detector: it measures
the tracker alone (geometry, stability, turn inference), not the card reader. The same on
the full synthetic table (arms, sweeps, lighting, JPEG, the video codec):

    ddz-table simulate --seed 7 --hands 3 --style toy --out runs/sim/toy7
    python -m bench.tracker --sim runs/sim/toy7 --detector toy
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

from engine.events import Deal, Landlord, event_from_dict
from engine.hand import Hand
from engine.rules import get_rules
from sim.compare import Comparison, align_hands, compare_hands
from sim.messy import MESSES
from sim.scripted import random_hand
from tracker.detection import build_detector
from tracker.match_record import hand_keys, match_record
from tracker.records import Alert
from tracker.referee import LOW_CONFIDENCE, PHANTOM_CONFIDENCE, ReaderBars
from tracker.session import TableSession
from tracker.state import TableState
from tracker.store import EventStore
from tracker.zones import Calibration
from vision.sources import Frame, OpenCVSource


class Entering:
    """Enters, as the referee would on the page, what the camera of a film cannot read.

    ``bids=True``: each truth hand's deal and landlord/bid, once the previous hand is over (and
    not before ``starts[i]``), or into a hand the camera began. ``bids=False``: the bids are read
    from tokens; the deal is entered (its counts and first bidder) only when ``deals``, else the
    camera infers each new deal from the table (a bid token, the marker card, a kitty shown).
    ``filmed``: the events of the truth the film shows before the first play (the marker card,
    a reveal by choice, the 帝主's pick of the kitty: ``simulate`` films them); the rest of
    :data:`PAGE_ONLY` is entered (the doubles only on a film without tokens; a reveal by an open
    landlord alone, who shows no card, always), the 帝主's pick once the camera has read the kitty."""

    def __init__(self, store: EventStore, match_id: int, truth_hands: list[dict], starts: list[float],
                 bids: bool = True, deals: bool = True, filmed: tuple[str, ...] = ()) -> None:
        self.store, self.match_id, self.hands, self.starts = store, match_id, truth_hands, starts
        self.bids, self.deals, self.filmed = bids, deals, filmed
        self.entered = 0
        self.numbers: set[int] = set()
        self.picks: dict[int, dict] = {}  # hand number -> the truth's kitty pick, entered once the kitty is read
        #: truth hand index -> its reveal by an open landlord alone (no card shows it), entered into
        #: the camera's hand with that marker and landlord before its first play
        self.alone: dict[int, dict] = {i: e for i, h in enumerate(truth_hands) for e in _before_first_play(h)
                                       if e.get("kind") == "reveal" and e.get("seat") == h.get("landlord")}

    def page(self, truth: dict) -> list[dict]:
        """The truth hand's events before its first play that the page enters."""
        kinds = tuple(k for k in PAGE_ONLY if k not in self.filmed and (self.bids or k != "double"))
        return [e for e in _before_first_play(truth) if e.get("kind") in kinds
                and (e["kind"] != "reveal" or "reveal" not in self.filmed)]

    def before(self, t: float, state: TableState) -> None:
        self._pick(state)
        self._alone(state)
        if not self.deals or self.entered >= len(self.hands) or t < self.starts[self.entered]:
            return
        hand, number = state.hand, state.hand_number
        truth = self.hands[self.entered]
        page = self.page(truth)
        marker_game = state.info.rules.bidding == "marker"
        if hand is None or hand.finished:
            rules = state.info.rules
            number += 1
            counts = tuple(truth.get("counts") or (rules.hand_size,) * rules.players)
            first = next((e.get("first_bidder", 0) for e in truth.get("events", []) if e.get("kind") == "deal"), 0)
            self.store.append(self.match_id, number, Deal(counts=counts, first_bidder=first), source="referee")
        elif number in self.numbers or (self.bids and hand.landlord is not None):
            return
        if self.bids and not marker_game:
            self.store.append(self.match_id, number, Landlord(truth["landlord"], max(1, truth.get("bid") or 1)),
                              source="referee")
        for data in page:
            if data["kind"] == "kitty_pick":
                self.picks[number] = data
            elif data not in self.alone.values():
                self.store.append(self.match_id, number, event_from_dict({**data, "time": None}), source="referee")
        self.numbers.add(number)
        self.entered += 1

    def _pick(self, state: TableState) -> None:
        hand = state.hand
        data = self.picks.get(state.hand_number)
        if data is not None and hand is not None and hand.kitty is not None and hand.picked is None:
            self.store.append(self.match_id, state.hand_number, event_from_dict({**data, "time": None}),
                              source="referee")
            del self.picks[state.hand_number]

    def _alone(self, state: TableState) -> None:
        hand = state.hand
        if not self.alone or hand is None or hand.phase != "play" or hand.plays or hand.hidden is not None:
            return
        for i, data in list(self.alone.items()):
            truth = self.hands[i]
            marker = next((e["card"] for e in truth.get("events", []) if e.get("kind") == "marker"), None)
            if hand.landlord == truth.get("landlord") and marker is not None and str(hand.marker) == marker:
                self.store.append(self.match_id, state.hand_number, event_from_dict({**data, "time": None}),
                                  source="referee")
                del self.alone[i]
                return


#: Events only the page can enter on a film that does not show them: five players' marker card,
#: the reveal, the 帝主's kitty pick, and a double but as a 加倍 token.
PAGE_ONLY = ("marker", "double", "reveal", "kitty_pick")


def _before_first_play(truth: dict) -> list[dict]:
    out = []
    for data in truth.get("events", []):
        if data.get("kind") == "play":
            break
        out.append(data)
    return out


def played(hands: list[dict]) -> list[dict]:
    return [h for h in hands if any(a.get("kind") == "play" for a in h.get("actions", []))]


def report(name: str, comparison: Comparison, frames: int, seconds: float, extra: dict | None = None) -> dict:
    out = {"name": name, **comparison.to_dict(), "frames": frames,
           "fps": round(frames / seconds, 2) if seconds else None, **(extra or {})}
    print(json.dumps(out, ensure_ascii=False))
    return out


def bench_sim(folder: Path, detector_spec: str, backend: str, referee_bids: bool = True,
              deck: str | None = None, keep: bool = False) -> dict:
    comparison, frames, busy, label, bars = read_film(folder, detector_spec, backend, referee_bids, deck, keep)
    return report(label, comparison, frames, busy, bars)


def read_film(folder: Path, detector_spec: str, backend: str, referee_bids: bool = True,
              deck: str | None = None, keep: bool = False) -> tuple[Comparison, int, float, str, dict]:
    """Play a ``simulate`` film through a table session: the comparison with its truth, frames
    read, seconds spent reading them, a label, and where the referee's bars lie among the
    reader's reads (:func:`bar_ranks`)."""
    data = json.loads((folder / "truth.json").read_text())
    truth = played(data["hands"])
    referee_bids = referee_bids and not data.get("simulate", {}).get("tokens", False)
    cal = Calibration.load(folder / "calibration.json")
    store = EventStore(":memory:")
    mid = store.create_match(tuple(f"P{i}" for i in range(cal.layout.seats)), data.get("preset", "classic"))
    # each hand is entered once the one before is over (the first at once)
    # a hand ends with its last play, or with the cards shown after it
    ends = [max(a["time"] for a in h["actions"] + h.get("events", []) if a.get("time") is not None) for h in truth]
    # (the last cards settle about a second after they land: deal after that, as a referee would)
    starts = [0.0] + [e + 2.5 for e in ends[:-1]]
    shown = tuple(data.get("simulate", {}).get("before_play", ()))
    # A full deal is the camera's to infer from the table (a bid token, the marker card, a kitty
    # shown); a short one (a quick test) is entered, and so is a deal whose marker is not on film.
    full = data.get("simulate", {}).get("cards") is None
    marker_unseen = "marker" not in shown and store.match(mid).rules.bidding == "marker"
    enter = Entering(store, mid, truth, starts, bids=referee_bids, deals=referee_bids or not full or marker_unseen,
                     filmed=shown)
    profile = None
    if deck:
        from vision.profile import DeckProfile

        profile = DeckProfile.load(deck)
    detector = build_detector("sim.toy:ToyDetector" if detector_spec == "toy" else detector_spec, backend,
                              profile=profile)
    session = TableSession(None, cal, detector, store, mid)
    video = next((p for p in (folder / "video.mp4", folder / "video.avi") if p.is_file()), folder / "video.mp4")
    source = OpenCVSource(str(video))
    frames, busy = 0, 0.0
    while (frame := source.read()) is not None:
        enter.before(frame.time, session.referee.refresh())
        t0 = time.perf_counter()
        session.process(frame)
        busy += time.perf_counter() - t0
        frames += 1
    session.finish()
    state = TableState.load(store, mid)
    record = match_record(state, finished_only=False)
    if keep:  # what was read, for a look at the plays that differ (compare with truth.json)
        record["alerts"] = [{"hand": e.hand, "alert": e.event.alert, "seat": e.event.seat, "cards": e.event.cards,
                             "time": e.event.time} for e in store.events(mid) if isinstance(e.event, Alert)]
        (folder / "read.json").write_text(json.dumps(record, ensure_ascii=False, indent=1))
    read = played(record["hands"])
    comparison = compare_hands(truth, read)
    label = str(folder) + ("" if referee_bids else " (bids from tokens)") + (f" (deck profile {deck})" if deck else "")
    return comparison, frames, busy, label, bar_ranks(session.referee.bars)


def bar_ranks(bars: ReaderBars) -> dict:
    """The share of the cards read in plays the rules accepted as read (``accepted_cards``) that
    lie under the shipped bars (``below_low``, ``below_phantom``): tracker.referee's LOW_RANK
    and PHANTOM_RANK, measured."""
    low, phantom = bars.below(LOW_CONFIDENCE), bars.below(PHANTOM_CONFIDENCE)
    return {"accepted_cards": len(bars.seen), "below_low": None if low is None else round(low, 4),
            "below_phantom": None if phantom is None else round(phantom, 4)}


#: The acceptance films: each variant on two held-out decks, (rules preset, deck, seed): two,
#: three, four and five seats and 斗帝主. Bids come from tokens; nobody corrects or enters anything.
SUITE = (("two", "plastic", 201), ("two", "tigullio", 202),
         ("classic", "tigullio", 302), ("classic", "orell", 303),
         ("four", "atlasnye", 401), ("four", "orell", 402),
         ("five", "plastic", 501), ("five", "atlasnye", 502),
         ("dizhu", "plastic", 601), ("dizhu", "tigullio", 602))
_SUMMED = ("hands", "plays", "exact", "phantom", "missed", "hands_exact_points", "landlord_right",
           "shown_hands", "starting_right", "audited", "audits_passed")


def film_name(preset: str, deck: str, seed: int, hands: int, cards: int | None, style: str = "cards") -> str:
    """A suite film's folder: ``3p-tigullio-s302-h3-cfull`` (a preset other than its seat count's
    own is named: ``dizhu-plastic-s601-h3-cfull``)."""
    from sim.simulate import RULES_FOR_SEATS

    seats = get_rules(preset).players
    variant = f"{seats}p" if RULES_FOR_SEATS.get(seats) == preset else preset
    return f"{variant}-{deck if style == 'cards' else style}-s{seed}-h{hands}-c{cards or 'full'}"


def variant_name(preset: str) -> str:
    seats = get_rules(preset).players
    return f"{seats} seats" if preset != "dizhu" else "斗帝主 (3 seats)"


def bench_suite(folder: Path, hands: int, cards: int | None, detector_spec: str, backend: str,
                keep: bool = False, style: str = "cards", fps: float = 10.0, only: str | None = None) -> dict:
    """Film the :data:`SUITE` into ``folder`` (films already there are reused) and read each
    one; prints each film, each variant and the whole suite. ``only``: the films whose folder
    name holds this text."""
    from cli.simulate import write_simulation
    from sim.simulate import SimConfig

    by_variant: dict[str, tuple[Comparison, int, float, list[float]]] = {}
    for preset, deck, seed in SUITE:
        film = folder / film_name(preset, deck, seed, hands, cards, style)
        if only is not None and only not in film.name:
            continue
        if not (film / "truth.json").is_file():
            seats = get_rules(preset).players
            write_simulation(SimConfig(seed=seed, seats=seats, hands=hands, deck=deck, cards=cards, tokens=True,
                                       style=style, fps=fps, rules=preset), film)
        comparison, frames, busy, label, bars = read_film(film, detector_spec, backend, referee_bids=False, keep=keep)
        report(label, comparison, frames, busy, bars)
        name = variant_name(preset)
        total, f, b, _ = by_variant.get(name, (Comparison(), 0, 0.0, []))
        by_variant[name] = (_add(total, comparison), f + frames, b + busy, [])
    whole, frames, busy = Comparison(), 0, 0.0
    for name, (comparison, f, b, _) in by_variant.items():
        report(f"suite: {name}", comparison, f, b)
        whole, frames, busy = _add(whole, comparison), frames + f, busy + b
    return report("suite: all films", whole, frames, busy)


#: The messy-table films: each disturbance alone, then all of them; (disturbances, seed).
MESSY_FILMS = tuple(((kind,), 4501 + i) for i, kind in enumerate(MESSES)) + ((MESSES, 4599),)
MESSY_DECK = "tigullio"
#: Alerts that say nothing about a play: a reminder to announce, the hint to enroll the deck.
_REMINDERS = ("not_announced", "unfamiliar_deck")
#: An alert this many seconds after a fault's cards were picked up still answers it.
FAULT_ALERT_S = 15.0
_MESSY_SUMMED = ("hands", "plays", "exact", "phantom", "missed", "hands_exact_points", "faults", "faults_alerted",
                 "alerts", "silent_wrong", "frames")


def messy_figures(truth: dict, read: dict) -> dict:
    """A messy film's figures from its truth and what was read (``read_film(..., keep=True)``'s
    record, whose ``alerts`` name their hand numbers)."""
    truth_hands = played(truth["hands"])
    numbered = [(i + 1, h) for i, h in enumerate(read["hands"]) if any(a.get("kind") == "play" for a in h["actions"])]
    pairs = align_hands(truth_hands, [h for _, h in numbered])
    alerts = [a for a in read.get("alerts", []) if a["alert"] not in _REMINDERS]
    comparison = compare_hands(truth_hands, [h for _, h in numbered])
    silent = 0
    for hand, j in zip(truth_hands, pairs, strict=True):
        number = numbered[j][0] if j is not None else None
        right = j is not None and numbered[j][1].get("result", {}).get("points") == hand.get("result", {}).get("points")
        if not right and not any(a["hand"] == number for a in alerts):
            silent += 1
    faults = [m for m in truth.get("simulate", {}).get("mess", []) if m.get("fault")]
    alerted = 0
    for fault in faults:
        j = pairs[fault["hand"]] if fault["hand"] < len(pairs) else None
        number = numbered[j][0] if j is not None else None
        alerted += any(a["hand"] == number and a["time"] is not None
                       and fault["time"] - 1 <= a["time"] <= fault["end"] + FAULT_ALERT_S for a in alerts)
    out = comparison.to_dict()
    return {k: out[k] for k in ("hands", "plays", "exact", "phantom", "missed", "hands_exact_points")} | {
        "faults": len(faults), "faults_alerted": alerted, "alerts": len(alerts), "silent_wrong": silent,
        "alert_kinds": dict(Counter(a["alert"] for a in alerts))}


def bench_messy(folder: Path, hands: int, cards: int | None, detector_spec: str, backend: str,
                style: str = "cards", fps: float = 10.0, deck: str = MESSY_DECK, only: tuple[str, ...] = ()) -> dict:
    """Film the :data:`MESSY_FILMS` into ``folder`` (films already there are reused), read each
    with nobody correcting, and print each film's figures and the sum (``only``: the films of
    these disturbances, ``all`` for the one with every disturbance)."""
    from cli.simulate import write_simulation
    from sim.simulate import SimConfig

    total: dict = {k: 0 for k in _MESSY_SUMMED} | {"busy": 0.0}
    for kinds, seed in MESSY_FILMS:
        name = kinds[0] if len(kinds) == 1 else "all"
        if only and name not in only:
            continue
        film = folder / f"3p-{deck if style == 'cards' else style}-{name}-s{seed}-h{hands}-c{cards or 'full'}"
        if not (film / "truth.json").is_file():
            write_simulation(SimConfig(seed=seed, seats=3, hands=hands, deck=deck, cards=cards, tokens=True,
                                       style=style, fps=fps, messy=kinds), film)
        _, frames, busy, _, _ = read_film(film, detector_spec, backend, referee_bids=False, keep=True)
        figures = messy_figures(json.loads((film / "truth.json").read_text()),
                                json.loads((film / "read.json").read_text()))
        line = {"name": f"messy: {name}"} | figures | {"frames": frames, "fps": round(frames / busy, 2) if busy else None}
        print(json.dumps(line, ensure_ascii=False))
        for key in _MESSY_SUMMED:
            total[key] += line[key]
        total["busy"] += busy
    busy = total.pop("busy")
    whole = {"name": "messy: all films"} | total | {
        "exact_share": round(total["exact"] / total["plays"], 4) if total["plays"] else None,
        "fps": round(total["frames"] / busy, 2) if busy else None}
    print(json.dumps(whole, ensure_ascii=False))
    return whole


def _add(total: Comparison, more: Comparison) -> Comparison:
    for name in _SUMMED:
        setattr(total, name, getattr(total, name) + getattr(more, name))
    total.delays += more.delays
    return total


def bench_toy(hands: int, size: tuple[int, int], seed: int) -> dict:
    from sim.toy_table import ToyDetector, ToyTable

    table = ToyTable(seed=seed, frame_size=size)
    store = EventStore(":memory:")
    mid = store.create_match(("P0", "P1", "P2"))
    session = TableSession(None, table.calibration(), ToyDetector(), store, mid)
    truth: list[dict] = []
    frames, busy, s = 0, 0.0, seed
    while len(truth) < hands:
        hand = random_hand("classic", s, first_bidder=len(truth) % 3)
        s += 1
        if not hand.finished or hand.redeal:
            continue
        first_landing = len(table.landed)
        entered = False
        for image, t in table.play_hand(hand):
            if not entered:
                state = session.referee.refresh()
                number = state.hand_number + 1
                store.append(mid, number, Deal(counts=(17, 17, 17)), source="referee")
                assert hand.landlord is not None  # the bench plays hands that were bid
                store.append(mid, number, Landlord(hand.landlord, hand.base), source="referee")
                entered = True
            t0 = time.perf_counter()
            session.process(Frame(image, t, frames))
            busy += time.perf_counter() - t0
            frames += 1
        keys = hand_keys(Hand.from_events("classic", hand.events))
        # the kitty's landing comes first when shown; plays follow in order
        landings = table.landed[first_landing + (1 if hand.kitty is not None else 0):]
        plays = [a for a in keys["actions"] if a["kind"] == "play"]
        for action, t in zip(plays, landings, strict=False):
            action["time"] = t
        truth.append(keys)
    read = played(match_record(TableState.load(store, mid), finished_only=False)["hands"])
    comparison = compare_hands(truth, read)
    return report(f"toy x{hands} at {size[0]}x{size[1]}", comparison, frames, busy)


def bench_render(frames: int, size: tuple[int, int], seed: int, style: str) -> dict:
    """How fast ``ddz-table simulate`` draws frames (the first ``frames`` of a sitting)."""
    from sim.simulate import SimConfig, SimTable

    t0 = time.perf_counter()
    table = SimTable(SimConfig(seed=seed, size=size, style=style, hands=3))
    setup = time.perf_counter() - t0
    stream, count, t0 = table.frames(), 0, time.perf_counter()
    for _ in zip(range(frames), stream, strict=False):
        count += 1
    busy = time.perf_counter() - t0
    out = {"name": f"render {style} at {size[0]}x{size[1]}", "frames": count, "setup_s": round(setup, 2),
           "ms_per_frame": round(1000 * busy / max(1, count), 1)}
    print(json.dumps(out))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sim", nargs="*", default=[], help="simulate output folders")
    parser.add_argument("--toy", type=int, default=0, help="random hands on the toy table")
    parser.add_argument("--size", default="1280x720", help="toy frame size")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--render", type=int, default=0, help="time drawing N simulate frames at --size")
    parser.add_argument("--style", default="cards", help="simulate style for --render and --suite: cards or toy")
    parser.add_argument("--no-referee-bids", action="store_true",
                        help="--sim: enter only the deals; the bids come from the tokens on film (simulate --tokens)")
    parser.add_argument("--deck", metavar="PROFILE", help="a deck profile file the ONNX detector reads with")
    parser.add_argument("--detector", default="onnx")
    parser.add_argument("--backend", default="onnx")
    parser.add_argument("--keep", action="store_true", help="--sim: write what was read to FOLDER/read.json")
    parser.add_argument("--suite", metavar="FOLDER", help="film the acceptance suite into FOLDER (or reuse it) and read it")
    parser.add_argument("--messy", metavar="FOLDER",
                        help="film the messy-table films into FOLDER (or reuse them) and read them")
    parser.add_argument("--only", default="", help="--suite: only the films whose folder name holds TEXT (e.g. 5p, "
                        "dizhu, orell); --messy: these films only (disturbance names, or all), comma-separated")
    parser.add_argument("--hands", type=int, help="--suite: hands per film (default 3); --messy: (default 1)")
    parser.add_argument("--cards", type=int, help="--suite, --messy: cards dealt per seat (default: a full deal)")
    args = parser.parse_args(argv)
    if not args.sim and not args.toy and not args.render and not args.suite and not args.messy:
        parser.error("give --sim FOLDER..., --suite FOLDER, --messy FOLDER, --toy N or --render N")
    if args.messy:
        only = tuple(n.strip() for n in args.only.split(",") if n.strip())
        unknown = [n for n in only if n not in (*MESSES, "all")]
        if unknown:
            parser.error(f"--only: unknown film(s) {', '.join(unknown)}; films: {', '.join(MESSES)}, all")
        detector = "toy" if args.style == "toy" else args.detector
        bench_messy(Path(args.messy), args.hands or 1, args.cards, detector, args.backend, style=args.style,
                    only=only)
    if args.suite:
        detector = "toy" if args.style == "toy" else args.detector
        bench_suite(Path(args.suite), args.hands or 3, args.cards, detector, args.backend, keep=args.keep,
                    style=args.style, only=args.only or None)
    for folder in args.sim:
        bench_sim(Path(folder), args.detector, args.backend, referee_bids=not args.no_referee_bids, deck=args.deck,
                  keep=args.keep)
    w, h = (int(v) for v in args.size.lower().split("x"))
    if args.toy:
        bench_toy(args.toy, (w, h), args.seed)
    if args.render:
        bench_render(args.render, (w, h), args.seed, args.style)
    return 0


if __name__ == "__main__":
    sys.exit(main())
