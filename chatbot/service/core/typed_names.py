"""Words people type after ``/new`` (or ``!neu``): a game by any of its names, in any language
the bot speaks, how many CPU opponents, and a level as it is written ("Anfänger", "anfänger",
"beginner", "Experte", "expert") - case and umlauts as people type them."""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from engine import GAMES
from engine.bots import LEVELS

from ...i18n import LANGUAGES, tr

# names people use that no text of the bot spells out
_GAME_ALIASES = {
    "schwimmen": ("31", "schwimmen 31", "einunddreissig schwimmen"),
    "scat": ("einunddreissig", "einunddreißig", "blitz", "31 scat"),
    "runfast": ("run fast", "run-fast", "pao de kuai", "paodekuai", "pao"),
    "climbing": ("joker", "aufstieg", "jokeraufstieg", "joker aufstieg", "joker climb",
                 "climb"),
}
_LEVEL_ALIASES = {
    "anfaenger": ("anfänger", "anfaenger", "anfanger", "beginner", "novice", "leicht", "easy"),
    "normal": ("normal", "mittel", "medium"),
    "experte": ("experte", "expert", "profi", "schwer", "hard"),
}


def fold(text: str) -> str:
    """Lower case, ß as ss, accents kept apart from their letters (so "Anfänger" and
    "ANFÄNGER" read alike), runs of spaces, dashes and brackets as one space."""
    text = unicodedata.normalize("NFC", text).casefold()
    return re.sub(r"[\s\-_()]+", " ", text).strip()


@cache
def _game_names() -> list[tuple[str, str]]:
    """(folded name, game id), the longest names first (so "run fast 2" reads as Run Fast)."""
    names: dict[str, str] = {}
    for game_id in GAMES:
        spelled = [game_id, *_GAME_ALIASES.get(game_id, ())]
        for lang in LANGUAGES:
            full = tr(lang, f"game.{game_id}")
            spelled += [full, re.sub(r"\(.*?\)", "", full), *re.findall(r"\((.*?)\)", full)]
        for name in spelled:
            if fold(name):
                names.setdefault(fold(name), game_id)
    return sorted(names.items(), key=lambda item: -len(item[0]))


@cache
def _level_names() -> dict[str, str]:
    names: dict[str, str] = {}
    for level in LEVELS:
        for name in (level, *_LEVEL_ALIASES.get(level, ()),
                     *(tr(lang, f"level_{level}") for lang in LANGUAGES)):
            names.setdefault(fold(name), level)
    return names


def game_of(text: str) -> tuple[str, str] | None:
    """The game ``text`` starts with, and the rest of the text; ``None`` if it names none."""
    folded = fold(text)
    for name, game_id in _game_names():
        if folded == name or folded.startswith(name + " "):
            return game_id, folded[len(name):].strip()
    return None


def level_of(word: str) -> str | None:
    """The CPU level a word names (``anfaenger``, ``normal``, ``experte``), or ``None``."""
    return _level_names().get(fold(word))
