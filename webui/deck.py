"""The referee's deck walk-through (``/referee/deck``): teach the box the club's own deck.

The page steps through :class:`tracker.enroll.DeckEnroller`, which the live pipeline's command
hands to the app (``run`` and the demo's camera feed): the deck's name and the batch sizes;
then batch k of n (lay these cards out in rows, read, fix what was misread, confirm); then save.
Every step is a form posting to this blueprint; a refused step shows the page again with why
(a 400), and what is under way stays with the enroller, on the box, so a reloaded page or another
phone picks the walk-through up where it is. Without a camera (plain ``serve``) the page says
how to enroll from the command line instead.

Saving trains the deck's own reader where the box can (the enroller has a trainer): the page
shows how far it is and follows it by itself (``GET /referee/deck/status``, JSON, polled by
``deck.js``; a page without scripts refreshes itself), then what the reader reads right on the
corners held out, before and after, and that it is switched on; or why it was refused. A box
that cannot train saves the score profile and says, step by step, how a computer trains the
reader from the labelled photos it wrote.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, jsonify, redirect, render_template, request, url_for

from engine.cards import Card
from engine.words import card_name
from tracker.enroll import BATCH_SIZE, DECK_CARDS, NOT_A_CARD, PER_ROW, DeckEnroller, EnrollError, Training
from tracker.paths import decks_dir
from webui.app import lang, site
from webui.auth import referee_required
from webui.fields import ActionError, int_field, shown, text_field
from webui.i18n import t
from webui.view import card_parts

bp = Blueprint("referee_deck", __name__, url_prefix="/referee/deck")

#: The longest a deck's name may be (``vision.profile.NAME_PATTERN`` says the rest).
MAX_NAME = 64
#: How often a page without scripts reloads itself while the reader trains, in seconds.
REFRESH_S = 3


def enroller() -> DeckEnroller | None:
    return site().enroller


def face(card: str, language: str) -> dict[str, Any]:
    """A card as the page draws it: rank and suit (``10`` ``♥``) or the joker's name."""
    parts = card_parts(Card.parse(card))
    if parts["joker"]:
        parts["rank"] = card_name(parts["joker"], language)
    parts["id"] = card
    parts["label"] = parts["rank"] + parts["suit"]
    return parts


def _refused(exc: EnrollError | ActionError) -> str:
    if isinstance(exc, EnrollError):
        return exc.zh if lang() == "zh" else exc.en
    return exc.text(lang())


def _cells(e: DeckEnroller, language: str) -> list[dict[str, Any]]:
    """The last read's cards for the grid: where each lies, what was read, what the plan puts
    there (the label it starts with; a place the plan has no card for starts as no card)."""
    if e.last is None:
        return []
    cells = []
    for k, card in enumerate(e.last.cards):
        expected = e.expected_at(card)
        cells.append({"k": k, "row": card.row, "column": card.column, "read": face(card.card, language),
                      "label": expected or NOT_A_CARD,
                      "alternatives": [face(c, language)["label"] for c, _ in card.alternatives[:2]]})
    return cells


def _percent(value: Any) -> int | None:
    return round(100 * float(value)) if isinstance(value, int | float) else None


def training_view(training: Training | None, language: str) -> dict[str, Any] | None:
    """The last finish as the page and the status endpoint show it: its state, how far (per
    cent), the line saying so, seconds since it started; when saved, the share of held-out
    corners read right before and after (per cent) and how many; when refused, why."""
    if training is None:
        return None
    words = training.zh if language == "zh" else training.en
    percent = round(100 * training.fraction)
    view = {"state": training.state, "name": training.name, "trained": training.trained, "percent": percent,
            "seconds": round(training.seconds), "words": words,
            "line": t("deck_training_line", language, percent=percent, doing=words)}
    if training.state == "saved":
        report = training.report
        view.update(before=_percent(report.get("before")), after=_percent(report.get("after")),
                    crops=report.get("crops"))
    return view


