"""Helpers of the long-game tests (issue 37): a group table of Alice and Bob with a long turn
clock, who is on turn, and what a person's private chat or the group got since a mark."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlmodel import Session, col, select

from chatbot.service import ChatRef, UserRef
from storage.models import Outbox, Player
from tests.chatbot.service.harness import (
    ALICE,
    BOB,
    GROUP,
    Harness,
    code_of,
    is_move,
    private,
    until_a_turn_in_group,
)

USERS = {"alice": ALICE, "bob": BOB}
DAY0 = datetime(2030, 1, 7, tzinfo=UTC)  # a Monday in winter: Berlin is UTC+1


def berlin(day: int, hour: int, minute: int = 0) -> datetime:
    """A moment in Berlin's winter time on ``DAY0`` + ``day``."""
    return DAY0 + timedelta(days=day, hours=hour - 1, minutes=minute)


def long_table(h: Harness, clock: str = "12h", at: datetime | None = None) -> int:
    """Alice opens a group table with ``clock`` (at ``at``, else Monday 13:00 in Berlin),
    Bob joins, Alice starts it."""
    h.clock.set(at or berlin(0, 13))
    for user in (ALICE, BOB):
        assert h.command(private(user), user, "start").ok
    out = h.command(GROUP, ALICE, "new", f"schwimmen clock={clock}")
    assert out.ok and out.table_id, out.text
    table_id = out.table_id
    assert h.press(GROUP, BOB, h.buttons(GROUP, table_id)["join"]).changed
    assert h.press(GROUP, ALICE, h.buttons(GROUP, table_id)["start"]).changed
    return table_id


def on_turn(h: Harness, table_id: int) -> UserRef:
    """The person on turn."""
    seat_no = h.state(table_id).to_act
    assert seat_no is not None
    seat = next(s for s in h.seats(table_id) if s.seat_no == seat_no)
    with Session(h.engine) as session:
        person = session.get(Player, seat.player_id)
        assert person is not None
        return USERS[person.external_id]


def until_a_turn(h: Harness, table_id: int) -> UserRef:
    """Deal on (a round that ended on the deal) until a person is on turn: who."""
    until_a_turn_in_group(h, table_id)
    return on_turn(h, table_id)


def rows_to(h: Harness, chat: ChatRef, after: int) -> list[Outbox]:
    """The outbox rows queued for a chat after row ``after``."""
    with Session(h.engine) as session:
        return list(session.exec(select(Outbox).where(
            Outbox.id > after, Outbox.chat_external_id == chat.external_id)
            .order_by(col(Outbox.id))).all())


def mark(h: Harness) -> int:
    with Session(h.engine) as session:
        rows = session.exec(select(Outbox.id).order_by(col(Outbox.id).desc()).limit(1)).all()
        return rows[0] if rows else 0


def notifying(rows: list[Outbox]) -> list[Outbox]:
    """Rows that post a message anew (a person is notified), not edits in place."""
    return [r for r in rows if not r.action and (r.slot is None or r.fresh or r.repost)]


def fire_next(h: Harness, table_id: int) -> str:
    """Move the clock to the table's deadline and fire it; its kind."""
    table = h.table(table_id)
    assert table.next_deadline is not None
    kind = table.deadline_kind or ""
    h.clock.set(table.next_deadline)
    assert h.fire(table_id, table.version)
    return kind


def move(h: Harness, table_id: int, user: UserRef) -> None:
    """The person makes a move from the buttons their private chat shows."""
    shown = h.buttons(private(user), table_id)
    code = sorted(c for c in shown if is_move(c) and not c.startswith("knock"))[0]
    assert h.press(private(user), user, shown[code]).changed


def settings(h: Harness, user: UserRef, **values: object) -> None:
    with Session(h.engine) as session:
        person = session.exec(select(Player).where(Player.external_id == user.external_id)).one()
        for key, value in values.items():
            setattr(person, key, value)
        session.add(person)
        session.commit()


__all__ = ["ALICE", "BOB", "GROUP", "code_of", "private"]
