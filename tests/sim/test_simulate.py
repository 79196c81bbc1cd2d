"""The synthetic table: a valid truth record, geometry that matches the calibration,
determinism, a readable video, clear errors, and the live ``synthetic:`` source."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from cli.main import main
from cli.simulate import parse_spec, write_simulation
from engine.record import load
from sim.simulate import HOLD_S, REACH_S, WITHDRAW_S, SimConfig, SimError, SimTable
from tracker.match_record import hand_keys
from tracker.zones import Calibration
from vision.sources import open_source

pytestmark = pytest.mark.art  # renders Debian's card art (apt: deploy/system-deps.sh)

SMALL = dict(seed=5, size=(320, 180), fps=2.0)


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    out = tmp_path_factory.mktemp("sim") / "seed5"
    assert main(["simulate", "--seed", "5", "--seats", "3", "--out", str(out), "--size", "320x180",
                 "--fps", "2"]) == 0
    return out


def _plays(actions):
    return [(a["seat"], a["kind"], sorted(a["cards"])) for a in actions]


def test_truth_is_an_engine_record_with_the_hands_plays(sim):
    truth = json.loads((sim / "truth.json").read_text())
    match = load(truth)  # the engine part reads back
    folded = match.folded()
    engine_hand = SimTable(SimConfig(**SMALL)).engine_hands[0]
    expected = hand_keys(engine_hand)
    assert len(truth["hands"]) == len(folded) == 1
    hand = truth["hands"][0]
    assert _plays(hand["actions"]) == _plays(expected["actions"])
    assert _plays(hand_keys(folded[0])["actions"]) == _plays(expected["actions"])
    assert hand["landlord"] == engine_hand.landlord and hand["bid"] == engine_hand.base
    assert hand["result"]["points"] == expected["result"]["points"]
    times = [a["time"] for a in hand["actions"]]
    assert times == sorted(times) and times[-1] < truth["simulate"]["frames"] / 2.0


def test_video_opens_with_the_expected_frames(sim):
    truth = json.loads((sim / "truth.json").read_text())
    cap = cv2.VideoCapture(str(sim / "video.mp4"))
    assert cap.isOpened()
    count = 0
    while True:
        ok, image = cap.read()
        if not ok:
            break
        assert image.shape == (180, 320, 3)
        count += 1
    cap.release()
    assert count == truth["simulate"]["frames"] > 50


def test_same_seed_same_truth_and_first_frame(sim, tmp_path):
    again = write_simulation(SimConfig(**SMALL), tmp_path / "again")
    assert (tmp_path / "again" / "truth.json").read_text() == (sim / "truth.json").read_text()
    assert again["frames"] == json.loads((sim / "truth.json").read_text())["simulate"]["frames"]
    firsts = []
    for folder in (sim, tmp_path / "again"):
        cap = cv2.VideoCapture(str(folder / "video.mp4"))
        firsts.append(cap.read()[1])
        cap.release()
    assert np.array_equal(firsts[0], firsts[1])
    a, b = SimTable(SimConfig(**SMALL)), SimTable(SimConfig(**(SMALL | {"seed": 6})))
    assert not np.array_equal(next(a.frames())[0], next(b.frames())[0])
    assert [str(e) for e in a.engine_hands[0].events] != [str(e) for e in b.engine_hands[0].events]


def test_calibration_is_the_rendered_geometry(sim):
    saved = Calibration.load(sim / "calibration.json")
    table = SimTable(SimConfig(seed=5, size=(640, 360), fps=2.0))
    assert np.allclose(saved.homography, SimTable(SimConfig(**SMALL)).calibration.homography)
    image = next(table.frames())[0]
    found = Calibration.from_markers(image, table.layout)  # the printed markers agree with it
    corners = [[0, 0], [table.layout.width_mm, 0], [table.layout.width_mm, table.layout.height_mm]]
    assert np.abs(found.table_to_image(corners) - table.calibration.table_to_image(corners)).max() < 2.0


def test_cards_are_drawn_inside_their_seats_zone():
    table = SimTable(SimConfig(seed=5, size=(480, 270), fps=5.0))
    first_play = next(e for e in table.engine_hands[0].events if type(e).__name__ == "Play")
    frames = []
    for image, t in table.frames():
        frames.append((image, t))
        if any(p["zone"].startswith("seat") for p in table.placed) and len(frames) > 40:
            break
    landed = next(p for p in table.placed if p["zone"].startswith("seat"))
    before = next(img for img, t in reversed(frames) if t < landed["time"] - REACH_S - HOLD_S)
    after = next(img for img, t in frames if t > landed["time"] + WITHDRAW_S + 0.3)
    grey = [cv2.GaussianBlur(cv2.cvtColor(i, cv2.COLOR_BGR2GRAY), (5, 5), 0) for i in (before, after)]
    changed = (cv2.absdiff(*grey) > 40).astype(np.uint8)
    cards = [p for p in table.placed if p["time"] == landed["time"]]
    zone = f"seat{first_play.seat}"
    assert {p["zone"] for p in cards} == {zone}
    assert sorted(p["card"] for p in cards) == sorted(str(c) for c in first_play.cards)
    poly = table.calibration.table_to_image(table.calibration.zones[zone]).astype(np.float32)
    ys, xs = np.nonzero(changed)
    assert len(xs) > 100
    inside = [cv2.pointPolygonTest(poly, (float(x), float(y)), True) > -6 for x, y in zip(xs, ys, strict=True)]
    assert np.mean(inside) > 0.9  # what appeared is in the playing seat's zone, as calibrated
    hull = cv2.convexHull(np.column_stack([xs, ys]).astype(np.float32))
    for p in cards:  # a card's middle may be plain paper on a white mat: judge by the changed area
        x, y = table.calibration.table_to_image([p["centre_mm"]])[0]
        assert cv2.pointPolygonTest(hull, (float(x), float(y)), True) > 2, f"nothing drawn at {p['card']}"
        assert table.calibration.zone_of(p["centre_mm"]) == zone


def test_a_long_play_lies_in_two_rows_that_leave_every_top_left_index_in_view():
    table = SimTable(SimConfig(seed=5, size=(480, 270), fps=5.0))
    cards = "7s 7d 8d 8c 9h 9d 10h 10c Jd Jc Qh Qc".split()
    f, right, _ = table._axes[0]
    poses = table._poses("seat0", 0, cards)  # drawn in this order, each over the ones before
    centres = [np.array(p["centre_mm"]) for p in poses]
    depth = [float(c @ f) for c in centres]  # f points into the table, away from the player
    assert max(depth) - min(depth) > 20, "twelve cards make two rows"
    assert depth[-1] < depth[0], "the later row lies nearer the player"
    cw, ch = table.card_mm
    for i, c in enumerate(centres):
        # the index, 6 mm in from the card's left edge and 12 from its far edge (the player's view)
        index = c + f * (ch / 2 - 12) - right * (cw / 2 - 6)
        for later in centres[i + 1:]:
            d = index - later
            assert not (abs(d @ right) < cw / 2 and abs(d @ f) < ch / 2), f"{cards[i]}'s index is covered"


@pytest.mark.parametrize("argv, message", [
    (["--seats", "6"], "seats 2, 3, 4 or 5"),
    (["--rules", "dizhu", "--seats", "5"], "give --seats 3"),
    (["--rules", "nosuch"], "unknown rules preset"),
    (["--size", "big"], "size must look like"),
    (["--deck", "nosuchdeck"], "unknown deck"),
    (["--hands", "0"], "hands must be"),
])
def test_bad_settings_exit_2_with_a_message(tmp_path, capsys, argv, message):
    assert main(["simulate", "--out", str(tmp_path / "x"), *argv]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x" / "video.mp4").exists()


def test_unwritable_out_exits_2(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert main(["simulate", "--out", str(blocker / "sub"), "--size", "320x180"]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_live_synthetic_source_renders_the_same_table():
    source = open_source("synthetic:seed=5,size=320x180,fps=2", reconnect=False)
    frames = [source.read() for _ in range(3)]
    table = SimTable(SimConfig(**SMALL))
    expected = [img for img, _ in zip(table.frames(), range(3), strict=False)]
    assert [f.time for f in frames] == [0.0, 0.5, 1.0]
    assert all(np.array_equal(f.image, e[0]) for f, e in zip(frames, expected, strict=True))
    source.close()


def test_bad_source_spec_is_a_clear_error():
    with pytest.raises(SimError, match="unknown synthetic source setting"):
        parse_spec("synthetic:colour=red")
    with pytest.raises(SimError, match="seats"):
        parse_spec("synthetic:seats=7")
    with pytest.raises(SimError, match="bad value for seed"):
        parse_spec("synthetic:seed=x")
    with pytest.raises(SimError, match="double is 0 or 1"):
        parse_spec("synthetic:double=2")


@pytest.mark.parametrize("argv, message", [
    (["--style", "toy", "--cards", "18"], "cards per seat must be 1..17"),
    (["--deck", "kde_standard"], "has no jokers"),
])
def test_more_bad_settings_exit_2(tmp_path, capsys, argv, message):
    assert main(["simulate", "--out", str(tmp_path / "x"), "--size", "320x180", *argv]) == 2
    assert message in capsys.readouterr().err


def test_simulate_needs_out_unless_it_only_counts(capsys):
    assert main(["simulate", "--seed", "1"]) == 2
    assert "--out" in capsys.readouterr().err


def test_a_short_toy_game_records_its_style_and_deal(tmp_path):
    summary = write_simulation(SimConfig(seed=2, size=(320, 180), fps=2.0, style="toy", cards=2), tmp_path)
    truth = json.loads((tmp_path / "truth.json").read_text())
    assert truth["simulate"]["style"] == "toy" and truth["simulate"]["cards"] == 2
    assert truth["hands"][0]["counts"] == [2, 2, 2] and summary["plays"] >= 2


def test_the_table_layer_puts_and_sweeps_cards_as_a_full_redraw_would():
    """Cards drawn on the cached layer and swept off again leave exactly the bare table;
    drawn, they change only the cards' own area of the frame."""
    table = SimTable(SimConfig(seed=5, size=(480, 270), fps=5.0))
    bare = table.layer.view.copy()
    items = table._poses("seat0", 0, ["3s", "4h", "5d"])
    table.layer.put(items, table._affine)
    changed = np.abs(table.layer.view - bare).max(axis=2) > 1
    poly = table.calibration.table_to_image(table.calibration.zones["seat0"]).astype(np.float32)
    ys, xs = np.nonzero(changed)
    assert len(xs) > 50
    near = [cv2.pointPolygonTest(poly, (float(x), float(y)), True) > -12 for x, y in zip(xs, ys, strict=True)]
    assert np.mean(near) > 0.97
    more = table._poses("kitty", 1, ["BJ", "RJ", "2s"])
    table.layer.put(more, table._affine)
    table.layer.remove(items, more, table._affine)
    kitty_only = table.layer.view.copy()
    table.layer.remove(more, [], table._affine)
    assert np.abs(table.layer.view - bare).max() < 0.5  # swept clean: the bare table (to rounding)
    fresh = SimTable(SimConfig(seed=5, size=(480, 270), fps=5.0))
    fresh.layer.put(more, fresh._affine)
    assert np.abs(fresh.layer.view - kitty_only).max() < 0.5  # as if seat 0's cards never lay there


def test_synthetic_source_takes_style_and_cards():
    config = parse_spec("synthetic:seed=2,style=toy,cards=3,size=320x180")
    assert (config.style, config.cards) == ("toy", 3)
    with pytest.raises(SimError, match="style must be"):
        parse_spec("synthetic:style=watercolour")
