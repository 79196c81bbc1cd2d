"""Every kind of alert the table raises, and its wording: the one table the site, the
referee page and the exports read.

An alert (or an engine :class:`~engine.violations.Violation`) is stored as data: its kind,
the seat concerned, the cards, and named fields. Its sentence is rendered when it is shown,
from the table below, in the reader's language, with the match's player names.

:data:`ALERTS` maps a kind to an :class:`AlertKind`: its short name and its message template,
Chinese first, and a severity. Templates use these fields:

- ``{player}``: the alert's seat as the player's name (``3 号位`` / ``seat 3`` when names
  are unknown); ``{seat}``: that seat counted from 1.
- ``{cards}``, ``{suggestion}``: card text of the alert's cards and the likely correct read.
- the alert's own ``data``; those naming a seat (:data:`SEAT_FIELDS`) show as a player, as
  ``{player}`` does; ``{cause}`` names another kind by its short name; ``{reason}`` is the
  wording of a cause in :data:`REASONS`, for kinds with several causes (``wrong_phase``).

A template whose fields an alert lacks cannot be rendered; the alert then shows the text it
was stored with (stores written before alerts were data hold their sentences), else the
kind's short name.

>>> render("out_of_turn", "zh", seat=0, data={"expected": 2}, players=("甲", "乙", "丙"))
'没轮到 甲 出牌，轮到的是 丙'
>>> render("not_announced", "en", seat=1, data={"left": 2})
'seat 2 must announce the cards left (2)'
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import parse_cards
from engine.record_text import cards_text
from engine.words import LANGS, type_name

#: ``fault``: a player broke a rule; ``doubt``: the camera is unsure, a person should look;
#: ``notice``: a reminder or a note; ``record``: an entry or a stored event the rules refuse.
SEVERITIES = ("fault", "doubt", "notice", "record")


@dataclass(frozen=True)
class AlertKind:
    """One kind's words: its short name and message template in Chinese, then in English."""

    name_zh: str
    name_en: str
    zh: str
    en: str
    severity: str

    def name(self, lang: str) -> str:
        return self.name_zh if lang == "zh" else self.name_en

    def template(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


ALERTS: dict[str, AlertKind] = {
    # Faults of docs/rules.md section 8, found by engine.violations.
    "illegal_combination": AlertKind(
        "不成牌型", "illegal combination",
        "{player} 出的 {cards} 不成牌型（{rules} 规则）",
        "{player}: {cards} is not a combination under {rules} rules", "fault"),
    "does_not_beat": AlertKind(
        "管不上", "does not beat",
        "{player}的{cards} 管不上 {other}的{beaten}",
        "{player}: {cards} does not beat {beaten} ({other})", "fault"),
    "out_of_turn": AlertKind(
        "没轮到", "out of turn",
        "没轮到 {player} 出牌，轮到的是 {expected}",
        "{player} acted out of turn; it is {expected}'s turn", "fault"),
    "too_many_cards": AlertKind(
        "手牌不够", "more cards than in hand",
        "{player} 出了 {count} 张牌，手里只有 {held} 张",
        "{player} plays {count} cards but holds {held}", "fault"),
    "duplicate_card": AlertKind(
        "重复的牌", "duplicate card",
        "{card} 重复出现：{reason}",
        "{card} was {reason}", "fault"),
    "not_held": AlertKind(
        "手中没有这张牌", "card not held",
        "{player} 手中没有 {card}",
        "{player} does not hold {card}", "fault"),
    "bomb_quota": AlertKind(
        "炸弹超出限额", "bomb quota used",
        "{player} 的炸弹已用完（限 {quota} 个）",
        "{player} already played {quota} bomb(s), the quota", "fault"),
    "cannot_pass": AlertKind(
        "首出不能不出", "the leader cannot pass",
        "{player} 是首出，不能不出",
        "{player} leads and may not pass", "fault"),
    "bad_bid": AlertKind(
        "叫牌不合规", "illegal bid",
        "{player}：{reason}",
        "{player}: {reason}", "fault"),
    "not_started": AlertKind(
        "牌局未开始", "hand not dealt",
        "还没发牌",
        "nothing can be entered before the deal", "record"),
    "finished": AlertKind(
        "牌局已结束", "hand over",
        "本局已结束",
        "the hand has ended", "record"),
    "wrong_phase": AlertKind(
        "此时不能这样做", "not at this point",
        "{reason}",
        "{reason}", "record"),
    "bad_kitty": AlertKind(
        "底牌不对", "wrong kitty",
        "{reason}",
        "{reason}", "record"),
    "bad_deal": AlertKind(
        "发牌不对", "bad deal",
        "{reason}",
        "{reason}", "record"),
    "bad_correction": AlertKind(
        "更正无效", "correction refused",
        "{reason}",
        "{reason}", "record"),
    "bad_seat": AlertKind(
        "没有这个座位", "no such seat",
        "{seat} 号位不存在（本桌 {players} 人）",
        "seat {seat} does not exist at a {players}-player table", "record"),
    # The camera referee's own alerts (tracker.referee, tracker.state).
    "uncertain_read": AlertKind(
        "看不清的牌", "uncertain read",
        "{player} 的牌看不清：读到 {cards}（{cause}），可能是 {suggestion}",
        "{player}: read {cards}, which the rules refuse ({cause}); probably {suggestion}", "doubt"),
    "missed_play": AlertKind(
        "可能漏读了一手牌", "a play probably missed",
        "{player} 的 {cards} 管不上 {other} 的 {beaten}，像是新一轮首出：可能漏读了 {player} "
        "压过它的一手牌（或这一手中的一张牌）；补录漏读的牌后，这一手会自动记上",
        "{player}: {cards} does not beat {beaten} ({other}) but reads as a lead: a play of {player} "
        "that took the trick, or a card of this play, was probably not read; enter the missed play "
        "and this one is recorded after it", "doubt"),
    "late_card": AlertKind(
        "迟读到的牌", "card read late",
        "{player} 的 {before} 读完后又读到 {late}，请核对这一手牌",
        "{player}: {late} appeared in the zone after the play {before} was read; check the play", "doubt"),
    "not_announced": AlertKind(
        "没有报牌", "did not announce",
        "{player} 剩 {left} 张牌，须报牌",
        "{player} must announce the cards left ({left})", "notice"),
    "hand_unfinished": AlertKind(
        "上一局没打完", "hand left unfinished",
        "第 {hand} 局还没打完（各座位剩 {left} 张）就亮出了新的底牌（{cards}），本局作废、不计分",
        "a new kitty ({cards}) was shown before hand {hand} ended (cards left by seat: {left}); "
        "the hand is closed without a result", "notice"),
    "unfamiliar_deck": AlertKind(
        "不熟悉的牌组", "unfamiliar deck",
        "这副牌读得不稳：最近 {read} 个牌角有 {unsure} 个拿不准，可能是没录入过的牌组。"
        "在裁判页「录入牌组」里录入这副牌（两局之间，约三分钟），本机会用它训练自己的识别模型，读得更准",
        "this deck reads unsure: {unsure} of the last {read} corner indices were in doubt, so it is "
        "probably a deck the detector has not learnt; enroll it on the referee's deck page (between "
        "hands, about three minutes) and the box trains its reader on it", "notice"),
    "deck_audit": AlertKind(
        "查牌不符", "deck audit failed",
        "查牌不符：缺少 {missing}，多出 {extra}（出过的牌加亮出的牌应是整副牌每张 {decks} 张）：请找找掉落的牌，"
        "核对看错的牌或混进来的别副牌",
        "deck audit: missing {missing}, seen too often {extra} (the cards played and shown should hold every "
        "card {decks} time(s)): look for a dropped card, a misread or a card from another deck", "doubt"),
    "not_shown": AlertKind(
        "没有亮牌", "cards not shown",
        "{player} 没有亮牌（记录上还剩 {left} 张），这一局没能查牌；如果 {player} 其实已经出完了，"
        "记录里有一手读少了：请核对这一局",
        "{player} did not show their cards ({left} left on record), so the hand was not audited; if "
        "{player} had in fact gone out, a play was read short: check this hand", "doubt"),
    "shown_completed": AlertKind(
        "亮牌按查牌补全", "cards shown completed from the deck",
        "{player} 亮出的牌读到 {cards}，比手里的牌少；整副牌只缺 {missing}，已补进 {player} 的亮牌：请核对",
        "{player}: cards shown read as {cards}, fewer than held; the deck lacks only {missing}, added to "
        "{player}'s cards shown: please check", "doubt"),
    "shown_trimmed": AlertKind(
        "亮牌按查牌去掉多读的牌", "misread card taken out of cards shown",
        "{player} 亮出的牌读到 {cards}，比手里的牌多；多读的 {extra} 整副牌里多出一张，和 {player} "
        "最后出的那手牌同点数（那手牌压在亮牌下面，花色读错了），已从亮牌中去掉：请核对",
        "{player}: cards shown read as {cards}, more than held; the extra {extra} is seen too often in the "
        "deck and has the rank of a card of {player}'s last play, lying under them (its suit misread): "
        "taken out of the cards shown: please check", "doubt"),
    "rocket_completed": AlertKind(
        "王炸按查牌补全", "rocket completed from the deck",
        "{player} 出的 {cards} 其实是王炸（{suggestion}）：亮牌后整副牌只缺另一张王，它压在读到的那张下面；"
        "已按王炸改正记录（倍数随之翻倍）：请核对",
        "{player}'s {cards} was a rocket ({suggestion}): once the cards were shown the deck lacked only the "
        "other joker, lying under the one read; the record now has the rocket (and its doubling): please check",
        "doubt"),
    "play_completed": AlertKind(
        "按查牌补全出牌", "play completed from the deck",
        "{player} 出的 {cards} 读少了牌：亮牌后整副牌缺的牌正好补成这一手（{suggestion}），"
        "它们压在这一手的其他牌下面；已按此改正记录：请核对",
        "{player}'s {cards} was read short: once the cards were shown, the cards the deck lacked make "
        "it {suggestion}, lying under others of that play; the record now has it so: please check", "doubt"),
    "suit_completed": AlertKind(
        "按查牌补全只记点数的牌", "rank-only card named from the deck",
        "{player} 出的 {cards} 里有一张只记了点数；亮牌后整副牌缺的牌里只有一张合得上，已改为 {suggestion}：请核对",
        "{player}'s {cards} held a card stored by its rank alone; once the cards were shown, one card the "
        "deck lacked fitted it: now {suggestion}; please check", "notice"),
    "taken_back": AlertKind(
        "收回了牌", "cards taken back",
        "{player} 放下 {laid} 后又收回了 {taken}，这一手按留下的 {cards} 记：请核对",
        "{player} laid {laid}, then took back {taken}: the play counts as the {cards} left; check it", "doubt"),
    "picked_up": AlertKind(
        "放下又拿起的牌", "cards picked up again",
        "{player} 的 {taken} 放下后又拿起来了（掉牌或收回）：不算出牌，记录里没有这一手：请核对",
        "{player}: {taken} was put down and picked up again (a dropped card, or taken back): not a play, "
        "left out of the record; check it", "doubt"),
    "rejected_on_replay": AlertKind(
        "记录中的事件无效", "stored event refused",
        "记录中的事件 {at}（{event}）重放时无效：{reason}",
        "stored event {at} ({event}) was refused on replay: {reason}", "record"),
}

#: The causes of kinds that have several, as ``(zh, en)`` templates (the same fields).
REASONS: dict[str, tuple[str, str]] = {
    "already_dealt": ("已经发过牌", "the cards were already dealt"),
    "nobody_out": ("还没有人出完牌：请作废本局或更正出牌", "nobody has gone out; end it as abandoned or correct the plays"),
    "bidding_over": ("叫牌已结束", "bidding is over"),
    "landlord_known": ("地主已确定", "the landlord is already known"),
    "no_landlord": ("地主还没确定", "the landlord is not known yet"),
    "only_landlord_opens": ("只有地主可以明牌", "only the landlord may open his hand"),
    "already_open": ("已经明牌", "the hand is already open"),
    "illegal_bid": ("此时不能这样叫", "this bid is not allowed now"),
    "deal_seats": ("发牌有 {count} 个座位，本桌 {players} 人", "the deal has {count} seats, the table has {players}"),
    "first_bidder": ("首叫 {first} 不是本桌的座位", "first bidder {first} is not a seat"),
    "kitty_size": ("底牌应为 {size} 张，不是 {count} 张", "the kitty holds {size} cards, not {count}"),
    "kitty_shown": ("底牌已亮过", "the kitty was already revealed"),
    "kitty_differs": ("与发牌时的底牌不符", "these are not the kitty cards dealt"),
    "seen_before": ("已经出过或见过", "played or seen before"),
    "beyond_deck": ("超过了牌中的张数", "more often than the deck holds it"),
    "nothing_to_undo": ("没有可撤销的步骤", "nothing to undo"),
    "no_such_event": ("没有第 {at} 步（本局共 {count} 步）", "event {at} does not exist (the hand has {count})"),
    "breaks": ("更正后第 {at} 步（{event}）不成立：{cause}", "after the correction event {at} ({event}) fails: {cause}"),
    "needs_deal": ("每一局须从发牌开始", "a hand starts with the deal"),
    "match_penalty_only": ("比赛本身只记罚分", "only penalties belong to the match itself (hand 0)"),
    "broke_rule": ("{cause}", "{cause}"),
    "hand_not_over": ("本局还没打完，打完后才亮牌", "cards are shown only after the hand is over"),
    "hand_not_played": ("本局没有打（重新发牌或作废），没有牌可亮", "the hand was not played out: no cards to show"),
    "no_cards_left": ("{player} 已出完牌，没有剩余的牌", "{player} went out and has no cards left"),
    "no_marker_game": ("本玩法不用标记牌定地主", "this game does not name the landlord by a marker card"),
    "after_first_play": ("已经开始出牌，不能再亮身份或加倍", "play has started: too late to reveal or double"),
    "no_doubling_game": ("本玩法没有加倍", "this game has no doubling"),
    "already_doubled": ("{player} 已经加倍过", "{player} has already doubled"),
    "no_hidden_landlord": ("本玩法没有暗地主", "this game has no hidden landlord"),
    "already_revealed": ("暗地主已经亮明", "the hidden landlord is already known"),
    "not_a_landlord": ("只有明地主或暗地主可以亮出身份", "only the open or the hidden landlord may reveal"),
    "not_twin_holder": ("{player} 没有另一张标记牌，不是暗地主", "{player} does not hold the twin: not the hidden landlord"),
    "no_kitty_choice": ("本玩法不挑底牌", "this game has no pick of the kitty"),
    "only_landlord_picks": ("只有帝主可以挑底牌", "only the Di Zhu picks from the kitty"),
    "already_picked": ("帝主已经挑过底牌", "the Di Zhu has already picked"),
    "not_in_kitty": ("{cards} 不在底牌里", "{cards} are not in the kitty"),
    "kitty_pick_first": ("帝主先挑底牌，才能出牌", "the Di Zhu picks from the kitty before play starts"),
}

#: Data fields that hold a seat (counted from 0) and show as a player.
SEAT_FIELDS = ("expected", "other", "first")


def seat_label(seat: int, lang: str, players: Sequence[str] = ()) -> str:
    """A seat as the page names it: the player's name, else ``3 号位`` / ``seat 3`` (from 1)."""
    if 0 <= seat < len(players) and players[seat]:
        return players[seat]
    return f"{seat + 1} 号位" if lang == "zh" else f"seat {seat + 1}"


#: Why the judge gave no verdict, or no reading (``engine.judge``'s ``reason``), Chinese then English:
#: the one wording ``ddz-table judge``, ``/api/judge`` and the referee page print.
JUDGE_WORDS: dict[str, tuple[str, str]] = {
    "duplicate_card": ("同一张牌出现两次，不成牌型（{decks_zh}）：{cards}",
                       "duplicate card, not a combination ({decks_en}): {cards}"),
    "no_cards": ("请写出要判定的牌", "no cards to judge: write them, e.g. '333 4'"),
    "after_no_cards": ("请写出要管的那一手牌", "the play to beat names no cards"),
    "after_duplicate": ("要管的那一手里同一张牌出现了两次（{decks_zh}）",
                        "the play to beat names a duplicate card ({decks_en})"),
    "after_not_a_combination": ("要管的那一手不成牌型", "the play to beat is not a combination"),
    "unreadable": ("看不懂这些牌（写法如 3s 10h Qd 2c BJ RJ）", "cannot read the cards (write them like 3s 10h Qd 2c BJ RJ)"),
}


def judge_text(reason: str, lang: str, **fields: Any) -> str:
    """The judge's reason in ``lang`` (``zh``/``en``), its fields filled in (``decks``: how many
    decks the rules play with, worded as how often they hold each card)."""
    zh, en = JUDGE_WORDS[reason]
    decks = int(fields.get("decks", 1))
    fields["decks_zh"] = "一副牌每张只有一张" if decks == 1 else f"{decks} 副牌每张只有 {decks} 张"
    fields["decks_en"] = "one deck holds each card once" if decks == 1 else f"{decks} decks hold each card {decks} times"
    return (zh if lang == "zh" else en).format(**fields)


def kind_name(kind: str, lang: str) -> str:
    """A kind's short name (the alert's heading); an unknown kind shows itself."""
    entry = ALERTS.get(kind)
    return entry.name(lang) if entry is not None else kind.replace("_", " ")


def severity(kind: str) -> str:
    entry = ALERTS.get(kind)
    return entry.severity if entry is not None else "record"


def _show(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def _fill(template: str, values: Mapping[str, str]) -> str | None:
    """``template`` with ``values``; ``None`` when it names a field ``values`` lacks."""
    try:
        return string.Formatter().vformat(template, (), values)
    except (KeyError, IndexError, ValueError):
        return None


#: Card fields and the data field naming their combination type (``does_not_beat``'s).
_PLAY_FIELDS = {"cards": "play_kind", "beaten": "beaten_kind", "suggestion": None, "missing": None, "extra": None,
                "laid": None, "taken": None}


def card_words(text: str, lang: str, kind: str | None = None) -> str:
    """Card text as players read it (``3♠ 3♥``, 小王), after its type when known (对子 3♠ 3♥);
    text that is not cards stays as it is; no cards at all show as a dash."""
    if not text.strip():
        return "—"
    try:
        shown = cards_text(parse_cards(text), lang)
    except ValueError:
        shown = text
    return f"{type_name(kind, lang)} {shown}" if kind else shown


def render(kind: str, lang: str, *, seat: int | None = None, cards: str | None = None,
           suggestion: str | None = None, data: Mapping[str, Any] | Iterable[tuple[str, Any]] = (),
           players: Sequence[str] = ()) -> str | None:
    """The message of an alert of ``kind`` in ``lang``, or ``None`` when the table has no such
    kind or the alert lacks a field its template needs."""
    entry = ALERTS.get(kind)
    if entry is None or lang not in LANGS:
        return None
    values: dict[str, str] = {}
    for key, value in dict(data).items():
        if value is None:
            continue
        if key in SEAT_FIELDS and isinstance(value, int):
            values[key] = seat_label(value, lang, players)
        elif key == "cause":
            values[key] = kind_name(str(value), lang)
        elif key != "reason":
            values[key] = _show(value)
    if seat is not None:
        values["player"] = seat_label(seat, lang, players)
        values["seat"] = str(seat + 1)
    if cards:
        values["cards"] = cards
    if suggestion:
        values["suggestion"] = suggestion
    fields = dict(data)
    for key, kind_key in _PLAY_FIELDS.items():
        if key in values:
            values[key] = card_words(values[key], lang, fields.get(kind_key) if kind_key else None)
    reason = dict(data).get("reason")
    if reason is not None:
        words = REASONS.get(str(reason))
        filled = None if words is None else _fill(words[0] if lang == "zh" else words[1], values)
        if filled is None:
            return None
        values["reason"] = filled
    return _fill(entry.template(lang), values)


def violation_text(violation: Any, lang: str, players: Sequence[str] = ()) -> str:
    """An engine :class:`~engine.violations.Violation` in words (its short name when its
    fields do not fill the template)."""
    text = render(violation.kind, lang, seat=violation.seat, data=violation.data, players=players)
    return text if text is not None else kind_name(violation.kind, lang)
