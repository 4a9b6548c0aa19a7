"""Helpers of the league tests (issue 48, part B): people who play the daily deal — a few real
games played to their end through the service's buttons, and for most people the try started
through the service (``/tagesspiel schwimmen``: the day's deal, its ``daily_entry``) with its
end stored as the core stores a finished game (the table finished, its ``result`` row), which
keeps a week of 40 people under a minute — and the league's week worked out again from the
stored tries, independently of ``chatbot.service.league`` (the oracle)."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

import fsm
from chatbot.service import ChatRef, UserRef
from storage.db import aware
from storage.models import DailyEntry, GameTable, LeagueMember, Player, Result
from tests.chatbot.service.harness import Harness, play_private_to_the_end, private

NAMES = ("Anna", "Bob", "Alma", "Bruno", "Carla", "Dieter", "Emil", "Frieda", "Gerd", "Hanna",
         "Ida", "Jonas", "Karl", "Lena", "Max", "Nora", "Otto", "Paula", "Quirin", "Rosa",
         "Sepp", "Tilda", "Udo", "Vera", "Willi", "Xaver", "Yvonne", "Zora", "Arne", "Berta",
         "Conny", "Dora", "Egon", "Fritz", "Greta", "Hugo", "Inge", "Jule", "Kurt", "Luise",
         "Mia")
GAME = "schwimmen"
WEEK = date(2030, 1, 7)  # a Monday (the league's first week in the tests)


def person(i: int, lang: str = "de") -> UserRef:
    return UserRef(f"liga-{i:02d}", NAMES[i], language=lang)


def player_id(engine: Engine, user: UserRef) -> int:
    with Session(engine) as session:
        pid = session.exec(select(Player.id).where(
            Player.external_id == user.external_id)).one()
        assert pid is not None
        return pid


def said(h: Harness, chat: ChatRef, user: UserRef, *words: str) -> str:
    """``/liga`` with these words, and its answer as the chat shows it."""
    out = h.command(chat, user, "liga", " ".join(words))
    assert out.ok, out.text
    return h.messages(chat)[-1].text


def start_try(h: Harness, user: UserRef, chat: ChatRef | None = None) -> int:
    """Today's deal started through the service (it counts: the first try of the day)."""
    out = h.command(chat or private(user), user, "tagesspiel", GAME)
    assert out.ok and out.table_id, out.text
    return out.table_id


def quick_try(h: Harness, user: UserRef, rng: random.Random,
              chat: ChatRef | None = None) -> int:
    """A counted try whose end is stored as the core stores a finished game: the table
    finished, the ``result`` row with the person's seat's coins and whether they won."""
    table_id = start_try(h, user, chat)
    won = rng.random() < 0.3
    coins = rng.randint(0, 3) if not won else rng.randint(1, 3)
    with Session(h.engine) as session:
        table = session.get(GameTable, table_id)
        assert table is not None
        finished = aware(table.created_at) + timedelta(seconds=rng.randint(60, 900))
        table.fsm_state, table.finished_at = fsm.FINISHED, finished
        table.next_deadline = table.deadline_kind = None
        session.add(table)
        session.add(Result(table_id=table_id, game=GAME, winners=[0] if won else [1],
                           standings=[{"seat": 0, "name": user.name, "coins": coins,
                                       "out": False},
                                      {"seat": 1, "name": "CPU", "coins": 2, "out": False}],
                           rounds=3, finished_at=finished))
        session.commit()
    return table_id


def real_try(h: Harness, user: UserRef, rng: random.Random) -> int:
    """A counted try played to its end through the service (the person's buttons)."""
    table_id = start_try(h, user)
    play_private_to_the_end(h, table_id, user, rng)
    assert h.table(table_id).fsm_state == fsm.FINISHED
    return table_id


# ---------------------------------------------------------------------------------- the oracle


@dataclass(frozen=True)
class Tried:
    player_id: int
    day: str
    key: tuple[int, int, int]  # place, −coins, seconds: as the daily ranking orders


def tries(engine: Engine, days: Iterable[date]) -> list[Tried]:
    """The finished counted tries of these days, read from the stored rows."""
    wanted = [d.isoformat() for d in days]
    out = []
    with Session(engine) as session:
        for entry, result in session.exec(select(DailyEntry, Result).join(
                Result, col(Result.table_id) == DailyEntry.table_id).where(
                col(DailyEntry.day).in_(wanted), col(DailyEntry.counted).is_(True),
                DailyEntry.game == GAME)).all():
            mine = next(s for s in result.standings if s["seat"] == 0)
            place = 1 if 0 in result.winners else 2
            seconds = int((aware(result.finished_at) - aware(entry.created_at)).total_seconds())
            out.append(Tried(entry.player_id, entry.day, (place, -mine["coins"], seconds)))
    return out


def expected_points(engine: Engine, week: date, division_of: dict[int, int],
                    days: int = 7) -> dict[int, list[int | None]]:
    """Per person, their points per day: among the day's ``n`` players of their division,
    ``n`` less one for each who did better (ties score alike); None: not played."""
    days_of = [week + timedelta(days=i) for i in range(days)]
    per: dict[int, list[int | None]] = {p: [None] * 7 for p in division_of}
    found = tries(engine, days_of)
    for i, day in enumerate(days_of):
        of_day = [t for t in found if t.day == day.isoformat() and t.player_id in division_of]
        for t in of_day:
            rivals = [o for o in of_day if division_of[o.player_id] == division_of[t.player_id]]
            per[t.player_id][i] = len(rivals) - sum(1 for o in rivals if o.key < t.key)
    return per


def members(engine: Engine, week: date) -> list[LeagueMember]:
    with Session(engine) as session:
        return list(session.exec(select(LeagueMember).where(
            LeagueMember.week == week.isoformat(), LeagueMember.game == GAME)
            .order_by(col(LeagueMember.division), col(LeagueMember.seed))).all())


def expected_order(rows: list[LeagueMember], per: dict[int, list[int | None]],
                   away: set[int]) -> list[int]:
    """A division's final order: points, days played, the order it started in; holiday
    last."""
    def key(m: LeagueMember) -> tuple:
        days = [] if m.player_id in away else per.get(m.player_id, [])
        return (m.player_id in away, -sum(d or 0 for d in days),
                -sum(1 for d in days if d is not None), m.seed is None, m.seed or 0, m.id)
    return [m.player_id for m in sorted(rows, key=key)]
