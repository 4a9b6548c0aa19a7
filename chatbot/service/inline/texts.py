"""The inline room's texts (German in the catalog)."""

from __future__ import annotations

from ...i18n import N_, register

register({
    "il.open": N_("Open table · {count} players: join, the opener starts"),
    "il.duel": N_("Duel · starts as soon as a second person joins"),
    "il.full": N_("For {n} · starts as soon as {n} have joined"),
    "il.invite": N_("🃏 {game}\n{name} invites you to a game ({what}).\nTap “Join” to sit "
                    "down."),
    "il.join": N_("✋ Join"),
    "il.moves": N_("🎴 My cards and moves"),
    "il.hand": N_("🂠 Your hand · {game}"),
    "il.your_turn": N_("▶ Your turn · {game}: pick a move below"),
    "il.waiting": N_("⏳ {game}: {name} is on turn"),
    "il.no_hand": N_("🃏 {game}: no cards in your hand right now"),
    "il.looked": N_("🃏 {name} looked at their cards."),
    "il.played": N_("🃏 {name} made their move."),
    "il.not_yours": N_("🃏 That table is not one you sit at."),
    "il.not_seated_hint": N_("Only the people at this table see their cards here."),
    "il.no_tables": N_("🃏 You sit at no table played here"),
    "il.no_game": N_("No game matches “{query}”"),
    "il.no_game_hint": N_("Schwimmen, Scat, Run Fast or Joker Climb"),
    "il.elsewhere": N_("This button belongs to an invitation posted through the bot."),
    "il.table_over": N_("This invitation's game has ended."),
    "il.running": N_("This table's game is already under way."),
    "il.help": N_("🃏 Play anywhere: type {bot} in any chat – a private chat with a friend, "
                  "a group without the bot – and pick a game."),
    "il.off": N_("Inline mode is off for this bot: its operator turns it on with "
                 "@BotFather (/setinline, and /setinlinefeedback for moves chosen from "
                 "the list)."),
})
