"""Bid tokens (叫分牌): drawn, read back from images, and read by the session into bids.

The session tests film the toy table (``sim.toy_table``) with token cards pasted into its
frames where a seat lays them; the toy detector reads the cards, the ArUco reader the tokens."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from cli.main import main as cli_main
from engine.cards import parse_cards
from engine.events import Bid, Deal, Double, Kitty, OpenHand, Pass, Play
from engine.hand import Hand
from engine.rules import get_rules
from engine.scoring import settle
from sim.toy_table import ToyDetector
from tests.kit.toy_frames import TokenTable
from tracker.reader import ReaderConfig, TableReader
from tracker.session import SessionConfig, TableSession
from tracker.state import TableState
from tracker.store import EventStore
from tracker.tokens import (
    EN_BOX_MM,
    MARKER_AT_MM,
    MARKER_MM,
    TOKEN_MM,
    TOKENS,
    ZH_BOX_MM,
    TokenError,
    TokenWatch,
    bid_token,
    find_tokens,
    render_token,
    token_named,
    tokens_for,
)
from vision.detections import Detections
from vision.sources import Frame

PPM = 4.0  # token drawings for the reader: 240 x 360 px
BACKGROUND = (120, 160, 110)


def on_table(card: np.ndarray, angle: float, size=(420, 420)) -> np.ndarray:
    """The card turned by ``angle`` degrees, in the middle of a green table."""
    h, w = card.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    m[:, 2] += (size[0] / 2 - w / 2, size[1] / 2 - h / 2)
    return cv2.warpAffine(card, m, size, borderValue=BACKGROUND)


def covered(card: np.ndarray, box_mm, colour=(60, 40, 150)) -> np.ndarray:
    """The card with a playing card's edge (a flat colour) over ``box_mm`` = (x1, y1, x2, y2)."""
    out = card.copy()
    x1, y1, x2, y2 = (round(v * PPM) for v in box_mm)
    out[y1:y2, x1:x2] = colour
    return out


# ---------------------------------------------------------------------- reading a drawing
@pytest.mark.parametrize("token", TOKENS, ids=lambda t: t.name)
def test_every_token_reads_back_at_every_angle(token):
    card = render_token(token, PPM, chinese=False)
    read = {angle: [f.token.name for f in find_tokens(on_table(card, angle))] for angle in range(0, 360, 15)}
    assert read == {angle: [token.name] for angle in range(0, 360, 15)}


def test_a_token_with_its_chinese_words_reads_back():
    card = render_token(token_named("grab"), PPM, chinese=True)
    assert [f.token.name for f in find_tokens(on_table(card, 37))] == ["grab"]


x0, y0 = MARKER_AT_MM


@pytest.mark.parametrize("where, box, reads", [
    ("the words", (0, ZH_BOX_MM[1] - 2, TOKEN_MM[0], TOKEN_MM[1]), True),
    ("the card's corner, outside the marker", (0, 0, x0 - 1, y0 + 20), True),
    ("4 mm of a marker corner", (0, 0, x0 + 4, y0 + 4), True),
    ("6 mm of a marker corner (a square of the marker)", (0, 0, x0 + 6, y0 + 6), False),
    ("half the marker", (x0 + MARKER_MM / 2, 0, TOKEN_MM[0], TOKEN_MM[1]), False),
])
def test_which_cover_a_token_still_reads_through(where, box, reads):
    card = covered(render_token(token_named("bid2"), PPM, chinese=False), box)
    found = [f.token.name for a in (0, 90, 200) for f in find_tokens(on_table(card, a))]
    assert found == (["bid2"] * 3 if reads else []), where


