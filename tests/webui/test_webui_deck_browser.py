"""The deck walk-through on a phone (390 x 844) in Chromium, to the end: lay a batch out, read it,
tap a card read in the wrong place and fix it, confirm, save; the deck's reader trains while the
page follows it by itself (the status poll moves the bar), then the page shows the reads before
and after and that the reader is switched on. The trainer is a stand-in the test steps through
(``GatedTrainer``); the camera is a rendered layout read by the shipped models.

Screenshots of the training and of the result go to ``$DECK_SHOTS`` (default: the test's
temporary folder)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from sim.synth import decks
from tests.kit.enroll_frames import FrameSession, GatedTrainer, true_labels
from tests.kit.table_site import LiveSite, phone_deck_walk_through
from tracker.detection import build_detector
from tracker.enroll import DeckEnroller
from vision.profile import DeckProfile

pytestmark = [pytest.mark.art, pytest.mark.browser]

PHONE = {"width": 390, "height": 844}


def width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def test_lay_out_read_fix_a_card_confirm_train_and_switch_on_from_a_phone(tmp_path):
    from playwright import sync_api

    shots = Path(os.environ.get("DECK_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    deck = decks.load_deck("orell")
    pipeline = FrameSession(build_detector("onnx"))
    trainer = GatedTrainer()
    enroller = DeckEnroller(pipeline, tmp_path, trainer=trainer)
    with LiveSite({"ENROLLER": enroller}) as site, sync_api.sync_playwright() as p:
        browser, page = phone_deck_walk_through(p, site)
        try:
            page.wait_for_selector("#deck-step")

            # The referee lays the first two cards the wrong way round: their cells start as the
            # plan's cards, marked where the reader read otherwise.
            batch = list(enroller.expected())
            laid = [batch[1], batch[0], *batch[2:]]
            corners = pipeline.lay_out(deck, laid, 9, seed=[3, 0])
            page.click("#deck-read")
            page.wait_for_selector("#deck-grid")
            truth = true_labels(enroller.last, corners)
            assert truth == laid
            cells = page.locator("#deck-grid .cell")
            assert cells.count() == len(enroller.last.cards) == 9
            first = cells.first
            assert first.locator("select").input_value() == batch[0]  # the plan's card, not the one lying there
            read_right = first.get_attribute("data-read") == truth[0]
            if read_right:
                assert "differs" in (first.get_attribute("class") or "")
            first.tap()  # a tap on the cell opens the card picker...
            first.locator("select").select_option(truth[0])  # ...and the referee picks the card lying there
            assert first.locator(".want").inner_text() == first.locator("select option:checked").inner_text()
            if read_right:
                assert "differs" not in (first.get_attribute("class") or "")
            for k, label in enumerate(truth[1:], 1):
                page.locator(f"select[name=card-{k}]").select_option(label)
            assert width(page) <= PHONE["width"], "the grid is wider than the phone"
            page.click("#deck-confirm")
            page.wait_for_selector("text=第 1 批已确认")
            assert enroller.batches[0].cards[0] == truth[0]  # the corner boxes of the first card, as fixed
            for _ in range(5):  # the other batches are skipped
                page.click("#deck-skip")
                page.wait_for_load_state()
            page.wait_for_selector("#deck-save")
            assert page.inner_text("#deck-save") == "保存并训练识别模型"

            # Train: the page follows the trainer by itself, step by step.
            page.click("#deck-save")
            page.wait_for_selector("#deck-training")
            assert trainer.reported[0].wait(10)
            page.wait_for_function("document.getElementById('deck-progress').textContent.includes('25%')")
            assert "正在训练本牌组的识别模型 25%" in page.inner_text("#deck-progress")
            trainer.go(1)
            page.wait_for_function("document.getElementById('deck-progress').textContent.includes('92%')",
                                   timeout=10_000)  # no reload: the poll moved it
            assert page.get_attribute(".deck-bar", "aria-valuenow") == "92"
            assert width(page) <= PHONE["width"]
            page.wait_for_timeout(500)  # the bar's own easing
            page.screenshot(path=str(shots / "deck-training.png"), full_page=True)
            trainer.go(1)
            page.wait_for_selector("#deck-on", timeout=10_000)  # the page reloaded itself when it was done
            assert page.inner_text("#deck-on") == "已启用"
            assert "训练前 80% → 训练后 95%" in page.inner_text("#deck-result")
            assert "「phone」" in page.inner_text("#deck-switch")
            assert width(page) <= PHONE["width"]
            page.screenshot(path=str(shots / "deck-switched-on.png"), full_page=True)
            # The same result in English, with no Chinese word left on the deck's part of the page.
            page.goto(f"{site.url}/referee/deck?lang=en")
            assert page.inner_text("#deck-on") == "switched on"
            assert "80%" in page.inner_text("#deck-result") and "95%" in page.inner_text("#deck-result")
            shown = page.inner_text("main")
            assert not re.search("[\u4e00-\u9fff]", shown.replace("中文", "")), shown
            assert width(page) <= PHONE["width"]
            page.screenshot(path=str(shots / "deck-switched-on-en.png"), full_page=True)
        finally:
            browser.close()
    assert pipeline.detector.profile.name == "phone" and DeckProfile.load(tmp_path / "phone.npz").name == "phone"
    assert not pipeline.paused
