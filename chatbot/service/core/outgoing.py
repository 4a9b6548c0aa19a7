"""What goes out: views and announcements queued in the outbox, in the input's transaction.

The table message and every player's private view are drawn from the state being committed;
hidden cards only ever go to the private chat of the seat they belong to.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, or_, select

import fsm
from storage.models import Chat, GameTable, MessageSlot, Outbox, Player, Seat

from ...i18n import tr
from ...presenters import presenter
from ...presenters.cards import has_cards, styled
from ...views import in_deck, render_private, render_table
from . import languages, quiet_hours, records
from .mini_app import Rows, with_app
from .transaction import Ctx

BURIED_AFTER = 5  # messages below a group table (not pinned) before its next view reposts it
_PLAYING = (fsm.DEALING, fsm.EXCHANGE, fsm.TURN, fsm.FINAL_ROUND, fsm.SHOWDOWN, fsm.PAYOUT)
# A chat that is one message (a Telegram inline message, posted "via" the bot into a chat it
# need not be in): it takes no message of its own, only its table's view, always edited in
# place; what a table would say there goes to each of its people privately, where they have
# a private chat with the bot.
ONE_MESSAGE = "inline"


def queue(ctx: Ctx, platform: str, chat: str, table_id: int | None, slot: str | None,
          repost: bool, text: str, rows: Rows | list[list[list[str]]],
          fresh: bool = False, reply_to: str | None = None, thread: str | None = None) -> None:
    """One outbox row (a message, or the newest view of a slot; ``fresh``: posted anew at the
    bottom of the chat even if the slot's message shows the same; ``thread``: into that
    topic or thread of the chat)."""
    ctx.queue(Outbox, {"thread": thread,
        "platform": platform, "chat_external_id": chat, "table_id": table_id, "slot": slot,
        "repost": repost, "fresh": fresh, "text": text, "buttons": [[list(b) for b in row] for row in rows],
        "status": "pending", "attempts": 0, "not_before": ctx.now, "created_at": ctx.now,
        "sent_at": None, "error": None, "action": None, "reply_to": reply_to})


def act(ctx: Ctx, chat: Chat, table_id: int | None, slot: str, action: str,
        thread: str | None = None) -> None:
    """Act on the message a slot shows: ``delete``, ``pin`` or ``unpin`` it (no view)."""
    ctx.queue(Outbox, {"thread": thread,
        "platform": chat.platform, "chat_external_id": chat.external_id, "table_id": table_id,
        "slot": slot, "repost": False, "fresh": False, "text": "", "buttons": [],
        "status": "pending", "attempts": 0, "not_before": ctx.now, "created_at": ctx.now,
        "sent_at": None, "error": None, "action": action, "reply_to": None})


def open_thread(ctx: Ctx, chat: Chat, key: str, name: str, action: str = "thread") -> None:
    """Ask for a new topic (a Telegram forum's) or thread (a Matrix room's) named ``name``:
    an outbox ``thread`` row under ``key`` (unique in the chat; ``opened_thread`` says how it
    went once delivered). ``thread_name``: rename the one opened under ``key``."""
    ctx.queue(Outbox, {"thread": None,
        "platform": chat.platform, "chat_external_id": chat.external_id, "table_id": None,
        "slot": key, "repost": False, "fresh": False, "text": name, "buttons": [],
        "status": "pending", "attempts": 0, "not_before": ctx.now, "created_at": ctx.now,
        "sent_at": None, "error": None, "action": action, "reply_to": None})


def opened_thread(session: Session, chat: Chat, key: str) -> str | bool | None:
    """The id of the topic or thread ``open_thread`` asked for under ``key``; ``None`` while
    it is on its way, ``False`` when the chat refused it (no forum, no right to make topics)."""
    row = session.exec(select(Outbox.status, Outbox.message_id).where(
        Outbox.platform == chat.platform, Outbox.chat_external_id == chat.external_id,
        Outbox.slot == key, Outbox.action == "thread").order_by(col(Outbox.id).desc())).first()
    if row is None or row[0] == "pending":
        return None
    return row[1] if row[0] == "sent" and row[1] else False


def drop_thread(ctx: Ctx, chat: Chat, thread: str) -> int:
    """A topic or thread that takes no more messages: what is still to go there is dropped
    (it would only be refused again). Returns how many rows."""
    rows = ctx.session.exec(select(Outbox).where(
        Outbox.platform == chat.platform, Outbox.chat_external_id == chat.external_id,
        Outbox.thread == thread, Outbox.status == "pending")).all()
    for row in rows:
        row.status = "dropped"
        ctx.session.add(row)
    return len(rows)


def withdraw_private_views(ctx: Ctx, chat: Chat) -> None:
    """A private chat that has become a group (a third person came into a Matrix direct
    room): its views not delivered yet that show someone's hand are dropped - a group table's
    private view (slot ``h<table>``) and the views of the chat's own private tables."""
    pending = ctx.session.exec(select(Outbox).where(
        Outbox.platform == chat.platform, Outbox.chat_external_id == chat.external_id,
        Outbox.status == "pending", col(Outbox.action).is_(None))).all()
    tables = {int(r.slot[1:]) for r in pending if r.slot and r.slot[0] == "t"
              and r.slot[1:].isdigit()}
    private = {f"t{t}" for t in ctx.session.exec(select(GameTable.id).where(
        col(GameTable.id).in_(tables), col(GameTable.is_private).is_(True)))} if tables else set()
    for row in pending:
        if row.slot and (row.slot.startswith("h") or row.slot in private):
            row.status = "dropped"
            ctx.session.add(row)


