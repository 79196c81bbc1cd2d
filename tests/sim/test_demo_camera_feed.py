"""The demo's camera mode: the rendered table read by the pipeline into the store (kept short:
small frames, a few of them; its speed and reads are measured, not tested)."""

from __future__ import annotations

import argparse
import time

import pytest

from cli import site as commands
from engine.events import Bid, Deal, End, Play
from sim.demo.camera_feed import CameraTable
from tests.kit.table_site import PIN, SMALL, Blind, new_match
from tracker.state import TableState
from webui import create_app

pytestmark = pytest.mark.art  # renders Debian's card art (apt: deploy/system-deps.sh)


def _feed(store, **kw) -> CameraTable:
    return CameraTable(store, new_match(store), speed=1000, seed=4, size=SMALL, fps=2, detector=Blind(),
                       hands_per_table=2, **kw)


def test_each_filmed_hand_starts_with_the_deal_and_the_spoken_bids(store):
    feed = _feed(store)
    truth = feed.table.engine_hands[0]
    assert feed._next_hand(feed.table, 0) is True
    rows = store.events(feed.match_id)
    assert [r.kind for r in rows][0] == "deal" and {r.source for r in rows} == {"referee"}
    deal = rows[0].event
    true_deal = truth.events[0]
    assert deal.counts == true_deal.counts and deal.first_bidder == true_deal.first_bidder and deal.hands is None
    assert [(e.seat, e.action, e.value) for e in (r.event for r in rows[1:])] == [
        (e.seat, e.action, e.value) for e in truth.events if isinstance(e, Bid)]
    state = TableState.load(store, feed.match_id)
    assert state.hand.landlord == truth.landlord  # the bids name the same landlord as on film


def test_without_the_referee_a_hand_the_camera_left_open_is_abandoned_and_scored_before_the_next(store):
    feed = _feed(store, referee=False)
    feed._next_hand(feed.table, 0)
    truth = feed.table.engine_hands[0]
    first = next(e for e in truth.events if isinstance(e, Play))
    store.append(feed.match_id, 1, Play(first.seat, first.cards))  # the camera read the lead, then lost the hand
    feed._next_hand(feed.table, 1)
    rows = store.events(feed.match_id)
    closing = next(r for r in rows if isinstance(r.event, End))
    assert closing.source == "system" and closing.event.abandoned and closing.hand == 1
    assert [r.hand for r in rows if isinstance(r.event, Deal)] == [1, 2]
    true_plays = sum(isinstance(e, Play) for e in truth.events)
    assert feed.reads == {"hands": 1, "plays": true_plays, "read": 1, "hands_finished": 0, "abandoned": 1,
                          "fixes": 0}


def test_the_demo_stops_after_max_hands(store):
    feed = _feed(store, max_hands=1)
    assert feed._next_hand(feed.table, 0) is True
    assert feed._next_hand(feed.table, 1) is False
    assert [r.hand for r in store.events(feed.match_id) if isinstance(r.event, Deal)] == [1]


def test_frames_run_through_the_pipeline_with_the_camera_view_and_health(store):
    feed = _feed(store)
    app = create_app({"REFEREE_PIN": PIN, "CAMERA_VIEW": True}, store=store, pipeline_status=feed)
    feed.start()
    try:
        deadline = time.monotonic() + 60
        while feed.frames < 3 and time.monotonic() < deadline and feed.error is None:
            time.sleep(0.05)
        assert feed.error is None and feed.frames >= 3 and feed.detector.calls > 0
        health = app.test_client().get("/healthz").get_json()["pipeline"]
        assert health["running"] is True and health["frames"] >= 3 and "synthetic table" in health["source"]
        jpeg = feed.jpeg()
        assert jpeg is not None and jpeg[:2] == b"\xff\xd8" and feed.jpeg() is jpeg  # encoded once per frame
    finally:
        feed.stop()
        app.extensions["ddz"].watcher.stop()
    assert feed.status()["running"] is False
    assert store.events(feed.match_id)[0].kind == "deal"