def test_two_tokens_in_one_zone_are_both_read_with_their_own_outlines():
    zone = np.full((500, 700, 3), BACKGROUND, np.uint8)
    for token, angle, x in (("bid1", 10, 20), ("open", -25, 330)):
        card = on_table(render_token(token_named(token), PPM, chinese=False), angle, (360, 460))
        spot = zone[20:480, x:x + 360]
        mask = (card != BACKGROUND).any(axis=2)
        spot[mask] = card[mask]
    found = {f.token.name: f for f in find_tokens(zone)}
    assert sorted(found) == ["bid1", "open"]
    for name, other in (("bid1", "open"), ("open", "bid1")):
        outline = found[name].outline().astype(np.float32)
        assert cv2.pointPolygonTest(outline, tuple(found[name].centre), False) > 0
        assert cv2.pointPolygonTest(outline, tuple(found[other].centre), False) < 0
        # the card is 60 x 90 mm: its outline's sides come out at that size in pixels
        sides = np.linalg.norm(np.diff(np.vstack([outline, outline[:1]]), axis=0), axis=1)
        assert np.allclose(sorted(sides), [TOKEN_MM[0] * PPM] * 2 + [TOKEN_MM[1] * PPM] * 2, rtol=0.05)


def test_the_mats_markers_and_bare_images_are_no_tokens():
    from tracker.mat import render_mat
    from tracker.zones import MatLayout

    assert find_tokens(render_mat(MatLayout.standard(3, "A3"), dpi=60)) == []
    assert find_tokens(np.full((50, 50), 255, np.uint8)) == []
    with pytest.raises(TokenError):
        find_tokens("not an image")


def test_the_chinese_words_are_drawn_and_a_missing_font_is_a_clear_error():
    with_words = render_token(token_named("bid3"), PPM, chinese=True)
    without = render_token(token_named("bid3"), PPM, chinese=False)
    x1, y1, x2, y2 = (round(v * PPM) for v in ZH_BOX_MM)
    ink = (with_words[y1:y2, x1:x2] < 128).mean()
    assert ink > 0.15  # 叫3分 in large strokes
    ex1, ey1, ex2, ey2 = (round(v * PPM) for v in EN_BOX_MM)
    assert (with_words[ey1:ey2, ex1:ex2] < 128).any() and not (without[ey1:ey2, ex1:ex2] < 128).any()
    with pytest.raises(TokenError, match="Chinese font"):
        render_token(token_named("bid3"), PPM, chinese=True, font="/no/such/font.ttc")


# ---------------------------------------------------------------------- the token table
@pytest.mark.parametrize("preset, names", [
    ("classic", ["bid1", "bid2", "bid3", "no_bid", "open"]),
    ("qq", ["bid1", "bid2", "bid3", "no_bid", "open"]),
    ("chips", ["bid1", "bid2", "bid3", "no_bid", "open"]),
    ("fixed", ["bid1", "bid2", "bid3", "no_bid", "open"]),
    ("four", ["bid1", "bid2", "bid3", "no_bid", "open"]),
    ("grab", ["call", "no_bid", "grab", "no_grab", "open"]),
    ("two", ["call", "no_bid", "open"]),
    ("five", ["open", "double", "no_double"]),  # the marker card names the landlord: no bids
])
def test_tokens_for_each_preset(preset, names):
    assert [t.name for t in tokens_for(preset)] == names


def test_tokens_follow_the_rules_options():
    auction = get_rules("classic").replace(bidding="auction", max_bid=2, open_hand_multiplier=1)
    assert [t.name for t in tokens_for(auction)] == ["bid1", "bid2", "no_bid"]


def test_a_table_that_doubles_gets_double_tokens():
    doubling = get_rules("classic").replace(player_double=True)
    names = [t.name for t in tokens_for(doubling)]
    assert names == ["bid1", "bid2", "bid3", "no_bid", "open", "double", "no_double"]
    assert [token_named(n).zh for n in names[-2:]] == ["加倍", "不加倍"]


def test_the_token_for_each_bid():
    said = [bid_token("bid", 2), bid_token("pass"), bid_token("call"), bid_token("pass", called=True),
            bid_token("grab")]
    assert [t.zh for t in said] == ["叫2分", "不叫", "叫地主", "不抢", "抢地主"]


