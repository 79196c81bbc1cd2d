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
    "finished_hands": "已完成 {n} 局",
}, {
    "other_lang": "中文", "login": "Log in", "logout": "Log out", "bad_pin": "Wrong PIN", "date": "Date",
    "stale_form": "This page has expired: reload it and try again",
    "finished_hands": "hands finished: {n}",
}, under=GAME)
