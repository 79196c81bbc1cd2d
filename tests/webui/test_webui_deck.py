"""The referee's deck walk-through (``/referee/deck``): PIN-only, explains itself without a camera,
and steps through read, fix, confirm and save on a live pipeline whose frame is a rendered layout
of a held-out deck; bad input is a 400 with a message, never a 5xx. Saving trains the deck's
reader where the box can: the page follows the training (its status as JSON), then shows the
reads before and after and that it is switched on, or why nothing was saved; a box that cannot
train says how to train on a computer. An unfamiliar-deck alert offers the walk-through."""

from __future__ import annotations

import html
import re

import numpy as np
import pytest

from sim.synth import decks
from sim.toy import ToyDetector
from tests.kit.enroll_frames import FrameSession, GatedTrainer, StubDetector, batch, true_labels
from tests.kit.table_site import PIN, LiveSite, phone_deck_walk_through, referee_client
from tracker.detection import build_detector
from tracker.enroll import Batch, DeckEnroller
from vision.profile import DeckProfile, fit
from webui import create_app

art = pytest.mark.art  # renders Debian's card art (apt: deploy/system-deps.sh)


@pytest.fixture(scope="module")
def detector():
    return build_detector("onnx")


@pytest.fixture
def site_with(store):
    """``site_with(enroller)``: a logged-in referee's client of an app with that enroller."""
    apps = []

    def make(enroller):
        app = create_app({"REFEREE_PIN": PIN, "TESTING": True}, store=store, enroller=enroller)
        apps.append(app)
        return referee_client(app)

    yield make
    for app in apps:
        app.extensions["ddz"].watcher.stop()


def post(c, step, **fields):
    return c.post(f"/referee/deck/{step}", data={"csrf": c.csrf, **fields})


def text(response) -> str:
    return html.unescape(response.get_data(as_text=True))


def test_the_page_is_the_referees_only(client):
    response = client.get("/referee/deck")
    assert response.status_code == 302 and response.headers["Location"].endswith("/referee/login")
    assert client.post("/referee/deck/start", data={"name": "club"}).status_code == 302


def test_without_a_camera_the_page_explains_and_gives_the_command_line_way(referee):
    page = text(referee.get("/referee/deck"))
    assert "录入牌组要用摄像头" in page and "ddz-table run" in page
    assert "ddz-table enroll --from-labels" in page
    english = text(referee.get("/referee/deck", query_string={"lang": "en"}))
    assert "enrolling a deck needs the camera" in english.lower()
    response = referee.post("/referee/deck/start", data={"csrf": referee.csrf, "name": "club"})
    assert response.status_code == 400 and "ddz-table run" in text(response)


def test_a_detector_without_a_reader_is_explained(site_with):
    c = site_with(DeckEnroller(FrameSession(ToyDetector())))
    page = text(c.get("/referee/deck", query_string={"lang": "en"}))
    assert "no index reader" in page and 'id="deck-start-form"' not in page
    response = post(c, "start", name="club")
    assert response.status_code == 400 and "no index reader" in text(response)  # the page's language, English now


def test_bad_input_is_a_400_with_a_message(site_with, detector):
    pipeline = FrameSession(detector)
    c = site_with(DeckEnroller(pipeline))
    for fields, words in ((dict(name="../etc"), "牌组名只能用"), (dict(name="club", batch="lots"), "batch"),
                          (dict(name="club", batch="0"), "batch"), (dict(name="club", batch="9", per_row="10"), "每行"),
                          (dict(name="\x00"), "控制字符"), (dict(), "name")):
        response = post(c, "start", **fields)
        assert response.status_code == 400, fields
        assert words in text(response) and 'id="refusal"' in text(response)
    assert c.post("/referee/deck/start", data={"name": "club"}).status_code == 400  # no CSRF token
    for step in ("read", "confirm", "skip", "save"):  # nothing started
        response = post(c, step)
        assert response.status_code == 400 and 'id="refusal"' in text(response), step
    assert post(c, "start", name="club", batch="9", per_row="5").status_code == 303
    pipeline.show(np.full((200, 300, 3), 80, np.uint8))
    response = post(c, "read")
    assert response.status_code == 400 and "一张牌也没读到" in text(response)
    response = post(c, "confirm", read="1", **{"card-0": "3s"})
    assert response.status_code == 400 and "请先读取" in text(response)
    assert post(c, "save").status_code == 400
    assert post(c, "cancel").status_code == 303 and not pipeline.paused


def cells(page: str) -> list[dict]:
    """The grid's cells: the read, the label chosen, whether it is marked as differing."""
    out = []
    for cls, read, body in re.findall(r'<label class="cell([^"]*)"[^>]*data-read="([^"]*)"[^>]*>(.*?)</label>', page, re.S):
        chosen = re.search(r'<option value="([^"]*)"[^>]*selected', body)
        out.append({"read": read, "label": chosen.group(1) if chosen else None, "differs": "differs" in cls})
    return out