def test_each_meaning_has_its_own_marker_well_above_the_mats():
    markers = [t.marker for t in TOKENS]
    assert len(set(markers)) == len(TOKENS) and min(markers) > 3
    assert {(t.action, t.value) for t in TOKENS} >= {("bid", 1), ("bid", 2), ("bid", 3), ("pass", 0), ("call", 0),
                                                      ("grab", 0), ("open", 0)}


def test_a_watch_says_a_lingering_token_once_and_a_relaid_one_again():
    watch = TokenWatch(k=3, n=5, settle=0.45)
    bid1, said = [token_named("bid1")], []
    script = [[]] * 3 + [None] * 3 + [bid1] * 10 + [None] * 4 + [bid1] * 6 + [[]] * 5 + [None] * 2 + [bid1] * 8
    for i, read in enumerate(script):
        said += [(i, t.name) for t in watch.update(i / 10, read)]
    # the zone empty; a hand lays the token (said once still for 0.45 s: frame 10); a hand over it,
    # and it lies there still; five reads without it: lifted; a hand lays it again (frame 37)
    assert said == [(10, "bid1"), (37, "bid1")]


def test_a_watch_takes_what_lies_there_at_the_start_as_laid_before():
    watch = TokenWatch(k=2, n=3, settle=0.0)
    said = [t.name for i in range(6) for t in watch.update(i, [token_named("no_bid")])]
    assert said == []
    # unless a hand was over the zone first: it laid the token
    watch = TokenWatch(k=2, n=3, settle=0.0)
    said = [t.name for i in range(6) for t in watch.update(i, [token_named("no_bid")] if i else None)]
    assert said == ["no_bid"]


# ---------------------------------------------------------------------- the session
def referee_on(table: TokenTable, store: EventStore, mid: int, frames) -> TableSession:
    session = TableSession(None, table.table.calibration(), ToyDetector(), store, mid)
    for image, t in frames:
        session.process(Frame(image, t, 0))
    return session


def bids_of(hand) -> list[tuple[int, str, int]]:
    return [(e.seat, e.action, e.value) for e in hand.events if isinstance(e, Bid)]


def bid_hand() -> Hand:
    """A short hand bid at 1 by seat 0, the others passing: the landlord plays a pair and leads
    the kitty's pair, seat 1 bombs (x2) and goes out."""
    c = lambda text: tuple(parse_cards(text))  # noqa: E731
    events = [Deal(counts=(2, 7, 3)), Bid(0, "bid", 1), Bid(1, "pass"), Bid(2, "pass"), Kitty(c("7d 7c As")),
              Play(0, c("3s 3h")), Play(1, c("5s 5h")), Pass(2), Play(0, c("7d 7c")),
              Play(1, c("Js Jh Jd Jc")), Pass(2), Pass(0), Play(1, c("4d"))]
    return Hand.from_events("classic", events)


@pytest.mark.heavy  # films a short hand through the session: seconds
def test_the_bids_come_from_tokens_and_the_hand_is_scored_from_the_camera_alone():
    truth = bid_hand()
    table = TokenTable(seed=1)
    store = EventStore(":memory:")
    mid = store.create_match(("甲", "乙", "丙"))
    store.append(mid, 1, Deal(counts=(2, 7, 3)), source="referee")  # the page deals; nobody enters a bid
    frames = [*table.lay(0, "bid1"), *table.lay(1, "no_bid", angle=-100), *table.lay(2, "no_bid", angle=75),
              # the tokens stay where they were laid all hand long: each is one bid
              *table.stream(table.table.play_hand(truth)),
              # the hand is over; seat 1 lifts its token and lays it again: the next hand's first bid
              *table.lift(1, "no_bid"), *table.lay(1, "no_bid", angle=-80)]
    referee_on(table, store, mid, frames)
    state = TableState.load(store, mid)
    first = state.hand_of(1)
    assert bids_of(first) == [(0, "bid", 1), (1, "pass", 0), (2, "pass", 0)]
    assert (first.landlord, first.base, first.multiplier) == (0, 1, 2)
    assert first.finished and settle(first).points == settle(truth).points
    assert [a.alert for a in state.all_alerts.get(1, []) if a.alert != "not_announced"] == []
    # hand 2 was dealt by the camera when seat 1 (first to bid now) laid its token again
    assert state.hand_number == 2 and bids_of(state.hand) == [(1, "pass", 0)]
    assert [e.source for e in store.events(mid) if e.event.kind == "bid"] == ["camera"] * 4


