"""The tournament's scheduled step: every tournament's next step lives in its row (its start
at a time, a round waiting for its topics, a round's end), found when due and claimed once —
the row locked, its version checked and moved on — however many processes or restarts race
for it. ``TournamentService`` offers the same, and the plain data of a tournament for the Mini
App's page, on the assembled ``Service``."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

from sqlmodel import col, select

from storage.db import aware
from storage.models import Seat, Tournament, TournamentTable

from ...runtime import metrics
from ..core import languages, records
from ..core.queries import NotYourTable
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
            tournament = entries.lock_round(session, tournament_id)
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

    def tournament_sight(self, platform: str, user_id: str, user_lang: str | None,
                         tournament_id: int) -> TournamentSight | None:
        """A tournament as a person sees it on its page (the Mini App): its plain data
        (``view``), their language and their player id; ``None``: no such tournament.
        Raises ``NotYourTable`` for anybody the bot has not seen in the tournament's group
        (the rule of a group table's page)."""
        with self.tx.read() as session:  # type: ignore[attr-defined]
            tournament = entries.get(session, tournament_id)
            if tournament is None:
                return None
            person = records.find_player(session, platform, user_id)
            if person is None or person.id is None \
                    or not records.is_member(session, tournament.chat_id, person.id):
                raise NotYourTable(tournament.id)
            lang = languages.page_language(session, platform, person, user_lang,
                                           self.settings.default_language)  # type: ignore[attr-defined]
            return TournamentSight(view(session, tournament), lang, person.id)

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


@dataclass(frozen=True)
class TournamentSight:
    """A tournament as one person sees it on its page: its plain data (``view``), their
    language, their player id (their rows are marked)."""

    data: dict[str, Any]
    lang: str
    viewer: int


def view(session: Any, tournament: Tournament) -> dict[str, Any]:
    """A tournament as plain data: the current round's tables (``tables``), every round's
    draw with each seat's result so far (``draw``), the standings."""
    names = entries.names(session, tournament, ("in", "left", "removed"))
    draw = _draw(session, tournament, names)
    tables = [{"no": t["no"], "state": t["state"], "people": [s["name"] for s in t["seats"]]}
              for t in (draw[-1]["tables"] if draw else [])]
    standings = [{"rank": rank, "player_id": s.player_id, "name": s.name,
                  "points": float(s.points), "buchholz": float(s.buchholz),
                  "game_points": s.game_points, "played": s.played}
                 for rank, s in entries.current_standings(session, tournament)]
    return {"id": tournament.id, "game": tournament.game, "state": tournament.state,
            "round": tournament.round_no, "rounds": tournament.rounds,
            "games_per_round": tournament.games_per_round,
            "place": tournament.place, "entrants": list(names.values()),
            "tables": tables, "draw": draw, "standings": standings}


def _draw(session: Any, tournament: Tournament, names: dict[int, str]) -> list[dict[str, Any]]:
    """Every round so far: its tables (number, ``waiting``/``playing``/``done``) with each
    seat's person (``player_id`` ``None``: a CPU, named as at its table) and their points and
    game points at that table so far (``None``: nothing scored yet)."""
    rows = list(session.exec(select(TournamentTable).where(
        TournamentTable.tournament_id == tournament.id)
        .order_by(col(TournamentTable.round_no), col(TournamentTable.table_no))).all())
    ids = [r.table_id for r in rows if r.table_id]
    seated: dict[int, list[Seat]] = {}
    for seat in (session.exec(select(Seat).where(col(Seat.table_id).in_(ids))
                              .order_by(col(Seat.seat_no))).all() if ids else []):
        seated.setdefault(seat.table_id, []).append(seat)
    scored: dict[tuple[int, int, int], list[Any]] = {}
    for s in entries.scored(session, tournament):
        got = scored.setdefault((s.round_no, s.table_no, s.player_id), [Fraction(0), 0.0])
        got[0] += s.points
        got[1] += s.game_points
    rounds: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        at_table = seated.get(row.table_id or 0, [])
        seats = []
        for i, person in enumerate(row.seats):
            name = at_table[i].name if i < len(at_table) else (
                names.get(person, "?") if person else "🤖")
            got = scored.get((row.round_no, row.table_no, person)) if person else None
            seats.append({"player_id": person, "name": name,
                          "points": float(got[0]) if got else None,
                          "game_points": got[1] if got else None})
        rounds.setdefault(row.round_no, []).append(
            {"no": row.table_no, "state": row.state, "game_no": row.game_no,
             "seats": seats})
    return [{"round": n, "tables": rounds[n]} for n in sorted(rounds)]