def reminder_slot(table: GameTable) -> str:
    return f"r{table.id}"


def remind(ctx: Ctx, table: GameTable, text: str) -> None:
    """A turn reminder in the table's chat: one at a time (a newer one replaces it), deleted
    once the turn is played (``forget_reminder``). A table played in private chats
    (``in_private``) says nothing in its group: its person is reminded privately instead."""
    chat = records.get_chat(ctx.session, table.chat_id)
    if chat is not None and not plays_in_private(table):
        say(ctx, chat, text, slot=reminder_slot(table), fresh=True, thread=table.thread_id)


def forget_reminder(ctx: Ctx, table: GameTable) -> None:
    chat = records.get_chat(ctx.session, table.chat_id)
    if chat is not None:
        act(ctx, chat, table.id, reminder_slot(table), "delete", table.thread_id)


def _keep_in_view(ctx: Ctx, chat: Chat, table: GameTable, slot_name: str) -> tuple[bool, str | None]:
    """Keep a group table in sight: pinned while its game runs (asked once; the adapter
    refuses where the bot may not pin, remembered in the slot), unpinned after; a table that
    is not pinned is posted anew once more than ``BURIED_AFTER`` messages went to the chat
    after it. Returns (repost the view, ``pin``/``unpin`` to queue)."""
    slot = ctx.session.exec(select(MessageSlot).where(
        MessageSlot.platform == chat.platform, MessageSlot.chat_external_id == chat.external_id,
        MessageSlot.slot == slot_name)).first()
    if slot is None:  # not posted yet
        return False, None
    action = None
    if table.fsm_state in _PLAYING:
        if slot.pinned is None:
            slot.pinned, action = True, "pin"  # (the delivery sets False when refused)
            ctx.session.add(slot)
        if slot.pinned:
            return False, action
    elif slot.pinned:
        slot.pinned, action = None, "unpin"
        ctx.session.add(slot)
    # a table just unpinned (its game is over) comes to the bottom if anything went below it
    limit = 0 if action == "unpin" else BURIED_AFTER
    return _below(ctx, chat, slot_name, slot.message_id, table.thread_id) > limit, action


