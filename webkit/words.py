"""The page words both sites use, Chinese first, over the game's words (:data:`engine.words.GAME`).

A site's own table sits on :data:`KIT`, so a page looks a word up in the site's table, then
here, then among the game's words.

>>> KIT("login", "en"), KIT("other_lang", "zh"), KIT("landlord", "zh")
('Log in', 'English', '地主')
"""

from __future__ import annotations

from engine.words import GAME, Words

KIT = Words({
    "other_lang": "English", "login": "登录", "logout": "退出", "bad_pin": "密码不对", "date": "日期",
    "stale_form": "页面已过期，请刷新后重试",
    # a match's hands, counted alike on every page of both sites (webkit.counts)
    "finished_hands": "已完成 {n} 局", "finished_hands_1": "已完成 1 局", "void_hands": "作废 {n} 局",
    "void_hands_1": "作废 1 局", "hand_in_play": "第 {n} 局进行中",
}, {
    "other_lang": "中文", "login": "Log in", "logout": "Log out", "bad_pin": "Wrong PIN", "date": "Date",
    "stale_form": "This page has expired: reload it and try again",
    "finished_hands": "{n} hands finished", "finished_hands_1": "1 hand finished", "void_hands": "{n} void",
    "void_hands_1": "1 void", "hand_in_play": "hand {n} in play",
}, under=GAME)

