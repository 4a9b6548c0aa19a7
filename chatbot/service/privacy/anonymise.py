"""Forgetting a person, in the confirming press's transaction: what names them is deleted, and
what other people's results and stats need is kept without their name.

Deleted: the groups they were seen in (``chat_member``), their stats rows and ratings
(``stat_entry``, ``rating``; the stats room first reads every stored result, so that the
others' ratings were computed with them: the hook ``person.catch_up``), their evening
answers, their daily-deal tries, their league weeks and holidays (``league_member``,
``league_holiday``), everything the outbox holds for their private chat (sent or not), its
message slots and send window, and what an adapter kept under their id (``key_value``: a
Matrix room's inviter).

Anonymised: the person row stays as a placeholder that finished games and evenings point at
(name ``—``, no username, language or settings, no private chat, the platform id replaced by
a random token: someone who writes again is a new person); a ``stats_hidden`` row stays with
it (the placeholder's id and a date: lists that left them out leave the placeholder out, so
the others' places there do not move); their seats at finished tables and
the standings of those results show ``—``; their private chat's row keeps no id, title or
language (its finished private tables stay with it); the texts the outbox still holds for
other chats (sent and pending: table views, evening lists, the Deckel's lines) show ``—``
where they named them or mentioned them.

Running tables: at a group table a Normal CPU takes their seat over (``seating.remove_seat``,
as when a person leaves; in a lobby the seat goes), under a CPU name, and the table's chat is
told; their private tables end.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from sqlalchemy import delete, or_
from sqlmodel import Session, col, select

import fsm
from storage.models import (
    Chat,
    ChatMember,
    DailyEntry,
    EveningAnswer,
    GameTable,
    KeyValue,
    LeagueHoliday,
    LeagueMember,
    MessageSlot,
    Outbox,
    OutboxLease,
    Player,
    Rating,
    Result,
    Seat,
    StatEntry,
)

from ...i18n import N_, register
from ...table_options import cpu_names
from ..core import outgoing, play, records, seating
from ..core.transaction import Ctx

register({
    "privacy.cpu_took_over": N_(
        "🚪 A player left the game and had their data deleted – 🤖 {name} plays the seat on."),
})
PLACEHOLDER = "—"  # the name a forgotten person's rows keep
FORGOTTEN = "forgotten:"  # the head of the random token that replaces a platform id
HOOK = "person.catch_up"  # a room's derived rows brought up to date before a person's are read
LETTING_GO = "person.forgotten"  # a room lets go of the person first (a tournament's entry)


def forget(ctx: Ctx, player: Player) -> None:
    """Forget ``player`` (see the module's text), in the input's transaction."""
    session = ctx.session
    names = _names(session, player)
    for hook in ctx.registry.hooks(HOOK):
        hook(ctx, player)
    for hook in ctx.registry.hooks(LETTING_GO):
        hook(ctx, player)
    _leave_open_tables(ctx, player)
    _anonymise_seats(session, player)
    session.flush()
    pid = player.id
    for model in (ChatMember, StatEntry, Rating, EveningAnswer, DailyEntry, LeagueMember,
                  LeagueHoliday):
        session.execute(delete(model).where(model.player_id == pid))  # type: ignore[attr-defined]
    session.execute(delete(KeyValue).where(KeyValue.value == player.external_id))
    _forget_private_chat(ctx, player)
    _scrub_outbox(session, player, names)
    player.external_id = f"{FORGOTTEN}{secrets.token_hex(12)}"
    player.name, player.username, player.language = PLACEHOLDER, None, None
    player.private_chat_id, player.time_zone, player.reminders = None, None, "on"
    player.deck, player.large_cards = "classic", False
    player.quiet_from, player.quiet_to = 23 * 60, 8 * 60
    session.add(player)


def _names(session: Session, player: Player) -> set[str]:
    """Every name the person's rows show: their name now and the names of their seats."""
    seated = session.exec(select(Seat.name).where(Seat.player_id == player.id,
                                                  col(Seat.is_cpu).is_(False))).all()
    found = {player.name, *seated}
    return {n.strip() for n in found if n and n.strip() and n.strip() != PLACEHOLDER}


def _leave_open_tables(ctx: Ctx, player: Player) -> None:
    """Their running group tables go on with a CPU in their seat; their private ones end."""
    ids = ctx.session.exec(select(Seat.table_id).join(
        GameTable, col(GameTable.id) == Seat.table_id).where(
        Seat.player_id == player.id, col(GameTable.fsm_state).in_(fsm.OPEN))
        .order_by(col(Seat.table_id))).all()
    for table_id in dict.fromkeys(ids):
        table, seats = records.lock_table_seats(ctx.session, table_id)
        seat = next((s for s in seats if s.player_id == player.id), None)
        if table is None or seat is None or table.fsm_state not in fsm.OPEN:
            continue
        if table.is_private:
            play.stop_table(ctx, table)
            continue
        playing = table.fsm_state in fsm.PLAYING
        if playing:  # (``remove_seat`` calls it "🤖 <name>")
            others = [s.name.removeprefix("🤖 ") for s in seats if s is not seat]
            seat.name = next(iter(cpu_names(1, others)), "CPU")
        seating.remove_seat(ctx, table, seats, seat, "")
        if playing and table.fsm_state in fsm.PLAYING:
            outgoing.announce(ctx, table, "privacy.cpu_took_over",
                              name=seat.name.removeprefix("🤖 "))


def _anonymise_seats(session: Session, player: Player) -> None:
    """Their seats at the tables that are over, and those results' standings, show ``—``."""
    seats = session.exec(select(Seat).where(Seat.player_id == player.id)).all()
    seat_of = {}
    for seat in seats:
        seat.name = PLACEHOLDER
        session.add(seat)
        seat_of[seat.table_id] = seat.seat_no
    if not seat_of:
        return
    for result in session.exec(select(Result).where(col(Result.table_id).in_(list(seat_of)))):
        standings = [dict(s, name=PLACEHOLDER) if isinstance(s, dict)
                     and s.get("seat") == seat_of[result.table_id] else s
                     for s in result.standings or []]
        if standings != result.standings:
            result.standings = standings  # (a new list: the JSON column is written)
            session.add(result)


def _forget_private_chat(ctx: Ctx, player: Player) -> None:
    """Nothing stays for their private chat: the outbox's rows (and those queued by this
    input), its message slots and send window; the chat's row keeps no id, title or
    language."""
    chat_id = player.private_chat_id
    if not chat_id:
        return
    session, platform = ctx.session, player.platform

    def here(r: Any) -> bool:
        return bool(r["platform"] == platform and r["chat_external_id"] == chat_id)
    ctx.drop_queued(Outbox, here)
    for model in (Outbox, MessageSlot, OutboxLease):
        session.execute(delete(model).where(
            model.platform == platform,  # type: ignore[attr-defined]
            model.chat_external_id == chat_id))  # type: ignore[attr-defined]
    chat = session.exec(select(Chat).where(Chat.platform == platform,
                                           Chat.external_id == chat_id)).first()
    if chat is not None and chat.kind == "private":
        chat.external_id = f"{FORGOTTEN}{secrets.token_hex(12)}"
        chat.title = chat.language = None
        session.add(chat)


def scrubber(player: Player, names: set[str]) -> tuple[list[str], re.Pattern[str]]:
    """What to look for in stored texts (the person's names, username and platform id) and
    the pattern that finds each mention of them: a mention link first, then ``@username``,
    the id, each name (longest first), each as a whole word ("Ann" forgotten, "Anna" stays)."""
    ident = re.escape(player.external_id)
    parts = [rf"\[[^\[\]]*\]\((?:tg://user\?id=|https://matrix\.to/#/){ident}\)"]
    needles = [player.external_id, *sorted(names, key=len, reverse=True)]
    if player.username:
        parts.append("@" + re.escape(player.username) + r"(?![\w])")
        needles.append(player.username)
    parts.append(rf"(?<![\w]){ident}(?![\w])")
    parts += [rf"(?<![\w]){re.escape(name)}(?![\w])"
              for name in sorted(names, key=len, reverse=True)]
    return needles, re.compile("|".join(parts))


def _scrub_outbox(session: Session, player: Player, names: set[str]) -> int:
    """The outbox's texts for other chats no longer name or mention the person. Returns how
    many rows changed."""
    needles, pattern = scrubber(player, names)
    rows = session.exec(select(Outbox).where(
        Outbox.platform == player.platform,
        or_(*(col(Outbox.text).contains(n, autoescape=True) for n in needles)))).all()
    changed = 0
    for row in rows:
        text = pattern.sub(PLACEHOLDER, row.text)
        if text != row.text:
            row.text = text
            session.add(row)
            changed += 1
    return changed
