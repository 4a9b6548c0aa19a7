"""What one person hears privately about a group's table: a turn reminder with their own
view (the move can be made right there), a one-off note (timed out, away, the topic closed),
how the table's group and place are named and linked there, and what happens when the
table's own topic in their private chat is gone (``private_topic_gone``)."""

from __future__ import annotations

from sqlmodel import col, select

import fsm
from storage.models import Chat, GameTable, MessageSlot, Player, Seat

from ...delivery import TOPIC, topic_slot
from ...i18n import tr
from ...views import render_private
from . import languages, mini_app, outgoing, records
from .transaction import Ctx


def table_link(ctx: Ctx, chat: Chat, table: GameTable) -> str | None:
    """A link to the group's table message, for a private reminder: on Telegram
    ``https://t.me/c/<id>/<message>`` (a supergroup: its members open it), on Matrix the
    room's event (``https://matrix.to/#/<room>/<event>``); ``None`` where there is none."""
    slot = ctx.session.exec(select(MessageSlot).where(
        MessageSlot.platform == chat.platform, MessageSlot.chat_external_id == chat.external_id,
        MessageSlot.slot == f"t{table.id}")).first()
    if slot is None or not slot.message_id:
        return None
    if chat.platform == "telegram" and chat.external_id.startswith("-100") \
            and chat.external_id[4:].isdigit() and slot.message_id.isdigit():
        return f"https://t.me/c/{chat.external_id[4:]}/{slot.message_id}"
    if chat.platform == "matrix" and chat.external_id.startswith("!"):
        return f"https://matrix.to/#/{chat.external_id}/{slot.message_id}"
    return None


def table_place(ctx: Ctx, table: GameTable) -> str | None:
    """Where a group table plays, named for its players outside the group: the group's name
    and, when it plays in a topic or thread whose name is known, that name
    (``records.place_name``); ``None`` for a private table. Every room names tables by it."""
    return records.place_name(records.get_chat(ctx.session, table.chat_id), table)


def linked_title(ctx: Ctx, chat: Chat, table: GameTable) -> str | None:
    """Where the table plays (``table_place``: the group, and its topic or thread), linked
    to its table message where the platform allows (``[name](url)``: a text link on
    Telegram, a link to the room's event on Matrix)."""
    place = records.place_name(chat, table)
    if not place:
        return None
    link = table_link(ctx, chat, table)
    if link is None:
        return place
    name = place.replace("[", "(").replace("]", ")")
    return f"[{name}]({link})"


def remind_privately(ctx: Ctx, table: GameTable, seats: list[Seat], seat: Seat,
                     player: Player, header: str) -> None:
    """A turn reminder in the person's private chat: their view (hand, table, the move
    buttons: the move can be made right there) posted anew at the bottom, under ``header``.
    A private table's message is that view."""
    chat = records.get_chat(ctx.session, table.chat_id)
    if chat is None:
        return
    model = records.model(table, seats)
    if table.is_private:
        lang = languages.language(ctx, chat)
        view = render_private(table, seats, model, seat, lang, single=True)
        target, slot = chat.external_id, f"t{table.id}"
    elif player.private_chat_id:
        lang = languages.person_language(ctx, chat.platform, player)
        view = render_private(table, seats, model, seat, lang, single=False,
                              where=records.place_name(chat, table))
        target, slot = player.private_chat_id, f"h{table.id}"
    else:
        return  # nowhere private to write: the group's mention must do
    outgoing.queue(ctx, chat.platform, target, table.id, slot, True, f"{header}\n{view.text}",
          mini_app.with_app(ctx, chat, table, view.rows, lang, True), fresh=True)


def tell_person(ctx: Ctx, table: GameTable, player: Player | None, key: str,
                **values: object) -> None:
    """A one-off message to a person's private chat about a table (in their language)."""
    chat = records.get_chat(ctx.session, table.chat_id)
    if chat is None or player is None:
        return
    target = chat.external_id if table.is_private else player.private_chat_id
    if not target:
        return
    lang = languages.language(ctx, chat) if table.is_private else \
        languages.person_language(ctx, chat.platform, player)
    where = records.place_name(chat, table) or "–"
    outgoing.queue(ctx, chat.platform, target, table.id, None, False,
          tr(lang, key, game=outgoing.game_name(table, lang), group=where, **values), [])


def has_private_topic(ctx: Ctx, chat: Chat, table_id: int) -> bool:
    """Whether a private chat has a topic of its own for a table (``long_games.topics``):
    what is shown there about the table (a replay of its rounds) goes into it."""
    return ctx.session.exec(select(MessageSlot.id).where(
        MessageSlot.platform == chat.platform, MessageSlot.chat_external_id == chat.external_id,
        MessageSlot.slot == topic_slot(table_id))).first() is not None


def private_topic_gone(ctx: Ctx, chat: Chat, thread: str) -> list[int]:
    """A private chat's topic refused a message (the person deleted a table's topic): that
    table's messages go to the chat itself from now on (the topic's slot is forgotten, and
    the slot of the person's view, whose message went with the topic) and the views of a
    table still playing are drawn anew. Returns those tables."""
    slots = ctx.session.exec(select(MessageSlot).where(
        MessageSlot.platform == chat.platform, MessageSlot.chat_external_id == chat.external_id,
        MessageSlot.message_id == thread, col(MessageSlot.slot).startswith(TOPIC))).all()
    tables = []
    for slot in slots:
        ctx.session.delete(slot)
        number = slot.slot[len(TOPIC):]
        table = records.lock_table(ctx.session, int(number)) if number.isdigit() else None
        if table is None:
            continue
        for view in ctx.session.exec(select(MessageSlot).where(
                MessageSlot.platform == chat.platform,
                MessageSlot.chat_external_id == chat.external_id,
                MessageSlot.slot == f"h{table.id}")).all():
            ctx.session.delete(view)
        if table.fsm_state in fsm.PLAYING:
            seats = records.seats(ctx.session, table)
            outgoing.emit(ctx, table, seats, records.model(table, seats), group=False)
        tables.append(table.id)
    return tables
