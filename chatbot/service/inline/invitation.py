"""The table of an inline message: made when the invitation's message is first known — the
person who chose it (Telegram's chosen inline result, with inline feedback on) or the first
press of its "Join" — exactly once, however often and in whatever order either arrives (the
input's transaction locks the inline message's chat row; a table open there is joined).

The chat of an inline message (``inline:<inline_message_id>``, kind ``inline``) takes no
messages of its own (``core.outgoing``): its table's view replaces the invitation and is
edited in place from then on. It speaks the language of the person who invited.
"""

from __future__ import annotations

from sqlmodel import col, select

import fsm
from storage.models import Chat, GameTable, Player

from ...i18n import tr
from ..core import lobby, outgoing, play, records, tables, turn_clock
from ..core.api import Outcome, Refusal, UserRef
from ..core.transaction import Ctx
from .offers import Offer, parse


def press(ctx: Ctx, chat: Chat, player: Player, user: UserRef, code: str) -> Outcome:
    """"Join" on an invitation (``inv.<game>.<seats>``): in an inline message only."""
    offer = parse(code)
    if offer is None:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    if chat.kind != outgoing.ONE_MESSAGE:
        raise Refusal(tr(ctx.lang, "il.elsewhere"))
    return sit_down(ctx, chat, player, user, offer, quiet=False)


def sit_down(ctx: Ctx, chat: Chat, player: Player, user: UserRef, offer: Offer,
             quiet: bool) -> Outcome:
    """The person sits down at the inline message's table, which is made first if there is
    none (``quiet``: the person who chose the invitation, already seated if they pressed
    "Join" first: nothing to say)."""
    table_id = records.open_table(ctx.session, chat)
    if table_id is not None:
        table, seats = records.lock_table_seats(ctx.session, table_id)
        assert table is not None
        if quiet and (table.fsm_state != fsm.LOBBY or records.seat_of(seats, player)):
            return Outcome(None, table_id=table.id)
        if table.fsm_state != fsm.LOBBY and records.seat_of(seats, player) is None:
            raise Refusal(tr(ctx.lang, "il.running"))  # (an old copy of the invitation)
        return lobby.join(ctx, table, seats, player, user, "join")
    if _had_table(ctx, chat):  # its game is over: the message shows how it ended
        raise Refusal(tr(ctx.lang, "il.table_over"))
    if chat.language is None:  # the language of the person who invited
        chat.language = ctx.lang
        ctx.langs[(chat.platform, chat.external_id)] = ctx.lang
    table = tables.new_table(ctx, chat, player, offer.game, private=False,
                             options={"starts_at": offer.seats} if offer.seats else None)
    records.add_seat(ctx.session, table, 0, player.name, player_id=player.id)
    turn_clock.arm_lobby(ctx, table)
    play.show(ctx, table)
    return Outcome(tr(ctx.lang, "joined"), table_id=table.id, changed=True)


def _had_table(ctx: Ctx, chat: Chat) -> bool:
    return ctx.session.exec(select(GameTable.id).where(
        GameTable.chat_id == chat.id).order_by(col(GameTable.id).desc())).first() is not None
