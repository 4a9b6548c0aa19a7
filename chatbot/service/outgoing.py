"""What goes out: views and announcements queued in the outbox, in the input's transaction.

The table message and every player's private view are drawn from the state being committed;
hidden cards only ever go to the private chat of the seat they belong to.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

import fsm
from storage.models import Chat, GameTable, Outbox, Player, Seat

from ..i18n import LANGUAGES, pick_language, tr
from ..presenters import presenter
from ..views import render_private, render_table
from . import store
from .api import Settings
from .transaction import Ctx

Rows = list[list[tuple[str, str]]]


def language_of(chat: Chat | None, settings: Settings, session: Session | None = None) -> str:
    """The language of a chat's messages: its choice; else, in a private chat (given the
    session to look the person up), its person's language; else the default."""
    person = None
    if session is not None and chat is not None and chat.kind == "private" \
            and chat.language not in LANGUAGES:
        person = store.private_person(session, chat)
    return pick_language(chat.language if chat else None, person.language if person else None,
                         settings.default_language)


def language(ctx: Ctx, chat: Chat | None) -> str:
    return language_of(chat, ctx.settings, ctx.session)


def queue(ctx: Ctx, platform: str, chat: str, table_id: int | None, slot: str | None,
          repost: bool, text: str, rows: Rows | list[list[list[str]]],
          fresh: bool = False) -> None:
    """One outbox row (a message, or the newest view of a slot; ``fresh``: posted anew at the
    bottom of the chat even if the slot's message shows the same)."""
    ctx.queue(Outbox, {
        "platform": platform, "chat_external_id": chat, "table_id": table_id, "slot": slot,
        "repost": repost, "fresh": fresh, "text": text, "buttons": [[list(b) for b in row] for row in rows],
        "status": "pending", "attempts": 0, "not_before": ctx.now, "created_at": ctx.now,
        "sent_at": None, "error": None})


def say(ctx: Ctx, chat: Chat, text: str, rows: Rows | None = None, slot: str | None = None,
        repost: bool = False, fresh: bool = False) -> None:
    """A message to a chat."""
    queue(ctx, chat.platform, chat.external_id, None, slot, repost, text, rows or [], fresh)


def announce(ctx: Ctx, table: GameTable, key: str, **values: Any) -> None:
    """A one-off message in the table's chat (and nowhere hidden cards could show)."""
    chat = store.get_chat(ctx.session, table.chat_id)
    if chat is not None:
        say(ctx, chat, tr(language(ctx, chat), key, **values))


def announce_result(ctx: Ctx, table: GameTable, seats: list[Seat],
                    model: fsm.TableModel) -> None:
    """The round's or game's result, in the table's chat."""
    chat = store.get_chat(ctx.session, table.chat_id)
    if chat is None:
        return
    lines = presenter(table.game).result_lines(model.engine_state, [s.name for s in seats],
                                               language(ctx, chat), table.options)
    if lines:
        say(ctx, chat, "\n".join(lines))


def mention(platform: str, player: Player | None, seat: Seat) -> str:
    """How to address a seat's person so that their client notifies them."""
    if player is None:
        return seat.name
    if player.username:
        return "@" + player.username
    if platform == "telegram":
        return f"[{seat.name}](tg://user?id={player.external_id})"
    return seat.name


def emit(ctx: Ctx, table: GameTable, seats: list[Seat], model: fsm.TableModel,
         repost: bool = True) -> None:
    """Queue the table's current views: the table message and each player's private view
    (``repost=False``: private views are edited in place even on the player's turn)."""
    chat = store.get_chat(ctx.session, table.chat_id)
    if chat is None:
        return
    lang = language(ctx, chat)
    if table.is_private:
        seat = seats[0] if seats else None
        view = render_private(table, seats, model, seat, lang, single=True)
        say(ctx, chat, view.text, view.rows, slot=f"t{table.id}", repost=view.repost)
        return
    players = {s.player_id: p for s in seats if s.player_id
               and (p := store.get_player(ctx.session, s.player_id)) is not None}
    view = render_table(table, seats, model, lang, players, ctx.settings.start_link)
    say(ctx, chat, view.text, view.rows, slot=f"t{table.id}")
    if table.fsm_state == fsm.LOBBY:
        return
    for seat in seats:
        player = players.get(seat.player_id) if seat.player_id else None
        if player is None or seat.is_cpu or not player.private_chat_id:
            continue
        plang = pick_language(None, player.language, ctx.settings.default_language)
        pview = render_private(table, seats, model, seat, plang, single=False)
        queue(ctx, chat.platform, player.private_chat_id, table.id, f"h{table.id}",
              pview.repost and repost, pview.text, pview.rows)