@pytest.mark.heavy  # films a short hand through the session: seconds
def test_a_token_out_of_turn_is_an_alert_and_open_hand_doubles():
    table = TokenTable(seed=2)
    store = EventStore(":memory:")
    mid = store.create_match(("甲", "乙", "丙"))
    store.append(mid, 1, Deal(counts=(17, 17, 17)), source="referee")
    frames = [*table.lay(1, "bid2"),  # seat 0 bids first: an alert, no bid
              *table.lay(0, "bid3"),  # seat 0 takes it at 3
              *table.lay(2, "open"),  # only the landlord may open his hand
              *table.lay(0, "open")]
    referee_on(table, store, mid, frames)
    state = TableState.load(store, mid)
    hand = state.hand
    assert bids_of(hand) == [(0, "bid", 3)]
    assert [e.seat for e in hand.events if isinstance(e, OpenHand)] == [0]
    assert (hand.landlord, hand.base, hand.multiplier) == (0, 3, 2)
    alerts = [(a.alert, a.seat, a.fields.get("expected"), a.fields.get("reason")) for a in state.alerts]
    assert alerts == [("out_of_turn", 1, 0, None), ("wrong_phase", 2, None, "only_landlord_opens")]


@pytest.mark.heavy  # films a short hand through the session: seconds
def test_double_tokens_reach_the_multiplier_and_no_double_changes_nothing():
    table = TokenTable(seed=3)
    store = EventStore(":memory:")
    mid = store.create_match(("甲", "乙", "丙"), get_rules("classic").replace(player_double=True))
    store.append(mid, 1, Deal(counts=(17, 17, 17)), source="referee")
    frames = [*table.lay(0, "bid2"), *table.lay(1, "no_bid", angle=-100),
              *table.lay(2, "double", angle=75),  # laid before its last bid: held until the landlord is known
              *table.lay(2, "no_bid", angle=60),
              *table.lay(0, "double"), *table.lay(1, "no_double", angle=-80)]
    referee_on(table, store, mid, frames)
    state = TableState.load(store, mid)
    hand = state.hand
    assert bids_of(hand) == [(0, "bid", 2), (1, "pass", 0), (2, "pass", 0)]
    assert sorted(e.seat for e in hand.events if isinstance(e, Double)) == [0, 2]
    assert (hand.landlord, hand.base, hand.multiplier) == (0, 2, 4)
    assert [a.alert for a in state.alerts] == []
    assert [e.source for e in store.events(mid) if e.event.kind == "double"] == ["camera"] * 2


