"""Views as Matrix messages, and text commands back into service calls.

Matrix has no inline keyboards: a view's buttons become a numbered list under the message
(HTML ``<ol>`` with a plain-text fallback), a reply with a number presses that button, short
``!commands`` (German and English) name the common moves, and a few moves also get a reaction
that the bot seeds under the message as a one-tap button.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from ..i18n import N_, register

# Button code → the reaction the bot seeds under a message that offers it.
REACTIONS: dict[str, str] = {
    "join": "👍",
    "start": "▶️",
    "knock": "✊",
    "pass": "⏭️",
    "next": "⏩",
    "again": "🔁",
}

# ``!word`` → service command.
COMMANDS: dict[str, str] = {
    "new": "new", "neu": "new", "neues": "new",
    "help": "help", "hilfe": "help",
    "rules": "rules", "regeln": "rules",
    "language": "language", "sprache": "language", "lang": "language",
    "stop": "stop", "stopp": "stop", "beenden": "stop", "ende": "stop",
    "stats": "stats", "statistik": "stats", "top": "top", "bestenliste": "top",
}
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
}

register({
    "mx.how": N_(
        "How to play here: reply with the number of a choice (e.g. “2”), or tap a reaction under "
        "the message (👍 join, ✊ knock, ⏭️ pass, ⏩ next). Commands: !new, !join, !start, !knock, "
        "!pass, !next, !stop, !rules, !language de."),
    "mx.pick": N_("Please reply with a number from 1 to {n}."),
    "mx.nothing": N_("There is nothing to choose here right now."),
    "mx.gone": N_("That choice is gone – nothing was changed. The current one:"),
    "mx.applied": N_("(That was for your game of {game}.)"),
    "mx.applied_group": N_("(That was for the game of {game} in “{group}”.)"),
    "mx.not_now": N_("That isn't possible right now."),
    "mx.dm_failed": N_(
        "I could not send {name} a direct message – please invite me to a direct chat."),
    "mx.undecryptable": N_("I could not decrypt your message – please send it again."),
})

_SLASH = re.compile(r"(?<![\w/])/(new|help|rules|language|stop|start|stats|top)\b")


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
    """The reaction that stands for this button, if it has one."""
    return REACTIONS.get(code_of(data)) if is_table_button(data) else None


def norm_key(key: str) -> str:
    """Reaction keys compare without emoji variation selectors."""
    return key.replace("\ufe0f", "").strip()


def choices(rows: list[list[list[str]]] | list[list[tuple[str, str]]]) -> list[tuple[str, str]]:
    """A view's buttons in reading order: (label, data)."""
    return [(str(b[0]), str(b[1])) for row in rows or [] for b in row]


def _html_line(line: str) -> str:
    stripped = line.lstrip(" ")
    lead = len(line) - len(stripped)
    return "&nbsp;" * lead + html.escape(stripped, quote=False)


_PILL = re.compile(r"\[([^\[\]]+)\]\(https://matrix\.to/#/(@[^()\s]+)\)")


def mentions(text: str) -> list[str]:
    """The Matrix ids the service's text mentions (``[name](https://matrix.to/#/@id)``)."""
    return [m.group(2) for m in _PILL.finditer(text)]


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


def render(text: str, rows: list[list[list[str]]]) -> tuple[str, str]:
    """A view as (plain body, HTML body): text, then the numbered choices. Mentions are
    pills in HTML and the plain name in the body."""
    text = bang(text)
    lines = text.split("\n")
    html_lines = [_html_pills(line) for line in lines]
    text = _PILL.sub(r"\1", text)
    if html_lines and html_lines[0]:
        html_lines[0] = f"<b>{html_lines[0]}</b>"
    body, formatted = text, "<br>".join(html_lines)
    items = choices(rows)
    if items:
        plain_items, html_items = [], []
        for i, (label, data) in enumerate(items, 1):
            emoji = reaction_for(data)
            suffix = f" {emoji}" if emoji else ""
            plain_items.append(f"{i}. {label}{suffix}")
            html_items.append(f"<li>{html.escape(label, quote=False)}{suffix}</li>")
        body += "\n\n" + "\n".join(plain_items)
        formatted += "<ol>" + "".join(html_items) + "</ol>"
    return body, formatted


@dataclass(frozen=True)
class Intent:
    """What a text message asks for."""

    kind: str  # command | move | choice | chat
    name: str = ""  # service command, or button code
    args: str = ""
    number: int = 0


_REPLY_FALLBACK = re.compile(r"\A(?:>[^\n]*\n)+\n?")


def parse(body: str, own_names: tuple[str, ...] = ()) -> Intent:
    """Read a message: ``!command args``, a number, or chat."""
    text = _REPLY_FALLBACK.sub("", body or "").strip()
    for name in own_names:  # "stammtisch: !new" addressed to the bot
        if name and text.lower().startswith(name.lower()):
            rest = text[len(name):]
            if rest[:1] in (":", ","):
                text = rest[1:].strip()
                break
    if re.fullmatch(r"\d{1,3}", text):
        return Intent("choice", number=int(text))
    if text[:1] in ("!", "/") and len(text) > 1:
        word, _, args = text[1:].partition(" ")
        word = word.strip().lower()
        if word in COMMANDS:
            return Intent("command", COMMANDS[word], args.strip())
        if word in MOVES:
            return Intent("move", MOVES[word], args.strip())
        return Intent("command", word, args.strip())  # unknown: the service answers
    return Intent("chat")
