"""The one place a decoded button press is routed: a menu button (table 0: a language, a game
under ``/rules``, a step of the game menu) or a button of a table (a lobby or table button
by the head of its code, else a game move), after the table's version and chat are checked."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import fsm
from storage.models import Chat, GameTable, Player, Seat

from .. import buttons
from ..i18n import LANGUAGES, tr
from . import (
    coach,
    commands,
    daily,
    evening,
    history,
    lobby,
    menus,
    pause,
    people,
    play,
    replays,
    seating,
    spectate,
    store,
)
from .api import Outcome, Refusal, UserRef
from .transaction import Ctx

Handler = Callable[[Ctx, GameTable, list[Seat], Player, UserRef, str], Outcome]

# Table buttons that are not game moves, by the code's head.
UI: dict[str, Handler] = {
    "join": lobby.join, "leave": lobby.leave, "kick": lobby.kick, "start": lobby.start,
    "stop": lobby.stop, "cards": lobby.cards, "back": lobby.back, "clock": lobby.turn_clock,
    "cur": lobby.currency, "opt": lobby.game_option, "lvl": lobby.cpu_level,
    "again": seating.again, "fill": seating.fill, "resign": seating.resign,
    "log": history.history, "skip": spectate.skip, "review": coach.review,
    "pz": pause.ask, "pa": pause.agree, "pr": pause.resume,
}
# buttons whose meaning never goes stale ("resign" is checked against the seat's question)
# (the pause's buttons are checked against the pause's own state: see ``pause``)
VERSION_FREE = frozenset({"join", "leave", "cards", "back", "resign", "log", "skip", "review",
                          "pz", "pa", "pr"})


def route(ctx: Ctx, chat: Chat, player: Player, user: UserRef, press: buttons.Press) -> Outcome:
    """A decoded press: a menu button or a table's."""
    if press.table_id == 0:
        return menu_press(ctx, chat, player, user, press.code)
    return table_press(ctx, chat, player, user, press)


def menu_press(ctx: Ctx, chat: Chat, player: Player, user: UserRef, code: str) -> Outcome:
    """A menu button: a language (``lang.<code>``), a game under ``/rules`` (``r.<game>``),
    a reminder setting (``rem.…``), a Stammtisch evening's (``ev.…``), a table under ``/games``
    (``show.<table>``), a step of a replay (``rp.…``), or a step of the game menu."""
    parts = code.split(".")
    if parts[0] == "lang" and len(parts) == 2 and parts[1] in LANGUAGES:
        return commands.set_language(ctx, chat, player, user, parts[1])
    if parts[0] == "r" and len(parts) == 2:
        return commands.rules_press(ctx, chat, parts[1])
    if parts[0] == "rem":
        return people.reminders_press(ctx, chat, player, code)
    if parts[0] == "rp":
        return replays.press(ctx, chat, player, code)
    if parts[0] == "ev":
        return evening.press(ctx, chat, player, user, code)
    if parts[0] == "show" and len(parts) == 2:
        return people.show(ctx, chat, player, parts[1])
    if parts[0] == "dly" and len(parts) == 2:
        return daily.press(ctx, chat, player, parts[1])
    return menus.menu_press(ctx, chat, player, user, code)


def table_press(ctx: Ctx, chat: Chat, player: Player, user: UserRef,
                press: buttons.Press) -> Outcome:
    """A button on a table: a lobby or table button (``UI``), else a move."""
    table, seats = store.lock_table_seats(ctx.session, press.table_id)
    if table is None:
        raise Refusal(tr(ctx.lang, "table_gone"))
    code = press.code
    head = code.split(".")[0]
    # Every table button, UI or move, is checked against the version first (before anything
    # else is read: under load most refused presses are stale ones); only "join", "leave",
    # "my cards" and "I'm back" mean the same whatever the message showed.
    if press.version != table.version and head not in VERSION_FREE:
        raise play.Stale(tr(ctx.lang, "table_over" if table.fsm_state in fsm.CLOSED
                            else "stale_button"))
    if table.chat_id != chat.id:
        if store.seat_of(seats, player) is None:
            raise Refusal(tr(ctx.lang, "not_seated"))
        # rights are judged in the table's own chat: an admin elsewhere is nobody here
        user = replace(user, is_admin=False)
    handler = UI.get(head)
    if handler is not None:
        return handler(ctx, table, seats, player, user, code)
    return play.move(ctx, table, seats, player, user, code)