@art
def test_read_fix_a_cell_confirm_and_save(site_with, tmp_path):
    deck = decks.load_deck("orell")
    pipeline = FrameSession(build_detector("onnx"))
    enroller = DeckEnroller(pipeline, tmp_path)
    c = site_with(enroller)
    assert post(c, "start", name="club", batch="9", per_row="5").status_code == 303
    page = text(c.get("/referee/deck"))
    assert "第 1 批，共 6 批" in page and page.count('class="card ') == 9
    # The referee swaps the first two cards by mistake: the reads there differ from the plan.
    batch = list(enroller.expected())
    laid = [batch[1], batch[0], *batch[2:]]
    corners = pipeline.lay_out(deck, laid, 5, seed=[3, 0])
    assert post(c, "read").status_code == 303
    page = text(c.get("/referee/deck"))
    shown = cells(page)
    truth = true_labels(enroller.last, corners)
    assert truth == laid and [s["read"] for s in shown] == [r.card for r in enroller.last.cards]
    assert [s["label"] for s in shown] == batch  # each cell starts as the card the plan puts there
    assert shown[0]["differs"] and shown[1]["differs"]  # read 3h where 3s belongs, and back
    number = re.search(r'name="read" value="(\d+)"', page).group(1)
    fields = {f"card-{k}": label for k, label in enumerate(batch)}
    fields["card-0"] = batch[0]  # a careless fix: the same card twice, one card short
    fields["card-1"] = batch[0]
    response = post(c, "confirm", read=number, **fields)
    assert response.status_code == 400 and "这一批应有 9 张牌" in text(response)
    assert cells(text(response))[1]["label"] == batch[0]  # the page keeps what was entered
    response = post(c, "confirm", read="999", **{f"card-{k}": v for k, v in enumerate(truth)})
    assert response.status_code == 400 and "重新读取" in text(response)
    response = post(c, "confirm", read=number, **{**{f"card-{k}": v for k, v in enumerate(truth)}, "card-4": "ZZ"})
    assert response.status_code == 400 and "card-4" in text(response)
    response = post(c, "confirm", read=number, **{f"card-{k}": v for k, v in enumerate(truth)})
    assert response.status_code == 303
    assert "第 1 批已确认" in text(c.get("/referee/deck"))
    kept = enroller.batches[0]
    assert kept is not None and set(kept.card_ids) == set(batch)
    assert kept.cards[0] == batch[1]  # the first card read is labelled with the card really laid there
    for _ in range(5):  # the other batches are skipped: their cards read as before
        assert post(c, "skip").status_code == 303
    page = text(c.get("/referee/deck"))
    assert "录入了 9 张牌" in page and 'id="deck-save"' in page
    assert post(c, "save").status_code == 303
    page = text(c.get("/referee/deck", query_string={"lang": "en"}))
    assert "Deck club saved" in page and 'deck = "club"' in page and f"--deck {tmp_path / 'club.npz'}" in page
    # No trainer on this box: the photos it saved, and how a computer trains the reader from them.
    assert 'id="deck-photos"' in page and str(tmp_path / "club-photos") in page
    assert "ddz-table enroll --from-labels club-photos --deck club --out club.npz" in page
    assert str(tmp_path) in page.split('id="deck-photos"')[1]  # where the .npz goes back to
    zh = text(c.get("/referee/deck", query_string={"lang": "zh"}))
    assert "在电脑上训练识别模型" in zh and "已启用" in zh and "保存并训练" not in zh
    profile = DeckProfile.load(tmp_path / "club.npz")
    assert set(profile.cards) == set(batch) and pipeline.detector.profile is not None
    assert not pipeline.paused


