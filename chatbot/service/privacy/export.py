"""``/mydata`` (``/meinedaten``): everything the bot stores about a person, as one JSON file
sent to their private chat.

The file holds every row that names the person (``person_data``): their person row with its
settings, the groups they were seen in, their seats with the moves made for those seats, the
results of their games with their own standing, their stats rows and ratings, whether they
hid their stats, their answers to evenings, their daily-deal tries, their league weeks and
holidays, the tables and evenings they opened, and how many messages to their private chat
the outbox holds (counts by status, not the texts: those are the bot's own views of tables and
answers, shown in their chat already and deleted after ``RETAIN_OUTBOX_HOURS``). Any other
table with a column that points at the person's row (a room added later, not named here) goes
in whole under ``other_rows`` (``COVERED``: the tables the named sections hold).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import func, or_
from sqlalchemy import select as core_select
from sqlmodel import Session, SQLModel, col, select

from storage.db import aware
from storage.models import (
    Chat,
    ChatMember,
    DailyEntry,
    Evening,
    EveningAnswer,
    GameTable,
    LeagueHoliday,
    LeagueMember,
    Move,
    Outbox,
    Player,
    Rating,
    Result,
    Seat,
    StatEntry,
    StatsHidden,
)

from ...delivery.items import DOCUMENT, document_text
from ...i18n import N_, register, tr
from ..core import outgoing
from ..core.api import Outcome, UserRef
from ..core.transaction import Ctx
from .anonymise import HOOK

register({
    "privacy.export_sent": N_(
        "📄 Here is everything I store about you, as a JSON file: your settings, the groups I "
        "saw you in, your seats, moves, results, stats and ratings, your evening answers and "
        "daily deals. /forget deletes it."),
    "privacy.export_file": N_("stammtisch-my-data-{day}.json"),
})
FORMAT = "stammtisch-personal-data/1"
# the tables whose rows about a person the file's named sections hold (``other_rows``: the rest)
COVERED = frozenset({"player", "chat_member", "seat", "game_table", "stat_entry", "rating",
                     "stats_hidden", "evening", "evening_answer", "daily_entry",
                     "league_member", "league_holiday"})


def _when(value: datetime | None) -> str | None:
    return aware(value).isoformat() if value is not None else None


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _rows(session: Session, query: Any) -> list[Any]:
    return list(session.exec(query).all())


def person_data(session: Session, player: Player, now: datetime) -> dict[str, Any]:
    """Every stored row that names ``player``, as plain JSON values."""
    pid = player.id
    seats = _rows(session, select(Seat, GameTable).join(
        GameTable, col(GameTable.id) == Seat.table_id).where(Seat.player_id == pid)
        .order_by(col(Seat.table_id)))
    chat_ids = {table.chat_id for _seat, table in seats}
    members = _rows(session, select(ChatMember).where(ChatMember.player_id == pid))
    chat_ids |= {m.chat_id for m in members}
    chats = {c.id: c for c in _rows(session, select(Chat).where(col(Chat.id).in_(chat_ids)))} \
        if chat_ids else {}
    tables = {table.id: table for _seat, table in seats}
    seat_of = {seat.table_id: seat.seat_no for seat, _table in seats}
    return {
        "format": FORMAT,
        "exported_at": _when(now),
        "person": _person(player),
        "groups_seen_in": [{"group": _chat_name(chats.get(m.chat_id)),
                            "last_seen": _when(m.seen_at)} for m in members],
        "seats": [_seat(seat, table, chats.get(table.chat_id), player) for seat, table in seats],
        "moves": _moves(session, seat_of),
        "results": _results(session, seat_of, tables),
        "stats": [{"result": s.result_id, "game": s.game, "private": s.is_private,
                   "strongest_cpu": s.cpu_level, "won": s.won}
                  for s in _rows(session, select(StatEntry).where(StatEntry.player_id == pid)
                                 .order_by(col(StatEntry.result_id)))],
        "ratings": [{"game": r.game, "mu": r.mu, "sigma": r.sigma, "games": r.games}
                    for r in _rows(session, select(Rating).where(Rating.player_id == pid))],
        "stats_hidden_since": _when(hidden.since) if (hidden := session.get(
            StatsHidden, pid)) is not None else None,
        "evening_answers": _answers(session, pid),  # type: ignore[arg-type]
        "evenings_opened": [{"evening": e.id, "group": _chat_name(session.get(Chat, e.chat_id)),
                             "starts_at": _when(e.starts_at), "state": e.state}
                            for e in _rows(session, select(Evening).where(
                                Evening.opener_id == pid).order_by(col(Evening.id)))],
        "daily_deals": [{"day": d.day, "game": d.game, "table": d.table_id,
                         "counted": d.counted, "at": _when(d.created_at)}
                        for d in _rows(session, select(DailyEntry).where(
                            DailyEntry.player_id == pid).order_by(col(DailyEntry.id)))],
        "league_weeks": [{"game": m.game, "week": m.week, "division": m.division,
                          "points": m.points, "rank": m.rank, "moved": m.moved}
                         for m in _rows(session, select(LeagueMember).where(
                             LeagueMember.player_id == pid).order_by(col(LeagueMember.id)))],
        "league_holidays": list(session.exec(select(LeagueHoliday.week).where(
            LeagueHoliday.player_id == pid).order_by(col(LeagueHoliday.week))).all()),
        "tables_opened": list(session.exec(select(GameTable.id).where(
            GameTable.opener_id == pid).order_by(col(GameTable.id))).all()),
        "messages_to_your_private_chat": _outbox_counts(session, player),
        "other_rows": other_rows(session, pid),  # type: ignore[arg-type]
    }


def other_rows(session: Session, player_id: int) -> dict[str, list[dict[str, Any]]]:
    """The rows of the tables not ``COVERED`` that point at the person's row, whole."""
    out: dict[str, list[dict[str, Any]]] = {}
    for table in SQLModel.metadata.sorted_tables:
        columns = [c for c in table.columns
                   if any(fk.column.table.name == "player" for fk in c.foreign_keys)]
        if table.name in COVERED or not columns:
            continue
        rows = session.execute(core_select(table).where(
            or_(*(c == player_id for c in columns)))).mappings().all()
        if rows:
            out[table.name] = [{k: _when(v) if isinstance(v, datetime) else v
                                for k, v in row.items()} for row in rows]
    return out


