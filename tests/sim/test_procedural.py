"""Procedural decks: every card drawn, exact index boxes, one design per seed, usable in datasets."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from sim.synth import procedural
from sim.synth.decks import HELD_OUT_DECKS, DeckError, load_deck, training_decks
from sim.synth.locate import REGION, ink_mask
from sim.synth.procedural import (
    EMBLEM_DECKS_FROM,
    SUIT_DECKS_FROM,
    _Design,
    build_procedural,
    is_procedural,
)
from vision.cards import CARD_IDS

# Enough seeds to meet every joker style, suits beside the rank and font glyphs; the last five
# draw emblem jokers: every outer shape, filled and ring, four of the five marks, one with a word.
SAMPLE = [*range(12), 361, 364, 368, 371, 391]


@pytest.fixture(scope="module")
def decks():
    return {n: build_procedural(n) for n in SAMPLE}


def test_every_card_is_drawn_at_one_size(decks):
    for deck in decks.values():
        assert set(deck.faces) == set(deck.boxes) == set(CARD_IDS)
        assert not deck.is_partial
        shapes = {f.shape for f in deck.faces.values()} | {deck.back.shape}
        assert len(shapes) == 1 and shapes.pop()[2] == 4, deck.name
        w, h = deck.size
        assert w == 256 and 1.3 < h / w < 1.55


def test_index_boxes_hold_ink_in_both_corners(decks):
    for deck in decks.values():
        w, h = deck.size
        paper = np.median(deck.faces["2s"][..., :3][deck.faces["2s"][..., 3] > 250], axis=0)
        for card, (top, bottom) in deck.boxes.items():
            for x1, y1, x2, y2 in (top, bottom):
                assert x2 - x1 >= 4 and y2 - y1 >= 8, (deck.name, card, top)
            # In the corner (a suit beside a wide "10" reaches further right than Debian's indices).
            assert top[2] <= 0.45 * w and top[3] <= REGION[1] * h + 1, (deck.name, card, top)
            # The bottom index is the top one turned about the card's centre, to a pixel.
            assert abs((w - bottom[2]) - top[0]) <= 1 and abs((h - bottom[3]) - top[1]) <= 1, (deck.name, card)
            ink = ink_mask(deck.faces[card], paper)
            for x1, y1, x2, y2 in (top, bottom):
                assert ink[y1:y2, x1:x2].mean() > 0.08, (deck.name, card)


def test_the_box_is_tight_nothing_of_the_index_is_left_outside(decks):
    """A band just outside the top-left box is blank paper: the box holds the whole index."""
    for deck in decks.values():
        paper = np.median(deck.faces["2s"][..., :3][deck.faces["2s"][..., 3] > 250], axis=0)
        for card in ("2c", "3h", "BJ", "RJ"):  # nothing else is drawn near these corners
            x1, y1, x2, y2 = deck.boxes[card][0]
            ink = ink_mask(deck.faces[card], paper)
            right = ink[y1:y2, x2 + 1 : x2 + 3]
            below = ink[y2 + 1 : y2 + 3, x1:x2]
            assert right.mean() < 0.05 and below.mean() < 0.05, (deck.name, card)


def test_a_seed_is_one_design_and_seeds_differ(decks):
    again = build_procedural(3)
    assert all(np.array_equal(again.faces[c], decks[3].faces[c]) for c in CARD_IDS)
    assert again.boxes == decks[3].boxes
    differing = sum(not np.array_equal(decks[0].faces[c], decks[1].faces[c]) for c in CARD_IDS)
    assert differing == len(CARD_IDS)
    sizes = {d.boxes["10h"][0][3] - d.boxes["10h"][0][1] for d in decks.values()}
    assert len(sizes) > 3  # index heights vary from deck to deck


def _ink_colour(deck, card: str) -> np.ndarray:
    x1, y1, x2, y2 = deck.boxes[card][0]
    patch = deck.faces[card][y1:y2, x1:x2, :3].reshape(-1, 3).astype(int)
    return patch[patch.sum(axis=1) < 600].mean(axis=0)


def test_black_and_red_joker_differ_in_colour(decks):
    for deck in decks.values():
        assert np.abs(_ink_colour(deck, "BJ") - _ink_colour(deck, "RJ")).max() > 40, deck.name


def test_load_deck_names_and_caches_procedural_decks(tmp_path, monkeypatch):
    monkeypatch.setenv("DDZ_CARD_CACHE", str(tmp_path))
    assert is_procedural("proc_5") and not is_procedural("proc_x") and not is_procedural("anglo")
    deck = load_deck("proc_5")
    assert deck.name == "proc_5" and (tmp_path / "proc_5" / "faces.npy").exists()
    cached = load_deck("proc_5")
    assert cached.boxes == deck.boxes and np.array_equal(cached.faces["Kd"], deck.faces["Kd"])
    with pytest.raises(DeckError, match="unknown deck"):
        load_deck("proc_five")


def test_generated_decks_join_training_but_never_test_unseen(tmp_path):
    from sim.synth.dataset import build

    assert training_decks(2)[-2:] == ["proc_0", "proc_1"] and training_decks(2)[:-2] == training_decks()
    out = tmp_path / "ds"
    build(out, seed=11, n_train=12, n_val=0, n_test=2, imgsz=160, reader_size=32, workers=1, generated=4)
    settings = json.loads((out / "settings.json").read_text())
    assert settings["generated_decks"] == 4 and "proc_3" in settings["train_decks"]
    used = {}
    for split in ("train", "test_unseen"):
        for line in (out / "truth" / f"{split}.jsonl").read_text().splitlines():
            used.setdefault(split, set()).update(json.loads(line)["deck"])
    assert any(is_procedural(d) for d in used["train"])  # 4 of 24 decks; this seed meets one
    assert used["test_unseen"] <= set(HELD_OUT_DECKS)
    with pytest.raises(ValueError, match="generated decks"):
        build(tmp_path / "bad", seed=0, n_train=1, n_val=0, n_test=0, generated=-1)


def test_emblem_jokers_come_only_from_their_first_deck_and_change_nothing_else(monkeypatch):
    styles = {n: _Design(n).joker_style for n in range(EMBLEM_DECKS_FROM - 40, EMBLEM_DECKS_FROM + 40)}
    assert "emblem" not in {s for n, s in styles.items() if n < EMBLEM_DECKS_FROM}
    assert sum(s == "emblem" for n, s in styles.items() if n >= EMBLEM_DECKS_FROM) >= 10
    assert all(_Design(n).joker_style == "emblem" for n in (361, 364, 368, 371, 391))
    # The emblem is drawn from a stream of its own: the rest of a later deck's design is what
    # it would be without emblems.
    with_emblem = vars(_Design(364))
    monkeypatch.setattr(procedural, "EMBLEM_DECKS_FROM", 10**9)
    without = vars(_Design(364))
    assert "emblem" not in without and without["joker_style"] != "emblem"
    assert set(with_emblem) - set(without) == {"emblem"}
    for key, value in without.items():
        if key != "joker_style":
            assert np.array_equal(with_emblem[key], value), key


def test_an_emblem_jokers_box_fits_the_emblem(decks):
    """The emblem's box is about as wide as tall (a word under it makes it tall), and both
    jokers' boxes sit in the same place."""
    for n in (361, 368, 371, 391):
        x1, y1, x2, y2 = decks[n].boxes["BJ"][0]
        assert 0.6 < (x2 - x1) / (y2 - y1) < 1.3, (n, decks[n].boxes["BJ"][0])
        assert decks[n].boxes["RJ"][0] == decks[n].boxes["BJ"][0]
    x1, y1, x2, y2 = decks[364].boxes["BJ"][0]
    assert (y2 - y1) > 2 * (x2 - x1)  # the small stacked word under the ring