def _below(ctx: Ctx, chat: Chat, slot_name: str, message_id: str, thread: str | None) -> int:
    """How many messages the bot posted in a chat's topic or thread after the message a slot
    shows (counting plain messages and commands' answers; views edited in place and deleted
    reminders add none). Messages people write there are not counted (the bot rarely sees
    them)."""
    where = (Outbox.platform == chat.platform, Outbox.chat_external_id == chat.external_id,
             col(Outbox.thread).is_not_distinct_from(thread))
    first = ctx.session.exec(select(func.min(Outbox.id)).where(
        *where, Outbox.slot == slot_name, Outbox.message_id == message_id)).first()
    if first is None:
        return 0
    count = ctx.session.exec(select(func.count()).select_from(Outbox).where(
        *where, col(Outbox.status).in_(("pending", "sent")), col(Outbox.id) > first,
        col(Outbox.action).is_(None),
        or_(col(Outbox.slot).is_(None), col(Outbox.fresh).is_(True)))).one()
    queued = ctx.queued(Outbox)
    return count + sum(1 for r in queued if r["chat_external_id"] == chat.external_id
                       and r.get("thread") == thread and not r.get("action") and (r["slot"] is None or r["fresh"]))


_HERE = "\x00here"  # ``say``'s default thread: the input's own, in the input's own chat


def say(ctx: Ctx, chat: Chat, text: str, rows: Rows | None = None, slot: str | None = None,
        repost: bool = False, fresh: bool = False, reply_to: str | None = None,
        thread: str | None = _HERE) -> None:
    """A message to a chat (``reply_to``: as the answer to that message), into ``thread``
    (by default: an answer in the input's chat goes to the input's topic or thread, as a
    reply to a command's message: ``Ctx.answer_to``). A chat-wide slot (a menu, the rules) is
    one per topic or thread."""
    if chat.kind == ONE_MESSAGE and not (slot and slot[0] == "t" and slot[1:].isdigit()):
        return  # (only its table's view; ``announce`` tells the people privately)
    if thread == _HERE:
        here = chat.external_id == ctx.input_chat
        thread = ctx.thread if here else None
        reply_to = reply_to or (ctx.answer_to if here else None)
    if thread is not None and slot is not None and not slot[1:].isdigit():
        slot = f"{slot}@{thread}"[:64]
    queue(ctx, chat.platform, chat.external_id, None, slot, repost, text, rows or [], fresh,
          reply_to, thread)


def plays_in_private(table: GameTable) -> bool:
    """Whether a group table is played in its players' private chats (``in_private``):
    nothing of it goes into the group; what it would say there, each person hears privately."""
    return not table.is_private and records.options(table).in_private


def _each_person(ctx: Ctx, chat: Chat, table: GameTable,
                 text_in: Callable[[str], str | None], but: int | None = None) -> None:
    """A table's message to each seated person's private chat (in their language; not to the
    player ``but``); on a long clock not into their quiet hours, unless they made it happen."""
    for seat in records.seats(ctx.session, table):
        person = records.get_player(ctx.session, seat.player_id) if seat.player_id \
            and not seat.is_cpu and seat.player_id != but else None
        if person is None or not person.private_chat_id or ctx.input_chat != \
                person.private_chat_id and quiet_hours.spared(person, table.turn_timeout, ctx.now):
            continue
        text = styled(text_in(languages.person_language(ctx, chat.platform, person)) or "",
                      person.deck)  # (each in their own deck)
        if text:
            queue(ctx, chat.platform, person.private_chat_id, table.id, None, False, text, [])


def announce(ctx: Ctx, table: GameTable, key: str, but: int | None = None,
             **values: Any) -> None:
    """A one-off message in the table's chat (and nowhere hidden cards could show); of a
    table played in private chats, to each of its people but the player ``but``."""
    chat = records.get_chat(ctx.session, table.chat_id)
    if chat is None:
        return
    if plays_in_private(table) or chat.kind == ONE_MESSAGE:
        _each_person(ctx, chat, table, lambda lang: tr(lang, key, **values), but)
    else:
        say(ctx, chat, _owners(ctx, table, tr(languages.language(ctx, chat), key, **values)),
            thread=table.thread_id)


