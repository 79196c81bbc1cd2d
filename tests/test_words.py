"""One vocabulary: every game word is written once (engine.words), in both languages, and every
word a page, a record or an export asks for is found.

The tables: the game's words (:data:`engine.words.GAME`), the words both sites share
(:data:`webkit.words.KIT`), each site's own (``webui.i18n``, ``club.words``), and the record's and the
analysis's own sentences (:data:`engine.record_text.RECORD`, :data:`engine.analysis.ANALYSIS`).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from club import words as club_words
from engine.analysis import ANALYSIS
from engine.combination import TYPES
from engine.record_text import RECORD
from engine.words import GAME, LANGS, WORDS, Words, capital
from webkit.words import KIT
from webui import i18n

ROOT = Path(__file__).resolve().parents[1]

#: Every table but the game's own, by name.
TABLES: dict[str, Words] = {"webkit.words": KIT, "webui.i18n": i18n.t, "club.words": club_words.t,
                            "engine.record_text": RECORD, "engine.analysis": ANALYSIS}
#: The tables of the sites' pages, which look a word up through the kit and the game's words.
SITES: dict[str, Words] = {"webui": i18n.t, "club": club_words.t}


@pytest.mark.parametrize("name", ["engine.words", *TABLES])
def test_every_key_has_a_word_in_both_languages(name):
    table = GAME if name == "engine.words" else TABLES[name]
    zh, en = (table.by_lang[lang] for lang in LANGS)
    assert set(zh) == set(en), f"{name}: only Chinese {sorted(set(zh) - set(en))}, only English {sorted(set(en) - set(zh))}"
    empty = [key for key in zh if not zh[key].strip() or not en[key].strip()]
    assert not empty, f"{name}: empty words for {empty}"


def test_no_two_tables_define_the_same_game_word():
    """A game word's Chinese is written in the vocabulary alone: no other table has an entry that
    says it again, nor a key that hides one of the vocabulary's."""
    game_zh = {zh: key for key, (zh, _) in WORDS.items()}
    again = [f"{name}: {key} = {text!r} (engine.words: {game_zh[text]})"
             for name, table in TABLES.items() for key, text in table.by_lang["zh"].items() if text in game_zh]
    assert not again, "game words defined again:\n" + "\n".join(again)
    hidden = [f"{name}: {key}" for name, table in TABLES.items() for key in table.by_lang["zh"] if key in WORDS]
    assert not hidden, "keys that hide a game word:\n" + "\n".join(hidden)


def test_no_two_site_tables_define_the_same_word():
    """A word both sites use is the kit's: the two sites' own tables and the kit share no word."""
    seen: dict[str, list[str]] = {}
    for name in ("webkit.words", "webui.i18n", "club.words"):
        for key, text in TABLES[name].by_lang["zh"].items():
            seen.setdefault(text, []).append(f"{name}: {key}")
    shared = {text: where for text, where in seen.items() if len({w.split(":")[0] for w in where}) > 1}
    assert not shared, f"words defined by more than one site table: {shared}"
    kit_keys = set(KIT.by_lang["zh"])
    hidden = [f"{site}: {key}" for site, table in SITES.items() for key in table.by_lang["zh"] if key in kit_keys]
    assert not hidden, f"site keys that hide a kit word: {hidden}"


def test_each_english_form_of_a_game_word_is_one_key():
    """Several keys may share a Chinese word (认输: concede, concedes), never the same pair."""
    pairs = Counter((zh, en.lower()) for zh, en in WORDS.values())
    assert not [pair for pair, n in pairs.items() if n > 1]


def test_the_vocabulary_names_every_play_type_joker_and_suit():
    assert all(f"type_{kind}" in WORDS for kind in TYPES)
    assert {f"card_{j}" for j in ("BJ", "RJ")} | {f"suit_{s}" for s in "shdc"} <= set(WORDS)
    assert (GAME("card_BJ", "zh"), GAME("card_RJ", "en"), GAME("type_straight", "en")) == ("小王", "big joker", "straight")


def test_a_heading_capitalises_the_english_word_only():
    assert capital(GAME("landlord", "en")) == "Landlord" and capital(GAME("landlord", "zh")) == "地主"
    assert capital(GAME("emperor", "en")) == "Di Zhu"


def _keys_asked(folder: Path) -> set[str]:
    """The word keys a site's templates and modules ask for by name: ``t('key')``, ``t("key", ...)``."""
    asked: set[str] = set()
    for path in [*folder.rglob("*.html"), *folder.rglob("*.py")]:
        text = path.read_text(encoding="utf-8")
        asked |= set(re.findall(r"""\bt\(\s*['"]([a-z][a-z0-9_]*)['"]\s*[,)]""", text))
    return asked


@pytest.mark.parametrize("site", SITES)
def test_every_word_a_site_asks_for_by_name_is_found(site):
    words = SITES[site]
    missing = sorted(key for key in _keys_asked(ROOT / site) | _keys_asked(ROOT / "webkit") if key not in words)
    assert not missing, f"{site} asks for words no table holds: {missing}"