@pytest.mark.heavy  # films a short bidding through the session: seconds
def test_on_the_centre_pile_a_token_is_the_bid_of_the_seat_it_faces():
    """The centre-pile mat has no seat zones: each seat lays its token on the pile the right way
    up for itself, and two seats' 不叫 lying there together are two bids."""
    table = TokenTable(seed=4, pile=True)
    store = EventStore(":memory:")
    mid = store.create_match(("甲", "乙", "丙"))
    store.append(mid, 1, Deal(counts=(17, 17, 17)), source="referee")
    pile = table.table.layout.zones["pile"]
    (x1, y1), (x2, y2) = pile.min(axis=0), pile.max(axis=0)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    # seat 0 sits at the bottom edge (words down), seat 1 on the right, seat 2 on the left
    frames = [*table.lay(0, "bid1", angle=5, zone="pile", at=(cx, cy + 40)),
              *table.lay(1, "no_bid", angle=-95, zone="pile", at=(x2 - 70, cy)),
              *table.lay(2, "no_bid", angle=85, zone="pile", at=(x1 + 70, cy))]
    session = TableSession(None, table.table.calibration(), ToyDetector(), store, mid,
                           SessionConfig(reader=ReaderConfig(protocol="pile")))
    for image, t in frames:
        session.process(Frame(image, t, 0))
    hand = TableState.load(store, mid).hand
    assert bids_of(hand) == [(0, "bid", 1), (1, "pass", 0), (2, "pass", 0)]
    assert (hand.landlord, hand.base) == (0, 1)


class MarkerReadingDetector(ToyDetector):
    """Also reads an ace in the middle of every token's marker, as the card finder might."""

    def detect(self, image):
        dets = super().detect(image)
        found = find_tokens(image)
        if not found:
            return dets
        boxes = np.array([[*(f.centre - 15), *(f.centre + 15)] for f in found], np.float32)
        extra = Detections(boxes, np.full(len(found), 0.95), np.zeros(len(found), np.int64)).with_cards(
            ["As"] * len(found))
        return Detections.concat([dets, extra]) if len(dets) else extra


def test_card_reads_lying_on_a_token_are_dropped():
    table = TokenTable(seed=3)
    table.table.piles["seat0"] = ["9h"]
    table.lying[("seat0", "bid2")] = table.where("seat0", "bid2", 30)
    image = next(table.still(1))[0]
    cal = table.table.calibration()
    reader = TableReader(cal, MarkerReadingDetector())
    view = cal.crop(image, "seat0")
    tokens = find_tokens(view.image)
    assert [t.token.name for t in tokens] == ["bid2"]
    assert sorted(s.card for s in reader.cards_in(view)) == ["9h", "As"]  # read blind to tokens
    assert [s.card for s in reader.cards_in(view, tokens)] == ["9h"]


# ---------------------------------------------------------------------- the command
def pdf_pages(data: bytes) -> int:
    assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")
    return data.count(b"/Type /Page ")


