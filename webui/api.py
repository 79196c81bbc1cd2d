"""JSON API: the live state, matches, the rules judge, and referee actions for scripts.

- ``GET /api/state[?match=N]``: the contract of :mod:`webui.view`.
- ``GET /api/matches``: every match with its players, rules and hands played.
- ``GET /api/judge?cards=...[&after=...][&match=N]``: every reading of ``cards`` and whether it
  beats ``after`` (default: the play on the table now); one field also works: ``cards=BJ RJ > 2222``.
- ``GET /api/combination?cards=...[&match=N]``: the combination type (牌型) of ``cards`` under the
  match's rules, worded in the visitor's language (``对子 5``, ``顺子 3-7``, ``不成牌型``), for the
  referee page's keypad: ``{"cards", "valid", "text", "readings": [{"type", "name", "text"}]}``.
- ``POST /api/referee/<action>``: a JSON object of fields; a referee's session with its CSRF
  token, or the ``X-Referee-PIN`` header. Answers ``{"ok": true, "seq": n}`` or an error.
"""

from __future__ import annotations

from flask import Blueprint, jsonify, request

from engine.cards import RANK_TEXT, format_cards, parse_cards, repeated_cards
from engine.classify import classify
from engine.combination import Combination
from engine.judge import JudgeError, judge
from engine.rules import PRESETS, get_rules
from engine.words import face_name
from tracker.alerts import judge_text
from webui.app import lang, request_fields, site
from webui.auth import referee_required
from webui.fields import ActionError, id_field, shown, text_field
from webui.i18n import t, type_name
from webui.live import match_arg, unknown_match, view_for
from webui.tables import UnknownMatch

bp = Blueprint("api", __name__, url_prefix="/api")

MAX_CARDS_TEXT = 400


@bp.get("/state")
def state():
    return jsonify(view_for(match_arg()))


@bp.get("/matches")
def matches():
    the_site = site()
    out = []
    for info in the_site.store.matches():
        state = the_site.tables.state(info.id)
        out.append({**info.to_dict(), "hands": state.match.finished_hands(), "totals": state.match.totals(),
                    "ended": state.ended is not None})
    return jsonify(matches=out)


def judge_request(args) -> dict:
    """The judge's verdict for request args (raises ``ActionError`` for bad input)."""
    cards = text_field(args, "cards", required=False, limit=MAX_CARDS_TEXT)
    if not cards:
        raise ActionError("give the cards to judge (cards=...)", zh=judge_text("no_cards", "zh"))
    after = text_field(args, "after", required=False, limit=MAX_CARDS_TEXT) or None
    if after is None and ">" in cards:  # one field: "CARDS > AFTER" (要判定的牌 > 要管的牌)
        cards, _, after = (part.strip() for part in cards.partition(">"))
        if not cards or not after:
            raise ActionError("write it as CARDS > CARDS TO BEAT", zh="请写成：要判定的牌 > 要管的牌")
    rules_name = text_field(args, "rules", required=False, limit=40) or None
    rules = None
    match_id = id_field(args, "match", required=False)
    the_site = site()
    if match_id is not None or after is None or rules_name is None:
        mid = match_id if match_id is not None else the_site.tables.latest_match()
        if mid is not None:
            try:
                state = the_site.tables.state(mid)
            except UnknownMatch:
                raise unknown_match(mid) from None
            rules = state.info.rules
            hand = state.hand
            if after is None and hand is not None and hand.top is not None and not hand.finished:
                after = format_cards(hand.plays[hand.top].cards)
    if rules_name is not None:
        if rules_name not in PRESETS:
            raise ActionError(f"unknown rules preset {rules_name!r}; one of {', '.join(PRESETS)}",
                              zh=f"没有这个规则；可选 {', '.join(PRESETS)}")
        rules = get_rules(rules_name)
    try:
        return judge(cards, after, rules or get_rules("classic"))
    except JudgeError as exc:
        raise ActionError(str(exc), zh=judge_text(exc.reason, "zh", decks=(rules or get_rules("classic")).decks)) from None
    except ValueError as exc:
        raise ActionError(str(exc), zh="看不懂这些牌") from None


#: Kinds whose core is a run of ranks, named by its ends (顺子 3-7); the others by their main rank.
CHAINS = ("straight", "pair_straight", "airplane", "airplane_single", "airplane_pair")


def _rank_word(rank: int, language: str) -> str:
    text = RANK_TEXT[rank]
    return face_name(text, language)


def reading_text(reading: Combination, language: str) -> str:
    """One reading in words: its type, then its ranks (对子 5, 顺子 3-7, 三带一 3 + 4, 王炸)."""
    name = type_name(reading.type, language)
    if reading.type == "rocket":
        return name
    ranks = sorted({c.rank for c in reading.core})
    if reading.type in CHAINS:
        core = f"{_rank_word(ranks[0], language)}-{_rank_word(ranks[-1], language)}"
    else:
        core = _rank_word(reading.main, language)
        if reading.type == "bomb" and reading.size > 4:  # two decks: bombs of 5 to 8 cards
            core += " " + t("kp_cards_n", language, n=reading.size)
    text = f"{name} {core}"
    if reading.kickers:
        text += " + " + " ".join(_rank_word(c.rank, language) for c in reading.kickers)
    return text


def _match_rules(args):
    """The rules of ``match`` (default: the latest match), or classic when there is none."""
    the_site = site()
    match_id = id_field(args, "match", required=False)
    mid = match_id if match_id is not None else the_site.tables.latest_match()
    if mid is None:
        return get_rules("classic")
    try:
        return the_site.tables.state(mid).info.rules
    except UnknownMatch:
        raise unknown_match(mid) from None


def combination_request(args, language: str) -> dict:
    """The keypad's answer for request args: the type of ``cards`` (raises ``ActionError``)."""
    text = text_field(args, "cards", required=False, limit=MAX_CARDS_TEXT)
    if not text:
        raise ActionError("give the cards (cards=...)", zh=judge_text("no_cards", "zh"))
    try:
        cards = parse_cards(text)
    except ValueError as exc:
        raise ActionError(str(exc), zh=f"看不懂这些牌：{shown(text)}") from None
    rules = _match_rules(args)
    repeated = repeated_cards(cards, rules.decks)
    readings = [] if repeated else classify(cards, rules)
    answer: dict = {"cards": format_cards(cards), "valid": bool(readings),
                    "readings": [{"type": r.type, "name": type_name(r.type, language), "text": reading_text(r, language)}
                                 for r in readings]}
    if repeated:
        answer["text"] = judge_text("duplicate_card", language, cards=format_cards(repeated), decks=rules.decks)
    elif not readings:
        answer["text"] = t("not_combo", language)
    else:
        answer["text"] = " / ".join(dict.fromkeys(r["text"] for r in answer["readings"]))
    return answer


@bp.get("/combination")
def combination_view():
    return jsonify(combination_request(request.args, lang()))


@bp.get("/judge")
def judge_view():
    return jsonify(judge_request(request.args))  # a refusal is answered by the app's ActionError handler


@bp.post("/referee/<action>")
@referee_required
def referee_action(action: str):
    seq = site().desk.perform(action, request_fields())
    key = "match" if action == "start_match" else "seq"
    return jsonify({"ok": True, key: seq})
