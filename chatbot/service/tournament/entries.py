"""The rows a tournament is kept in, read and locked: the group's tournament, its entrants
with their names, a round's tables, the scores so far and the standings they make."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from sqlmodel import Session, col, select

from storage.models import (
    Chat,
    GameTable,
    Player,
    Tournament,
    TournamentEntrant,
    TournamentScore,
    TournamentTable,
)

from .standings import Scored, Standing, met, standings

LIVE = ("open", "running")


def _locked(query: Any) -> Any:
    """``FOR UPDATE``, and the rows read anew (an object read before in this transaction
    takes the locked row's values)."""
    return query.with_for_update().execution_options(populate_existing=True)


def live(session: Session, chat: Chat, lock: bool = False) -> Tournament | None:
    """The group's tournament that is open for entry or running (one at a time)."""
    query = select(Tournament).where(Tournament.chat_id == chat.id,
                                     col(Tournament.state).in_(LIVE))
    return session.exec(_locked(query) if lock else query).first()


def get(session: Session, tournament_id: int, lock: bool = False) -> Tournament | None:
    query = select(Tournament).where(Tournament.id == tournament_id)
    return session.exec(_locked(query) if lock else query).first()


def lock_round(session: Session, tournament_id: int) -> Tournament | None:
    """The tournament locked for a change, as every change takes it: the game tables of its
    round first (by id), then its row — the order a move at one of them takes too (its table,
    then the tournament it finished a game of), so two processes never wait for each other."""
    tournament = get(session, tournament_id)
    if tournament is None:
        return None
    ids = sorted(t.table_id for t in tables(session, tournament) if t.table_id is not None)
    if ids:
        session.exec(select(GameTable.id).where(col(GameTable.id).in_(ids))
                     .order_by(col(GameTable.id)).with_for_update()).all()
    return get(session, tournament_id, lock=True)


def entrants(session: Session, tournament: Tournament,
             states: tuple[str, ...] = ("in",)) -> list[tuple[TournamentEntrant, Player]]:
    """The entrants (in these states) with their people, in the order they joined."""
    return [(e, p) for e, p in session.exec(
        select(TournamentEntrant, Player).join(Player, col(Player.id) == TournamentEntrant.player_id)
        .where(TournamentEntrant.tournament_id == tournament.id,
               col(TournamentEntrant.state).in_(states))
        .order_by(col(TournamentEntrant.joined_at), col(TournamentEntrant.player_id))).all()]


def entrant(session: Session, tournament: Tournament, player: Player) -> TournamentEntrant | None:
    return session.get(TournamentEntrant, (tournament.id, player.id))


def names(session: Session, tournament: Tournament,
          states: tuple[str, ...] = ("in",)) -> dict[int, str]:
    """Entrants' names by player id (everybody who ever played counts for the standings)."""
    return {p.id: (p.name or p.username or "?") for _e, p in entrants(session, tournament, states)}  # type: ignore[misc]


def tables(session: Session, tournament: Tournament, round_no: int | None = None,
           lock: bool = False) -> list[TournamentTable]:
    """A round's tables (by default the current round's), by their number."""
    query = select(TournamentTable).where(
        TournamentTable.tournament_id == tournament.id,
        TournamentTable.round_no == (tournament.round_no if round_no is None else round_no)
    ).order_by(col(TournamentTable.table_no))
    return list(session.exec(_locked(query) if lock else query).all())


def table_of_game(session: Session, table_id: int) -> TournamentTable | None:
    """The tournament table a game table is being played for, if any (not locked: its
    tournament is locked first)."""
    return session.exec(select(TournamentTable).where(TournamentTable.table_id == table_id)
                        ).first()


def scored(session: Session, tournament: Tournament) -> list[Scored]:
    rows = session.exec(select(TournamentScore).where(
        TournamentScore.tournament_id == tournament.id)).all()
    return [Scored(r.round_no, r.table_no, r.player_id, Fraction(r.points_num, r.points_den),
                   r.game_points, tuple(r.opponents)) for r in rows]


def current_standings(session: Session, tournament: Tournament
                      ) -> list[tuple[int, Standing]]:
    """The standings of everybody who played or plays (left and removed people too: their
    points stay with the others' Buchholz), best first."""
    everybody = names(session, tournament, ("in", "left"))
    return standings(everybody, scored(session, tournament))


def met_before(session: Session, tournament: Tournament) -> dict[tuple[int, int], int]:
    """How often two people sat together in the rounds so far."""
    return met(scored(session, tournament))
