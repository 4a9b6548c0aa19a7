"""A topic of its own for each long table in a person's private chat (Telegram, Bot API 9.4:
where the bot's threaded mode is on, ``Settings.private_topics``): a person at three tables
of days, each on a clock of ten minutes or more (``quiet_hours.LONG_CLOCK``), finds each
table's messages to them - their view with its move buttons, their turn, reminders, notes,
its result - in a topic named after the table, not interleaved in one chat.

When such a table's game moves (``TableMoved``, the first time at its deal) each seated
person with a private chat gets the topic asked for once (an outbox ``thread`` row under
the slot ``pt<table>``; ``Seat.private_topic`` notes it, so a restart or a second process
asks no second time). Delivery puts every row of that table to that chat into the topic
once it is open, and into the chat itself where it is not (the chat or Telegram refused
it: today's behaviour), in order (the topic is asked for before the views of the same
input). When the game ends (``GameFinished``) or the table is closed (``TableClosed``) the
topic is renamed "🏁 …" - it keeps the game's messages (Telegram lets a bot rename and
delete a private chat's topics but not close them; deleting would take the result with
it). A person who deletes a topic gets the table's messages in their chat again
(``core.personal.private_topic_gone``).
"""

from __future__ import annotations

import fsm
from storage.models import Chat, GameTable, Player, Seat

from ...delivery import THREAD_NAME, topic_slot
from ...i18n import N_, register, tr
from ..core import languages, outgoing, quiet_hours, records
from ..core.events import GameFinished, TableClosed, TableMoved
from ..core.transaction import Ctx

register({
    "lg.topic": N_("🃏 {game} · {place}"),
    "lg.topic_over": N_("🏁 {game} · {place}"),
})
TOPIC_NAME = 128  # characters of a topic's name (Telegram's most)


def _wanted(ctx: Ctx, table: GameTable) -> bool:
    """Whether a table's people get topics of their own: a group's (or an inline message's)
    table on a long clock, where the bot may make topics in private chats."""
    return ctx.settings.private_topics and not table.is_private \
        and table.turn_timeout >= quiet_hours.LONG_CLOCK


def _private_chat(ctx: Ctx, platform: str, seat: Seat) -> tuple[Player, Chat] | None:
    """A seated person and their private chat with the bot, where there is one."""
    person = records.get_player(ctx.session, seat.player_id) \
        if seat.player_id is not None and not seat.is_cpu else None
    if person is None or not person.private_chat_id:
        return None
    chat = records.find_chat(ctx.session, platform, person.private_chat_id)
    return (person, chat) if chat is not None else None


def _name(ctx: Ctx, chat: Chat, table: GameTable, person: Player, key: str) -> str:
    """The topic's name in the person's language: the game and where it is played."""
    lang = languages.person_language(ctx, chat.platform, person)
    place = records.place_name(chat, table) or f"#{table.id}"
    return tr(lang, key, game=outgoing.game_name(table, lang), place=place)[:TOPIC_NAME]


def table_moved(ctx: Ctx, event: TableMoved) -> None:
    """A long table's game moved: a topic is asked for each person who has none yet."""
    table = event.table
    if table.fsm_state not in fsm.PLAYING or not _wanted(ctx, table):
        return
    waiting = [s for s in event.seats if not s.private_topic and not s.is_cpu
               and s.player_id is not None]
    chat = records.get_chat(ctx.session, table.chat_id) if waiting else None
    if chat is None:
        return
    for seat in waiting:
        found = _private_chat(ctx, chat.platform, seat)
        if found is None:
            continue  # (asked once they start the bot privately and the game moves on)
        person, private = found
        outgoing.open_thread(ctx, private, topic_slot(table.id),  # type: ignore[arg-type]
                             _name(ctx, chat, table, person, "lg.topic"))
        seat.private_topic = True


def _over(ctx: Ctx, table: GameTable, seats: list[Seat]) -> None:
    """The table is over: each of its topics renamed "🏁 …" (its messages stay)."""
    asked = [s for s in seats if s.private_topic]
    chat = records.get_chat(ctx.session, table.chat_id) if asked else None
    if chat is None:
        return
    for seat in asked:
        found = _private_chat(ctx, chat.platform, seat)
        if found is not None:
            person, private = found
            outgoing.open_thread(ctx, private, topic_slot(table.id),  # type: ignore[arg-type]
                                 _name(ctx, chat, table, person, "lg.topic_over"),
                                 action=THREAD_NAME)


def game_finished(ctx: Ctx, event: GameFinished) -> None:
    _over(ctx, event.table, event.seats)


def table_closed(ctx: Ctx, event: TableClosed) -> None:
    _over(ctx, event.table, records.seats(ctx.session, event.table))
