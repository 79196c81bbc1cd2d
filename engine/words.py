"""The game's words in two languages, Chinese first: the one vocabulary records, pages and exports ask.

:data:`GAME` holds every card, play-type, event, status and outcome word, and the names of the
rule presets and scoring formats. The text record and the CSV sheet (:mod:`engine.record_text`),
the hand analysis (:mod:`engine.analysis`), the table site (``webui.i18n``) and the club server
(``club.words``) take these words from here; their own tables keep only the words of their own
lines and pages, and look a game word up through :class:`Words` chained onto :data:`GAME`.

English words are stored as they read inside a line (``landlord``, ``open hand``); a heading
or a button starts with a capital (:func:`capital`: ``Landlord``). English inflects where Chinese
does not, so one Chinese word may have several English forms, each its own key: ``concede`` (a
button) and ``concedes`` (a line of the record) are both 认输. A key with no word shows itself,
so a gap is visible on a page rather than an error.

>>> GAME("type_straight", "zh"), GAME("type_straight", "en"), GAME("card_BJ", "en")
('顺子', 'straight', 'small joker')
>>> capital(GAME("landlord", "en")), GAME("hand_no", "zh", n=3), GAME("missing", "en")
('Landlord', '第 3 局', 'missing')
>>> t = Words({"hall": "大厅"}, {"hall": "Hall"}, under=GAME)
>>> t("hall", "en"), t("status_playing", "zh"), t("hall", "fr")
('Hall', '进行中', '大厅')
"""

from __future__ import annotations

from collections.abc import Mapping

#: The languages every word is written in, Chinese first (the default: club players read it first).
LANGS = ("zh", "en")
DEFAULT_LANG = "zh"


def capital(text: str) -> str:
    """``text`` with its first letter a capital, for a heading or a button (Chinese is unchanged)."""
    return text[:1].upper() + text[1:]


class Words:
    """One table of words: ``words(key, lang, **fmt)``; ``words.by_lang`` holds the table itself.

    A key this table lacks is looked up in ``under`` (a site's words sit on :data:`GAME`); a
    language it lacks reads Chinese; a key found nowhere shows itself."""

    def __init__(self, zh: dict[str, str], en: dict[str, str], under: Words | None = None) -> None:
        self.by_lang = {"zh": zh, "en": en}
        self.under = under

    def find(self, key: str, lang: str = DEFAULT_LANG) -> str | None:
        """The word for ``key`` in ``lang`` (else in Chinese), here or under; None when none has it."""
        zh = self.by_lang["zh"]
        text = self.by_lang.get(lang, zh).get(key) or zh.get(key)
        if text is None and self.under is not None:
            return self.under.find(key, lang)
        return text

    def __call__(self, key: str, lang: str = DEFAULT_LANG, **fmt: object) -> str:
        text = self.find(key, lang) or key
        return text.format(**fmt) if fmt else text

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.find(key) is not None


def _table(pairs: Mapping[str, tuple[str, str]]) -> Words:
    return Words({k: zh for k, (zh, _) in pairs.items()}, {k: en for k, (_, en) in pairs.items()})


