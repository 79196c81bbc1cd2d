"""The club server's own words, Chinese first (the default) and English, as on the table site.

This table holds the words of the club's pages alone; a game word (:mod:`engine.words`: a
status, the landlord, the multiplier) and a word both sites use (:mod:`webkit.words`) are looked
up under it. The visitor's language: :mod:`webkit.lang`.

>>> t("hall", "zh"), t("hall", "en"), t("table_n", "zh", n=7)
('大厅屏幕', 'Hall screen', '第 7 桌')
>>> table_status("playing", "en"), table_status("bust", "en"), clock_state("time_up", "zh")
('Playing', 'A player is out: table stopped', '时间到')
"""

from __future__ import annotations

from club.formats import SEED004, Refusal, Stage
from engine.words import Words, capital
from webkit.counts import hands_line
from webkit.words import KIT

_ZH: dict[str, str] = {
    "site": "斗地主俱乐部赛", "hall": "大厅屏幕", "director": "裁判长", "me": "我的比赛",
    "table_n": "第 {n} 桌",
    "remaining": "剩余", "leaderboard": "排行榜", "rank": "名次",
    "entrant": "选手", "club_id": "会员号",
    "st_waiting": "等待开始", "st_bust": "有人输光，本桌结束",
    "st_tie_break": "同分：加赛一局", "st_ended": "已结束",
    "st_no_result": "无成绩（没有盒子上报本桌）",
    "ck_not_started": "未开始", "ck_running": "计时中", "ck_paused": "暂停", "ck_ended": "已结束",
    "no_tournament": "还没有比赛。请裁判长在裁判长页面创建。", "no_session": "还没有抽签分桌。",
    "online": "在线", "offline": "离线", "session_n": "{stage} 第 {n} 节（共 {of} 节）",
    "pin": "裁判长密码", "too_many": "尝试太多次，请 {s} 秒后再试",
    "new_tournament": "新建比赛", "name": "名称", "format": "赛制", "seed": "抽签种子（空 = 随机）", "rounds": "轮数",
    "minutes": "每节分钟", "evenings": "晚数", "create": "创建", "entrants": "选手", "add_player": "登记选手",
    "add": "登记", "withdraw": "退赛", "draw_next": "抽签 / 换桌 / 进入下一阶段", "start": "开始计时", "pause": "暂停",
    "resume": "继续", "end_session": "结束本节", "publish": "公布成绩", "published": "成绩已公布",
    "boxes": "牌桌盒子", "club_key": "盒子登记密钥", "register_hint": "在每桌的盒子上运行：",
    "release": "解除绑定", "acked": "已收事件", "exports": "导出", "export_json": "整场比赛 JSON",
    "export_csv": "成绩表 CSV", "export_sheet": "打印成绩表（A4）", "export_tables": "各桌记录 JSON",
    "table_cards": "打印桌卡（二维码）", "seating": "座位表", "seed_short": "抽签种子",
    "my_tables": "我的桌次", "my_standing": "我的排名", "hands_played": "局数", "net": "输赢", "results": "比赛成绩",
    "signature": "裁判长签名", "scan_me": "扫码查看我的比赛", "not_found": "找不到这个选手",
    "stage": "阶段", "table": "桌",
    "format_seed004": SEED004.zh, "format_session": "单场多轮（轮换座位）", "format_league": "定分联赛（瑞士制）",
    "playoff_short": "待加赛",
    "playoff_why": "{names} 同为 {points} 分，争 {places} 个晋级名额：按规程加赛一局（并列办法：出现积分并列后，加赛一局）。",
    "playoff_2": "二人加赛：按二人斗地主打一局（每人 20 张，留 3 张底牌）。",
    "playoff_3": "三人加赛：按常规三人斗地主打一局；仍有同分的，再加赛一局。",
    "playoff_more": "多人加赛：分成三人（或二人）一桌各打一局；仍有同分的，再加赛一局。",
    "playoff_record": "加赛结束后登记名次：", "place_n": "第 {n} 名", "record_playoff": "登记加赛结果",
    "box": "盒子", "session_name": "{stage} 第 {n} 节",
    # the director's acknowledgements and refusals: what was done, or why not
    "ok_create": "已新建「{name}」，抽签种子 {seed}", "ok_players": "已登记 {n} 位选手", "ok_withdraw": "{name} 已退赛",
    "ok_next": "已抽签：{session}", "ok_playoff": "已登记加赛名次：{order}", "ok_start": "{session} 开始计时",
    "ok_pause": "{session} 暂停", "ok_resume": "{session} 继续计时", "ok_end": "{session} 已结束：各桌打完手上这局后决出胜者",
    "ok_publish": "成绩已公布", "ok_release": "第 {n} 桌的盒子已解除绑定",
    "sure_end": "结束{session}？计时停止；各桌打完手上这局，再决出胜者（同分的加赛一局）。",
    "sure_publish": "公布{name}的成绩？公布后任何人都能看到成绩表和导出。",
    "err_name": "请填写比赛名称", "err_number": "{name}要填整数，最大 {top}（填的是 {value}）",
    "err_format": "没有这种赛制：{value}", "err_create_first": "请先新建比赛", "err_draw_first": "请先抽签",
    "err_player_lines": "每行一位选手：姓名, 会员号", "err_no_player": "没有 {n} 号选手",
    "err_no_box": "第 {n} 桌没有绑定盒子", "err_no_players": "没有可以入座的选手",
    "err_table_count": "{count} 位选手不能每桌 3 人：请再登记 {short} 位或退赛 {extra} 位",
    "err_end_first": "请先结束本节（计时还在走）", "err_last_stage": "已是最后阶段：请公布成绩",
    "err_no_winner": "还有桌没有决出唯一胜者：{tables}", "err_cut_tie": "{names} 同为 {points} 分，争 {places} 个晋级名额：请加赛一局并登记结果",
    "err_no_playoff": "现在没有需要加赛的同分", "err_playoff_places": "请为每位加赛选手（{names}）各填一个名次",
    "err_playoff_choose": "请为每个名次选择一位选手", "err_clock_started": "计时已经开始",
    "err_clock_not_running": "计时没有在走", "err_clock_not_paused": "计时没有暂停", "err_session_ended": "本节已经结束",
    "err_publish_open": "还不能公布：{tables}", "err_publish_playoff": "还不能公布：{names} 的同分还没有加赛",
    "err_not_published": "成绩还没有公布", "err_no_event": "还没有比赛", "err_no_tables": "还没有抽签分桌",
    "err_no_such_player": "找不到这个选手", "err_internal": "服务器内部错误",
}
_EN: dict[str, str] = {
    "site": "Dou Dizhu club event", "hall": "Hall screen", "director": "Director", "me": "My event",
    "table_n": "Table {n}",
    "remaining": "Left", "leaderboard": "Leaderboard", "rank": "Rank", "entrant": "Player",
    "club_id": "Club id", "st_waiting": "Waiting",
    "st_bust": "A player is out: table stopped", "st_tie_break": "Tie: one extra hand",
    "st_ended": "Ended",
    "st_no_result": "No result (no box reported this table)", "ck_not_started": "Not started", "ck_running": "Running",
    "ck_paused": "Paused", "ck_ended": "Ended",
    "no_tournament": "No event yet. The director creates one on the director page.",
    "no_session": "Tables not drawn yet.", "online": "online", "offline": "offline",
    "session_n": "{stage} period {n} of {of}", "pin": "Director PIN",
    "too_many": "Too many tries; wait {s} s",
    "new_tournament": "New event", "name": "Name", "format": "Format", "seed": "Draw seed (empty: random)",
    "rounds": "Rounds", "minutes": "Minutes per period", "evenings": "Evenings", "create": "Create",
    "entrants": "Players", "add_player": "Register a player", "add": "Register", "withdraw": "Withdraw",
    "draw_next": "Draw / change tables / next stage", "start": "Start the clock", "pause": "Pause",
    "resume": "Resume", "end_session": "End the period", "publish": "Publish results", "published": "Results published",
    "boxes": "Table boxes", "club_key": "Box registration key", "register_hint": "On each table's box run:",
    "release": "Release", "acked": "Events in", "exports": "Exports", "export_json": "Whole event (JSON)",
    "export_csv": "Results (CSV)", "export_sheet": "Printable results (A4)", "export_tables": "Hand records by table (JSON)",
    "table_cards": "Print table cards (QR codes)", "seating": "Seating", "seed_short": "Draw seed", "my_tables": "My tables", "my_standing": "My standing", "hands_played": "Hands", "net": "Won/lost",
    "results": "Results", "signature": "Director's signature", "scan_me": "Scan for my event",
    "not_found": "No such player", "stage": "Stage", "table": "Table",
    "format_seed004": SEED004.en, "format_session": "One session, rounds (seats rotate)",
    "format_league": "Fixed-score league (Swiss)",
    "playoff_short": "play-off",
    "playoff_why": "{names} are tied on {points} points for {places} place(s) that go on: by the event's rules "
                   "they play one extra hand.",
    "playoff_2": "Two players: one hand of two-player Dou Dizhu (20 cards each, 3 in the kitty).",
    "playoff_3": "Three players: one hand of the classic game; players still tied play another.",
    "playoff_more": "More players: tables of three (or two), one hand each; players still tied play another.",
    "playoff_record": "After the play-off, record the places:", "place_n": "Place {n}",
    "record_playoff": "Record the play-off",
    "box": "Box", "session_name": "{stage} period {n}",
    "ok_create": "Created “{name}”, draw seed {seed}", "ok_players": "Players registered: {n}", "ok_withdraw": "{name} withdrew",
    "ok_next": "Tables drawn: {session}", "ok_playoff": "Play-off places recorded: {order}",
    "ok_start": "{session}: the clock is running", "ok_pause": "{session}: paused", "ok_resume": "{session}: the clock runs again",
    "ok_end": "{session} ended: each table finishes the hand in play, then its winner is decided",
    "ok_publish": "Results published", "ok_release": "Table {n}'s box released",
    "sure_end": "End {session}? The clock stops; each table finishes the hand in play, then its winner is decided "
                "(a tie plays one extra hand).",
    "sure_publish": "Publish the results of {name}? Anyone can then see the results and the exports.",
    "err_name": "Give the event a name", "err_number": "{name} must be a whole number up to {top}, not {value}",
    "err_format": "No such format: {value}", "err_create_first": "Create the event first",
    "err_draw_first": "Draw the tables first", "err_player_lines": "One player per line: name, club id",
    "err_no_player": "No player {n}", "err_no_box": "Table {n} has no box", "err_no_players": "No players to seat",
    "err_table_count": "{count} players do not make tables of three: register {short} more or withdraw {extra}",
    "err_end_first": "End the current period first (the clock is still running)",
    "err_last_stage": "This was the last stage: publish the results",
    "err_no_winner": "Some tables have no single winner yet: {tables}",
    "err_cut_tie": "{names} are tied on {points} points for {places} place(s) that go on: play one extra hand and record it",
    "err_no_playoff": "No tie at the cut to play off now", "err_playoff_places": "Give each of {names} one place",
    "err_playoff_choose": "Choose a player for every place", "err_clock_started": "The clock has already started",
    "err_clock_not_running": "The clock is not running", "err_clock_not_paused": "The clock is not paused",
    "err_session_ended": "This period has already ended", "err_publish_open": "Not yet: {tables}",
    "err_publish_playoff": "Not yet: the tie of {names} has not been played off",
    "err_not_published": "The results are not published yet", "err_no_event": "No event yet",
    "err_no_tables": "Tables not drawn yet", "err_no_such_player": "No such player", "err_internal": "Internal error",
}