def _owners(ctx: Ctx, table: GameTable, text: str, seats: list[Seat] | None = None) -> str:
    """A private table's text in its person's deck (a group's in the classic one)."""
    if not table.is_private or not has_cards(text):
        return text
    person = _person_of(ctx, seats if seats is not None else records.seats(ctx.session, table))
    return styled(text, person.deck) if person is not None else text


def _person_of(ctx: Ctx, seats: list[Seat]) -> Player | None:
    """The person of a private table: who sits in its first seat not played by a CPU."""
    seat = next((s for s in seats if not s.is_cpu and s.player_id is not None), None)
    return records.get_player(ctx.session, seat.player_id) if seat is not None else None


def announce_result(ctx: Ctx, table: GameTable, seats: list[Seat],
                    model: fsm.TableModel) -> None:
    """The round's or game's result, in the table's chat."""
    chat = records.get_chat(ctx.session, table.chat_id)
    if chat is None:
        return
    if table.is_private and model.state != fsm.FINISHED and spectating(table, seats, model):
        return  # the person is out: the table message shows how the CPUs get on
    names = [s.name for s in seats]
    if plays_in_private(table) or chat.kind == ONE_MESSAGE:
        _each_person(ctx, chat, table, lambda lang: "\n".join(presenter(table.game).result_lines(
            model.engine_state, names, lang, table.options)))
        return
    lines = presenter(table.game).result_lines(model.engine_state, names,
                                               languages.language(ctx, chat), table.options)
    if lines:
        say(ctx, chat, _owners(ctx, table, "\n".join(lines), seats), thread=table.thread_id)


def is_out(table: GameTable, model: fsm.TableModel, seat_no: int) -> bool:
    """Whether a seat is out of the game (the others play on; games with a ``seat_out``)."""
    out = getattr(presenter(table.game), "seat_out", None)
    return bool(out and model.engine_state is not None and out(model.engine_state, seat_no))


def spectating(table: GameTable, seats: list[Seat], model: fsm.TableModel) -> bool:
    """Whether the person of a private table is out of the game (CPUs play on)."""
    human = next((s for s in seats if not s.is_cpu), None)
    return human is not None and is_out(table, model, human.seat_no)


QUIET_PLATFORMS = frozenset({"matrix"})  # every event counts against a per-user limit there


def _involved(table: GameTable, model: fsm.TableModel) -> set[int] | None:
    """During a round, the seats whose private views change in a way that matters to them:
    the one who just moved and the one on turn now (``None``: every seat - a round just
    dealt, between rounds, at the end, or when the log says nothing)."""
    if table.fsm_state not in (fsm.TURN, fsm.FINAL_ROUND) or model.engine_state is None:
        return None
    last = (table.log or [{}])[-1]
    if last.get("kind") == "deal" or not isinstance(last.get("seat"), int):
        return None  # a round was dealt: everybody's hand
    on_turn = model.game.to_act(model.engine_state)
    return {s for s in (on_turn, last["seat"]) if isinstance(s, int)}


def mention(platform: str, player: Player | None, seat: Seat) -> str:
    """How to address a seat's person so that their client notifies them."""
    if player is None:
        return seat.name
    if player.username:
        return "@" + player.username
    if platform == "telegram":
        return f"[{seat.name}](tg://user?id={player.external_id})"
    if platform == "matrix":  # a pill (the adapter adds m.mentions)
        return f"[{seat.name}](https://matrix.to/#/{player.external_id})"
    return seat.name


