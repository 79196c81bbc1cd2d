"""The club server's words, Chinese first (the default) and English, as on the table site.

A visitor's language comes from ``?lang=zh|en`` (remembered in a cookie), else the cookie,
else Chinese. Game terms follow docs/rules.md: 地主 landlord, 倍数 multiplier, 筹码 chips.

>>> t("hall", "zh"), t("hall", "en")
('大厅屏幕', 'Hall screen')
>>> t("table_n", "zh", n=7)
'第 7 桌'
"""

from __future__ import annotations

from engine.words import DEFAULT_LANG, LANGS, Words, choose_lang, normal_lang, other_lang, switch_url  # noqa: F401

_ZH: dict[str, str] = {
    "site": "斗地主俱乐部赛", "hall": "大厅屏幕", "director": "裁判长", "me": "我的比赛", "other_lang": "English",
    "table_n": "第 {n} 桌", "hand_no": "第 {n} 局", "no_hand": "等待发牌", "multiplier": "倍数", "landlord": "地主",
    "out": "筹码输光", "clock": "比赛时间", "remaining": "剩余", "leaderboard": "排行榜", "rank": "名次",
    "player": "选手", "points": "积分", "chips": "筹码", "club_id": "会员号", "status": "状态",
    "st_waiting": "等待开始", "st_playing": "进行中", "st_bust": "有人输光，本桌结束", "st_time": "时间到",
    "st_tie_break": "同分：加赛一局", "st_ended": "已结束", "st_dissolved": "解散",
    "ck_not_started": "未开始", "ck_running": "计时中", "ck_paused": "暂停", "ck_time_up": "时间到", "ck_ended": "已结束",
    "no_tournament": "还没有比赛。请裁判长在裁判长页面创建。", "no_session": "还没有抽签分桌。",
    "online": "在线", "offline": "离线", "winner": "胜者", "extra_hand": "需要加赛一局", "session_n": "{stage} 第 {n} 节（共 {of} 节）",
    "pin": "裁判长密码", "login": "登录", "logout": "退出", "bad_pin": "密码不对", "too_many": "尝试太多次，请 {s} 秒后再试",
    "new_tournament": "新建比赛", "name": "名称", "format": "赛制", "seed": "抽签种子（空 = 随机）", "rounds": "轮数",
    "minutes": "每节分钟", "evenings": "晚数", "create": "创建", "players": "选手", "add_player": "登记选手",
    "add": "登记", "withdraw": "退赛", "draw_next": "抽签 / 换桌 / 进入下一阶段", "start": "开始计时", "pause": "暂停",
    "resume": "继续", "end_session": "结束本节", "publish": "公布成绩", "published": "成绩已公布",
    "boxes": "牌桌盒子", "club_key": "盒子登记密钥", "register_hint": "在每桌的盒子上运行：",
    "release": "解除绑定", "acked": "已收事件", "exports": "导出", "export_json": "整场比赛 JSON",
    "export_csv": "成绩表 CSV", "export_sheet": "打印成绩表（A4）", "export_tables": "各桌记录 JSON",
    "table_cards": "打印桌卡（二维码）", "seating": "座位表", "seat": "座位", "done": "已完成", "refused": "未完成",
    "my_tables": "我的桌次", "my_standing": "我的排名", "hands": "局数", "net": "输赢", "results": "比赛成绩",
    "signature": "裁判长签名", "date": "日期", "scan_me": "扫码查看我的比赛", "not_found": "找不到这个选手",
    "stage": "阶段", "table": "桌", "format_seed004": "淘汰赛 + 循环赛 + 总决赛（筹码）",
    "format_session": "单场多轮（轮换座位）", "format_league": "定分联赛（瑞士制）",
    "playoff": "同分加赛", "playoff_short": "待加赛",
    "playoff_why": "{names} 同为 {points} 分，争 {places} 个晋级名额：按规程加赛一局（并列办法：出现积分并列后，加赛一局）。",
    "playoff_2": "二人加赛：按二人斗地主打一局（每人 20 张，留 3 张底牌）。",
    "playoff_3": "三人加赛：按常规三人斗地主打一局；仍有同分的，再加赛一局。",
    "playoff_more": "多人加赛：分成三人（或二人）一桌各打一局；仍有同分的，再加赛一局。",
    "playoff_record": "加赛结束后登记名次：", "place_n": "第 {n} 名", "record_playoff": "登记加赛结果",
}

_EN: dict[str, str] = {
    "site": "Dou Dizhu club event", "hall": "Hall screen", "director": "Director", "me": "My event",
    "other_lang": "中文", "table_n": "Table {n}", "hand_no": "Hand {n}", "no_hand": "Waiting for the deal",
    "multiplier": "Multiplier", "landlord": "Landlord", "out": "Out of chips", "clock": "Clock",
    "remaining": "Left", "leaderboard": "Leaderboard", "rank": "Rank", "player": "Player", "points": "Points",
    "chips": "Chips", "club_id": "Club id", "status": "Status", "st_waiting": "Waiting", "st_playing": "Playing",
    "st_bust": "A player is out: table stopped", "st_time": "Time", "st_tie_break": "Tie: one extra hand",
    "st_ended": "Ended", "st_dissolved": "Dissolved", "ck_not_started": "Not started", "ck_running": "Running",
    "ck_paused": "Paused", "ck_time_up": "Time", "ck_ended": "Ended",
    "no_tournament": "No event yet. The director creates one on the director page.",
    "no_session": "Tables not drawn yet.", "online": "online", "offline": "offline", "winner": "Winner",
    "extra_hand": "Extra hand needed", "session_n": "{stage} period {n} of {of}", "pin": "Director PIN",
    "login": "Log in", "logout": "Log out", "bad_pin": "Wrong PIN", "too_many": "Too many tries; wait {s} s",
    "new_tournament": "New event", "name": "Name", "format": "Format", "seed": "Draw seed (empty: random)",
    "rounds": "Rounds", "minutes": "Minutes per period", "evenings": "Evenings", "create": "Create",
    "players": "Players", "add_player": "Register a player", "add": "Register", "withdraw": "Withdraw",
    "draw_next": "Draw / change tables / next stage", "start": "Start the clock", "pause": "Pause",
    "resume": "Resume", "end_session": "End the period", "publish": "Publish results", "published": "Results published",
    "boxes": "Table boxes", "club_key": "Box registration key", "register_hint": "On each table's box run:",
    "release": "Release", "acked": "Events in", "exports": "Exports", "export_json": "Whole event (JSON)",
    "export_csv": "Results (CSV)", "export_sheet": "Printable results (A4)", "export_tables": "Hand records by table (JSON)",
    "table_cards": "Print table cards (QR codes)", "seating": "Seating", "seat": "Seat", "done": "Done",
    "refused": "Not done", "my_tables": "My tables", "my_standing": "My standing", "hands": "Hands", "net": "Won/lost",
    "results": "Results", "signature": "Director's signature", "date": "Date", "scan_me": "Scan for my event",
    "not_found": "No such player", "stage": "Stage", "table": "Table",
    "format_seed004": "Knockout, round robin, final (chips)", "format_session": "One session, rounds (seats rotate)",
    "format_league": "Fixed-score league (Swiss)",
    "playoff": "Play-off for a tie", "playoff_short": "play-off",
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
t = Words(_ZH, _EN)