@art
@pytest.mark.browser
def test_the_walk_through_on_a_phone(tmp_path):
    from playwright import sync_api

    deck = decks.load_deck("tigullio")
    pipeline = FrameSession(build_detector("onnx"))
    enroller = DeckEnroller(pipeline, tmp_path)
    with LiveSite({"ENROLLER": enroller}) as site, sync_api.sync_playwright() as p:
        browser, page = phone_deck_walk_through(p, site)
        corners = pipeline.lay_out(deck, enroller.expected(), 9, seed=[5, 0])
        page.click("#deck-read")
        page.wait_for_selector("#deck-grid")
        assert page.locator("#deck-grid .cell").count() == len(enroller.last.cards)
        first = page.locator("#deck-grid .cell").first
        first.locator("select").select_option("RJ")  # a tap on the cell: the label changes...
        assert first.locator(".want").inner_text() == "大王" and "differs" in first.get_attribute("class")
        truth = true_labels(enroller.last, corners)
        first.locator("select").select_option(truth[0])  # ...and back to the card lying there
        assert first.locator(".want").inner_text() == first.locator("select option:checked").inner_text()
        for k, label in enumerate(truth):
            page.locator(f"select[name=card-{k}]").select_option(label)
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= 390, f"the page is {wide} px wide on a 390 px phone"
        page.click("#deck-confirm")
        page.wait_for_selector("#deck-step")
        for _ in range(5):
            page.click("#deck-skip")
            page.wait_for_load_state()
        page.click("#deck-save")
        page.wait_for_selector("#deck-saved")
        assert "phone" in page.inner_text("#deck-saved")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        # switching decks on the phone: back to none, then the saved one again
        assert "「phone」" in page.inner_text("#deck-switch")
        page.select_option("#deck-use-form select", "")
        page.click("#deck-use")
        page.wait_for_selector("#deck-switch")
        assert pipeline.detector.profile is None and "没有用录入的牌组" in page.inner_text("#deck-switch")
        page.select_option("#deck-use-form select", "phone")
        page.click("#deck-use")
        page.wait_for_selector("#deck-switch")
        assert pipeline.detector.profile.name == "phone"
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.screenshot(path=str(tmp_path / "deck-switch.png"), full_page=True)
        browser.close()
    assert DeckProfile.load(tmp_path / "phone.npz").name == "phone"


def test_run_hands_its_pipeline_to_the_deck_page_saving_in_the_boxs_data_folder(tmp_path, monkeypatch):
    import argparse

    import webui
    from box.config import Config
    from cli.table import _serve
    from sim.toy_table import ToyTable
    from tracker.session import TableSession
    from tracker.store import EventStore

    made = []

    def create_app(*args, **kwargs):
        made.append(webui_create_app(*args, **kwargs))
        return made[-1]

    webui_create_app = webui.create_app
    monkeypatch.setattr(webui, "create_app", create_app)
    store = EventStore(":memory:")
    pipeline = TableSession(None, ToyTable().calibration(), ToyDetector(), store, store.create_match(("a", "b", "c")))
    args = argparse.Namespace(camera_view=False, pin=PIN, host="127.0.0.1", port=0)
    server = _serve(store, pipeline, args, Config(data_dir=str(tmp_path)))
    try:
        enroller = made[0].extensions["ddz"].enroller
        assert enroller.session is pipeline and enroller.saved_folder() == tmp_path / "decks"
        page = text(referee_client(made[0]).get("/referee/deck", query_string={"lang": "en"}))
        assert "no index reader" in page  # the toy detector: the page says why, not a 5xx
    finally:
        server.close()
        made[0].extensions["ddz"].watcher.stop()


def test_the_referee_switches_the_table_between_saved_decks_and_none(site_with, detector, tmp_path):
    classes = detector.reader_classes
    probs = np.random.default_rng(3).dirichlet(np.full(len(classes), 0.3), size=6).astype(np.float32)
    fit("club", classes, probs, ["7c", "7s", "Qh", "7c", "7s", "Qh"]).save(tmp_path / "club.npz")
    (tmp_path / "broken.npz").write_bytes(b"not a profile")
    pipeline = FrameSession(detector)
    c = site_with(DeckEnroller(pipeline, tmp_path))
    page = text(c.get("/referee/deck"))
    assert 'id="deck-switch"' in page and "现在没有用录入的牌组" in page
    assert '<option value="club">club</option>' in page and '<option value="broken">' in page
    response = post(c, "use", deck="club")
    assert response.status_code == 303 and pipeline.detector.profile.name == "club"
    assert "已改用牌组「club」" in text(c.get("/referee/deck"))  # said once, as the page comes back
    for deck, words in (("broken", "用不了"), ("nosuch", "没有保存过牌组 nosuch"), ("../x", "牌组名只能用")):
        response = post(c, "use", deck=deck)
        assert response.status_code == 400 and words in text(response), deck
        assert pipeline.detector.profile.name == "club"  # a refused switch changes nothing
    assert "Reading with the deck profile club." in text(c.get("/referee/deck", query_string={"lang": "en"}))
    assert post(c, "use", deck="").status_code == 303 and pipeline.detector.profile is None


def laid_out(c, enroller) -> None:
    """Start a walk-through of one batch (all 54 cards a batch) and keep a batch of three cards as
    confirmed, as the grid's confirm does: the page is at its last step, save."""
    assert post(c, "start", name="club", batch="54", per_row="9").status_code == 303
    image, boxes, labels = batch(["3s", "4h", "BJ"])
    enroller.batches.append(Batch(image, boxes, tuple(labels)))


