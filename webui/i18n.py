"""The table site's own words in Chinese (the default: club players read it first) and English.

This table holds the words of the site's pages alone; a game word (a card, a play's type, an
event, an outcome, a status: :mod:`engine.words`) and a word both sites use (:mod:`webkit.words`)
are looked up under it, so ``t`` finds them all. The visitor's language: :mod:`webkit.lang`.

>>> t("hand_no", "zh", n=3), capital(t("landlord", "en")), t("referee", "en")
('第 3 局', 'Landlord', 'Referee')
"""

from __future__ import annotations

from engine.words import LANGS, Words, capital, cause_name, type_name  # noqa: F401  (the pages name these from here)
from tracker import alerts
from webkit import counts as kit_counts
from webkit.counts import hands_line as counts_line
from webkit.words import KIT

_ZH: dict[str, str] = {
    "site": "斗地主裁判台", "live": "实况", "referee": "裁判", "history": "记录",
    "cards": "张", "waiting": "等待",
    "this_hand": "本局得分", "match_totals": "总分", "points": "分", "alerts": "裁判提示", "handled": "裁判已处理",
    "no_alerts": "暂无提示", "chart": "比分走势", "no_chart": "打完一局后显示走势", "camera": "摄像头",
    "camera_off": "摄像头画面未开启", "show_camera": "显示画面", "hide_camera": "隐藏画面",
    "connected": "已连接", "reconnecting": "正在重连…", "no_match": "还没有比赛。请裁判在裁判页开始一场比赛。",
    "stake_pair": "每位地主与每位农民输赢 {n} 分",
    "trick_lead": "首出",
    "cards_1": "张",
    # referee
    "pin": "裁判密码",
    "pin_locked": "这个地址输错密码太多次，请 {s} 秒后再试",
    "start_match": "开始比赛", "players_in_order": "玩家（按座位顺序）", "match_name": "比赛名称", "scoring": "计分方式",
    "time_limit": "时间限制（分钟，0 为不限）", "chips_start": "起始筹码", "chips_base": "每局筹码底数",
    "player_double": "允许加倍（地主定后、出牌前每人可加倍一次，每次 ×2；五人斗地主总是允许）",
    "new_hand": "发新一局", "set_landlord": "指定地主",
    "value": "分数", "mark_pass": "记为不出", "enter_play": "记录出牌",
    "reason": "原因", "end_match": "结束比赛",
    "judge": "规则裁定", "judge_cards": "要判定的牌（或：牌 > 要管的牌）", "judge_after": "要管的牌（空=当前牌面）",
    "judge_go": "判定",
    "plays_this_hand": "本局出牌", "done": "已记录", "refused": "未记录", "current_match": "当前比赛",
    "dropped_card": "掉牌", "kitty_cards": "底牌（可选）", "apply": "记录",
    "referee_only": "裁判操作（每一步都会记入事件）", "confirm": "确定吗？",
    # confirmations name who and what ({who}, {points}, {reason}: filled from the form by site.js)
    "confirm_concede": "记录 {who} 认输？第 {n} 局就此结束，按认输结算。",
    "confirm_escape": "记录 {who} 逃跑？第 {n} 局就此结束，逃跑的人按规则罚分。",
    "confirm_abandon": "第 {n} 局作废？本局不计分，要重新发牌。",
    "confirm_penalty": "罚 {who} {points} 分（{reason}）？",
    "confirm_open_hand": "记录 {who} 明牌？倍数 ×{n}。", "confirm_delete": "删除 #{i}：{what}？",
    "confirm_end_match": "结束第 {id} 场比赛？", "confirm_end_void": "第 {n} 局还没打完，将作废。",
    "confirm_end_winner": "按现在的总分，胜者：{who}。", "done_what": "{done}：{what}", "ev_penalty": "{name} 罚 {n} 分", "ev_penalty_1": "{name} 罚 1 分",
    "events_this_hand": "本局过程（可更正、删除；多处错误请从最后一步改起）", "delete": "删除", "insert": "补记",
    "to_pass": "改为不出", "to_play": "改为出牌", "was_a_play": "其实出了：牌",
    "insert_at": "插在", "at_end": "最后", "auto_seat": "轮到的人",
    "open_hand_button": "{name} 明牌 ×{n}", "announce_button": "报牌（剩 {n} 张或更少）",
    "announced": "已报牌", "record_as": "改正后记录", "record_as_laid": "按放下的记录", "missed_cards": "漏读的牌",
    "join": "手机扫码看比分", "join_big": "放大二维码",
    "join_local": "这个地址只有本机能打开。要让手机加入，请用 --host 0.0.0.0 启动（同一 Wi-Fi）。",
    # the camera's state (live and referee pages)
    "cam_manual": "手动记录（没有摄像头）", "cam_feed": "程序录入（没有摄像头）", "cam_starting": "正在启动",
    "cam_connected": "已连接", "cam_stalled": "{n} 秒没有画面", "cam_reconnecting": "断开了，正在重连",
    "cam_reconnecting_since": "断开了，{since} 起正在重连", "cam_calibration_lost": "找不到桌垫（校准丢失），请检查摄像头和桌垫",
    "cam_ended": "视频源已结束", "cam_error": "出错停止：{error}",
    # the copy to the club server (run --club; referee page)
    "club_server": "俱乐部服务器", "club_connecting": "正在连接", "club_in_step": "已同步",
    "club_sending": "正在上传，待上传 {n} 条", "club_unreachable": "未连接，待上传 {n} 条",
    "club_unreachable_never": "未连接（还没有连上过）", "club_refused": "服务器拒绝：{error}",
    "club_last_ok": "上次同步 {since}",
    # history
    "matches": "比赛", "started": "开始时间", "replay": "回放", "step": "第 {n} 步 / 共 {m} 步",
    "analysis": "复盘", "analysis_progress": "复盘计算中：已解出 {done} / {total} 个局面",
    "analysis_queued": "复盘排队中，稍候即可查看", "analysis_missing": "亮牌后（每位还有牌的玩家把剩余的牌正面朝上摆出）即可复盘。",
    "analysis_solved": "明牌求解，用时 {s} 秒；完整分析：ddz-table analyse",
    "prev": "上一步", "next": "下一步", "first": "开头", "last": "结尾", "download": "下载",
    "json_record": "JSON 记录", "csv_sheet": "CSV 记分表", "text_zh": "文字版（中文）", "text_en": "文字版（英文）",
    "no_matches": "还没有比赛记录", "back": "返回", "events": "事件",
    # the words a referee reads after an action (webui.referee_page flashes ``done_<action>``)
    "done_start_match": "已开始新比赛 #{n}", "done_end_match": "比赛已结束", "done_penalty": "已记录罚分",
    "done_new_hand": "已发新一局", "done_bid": "已记录叫分", "done_landlord": "已指定地主", "done_kitty": "已记录底牌",
    "done_play": "已记录出牌", "done_pass": "已记录不出", "done_correct": "已更正", "done_insert": "已补记",
    "done_delete": "已删除", "done_undo": "已撤销上一步", "done_open_hand": "已记录明牌", "done_announce": "已记录报牌",
    "done_concede": "已记录认输", "done_escape": "已记录逃跑", "done_abandon": "本局已作废",
    "undo_what": "撤销：{what}", "corrected": "已更正", "new_match_running": "比赛还在进行：开始新比赛会另起一场",
    "new_match_confirm": "比赛还在进行：开始新比赛会另起一场。确定吗？",
    # keypad (referee page)
    "kp_title": "按键输入", "kp_hint": "点牌面输入出牌；花色可不填", "kp_suits": "花色", "kp_back": "退格",
    "kp_clear": "清除", "kp_open": "按键", "kp_suit_first": "先点一个牌面，再点花色", "kp_cards_n": "{n} 张",
    "kp_checking": "判断牌型…", "kp_no_type": "（无法判断牌型）", "seat_option": "{n} · {name}",
    "ev_play": "{name} 出 {cards}", "ev_pass": "{name} 不出", "ev_landlord": "{name} 当地主（底分 {n}）",
    "ev_kitty": "底牌 {cards}", "ev_open_hand": "{name} 明牌", "ev_announce": "{name} 报牌",
    "ev_escape": "{name} 逃跑", "ev_concede": "{name} 认输",
    "fix_conflicts": "与之后 {event} 冲突（{cause}）", "fix_fails": "更正后的 {event} 不成立（{cause}）",
    # score sheet and history
    "sheet_title": "斗地主记分表", "print_sheet": "打印记分表", "print": "打印",
    "sheet_table": "比赛（桌）",
    "sheet_ending": "结局", "sheet_grabs": "抢地主 {n} 次",
    "sheet_out": "打完",
    "sheet_conceded": "{name}认输", "sheet_escaped": "{name}逃跑",
    "sheet_redeal": "流局（无人叫，重新发牌）",
    "sheet_penalty_in": "第 {n} 局中", "sheet_start": "起始筹码",
    "sheet_signature": "裁判签名", "sheet_no_hands": "还没有打过的局",
    "sheet_match_n": "第 {n} 场比赛", "sheet_winner_none": "无",
    # deck enrollment (referee page)
    "deck_title": "录入牌组", "deck_link": "录入本俱乐部的牌组",
    "deck_switch": "换一副牌", "deck_in_use": "现在按牌组「{name}」识别。", "deck_in_use_none": "现在没有用录入的牌组（通用识别）。",
    "deck_none": "不用录入的牌组", "deck_use": "改用这副", "deck_using": "已改用牌组「{name}」", "deck_using_none": "已改回通用识别",
    "deck_switch_note": "换牌时（比如换了一副新牌）在两局之间改；重启后仍按设置文件里的 [model] deck。",
    "deck_intro": "教本机认识俱乐部自己的牌：分几批把牌正面朝上摆在桌垫上，读取、核对、确认，最后保存。54 张牌约三分钟。",
    "deck_no_camera": "录入牌组要用摄像头：请用 ddz-table run 启动本机（现在没有摄像头，例如 ddz-table serve）。",
    "deck_cli_way": "也可以在电脑上用命令录入：拍一张全副牌摊开的照片，用 YOLO 格式标出每个牌角，然后运行：",
    "deck_name": "牌组名称", "deck_name_hint": "字母、数字、_ - .，例如 club",
    "deck_batch_size": "每批张数", "deck_per_row": "每行张数", "deck_small_mat": "桌垫小就用小一点的批次（例如每批 9 张）。",
    "deck_start": "开始录入", "deck_batch_of": "第 {k} 批，共 {n} 批",
    "deck_lay_out": "把这些牌正面朝上，按这个顺序一行一行摆在桌垫上（从左到右，从上到下），然后点「读取」：",
    "deck_read": "读取", "deck_read_again": "重新读取", "deck_reads": "读到的牌",
    "deck_read_count": "读到 {n} 张，这一批有 {m} 张。", "deck_tap_hint": "黄色格子是读得和应摆的牌不一样的：点一格可以改正它是哪张牌。",
    "deck_cell": "第 {row} 行第 {col} 张", "deck_was_read": "读成", "deck_not_a_card": "不是牌",
    "deck_confirm": "确认这一批", "deck_skip": "跳过这一批",
    "deck_skip_hint": "实在读不出来的牌（例如大小王）可以跳过这一批，这些牌照旧识别。",
    "deck_skip_sure": "跳过这一批？这些牌不录入。", "deck_cancel": "放弃录入", "deck_cancel_sure": "放弃这次录入？已确认的批次都不保存。",
    "deck_all_done": "全部 {n} 批都处理好了，录入了 {m} 张牌。", "deck_save": "保存牌组",
    "deck_saving_note": "保存要算几秒到一分钟，请稍候。",
    "deck_paused": "录入期间暂停裁判：桌上摆的牌不算出牌。",
    "deck_confirmed": "第 {k} 批已确认", "deck_cancelled": "已放弃录入，裁判继续",
    "deck_saved": "已保存牌组 {name}，本机现在就用它识别。",
    "deck_permanent": "要以后一直用它：在 config.toml 里写", "deck_or_run": "或者这样启动：",
    "deck_file": "文件", "deck_clear_mat": "请把桌垫上的牌收走，裁判已继续。", "deck_again": "再录一副",
    "deck_save_train": "保存并训练识别模型", "deck_train_again": "再训练一次",
    "deck_training_will": "保存时用这些牌训练本牌组自己的识别模型，大约一到几分钟；训练期间暂停裁判。",
    "deck_training": "正在训练本牌组的识别模型", "deck_training_line": "正在训练本牌组的识别模型 {percent}% · {doing}",
    "deck_training_for": "已用 {s} 秒", "deck_training_note": "本页会自己更新，训练完成后自动启用。",
    "deck_switched_on": "已启用",
    "deck_result": "留出检验的牌角读对：训练前 {before}% → 训练后 {after}%（{n} 个牌角）。",
    "deck_result_none": "牌角太少，没有留出检验。",
    "deck_train_refused": "没有保存", "deck_train_again_hint": "可以核对各批的牌后重新录入，或者再训练一次，或者放弃录入。",
    "deck_photos_title": "在电脑上训练识别模型",
    "deck_photos_why": "本机没有训练组件（torch），只保存了评分档案；确认过的各批照片和牌角已存成一个标注文件夹。"
                       "要训练本牌组自己的识别模型（读得更准）：",
    "deck_photos_copy": "把这个文件夹复制到一台装有 ddz-table 源码和训练组件（pip install '.[train]'）的电脑上：",
    "deck_photos_run": "在那台电脑上、文件夹所在的目录里运行：",
    "deck_photos_back": "把生成的 .npz 文件复制回本机的牌组文件夹（替换同名文件）：",
    "deck_photos_switch": "回到本页，在「换一副牌」里选「{name}」，点「改用这副」。",
    "deck_enroll_this": "录入这副牌",
    # live page: stakes, trick, bids
    "ev_marker": "标记牌 {cards}，{name} 为明地主",
    "ev_reveal": "{name} 亮出身份（暗地主）", "ev_double": "{name} 加倍", "ev_kitty_pick": "{name} 取底牌 {cards}",
    "stakes": "本局输赢", "stake_landlord": "地主赢 {win} / 输 {loss}", "stake_farmer": "农民各赢 {win} / 输 {loss}",
    "to_beat": "要管：{who}的{play}", "lead_of": "轮到 {who} 首出", "turn_of": "轮到 {who} 出牌",
    "bid_turn_of": "轮到 {who} 叫分",
    "penalty_of": "罚分：{who} {points}",
    "conceded_by": "{who} 认输", "escaped_by": "{who} 逃跑",
    "ended_by_referee": "裁判结束了比赛",
    "ph_single": "单张 {r}", "ph_pair": "对 {r}", "ph_trio": "三张 {r}", "ph_trio_single": "三个 {r} 带一",
    "ph_trio_pair": "三个 {r} 带一对", "ph_bomb": "{r} 炸弹", "ph_bomb_n": "{n} 个 {r} 的炸弹",
    "ph_four_two_single": "四个 {r} 带二", "ph_four_two_pair": "四个 {r} 带两对", "ph_straight": "顺子 {r}–{h}",
    "ph_pair_straight": "连对 {r}–{h}", "ph_airplane": "飞机 {r}–{h}", "ph_airplane_single": "飞机带单 {r}–{h}",
    "ph_airplane_pair": "飞机带对 {r}–{h}",
    # after the hand: cards shown (亮牌) and the deck audit
    "ev_shown": "{name} 亮牌 {cards}", "done_shown": "已记录亮牌", "shown_cards": "亮牌（剩余的牌）",
    "show_hands": "请输家把剩余的牌正面朝上摆在自己区域",
}
_EN: dict[str, str] = {
    "site": "Dou Dizhu table", "live": "Live", "referee": "Referee", "history": "History",
    "cards": "cards", "waiting": "waiting",
    "this_hand": "This hand", "match_totals": "Match", "points": "pts", "alerts": "Referee alerts", "handled": "handled by the referee",
    "no_alerts": "No alerts", "chart": "Score progression", "no_chart": "The chart starts after the first hand",
    "camera": "Camera", "camera_off": "The camera view is off", "show_camera": "Show camera",
    "hide_camera": "Hide camera", "connected": "live", "reconnecting": "reconnecting…",
    "no_match": "No match yet. The referee starts one on the referee page.",
    "stake_pair": "{n} between each landlord and each farmer", "cards_1": "card",
    "trick_lead": "leads",
    "pin": "Referee PIN",
    "pin_locked": "Too many wrong PINs from this address: try again in {s} s", "start_match": "Start a match",
    "players_in_order": "Players (in seat order)", "match_name": "Match name", "scoring": "Scoring format",
    "time_limit": "Time limit (minutes, 0 = none)", "chips_start": "Starting chips", "chips_base": "Chips per hand",
    "player_double": "Players may double: once each, after the landlord is known and before the first play, "
                     "x2 each (always on for five players)",
    "new_hand": "Deal a new hand",
    "set_landlord": "Set landlord", "value": "Value", "mark_pass": "Mark a pass",
    "enter_play": "Enter a play",
    "reason": "Reason", "end_match": "End match",
    "judge": "Rules check", "judge_cards": "Cards to judge (or: cards > to beat)", "judge_after": "To beat (empty = the table)",
    "judge_go": "Judge",
    "plays_this_hand": "Plays this hand", "done": "Recorded", "refused": "Not recorded",
    "current_match": "Current match", "dropped_card": "dropped card",
    "kitty_cards": "Kitty cards (optional)", "apply": "Record", "referee_only": "Referee actions (each one is an event)",
    "confirm": "Are you sure?",
    "confirm_concede": "Record that {who} concedes? Hand {n} ends here and is settled as a concession.",
    "confirm_escape": "Record that {who} escaped? Hand {n} ends here; the escaper is penalised by the rules.",
    "confirm_abandon": "Abandon hand {n}? It scores nothing and is dealt again.",
    "confirm_penalty": "Penalise {who} {points} points ({reason})?",
    "confirm_open_hand": "Record that {who} opens the hand? Multiplier ×{n}.", "confirm_delete": "Delete #{i}: {what}?",
    "confirm_end_match": "End match #{id}?", "confirm_end_void": "Hand {n} is not finished and will be void.",
    "confirm_end_winner": "On the totals now the winner is {who}.", "done_what": "{done}: {what}", "ev_penalty": "{name} penalised {n} points",
    "ev_penalty_1": "{name} penalised 1 point",
    "events_this_hand": "This hand (correct or delete; several mistakes: fix the last one first)", "delete": "Delete", "insert": "Insert",
    "to_pass": "Was a pass", "to_play": "Was a play", "was_a_play": "cards actually played",
    "insert_at": "Insert at", "at_end": "the end", "auto_seat": "seat to play",
    "open_hand_button": "{name} opens the hand ×{n}", "announce_button": "Announce ({n} cards or fewer)",
    "announced": "announced", "record_as": "Record as", "record_as_laid": "Record as laid:", "missed_cards": "the missed cards", "join": "Follow on your phone", "join_big": "Show the code full size",
    "join_local": "Only this machine can open this address. Start with --host 0.0.0.0 so phones on the "
                  "same Wi-Fi can join.",
    "cam_manual": "fed by hand (no camera)", "cam_feed": "fed by a program (no camera)", "cam_starting": "starting",
    "cam_connected": "connected", "cam_stalled": "no frames for {n} s", "cam_reconnecting": "disconnected, reconnecting",
    "cam_reconnecting_since": "disconnected, reconnecting since {since}",
    "cam_calibration_lost": "calibration lost: the mat cannot be found; check the camera and the mat",
    "cam_ended": "the source has ended", "cam_error": "stopped on an error: {error}",
    "club_server": "Club server", "club_connecting": "connecting", "club_in_step": "in step",
    "club_sending": "sending, {n} events waiting", "club_unreachable": "unreachable, {n} events waiting",
    "club_unreachable_never": "unreachable (not reached yet)", "club_refused": "refused by the server: {error}",
    "club_last_ok": "last in step at {since}",
    "matches": "Matches", "started": "Started", "replay": "Replay", "step": "Step {n} of {m}",
    "analysis": "Analysis", "analysis_progress": "Analysing: {done} of {total} positions solved",
    "analysis_queued": "Analysis queued: it will show here shortly",
    "analysis_missing": "Once every seat still holding cards has shown them face up, the hand can be analysed.",
    "analysis_solved": "Solved with every hand visible in {s} s; for the full analysis: ddz-table analyse",
    "prev": "Back", "next": "Next", "first": "Start", "last": "End", "download": "Download",
    "json_record": "JSON record", "csv_sheet": "CSV score sheet", "text_zh": "Text (Chinese)",
    "text_en": "Text (English)", "no_matches": "No matches recorded yet", "back": "Back",
    "events": "Events",
    "done_start_match": "Match #{n} started", "done_end_match": "Match ended", "done_penalty": "Penalty recorded",
    "done_new_hand": "New hand dealt", "done_bid": "Bid recorded", "done_landlord": "Landlord set",
    "done_kitty": "Kitty recorded", "done_play": "Play recorded", "done_pass": "Pass recorded",
    "done_correct": "Corrected", "done_insert": "Inserted", "done_delete": "Deleted", "done_undo": "Last event undone",
    "done_open_hand": "Open hand recorded", "done_announce": "Announcement recorded", "done_concede": "Concession recorded",
    "done_escape": "Escape recorded", "done_abandon": "Hand abandoned",
    "undo_what": "Undo: {what}", "corrected": "corrected",
    "new_match_running": "A match is in progress: starting a new one opens another match",
    "new_match_confirm": "A match is in progress: starting a new one opens another match. Are you sure?",
    # keypad (referee page)
    "kp_title": "Keypad", "kp_hint": "Tap the ranks to enter a play; suits are optional", "kp_suits": "Suits",
    "kp_back": "Back", "kp_clear": "Clear", "kp_open": "Keypad", "kp_suit_first": "Tap a rank first, then its suit",
    "kp_cards_n": "{n} cards", "kp_checking": "checking…", "kp_no_type": "(type unknown)", "seat_option": "{n} · {name}",
    "ev_play": "{name} plays {cards}", "ev_pass": "{name} passes", "ev_landlord": "{name} is landlord (base {n})",
    "ev_kitty": "kitty {cards}", "ev_open_hand": "{name} opens the hand", "ev_announce": "{name} announces",
    "ev_escape": "{name} escapes", "ev_concede": "{name} concedes",
    "fix_conflicts": "conflicts with the later {event} ({cause})", "fix_fails": "the corrected {event} is refused ({cause})",
    # score sheet and history
    "sheet_title": "Dou Dizhu score sheet", "print_sheet": "Print score sheet", "print": "Print",
    "sheet_table": "Match (table)",
    "sheet_ending": "Ending",
    "sheet_grabs": "grabbed {n}×",
    "sheet_out": "played out", "sheet_conceded": "{name} conceded", "sheet_escaped": "{name} escaped",
    "sheet_redeal": "redeal (nobody bid)",
    "sheet_penalty_in": "during hand {n}", "sheet_start": "Starting chips",
    "sheet_signature": "Referee's signature",
    "sheet_no_hands": "No hands played yet", "sheet_match_n": "Match {n}", "sheet_winner_none": "none",
    # deck enrollment (referee page)
    "deck_title": "Enroll the club's deck", "deck_link": "Enroll the club's own deck",
    "deck_switch": "Switch decks", "deck_in_use": "Reading with the deck profile {name}.",
    "deck_in_use_none": "Reading without a deck profile (any deck).", "deck_none": "No deck profile",
    "deck_use": "Use this one", "deck_using": "Now reading with the deck {name}",
    "deck_using_none": "Now reading without a deck profile",
    "deck_switch_note": "Switch between hands when the table changes decks; after a restart the box reads with "
                        "[model] deck of its settings file.",
    "deck_intro": "Teach the box your club's own cards: lay the deck out face up on the mat a batch at a time, "
                  "read, check, confirm, then save. About three minutes for 54 cards.",
    "deck_no_camera": "Enrolling a deck needs the camera: start the box with ddz-table run (this site has no camera, "
                      "as with ddz-table serve).",
    "deck_cli_way": "Or enroll from a computer: photograph the whole deck laid out, box every corner index in "
                    "YOLO format, then run:",
    "deck_name": "Deck name", "deck_name_hint": "letters, digits, _ - . such as club",
    "deck_batch_size": "Cards a batch", "deck_per_row": "Cards a row",
    "deck_small_mat": "A small mat takes smaller batches (9 a batch, say).",
    "deck_start": "Start", "deck_batch_of": "Batch {k} of {n}",
    "deck_lay_out": "Lay these cards out face up on the mat in rows, in this order (left to right, top to bottom), "
                    "then press Read:",
    "deck_read": "Read", "deck_read_again": "Read again", "deck_reads": "What was read",
    "deck_read_count": "{n} cards read; this batch has {m}.",
    "deck_tap_hint": "Yellow cells were read as another card than the one laid there: tap a cell to fix which card it is.",
    "deck_cell": "row {row}, card {col}", "deck_was_read": "read", "deck_not_a_card": "not a card",
    "deck_confirm": "Confirm batch", "deck_skip": "Skip this batch",
    "deck_skip_hint": "Cards that will not read at all (the jokers, say) can be skipped: they read as before.",
    "deck_skip_sure": "Skip this batch? Its cards are not enrolled.", "deck_cancel": "Give up",
    "deck_cancel_sure": "Give this enrollment up? No confirmed batch is kept.",
    "deck_all_done": "All {n} batches done; {m} cards enrolled.", "deck_save": "Save deck",
    "deck_saving_note": "Saving takes a few seconds to a minute.",
    "deck_paused": "Refereeing is paused while enrolling: cards laid on the mat are no plays.",
    "deck_confirmed": "Batch {k} confirmed", "deck_cancelled": "Enrollment given up; refereeing goes on",
    "deck_saved": "Deck {name} saved: the box reads with it now.",
    "deck_permanent": "To keep using it, write in config.toml", "deck_or_run": "or start the box with",
    "deck_file": "File", "deck_clear_mat": "Clear the cards off the mat: refereeing goes on.",
    "deck_again": "Enroll another deck",
    "deck_save_train": "Save and train the reader", "deck_train_again": "Train again",
    "deck_training_will": "Saving trains the deck's own reader on these cards: one to a few minutes, while "
                          "refereeing is paused.",
    "deck_training": "Training the deck's reader", "deck_training_line": "Training the deck's reader {percent}% · {doing}",
    "deck_training_for": "{s} s so far", "deck_training_note": "This page updates itself and switches the reader on when done.",
    "deck_switched_on": "switched on",
    "deck_result": "Held-out corners read right: {before}% before → {after}% after ({n} corners).",
    "deck_result_none": "Too few corners to hold any out for a check.",
    "deck_train_refused": "Nothing saved",
    "deck_train_again_hint": "Check the batches' cards and enroll again, train once more, or give the enrollment up.",
    "deck_photos_title": "Train the reader on a computer",
    "deck_photos_why": "This box has no training extra (torch): only the score profile was saved. The confirmed "
                       "batches' photos and corners are saved as a labelled folder. To train the deck's own reader "
                       "(it reads better):",
    "deck_photos_copy": "Copy this folder to a computer with the ddz-table source and the train extra "
                        "(pip install '.[train]'):",
    "deck_photos_run": "Run this there, in the folder that holds it:",
    "deck_photos_back": "Copy the .npz file made back into this box's decks folder (replacing the one of that name):",
    "deck_photos_switch": "Back on this page, pick {name} under Switch decks and press Use this one.",
    "deck_enroll_this": "Enroll this deck",
    # live page: stakes, trick, bids
    "ev_marker": "marker {cards}: {name} is the open landlord",
    "ev_reveal": "{name} reveals (hidden landlord)", "ev_double": "{name} doubles",
    "ev_kitty_pick": "{name} takes {cards} from the kitty",
    "stakes": "At stake", "stake_landlord": "landlord wins {win} / loses {loss}",
    "stake_farmer": "each farmer wins {win} / loses {loss}",
    "to_beat": "to beat: {who}'s {play}", "lead_of": "{who} to lead", "turn_of": "{who} to play",
    "bid_turn_of": "{who} to bid",
    "penalty_of": "penalty: {who} {points}",
    "conceded_by": "{who} conceded", "escaped_by": "{who} escaped",
    "ended_by_referee": "ended by the referee",
    "ph_single": "single {r}", "ph_pair": "pair of {rs}", "ph_trio": "trio of {rs}", "ph_trio_single": "trio of {rs} + 1",
    "ph_trio_pair": "trio of {rs} + pair", "ph_bomb": "bomb of {rs}", "ph_bomb_n": "bomb of {n} {rs}",
    "ph_four_two_single": "four {rs} + two", "ph_four_two_pair": "four {rs} + two pairs",
    "ph_straight": "straight {r}–{h}", "ph_pair_straight": "pair chain {r}–{h}", "ph_airplane": "airplane {r}–{h}",
    "ph_airplane_single": "airplane {r}–{h} + singles", "ph_airplane_pair": "airplane {r}–{h} + pairs",
    # after the hand: cards shown (亮牌) and the deck audit
    "ev_shown": "{name} shows {cards}", "done_shown": "Cards shown recorded",
    "shown_cards": "Cards shown (cards left)", "show_hands": "losers: lay your remaining cards face up in your zone",
}

