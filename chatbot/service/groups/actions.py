"""What a group's administrator does to one of its tables from the panel (``panel``): end it
(a lobby or a game, in any topic), or take a person's seat away — in a game a Normal CPU plays
the seat on from then, in a lobby the person just leaves. Each asks first (the panel's message
becomes the question; "↩ Back" shows the panel again). The group's table says what happened,
and the person whose seat was taken is told privately.

The work itself is the core's: ``play.stop_table`` and ``seating.remove_seat``.
"""

from __future__ import annotations

from collections.abc import Callable

import fsm
from storage.models import Chat, GameTable, Player, Seat

from ... import buttons
from ...i18n import N_, register, tr
from ..core import languages, outgoing, play, records, seating
from ..core.api import Outcome, Refusal
from ..core.transaction import Ctx

register({
    "grp.lobby": N_("lobby"),
    "grp.playing": N_("playing"),
    "grp.in_topic": N_("in a topic"),
    "grp.not_here": N_("That table is not one of this group's."),
    "grp.not_seated": N_("That person no longer sits at this table."),
    "grp.end_ask": N_("End this table? The game is over for everybody at it.\n{table}"),
    "grp.b_end_yes": N_("⏹ Yes, end it"),
    "grp.ended": N_("⏹ {admin} (admin) ended the {game} table."),
    "grp.whose": N_("Whose seat do you take away? In a game a Normal CPU plays it on; "
                    "in the lobby the person just leaves.\n{table}"),
    "grp.take_ask": N_("Take {name}'s seat away? A Normal CPU plays it on from now on.\n"
                       "{table}"),
    "grp.remove_ask": N_("Take {name} out of the lobby?\n{table}"),
    "grp.b_take_yes": N_("🪑 Yes, take the seat"),
    "grp.taken": N_("🪑 {admin} (admin) gave {name}'s seat to a CPU: it plays on for them."),
    "grp.removed": N_("🪑 {admin} (admin) took {name} out of the lobby."),
    "grp.taken_ok": N_("Done: a CPU plays {name}'s seat."),
    "grp.removed_ok": N_("Done: {name} left the lobby."),
    "grp.taken_you": N_("🪑 An administrator of {group} gave your seat at {game} to a CPU; "
                        "the game goes on without you."),
    "grp.removed_you": N_("🪑 An administrator of {group} took you out of the {game} lobby."),
})
HEAD = "grp"
SLOT = "grp"  # the panel's message (and its questions), one per chat or topic


def table_of_group(ctx: Ctx, chat: Chat, table_id: int) -> tuple[GameTable, list[Seat]]:
    """The table a button names, locked with its seats: this group's and still open."""
    table, seats = records.lock_table_seats(ctx.session, table_id)
    if table is None:
        raise Refusal(tr(ctx.lang, "table_gone"))
    if table.chat_id != chat.id or table.is_private:
        raise Refusal(tr(ctx.lang, "grp.not_here"))
    if table.fsm_state not in fsm.OPEN:
        raise Refusal(tr(ctx.lang, "table_over"))
    return table, seats


def describe(ctx: Ctx, table: GameTable, seats: list[Seat]) -> str:
    """One table as the panel names it: game · lobby/playing · (in a topic ·) who sits."""
    parts = [outgoing.game_name(table, ctx.lang),
             tr(ctx.lang, "grp.lobby" if table.fsm_state == fsm.LOBBY else "grp.playing")]
    if table.thread_id is not None:
        parts.append(tr(ctx.lang, "grp.in_topic"))
    parts.append(", ".join(s.name for s in seats) or "–")
    return " · ".join(parts)


def _question(ctx: Ctx, chat: Chat, text: str, rows: list[list[tuple[str, str]]]) -> Outcome:
    """The panel's message becomes a question (its last row: back to the panel)."""
    rows = [*rows, [(tr(ctx.lang, "grp.b_back"), buttons.encode(0, 0, HEAD))]]
    outgoing.say(ctx, chat, text, rows, slot=SLOT)
    return Outcome(None)


def _seated(ctx: Ctx, seats: list[Seat], player_id: int) -> Seat:
    seat = next((s for s in seats if s.player_id == player_id and not s.is_cpu), None)
    if seat is None:
        raise Refusal(tr(ctx.lang, "grp.not_seated"))
    return seat


