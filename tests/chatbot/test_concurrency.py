"""Inputs racing each other on one database: two ``/new`` at once in a group give exactly one
lobby, no input is lost and no driver error escapes (the chat row is locked for an input and
first contact inserts with ``ON CONFLICT DO NOTHING``; a unique-key race runs once more)."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

import fsm
from chatbot.i18n import tr
from chatbot.service import ChatRef, Outcome, Service, UserRef
from storage.models import Chat, GameTable, Player
from tests.conftest import race

ALICE = UserRef("alice", "Alice", language="de")
BOB = UserRef("bob", "Bob", language="de")
RUNS = 15


def _open_lobbies(engine: Engine, group: ChatRef) -> list[GameTable]:
    with Session(engine) as session:
        return list(session.exec(select(GameTable).join(Chat).where(
            Chat.external_id == group.external_id,
            col(GameTable.fsm_state).in_(fsm.OPEN))).all())


def _assert_one_lobby(service: Service, group: ChatRef, results: list[Any]) -> None:
    assert all(isinstance(r, Outcome) for r in results), results  # no driver error escaped
    opened = [r for r in results if r.changed]
    refused = [r for r in results if not r.changed]
    assert len(opened) == 1, results  # exactly one lobby ...
    assert [r.text for r in refused] == [tr("de", "busy_table")]  # ... the other is told why
    assert len(_open_lobbies(service.engine, group)) == 1


@pytest.mark.parametrize("existing", [False, True], ids=["fresh group", "existing group"])
def test_two_new_at_once_in_a_group_open_one_lobby(db_engine: Engine, existing: bool) -> None:
    service = Service(db_engine)
    for run in range(RUNS):
        group = ChatRef("telegram", f"-100{run}{int(existing)}", "group", "Stammtisch")
        if existing:
            assert service.command(group, ALICE, "help", update_key=f"help-{run}").ok
        results = race([
            partial(service.command, group, ALICE, "new", "schwimmen", update_key=f"a-{run}"),
            partial(service.command, group, BOB, "new", "schwimmen", update_key=f"b-{run}"),
        ])
        _assert_one_lobby(service, group, results)
    with Session(db_engine) as session:  # first contact made each chat once
        assert len(session.exec(select(Chat)).all()) == RUNS


def test_a_new_person_pressing_twice_at_once_is_one_player(db_engine: Engine) -> None:
    """Two first inputs of the same person at once: one player row, both inputs answered."""
    service = Service(db_engine)
    for run in range(RUNS):
        user = UserRef(f"new-{run}", "Neu", language="en")
        chat = ChatRef("telegram", f"new-{run}", "private")
        results = race([partial(service.command, chat, user, "help", update_key=f"x-{run}"),
                         partial(service.command, chat, user, "rules", update_key=f"y-{run}")])
        assert all(isinstance(r, Outcome) and r.ok for r in results), results
    with Session(db_engine) as session:
        assert len(session.exec(select(Player)).all()) == RUNS