def test_the_feed_stops_when_the_referee_ends_the_match(store):
    from tracker.records import MatchEnd

    feed = _feed(store)
    feed.start()
    try:
        deadline = time.monotonic() + 60
        while feed.frames < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        store.append(feed.match_id, 0, MatchEnd("time"), source="referee")
        while feed.status()["running"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert feed.status()["running"] is False and feed.error is None
    finally:
        feed.stop()


def test_the_shipped_detector_reads_rendered_frames():
    from tracker.store import EventStore

    store = EventStore(":memory:")
    feed = CameraTable(store, new_match(store), speed=1000, seed=4, size=SMALL, fps=2, hands_per_table=1)
    frames = feed.table.frames()
    feed._next_hand(feed.table, 0)
    from vision.sources import Frame

    for i in range(2):
        image, t = next(frames)
        feed.session.process(Frame(image, t, i))
    assert feed.session.frames == 2 and feed.session.error is None and feed.jpeg()[:2] == b"\xff\xd8"


def test_the_toy_deck_comes_with_its_reader(store):
    from sim.toy import ToyDetector

    feed = CameraTable(store, new_match(store), size=SMALL, style="toy", cards=2)
    assert isinstance(feed.detector, ToyDetector) and feed.table.config.style == "toy"


def test_bad_settings_are_refused_with_a_message(store):
    with pytest.raises(ValueError, match="speed"):
        CameraTable(store, new_match(store), speed=0, detector=Blind())
    with pytest.raises(ValueError, match="fps"):
        CameraTable(store, new_match(store), fps=100, detector=Blind())
    with pytest.raises(ValueError, match="style"):
        CameraTable(store, new_match(store), style="lego", detector=Blind())
    with pytest.raises(ValueError, match="classic three-player"):
        CameraTable(store, store.create_match(("A", "B", "C", "D"), "four"), detector=Blind())


def test_the_demo_command_offers_both_feeds():
    parser = argparse.ArgumentParser()
    commands.register(parser.add_subparsers())
    args = parser.parse_args(["demo", "--feed", "camera", "--size", "960x540", "--fps", "4"])
    assert args.feed == "camera" and args.size == "960x540" and args.fps == 4.0
    default = parser.parse_args(["demo"])
    assert default.feed is None and commands.DEMO_FEED == "camera"  # the whole pipeline...
    assert default.referee is True  # ... its misreads corrected
    assert parser.parse_args(["demo", "--no-referee"]).referee is False
    assert parser.parse_args(["demo", "--feed", "bots"]).feed == "bots"
    with pytest.raises(SystemExit):
        parser.parse_args(["demo", "--feed", "video"])


def test_the_demo_films_a_deck_held_out_from_training(store):
    from sim.synth.decks import HELD_OUT_DECKS

    feed = CameraTable(store, new_match(store), size=SMALL, detector=Blind())
    assert feed.table.config.deck in HELD_OUT_DECKS and feed.deck in feed.status()["source"]
    other = CameraTable(store, new_match(store), size=SMALL, detector=Blind(), deck="orell")
    assert other.table.config.deck == "orell"


def test_the_demo_command_refuses_an_unknown_deck_before_serving(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    commands.register(parser.add_subparsers())
    args = parser.parse_args(["demo", "--deck", "lego", "--db", str(tmp_path / "d.db")])
    assert args.func(args) == 2
    assert "unknown deck 'lego'" in capsys.readouterr().err


def test_without_card_art_the_default_demo_plays_bots_and_a_named_camera_feed_says_what_to_install(
        store, monkeypatch, capsys):
    from sim.synth import art

    monkeypatch.setattr(art, "gnome_path", lambda name: art.Path("/nonexistent") / f"{name}.svgz")
    monkeypatch.setattr(art, "kde_path", lambda name: None)
    parser = argparse.ArgumentParser()
    commands.register(parser.add_subparsers())
    table, feed = commands._demo_feed(parser.parse_args(["demo"]), store, new_match(store))
    assert feed == "bots" and not isinstance(table, CameraTable)
    assert "not installed" in capsys.readouterr().out
    with pytest.raises(ValueError, match="system-deps.sh demo"):
        commands._demo_feed(parser.parse_args(["demo", "--feed", "camera"]), store, new_match(store))


def test_the_demo_command_refuses_a_bad_frame_size_before_serving(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    commands.register(parser.add_subparsers())
    args = parser.parse_args(["demo", "--feed", "camera", "--size", "10x10", "--db", str(tmp_path / "d.db")])
    assert args.func(args) == 2
    assert "out of range" in capsys.readouterr().err


@pytest.mark.slow  # about 40 s here (157 frames of 640x360); the wiring tests above are the quick version
def test_a_short_toy_deck_game_is_read_exactly_end_to_end(store):
    # The toy deck's corners are colour codes its reader gets right: any play missed here is
    # the wiring's fault (hand boundaries, deal and bids, pacing), not a detector's.
    feed = CameraTable(store, new_match(store), speed=1000, seed=5, size=(640, 360), fps=5, style="toy", cards=2,
                       hands_per_table=1, max_hands=1)
    feed.start()
    try:
        deadline = time.monotonic() + 120
        while feed.status()["running"] and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        feed.stop()
    assert feed.error is None and feed.reads["hands"] == 1
    assert feed.reads["plays"] > 0 and feed.reads["read"] == feed.reads["plays"]
    assert feed.reads["hands_finished"] == 1 and feed.reads["abandoned"] == 0
    assert "toy deck" in feed.status()["source"]
