"""Views as Matrix messages, and text commands back into service calls.

Matrix has no inline keyboards: a view's buttons become a numbered list under the message
(HTML ``<ol>`` with a plain-text fallback), a reply with a number presses that button, short
``!commands`` (German and English) name the common moves, and a few moves also get a reaction
that the bot seeds under the message as a one-tap button.

A choice keeps its number by its place in the view's rows (a label that changes, e.g. a lobby
option toggled, keeps its number); a button that does nothing (a page marker "1/2") is no
choice and gets none. Several numbers in one message ("7 8 9"), and cards by name ("7♠ 7♥",
"7s 7h", "Herz Dame"), pick several choices of one view in turn.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..i18n import DEFAULT_LANGUAGE, LANGUAGES, N_, NN_, register, tr
from ..presenters.cards import plain
from ..service import command_words

# Button code → the reaction the bot seeds under a message that offers it.
REACTIONS: dict[str, str] = {
    "join": "👍",
    "start": "▶️",
    "knock": "✊",
    "pass": "⏭️",
    "next": "⏩",
    "again": "🔁",
}

COMMAND_WORDS = command_words()  # the service's commands by every name (``!neu`` → new)
# ``!word`` → the button code it presses (in the newest view of the room, or of the player's
# direct room). ``start`` presses "Start" in a lobby and is the greeting elsewhere.
MOVES: dict[str, str] = {
    "join": "join", "mitmachen": "join", "dabei": "join",
    "leave": "leave", "aussteigen": "leave",
    "start": "start", "starten": "start", "los": "start",
    "knock": "knock", "klopfen": "knock", "klopf": "knock",
    "pass": "pass", "schieben": "pass", "schiebe": "pass",
    "next": "next", "weiter": "next",
    "again": "again", "nochmal": "again",
    "cards": "cards", "karten": "cards",
    "back": "back", "zurück": "back", "zurueck": "back",
    "tip": "tip", "tipp": "tip", "hint": "tip",
    "same": "again.same", "gleich": "again.same", "gleiche": "again.same",
    "review": "review", "besser": "review",
}

register({
    "mx.how": N_(
        "How to play here:\n"
        "• type the number of a choice: “2” (a reply to a message picks from that message)\n"
        "• several at once: “7 8 9” or “7, 8, 9”\n"
        "• cards by name: “7s 7h”, “10d”, “Kd” (s h d c = ♠ ♥ ♦ ♣; "
        "Pik, Herz, Karo, Kreuz work too)\n"
        "• or tap a reaction under the message: 👍 join, ✊ knock, ⏭️ pass, ⏩ next\n"
        "• moves as words: !join, !start, !knock, !pass, !next"),
    "mx.pick": N_("Please reply with a number from 1 to {n}."),
    "mx.nothing": N_("There is nothing to choose here right now."),
    "mx.gone": N_("That choice is gone – nothing was changed. The current one:"),
    "mx.applied": N_("(That was for your game of {game}.)"),
    "mx.applied_group": N_("(That was for the game of {game} in “{group}”.)"),
    "mx.not_now": N_("That isn't possible right now."),
    "mx.no_card": N_("Not among the choices: {cards}."),
    "mx.hint": N_("Type the number of a choice (several: “7 8 9”) or a card (“7s”)."),
    "mx.cpu_opponents": NN_("{n} CPU opponent", "{n} CPU opponents"),
    "mx.dm_failed": N_(
        "I could not send {name} a direct message – please invite me to a direct chat."),
    "mx.undecryptable": N_(
        "I could not decrypt some of your messages – please send them again."),
})

_SLASH = re.compile(
    r"(?<![\w/])/(new|help|rules|language|stop|start|stats|top|games|reminders|replay|daily|tips"
    r"|tagesspiel|tipps|pause|abend|evening|deckel|liga|league)\b")


def bang(text: str) -> str:
    """The service's texts name Telegram's ``/commands``; in Matrix they are ``!commands``."""
    return _SLASH.sub(r"!\1", text)


def code_of(data: str) -> str:
    """The action code inside button data (``v1:<table>:<version>:<code>``)."""
    parts = data.split(":", 3)
    return parts[3] if len(parts) == 4 else ""


def is_table_button(data: str) -> bool:
    parts = data.split(":", 3)
    return len(parts) == 4 and parts[1].isdigit() and parts[1] != "0"


def reaction_for(data: str) -> str | None:
    """The reaction that stands for this button, if it has one (a Stammtisch evening's
    answers: ✅ ❔ ❌)."""
    code = code_of(data)
    if code.startswith("ev.a.") and code[-2:] in _ANSWERS:
        return _ANSWERS[code[-2:]]
    return REACTIONS.get(code) if is_table_button(data) else None


_ANSWERS = {".y": "✅", ".m": "❔", ".n": "❌"}


def norm_key(key: str) -> str:
    """Reaction keys compare without emoji variation selectors."""
    return key.replace("\ufe0f", "").strip()


def choices(rows: list[list[list[str]]] | list[list[tuple[str, str]]]) -> list[tuple[str, str]]:
    """A view's buttons in reading order: (label, data)."""
    return [(str(b[0]), str(b[1])) for row in rows or [] for b in row]


