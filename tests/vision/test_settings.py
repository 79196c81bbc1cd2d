"""The detector's thresholds: one frozen DetectorSettings, the PHOTO and TRACKER presets, and
a CardDetector that runs with the settings it is given."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sim.synth import decks, scene
from vision.detector import DEFAULT_FINDER, DEFAULT_READER, CardDetector
from vision.settings import PHOTO, TRACKER, DetectorSettings


def test_the_tracker_differs_from_a_photo_only_in_its_joker_floors_no_close_ups_and_own_pixels():
    changed = {f.name for f in dataclasses.fields(DetectorSettings)
               if getattr(PHOTO, f.name) != getattr(TRACKER, f.name)}
    assert changed == {"joker_floor", "joker_pair_floor", "smaller", "enlarge_max"}
    assert PHOTO.smaller and not TRACKER.smaller  # a mounted camera gives no close-ups
    assert PHOTO.enlarge_max is None and TRACKER.enlarge_max == 1.0  # zone crops at their own pixels
    assert PHOTO.joker_floor is None and PHOTO.joker_pair_floor is None
    # the floors lie under the photo threshold, the pair floor under the single one
    assert 0 < TRACKER.joker_pair_floor < TRACKER.joker_floor < PHOTO.conf
    assert TRACKER.differences(PHOTO) == {"joker_floor": TRACKER.joker_floor, "enlarge_max": 1.0,
                                          "joker_pair_floor": TRACKER.joker_pair_floor, "smaller": False}
    assert PHOTO == DetectorSettings() and PHOTO.differences(DetectorSettings()) == {}


def test_settings_are_frozen_and_a_variant_is_a_new_checked_copy():
    with pytest.raises(dataclasses.FrozenInstanceError):
        PHOTO.conf = 0.5
    sharper = PHOTO.replace(conf=0.5)
    assert sharper.conf == 0.5 and PHOTO.conf != 0.5 and sharper.turns == PHOTO.turns
    for bad, match in (({"turns": 3}, "turns must be one of"), ({"sure": 0.0}, "sure must be in"),
                       ({"conf": 1.5}, "conf must be"), ({"joker_pair_floor": 0.0}, "joker_pair_floor"),
                       ({"zoom_below": 50.0}, "zoom_below")):
        with pytest.raises(ValueError, match=match):
            PHOTO.replace(**bad)


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(7)
    image, _ = scene.render_scene(rng, [list(decks.HELD_OUT_DECKS)[0]], imgsz=640, n_cards=8, hands_p=0.0)
    return image


def test_the_detector_runs_with_the_settings_it_is_given(table):
    plain = CardDetector(DEFAULT_FINDER, DEFAULT_READER)
    assert plain.settings is PHOTO
    found = plain.detect(table)
    # a threshold between the scores found: the stricter detector keeps only those above it
    assert len(found) >= 2
    conf = float(np.median(found.scores))
    strict = CardDetector(DEFAULT_FINDER, DEFAULT_READER, settings=PHOTO.replace(conf=conf))
    assert strict.settings.conf == conf
    kept = strict.detect(table)
    assert 0 < len(kept) < len(found)
    assert (kept.scores >= conf).all()
    assert len(kept) == int((found.scores >= conf).sum())
    # a keyword names a field to change, on top of the settings given
    assert CardDetector(DEFAULT_FINDER, DEFAULT_READER, settings=TRACKER, turns=1).settings == \
        TRACKER.replace(turns=1)