def test_wider_suits_come_only_from_their_first_deck_and_change_nothing_else(monkeypatch):
    styles = {n: _Design(n).club_style for n in range(SUIT_DECKS_FROM - 30, SUIT_DECKS_FROM + 30)}
    assert {s for n, s in styles.items() if n < SUIT_DECKS_FROM} == {"round"}
    later = [s for n, s in styles.items() if n >= SUIT_DECKS_FROM]
    assert later.count("open") >= 5 and later.count("squat") >= 5
    # The wider shapes come from a stream of their own: the jokers, fonts and colours of a later
    # deck are what they would be without them.
    wide = vars(_Design(SUIT_DECKS_FROM + 1))
    monkeypatch.setattr(procedural, "SUIT_DECKS_FROM", 10**9)
    narrow = vars(_Design(SUIT_DECKS_FROM + 1))
    suits = {"club_style", "club_r", "club_spread", "stem", "spade", "heart", "diamond_bulge", "suit_size"}
    for key, value in narrow.items():
        if key not in suits:
            assert np.array_equal(wide[key], value), key
    assert narrow["club_style"] == "round" and wide["club_style"] != "round"


def test_an_open_club_is_drawn_in_one_piece_and_keeps_its_box():
    """An open club's lobes, arms, hub and stem join up: the symbol's ink is one blob, and the
    corner box holds rank and suit like any other deck's."""
    n = next(n for n in range(SUIT_DECKS_FROM, SUIT_DECKS_FROM + 40) if _Design(n).club_style == "open"
             and not _Design(n).suit_beside)
    deck = build_procedural(n)
    x1, y1, x2, y2 = deck.boxes["3c"][0]
    ink = deck.faces["3c"][y1:y2, x1:x2]
    grey = cv2.cvtColor(np.ascontiguousarray(ink[..., :3]), cv2.COLOR_BGR2GRAY).astype(np.float32)
    dark = (ink[..., 3] > 128) & (grey < 0.6 * np.median(grey))
    lower = dark[int(dark.shape[0] * 0.55):].astype(np.uint8)  # the suit under the rank
    count, _ = cv2.connectedComponents(lower)
    assert count - 1 == 1
    assert (y2 - y1) > 1.5 * (x2 - x1)  # rank above suit
