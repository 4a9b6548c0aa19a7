"""``/games`` (``/spiele``): a person's running tables across all their chats, in their
private chat — where it is their turn first, each with a button (``show.<table>``) that brings
that table's view to the bottom."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import col, select

import fsm
from storage.models import Chat, GameTable, Player, Seat

from ... import buttons
from ...durations import span
from ...i18n import N_, register, tr
from ..core import outgoing, personal, records
from ..core.api import Outcome, Refusal, UserRef
from ..core.transaction import Ctx

register({
    "games.none": N_("You are not at any running table. /new starts one."),
    "games.title": N_("🃏 Your tables:"),
    "games.line": N_("{mark} {game} · {where} · {turn}{left}"),
    "games.private": N_("private"),
    "games.yours": N_("your turn"),
    "games.theirs": N_("{name}'s turn"),
    "games.between": N_("between rounds"),
    "games.paused": N_("paused"),
    "games.show": N_("↓ {game} · {where}"),
    "games.private_only": N_("/games and /reminders work in your private chat with me."),
})


def running_tables(ctx: Ctx, player: Player) -> list[tuple[GameTable, list[Seat]]]:
    """The running tables a person sits at (not as a CPU), with their seats."""
    tables = ctx.session.exec(
        select(GameTable).join(Seat, col(Seat.table_id) == GameTable.id)
        .where(Seat.player_id == player.id, col(Seat.is_cpu).is_(False),
               col(GameTable.fsm_state).in_(fsm.PLAYING))
        .order_by(col(GameTable.id))).all()
    return [(t, records.seats(ctx.session, t)) for t in tables]


def turn_end(table: GameTable) -> datetime | None:
    """When the running turn's clock runs out (``None``: no clock, or nobody's turn)."""
    if table.turn_ends_at is not None:
        return table.turn_ends_at
    if table.deadline_kind == "timeout":
        return table.next_deadline
    if table.deadline_kind == "remind" and table.next_deadline is not None:
        return table.next_deadline + timedelta(seconds=table.turn_timeout / 2)
    return None


def games(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/games``: every running table of the person, where it is their turn first."""
    rows_of = []
    for table, seats in running_tables(ctx, player):
        model = records.model(table, seats)
        seat_no = model.game.to_act(model.engine_state) if model.engine_state else None
        on_turn = next((s for s in seats if s.seat_no == seat_no), None)
        mine = on_turn is not None and on_turn.player_id == player.id and not on_turn.is_cpu
        ends = turn_end(table)
        rows_of.append((not mine, ends or datetime.max.replace(tzinfo=ctx.now.tzinfo),
                        table, on_turn, mine, ends))
    if not rows_of:
        outgoing.say(ctx, chat, tr(ctx.lang, "games.none"), fresh=True)
        return Outcome(None)
    rows_of.sort(key=lambda r: (r[0], r[1], r[2].id))
    lines, keys = [tr(ctx.lang, "games.title")], []
    for _theirs, _when, table, on_turn, mine, ends in rows_of:
        where = _where(ctx, table)
        game = outgoing.game_name(table, ctx.lang)
        if table.paused_until is not None:
            turn = tr(ctx.lang, "games.paused")
        elif on_turn is None:
            turn = tr(ctx.lang, "games.between")
        else:
            turn = tr(ctx.lang, "games.yours") if mine else \
                tr(ctx.lang, "games.theirs", name=on_turn.name)
        left = f" · {span((ends - ctx.now).total_seconds(), ctx.lang)}" \
            if ends is not None and table.paused_until is None else ""
        lines.append(tr(ctx.lang, "games.line", mark="👉" if mine else "•", game=game,
                        where=where, turn=turn, left=left))
        keys.append([(tr(ctx.lang, "games.show", game=game, where=where),
                      buttons.encode(0, 0, f"show.{table.id}"))])
    outgoing.say(ctx, chat, "\n".join(lines), keys, slot="games", fresh=True)
    return Outcome(None)


def _where(ctx: Ctx, table: GameTable) -> str:
    if table.is_private:
        return tr(ctx.lang, "games.private")
    return personal.table_place(ctx, table) or "?"


def show(ctx: Ctx, chat: Chat, player: Player, arg: str) -> Outcome:
    """``show.<table>`` under ``/games``: that table's view at the bottom of this chat."""
    table = records.get_table(ctx.session, int(arg)) if arg.isascii() and arg.isdigit() \
        and int(arg) <= buttons.MAX_ID else None
    if table is None:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    seats = records.seats(ctx.session, table)
    seat = records.seat_of(seats, player)
    if seat is None or table.fsm_state not in fsm.PLAYING:
        raise Refusal(tr(ctx.lang, "table_over" if table.fsm_state in fsm.CLOSED
                         else "not_seated"))
    personal.remind_privately(ctx, table, seats, seat, player,
                              tr(ctx.lang, "games.show", game=outgoing.game_name(table, ctx.lang),
                                 where=_where(ctx, table)))
    return Outcome(None, table_id=table.id)


def show_press(ctx: Ctx, chat: Chat, player: Player, user: UserRef, code: str) -> Outcome:
    """The button ``show.<table>``."""
    parts = code.split(".")
    if len(parts) != 2:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    return show(ctx, chat, player, parts[1])