WORDS: dict[str, dict[str, str]] = {"zh": _ZH, "en": _EN}


#: ``t(key, lang, **fmt)``: the word for ``key`` (an unknown key shows itself).
t = Words(_ZH, _EN, under=KIT)


#: An event a page names by its kind alone (a replay's step, a row of the referee's timeline): its
#: word, and whether it reads as a heading (Marker card); another kind shows as it is named.
KIND_WORDS: dict[str, tuple[str, bool]] = {
    "announce": ("announce", False), "open_hand": ("open_hand", False), "shown": ("shown", False),
    "reveal": ("revealed", False), "double": ("doubled", False), "marker": ("marker", True),
    "penalty": ("penalty", True), "concede": ("concede", True), "escape": ("outcome_escape", False),
    "end": ("hand_closed", False), "kitty_pick": ("kitty_pick", False)}


def kind_word(kind: str, lang: str) -> str:
    """An event named by its kind (``open_hand``: 明牌 / open hand)."""
    if kind not in KIND_WORDS:
        return kind
    key, heading = KIND_WORDS[kind]
    word = t(key, lang)
    return capital(word) if heading else word


def counted(key: str, n: int, lang: str, **fmt: object) -> str:
    """``key`` said of ``n`` things: the ``key_1`` form for one (English: 1 card, 2 cards)."""
    return kit_counts.counted(key, n, lang, words=t, **fmt)


def hands_line(counts: dict, lang: str) -> str:
    """A match's hands as every page of both sites says them (:func:`webkit.counts.hands_line`)."""
    return counts_line(counts, lang)


def status_word(reason: str, lang: str) -> str:
    """Where the match stands: a match's status (:func:`engine.words.status_name`), or the site's
    own reason (``ended_by_referee``)."""
    key = f"status_{reason}"
    return t(key if key in t else reason, lang)


def alert_name(kind: str, lang: str) -> str:
    """An alert kind's short name; the words live in ``tracker.alerts.ALERTS``."""
    return alerts.kind_name(kind, lang)
