"""A table's seats beyond the moves: a person leaving (the seat goes, or a CPU takes it over),
how many CPU players fill a lobby, playing again, resigning.

* How many CPU players join a lobby's table (``fill.+`` / ``fill.-``): the opener's choice,
  at most the free seats; they are seated at the start (``lobby.start``).
* "Play again" keeps the players. Privately: the same game against the same CPU opponents
  (names and levels), started at once. In a group: a new table in its lobby with every seat
  of the last game — the CPUs, the presser (confirmed), and the other people, each
  "waiting for confirmation" until they tap "✅ I'm in" (the lobby's ``join``). It starts as
  soon as all have confirmed; when the table's deadline (``rematch``, the
  ``rematch_timeout`` setting) comes first, or the opener presses "Start", the seats not
  confirmed are freed and it starts with those who confirmed — or stays an ordinary lobby if
  that is too few for the game.
* Resigning asks first (``resign``, then ``resign.y`` "Yes, resign" or ``resign.n`` "Cancel";
  the question is the seat's ``ui`` state, so "yes" is never one tap). Privately the game
  ends as the person's loss (the machine's ``resign``: a result row whose winners are the
  others); in a group a CPU takes the seat over (``remove_seat``), and the table closes
  when no person is left at it. The buttons mean the same at every version (they are checked
  against the table's state and the seat instead).
"""

from __future__ import annotations

from datetime import timedelta

import fsm
from engine import GAMES
from storage.models import GameTable, Player, Result, Seat

from ...i18n import pick_language, tr
from ...presenters import presenter
from ...table_options import Rematch, TableOptions
from . import outgoing, play, records, tables, turn_clock
from .api import Outcome, Refusal, UserRef
from .transaction import Ctx


# ------------------------------------------------------------------ leaving
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
        if records.options(table).rematch is not None:
            return after_leave(ctx, table, seat.player_id, answer)
    elif table.fsm_state in fsm.PLAYING:
        seat.player_id, seat.is_cpu, seat.away = None, True, False
        seat.cpu_level = "normal"
        seat.name = f"🤖 {seat.name}"
        if all(s.is_cpu for s in seats):
            return play.stop_table(ctx, table)
        turn_clock.schedule(ctx, table, seats, records.model(table, seats))
    else:
        raise Refusal(tr(ctx.lang, "table_over"))
    records.bump(ctx, table)
    play.show(ctx, table)
    return Outcome(answer, table_id=table.id, changed=True)



# ------------------------------------------------------------------ how many CPUs
def fill(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
         code: str) -> Outcome:
    """``fill.+`` / ``fill.-``: one CPU player more or fewer for the free seats."""
    step = {"fill.+": 1, "fill.-": -1}.get(code)
    if step is None:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    if not tables.may_manage(user, player, table, seats):  # (who may, before what may)
        raise tables.denied(ctx, table, "options_denied")
    game = GAMES[table.game]
    opts = records.options(table)
    now = opts.cpu_count(len(seats), game.MAX_SEATS)
    free = max(0, game.MAX_SEATS - len(seats))
    if table.fsm_state == fsm.LOBBY and opts.rematch is None:
        if step > 0 and now >= free:
            raise Refusal(tr(ctx.lang, "tl.cpu_max"))
        if step < 0 and now <= 0:
            raise Refusal(tr(ctx.lang, "tl.cpu_min"))

    def change(o: TableOptions) -> TableOptions:
        return o.but(cpus=now + step, fill_cpu=False)  # (the count decides now)
    return tables.change_option(ctx, table, player, user, change, seats)


