"""Cards as a text shows them: the card symbols (``K♥``, ``10♠``) and the climbing game's
jokers (as words or codes). The tests check with these that no message shows a hidden card.
"""

from __future__ import annotations

import re

_CARD_RE = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([♣♠♥♦])")


def card_symbols(text: str) -> set[str]:
    """Every card symbol (``K♥``, ``10♠``) written in a text."""
    return {m.group(1) + m.group(2) for m in _CARD_RE.finditer(text)}


# The climbing game's jokers as players read them ("🃏 schwarzer Joker", "🃏 red" on a button),
# and their codes, should a text ever show those.
_JOKER_RE = re.compile(r"🃏 ?(schwarz|black|rot|red)|(?<![0-9A-Za-z])([BR]J)(?![0-9A-Za-z])")


def joker_codes(text: str) -> set[str]:
    """The jokers a text shows, as codes (``BJ`` black, ``RJ`` red)."""
    return {m.group(2) or ("BJ" if m.group(1) in ("schwarz", "black") else "RJ")
            for m in _JOKER_RE.finditer(text)}