@pytest.mark.parametrize("rules, players, pages", [("classic", None, 2), ("grab", 4, 3), ("two", None, 1)])
def test_tokens_command_writes_a_page_per_nine_cards(tmp_path, capsys, rules, players, pages):
    out = tmp_path / "tokens.pdf"
    args = ["tokens", "--out", str(out), "--rules", rules, "--dpi", "100"]
    assert cli_main(args + (["--players", str(players)] if players else [])) == 0
    data = out.read_bytes()
    count = len(tokens_for(rules)) * (players or get_rules(rules).players)
    assert pdf_pages(data) == pages == -(-count // 9)
    assert f"/Count {pages}".encode() in data and b"/MediaBox [0 0 595.28 841.89]" in data
    assert "Print at 100%" in capsys.readouterr().out


def test_tokens_command_adds_the_double_tokens_for_a_doubling_table(tmp_path, capsys):
    assert cli_main(["tokens", "--out", str(tmp_path / "t.png"), "--rules", "classic", "--double", "--players", "1",
                     "--dpi", "100"]) == 0
    (page,) = tmp_path.glob("t*.png")  # seven tokens: one page
    read = sorted(f.token.name for f in find_tokens(cv2.imread(str(page))))
    assert read == sorted(["bid1", "bid2", "bid3", "no_bid", "open", "double", "no_double"])
    assert "加倍 不加倍" in capsys.readouterr().out


def test_tokens_command_writes_png_pages_that_read_back(tmp_path):
    assert cli_main(["tokens", "--out", str(tmp_path / "t.png"), "--rules", "classic", "--dpi", "100"]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["t-1.png", "t-2.png"]
    page = cv2.imread(str(tmp_path / "t-1.png"))
    read = sorted(f.token.name for f in find_tokens(page))
    assert read == sorted(["bid1", "bid2", "bid3", "no_bid", "open", "bid1", "bid2", "bid3", "no_bid"])


@pytest.mark.parametrize("args, message", [
    (["--out", "tokens.jpg"], "written as .pdf or .png, not '.jpg'"),
    (["--out", "tokens"], "not 'no extension'"),
    (["--rules", "bridge"], "unknown rules preset"),
    (["--players", "0"], "1 to 8 sets"),
    (["--dpi", "20"], "dpi must be between"),
])
def test_tokens_command_errors_are_messages(tmp_path, capsys, args, message):
    assert cli_main(["tokens", "--out", str(tmp_path / "t.pdf"), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ddz-table: ") and message in err
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------- the simulator
def test_the_simulator_lays_each_bid_token_in_the_bidders_zone():
    from sim.simulate import SimConfig, SimTable

    table = SimTable(SimConfig(seed=5, style="toy", cards=3, size=(960, 540), tokens=True))
    bids = [e for e in table.engine_hands[0].events if isinstance(e, Bid)]
    frames = table.frames()
    read: list[tuple[int, str]] = []
    while len(read) < len(bids):
        image, _ = next(frames)
        if len(table.tokens) > len(read):  # one more token landed: read it once the arm is gone
            for _ in range(8):
                image, _ = next(frames)
            seat = table.tokens[-1]["seat"]
            read += [(seat, f.token.name) for f in find_tokens(table.calibration.crop(image, f"seat{seat}").image)]
    called = [any(b.action == "call" for b in bids[:i]) for i in range(len(bids))]
    assert read == [(b.seat, bid_token(b.action, b.value, c).name) for b, c in zip(bids, called, strict=True)]


@pytest.mark.heavy  # renders the bidding and doubling of a short hand: seconds
def test_a_doubling_table_lays_double_or_no_double_for_every_seat_from_the_landlord_on():
    from cli.simulate import parse_spec
    from sim.simulate import SimTable

    config = parse_spec("synthetic:seed=4,style=toy,cards=3,size=640x360,tokens=1,double=1")
    table = SimTable(config)
    hand = table.engine_hands[0]
    assert hand.rules.player_double and {e.seat for e in hand.events if isinstance(e, Double)} == {2}
    laid: list[tuple[int, str]] = []
    lay = table._lay_token

    def recording(seat, token):
        laid.append((seat, token.name))
        return (yield from lay(seat, token))

    table._lay_token = recording
    bids = [e for e in hand.events if isinstance(e, Bid)]
    frames = table.frames()
    while len(laid) < len(bids) + 3:
        next(frames)
    doubled = {e.seat for e in hand.events if isinstance(e, Double)}
    order = [hand.landlord, hand.next_seat(hand.landlord), hand.next_seat(hand.next_seat(hand.landlord))]
    assert laid[len(bids):] == [(s, "double" if s in doubled else "no_double") for s in order]


@pytest.mark.slow  # renders a short film and reads it: a minute on two cores
def test_a_simulate_toy_film_with_tokens_is_read_end_to_end(tmp_path):
    import json

    from bench import tracker as tracker_bench
    from cli.simulate import write_simulation
    from sim.simulate import SimConfig

    write_simulation(SimConfig(seed=3, style="toy", cards=3, size=(960, 540), tokens=True), tmp_path)
    truth = json.loads((tmp_path / "truth.json").read_text())
    assert truth["simulate"]["tokens"] is True
    out = tracker_bench.bench_sim(tmp_path, "sim.toy:ToyDetector", "onnx")
    assert out["name"].endswith("(bids from tokens)")
    assert (out["hands"], out["landlord_right"], out["missed"], out["phantom"]) == (1, 1, 0, 0)
    assert out["hands_exact_points"] == 1

