"""The tournament's scheduled step: every tournament's next step lives in its row (its start
at a time, a round waiting for its topics, a round's end), found when due and claimed once —
the row locked, its version checked and moved on — however many processes or restarts race
for it. ``TournamentService`` offers the same, and the plain data of a tournament for the Mini
App's page, on the assembled ``Service``."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from sqlmodel import col, select

from storage.db import aware
from storage.models import Tournament

from ...runtime import metrics
from ..core import languages, records
from ..core.registry import Parts
from . import entries, opening, rounds

log = logging.getLogger(__name__)


def due(parts: Parts, now: datetime | None = None, limit: int = 50) -> list[tuple[int, int]]:
    """Tournaments whose next step is due: (id, version)."""
    now = now or parts.clock()
    with parts.tx.read() as session:
        rows = session.exec(select(Tournament.id, Tournament.version).where(
            col(Tournament.due_at).is_not(None), col(Tournament.due_at) <= now,
            col(Tournament.state).in_(entries.LIVE))
            .order_by(col(Tournament.due_at)).limit(limit)).all()
    return [(r[0], r[1]) for r in rows]  # type: ignore[misc]


def fire(parts: Parts, tournament_id: int, version: int) -> bool:
    """Claim and run a tournament's due step, once."""
    try:
        with parts.tx.tx() as session:
            tournament = entries.get(session, tournament_id, lock=True)
            now = parts.clock()
            if (tournament is None or tournament.version != version
                    or tournament.due_at is None or aware(tournament.due_at) > now
                    or tournament.state not in entries.LIVE):
                return False
            chat = records.get_chat(session, tournament.chat_id)
            assert chat is not None
            ctx = parts.ctx(session, chat.platform, languages.language_of(
                chat, parts.settings, session), now=now)
            kind = tournament.due_kind
            tournament.version += 1
            tournament.due_kind = tournament.due_at = None
            if kind == "start":
                opening.start_due(ctx, chat, tournament)
            elif kind == "deal":
                rounds.deal_round(ctx, chat, tournament)
            elif kind == "round_end":
                rounds.end_round(ctx, chat, tournament)
                opening.show(ctx, chat, tournament)
    except Exception:
        log.exception("tournament %s: step failed", tournament_id)
        return False
    parts.notify(ctx)
    metrics.observe_deadline(f"tournament_{kind}")
    return True


def step(parts: Parts, platform: str) -> int:
    """The scheduled step ``tournament.steps``: every due step, each claimed once."""
    return sum(fire(parts, t, v) for t, v in due(parts))


class TournamentService:
    """Mixed into the assembled ``Service``."""

    def fire_tournaments(self) -> int:
        """Every due tournament step, each claimed once (what the tick's step does)."""
        return step(self, "")  # type: ignore[arg-type]

    def tournament_view(self, platform: str, chat_external_id: str) -> dict[str, Any] | None:
        """The group's newest tournament as plain data (a page renders it): its settings,
        state, round, the tables of the round with who sits there, the standings."""
        with self.tx.read() as session:  # type: ignore[attr-defined]
            chat = records.find_chat(session, platform, chat_external_id)
            if chat is None:
                return None
            tournament = session.exec(select(Tournament).where(
                Tournament.chat_id == chat.id).order_by(col(Tournament.id).desc())).first()
            if tournament is None:
                return None
            return view(session, tournament)


def view(session: Any, tournament: Tournament) -> dict[str, Any]:
    """A tournament as plain data."""
    names = entries.names(session, tournament, ("in", "left", "removed"))
    tables = []
    for row in entries.tables(session, tournament):
        game = records.get_table(session, row.table_id) if row.table_id else None
        seats = records.seats(session, game) if game is not None else []
        tables.append({"no": row.table_no, "state": row.state,
                       "people": [s.name for s in seats] if seats else
                       [names.get(p, "?") if p else "🤖" for p in row.seats]})
    standings = [{"rank": rank, "name": s.name, "points": float(s.points),
                  "buchholz": float(s.buchholz), "game_points": s.game_points,
                  "played": s.played}
                 for rank, s in entries.current_standings(session, tournament)]
    return {"id": tournament.id, "game": tournament.game, "state": tournament.state,
            "round": tournament.round_no, "rounds": tournament.rounds,
            "place": tournament.place, "entrants": list(names.values()),
            "tables": tables, "standings": standings}
