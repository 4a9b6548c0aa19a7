"""Opening tables and setting them up: a new table in its lobby, a private table against CPU
players (started at once), a group's lobby, the CPU players seated at the start, who may
manage a table, and changing a lobby's options."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import fsm
from engine import GAMES
from engine.bots import ANFAENGER
from storage.models import Chat, GameTable, Player, Seat

from ...i18n import N_, register, tr
from ...presenters import presenter
from ...table_options import TableOptions, cpu_names
from . import play, records, turn_clock
from .api import Outcome, Refusal, UserRef
from .transaction import Ctx

register({
    "tl.managed_denied": N_("Only the people this table was opened for, or an admin, can "
                            "do that."),
})


def new_table(ctx: Ctx, chat: Chat, player: Player, game_id: str, *, private: bool,
              options: dict[str, Any] | None = None,
              turn_timeout: int | None = None, thread: str | None = None,
              seed: int | None = None) -> GameTable:
    """A new table in its lobby (with its id: buttons and slots carry it). ``turn_timeout``:
    its turn clock in seconds (else none privately, the setting's in groups); a group table
    lives in ``thread`` if given, else in the topic or thread the input came from; ``seed``:
    the deal's (else a random one). A table in the input's own topic or thread keeps that
    one's name, if the adapter knows it (``Ctx.thread_name``: ``records.place_name``)."""
    thread = None if private else thread if thread is not None else ctx.thread
    named = {"thread_name": ctx.thread_name} if thread is not None and thread == ctx.thread \
        and ctx.thread_name else {}
    opts = TableOptions.from_json({**presenter(game_id).DEFAULT_TABLE_OPTIONS, **named,
                                   **(options or {})}, strict=True)
    table = GameTable(
        chat_id=chat.id, game=game_id, options=opts.to_json(), fsm_state=fsm.LOBBY,  # type: ignore[arg-type]
        state_json=None, seed=random.SystemRandom().randrange(2**52) if seed is None else seed,
        version=0,
        is_private=private, opener_id=player.id,
        turn_timeout=turn_timeout if turn_timeout is not None else 0 if private
        else ctx.settings.group_timeout, next_deadline=None,
        deadline_kind=None, reminded=False, log=[], created_at=ctx.now, updated_at=ctx.now,
        finished_at=None,
        thread_id=thread)
    ctx.session.add(table)
    ctx.session.flush()
    return table


def create_private_table(ctx: Ctx, chat: Chat, player: Player, game_id: str, opponents: int,
                         level: str, options: dict[str, Any] | None = None,
                         turn_timeout: int | None = None, seed: int | None = None) -> GameTable:
    """A private table: the player at seat 0 and CPU opponents, started at once (against
    Anfänger with the coach's tips on)."""
    table = new_table(ctx, chat, player, game_id, private=True, options=options,
                      turn_timeout=turn_timeout, seed=seed)
    if level == ANFAENGER and not (options or {}).get("practice"):  # tips on by default
        records.set_options(table, records.options(table).but(coach=True))
    records.add_seat(ctx.session, table, 0, player.name or "Du", player_id=player.id)
    for i, name in enumerate(cpu_names(opponents, [player.name or ""])):
        records.add_seat(ctx.session, table, i + 1, f"🤖 {name}", is_cpu=True,
                       cpu_level=level)
    play.start(ctx, table)
    return table


def open_lobby(ctx: Ctx, chat: Chat, player: Player, game_id: str,
               engine_options: dict[str, Any] | None = None,
               turn_timeout: int | None = None) -> Outcome:
    """A group's lobby with its opener seated."""
    table = new_table(ctx, chat, player, game_id, private=False,
                      options={"engine": engine_options} if engine_options else None,
                      turn_timeout=turn_timeout)
    records.add_seat(ctx.session, table, 0, player.name, player_id=player.id)
    turn_clock.arm_lobby(ctx, table)
    play.show(ctx, table)
    return Outcome(None, table_id=table.id, changed=True)


def add_cpus(ctx: Ctx, table: GameTable, seats: list[Seat]) -> None:
    """Seat the CPU players the opener chose (at the start)."""
    opts = records.options(table)
    n = opts.cpu_count(len(seats), GAMES[table.game].MAX_SEATS)
    for i, name in enumerate(cpu_names(n, [s.name for s in seats])):
        records.add_seat(ctx.session, table, len(seats) + i, f"🤖 {name}",
                       is_cpu=True, cpu_level=opts.cpu_level)


def may_manage(user: UserRef, player: Player | None, table: GameTable,
               seats: list[Seat] | None = None) -> bool:
    """The table chat's admins, its opener, the player of a private table, and the people
    the table names as its managers (``TableOptions.managers``) while seated at it
    (``seats``; not given: they do not count). (``user`` counts as an admin only for a press
    in the table's own chat: see ``router.table_press``.)"""
    if user.is_admin:
        return True
    if table.is_private or (player is not None and table.opener_id == player.id):
        return True
    return player is not None and seats is not None \
        and player.id in records.options(table).managers \
        and records.seat_of(seats, player) is not None


def denied(ctx: Ctx, table: GameTable, key: str) -> Refusal:
    """The refusal of somebody who may not manage the table: the text ``key`` ("only the
    opener …"), or for a table with managers, that it is theirs."""
    return Refusal(tr(ctx.lang, "tl.managed_denied" if records.options(table).managers
                      else key))


def change_option(ctx: Ctx, table: GameTable, player: Player, user: UserRef,
                  change: Callable[[TableOptions], TableOptions],
                  seats: list[Seat] | None = None) -> Outcome:
    """Change a lobby option (who may manage the table)."""
    if table.fsm_state != fsm.LOBBY:
        raise Refusal(tr(ctx.lang, "already_handled"))
    if not may_manage(user, player, table, seats):
        raise denied(ctx, table, "options_denied")
    records.set_options(table, change(records.options(table)))
    records.bump(ctx, table)
    play.show(ctx, table)
    return Outcome(None, table_id=table.id, changed=True)


def cycle(values: list[Any] | tuple[Any, ...], now: Any) -> Any:
    """The value after ``now`` (the first if ``now`` is none of them)."""
    return values[(values.index(now) + 1) % len(values)] if now in values else values[0]