def _person(player: Player) -> dict[str, Any]:
    return {
        "platform": player.platform, "id": player.external_id, "name": player.name,
        "username": player.username, "language": player.language,
        "private_chat": player.private_chat_id, "first_seen": _when(player.created_at),
        "settings": {"reminders": player.reminders, "quiet_from": _clock(player.quiet_from),
                     "quiet_to": _clock(player.quiet_to), "time_zone": player.time_zone,
                     "deck": player.deck, "large_cards": player.large_cards},
    }


def _chat_name(chat: Chat | None) -> str | None:
    if chat is None:
        return None
    return "private" if chat.kind == "private" else (chat.title or chat.external_id)


def _seat(seat: Seat, table: GameTable, chat: Chat | None, player: Player) -> dict[str, Any]:
    return {"table": table.id, "game": table.game, "chat": _chat_name(chat),
            "private": table.is_private, "seat": seat.seat_no, "name": seat.name,
            "played_by_cpu": seat.away, "state": table.fsm_state,
            "opened_by_you": table.opener_id == player.id, "created_at": _when(table.created_at),
            "finished_at": _when(table.finished_at)}


def _moves(session: Session, seat_of: dict[int, int]) -> list[dict[str, Any]]:
    if not seat_of:
        return []
    moves = _rows(session, select(Move).where(col(Move.table_id).in_(list(seat_of)))
                  .order_by(col(Move.table_id), col(Move.seq)))
    return [{"table": m.table_id, "seq": m.seq, "seat": m.seat_no, "by": m.actor,
             "move": m.code, "at": _when(m.at)}
            for m in moves if m.seat_no is not None and m.seat_no == seat_of.get(m.table_id)]


def _results(session: Session, seat_of: dict[int, int],
             tables: dict[int, GameTable]) -> list[dict[str, Any]]:
    if not seat_of:
        return []
    out = []
    for r in _rows(session, select(Result).where(col(Result.table_id).in_(list(seat_of)))
                   .order_by(col(Result.id))):
        seat_no = seat_of[r.table_id]
        standing = next((s for s in r.standings or [] if isinstance(s, dict)
                         and s.get("seat") == seat_no), None)
        out.append({"table": r.table_id, "game": r.game, "finished_at": _when(r.finished_at),
                    "rounds": r.rounds, "your_seat": seat_no,
                    "won": seat_no in (r.winners or []), "your_standing": standing,
                    "private": tables[r.table_id].is_private})
    return out


def _answers(session: Session, player_id: int) -> list[dict[str, Any]]:
    rows = _rows(session, select(EveningAnswer, Evening).join(
        Evening, col(Evening.id) == EveningAnswer.evening_id).where(
        EveningAnswer.player_id == player_id).order_by(col(Evening.id)))
    return [{"evening": e.id, "group": _chat_name(session.get(Chat, e.chat_id)),
             "starts_at": _when(e.starts_at), "answer": a.answer, "at": _when(a.at)}
            for a, e in rows]


def _outbox_counts(session: Session, player: Player) -> dict[str, int]:
    if not player.private_chat_id:
        return {}
    counts: Iterable[tuple[str, int]] = session.exec(
        select(Outbox.status, func.count()).where(
            Outbox.platform == player.platform,
            Outbox.chat_external_id == player.private_chat_id).group_by(Outbox.status)).all()
    return dict(sorted(counts))


def document(ctx: Ctx, chat: Chat, name: str, content: str) -> None:
    """Queue a file to a chat (an outbox ``document`` row: ``delivery.items``)."""
    ctx.queue(Outbox, {
        "platform": chat.platform, "chat_external_id": chat.external_id, "table_id": None,
        "slot": None, "repost": False, "fresh": False, "text": document_text(name, content),
        "buttons": [], "status": "pending", "attempts": 0, "not_before": ctx.now,
        "created_at": ctx.now, "sent_at": None, "error": None, "action": DOCUMENT,
        "reply_to": None, "thread": None})


def mydata(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/mydata``, in the person's private chat (``Where.PRIVATE``): a short note, then the
    file."""
    for hook in ctx.registry.hooks(HOOK):  # (their stats as they are now)
        hook(ctx, player)
    data = person_data(ctx.session, player, ctx.now)
    content = json.dumps(data, ensure_ascii=False, indent=1, default=str)
    outgoing.say(ctx, chat, tr(ctx.lang, "privacy.export_sent"), fresh=True)
    document(ctx, chat, tr(ctx.lang, "privacy.export_file", day=ctx.now.date().isoformat()),
             content)
    return Outcome(None)