# ------------------------------------------------------------------ play again
def again(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
          code: str) -> Outcome:
    """Play again with the same people and CPU players (see the module's text);
    ``again.same``: privately, the same cards again (``same_cards``)."""
    if table.fsm_state not in fsm.CLOSED:
        raise Refusal(tr(ctx.lang, "already_handled"))
    if records.options(table).no_again:  # (a forged press: no such button was drawn)
        raise Refusal(tr(ctx.lang, "unknown_button"))
    same = code == "again.same"
    if same and not (table.is_private and any(s.is_cpu for s in seats)):
        raise Refusal(tr(ctx.lang, "co.same_private"))
    seated = records.seat_of(seats, player) is not None
    if not seated and not user.is_admin:
        raise Refusal(tr(ctx.lang, "seated_only"))
    chat = records.get_chat(ctx.session, table.chat_id)
    assert chat is not None
    open_id = records.open_table(ctx.session, chat, table.thread_id)
    if open_id is not None:
        other = records.lock_table(ctx.session, open_id)
        rematch = records.options(other).rematch if other is not None else None
        if other is not None and rematch is not None and rematch.of == table.id:
            return confirm(ctx, other, records.seats(ctx.session, other), player)  # I'm in
        raise Refusal(tr(ctx.lang, "busy_table"))
    # the CPU players come along in their seats
    options = records.options(table).but(rematch=None, resigned=None, cpus=0, fill_cpu=False,
                                       tip=None, notes=(), daily=None, host=None, managers=())
    if same:  # the same seed deals the same cards; the game is a practice game
        options = options.but(practice="replay")
    elif options.practice in ("replay", "hint", "daily"):
        options = options.but(practice=None)
    new = tables.new_table(ctx, chat, player, table.game, private=table.is_private,
                           options=options.to_json(), thread=table.thread_id)
    new.turn_timeout = table.turn_timeout
    if same:
        new.seed = table.seed
    for s in seats:
        person = not s.is_cpu and s.player_id is not None
        records.add_seat(ctx.session, new, s.seat_no, player.name if s.player_id == player.id
                       else s.name, player_id=s.player_id if person else None,
                       is_cpu=not person, cpu_level=None if person else s.cpu_level)
    ctx.session.flush()
    waiting = [s.player_id for s in seats
               if not s.is_cpu and s.player_id is not None and s.player_id != player.id]
    if table.is_private or not waiting:
        play.start(ctx, new)
        return Outcome(None, table_id=new.id, changed=True)
    seconds = int(ctx.settings.rematch_timeout)
    records.set_options(new, records.options(new).but(
        rematch=Rematch(table.id, tuple(waiting), seconds)))
    new.deadline_kind = "rematch"
    new.next_deadline = ctx.now + timedelta(seconds=ctx.settings.rematch_timeout)
    ctx.touch(new)
    play.show(ctx, new)
    return Outcome(tr(ctx.lang, "tl.rematch_opened"), table_id=new.id, changed=True)


def waiting_of(table: GameTable) -> list[int]:
    """The people a rematch still waits for."""
    rematch = records.options(table).rematch
    return list(rematch.waiting) if rematch is not None else []


def _set_waiting(table: GameTable, waiting: list[int]) -> None:
    opts = records.options(table)
    if opts.rematch is not None:
        records.set_options(table, opts.but(rematch=Rematch(
            opts.rematch.of, tuple(waiting), opts.rematch.seconds)))


def confirm(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player) -> Outcome:
    """A person of the last game says "I'm in" to the rematch."""
    waiting = waiting_of(table)
    if table.fsm_state != fsm.LOBBY or player.id not in waiting:
        raise Refusal(tr(ctx.lang, "already_joined"))
    _set_waiting(table, [p for p in waiting if p != player.id])
    go_on(ctx, table)
    return Outcome(tr(ctx.lang, "tl.confirmed"), table_id=table.id, changed=True)


def after_leave(ctx: Ctx, table: GameTable, player_id: int | None, answer: str) -> Outcome:
    """Somebody left a rematch's lobby (declined, or was removed): one fewer to wait for."""
    _set_waiting(table, [p for p in waiting_of(table) if p != player_id])
    go_on(ctx, table)
    return Outcome(answer, table_id=table.id, changed=True)


def go_on(ctx: Ctx, table: GameTable, free_waiting: bool = False) -> bool:
    """Start the rematch once nobody is left to wait for (``free_waiting``: its time is up,
    or the opener starts: the seats not confirmed are freed first). Too few players left for
    the game: the table stays an ordinary lobby (people may join, CPU players be added)."""
    waiting = waiting_of(table)
    seats = records.seats(ctx.session, table)
    if free_waiting and waiting:
        freed = [s for s in seats if not s.is_cpu and s.player_id in waiting]
        for s in freed:
            ctx.session.delete(s)
        ctx.session.flush()  # gone before the others move up (seat numbers are unique)
        seats = [s for s in seats if s not in freed]
        for i, s in enumerate(seats):
            s.seat_no = i
        outgoing.announce(ctx, table, "tl.freed", names=", ".join(s.name for s in freed))
        waiting = []
    if waiting:
        records.bump(ctx, table)
        play.show(ctx, table, seats)
        return False
    records.set_options(table, records.options(table).but(rematch=None))
    table.next_deadline = table.deadline_kind = None
    ctx.touch(table)
    if not any(not s.is_cpu for s in seats):
        play.stop_table(ctx, table)
        return False
    game = GAMES[table.game]
    if game.MIN_SEATS <= len(seats) <= game.MAX_SEATS:
        play.start(ctx, table)
        return True
    turn_clock.arm_lobby(ctx, table)  # an ordinary lobby now
    records.bump(ctx, table)
    play.show(ctx, table, seats)
    return False


