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

from club.formats import SEED004
from engine.words import Words, capital
from webkit.words import KIT

_ZH: dict[str, str] = {
    "site": "斗地主俱乐部赛", "hall": "大厅屏幕", "director": "裁判长", "me": "我的比赛",
    "table_n": "第 {n} 桌",
    "remaining": "剩余", "leaderboard": "排行榜", "rank": "名次",
    "entrant": "选手", "club_id": "会员号",
    "st_waiting": "等待开始", "st_bust": "有人输光，本桌结束",
    "st_tie_break": "同分：加赛一局", "st_ended": "已结束",
    "ck_not_started": "未开始", "ck_running": "计时中", "ck_paused": "暂停", "ck_ended": "已结束",
    "no_tournament": "还没有比赛。请裁判长在裁判长页面创建。", "no_session": "还没有抽签分桌。",
    "online": "在线", "offline": "离线", "extra_hand": "需要加赛一局", "session_n": "{stage} 第 {n} 节（共 {of} 节）",
    "pin": "裁判长密码", "too_many": "尝试太多次，请 {s} 秒后再试",
    "new_tournament": "新建比赛", "name": "名称", "format": "赛制", "seed": "抽签种子（空 = 随机）", "rounds": "轮数",
    "minutes": "每节分钟", "evenings": "晚数", "create": "创建", "entrants": "选手", "add_player": "登记选手",
    "add": "登记", "withdraw": "退赛", "draw_next": "抽签 / 换桌 / 进入下一阶段", "start": "开始计时", "pause": "暂停",
    "resume": "继续", "end_session": "结束本节", "publish": "公布成绩", "published": "成绩已公布",
    "boxes": "牌桌盒子", "club_key": "盒子登记密钥", "register_hint": "在每桌的盒子上运行：",
    "release": "解除绑定", "acked": "已收事件", "exports": "导出", "export_json": "整场比赛 JSON",
    "export_csv": "成绩表 CSV", "export_sheet": "打印成绩表（A4）", "export_tables": "各桌记录 JSON",
    "table_cards": "打印桌卡（二维码）", "seating": "座位表", "done": "已完成", "refused": "未完成",
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
}
_EN: dict[str, str] = {
    "site": "Dou Dizhu club event", "hall": "Hall screen", "director": "Director", "me": "My event",
    "table_n": "Table {n}",
    "remaining": "Left", "leaderboard": "Leaderboard", "rank": "Rank", "entrant": "Player",
    "club_id": "Club id", "st_waiting": "Waiting",
    "st_bust": "A player is out: table stopped", "st_tie_break": "Tie: one extra hand",
    "st_ended": "Ended", "ck_not_started": "Not started", "ck_running": "Running",
    "ck_paused": "Paused", "ck_ended": "Ended",
    "no_tournament": "No event yet. The director creates one on the director page.",
    "no_session": "Tables not drawn yet.", "online": "online", "offline": "offline",
    "extra_hand": "Extra hand needed", "session_n": "{stage} period {n} of {of}", "pin": "Director PIN",
    "too_many": "Too many tries; wait {s} s",
    "new_tournament": "New event", "name": "Name", "format": "Format", "seed": "Draw seed (empty: random)",
    "rounds": "Rounds", "minutes": "Minutes per period", "evenings": "Evenings", "create": "Create",
    "entrants": "Players", "add_player": "Register a player", "add": "Register", "withdraw": "Withdraw",
    "draw_next": "Draw / change tables / next stage", "start": "Start the clock", "pause": "Pause",
    "resume": "Resume", "end_session": "End the period", "publish": "Publish results", "published": "Results published",
    "boxes": "Table boxes", "club_key": "Box registration key", "register_hint": "On each table's box run:",
    "release": "Release", "acked": "Events in", "exports": "Exports", "export_json": "Whole event (JSON)",
    "export_csv": "Results (CSV)", "export_sheet": "Printable results (A4)", "export_tables": "Hand records by table (JSON)",
    "table_cards": "Print table cards (QR codes)", "seating": "Seating", "done": "Done",
    "refused": "Not done", "my_tables": "My tables", "my_standing": "My standing", "hands_played": "Hands", "net": "Won/lost",
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
}

WORDS = {"zh": _ZH, "en": _EN}

#: ``t(key, lang, **fmt)``: the word for ``key`` (an unknown key shows itself).
t = Words(_ZH, _EN, under=KIT)

#: A table's status (:class:`club.tournament.TableResult` ``reason``) said as a match's status says it.
GAME_STATUSES = {"playing": "status_playing", "time": "status_time", "dissolved": "status_dissolved"}


def table_status(status: str, lang: str) -> str:
    """A club table's status in words: the club's own (``st_waiting``) or the game's (进行中)."""
    return capital(t(GAME_STATUSES.get(status, f"st_{status}"), lang))


def clock_state(state: str, lang: str) -> str:
    """The session clock's state in words (``running``: 计时中; ``time_up``: 时间到)."""
    return capital(t("status_time", lang)) if state == "time_up" else t(f"ck_{state}", lang)