WORDS = {"zh": _ZH, "en": _EN}

#: ``t(key, lang, **fmt)``: the word for ``key`` (an unknown key shows itself).
t = Words(_ZH, _EN, under=KIT)

#: A table's status (:class:`club.tournament.TableResult` ``reason``) said as a match's status says it.
GAME_STATUSES = {"playing": "status_playing", "time": "status_time", "dissolved": "status_dissolved",
                 "last_hand": "status_last_hand"}


def table_status(status: str, lang: str) -> str:
    """A club table's status in words: the club's own (``st_waiting``) or the game's (进行中)."""
    return capital(t(GAME_STATUSES.get(status, f"st_{status}"), lang))


def hands_text(finished: int, void: int, in_play: int | None, lang: str) -> str:
    """A table's hands as every page of both sites says them (:func:`webkit.counts.hands_line`),
    capitalised as a club page's line.

    >>> hands_text(1, 3, 5, "zh"), hands_text(2, 0, None, "en")
    ('已完成 1 局 · 作废 3 局 · 第 5 局进行中', '2 hands finished')
    """
    return capital(hands_line({"finished": finished, "void": void, "in_play": in_play}, lang))


def table_words(status: str, winners: list[str], lang: str) -> str:
    """A table's status and its winner in one line, as the hall and the director show it."""
    text = table_status(status, lang)
    if winners:
        text += f" · {capital(t('winner', lang))} {('、' if lang == 'zh' else ', ').join(winners)}"
    return text