_ARROWS = ("◀", "▶")
# "<" and ">" (or the arrows themselves) press the view's ◀ / ▶: a replay's step, a hand's page
ARROW_OF = {"<": "◀", ">": "▶", "◀": "◀", "▶": "▶"}


def is_choice(label: str, data: str) -> bool:
    """Whether a button does something: a page marker ("1/2", the page shown) does not."""
    return not (code_of(data).startswith("ui.p.") and label.strip() not in _ARROWS)


def numbered(buttons: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The choices of a view, in the order of their numbers (1, 2, …): every button that does
    something, by its place in the rows (a label that changes keeps its number)."""
    return [(label, data) for label, data in buttons if is_choice(label, data)]


def _opponent_menu(items: list[tuple[str, str]]) -> bool:
    """The "how many CPU opponents?" menu: bare numbers that choose a game's opponents."""
    return bool(items) and all(
        label.isascii() and label.isdigit() and code_of(data).startswith("g.")
        and code_of(data).endswith("." + label) for label, data in items)


def labelled(items: list[tuple[str, str]], lang: str | None) -> list[tuple[str, str]]:
    """The choices as they are written under a message: a bare number says what it counts
    ("2" → "2 CPU opponents")."""
    if _opponent_menu(items):
        return [(tr(lang, "mx.cpu_opponents", n=int(label)), data) for label, data in items]
    return items


def _template_re(text: str) -> re.Pattern[str]:
    parts = re.split(r"\{\w+\}", text)
    return re.compile(".+?".join(re.escape(part) for part in parts))


def language_of(text: str) -> str:
    """The language a view's text is written in, as far as it matters here (the opponent
    menu's question); the default language otherwise."""
    for lang in LANGUAGES:
        if _template_re(tr(lang, "choose_opponents")).search(text):
            return lang
    return DEFAULT_LANGUAGE


def _html_line(line: str) -> str:
    stripped = line.lstrip(" ")
    lead = len(line) - len(stripped)
    return "&nbsp;" * lead + html.escape(stripped, quote=False)


# a person's pill, or a link to a room's event (a private reminder's link to the group table)
_PILL = re.compile(r"\[([^\[\]]+)\]\(https://matrix\.to/#/([@!][^()\s]+)\)")


def mentions(text: str) -> list[str]:
    """The Matrix ids the service's text mentions (``[name](https://matrix.to/#/@id)``)."""
    return [m.group(2) for m in _PILL.finditer(text) if m.group(2).startswith("@")]


def _html_pills(line: str) -> str:
    """An HTML line with the mentions as pills (links to the person)."""
    out, pos = [], 0
    for m in _PILL.finditer(line):
        out.append(_html_line(line[pos:m.start()]) if pos == 0 else
                   html.escape(line[pos:m.start()], quote=False))
        out.append(f'<a href="https://matrix.to/#/{html.escape(m.group(2))}">'
                   f'{html.escape(m.group(1), quote=False)}</a>')
        pos = m.end()
    if pos == 0:
        return _html_line(line)
    return "".join(out) + html.escape(line[pos:], quote=False)


def _joined(lines: list[str], html_lines: list[str]) -> str:
    """The HTML lines joined by line breaks; a Markdown code block (a line ``` before and
    after: the league's tables) as one ``<pre>`` block, monospace."""
    out: list[str] = []
    block: list[str] | None = None
    for line, shown in zip(lines, html_lines, strict=True):
        if line == "```":
            if block is None:
                block = []
                continue
            out.append("<pre><code>" + html.escape("\n".join(block), quote=False)
                       + "</code></pre>")
            block = None
        elif block is not None:
            block.append(line)
        else:
            out.append(shown + "<br>")
    if block is not None:  # (no closing fence: the lines as they are)
        out += [html.escape(line, quote=False) + "<br>" for line in ["```", *block]]
    return "".join(out).removesuffix("<br>")


def render(text: str, rows: list[list[list[str]]]) -> tuple[str, str]:
    """A view as (plain body, HTML body): text, then the numbered choices. Mentions are
    pills in HTML and the plain name in the body. The first line is a heading (bold) when
    more follows; a page marker is a line above the choices."""
    text = bang(text)
    buttons = choices(rows)
    markers = [label for label, data in buttons if not is_choice(label, data)]
    if markers:
        text += "\n📄 " + " ".join(markers)
    lines = text.split("\n")
    html_lines = [_html_pills(line) for line in lines]
    text = _PILL.sub(r"\1", text)
    items = labelled(numbered(buttons), language_of(text) if buttons else None)
    if html_lines and html_lines[0] and (len(lines) > 1 or items):
        html_lines[0] = f"<b>{html_lines[0]}</b>"
    body, formatted = text, _joined(lines, html_lines)
    if items:
        plain_items, html_items = [], []
        for i, (label, data) in enumerate(items, 1):
            emoji = reaction_for(data)
            suffix = f" {emoji}" if emoji and not label.startswith(emoji) else ""
            plain_items.append(f"{i}. {label}{suffix}")
            html_items.append(f"<li>{html.escape(label, quote=False)}{suffix}</li>")
        body += "\n\n" + "\n".join(plain_items)
        formatted += "<ol>" + "".join(html_items) + "</ol>"
    return body, formatted


# ------------------------------------------------------------------------------ cards by name

_SUITS = "♣♠♥♦"
_SUIT_OF = {"♣": "♣", "♧": "♣", "c": "♣", "kreuz": "♣", "club": "♣", "clubs": "♣",
            "♠": "♠", "♤": "♠", "s": "♠", "pik": "♠", "spade": "♠", "spades": "♠",
            "♥": "♥", "♡": "♥", "h": "♥", "herz": "♥", "heart": "♥", "hearts": "♥",
            "♦": "♦", "♢": "♦", "d": "♦", "karo": "♦", "diamond": "♦", "diamonds": "♦"}
_RANK_OF = {"j": "J", "q": "Q", "k": "K", "a": "A", "bube": "J", "dame": "Q", "könig": "K",
            "koenig": "K", "ass": "A", "jack": "J", "queen": "Q", "king": "K", "ace": "A"}
_RANK = r"10|[2-9]|bube|dame|könig|koenig|ass|jack|queen|king|ace|[jqka]"
_SUIT_SYMBOL = r"[♣♠♥♦♧♤♡♢]"
_SUIT_WORD = r"kreuz|pik|herz|karo|clubs?|spades?|hearts?|diamonds?"
_END = r"(?=$|[\s,;&+]|(?<=[♣♠♥♦♧♤♡♢]))"  # (after a suit symbol the next card may follow)
# One item of a list of choices: a card ("7♠", "7s", "10 Herz", "Herz-Dame", "♥K") or a
# number, after a separator ("7, 8", "7 und 8") when it is not the first.
_ITEM = re.compile(
    rf"\s*(?:(?P<sep>,|;|&|\+|und|and)\s*)?"
    rf"(?:(?P<r1>{_RANK})(?:\s*(?P<s1>{_SUIT_SYMBOL})|[\s-]*(?P<s2>{_SUIT_WORD})|(?P<s3>[shdc]))"
    rf"|(?P<s4>{_SUIT_WORD}|{_SUIT_SYMBOL})[\s-]*(?P<r2>{_RANK})"
    rf"|(?P<n>\d{{1,3}})){_END}")


def card_name(rank: str, suit: str) -> str:
    """A card as the views write it: ``10♦``, ``K♥``."""
    rank = rank.lower()
    return _RANK_OF.get(rank, rank.upper()) + _SUIT_OF[suit.lower()]


def choice_items(text: str) -> tuple[str, ...] | None:
    """A message that is only numbers and cards: each as a number ("7") or a card ("7♠");
    ``None`` for anything else."""
    text = plain(text).replace("\ufe0f", "").strip().lower()  # (a four-colour deck's squares)
    if not text:
        return None
    out: list[str] = []
    pos = 0
    while pos < len(text):
        m = _ITEM.match(text, pos)
        if m is None or m.end() == pos or (pos == 0 and m["sep"]):
            return None
        if m["n"]:
            out.append(str(int(m["n"])))
        else:
            rank = m["r1"] or m["r2"]
            suit = m["s1"] or m["s2"] or m["s3"] or m["s4"]
            out.append(card_name(rank, suit))
        pos = m.end()
    return tuple(out)


def card_of_label(label: str) -> str:
    """A card button's card ("✅7♠" → "7♠"); "" for a label that is not one card."""
    name = plain(label).replace("✅", "").replace("\ufe0f", "").strip()
    return name if re.fullmatch(rf"(10|[2-9JQKA])[{_SUITS}]", name) else ""


def cards_of_label(label: str) -> list[str] | None:
    """The cards of a label that shows nothing but cards ("7♠ 7♥"); else ``None``."""
    parts = plain(label).replace("✅", "").replace("\ufe0f", "").split()
    cards = [p for p in parts if re.fullmatch(rf"(10|[2-9JQKA])[{_SUITS}]", p)]
    return cards if parts and len(cards) == len(parts) else None


def find_choices(items: tuple[str, ...], buttons: list[tuple[str, str]]
                 ) -> tuple[list[str], list[str], list[str]]:
    """What a list of numbers and cards picks in a view: (the button data in the order
    written, numbers out of range, cards that are not a choice). A card is the choice whose
    label is that card ("7♠", "✅7♠"); cards that no label shows one by one may be together
    the label of one choice ("7♠ 7♥", a play)."""
    shown = numbered(buttons)
    by_card = {card_of_label(label): data for label, data in shown if card_of_label(label)}
    found: list[str] = []
    wrong_numbers: list[str] = []
    wrong_cards: list[str] = []
    for item in items:
        if item.isdigit():
            n = int(item)
            if 1 <= n <= len(shown):
                found.append(shown[n - 1][1])
            else:
                wrong_numbers.append(item)
        elif item in by_card:
            found.append(by_card[item])
        else:
            wrong_cards.append(item)
    if wrong_cards and not wrong_numbers and all(not i.isdigit() for i in items):
        want = sorted(items)
        play = next((data for label, data in shown
                     if sorted(cards_of_label(label) or []) == want), None)
        if play is not None:
            return [play], [], []
    unique: list[str] = []
    for data in found:  # (the same choice twice would undo itself)
        if data not in unique:
            unique.append(data)
    return unique, wrong_numbers, wrong_cards


@dataclass(frozen=True)
class Intent:
    """What a text message asks for."""

    kind: str  # command | move | choice | choices | arrow | chat
    name: str = ""  # service command, button code, or an arrow's label
    args: str = ""
    number: int = 0
    items: tuple[str, ...] = ()  # choices: numbers ("7") and cards ("7♠") in the order written


_REPLY_FALLBACK = re.compile(r"\A(?:>[^\n]*\n)+\n?")


def parse(body: str, own_names: tuple[str, ...] = (), mentioned: bool = False,
          commands: Mapping[str, str] | None = None) -> Intent:
    """Read a message: ``!command args``, a number, several numbers or cards, or chat. A
    message may start with the bot's name ("stammtisch: !new"); when it mentions the bot
    (a pill), the name needs no colon. ``commands``: every typed name of the service's
    commands → its name (``command_words``)."""
    commands = COMMAND_WORDS if commands is None else commands
    text = _REPLY_FALLBACK.sub("", body or "").strip()
    for name in sorted(own_names, key=len, reverse=True):  # "stammtisch: !new"
        if name and text.lower().startswith(name.lower()):
            rest = text[len(name):]
            if rest[:1] in (":", ","):
                text = rest[1:].strip()
                break
            if mentioned and (not rest or rest[:1].isspace()):
                text = rest.strip()
                break
    if re.fullmatch(r"\d{1,3}", text):
        return Intent("choice", number=int(text))
    if text.replace("\ufe0f", "") in ARROW_OF:
        return Intent("arrow", ARROW_OF[text.replace("\ufe0f", "")])
    if text[:1] in ("!", "/") and len(text) > 1:
        word, _, args = text[1:].partition(" ")
        word = word.strip().lower()
        if word in MOVES and not (MOVES[word] == "cards" and args.strip()):
            # (``!start`` presses Start; where there is none, it greets. ``!karten``: "my
            # cards" at a table, else - and always with words after it - the deck: /karten)
            return Intent("move", MOVES[word], args.strip())
        if word in commands:
            return Intent("command", commands[word], args.strip())
        return Intent("command", word, args.strip())  # unknown: the service answers
    items = choice_items(text)
    if items:
        return Intent("choices", items=items)
    return Intent("chat")