def due(ctx: Ctx, table: GameTable, seats: list[Seat]) -> None:
    """The rematch's deadline: the seats not confirmed are freed."""
    if table.fsm_state != fsm.LOBBY or records.options(table).rematch is None:
        table.next_deadline = table.deadline_kind = None
        return
    go_on(ctx, table, free_waiting=True)


# ------------------------------------------------------------------ resign
def resign(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
           code: str) -> Outcome:
    """``resign`` asks, ``resign.y`` gives up (only after asking), ``resign.n`` takes it back."""
    seat = records.seat_of(seats, player)
    if seat is None:
        raise Refusal(tr(ctx.lang, "not_seated"))
    if table.fsm_state not in fsm.PLAYING:
        raise Refusal(tr(ctx.lang, "table_over" if table.fsm_state in fsm.CLOSED
                         else "already_handled"))
    asked = bool((seat.ui or {}).get("resign"))
    if code == "resign":
        seat.ui = {"resign": True}
    elif code == "resign.n":
        seat.ui = {}
        if asked:
            _show_seat(ctx, table, seats)
        return Outcome(tr(ctx.lang, "tl.cancelled"), table_id=table.id)
    elif code == "resign.y":
        if not asked:
            raise Refusal(tr(ctx.lang, "tl.no_confirm"))
        seat.ui = {}
        return _give_up(ctx, table, seats, seat)
    else:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    _show_seat(ctx, table, seats)
    return Outcome(None, table_id=table.id)


def _show_seat(ctx: Ctx, table: GameTable, seats: list[Seat]) -> None:
    """The views again, edited in place (the question, or the game as it was): no new
    version, the other players' buttons stay valid."""
    outgoing.emit(ctx, table, seats, records.model(table, seats), repost=False)


def _give_up(ctx: Ctx, table: GameTable, seats: list[Seat], seat: Seat) -> Outcome:
    if not table.is_private:
        person = records.get_player(ctx.session, seat.player_id)
        out = remove_seat(ctx, table, seats, seat, tr(ctx.lang, "tl.you_left"))
        chat = records.get_chat(ctx.session, table.chat_id)
        if person is not None and person.private_chat_id and chat is not None:
            # the question in their chat gives way to a last word (no buttons)
            lang = pick_language(None, person.language, ctx.settings.default_language)
            outgoing.queue(ctx, chat.platform, person.private_chat_id, table.id,
                           f"h{table.id}", False, tr(lang, "tl.you_left"), [])
        if table.fsm_state in fsm.PLAYING:
            outgoing.announce(ctx, table, "tl.left_game", name=seat.name.removeprefix("🤖 "))
        return out
    table_model = records.model(table, seats)
    fsm.fire(table_model, "resign")
    table.fsm_state = table_model.state
    records.set_options(table, records.options(table).but(resigned=seat.seat_no))
    table.finished_at = ctx.now
    names = [s.name for s in seats]
    standings = presenter(table.game).standings(table_model.engine_state, names)
    for row in standings:
        if isinstance(row, dict) and row.get("seat") == seat.seat_no:
            row["resigned"] = True
    ctx.queue(Result, {
        "table_id": table.id, "game": table.game,
        "winners": [s.seat_no for s in seats if s.seat_no != seat.seat_no],
        "standings": standings,
        "rounds": getattr(table_model.engine_state, "round_no", 0), "finished_at": ctx.now})
    turn_clock.schedule(ctx, table, seats, table_model)
    records.bump(ctx, table)
    outgoing.emit(ctx, table, seats, table_model)
    return Outcome(tr(ctx.lang, "tl.resigned"), table_id=table.id, changed=True)