def session_name(stage: Stage, number: int, lang: str) -> str:
    """A session as the pages name it: 淘汰赛 第 1 节 / Knockout period 1."""
    return t("session_name", lang, stage=stage.zh if lang == "zh" else stage.en, n=number)


def refusal_text(exc: Refusal, lang: str) -> str:
    """A refusal in the visitor's language: its ``err_*`` words, the tables it names each with
    its status (第 2 桌：无成绩); one without words says its message."""
    if not exc.key:
        return str(exc)
    fmt: dict[str, object] = {}
    for name, value in exc.fmt.items():
        if name == "tables" and isinstance(value, list):
            value = "；".join(f"{t('table_n', lang, n=n)}：{table_status(r, lang)}" for n, r in value) if lang == "zh" \
                else "; ".join(f"{t('table_n', lang, n=n)}: {table_status(r, lang)}" for n, r in value)
        elif name == "name" and exc.key == "err_number":  # a form's field, by its label
            value = t({"player": "entrant"}.get(str(value), str(value)), lang)
        elif isinstance(value, list):
            value = ("、" if lang == "zh" else ", ").join(map(str, value))
        fmt[name] = value
    return t(exc.key, lang, **fmt)


def clock_state(state: str, lang: str) -> str:
    """The session clock's state in words (``running``: 计时中; ``time_up``: 时间到)."""
    return capital(t("status_time", lang)) if state == "time_up" else t(f"ck_{state}", lang)
