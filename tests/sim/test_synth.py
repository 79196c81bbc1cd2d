"""Synthetic card tables: deck art, index boxes, label geometry, determinism, dataset layout."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from sim.synth import crops
from sim.synth.decks import (
    HELD_OUT_DECKS,
    SHEET_DIR,
    DeckError,
    list_decks,
    load_deck,
    training_decks,
    write_atomically,
)
from sim.synth.layout import CardPose
from sim.synth.locate import JOKER_REGION, REGION, ink_mask
from sim.synth.scene import render_full, render_scene
from vision.cards import CARD_IDS

# Missing card art is a failure, not a skip: `make test` installs it (deploy/system-deps.sh).
if not SHEET_DIR.is_dir():
    raise RuntimeError("card art missing: run deploy/system-deps.sh (apt-get install gnome-cards-data librsvg2-bin)")

IMGSZ = 320
PLANE_CENTRE = IMGSZ * 1.7 / 2
QUIET = {"max_tilt": 0.0, "clutter_p": 0.0, "hands_p": 0.0, "camera_effects": False}


def test_at_least_four_held_out_decks_all_kept_and_never_trained_on():
    assert len(HELD_OUT_DECKS) >= 4
    assert set(HELD_OUT_DECKS) <= set(list_decks())
    assert not set(HELD_OUT_DECKS) & set(training_decks())
    assert len(training_decks()) >= 8


def test_full_decks_have_all_54_cards_and_partial_ones_all_but_the_jokers():
    for name in list_decks(partial=True):
        deck = load_deck(name)
        expected = set(CARD_IDS) if name in list_decks() else set(CARD_IDS) - {"BJ", "RJ"}
        assert set(deck.faces) == expected == set(deck.boxes), name
        assert all(f.shape == deck.faces["2s"].shape for f in deck.faces.values()), name


@pytest.mark.parametrize("name", list_decks(partial=True))
def test_index_locator_boxes_ink_in_both_corners(name):
    deck = load_deck(name)
    w, h = deck.size
    paper = np.median(deck.faces["2s"][..., :3][deck.faces["2s"][..., 3] > 250], axis=0)
    for card in deck.faces:
        top, bottom = deck.boxes[card]
        for x1, y1, x2, y2 in (top, bottom):
            assert x2 - x1 >= 4 and y2 - y1 >= 8, (card, top)
        # Top-left index inside the corner region; the bottom-right one its 180-degree turn.
        # A joker's word may run further along one edge (JOKER_REGION).
        rx, ry = JOKER_REGION if card in ("BJ", "RJ") else REGION
        assert top[2] <= rx * w + 1 and top[3] <= ry * h + 1, (card, top)
        assert bottom[0] >= (1 - rx) * w - 1 and bottom[1] >= (1 - ry) * h - 1, (card, bottom)
        ink = ink_mask(deck.faces[card], paper)
        for x1, y1, x2, y2 in (top, bottom):
            assert ink[y1:y2, x1:x2].mean() > 0.08, (card, (x1, y1, x2, y2))


def test_a_joker_word_is_boxed_whole_and_an_emblem_without_the_art_under_it():
    # atlasnye writes J-O-K-E-R down the card past the corner region; bellot across it.
    for name, card in (("atlasnye", "RJ"), ("bellot", "BJ")):
        deck = load_deck(name)
        w, h = deck.size
        top, bottom = deck.boxes[card]
        word = deck.faces[card][top[1]:top[3], top[0]:top[2]]
        if name == "atlasnye":
            assert top[3] > REGION[1] * h and (top[3] - top[1]) > 4 * (top[2] - top[0]), top
        else:
            assert top[2] > REGION[0] * w and (top[2] - top[0]) > 1.3 * (top[3] - top[1]), top
        assert word.size and (bottom[2] - bottom[0], bottom[3] - bottom[1]) == pytest.approx(
            (top[2] - top[0], top[3] - top[1]), abs=3), (top, bottom)
    # paris's joker corner is a disc with "THE JOKER" curving under it: the box is the disc alone.
    x1, y1, x2, y2 = load_deck("paris").boxes["RJ"][0]
    assert 0.8 < (x2 - x1) / (y2 - y1) < 1.25, (x1, y1, x2, y2)


def test_unknown_deck_is_a_clear_error():
    with pytest.raises(DeckError, match="unknown deck"):
        load_deck("no_such_deck")


def _pose(card, dx=0.0, angle=0.0, scale=0.45, face_up=True):
    return CardPose(card, 0, face_up, (PLANE_CENTRE + dx, PLANE_CENTRE), angle, scale)


def _labels(scene):
    return sorted((c["card"], round(c["box"][0])) for c in scene.corners)


def test_card_under_an_exact_cover_shows_no_corner():
    rng = np.random.default_rng(3)
    scene = render_full(rng, ["anglo"], IMGSZ, poses=[_pose("3s"), _pose("4h")], **QUIET)
    assert [c["card"] for c in scene.corners] == ["4h", "4h"]
    assert {c["card"] for c in scene.hidden} == {"3s"}


def test_card_partly_covered_from_the_right_keeps_only_its_top_left_index():
    deck = load_deck("anglo")
    shift = 0.45 * 0.5 * deck.size[0]  # half the card width, in plane pixels
    rng = np.random.default_rng(4)
    scene = render_full(rng, [deck], IMGSZ, poses=[_pose("3s"), _pose("4h", dx=shift)], **QUIET)
    under = [c for c in scene.corners if c["card"] == "3s"]
    assert len(under) == 1
    assert under[0]["box"][0] < min(c["box"][0] for c in scene.corners if c["card"] == "4h")
    assert [c["card"] for c in scene.hidden] == ["3s"]


def test_face_down_cards_give_outlines_but_no_corners():
    rng = np.random.default_rng(5)
    scene = render_full(rng, ["anglo"], IMGSZ, poses=[_pose("5d", face_up=False)], **QUIET)
    assert scene.corners == []
    assert len(scene.cards) == 1 and scene.cards[0]["face_up"] is False


@pytest.mark.parametrize("seed", range(6))
def test_labelled_quads_lie_inside_the_image_and_are_mostly_visible(seed):
    image, corners = render_scene(np.random.default_rng(seed), training_decks(), IMGSZ)
    assert image.shape == (IMGSZ, IMGSZ, 3) and image.dtype == np.uint8
    for c in corners:
        quad = np.array(c["quad"])
        assert quad.shape == (4, 2)
        assert (quad >= 0).all() and (quad <= IMGSZ).all()
        x1, y1, x2, y2 = c["box"]
        assert 0 <= x1 < x2 <= IMGSZ and 0 <= y1 < y2 <= IMGSZ
        assert c["visible"] >= 0.7
        assert c["card"] in CARD_IDS


def test_same_seed_gives_the_same_image_bytes():
    decks = training_decks()
    a, ca = render_scene(np.random.default_rng(11), decks, IMGSZ)
    b, cb = render_scene(np.random.default_rng(11), decks, IMGSZ)
    c, _ = render_scene(np.random.default_rng(12), decks, IMGSZ)
    assert a.tobytes() == b.tobytes() and ca == cb
    assert a.tobytes() != c.tobytes()


def test_render_scene_rejects_bad_arguments():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="at least one deck"):
        render_scene(rng, [])
    with pytest.raises(ValueError, match="too small"):
        render_scene(rng, ["anglo"], imgsz=32)


def test_square_crop_centres_the_box_and_rejects_empty_boxes():
    image = np.zeros((100, 100, 3), np.uint8)
    image[40:60, 45:55] = 255
    crop = crops.square_crop(image, [45, 40, 55, 60], 64)
    assert crop.shape == (64, 64, 3)
    ys, xs = np.nonzero(crop[..., 0] > 128)
    assert abs(xs.mean() - 31.5) < 1.5 and abs(ys.mean() - 31.5) < 1.5
    with pytest.raises(ValueError, match="empty box"):
        crops.square_crop(image, [10, 10, 10, 20], 64)


def _read_yaml(path: Path) -> dict:
    out = {}
    for line in path.read_text().splitlines():
        if ":" in line and not line.startswith(" "):
            key, value = line.split(":", 1)
            out[key] = value.strip()
    return out


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from sim.synth.dataset import build

    out = tmp_path_factory.mktemp("synth") / "ds"
    summary = build(out, seed=7, n_train=3, n_val=1, n_test=1, imgsz=160, reader_size=32, workers=2)
    return out, summary


def test_tiny_build_writes_ultralytics_layout_with_absolute_paths(tiny):
    out, summary = tiny
    assert summary["train"]["images"] == 3 and summary["test_unseen"]["images"] == 1
    for part in ("finder", "single"):
        data = _read_yaml(out / part / "data.yaml")
        for key in ("path", "train", "val", "test"):
            assert Path(data[key]).is_absolute() and Path(data[key]).is_dir(), (part, key)
        assert data["test"].endswith("test_seen")
        assert _read_yaml(out / part / "data_unseen.yaml")["test"].endswith("test_unseen")
    assert "0: \"index\"" in (out / "finder" / "data.yaml").read_text()
    assert "53: \"RJ\"" in (out / "single" / "data.yaml").read_text()
    for split in ("train", "val", "test_seen", "test_unseen"):
        images = sorted((out / "finder" / "images" / split).glob("*.jpg"))
        assert images
        for img in images:
            finder = (out / "finder" / "labels" / split / (img.stem + ".txt")).read_text().split("\n")
            single = (out / "single" / "labels" / split / (img.stem + ".txt")).read_text().split("\n")
            assert (out / "single" / "images" / split / img.name).exists()
            assert len(finder) == len(single)
            for f_line, s_line in zip(finder, single, strict=True):
                if not f_line:
                    continue
                f_vals, s_vals = f_line.split(), s_line.split()
                assert f_vals[0] == "0" and 0 <= int(s_vals[0]) < len(CARD_IDS)
                assert f_vals[1:] == s_vals[1:]
                assert all(0 <= float(v) <= 1 for v in f_vals[1:])
    reader = out / "reader" / "train"
    assert {p.name for p in reader.iterdir()} == {*CARD_IDS, "none"}
    crops_found = list(reader.glob("*/*.png"))
    assert crops_found and cv2.imread(str(crops_found[0])).shape == (32, 32, 3)


def test_held_out_decks_appear_only_in_test_unseen(tiny):
    out, _ = tiny
    for split in ("train", "val", "test_seen", "test_unseen"):
        for line in (out / "truth" / f"{split}.jsonl").read_text().splitlines():
            rec = json.loads(line)
            assert Path(rec["image"]).exists()
            used = set(rec["deck"]) | {c["deck"] for c in rec["corners"]}
            if split == "test_unseen":
                assert used <= set(HELD_OUT_DECKS)
            else:
                assert not used & set(HELD_OUT_DECKS)


def test_build_is_the_same_whatever_the_worker_count(tiny, tmp_path):
    from sim.synth.dataset import build

    out, _ = tiny
    again = tmp_path / "again"
    build(again, seed=7, n_train=3, n_val=0, n_test=0, imgsz=160, reader_size=32, workers=1)
    for img in sorted((out / "finder" / "images" / "train").glob("*.jpg")):
        assert img.read_bytes() == (again / "finder" / "images" / "train" / img.name).read_bytes()


def test_build_refuses_bad_counts_and_an_existing_dataset(tiny, tmp_path):
    from sim.synth.dataset import build

    with pytest.raises(ValueError, match="negative"):
        build(tmp_path / "x", seed=0, n_train=-1, n_val=0, n_test=0)
    with pytest.raises(ValueError, match="multiple of 32"):
        build(tmp_path / "y", seed=0, n_train=1, n_val=0, n_test=0, imgsz=100)
    with pytest.raises(FileExistsError):
        build(tiny[0], seed=0, n_train=1, n_val=0, n_test=0)


def test_cli_registers_dataset_synth_and_contact_sheet(tmp_path):
    import argparse

    from cli.dataset import register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["dataset", "synth", "--out", str(tmp_path / "d"), "--seed", "3", "--train", "1",
                              "--val", "0", "--test", "0", "--imgsz", "128", "--workers", "1"])
    assert args.func(args) == 0
    assert (tmp_path / "d" / "finder" / "data.yaml").exists()
    args = parser.parse_args(["dataset", "contact-sheet", "--out", str(tmp_path / "c.png"), "--deck", "anglo"])
    assert args.func(args) == 0
    sheet = cv2.imread(str(tmp_path / "c.png"))
    assert sheet is not None and sheet.shape[0] > 100


@pytest.mark.parametrize("seed", range(4))
def test_reader_negatives_stay_off_every_index_and_inside_the_frame(seed):
    scene = render_full(np.random.default_rng(seed), training_decks(), IMGSZ, n_cards=12)
    negatives = crops.negative_boxes(np.random.default_rng(seed), scene, 10)
    assert negatives
    indices = [np.concatenate([np.min(c["quad"], 0), np.max(c["quad"], 0)]) for c in scene.corners + scene.hidden]
    for box in negatives:
        assert box[2] - box[0] >= 2 and box[3] - box[1] >= 2
        assert box.min() >= 0 and box.max() <= IMGSZ
        assert all(crops._overlap(box, b) <= 0.2 for b in indices)


def test_a_partial_deck_deals_no_jokers():
    partial = [d for d in training_decks() if load_deck(d).is_partial]
    assert partial, "kdegames-card-data-kf5 is missing: run deploy/system-deps.sh"
    scene = render_full(np.random.default_rng(2), partial[:1], IMGSZ, n_cards=54, index_px=14)
    dealt = {c["card"] for c in scene.cards}
    assert len(dealt) == 52 and not dealt & {"BJ", "RJ"}


def test_resume_finishes_an_interrupted_build_with_the_same_bytes(tiny, tmp_path):
    from sim.synth.dataset import build

    out, _ = tiny
    part = tmp_path / "part"
    build(part, seed=7, n_train=4, n_val=0, n_test=0, imgsz=160, reader_size=32, workers=1)
    # Interrupted: the config never written, the last truth line cut short, a stray image.
    (part / "finder" / "data.yaml").unlink()
    truth = part / "truth" / "train.jsonl"
    lines = truth.read_text().splitlines()
    truth.write_text("\n".join(lines[:2]) + "\n" + lines[2][:40] + "\n")
    summary = build(part, seed=7, n_train=3, n_val=1, n_test=1, imgsz=160, reader_size=32, workers=1, resume=True)
    assert summary["train"]["images"] == 3 and summary["val"]["images"] == 1
    assert len(truth.read_text().splitlines()) == 3
    images = sorted(p.name for p in (part / "finder" / "images" / "train").iterdir())
    assert images == [f"train_{i:06d}.jpg" for i in range(3)]
    assert not list((part / "reader" / "train").glob("*/train_000003_*"))
    for name in images:
        fresh = out / "finder" / "images" / "train" / name
        assert (part / "finder" / "images" / "train" / name).read_bytes() == fresh.read_bytes()


def test_joker_p_deals_both_jokers_and_zero_leaves_the_shuffle_alone():
    rng = lambda: np.random.default_rng(5)  # noqa: E731
    plain, _ = render_scene(rng(), ["anglo"], IMGSZ)
    zero, _ = render_scene(rng(), ["anglo"], IMGSZ, joker_p=0.0)
    assert plain.tobytes() == zero.tobytes()  # datasets built before joker_p stay byte-identical
    for seed in range(6):
        scene = render_full(np.random.default_rng(seed), ["anglo"], IMGSZ, n_cards=3, joker_p=1.0, **QUIET)
        assert {"BJ", "RJ"} <= {c["card"] for c in scene.cards}
    # A 3-card deal from a plain shuffle holds both jokers about once in 477 scenes.
    plain_deals = [render_full(np.random.default_rng(s), ["anglo"], IMGSZ, n_cards=3, **QUIET) for s in range(6)]
    assert sum({"BJ", "RJ"} <= {c["card"] for c in sc.cards} for sc in plain_deals) <= 1


def test_build_rejects_a_joker_share_outside_0_1(tmp_path):
    from sim.synth.dataset import build

    with pytest.raises(ValueError, match="joker_p"):
        build(tmp_path / "j", seed=0, n_train=1, n_val=0, n_test=0, joker_p=1.5)


def test_cache_writers_racing_for_one_file_each_keep_their_own_temporary(tmp_path):
    # Two processes caching the same file at once (a dataset build beside a test run) once
    # shared one temporary name: the second rename found the file gone. Here the rival
    # writer runs inside the first one's write, the tightest interleaving there is.
    target = tmp_path / "cache" / "felt.png"

    def rival(tmp):
        tmp.write_bytes(b"first")
        write_atomically(target, lambda other: other.write_bytes(b"second"))

    write_atomically(target, rival)
    assert target.read_bytes() == b"first"  # the last rename wins, whole
    assert target.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in target.parent.iterdir()] == ["felt.png"]  # no temporary left behind


def test_a_failed_cache_write_leaves_no_file_and_no_temporary(tmp_path):
    target = tmp_path / "faces.npy"

    def broken(tmp):
        tmp.write_bytes(b"half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_atomically(target, broken)
    assert list(tmp_path.iterdir()) == []


def _index_heights(scene) -> np.ndarray:
    quads = np.array([c["quad"] for c in scene.corners], float).reshape(-1, 4, 2)
    return np.linalg.norm(quads[:, 3] - quads[:, 0], axis=1)  # the index's upright height


def test_index_range_draws_index_heights_from_it_and_the_default_draws_as_before():
    from sim.synth.scene import INDEX_PX

    plain, _ = render_scene(np.random.default_rng(8), ["anglo"], IMGSZ)
    same, _ = render_scene(np.random.default_rng(8), ["anglo"], IMGSZ, index_range=INDEX_PX)
    assert plain.tobytes() == same.tobytes()  # datasets built before the option stay byte-identical
    for name, span, low, high in (("small", (10.0, 12.0), 9, 13), ("large", (40.0, 48.0), 37, 52)):
        heights = np.concatenate([_index_heights(render_full(np.random.default_rng(seed), ["anglo"], IMGSZ,
                                                             index_range=span, **QUIET)) for seed in range(4)])
        assert len(heights) >= 4, name
        assert low <= np.median(heights) <= high, name
    with pytest.raises(ValueError, match="index heights"):
        render_full(np.random.default_rng(0), ["anglo"], IMGSZ, index_range=(20.0, 10.0))


def test_build_records_the_index_range_and_rejects_a_bad_one(tmp_path):
    from sim.synth.dataset import build

    build(tmp_path / "s", seed=3, n_train=2, n_val=0, n_test=0, imgsz=160, reader_size=32, workers=1,
          index_px=(10, 14))
    assert json.loads((tmp_path / "s" / "settings.json").read_text())["index_px"] == [10.0, 14.0]
    for bad in ((14, 10), (2, 10), (10, 100), (10,)):
        with pytest.raises(ValueError, match="index heights"):
            build(tmp_path / f"b{len(bad)}{bad[0]}", seed=0, n_train=1, n_val=0, n_test=0, imgsz=160, index_px=bad)


def test_a_degraded_build_changes_train_images_only_and_is_repeatable(tiny, tmp_path):
    from sim.synth.dataset import build

    out, _ = tiny
    for name in ("a", "b"):
        build(tmp_path / name, seed=7, n_train=3, n_val=0, n_test=1, imgsz=160, reader_size=32, workers=1, degrade=1.0)
    train = sorted((out / "finder" / "images" / "train").glob("*.jpg"))
    degraded = [tmp_path / "a" / "finder" / "images" / "train" / img.name for img in train]
    assert all(img.read_bytes() != d.read_bytes() for img, d in zip(train, degraded, strict=True))
    assert all(d.read_bytes() == (tmp_path / "b" / "finder" / "images" / "train" / d.name).read_bytes()
               for d in degraded)  # the same seed, the same camera
    for split in ("test_seen", "test_unseen"):  # the benchmarks degrade test scenes themselves
        for img in (out / "finder" / "images" / split).glob("*.jpg"):
            assert img.read_bytes() == (tmp_path / "a" / "finder" / "images" / split / img.name).read_bytes()
    with pytest.raises(ValueError, match="degrade must be between 0 and 1"):
        build(tmp_path / "c", seed=0, n_train=1, n_val=0, n_test=0, degrade=1.5)


def test_plays_lay_rows_whose_cards_lie_a_sixth_to_a_third_of_a_card_apart():
    from sim.synth.layout import plays

    size = (60.0, 84.0)
    for seed in range(8):
        rng = np.random.default_rng(seed)
        placed = plays(rng, 9, (400.0, 400.0), size, float(rng.uniform(0, 6.28)), plane=800.0)
        centres = np.array([c for c, _ in placed])
        steps = np.linalg.norm(np.diff(centres, axis=0), axis=1)
        assert len(placed) == 9
        assert np.all(steps > 0.1 * size[0]) and np.all(steps < 0.4 * size[0])  # one row, tight
    # More cards than fit across the plane wrap into rows about half a card lower.
    rng = np.random.default_rng(3)
    wide = plays(rng, 24, (400.0, 400.0), size, 0.0, plane=200.0)
    ys = np.array([c[1] for c, _ in wide])
    assert ys.max() - ys.min() > 0.35 * size[1]


def test_play_p_lays_scenes_as_plays_and_zero_leaves_the_scene_alone(tmp_path):
    from sim.synth.dataset import build

    rng = lambda: np.random.default_rng(8)  # noqa: E731
    plain, _ = render_scene(rng(), ["anglo"], IMGSZ)
    zero, _ = render_scene(rng(), ["anglo"], IMGSZ, play_p=0.0)
    assert plain.tobytes() == zero.tobytes()  # datasets built before play_p stay byte-identical
    for seed in range(4):
        scene = render_full(np.random.default_rng(seed), ["anglo"], IMGSZ, play_p=1.0, index_px=14.0, **QUIET)
        assert len(scene.cards) >= 4 and all(c["face_up"] for c in scene.cards)
        assert len(scene.corners) >= len(scene.cards) // 2  # most indices just clear of the next card
    with pytest.raises(ValueError, match="play_p"):
        build(tmp_path / "p", seed=0, n_train=1, n_val=0, n_test=0, play_p=-0.1)