#: Every game word: key -> (Chinese, English). Terms follow docs/rules.md.
WORDS: dict[str, tuple[str, str]] = {
    # ------------------------------------------------------------------ cards
    # A joker by name (a record, a sentence), and as its face shows it (a card drawn on a page).
    "card_BJ": ("小王", "small joker"), "card_RJ": ("大王", "big joker"),
    "face_BJ": ("小王", "BJ"), "face_RJ": ("大王", "RJ"),
    "suit_s": ("黑桃", "spades"), "suit_h": ("红桃", "hearts"), "suit_d": ("方块", "diamonds"),
    "suit_c": ("梅花", "clubs"),
    # ------------------------------------------------------------------ play types (engine.combination.TYPES)
    "type_single": ("单张", "single"), "type_pair": ("对子", "pair"), "type_trio": ("三张", "trio"),
    "type_trio_single": ("三带一", "trio with a single"), "type_trio_pair": ("三带二", "trio with a pair"),
    "type_straight": ("顺子", "straight"), "type_pair_straight": ("连对", "pair chain"),
    "type_airplane": ("飞机", "airplane"), "type_airplane_single": ("飞机带单", "airplane with singles"),
    "type_airplane_pair": ("飞机带对", "airplane with pairs"), "type_bomb": ("炸弹", "bomb"),
    "type_rocket": ("王炸", "rocket"), "type_four_two_single": ("四带二", "four with two singles"),
    "type_four_two_pair": ("四带两对", "four with two pairs"), "type_quad": ("四同张", "quad"),
    "type_quad_chain": ("连四同张", "quad chain"), "type_quad_trio": ("四带三", "quad with a trio"),
    "type_carrier": ("航母", "carrier"), "type_dress": ("连衣裙", "dress"), "type_spaceship": ("飞船", "spaceship"),
    "type_double_joker": ("双王炸弹", "two-joker bomb"), "type_triple_joker": ("三王炸弹", "three-joker bomb"),
    # ------------------------------------------------------------------ judging a play (engine.judge)
    "not_combo": ("不成牌型", "not a combination"), "beats": ("能管上", "beats"), "not_beats": ("管不上", "does not beat"),
    # ------------------------------------------------------------------ the table: who, what, how much
    "landlord": ("地主", "landlord"), "farmer": ("农民", "farmer"), "open_landlord": ("明地主", "open landlord"),
    "hidden_landlord": ("暗地主", "hidden landlord"), "emperor": ("帝主", "Di Zhu"),
    "marker": ("标记牌", "marker card"), "kitty": ("底牌", "kitty"), "base": ("底分", "base"),
    "multiplier": ("倍数", "multiplier"), "chips": ("筹码", "chips"), "score": ("得分", "points"),
    "total": ("合计", "total"), "totals": ("合计", "totals"), "winner": ("胜者", "winner"),
    "result": ("结果", "result"), "status": ("状态", "status"), "rules": ("规则", "rules"),
    "players": ("玩家", "players"), "seat": ("座位", "seat"), "seats": ("座位", "seats"),
    "seat_n": ("{n} 号位", "seat {n}"), "hand": ("局", "hand"), "hands": ("局", "hands"),
    "hand_no": ("第 {n} 局", "hand {n}"), "clock": ("比赛时间", "clock"),
    # ------------------------------------------------------------------ the deal and the bids
    "deal": ("发牌", "deal"), "no_hand": ("等待发牌", "waiting for the deal"), "bidding": ("叫地主中", "bidding"),
    "bid": ("叫分", "bid"), "bids": ("叫分", "bids"),
    "bid_n": ("叫{n}分", "bid {n}"), "bids_n": ("叫{n}分", "bids {n}"),
    "bid_points": ("{n}分", "bid {n}"), "bid_value": ("{n}分", "{n}"),
    "no_bid": ("不叫", "no bid"), "pass_bid": ("不叫", "pass"), "no_grab": ("不抢", "no grab"),
    "call": ("叫地主", "call"), "calls": ("叫地主", "calls"), "called": ("叫地主", "called"),
    "grab": ("抢地主", "grab"), "grabs": ("抢地主", "grabs"),
    # ------------------------------------------------------------------ play and the other events
    "play": ("出牌", "play"), "turn": ("出牌", "to play"),
    "pass": ("不出", "pass"), "passed": ("不出", "passed"), "passing": ("不出", "passing"),
    "open_hand": ("明牌", "open hand"), "announce": ("报牌", "announces"),
    "concede": ("认输", "concede"), "concedes": ("认输", "concedes"),
    "escape": ("逃跑", "escape"), "escapes": ("逃跑", "escapes"),
    "doubled": ("加倍", "doubled"), "doubles": ("加倍", "doubles"), "doubled_by": ("加倍", "doubled by"),
    "reveals": ("亮出身份", "reveals"), "revealed": ("亮出身份", "revealed"),
    # How the hidden landlord became known (engine.hand.Hand.hidden_shown).
    "hidden_choice": ("亮出身份", "revealed by choice"), "hidden_play": ("打出另一张标记牌", "shown by playing the twin"),
    "hidden_end": ("终局亮牌", "shown at the end"),
    "kitty_pick": ("帝主取底牌", "Di Zhu takes from the kitty"), "took_none": ("一张不要", "none"),
    "shows": ("亮牌", "shows"), "shown": ("亮牌", "cards shown"),
    "penalty": ("罚分", "penalty"), "disqualify": ("取消资格", "disqualify"),
    "disqualified": ("取消资格", "disqualified"),
    "correction": ("更正", "correction"), "correct": ("更正", "correct"),
    "undo": ("撤销上一步", "undo last event"), "undid": ("撤销上一步", "undid the last step"),
    "abandon": ("本局作废", "abandon hand"), "end": ("结束", "end"), "hand_closed": ("结束本局", "hand closed"),
    # ------------------------------------------------------------------ multiplier causes
    "spring": ("春天", "spring"), "anti_spring": ("反春", "anti-spring"),
    # ------------------------------------------------------------------ how a hand ended (engine.scoring outcomes)
    "outcome_landlord_won": ("地主胜", "landlord wins"), "outcome_farmers_won": ("农民胜", "farmers win"),
    "outcome_escape": ("有人逃跑", "a player escaped"), "outcome_redeal": ("无人叫牌，重新发牌", "nobody bid: redeal"),
    "outcome_abandoned": ("本局作废", "hand abandoned"), "outcome_unfinished": ("未打完", "not finished"),
    # A hand left unfinished when the referee ended the match: it scores nothing (作废).
    "hand_void": ("未打完 · 作废", "not finished · void"),
    "outcome_redeal_penalty": ("连续三次重新发牌（罚分）", "third redeal in a row (penalty)"),
    "outcome_hidden_unknown": ("暗地主未明，暂不结算", "hidden landlord not known: not settled yet"),
    # ... and in a score sheet's cell.
    "brief_landlord_won": ("地主胜", "landlord won"), "brief_farmers_won": ("农民胜", "farmers won"),
    "brief_abandoned": ("作废", "abandoned"), "brief_redeal": ("重新发牌", "redeal"),
    "brief_unfinished": ("未打完", "unfinished"), "brief_hidden_unknown": ("暗地主未明", "hidden landlord unknown"),
    # ------------------------------------------------------------------ where a match stands (engine.match statuses)
    "status_playing": ("进行中", "playing"), "in_progress": ("进行中", "in progress"), "status_time": ("时间到", "time is up"), "status_last_hand": ("时间到，打完手上这局", "time is up: the hand in play is finished first"),
    "status_target": ("达到目标分", "target reached"), "status_bust": ("筹码输光", "a player ran out of chips"),
    "status_tie_break": ("同分加赛", "tie: play another hand"), "status_round": ("本轮结束", "round won"),
    "status_rounds_won": ("赢得多数轮次", "most rounds won"), "status_dissolved": ("解散", "game dissolved"),
    "match_over": ("比赛结束", "match over"), "out_of_chips": ("筹码输光", "out of chips"),
    "playoff": ("同分加赛", "play-off for a tie"),
    # ------------------------------------------------------------------ rule presets and scoring formats (engine.rules)
    "preset_classic": ("经典三人斗地主", "Classic three-player game"),
    "preset_qq": ("QQ 比赛规则（只有赢家得分，先到 20 分）", "QQ tournament: winners gain only, first to 20"),
    "preset_chips": ("筹码赛（每人 20，底 2）", "Chips: 20 each, base 2"),
    "preset_fixed": ("定分赛（+3/−1，明牌 ×2）", "Fixed score +3/-1, open hand x2"),
    "preset_grab": ("叫地主抢地主", "Call and grab"), "preset_four": ("四人斗地主（两副牌）", "Four players, two decks"),
    "preset_two": ("二人斗地主", "Two players"),
    "preset_five": ("五人斗地主（明暗地主，两副牌）", "Five players, open and hidden landlord"),
    "preset_dizhu": ("斗帝主（三人两副牌）", "Di Zhu, three players, two decks"),
    "short_classic": ("经典", "classic"), "short_qq": ("QQ 比赛", "QQ"), "short_chips": ("筹码赛", "chips"),
    "short_fixed": ("定分赛", "fixed score"), "short_grab": ("抢地主", "call & grab"), "short_four": ("四人", "four players"),
    "short_two": ("二人", "two players"), "short_five": ("五人", "five players"), "short_dizhu": ("斗帝主", "Di Zhu"),
    "scoring_points": ("积分", "points"), "scoring_qq": ("QQ 赛制（只有赢家得分）", "QQ (winners gain only)"),
    "scoring_fixed": ("定分", "fixed score"), "scoring_default": ("按规则", "as the rules say"),
}

