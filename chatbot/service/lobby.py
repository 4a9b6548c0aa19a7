"""Table buttons that are not moves: joining, leaving and kicking, starting and stopping,
the lobby's options, the hand as an alert, coming back from away, playing again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import fsm
from engine import GAMES
from engine.bots import levels_for
from storage.models import GameTable, Player, Seat

from ..i18n import tr
from ..presenters import presenter
from . import deadlines, history, outgoing, play, spectate, store, table_life
from .api import Outcome, Refusal, UserRef
from .transaction import Ctx

TIMEOUT_CHOICES = (30, 60, 120, 0)
# buttons whose meaning never goes stale ("resign" is checked against the seat's question)
VERSION_FREE = frozenset({"join", "leave", "cards", "back", "resign", "log", "skip"})
Handler = Callable[[Ctx, GameTable, list[Seat], Player, UserRef, str], Outcome]


def may_manage(user: UserRef, player: Player | None, table: GameTable) -> bool:
    """The table chat's admins, its opener, and the player of a private table. (``user``
    counts as an admin only for a press in the table's own chat: see ``play.table_press``.)"""
    if user.is_admin:
        return True
    return table.is_private or (player is not None and table.opener_id == player.id)


def _over(table: GameTable) -> bool:
    return table.fsm_state in fsm.CLOSED


def join(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
         code: str) -> Outcome:
    if table.fsm_state != fsm.LOBBY:
        raise Refusal(tr(ctx.lang, "table_over" if _over(table) else "already_joined"))
    if store.seat_of(seats, player) is not None:
        if player.id in table_life.waiting_of(table):  # "I'm in" to a rematch
            return table_life.confirm(ctx, table, seats, player)
        raise Refusal(tr(ctx.lang, "already_joined"))
    if len(seats) >= GAMES[table.game].MAX_SEATS:
        raise Refusal(tr(ctx.lang, "table_full"))
    store.add_seat(ctx.session, table, len(seats), player.name, player_id=player.id)
    play.bump(ctx, table)
    play.show(ctx, table)
    return Outcome(tr(ctx.lang, "joined"), table_id=table.id, changed=True)


def leave(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
          code: str) -> Outcome:
    seat = store.seat_of(seats, player)
    if seat is None:
        raise Refusal(tr(ctx.lang, "not_seated"))
    if table.fsm_state in fsm.PLAYING:  # leaving a running game asks first
        return table_life.resign(ctx, table, seats, player, user, "resign")
    return remove_seat(ctx, table, seats, seat, tr(ctx.lang, "left"))


def kick(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
         code: str) -> Outcome:
    """Remove a person (``kick.<player id>``: the button names the person, not a seat
    number that moves when someone leaves)."""
    if not may_manage(user, player, table):
        raise Refusal(tr(ctx.lang, "kick_denied"))
    target = code.split(".")[1] if code.count(".") == 1 else ""
    seat = next((s for s in seats if not s.is_cpu and target.isascii() and target.isdigit()
                 and s.player_id == int(target)), None)
    if seat is None:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    return remove_seat(ctx, table, seats, seat, tr(ctx.lang, "kicked", name=seat.name))


def remove_seat(ctx: Ctx, table: GameTable, seats: list[Seat], seat: Seat,
                answer: str) -> Outcome:
    """A person leaves: in the lobby the seat goes (the others move up); in a running game
    the CPU takes the seat over for the rest of it."""
    if table.fsm_state == fsm.LOBBY:
        ctx.session.delete(seat)
        ctx.session.flush()  # gone before the others move up (seat numbers are unique)
        rest = [s for s in seats if s is not seat]
        for i, s in enumerate(rest):
            s.seat_no = i
        if not any(not s.is_cpu for s in rest):
            return play.stop_table(ctx, table)
        if table.options.get(table_life.REMATCH):
            return table_life.after_leave(ctx, table, seat.player_id, answer)
    elif table.fsm_state in fsm.PLAYING:
        seat.player_id, seat.is_cpu, seat.away = None, True, False
        seat.cpu_level = "normal"
        seat.name = f"🤖 {seat.name}"
        if all(s.is_cpu for s in seats):
            return play.stop_table(ctx, table)
        deadlines.schedule(ctx, table, seats, play.model(table, seats))
    else:
        raise Refusal(tr(ctx.lang, "table_over"))
    play.bump(ctx, table)
    play.show(ctx, table)
    return Outcome(answer, table_id=table.id, changed=True)


def start(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
          code: str) -> Outcome:
    if table.fsm_state != fsm.LOBBY:
        raise Refusal(tr(ctx.lang, "table_over" if _over(table) else "already_handled"))
    if not may_manage(user, player, table):
        raise Refusal(tr(ctx.lang, "start_denied"))
    if table.options.get(table_life.REMATCH):  # the seats not confirmed are freed
        if not table_life.go_on(ctx, table, free_waiting=True):
            return Outcome(None, table_id=table.id, changed=True)
        return Outcome(tr(ctx.lang, "started"), table_id=table.id, changed=True)
    game = GAMES[table.game]
    table_life.add_cpus(ctx, table, seats)
    if not game.MIN_SEATS <= len(store.seats(ctx.session, table)) <= game.MAX_SEATS:
        raise Refusal(tr(ctx.lang, "need_players", min=game.MIN_SEATS, max=game.MAX_SEATS))
    play.start(ctx, table)
    return Outcome(tr(ctx.lang, "started"), table_id=table.id, changed=True)


