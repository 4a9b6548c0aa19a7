"""Helpers of the Stammtisch evening tests (issue 40): the evening's next step and firing it on
the fake clock, answering the announcement, playing a group game of three to its end, and the
Deckel worked out again from the results table (independently of ``chatbot.service.deckel``)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from fractions import Fraction

from sqlalchemy import text
from sqlmodel import Session, col, select

from chatbot.service import ChatRef, UserRef
from storage.db import aware, make_engine, utcnow
from storage.models import Evening, GameTable, Outbox, Player, Result, Seat
from tests.chatbot.service.harness import GROUP, Harness, code_of, private
from tests.chatbot.service.test_group_game import play_group_to_the_end

DAY0 = datetime(2030, 1, 7, tzinfo=UTC)  # a Monday in winter: Berlin is UTC+1


def berlin(day: int, hour: int, minute: int = 0) -> datetime:
    """A moment in Berlin's winter time on ``DAY0`` + ``day``."""
    return DAY0 + timedelta(days=day, hours=hour - 1, minutes=minute)


def evenings(h: Harness) -> list[Evening]:
    with Session(h.engine) as session:
        return list(session.exec(select(Evening).order_by(col(Evening.id))).all())


def current(h: Harness) -> Evening:
    """The group's evening that is planned or running (the newest)."""
    live = [e for e in evenings(h) if e.state in ("planned", "running")]
    assert live, "no evening planned"
    return live[-1]


def step(h: Harness, kind: str) -> Evening:
    """Move the clock to the evening's next step, which must be ``kind``, and fire it."""
    evening = current(h)
    assert evening.due_kind == kind, (evening.due_kind, kind)
    assert evening.due_at is not None
    h.clock.set(aware(evening.due_at))
    assert h.service.fire_evenings() == 1
    h.step()
    return evening


def evening_buttons(h: Harness, chat: ChatRef = GROUP) -> dict[str, str]:
    """code → data of the menu buttons (table 0) the chat shows now."""
    h.postman.deliver()
    return {code_of(d): d for _label, d in h.transport.buttons(chat.external_id)
            if d.startswith("v1:0:")}


def answer(h: Harness, user: UserRef, letter: str) -> str:
    evening = current(h)
    h.clock.advance(60)  # (people answer one after the other)
    data = evening_buttons(h)[f"ev.a.{evening.id}.{letter}"]
    out = h.press(GROUP, user, data)
    assert out.ok, out.text
    return out.text or ""


def rows_since(h: Harness, after: int, chat: ChatRef | None = None) -> list[Outbox]:
    with Session(h.engine) as session:
        query = select(Outbox).where(Outbox.id > after)
        if chat is not None:
            query = query.where(Outbox.chat_external_id == chat.external_id)
        return list(session.exec(query.order_by(col(Outbox.id))).all())


def mark(h: Harness) -> int:
    rows = rows_since(h, 0)
    return rows[-1].id if rows else 0  # type: ignore[return-value]


def open_table(h: Harness) -> GameTable | None:
    with Session(h.engine) as session:
        return session.exec(select(GameTable).where(
            col(GameTable.fsm_state).not_in(("finished", "abandoned")),
            GameTable.is_private == False).order_by(col(GameTable.id).desc())).first()  # noqa: E712


def start_lobby(h: Harness, opener: UserRef) -> int:
    table = open_table(h)
    assert table is not None and table.fsm_state == "lobby"
    assert table.id is not None
    data = h.buttons(GROUP, table.id)["start"]
    out = h.press(GROUP, opener, data)
    assert out.ok and out.changed, out.text
    return table.id


def new_game(h: Harness, users: list[UserRef]) -> int:
    """The next game of the evening: the first opens Schwimmen, the others join, start."""
    out = h.command(GROUP, users[0], "new", "schwimmen")
    assert out.ok and out.table_id, out.text
    for user in users[1:]:
        assert h.press(GROUP, user, h.buttons(GROUP, out.table_id)["join"]).changed
    return start_lobby(h, users[0])


def play(h: Harness, table_id: int, users: list[UserRef], seed: int) -> None:
    play_group_to_the_end(h, table_id, users, random.Random(seed))


def expected_deckel(h: Harness, since: datetime) -> dict[str, Fraction]:
    """The evening's points per person worked out again from ``result``: per game of n
    seats, winner first, then by coins; places n−1 … 0; ties share."""
    sums: dict[str, Fraction] = {}
    with Session(h.engine) as session:
        results = session.exec(select(Result).order_by(col(Result.id))).all()
        for result in results:
            if aware(result.finished_at) < since:
                continue
            seats = {s.seat_no: s for s in session.exec(
                select(Seat).where(Seat.table_id == result.table_id)).all()}
            n = len(result.standings)
            keyed = sorted(((s["seat"] in result.winners, s.get("coins", 0)), s["seat"])
                           for s in result.standings)[::-1]
            place = 0
            while place < n:
                tied = [seat for key, seat in keyed if key == keyed[place][0]]
                share = Fraction(sum(n - 1 - (place + i) for i in range(len(tied))),
                                 len(tied))
                for seat_no in tied:
                    seat = seats[seat_no]
                    if not seat.is_cpu:
                        person = session.get(Player, seat.player_id)
                        assert person is not None
                        sums[person.name] = sums.get(person.name, Fraction(0)) + share
                place += len(tied)
    return sums


def shown(points: Fraction) -> str:
    if points.denominator == 1:
        return str(points.numerator)
    return f"{float(points):.1f}".rstrip("0").rstrip(".").replace(".", ",")


def texts(rows: list[Outbox]) -> list[str]:
    return [r.text for r in rows if not r.action]


def private_texts(h: Harness, user: UserRef, after: int) -> list[str]:
    return texts(rows_since(h, after, private(user)))


# ------------------------------------------------------------------ end to end (a bot process)


def bring_forward(url: str, kind: str) -> int:
    """The group's evening's next step (which must be ``kind``) due now; its id."""
    engine = make_engine(url)
    try:
        with Session(engine) as session:
            evening = session.exec(select(Evening).where(
                col(Evening.state).in_(("planned", "running")))).one()
            assert evening.due_kind == kind, (evening.due_kind, kind)
            evening.due_at = utcnow() - timedelta(seconds=1)
            session.add(evening)
            session.commit()
            assert evening.id is not None
            return evening.id
    finally:
        engine.dispose()


def no_quiet_hours(url: str) -> None:
    """Everybody chose no quiet hours (``/reminders``)."""
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(text("UPDATE player SET quiet_from = 0, quiet_to = 0"))
    finally:
        engine.dispose()