def _page(refusal: str | None = None, status: int = 200, entered: dict | None = None):
    e, language = enroller(), lang()
    why = e.unavailable() if e is not None else None
    no_camera = e is None or why is not None
    plan = e.plan if e is not None and not no_camera else None
    rows, cells, columns, batch_count = [], [], 0, 0
    if e is not None and plan is not None and e.expected() is not None:
        rows = [[face(c, language) for c in row] for row in plan.rows(e.batch_number)]
        batch_count = sum(len(row) for row in rows)
        cells = _cells(e, language)
        columns = max([plan.per_row] + [c["column"] + 1 for c in cells])
    saved: dict[str, Any] | None = None
    if e is not None and e.saved is not None and plan is None:
        arg = e.saved_name if e.saved.parent == decks_dir() else str(e.saved)
        saved = {"name": e.saved_name, "path": str(e.saved), "arg": arg, "folder": str(e.saved.parent)}
        photos = e.training.photos if e.training is not None and e.training.state == "saved" else None
        if photos is not None:
            saved["photos"] = {"path": str(photos), "dir": photos.name}
    training = training_view(e.training, language) if e is not None and not no_camera else None
    choices = [face(c, language) for c in DECK_CARDS]
    return render_template(
        "deck.html", e=e, plan=plan, no_camera=no_camera, training=training, refresh_s=REFRESH_S,
        can_train=e is not None and e.trainer is not None,
        why=(why.zh if language == "zh" else why.en) if why is not None else None,
        rows=rows, cells=cells, columns=columns, batch_count=batch_count, choices=choices, saved=saved, refusal=refusal,
        entered=entered or {}, read_id=e.last.number if e is not None and e.last is not None else 0,
        defaults={"batch": BATCH_SIZE, "per_row": PER_ROW}, not_a_card=NOT_A_CARD,
        cards_enrolled=sum(len(b.card_ids) for b in e.confirmed) if e is not None else 0,
        decks=e.profiles() if e is not None and not no_camera else [],
        in_use=e.in_use() if e is not None and not no_camera else None), status


def _step(action):
    """Run ``action(enroller)``; a refusal shows the page again with why, as a 400."""
    e = enroller()
    fields = request.form.to_dict()
    fields.pop("csrf", None)
    try:
        if e is None:
            why = DeckEnroller(None).unavailable()  # no camera: its words
            assert why is not None
            raise why
        done = action(e, fields)
    except (EnrollError, ActionError) as exc:
        return _page(f"{t('refused', lang())}: {_refused(exc)}", 400, fields)
    if done:
        flash(done, "ok")
    return redirect(url_for("referee_deck.page")), 303


@bp.get("")
@referee_required
def page():
    return _page()


@bp.get("/status")
@referee_required
def status():
    """Where the last finish stands (:func:`training_view`), for the page to follow a training."""
    e = enroller()
    view = training_view(e.training if e is not None else None, lang())
    return jsonify(view or {"state": None})


@bp.post("/start")
@referee_required
def start():
    def act(e: DeckEnroller, fields: dict) -> str:
        name = text_field(fields, "name", limit=MAX_NAME)
        batch = int_field(fields, "batch", required=False, low=1, high=len(DECK_CARDS), default=BATCH_SIZE)
        per_row = int_field(fields, "per_row", required=False, low=1, high=len(DECK_CARDS), default=PER_ROW)
        e.begin(name, batch, per_row)
        return ""
    return _step(act)


@bp.post("/read")
@referee_required
def read():
    def act(e: DeckEnroller, fields: dict) -> str:
        if e.plan is None or e.expected() is None:
            raise EnrollError("没有要读取的批次：请先开始录入", "no batch to read: start an enrollment first")
        e.read()
        return ""
    return _step(act)


@bp.post("/confirm")
@referee_required
def confirm():
    def act(e: DeckEnroller, fields: dict) -> str:
        last = e.last
        if last is None:
            raise EnrollError("请先读取这一批", "read this batch first")
        if str(fields.get("read", "")) != str(last.number):
            raise EnrollError("这一批刚被重新读取过：请看新的结果再确认",
                              "this batch was read again meanwhile: check the new reads, then confirm")
        labels = []
        for k in range(len(last.cards)):
            label = fields.get(f"card-{k}")
            if label is None:
                raise ActionError(f"missing field 'card-{k}'", zh=f"缺少 card-{k}")
            if label != NOT_A_CARD and label not in DECK_CARDS:
                raise ActionError(f"card-{k} must be a card id such as 10h or BJ, not {shown(label)}",
                                  zh=f"card-{k} 不是一张牌")
            labels.append(label)
        number = e.batch_number + 1
        e.confirm(labels)
        return t("deck_confirmed", lang(), k=number)
    return _step(act)


@bp.post("/skip")
@referee_required
def skip():
    def act(e: DeckEnroller, fields: dict) -> str:
        e.skip()
        return ""
    return _step(act)


@bp.post("/save")
@referee_required
def save():
    def act(e: DeckEnroller, fields: dict) -> str:
        if e.plan is None:
            raise EnrollError("没有要保存的牌组：请先开始录入", "no deck to save: start an enrollment first")
        if e.expected() is not None:
            raise EnrollError("还有没确认的批次", "some batches are not confirmed yet")
        e.finish()
        return ""  # the page itself now says how the training goes, or that the deck is saved
    return _step(act)


@bp.post("/use")
@referee_required
def use():
    def act(e: DeckEnroller, fields: dict) -> str:
        name = fields.get("deck", "")
        if not isinstance(name, str):
            raise ActionError("deck must be a deck's name", zh="牌组名不对")
        now = e.switch(name.strip())
        return t("deck_using", lang(), name=now) if now else t("deck_using_none", lang())
    return _step(act)


@bp.post("/cancel")
@referee_required
def cancel():
    def act(e: DeckEnroller, fields: dict) -> str:
        e.cancel()
        return t("deck_cancelled", lang())
    return _step(act)
