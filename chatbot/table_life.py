"""A table's life beyond the moves (issue 17, items 8, 19, 20): how many CPU players fill a
lobby, the rematch that keeps the players, leaving or resigning with a confirmation. Their
texts (German and English, registered with ``chatbot.i18n``) and the small rules the views
and the service share."""

from __future__ import annotations

from typing import Any

from .i18n import register

REMATCH = "rematch"  # table option while a rematch waits for confirmations: {"waiting": [...]}
RESIGNED = "resigned"  # table option of a private game given up: the seat number


def cpu_count(options: dict[str, Any], seated: int, max_seats: int) -> int:
    """How many CPU players join a lobby's table at the start: the opener's choice
    (``cpus``), never more than the free seats (an older table's ``fill_cpu``: all of them)."""
    free = max(0, max_seats - seated)
    want = options.get("cpus")
    if not isinstance(want, int):
        want = free if options.get("fill_cpu") else 0
    return max(0, min(want, free))

register("de", {
    "tl.cpu_minus": "➖ 🤖",
    "tl.cpu_plus": "➕ 🤖",
    "tl.cpu_button": "🤖 {n} · {level}",
    "tl.cpu_button_none": "🤖 0",
    "tl.cpu_line": "🤖 {n} CPU ({level})",
    "tl.cpu_line_none": "🤖 keine CPU",
    "tl.cpu_seat": "{no}. {name} (CPU)",
    "tl.cpu_max": "Mehr freie Plätze hat der Tisch nicht.",
    "tl.cpu_min": "Es sitzt schon keine CPU am Tisch.",
    "tl.rematch": "🔁 {game} – Revanche\nWer wieder mitspielt, tippt „✅ Dabei“ (innerhalb von "
                  "{seconds} s). Es geht los, sobald alle bestätigt haben.\n{players}",
    "tl.rematch_short": "🔁 {game} – Revanche\nEs geht los, sobald alle bestätigt haben.\n"
                        "{players}",
    "tl.confirmed_mark": "✅",
    "tl.waiting_mark": "⏳ wartet auf Bestätigung",
    "tl.confirm": "✅ Dabei",
    "tl.confirmed": "Du bist wieder dabei.",
    "tl.rematch_opened": "Revanche! Die anderen bestätigen mit „✅ Dabei“.",
    "tl.freed": "⌛ Nicht rechtzeitig bestätigt: {names} – Platz frei.",
    "tl.resign": "🏳 Aufgeben",
    "tl.resign_yes": "Ja, aufgeben",
    "tl.resign_no": "Abbrechen",
    "tl.ask_private": "🏳 Wirklich aufgeben? Das Spiel endet und zählt als verloren.",
    "tl.ask_group": "🏳 Wirklich aussteigen? Eine CPU übernimmt deinen Platz.",
    "tl.ask_group_last": "🏳 Wirklich aussteigen? Du bist der letzte Mensch am Tisch – "
                         "der Tisch endet.",
    "tl.cancelled": "Weiter geht's.",
    "tl.resigned": "🏳 Du hast aufgegeben – das Spiel zählt als verloren.",
    "tl.resigned_other": "🏳 {name} hat aufgegeben.",
    "tl.left_game": "🚪 {name} ist ausgestiegen – eine CPU übernimmt den Platz.",
    "tl.you_left": "Du bist ausgestiegen.",
    "tl.no_confirm": "Erst „🏳 Aufgeben“ tippen.",
})

register("en", {
    "tl.cpu_minus": "➖ 🤖",
    "tl.cpu_plus": "➕ 🤖",
    "tl.cpu_button": "🤖 {n} · {level}",
    "tl.cpu_button_none": "🤖 0",
    "tl.cpu_line": "🤖 {n} CPU ({level})",
    "tl.cpu_line_none": "🤖 no CPU",
    "tl.cpu_seat": "{no}. {name} (CPU)",
    "tl.cpu_max": "The table has no more free seats.",
    "tl.cpu_min": "There is no CPU at the table already.",
    "tl.rematch": "🔁 {game} – rematch\nWhoever plays again taps “✅ I'm in” (within {seconds} s). "
                  "We start as soon as everyone has confirmed.\n{players}",
    "tl.rematch_short": "🔁 {game} – rematch\nWe start as soon as everyone has confirmed.\n"
                        "{players}",
    "tl.confirmed_mark": "✅",
    "tl.waiting_mark": "⏳ waiting for confirmation",
    "tl.confirm": "✅ I'm in",
    "tl.confirmed": "You're in again.",
    "tl.rematch_opened": "Rematch! The others confirm with “✅ I'm in”.",
    "tl.freed": "⌛ Not confirmed in time: {names} – seat freed.",
    "tl.resign": "🏳 Resign",
    "tl.resign_yes": "Yes, resign",
    "tl.resign_no": "Cancel",
    "tl.ask_private": "🏳 Really resign? The game ends and counts as a loss.",
    "tl.ask_group": "🏳 Really leave? A CPU takes over your seat.",
    "tl.ask_group_last": "🏳 Really leave? You are the last person at the table – the table "
                         "closes.",
    "tl.cancelled": "Carry on.",
    "tl.resigned": "🏳 You resigned – the game counts as a loss.",
    "tl.resigned_other": "🏳 {name} resigned.",
    "tl.left_game": "🚪 {name} left the game – a CPU takes over the seat.",
    "tl.you_left": "You left the game.",
    "tl.no_confirm": "Tap “🏳 Resign” first.",
})