def emit(ctx: Ctx, table: GameTable, seats: list[Seat], model: fsm.TableModel,
         repost: bool = True, group: bool = True) -> None:
    """Queue the table's current views: the table message and each player's private view
    (``repost=False``: private views are edited in place even on the player's turn;
    ``group=False``: only the private views, the group's topic being gone)."""
    chat = records.get_chat(ctx.session, table.chat_id)
    if chat is None:
        return
    lang = languages.language(ctx, chat)
    if table.is_private:
        seat = seats[0] if seats else None
        view = in_deck(render_private(table, seats, model, seat, lang, single=True),
                       _person_of(ctx, seats))
        repost = view.repost
        if chat.platform in QUIET_PLATFORMS and seat is not None and model.engine_state \
                is not None and model.game.to_act(model.engine_state) == seat.seat_no:
            # where people type their moves, the table comes down to them on their turn
            # (the adapter edits it in place while it is still in sight)
            repost = True
        say(ctx, chat, view.text, with_app(ctx, chat, table, view.rows, lang, True),
            slot=f"t{table.id}", repost=repost, thread=None)
        return
    players = {s.player_id: p for s in seats if s.player_id
               and (p := records.get_player(ctx.session, s.player_id)) is not None}
    one_message = chat.kind == ONE_MESSAGE  # (no hint to start the bot: they need not)
    view = render_table(table, seats, model, lang, players,
                        None if one_message else ctx.settings.start_link)
    if one_message and table.fsm_state in (fsm.PAYOUT, fsm.FINISHED):  # results folded in
        lines = presenter(table.game).result_lines(model.engine_state, [s.name for s in seats],
                                                   lang, table.options)
        if lines:
            view = dataclasses.replace(view, text=view.text + "\n\n" + "\n".join(lines))
    group = group and not records.options(table).in_private  # (its people see it privately)
    slot_name = f"t{table.id}"
    repost_table, action = _keep_in_view(ctx, chat, table, slot_name) \
        if group and not one_message else (False, None)  # (one message: edited, never pinned)
    thread = table.thread_id
    if group:
        if action == "unpin":  # (the message still pinned, before a repost replaces it)
            act(ctx, chat, table.id, slot_name, action, thread)
        rows = with_app(ctx, chat, table, view.rows, lang, False)
        for more in ctx.registry.hooks("table.rows"):  # rows a room adds (its chats' own)
            rows = [*rows, *more(ctx, chat, table, lang)]
        say(ctx, chat, view.text, rows, slot=slot_name, repost=repost_table, thread=thread)
        if action == "pin":
            act(ctx, chat, table.id, slot_name, action, thread)
    if table.fsm_state == fsm.LOBBY:
        return
    involved = _involved(table, model) if chat.platform in QUIET_PLATFORMS else None
    for seat in seats:
        player = players.get(seat.player_id) if seat.player_id else None
        if player is None or seat.is_cpu or not player.private_chat_id:
            continue
        if involved is not None and seat.seat_no not in involved:
            continue  # brought up to date when it moves or is on turn, and at the round's end
        if table.fsm_state in (fsm.TURN, fsm.FINAL_ROUND) and is_out(table, model, seat.seat_no):
            continue  # out of the game: told at the round's end, not edited on every move
        plang = languages.person_language(ctx, chat.platform, player)
        pview = in_deck(render_private(table, seats, model, seat, plang, single=False,
                                       where=records.place_name(chat, table)), player)
        queue(ctx, chat.platform, player.private_chat_id, table.id, f"h{table.id}",
              pview.repost and repost and _may_notify(ctx, table, player), pview.text,
              with_app(ctx, chat, table, pview.rows, plang, True))


def _may_notify(ctx: Ctx, table: GameTable, player: Player) -> bool:
    """Whether a private view may come to the bottom of the chat on the person's turn (which
    notifies them): always on a live clock; on a long clock as their reminders allow now."""
    if table.turn_timeout < quiet_hours.LONG_CLOCK:
        return True
    return quiet_hours.may_remind(player, "start", ctx.now)


def game_name(table: GameTable, lang: str) -> str:
    """The table's game as the person reads it."""
    return presenter(table.game).name(lang)  # type: ignore[no-any-return]
