"""Finishing a deck walk-through (``tracker.enroll.DeckEnroller.finish``): with a trainer, the deck's
own reader trains in a thread while the page follows its progress, and is saved and switched on,
or refused with nothing saved; without one, the score profile is saved and the confirmed batches
are written as a labelled photo folder a computer with the train extra enrolls from. One test
trains the real reader (one pass) on a rendered layout."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from tests.kit.enroll_frames import (
    READER_CLASSES,
    FrameSession,
    GatedTrainer,
    StubDetector,
    batch,
    true_labels,
)
from tracker.deck_photos import CLASSES, photos_folder, write_photos
from tracker.enroll import Batch, DeckEnroller, EnrollError
from vision.cards import CARD_IDS
from vision.labels import read_label_folder
from vision.profile import DeckProfile

art = pytest.mark.art  # renders Debian's card art (apt: deploy/system-deps.sh)

def walked_through(trainer, tmp_path, cards=("3s", "4h", "BJ")) -> tuple[FrameSession, DeckEnroller]:
    """An enroller whose walk-through of deck ``club`` has one confirmed batch of ``cards``."""
    session = FrameSession(StubDetector())
    enroller = DeckEnroller(session, tmp_path, trainer=trainer)
    enroller.begin("club", len(cards), len(cards))
    image, boxes, labels = batch(list(cards))
    enroller.batches.append(Batch(image, boxes, tuple(labels)))  # as confirm() keeps a batch read
    return session, enroller


def test_a_trainer_trains_in_the_background_then_the_deck_is_saved_and_switched_on(tmp_path):
    trainer = GatedTrainer()
    session, enroller = walked_through(trainer, tmp_path)
    training = enroller.finish()
    assert trainer.reported[0].wait(5)
    # Under way: how far it is, in both languages; refereeing paused; every other step refused.
    assert training is enroller.training and training.running and training.trained
    assert (training.fraction, training.zh, training.en) == (0.25, "正在训练 1/4", "training 1/4")
    assert session.paused and session.detector.profile is None and not (tmp_path / "club.npz").exists()
    for step in (enroller.read, lambda: enroller.begin("other"), enroller.finish, lambda: enroller.switch("")):
        with pytest.raises(EnrollError, match="training") as refused:
            step()
        assert "正在训练" in refused.value.zh
    detector, samples, name = trainer.calls[0]
    assert name == "club" and detector.reader_classes == READER_CLASSES  # the live detector, under its lock
    assert [list(cards) for _, _, cards in samples] == [["3s", "3s", "4h", "4h", "BJ", "BJ"]]
    trainer.go()
    assert training.wait(5)
    assert training.state == "saved" and training.fraction == 1.0 and training.path == tmp_path / "club.npz"
    assert training.report == {"crops": 20, "before": 0.8, "after": 0.95} and training.photos is None
    saved = DeckProfile.load(tmp_path / "club.npz")
    assert saved.cards == ("3s", "4h", "BJ") and saved.report["after"] == 0.95
    assert session.detector.profile.name == "club"  # switched on
    assert not session.paused and session.resumed == 1
    assert enroller.plan is None and enroller.saved == tmp_path / "club.npz" and enroller.saved_name == "club"
    assert not photos_folder(tmp_path, "club").exists()  # trained here: no photos to carry elsewhere


def test_a_refused_training_saves_nothing_and_keeps_the_batches_to_train_again(tmp_path):
    trainer = GatedTrainer(refuse="训练后留出的牌角读得更差（50.0% 对 75.0%），未保存 / the deck's reader read the "
                                  "held-out corners worse than the base reader (50.0% against 75.0%): not saved")
    session, enroller = walked_through(trainer, tmp_path)
    trainer.go()
    training = enroller.finish()
    assert training.wait(5)
    assert training.state == "refused" and not training.running
    assert training.zh == "训练后留出的牌角读得更差（50.0% 对 75.0%），未保存"
    assert training.en.startswith("the deck's reader read the held-out corners worse")
    assert not (tmp_path / "club.npz").exists() and session.detector.profile is None
    assert enroller.plan is not None and len(enroller.confirmed) == 1 and enroller.saved is None
    assert session.paused  # the walk-through is still under way
    trainer.refuse = None  # the referee presses Train again
    trainer.go()
    again = enroller.finish()
    assert again is not training and again.wait(5) and again.state == "saved"
    assert session.detector.profile.name == "club" and not session.paused


def test_a_trainer_that_breaks_is_a_refusal_not_a_page_training_for_ever(tmp_path):
    trainer = GatedTrainer(fail=RuntimeError("out of memory"))
    trainer.go()
    session, enroller = walked_through(trainer, tmp_path)
    training = enroller.finish()
    assert training.wait(5) and training.state == "refused"
    assert "out of memory" in training.en and "训练出错" in training.zh
    assert not (tmp_path / "club.npz").exists() and session.detector.profile is None


def test_a_profile_that_cannot_be_saved_is_not_read_with_either(tmp_path):
    trainer = GatedTrainer()
    trainer.go()
    (tmp_path / "decks").write_text("a file where the decks folder should be")
    session, enroller = walked_through(trainer, tmp_path / "decks")
    training = enroller.finish()
    assert training.wait(5) and training.state == "refused"
    assert "cannot write the profile" in training.en and "写不了牌组档案" in training.zh
    assert session.detector.profile is None and enroller.saved is None and enroller.plan is not None


def test_giving_up_while_it_trains_stops_the_trainer_and_saves_nothing(tmp_path):
    trainer = GatedTrainer()
    session, enroller = walked_through(trainer, tmp_path)
    training = enroller.finish()
    assert trainer.reported[0].wait(5)
    enroller.cancel()
    assert training.state == "cancelled" and not session.paused and enroller.plan is None
    trainer.go()  # its next progress report ends it
    assert trainer.ended.wait(5)
    for thread in threading.enumerate():
        if thread.name == "enroll-club":
            thread.join(5)
    assert training.state == "cancelled" and not (tmp_path / "club.npz").exists()
    assert session.detector.profile is None
    enroller.begin("club")  # and a new walk-through may start at once


def test_batches_written_as_photos_read_back_as_the_same_labelled_corners(tmp_path):
    first, second = batch(["3s", "10h", "RJ"], 1), batch(["Qc"], 2)
    h, w = second[0].shape[:2]
    # A box reaching past the image's edge is kept as far as it lies inside; one wholly outside is left out.
    boxes = np.array([[-6.0, 4.0, 10.0, 30.0], [w + 1.0, 2.0, w + 9.0, 20.0]])
    second = (second[0], boxes, ["Qc", "Qc"])
    folder = write_photos(photos_folder(tmp_path, "club"), "club", [first, second])
    assert folder == tmp_path / "club-photos"
    read = read_label_folder(folder)
    assert list(read.names.values()) == list(CLASSES) and read.cards == dict(enumerate(CARD_IDS))
    one, two = read.images
    assert one.path.name == "batch-1.png" and one.cards == first[2]
    np.testing.assert_allclose(one.boxes, first[1], atol=0.01)
    assert two.cards == ["Qc"]
    np.testing.assert_allclose(two.boxes, [[0.0, 4.0, 10.0, 30.0]], atol=0.01)
    # Written again, the folder holds the new batches only.
    write_photos(folder, "club", [second])
    assert [i.path.name for i in read_label_folder(folder).images] == ["batch-1.png"]
    assert "ddz-table enroll --from-labels club-photos --deck club" in (folder / "data.yaml").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def detector():
    from tracker.detection import build_detector

    return build_detector("onnx")


@art
def test_without_a_trainer_the_box_saves_the_score_profile_and_the_photos_to_train_elsewhere(detector, tmp_path):
    from cli.enroll import enrollment_samples
    from sim.synth import decks

    session = FrameSession(detector)
    enroller = DeckEnroller(session, tmp_path)
    plan = enroller.begin("plastic", 9, 5)
    corners = session.lay_out(decks.load_deck("plastic"), plan.batches[0], 5, seed=[7, 0])
    layout = enroller.read()
    kept = enroller.confirm(true_labels(layout, corners))
    training = enroller.finish()
    try:
        assert training.state == "saved" and not training.trained and training.path == tmp_path / "plastic.npz"
        assert training.photos == tmp_path / "plastic-photos"
        assert DeckProfile.load(training.path).reader_model is None  # the numpy profile only
        # What ddz-table enroll --from-labels reads of the folder: the corners the referee confirmed.
        samples = enrollment_samples(training.photos, detector)
        (image, boxes, cards), = samples.items
        np.testing.assert_array_equal(image, kept.image)
        assert sorted(cards) == sorted(kept.cards) and len(boxes) == len(kept.boxes)
        assert samples.corners.card_boxes == 0  # every box read as a corner, none as a whole card
    finally:
        detector.profile = None  # the module's detector reads without a deck again


@art
def test_the_real_trainer_tunes_the_reader_and_the_detector_reads_with_it(tmp_path):
    from cli.table import deck_trainer
    from sim.synth import decks
    from tracker.detection import build_detector

    trainer = deck_trainer(epochs=1)
    if trainer is None:
        pytest.skip("no torch or no models/reader.pt: this computer cannot train a reader")
    session = FrameSession(build_detector("onnx"))
    base_reader = session.detector.active_reader
    enroller = DeckEnroller(session, tmp_path, trainer=trainer)
    plan = enroller.begin("plastic", 6, 6)
    corners = session.lay_out(decks.load_deck("plastic"), plan.batches[0], 6, seed=[7, 0])
    enroller.confirm(true_labels(enroller.read(), corners))
    seen: list[float] = []
    training = enroller.finish()
    while not training.wait(0.2):
        seen.append(training.fraction)
    assert training.state == "saved", (training.zh, training.en)
    assert any(0 < f < 1 for f in seen) and seen == sorted(seen)  # followed as it went, never backwards
    profile = DeckProfile.load(tmp_path / "plastic.npz")
    assert profile.reader_model and set(profile.report) >= {"crops", "before", "after"}
    assert training.report["after"] >= training.report["before"]
    assert session.detector.profile.name == "plastic" and session.detector.active_reader is not base_reader
    assert not session.paused
