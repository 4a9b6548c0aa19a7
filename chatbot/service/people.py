"""A person's own things, in their private chat: their running tables across all their chats
(``/games``: where it is their turn first, each with a button that brings that table's view to
the bottom) and their turn reminders (``/reminders``: on, only the last one, off; quiet hours;
time zone)."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import col, select

import fsm
from storage.models import Chat, GameTable, Player, Seat

from .. import buttons
from ..durations import span
from ..i18n import N_, register, tr
from . import outgoing, quiet, store
from .api import Outcome, Refusal, UserRef
from .transaction import Ctx

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
    "rem.title": N_(
        "⏰ Turn reminders (for turn clocks of 10 minutes and more)\nNow: {setting}\n"
        "Quiet hours: {quiet} ({zone})\nIn quiet hours no reminder comes; a clock of 12 hours "
        "or more never runs out in them."),
    "rem.on": N_("On: at my turn and when a quarter is left"),
    "rem.last": N_("Only when a quarter is left"),
    "rem.off": N_("Off"),
    "rem.quiet": N_("{start}–{end}"),
    "rem.no_quiet": N_("none"),
    "rem.saved": N_("Saved."),
})
SETTING_KEYS = {quiet.ON: "rem.on", quiet.LAST: "rem.last", quiet.OFF: "rem.off"}


def _private_only(ctx: Ctx, chat: Chat) -> None:
    if chat.kind != "private":
        raise Refusal(tr(ctx.lang, "games.private_only"), alert=False)


# ---------------------------------------------------------------------------------- /games
def running_tables(ctx: Ctx, player: Player) -> list[tuple[GameTable, list[Seat]]]:
    """The running tables a person sits at (not as a CPU), with their seats."""
    tables = ctx.session.exec(
        select(GameTable).join(Seat, col(Seat.table_id) == GameTable.id)
        .where(Seat.player_id == player.id, col(Seat.is_cpu).is_(False),
               col(GameTable.fsm_state).in_(fsm.PLAYING))
        .order_by(col(GameTable.id))).all()
    return [(t, store.seats(ctx.session, t)) for t in tables]


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
    _private_only(ctx, chat)
    rows_of = []
    for table, seats in running_tables(ctx, player):
        model = store.model(table, seats)
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
    chat = store.get_chat(ctx.session, table.chat_id)
    return (chat.title if chat is not None and chat.title else "?")


def show(ctx: Ctx, chat: Chat, player: Player, arg: str) -> Outcome:
    """``show.<table>`` under ``/games``: that table's view at the bottom of this chat."""
    table = store.get_table(ctx.session, int(arg)) if arg.isascii() and arg.isdigit() \
        and int(arg) <= buttons.MAX_ID else None
    if table is None:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    seats = store.seats(ctx.session, table)
    seat = store.seat_of(seats, player)
    if seat is None or table.fsm_state not in fsm.PLAYING:
        raise Refusal(tr(ctx.lang, "table_over" if table.fsm_state in fsm.CLOSED
                         else "not_seated"))
    outgoing.remind_privately(ctx, table, seats, seat, player,
                              tr(ctx.lang, "games.show", game=outgoing.game_name(table, ctx.lang),
                                 where=_where(ctx, table)))
    return Outcome(None, table_id=table.id)


# ---------------------------------------------------------------------------------- /reminders
def reminders(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/reminders``: the person's settings, as buttons that change them."""
    _private_only(ctx, chat)
    _show_settings(ctx, chat, player, fresh=True)
    return Outcome(None)


def _quiet_text(ctx: Ctx, start: int, end: int) -> str:
    if start == end:
        return tr(ctx.lang, "rem.no_quiet")
    return tr(ctx.lang, "rem.quiet", start=f"{start // 60:02d}:{start % 60:02d}",
              end=f"{end // 60:02d}:{end % 60:02d}")


def _show_settings(ctx: Ctx, chat: Chat, player: Player, fresh: bool) -> None:
    zone = quiet.zone_of(player, ctx.lang).key
    text = tr(ctx.lang, "rem.title", setting=tr(ctx.lang, SETTING_KEYS.get(
        player.reminders, "rem.on")), quiet=_quiet_text(ctx, player.quiet_from, player.quiet_to),
        zone=zone)
    mark = "✅ "
    rows = [[(("" if player.reminders != s else mark) + tr(ctx.lang, key),
              buttons.encode(0, 0, f"rem.{s}"))] for s, key in SETTING_KEYS.items()]
    hours = [(("" if (player.quiet_from, player.quiet_to) != q else mark)
              + _quiet_text(ctx, *q), buttons.encode(0, 0, f"rem.q.{i}"))
             for i, q in enumerate(quiet.QUIET_CHOICES)]
    zones = [(("" if zone != z else mark) + z.rpartition("/")[2].replace("_", " "),
              buttons.encode(0, 0, f"rem.z.{i}")) for i, z in enumerate(quiet.ZONES)]
    rows += [hours[:3], hours[3:]]
    rows += [zones[i:i + 3] for i in range(0, len(zones), 3)]
    outgoing.say(ctx, chat, text, rows, slot="reminders", fresh=fresh)


def reminders_press(ctx: Ctx, chat: Chat, player: Player, code: str) -> Outcome:
    """A button under ``/reminders``: ``rem.<on|last|off>``, ``rem.q.<i>``, ``rem.z.<i>``."""
    _private_only(ctx, chat)
    parts = code.split(".")
    if len(parts) == 2 and parts[1] in quiet.SETTINGS:
        player.reminders = parts[1]
    elif len(parts) == 3 and parts[1] in ("q", "z") and parts[2].isascii() \
            and parts[2].isdigit() and len(parts[2]) < 3:
        i = int(parts[2])
        if parts[1] == "q" and i < len(quiet.QUIET_CHOICES):
            player.quiet_from, player.quiet_to = quiet.QUIET_CHOICES[i]
        elif parts[1] == "z" and i < len(quiet.ZONES):
            player.time_zone = quiet.ZONES[i]
        else:
            raise Refusal(tr(ctx.lang, "unknown_button"))
    else:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    _show_settings(ctx, chat, player, fresh=False)
    return Outcome(tr(ctx.lang, "rem.saved"))


COMMANDS = {"games": games, "reminders": reminders}
