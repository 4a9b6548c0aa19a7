"""Lobby and table buttons that are not moves: joining, leaving and kicking, starting and
stopping, the lobby's options (clock, CPU level, currency, game options), the hand as an
alert, coming back from away."""

from __future__ import annotations

import fsm
from engine import GAMES
from engine.bots import levels_for
from storage.models import GameTable, Player, Seat

from ...i18n import tr
from ...presenters import presenter
from ...presenters.cards import styled
from ...table_options import TableOptions
from . import languages, outgoing, play, records, seating, tables, turn_clock
from .api import Outcome, Refusal, UserRef
from .tables import cycle, may_manage
from .transaction import Ctx

# turn clocks a lobby offers, in seconds: half a minute to three days, or none (0)
TIMEOUT_CHOICES = (30, 60, 120, 600, 3600, 43200, 86400, 259200, 0)


def _over(table: GameTable) -> bool:
    return table.fsm_state in fsm.CLOSED


def join(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
         code: str) -> Outcome:
    if table.fsm_state != fsm.LOBBY:
        raise Refusal(tr(ctx.lang, "table_over" if _over(table) else "already_joined"))
    if records.seat_of(seats, player) is not None:
        if player.id in seating.waiting_of(table):  # "I'm in" to a rematch
            return seating.confirm(ctx, table, seats, player)
        raise Refusal(tr(ctx.lang, "already_joined"))
    if len(seats) >= GAMES[table.game].MAX_SEATS:
        raise Refusal(tr(ctx.lang, "table_full"))
    records.add_seat(ctx.session, table, len(seats), player.name, player_id=player.id)
    starts_at = records.options(table).starts_at
    if starts_at is not None and len(seats) + 1 >= starts_at:  # full: it starts by itself
        seated = records.seats(ctx.session, table)
        tables.add_cpus(ctx, table, seated)
        if len(records.seats(ctx.session, table)) >= GAMES[table.game].MIN_SEATS:
            play.start(ctx, table)
            return Outcome(tr(ctx.lang, "started"), table_id=table.id, changed=True)
    records.bump(ctx, table)
    play.show(ctx, table)
    return Outcome(tr(ctx.lang, "joined"), table_id=table.id, changed=True)


def leave(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
          code: str) -> Outcome:
    seat = records.seat_of(seats, player)
    if seat is None:
        raise Refusal(tr(ctx.lang, "not_seated"))
    if table.fsm_state in fsm.PLAYING:  # leaving a running game asks first
        return seating.resign(ctx, table, seats, player, user, "resign")
    return seating.remove_seat(ctx, table, seats, seat, tr(ctx.lang, "left"))


def kick(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
         code: str) -> Outcome:
    """Remove a person (``kick.<player id>``: the button names the person, not a seat
    number that moves when someone leaves)."""
    if not may_manage(user, player, table, seats):
        raise tables.denied(ctx, table, "kick_denied")
    target = code.split(".")[1] if code.count(".") == 1 else ""
    seat = next((s for s in seats if not s.is_cpu and target.isascii() and target.isdigit()
                 and s.player_id == int(target)), None)
    if seat is None:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    return seating.remove_seat(ctx, table, seats, seat, tr(ctx.lang, "kicked", name=seat.name))


def start(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
          code: str) -> Outcome:
    if table.fsm_state != fsm.LOBBY:
        raise Refusal(tr(ctx.lang, "table_over" if _over(table) else "already_handled"))
    if not may_manage(user, player, table, seats):
        raise tables.denied(ctx, table, "start_denied")
    if records.options(table).rematch is not None:  # the seats not confirmed are freed
        if not seating.go_on(ctx, table, free_waiting=True):
            return Outcome(None, table_id=table.id, changed=True)
        return Outcome(tr(ctx.lang, "started"), table_id=table.id, changed=True)
    game = GAMES[table.game]
    tables.add_cpus(ctx, table, seats)
    if not game.MIN_SEATS <= len(records.seats(ctx.session, table)) <= game.MAX_SEATS:
        raise Refusal(tr(ctx.lang, "need_players", min=game.MIN_SEATS, max=game.MAX_SEATS))
    play.start(ctx, table)
    return Outcome(tr(ctx.lang, "started"), table_id=table.id, changed=True)


