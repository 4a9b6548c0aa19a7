"""A private chat that becomes a group (issue 38, item 13: a third person joined a Matrix
direct room) through the service on real databases: the private views queued for it and not
delivered yet are dropped in the same transaction; other chats' views stay queued."""

from __future__ import annotations

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot.service import ChatRef, UserRef
from storage.models import Outbox
from tests.conftest import make_service

PLATFORM = "matrix"


def _pending(engine: Engine, chat: str) -> list[Outbox]:
    with Session(engine) as session:
        return list(session.exec(select(Outbox).where(
            Outbox.chat_external_id == chat, Outbox.status == "pending")).all())


def test_queued_hands_of_a_direct_room_that_became_a_group_are_dropped(
        db_engine: Engine) -> None:
    service = make_service(db_engine, cpu_delay=0.0)
    group = ChatRef(PLATFORM, "!group", "group", "Runde")
    people = [UserRef(f"@u{i}:x", name) for i, name in enumerate(("Ann", "Ben"))]
    for user in people:
        assert service.command(ChatRef(PLATFORM, f"!dm{user.name}"), user, "start").ok
    table_id = service.command(group, people[0], "new", "schwimmen").table_id
    assert table_id
    for user, code in ((people[1], "join"), (people[0], "start")):
        version = service.table(table_id).version  # type: ignore[union-attr]
        assert service.press(group, user, f"v1:{table_id}:{version}:{code}").ok
    # (nothing is delivered here: both hands wait in the outbox)
    assert [r.slot for r in _pending(db_engine, "!dmBen")].count(f"h{table_id}") == 1
    assert f"h{table_id}" in [r.slot for r in _pending(db_engine, "!dmAnn")]

    # Ann's own private game in her direct room, its views queued too
    own = service.command(ChatRef(PLATFORM, "!dmAnn", "private"), people[0], "new",
                          "schwimmen 1 anfänger").table_id
    assert own and f"t{own}" in [r.slot for r in _pending(db_engine, "!dmAnn")]

    assert service.chat_no_longer_private(PLATFORM, "!dmBen") == [people[1].external_id]
    assert [r.slot for r in _pending(db_engine, "!dmBen")].count(f"h{table_id}") == 0
    assert f"h{table_id}" in [r.slot for r in _pending(db_engine, "!dmAnn")]  # untouched

    assert service.chat_no_longer_private(PLATFORM, "!dmAnn") == [people[0].external_id]
    left = _pending(db_engine, "!dmAnn")
    assert not [r for r in left if r.slot == f"h{table_id}"]
    # of her private game only the closed table's view is still to go, without a hand
    closing = [r for r in left if r.slot == f"t{own}"]
    assert len(closing) == 1, [(r.slot, r.text) for r in closing]
    with Session(db_engine) as session:
        dropped = session.exec(select(Outbox).where(Outbox.status == "dropped")).all()
    assert {r.chat_external_id for r in dropped} == {"!dmAnn", "!dmBen"}