#: ``GAME(key, lang, **fmt)``: a game word (see :data:`WORDS`).
GAME = _table(WORDS)

#: What doubled the multiplier, other than a play of some type: the word that names it.
CAUSES = {"grab": "grab", "open_hand": "open_hand", "spring": "spring", "anti_spring": "anti_spring",
          "reveal": "hidden_choice", "double": "doubled"}
#: A score sheet's cell for an outcome, where it is shorter than the record's line.
BRIEF_OUTCOMES = {"landlord_won": "brief_landlord_won", "farmers_won": "brief_farmers_won",
                  "abandoned": "brief_abandoned", "redeal": "brief_redeal", "escape": "escape",
                  "unfinished": "brief_unfinished", "hidden_unknown": "brief_hidden_unknown"}


def both(key: str, words: Words | None = None, **fmt: object) -> str:
    """``key`` in Chinese, then in English (``不成牌型 / not a combination``): for a reader whose
    language is not known (the command line, a refusal before any page)."""
    table = words or GAME
    return f"{table(key, 'zh', **fmt)} / {table(key, 'en', **fmt)}"


def _named(key: str, fallback: str, lang: str) -> str:
    return GAME.find(key, lang) or fallback


def card_name(rank_text: str, lang: str = DEFAULT_LANG) -> str:
    """A joker by name (小王 / small joker); any other rank as written (``10``, ``Q``)."""
    return _named(f"card_{rank_text}", rank_text, lang)