def test_saving_trains_the_reader_and_the_page_follows_it_to_switched_on(site_with, tmp_path):
    trainer = GatedTrainer()
    pipeline = FrameSession(StubDetector())
    enroller = DeckEnroller(pipeline, tmp_path, trainer=trainer)
    c = site_with(enroller)
    laid_out(c, enroller)
    page = text(c.get("/referee/deck"))
    assert "保存并训练识别模型" in page and "训练本牌组自己的识别模型" in page
    assert c.get("/referee/deck/status").get_json() == {"state": None}
    assert post(c, "save").status_code == 303
    assert trainer.reported[0].wait(5)
    page = text(c.get("/referee/deck"))
    assert 'id="deck-training"' in page and "正在训练本牌组的识别模型 25% · 正在训练 1/4" in page
    assert 'aria-valuenow="25"' in page and '<meta http-equiv="refresh"' in page  # a page without scripts reloads
    assert 'id="deck-grid"' not in page and 'id="deck-save"' not in page and 'id="deck-cancel"' in page
    status = c.get("/referee/deck/status", query_string={"lang": "en"}).get_json()
    assert status["state"] == "training" and status["percent"] == 25
    assert status["line"] == "Training the deck's reader 25% · training 1/4" and status["seconds"] >= 0
    for step, fields in (("start", {"name": "other"}), ("use", {"deck": ""}), ("save", {})):
        response = post(c, step, **fields)
        assert response.status_code == 400 and "正在训练本牌组的识别模型，请等它完成" in text(response), step
    trainer.go()
    assert enroller.training.wait(5)
    assert c.get("/referee/deck/status").get_json()["state"] == "saved"
    page = text(c.get("/referee/deck"))
    assert 'id="deck-training"' not in page and "http-equiv" not in page
    assert "已保存牌组 club" in page and 'id="deck-on">已启用' in page
    assert "留出检验的牌角读对：训练前 80% → 训练后 95%（20 个牌角）" in page
    assert 'id="deck-photos"' not in page  # trained here: nothing to carry to a computer
    english = text(c.get("/referee/deck", query_string={"lang": "en"}))
    assert "Held-out corners read right: 80% before → 95% after (20 corners)." in english and "switched on" in english
    assert pipeline.detector.profile.name == "club" and (tmp_path / "club.npz").is_file()


def test_a_refused_training_says_why_saves_nothing_and_offers_another_try(site_with, tmp_path):
    trainer = GatedTrainer(refuse="训练后留出的牌角读得更差（50.0% 对 75.0%），未保存 / the deck's reader read the "
                                  "held-out corners worse than the base reader (50.0% against 75.0%): not saved")
    trainer.go()
    pipeline = FrameSession(StubDetector())
    enroller = DeckEnroller(pipeline, tmp_path, trainer=trainer)
    c = site_with(enroller)
    laid_out(c, enroller)
    assert post(c, "save").status_code == 303
    assert enroller.training.wait(5)
    page = text(c.get("/referee/deck"))
    assert 'id="deck-train-refused"' in page and "没有保存: 训练后留出的牌角读得更差（50.0% 对 75.0%），未保存" in page
    assert "再训练一次" in page and 'id="deck-cancel"' in page and 'id="deck-saved"' not in page
    status = c.get("/referee/deck/status", query_string={"lang": "en"}).get_json()
    assert status["state"] == "refused" and "worse than the base reader" in status["words"]
    assert "Train again" in text(c.get("/referee/deck", query_string={"lang": "en"}))
    assert not (tmp_path / "club.npz").exists() and pipeline.detector.profile is None
    assert post(c, "cancel").status_code == 303 and not pipeline.paused
    assert 'id="deck-start-form"' in text(c.get("/referee/deck"))


def test_the_training_status_is_the_referees_only(client):
    response = client.get("/referee/deck/status")
    assert response.status_code == 302 and response.headers["Location"].endswith("/referee/login")


def test_an_unfamiliar_deck_alert_offers_the_walk_through(referee, client, store):
    from engine.events import Bid, Deal
    from tests.kit.table_site import fragment_html, new_match
    from tracker.records import Alert

    mid = new_match(store)
    for event in (Deal(counts=(17, 17, 17)), Bid(0, "bid", 3),
                  Alert("unfamiliar_deck", data={"read": 400, "unsure": 90})):
        store.append(mid, 1, event)
    page = text(referee.get("/referee"))
    alert = page.split('id="ref-alerts"')[1].split("</ul>")[0]
    assert "不熟悉的牌组" in alert and '<a class="button enroll-deck" href="/referee/deck">录入这副牌</a>' in alert
    english = text(referee.get("/referee", query_string={"lang": "en"}))
    assert 'href="/referee/deck">Enroll this deck</a>' in english
    # The live page's fragment is one for every viewer (rendered once, sent to all): no referee's link there.
    assert "不熟悉的牌组" in fragment_html(client) and "enroll-deck" not in fragment_html(referee)
