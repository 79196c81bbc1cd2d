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
    # a match's hands in three counts, said alike on every page of both sites (hands_line)
    "finished_hands": "已完成 {n} 局", "finished_hands_1": "已完成 1 局", "void_hands": "作废 {n} 局",
    "void_hands_1": "作废 1 局", "hand_in_play": "第 {n} 局进行中",
}, {
    "other_lang": "中文", "login": "Log in", "logout": "Log out", "bad_pin": "Wrong PIN", "date": "Date",
    "stale_form": "This page has expired: reload it and try again",
    "finished_hands": "{n} hands finished", "finished_hands_1": "1 hand finished", "void_hands": "{n} void",
    "void_hands_1": "1 void", "hand_in_play": "hand {n} in play",
}, under=GAME)


def counted(words: Words, key: str, n: int, lang: str, **fmt: object) -> str:
    """``key`` said of ``n`` things in ``words``: the ``key_1`` form for one (English: 1 card, 2 cards)."""
    return words(f"{key}_1" if n == 1 and f"{key}_1" in words else key, lang, n=n, **fmt)


def hands_line(finished: int, void: int, in_play: int | None, lang: str) -> str:
    """A match's hands as every page of both sites says them, in one order: 已完成 3 局 · 作废 1 局 ·
    第 5 局进行中 (void and in play only when there are any).

    >>> hands_line(1, 3, 5, "zh"), hands_line(2, 1, None, "en")
    ('已完成 1 局 · 作废 3 局 · 第 5 局进行中', '2 hands finished · 1 void')
    """
    parts = [counted(KIT, "finished_hands", finished, lang)]
    if void:
        parts.append(counted(KIT, "void_hands", void, lang))
    if in_play is not None:
        parts.append(KIT("hand_in_play", lang, n=in_play))
    return " · ".join(parts)