def stop(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
         code: str) -> Outcome:
    if table.fsm_state not in fsm.OPEN:
        raise Refusal(tr(ctx.lang, "table_over"))
    if not may_manage(user, player, table):
        raise Refusal(tr(ctx.lang, "stop_denied"))
    return play.stop_table(ctx, table)


def _option(ctx: Ctx, table: GameTable, player: Player, user: UserRef,
            change: Callable[[dict[str, Any]], None]) -> Outcome:
    """Change a lobby option (the opener or an admin)."""
    if table.fsm_state != fsm.LOBBY:
        raise Refusal(tr(ctx.lang, "already_handled"))
    if not may_manage(user, player, table):
        raise Refusal(tr(ctx.lang, "options_denied"))
    opts = dict(table.options)
    change(opts)
    table.options = opts
    play.bump(ctx, table)
    play.show(ctx, table)
    return Outcome(None, table_id=table.id, changed=True)


def _cycle(values: list[Any] | tuple[Any, ...], now: Any) -> Any:
    """The value after ``now`` (the first if ``now`` is none of them)."""
    return values[(values.index(now) + 1) % len(values)] if now in values else values[0]


def game_option(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
                code: str) -> Outcome:
    """Cycle a game option the presenter offers (``opt.<key>``) while in the lobby."""
    choices = getattr(presenter(table.game), "OPTION_CHOICES", {})
    key = code[4:]
    if key not in choices:
        raise Refusal(tr(ctx.lang, "unknown_button"))

    def change(o: dict[str, Any]) -> None:
        eng = dict(o.get("engine") or {})
        eng[key] = _cycle(choices[key], eng.get(key, choices[key][0]))
        o["engine"] = eng
    return _option(ctx, table, player, user, change)


def cpu_level(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
              code: str) -> Outcome:
    """Cycle the level of the CPU players that fill empty seats."""
    levels = levels_for(table.game)
    return _option(ctx, table, player, user, lambda o: o.__setitem__(
        "cpu_level", _cycle(levels, o.get("cpu_level", "normal"))))


def currency(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
             code: str) -> Outcome:
    choices = list(getattr(presenter(table.game), "CURRENCIES", {}) or ["coins"])
    return _option(ctx, table, player, user, lambda o: o.__setitem__(
        "currency", _cycle(choices, o.get("currency", choices[0]))))


def clock(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
          code: str) -> Outcome:
    if table.fsm_state != fsm.LOBBY:
        raise Refusal(tr(ctx.lang, "already_handled"))
    if not may_manage(user, player, table):
        raise Refusal(tr(ctx.lang, "clock_denied"))
    table.turn_timeout = _cycle(TIMEOUT_CHOICES, table.turn_timeout
                                if table.turn_timeout in TIMEOUT_CHOICES else TIMEOUT_CHOICES[0])
    play.bump(ctx, table)
    play.show(ctx, table)
    return Outcome(None, table_id=table.id, changed=True)


def cards(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
          code: str) -> Outcome:
    """The group fallback: a player's hand as a private alert."""
    seat = store.seat_of(seats, player)
    if seat is None:
        raise Refusal(tr(ctx.lang, "not_seated"))
    if table.fsm_state not in fsm.PLAYING:
        raise Refusal(tr(ctx.lang, "table_over"))
    model = play.model(table, seats)
    lines = presenter(table.game).private_lines(model.engine_state, seat.seat_no, ctx.lang)
    if model.game.to_act(model.engine_state) == seat.seat_no:
        lines.append(tr(ctx.lang, "your_turn"))
    return Outcome("\n".join(lines) or tr(ctx.lang, "ok"), alert=True, table_id=table.id)


def back(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
         code: str) -> Outcome:
    """"I'm back": the away mark goes, the person plays their own turns again."""
    seat = store.seat_of(seats, player)
    if seat is None:
        raise Refusal(tr(ctx.lang, "not_seated"))
    if not seat.away:
        return Outcome(tr(ctx.lang, "you_are_back"), table_id=table.id)
    seat.away, seat.timeouts = False, 0
    outgoing.announce(ctx, table, "back", name=seat.name)
    model = play.model(table, seats)
    deadlines.schedule(ctx, table, seats, model)
    play.bump(ctx, table)
    outgoing.emit(ctx, table, seats, model)
    return Outcome(tr(ctx.lang, "you_are_back"), table_id=table.id, changed=True)


# Table buttons that are not game moves, by the code's head.
UI: dict[str, Handler] = {
    "join": join, "leave": leave, "kick": kick, "start": start, "stop": stop, "cards": cards,
    "back": back, "again": table_life.again, "fill": table_life.fill, "clock": clock,
    "cur": currency, "opt": game_option, "lvl": cpu_level, "resign": table_life.resign,
    "log": history.history, "skip": spectate.skip,
}
