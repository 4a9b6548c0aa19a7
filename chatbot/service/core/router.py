"""The one place a decoded button press is routed: a menu button (table 0: a language, a
game under ``/rules``, a feature's menu, a step of the game menu) or a button of a table (a
lobby, table or feature button by the head of its code, else a game move), after the table's
version and chat are checked. Which head goes where is declared in the registry."""

from __future__ import annotations

from dataclasses import replace

import fsm
from storage.models import Chat, Player

from ... import buttons
from ...i18n import tr
from . import play, records
from .api import Outcome, Refusal, UserRef
from .transaction import Ctx


def route(ctx: Ctx, chat: Chat, player: Player, user: UserRef, press: buttons.Press) -> Outcome:
    """A decoded press: a menu button or a table's."""
    if press.table_id == 0:
        return menu_press(ctx, chat, player, user, press.code)
    return table_press(ctx, chat, player, user, press)


def menu_press(ctx: Ctx, chat: Chat, player: Player, user: UserRef, code: str) -> Outcome:
    """A menu button: the one its code's first part names, else the game menu."""
    button = ctx.registry.button(0, code)
    run = button.run if button is not None else ctx.registry.menu_default
    if run is None:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    return run(ctx, chat, player, user, code)  # type: ignore[call-arg,arg-type]


def table_press(ctx: Ctx, chat: Chat, player: Player, user: UserRef,
                press: buttons.Press) -> Outcome:
    """A button on a table: a lobby, table or feature button, else a move."""
    table, seats = records.lock_table_seats(ctx.session, press.table_id)
    if table is None:
        raise Refusal(tr(ctx.lang, "table_gone"))
    code = press.code
    button = ctx.registry.button(press.table_id, code)
    # Every table button, UI or move, is checked against the version first (before anything
    # else is read: under load most refused presses are stale ones); only buttons that mean
    # the same whatever the message showed (join, leave, my cards, I'm back …) are not.
    if press.version != table.version and (button is None or not button.version_free):
        raise play.Stale(tr(ctx.lang, "table_over" if table.fsm_state in fsm.CLOSED
                            else "stale_button"))
    if table.chat_id != chat.id:
        if records.seat_of(seats, player) is None:
            raise Refusal(tr(ctx.lang, "not_seated"))
        # rights are judged in the table's own chat: an admin elsewhere is nobody here
        user = replace(user, is_admin=False)
    if button is not None:
        return button.run(ctx, table, seats, player, user, code)  # type: ignore[call-arg,arg-type]
    return play.move(ctx, table, seats, player, user, code)
