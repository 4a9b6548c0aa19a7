"""A table's life beyond the moves (issue 17, items 8, 19, 20): how many CPU players fill a
lobby, the rematch that keeps the players, leaving or resigning with a confirmation. Their
texts (German and English, registered with ``chatbot.i18n``) and the small rules the views
and the service share."""

from __future__ import annotations

from typing import Any

from .i18n import N_, register

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

register({
    "tl.cpu_minus": N_("➖ 🤖"),
    "tl.cpu_plus": N_("➕ 🤖"),
    "tl.cpu_button": N_("🤖 {n} · {level}"),
    "tl.cpu_button_none": N_("🤖 0"),
    "tl.cpu_line": N_("🤖 {n} CPU ({level})"),
    "tl.cpu_line_none": N_("🤖 no CPU"),
    "tl.cpu_seat": N_("{no}. {name} (CPU)"),
    "tl.cpu_max": N_("The table has no more free seats."),
    "tl.cpu_min": N_("There is no CPU at the table already."),
    "tl.rematch": N_(
        "🔁 {game} – rematch\nWhoever plays again taps “✅ I'm in” (within {seconds} s). We start "
        "as soon as everyone has confirmed.\n{players}"),
    "tl.rematch_short": N_(
        "🔁 {game} – rematch\nWe start as soon as everyone has confirmed.\n{players}"),
    "tl.confirmed_mark": N_("✅"),
    "tl.waiting_mark": N_("⏳ waiting for confirmation"),
    "tl.confirm": N_("✅ I'm in"),
    "tl.confirmed": N_("You're in again."),
    "tl.rematch_opened": N_("Rematch! The others confirm with “✅ I'm in”."),
    "tl.freed": N_("⌛ Not confirmed in time: {names} – seat freed."),
    "tl.resign": N_("🏳 Resign"),
    "tl.resign_yes": N_("Yes, resign"),
    "tl.resign_no": N_("Cancel"),
    "tl.ask_private": N_("🏳 Really resign? The game ends and counts as a loss."),
    "tl.ask_group": N_("🏳 Really leave? A CPU takes over your seat."),
    "tl.ask_group_last": N_(
        "🏳 Really leave? You are the last person at the table – the table closes."),
    "tl.cancelled": N_("Carry on."),
    "tl.resigned": N_("🏳 You resigned – the game counts as a loss."),
    "tl.resigned_other": N_("🏳 {name} resigned."),
    "tl.left_game": N_("🚪 {name} left the game – a CPU takes over the seat."),
    "tl.you_left": N_("You left the game."),
    "tl.no_confirm": N_("Tap “🏳 Resign” first."),
})

