"""The texts live in gettext catalogs (issue 17, item 17): every text the code declares is in
the template, every shipped language translates every message (plural forms included) with the
same placeholders, the committed ``.mo`` files are the compiled ``.po`` files, and a third
language needs nothing but its ``.po`` file."""

from __future__ import annotations

import os
import re
import shutil
import string
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

import chatbot.service  # noqa: F401  (declares every module's texts)
import chatbot.views  # noqa: F401
from chatbot import catalogs
from chatbot.i18n import LANGUAGES, SOURCE_LANGUAGE, messages, tr

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = [lang for lang in LANGUAGES if lang != SOURCE_LANGUAGE]


def _po(lang: str):
    with (catalogs.LOCALE_DIR / lang / "LC_MESSAGES" / f"{catalogs.DOMAIN}.po").open("rb") as f:
        return read_po(f)


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def _ids(message) -> tuple[str, ...]:
    return tuple(message.id) if isinstance(message.id, (list, tuple)) else (message.id,)


def _strings(message) -> tuple[str, ...]:
    s = message.string
    return tuple(s) if isinstance(s, (list, tuple)) else (s,)


def test_german_and_english_are_shipped_and_german_is_a_catalog():
    assert LANGUAGES[:2] == ("de", "en") and SHIPPED[0] == "de"


def test_the_template_holds_exactly_the_texts_the_code_declares(tmp_path, monkeypatch):
    """The committed template is what ``stammtisch-texts extract`` makes of the code now."""
    monkeypatch.setattr(catalogs, "TEMPLATE", tmp_path / "fresh.pot")
    catalogs.extract()
    with (tmp_path / "fresh.pot").open("rb") as f:
        fresh = {(m.context, _ids(m)) for m in read_po(f) if m.id}
    with (ROOT / "chatbot" / "locale" / "stammtisch.pot").open("rb") as f:
        committed = {(m.context, _ids(m)) for m in read_po(f) if m.id}
    assert fresh == committed, "run `stammtisch-texts` and commit chatbot/locale"
    declared = {(t.context, (t.msgid,) if t.plural is None else (t.msgid, t.plural))
                for t in messages().values()}
    assert declared - committed == set()


@pytest.mark.parametrize("lang", SHIPPED)
def test_every_message_is_translated_with_the_same_placeholders(lang):
    catalog = _po(lang)
    with (ROOT / "chatbot" / "locale" / "stammtisch.pot").open("rb") as f:
        template = {(m.context, _ids(m)) for m in read_po(f) if m.id}
    translated = {(m.context, _ids(m)): m for m in catalog if m.id}
    assert set(translated) == template, "run `stammtisch-texts update` and translate"
    problems = []
    for key, message in translated.items():
        forms = _strings(message)
        if message.fuzzy or not all(forms) or len(forms) != catalog.num_plurals and \
                message.pluralizable:
            problems.append((key, "untranslated"))
            continue
        wanted = set().union(*(_fields(i) for i in key[1]))
        for form in forms:
            # a singular form may say "one" instead of {n}; nothing else may be missing or new
            if not _fields(form) <= wanted or _fields(form) | {"n"} < wanted:
                problems.append((key, form))
    assert problems == []


@pytest.mark.parametrize("lang", SHIPPED)
def test_the_committed_compiled_catalog_is_the_po_file(lang):
    po = catalogs.LOCALE_DIR / lang / "LC_MESSAGES" / f"{catalogs.DOMAIN}.po"
    assert po.with_suffix(".mo").read_bytes() == catalogs.compiled(po), \
        "run `stammtisch-texts compile` and commit the .mo"


def test_plural_forms_follow_the_number():
    assert tr("de", "scat.table", top="7♥", n=1) == "Ablage: 7♥ · Stapel: 1 Karte"
    assert tr("de", "scat.table", top="7♥", n=2) == "Ablage: 7♥ · Stapel: 2 Karten"
    assert tr("en", "scat.table", top="7♥", n=1) == "Discard: 7♥ · Stock: 1 card"
    assert tr("en", "scat.table", top="7♥", n=0) == "Discard: 7♥ · Stock: 0 cards"


def test_one_english_word_two_german_translations_by_context():
    """"Pass" is "Passen" in Run Fast and Scat, "Schieben" in Schwimmen (pgettext)."""
    assert [tr("en", k) for k in ("sw.pass", "rf.pass", "scat.btn.pass")] == ["Pass"] * 3
    assert [tr("de", k) for k in ("sw.pass", "rf.pass", "scat.btn.pass")] == \
        ["Schieben", "Passen", "Passen"]


def test_a_language_without_a_catalog_falls_back_to_german():
    assert tr("xx", "choose_game") == tr("de", "choose_game") == "Welches Spiel?"
    assert tr("en", "choose_game") == "Which game?"


def test_a_third_language_is_one_new_po_file(tmp_path):
    """Copy the catalogs, start French with ``stammtisch-texts init fr``, translate two
    messages, compile: the bot speaks French (what is not translated yet stays English), offers
    it in /language, and picks it for a user whose Telegram is French."""
    locale = tmp_path / "locale"
    shutil.copytree(ROOT / "chatbot" / "locale", locale)
    env = {**os.environ, "STAMMTISCH_LOCALE_DIR": str(locale)}
    run = [sys.executable, "-m", "chatbot.catalogs"]
    subprocess.run([*run, "init", "fr"], env=env, check=True, cwd=ROOT, capture_output=True)
    po = locale / "fr" / "LC_MESSAGES" / "stammtisch.po"
    text = po.read_text()
    text = re.sub(r'(msgid "Which game\?"\nmsgstr )""', r'\1"Quel jeu ?"', text)
    text = re.sub(r'(msgid "Language: English."\nmsgstr )""', r'\1"Langue : français."', text)
    po.write_text(text)
    subprocess.run([*run, "compile"], env=env, check=True, cwd=ROOT, capture_output=True)
    probe = (
        "from chatbot.i18n import LANGUAGES, pick_language, tr\n"
        "import chatbot.service\n"
        "print(LANGUAGES)\n"
        "print(tr('fr', 'choose_game'), '|', tr('fr', 'language_set'), '|', "
        "tr('fr', 'no_table'))\n"
        "print(pick_language(None, 'fr-FR'))\n")
    out = subprocess.run([sys.executable, "-c", probe], env=env, check=True, cwd=ROOT,
                         capture_output=True, text=True).stdout.splitlines()
    assert out[0] == "('de', 'en', 'fr')"
    assert out[1] == "Quel jeu ? | Langue : français. | " + tr("en", "no_table")
    assert out[2] == "fr"