def stop(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
         code: str) -> Outcome:
    if table.fsm_state not in fsm.OPEN:
        raise Refusal(tr(ctx.lang, "table_over"))
    if not may_manage(user, player, table, seats) and not turn_clock.lobby_over(ctx, table):
        raise tables.denied(ctx, table, "stop_denied")  # (once its time is up: any member)
    return play.stop_table(ctx, table)


def expire(ctx: Ctx, table: GameTable) -> None:
    """A lobby nobody started: its time is up, it closes."""
    if not turn_clock.lobby_over(ctx, table):
        table.next_deadline = table.deadline_kind = None
        return
    chat = records.get_chat(ctx.session, table.chat_id)
    outgoing.announce(ctx, table, "clock.lobby_expired",
                      game=outgoing.game_name(table, languages.language(ctx, chat)))
    play.stop_table(ctx, table, "expired")


def game_option(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
                code: str) -> Outcome:
    """Cycle a game option the presenter offers (``opt.<key>``) while in the lobby."""
    choices = getattr(presenter(table.game), "OPTION_CHOICES", {})
    key = code[4:]
    if key not in choices:
        raise Refusal(tr(ctx.lang, "unknown_button"))

    def change(o: TableOptions) -> TableOptions:
        eng = dict(o.engine)
        eng[key] = cycle(choices[key], eng.get(key, choices[key][0]))
        return o.but(engine=eng)
    return tables.change_option(ctx, table, player, user, change, seats)


def cpu_level(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
              code: str) -> Outcome:
    """Cycle the level of the CPU players that fill empty seats."""
    levels = levels_for(table.game)
    return tables.change_option(ctx, table, player, user, lambda o: o.but(
        cpu_level=cycle(levels, o.cpu_level)), seats)


def currency(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
             code: str) -> Outcome:
    choices = list(getattr(presenter(table.game), "CURRENCIES", {}) or ["coins"])
    return tables.change_option(ctx, table, player, user, lambda o: o.but(
        currency=cycle(choices, o.currency or choices[0])), seats)


def set_clock(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
              code: str) -> Outcome:
    if table.fsm_state != fsm.LOBBY:
        raise Refusal(tr(ctx.lang, "already_handled"))
    if not may_manage(user, player, table, seats):
        raise tables.denied(ctx, table, "clock_denied")
    table.turn_timeout = cycle(TIMEOUT_CHOICES, table.turn_timeout
                                if table.turn_timeout in TIMEOUT_CHOICES else TIMEOUT_CHOICES[0])
    turn_clock.arm_lobby(ctx, table)  # (a long clock's lobby stays open longer)
    records.bump(ctx, table)
    play.show(ctx, table)
    return Outcome(None, table_id=table.id, changed=True)


def cards(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
          code: str) -> Outcome:
    """The group fallback: a player's hand as a private alert."""
    seat = records.seat_of(seats, player)
    if seat is None:
        raise Refusal(tr(ctx.lang, "not_seated"))
    if table.fsm_state not in fsm.PLAYING:
        raise Refusal(tr(ctx.lang, "table_over"))
    model = records.model(table, seats)
    lines = presenter(table.game).private_lines(model.engine_state, seat.seat_no, ctx.lang)
    if model.game.to_act(model.engine_state) == seat.seat_no:
        lines.append(tr(ctx.lang, "your_turn"))
    return Outcome(styled("\n".join(lines), player.deck) or tr(ctx.lang, "ok"), alert=True,
                   table_id=table.id)  # (in the person's deck: /karten)


def back(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
         code: str) -> Outcome:
    """"I'm back": the away mark goes, the person plays their own turns again. On a table
    that is over (an old message's button) it changes and shows nothing."""
    seat = records.seat_of(seats, player)
    if seat is None:
        raise Refusal(tr(ctx.lang, "not_seated"))
    if table.fsm_state in fsm.CLOSED:
        raise Refusal(tr(ctx.lang, "table_over"))
    if not seat.away:
        return Outcome(tr(ctx.lang, "you_are_back"), table_id=table.id)
    seat.away, seat.timeouts = False, 0
    outgoing.announce(ctx, table, "back", name=seat.name)
    model = records.model(table, seats)
    turn_clock.schedule(ctx, table, seats, model)
    records.bump(ctx, table)
    outgoing.emit(ctx, table, seats, model)
    return Outcome(tr(ctx.lang, "you_are_back"), table_id=table.id, changed=True)