# ------------------------------------------------------------------ ending a table
def ask_end(ctx: Ctx, chat: Chat, admin: Player, table: GameTable, seats: list[Seat]) -> Outcome:
    """``grp.end.<table>``: are you sure?"""
    return _question(ctx, chat, tr(ctx.lang, "grp.end_ask", table=describe(ctx, table, seats)),
                     [[(tr(ctx.lang, "grp.b_end_yes"),
                        buttons.encode(0, 0, f"{HEAD}.endy.{table.id}"))]])


def end(ctx: Ctx, chat: Chat, admin: Player, table: GameTable, seats: list[Seat]) -> Outcome:
    """``grp.endy.<table>``: the table closes for good (abandoned), and the group hears who
    ended it."""
    outgoing.announce(ctx, table, "grp.ended", admin=admin.name,
                      game=outgoing.game_name(table, languages.language(ctx, chat)))
    return play.stop_table(ctx, table)


# ------------------------------------------------------------------ taking a seat away
def whose(ctx: Ctx, chat: Chat, admin: Player, table: GameTable, seats: list[Seat]) -> Outcome:
    """``grp.seats.<table>``: the people at the table, one button each."""
    people = [s for s in seats if not s.is_cpu and s.player_id is not None]
    if not people:
        raise Refusal(tr(ctx.lang, "grp.not_seated"))
    rows = [[(f"👤 {s.name}", buttons.encode(0, 0, f"{HEAD}.take.{table.id}.{s.player_id}"))]
            for s in people]
    return _question(ctx, chat, tr(ctx.lang, "grp.whose", table=describe(ctx, table, seats)),
                     rows)


def ask_take(ctx: Ctx, chat: Chat, admin: Player, table: GameTable, seats: list[Seat],
             player_id: int) -> Outcome:
    """``grp.take.<table>.<person>``: are you sure?"""
    seat = _seated(ctx, seats, player_id)
    key = "grp.remove_ask" if table.fsm_state == fsm.LOBBY else "grp.take_ask"
    return _question(ctx, chat, tr(ctx.lang, key, name=seat.name,
                                   table=describe(ctx, table, seats)),
                     [[(tr(ctx.lang, "grp.b_take_yes"),
                        buttons.encode(0, 0, f"{HEAD}.takey.{table.id}.{player_id}"))]])


def take(ctx: Ctx, chat: Chat, admin: Player, table: GameTable, seats: list[Seat],
         player_id: int) -> Outcome:
    """``grp.takey.<table>.<person>``: the seat goes to a Normal CPU (in a lobby: the person
    leaves); the group's table says so, the person is told privately (their private view of
    the table gives way to the message)."""
    seat = _seated(ctx, seats, player_id)
    name, lobby = seat.name, table.fsm_state == fsm.LOBBY
    done = tr(ctx.lang, "grp.removed_ok" if lobby else "grp.taken_ok", name=name)
    out = seating.remove_seat(ctx, table, seats, seat, done)
    outgoing.announce(ctx, table, "grp.removed" if lobby else "grp.taken", admin=admin.name,
                      name=name)
    _tell(ctx, chat, table, records.get_player(ctx.session, player_id),
          "grp.removed_you" if lobby else "grp.taken_you")
    return Outcome(done, table_id=out.table_id, changed=True)


def _tell(ctx: Ctx, chat: Chat, table: GameTable, person: Player | None, key: str) -> None:
    """The person hears it in their private chat with the bot, in their language: the
    message takes the place of their view of the table (posted anew, so it notifies)."""
    if person is None or not person.private_chat_id:
        return
    lang = languages.person_language(ctx, chat.platform, person)
    outgoing.queue(ctx, chat.platform, person.private_chat_id, table.id, f"h{table.id}", True,
                   tr(lang, key, group=chat.title or "–", game=outgoing.game_name(table, lang)),
                   [])


Step = Callable[..., Outcome]
# (the button's word, how many ids it names) → what it does
STEPS: dict[tuple[str, int], Step] = {
    ("end", 1): ask_end, ("endy", 1): end,
    ("seats", 1): whose, ("take", 2): ask_take, ("takey", 2): take,
}