def face_name(rank_text: str, lang: str = DEFAULT_LANG) -> str:
    """A rank as a card's face shows it: a joker 小王 / BJ, any other rank as written."""
    return _named(f"face_{rank_text}", rank_text, lang)


def type_name(kind: str, lang: str = DEFAULT_LANG) -> str:
    """A combination type (``trio_single``) as players say it: 三带一 / trio with a single."""
    return _named(f"type_{kind}", kind.replace("_", " "), lang)


def cause_name(cause: str, lang: str = DEFAULT_LANG) -> str:
    """What doubled the multiplier: grab, open hand, spring, anti-spring, a reveal, a double, or a
    play's type (a bomb, the rocket)."""
    return GAME(CAUSES[cause], lang) if cause in CAUSES else type_name(cause, lang)


def outcome_name(outcome: str, lang: str = DEFAULT_LANG, brief: bool = False) -> str:
    """How a hand ended (``landlord_won``) in a line, or ``brief`` in a score sheet's cell (an
    outcome without a brief word, ``redeal_penalty``, keeps its name there, as the sheet always had)."""
    if brief:
        return GAME(BRIEF_OUTCOMES[outcome], lang) if outcome in BRIEF_OUTCOMES else outcome
    return _named(f"outcome_{outcome}", outcome, lang)


def status_name(reason: str, lang: str = DEFAULT_LANG) -> str:
    """Where a match stands (``playing``, ``time``, ``bust``...; :class:`engine.match.MatchStatus`)."""
    return _named(f"status_{reason}", reason, lang)


def preset_name(name: str, lang: str = DEFAULT_LANG, short: bool = False) -> str:
    """A rule preset in words (the short form for a narrow space); an unknown one as it is called."""
    return _named(f"{'short' if short else 'preset'}_{name}", name, lang)


def scoring_name(scoring: str, lang: str = DEFAULT_LANG) -> str:
    """A scoring format (``engine.rules.SCORING_FORMATS``); the empty one is the preset's own."""
    if scoring == "chips":
        return GAME("chips", lang)
    return _named(f"scoring_{scoring or 'default'}", scoring, lang)
