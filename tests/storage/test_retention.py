"""Retention (issue 15, item 12): old processed update ids, delivered outbox rows, the move
logs of old finished tables and abandoned tables go; results, running tables and anything
recent stay. On SQLite and PostgreSQL."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from chatbot.runtime.config import load
from chatbot.service import ChatRef
from storage import retention
from storage.models import (
    ChatMember,
    GameTable,
    Move,
    Outbox,
    Player,
    ProcessedUpdate,
    Result,
    Seat,
)
from storage.retention import Retention, sweep
from tests.chatbot.service.harness import (
    ALICE,
    BOB,
    CAROL,
    GROUP,
    Harness,
    new_private_game,
    open_group_table,
    play_private_to_the_end,
    private,
)
from tests.conftest import FakeClock

DAY = 24 * 3600


def _count(engine: Engine, model: type, *where) -> int:  # type: ignore[no-untyped-def]
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(model).where(*where)).one()


def test_processed_update_ids_are_kept_less_than_a_week() -> None:
    with pytest.raises(ValueError, match="7 days"):
        Retention(updates=timedelta(days=7))


def test_a_sweep_deletes_what_is_old_and_keeps_the_rest(db_engine: Engine,
                                                        clock: FakeClock) -> None:
    h = Harness(db_engine, clock)
    finished = new_private_game(h, ALICE)
    play_private_to_the_end(h, finished, ALICE, random.Random(4))
    h.postman.deliver()  # the views are sent (no longer pending)
    abandoned = open_group_table(h, [ALICE, BOB])
    assert h.command(GROUP, ALICE, "stop").ok
    h.postman.deliver()
    assert _count(db_engine, Move, Move.table_id == finished) > 0
    clock.advance(40 * DAY)
    running = new_private_game(h, BOB)  # recent: untouched
    pending = _count(db_engine, Outbox, Outbox.status == "pending")
    assert pending > 0  # its views are not delivered yet

    counts = sweep(db_engine, clock(), Retention())
    assert counts["processed_update"] > 0 and counts["outbox"] > 0
    assert counts["move"] > 0 and counts["game_table"] == 1 and counts["seat"] == 2
    assert _count(db_engine, Move, Move.table_id == finished) == 0  # the log of an old game
    assert _count(db_engine, Result, Result.table_id == finished) == 1  # ... its result stays
    assert _count(db_engine, Seat, Seat.table_id == finished) > 0
    assert counts["game_state"] == 1 and h.table(finished).state_json is None
    assert _count(db_engine, GameTable, GameTable.id == abandoned) == 0
    assert _count(db_engine, Seat, Seat.table_id == running) == 3  # a running table stays
    assert _count(db_engine, Outbox, Outbox.status == "pending") == pending
    assert _count(db_engine, ProcessedUpdate, ProcessedUpdate.at < clock() - timedelta(days=3)) == 0
    assert sweep(db_engine, clock(), Retention()) == dict.fromkeys(counts, 0)  # nothing left


def test_an_update_id_reused_after_a_week_is_handled_as_new(db_engine: Engine,
                                                             clock: FakeClock) -> None:
    """Telegram restarts update ids after a week without updates: once the old id is swept,
    the new update with the same id counts."""
    h = Harness(db_engine, clock)
    assert h.command(private(ALICE), ALICE, "help", key="4711").ok
    said = _count(db_engine, Outbox)
    clock.advance(8 * DAY)
    sweep(db_engine, clock(), Retention())
    assert h.command(private(ALICE), ALICE, "rules", key="4711").ok
    assert _count(db_engine, Outbox) > said  # answered: not taken for the old update
    assert _count(db_engine, ProcessedUpdate, ProcessedUpdate.update_key == "4711") == 1


def test_the_service_sweeps_at_most_once_an_hour(db_engine: Engine, clock: FakeClock) -> None:
    h = Harness(db_engine, clock)
    assert h.service.sweep_old() is not None
    assert h.service.sweep_old() is None  # not yet time again
    assert h.service.sweep_old(every=0) is not None


def _members(engine: Engine) -> set[str]:
    with Session(engine) as session:
        return set(session.exec(select(Player.external_id).join(
            ChatMember, col(ChatMember.player_id) == Player.id)).all())


def test_group_members_not_seen_for_the_retention_go(db_engine: Engine,
                                                      clock: FakeClock) -> None:
    """Who may look at a group's tables in the Mini App (issue 38): a member not seen in the
    group for ``members`` is forgotten, one seen since stays, and one seen again is back."""
    h = Harness(db_engine, clock)
    for user in (ALICE, BOB, CAROL):
        assert h.command(GROUP, user, "help").ok
    assert _members(db_engine) == {"alice", "bob", "carol"}
    clock.advance(20 * DAY)
    assert h.command(GROUP, BOB, "help").ok  # Bob writes now and then
    clock.advance(20 * DAY)
    assert h.command(GROUP, CAROL, "help").ok
    clock.advance(1)
    counts = sweep(db_engine, clock(), Retention(members=timedelta(days=30)))
    assert counts["chat_member"] == 1 and _members(db_engine) == {"bob", "carol"}
    assert h.command(GROUP, ALICE, "rules").ok  # Alice is back: seen again
    assert _members(db_engine) == {"alice", "bob", "carol"}
    clock.advance(31 * DAY)
    assert sweep(db_engine, clock(), Retention())["chat_member"] == 3  # the default: 30 days
    assert _members(db_engine) == set()


def test_members_go_in_batches(db_engine: Engine, clock: FakeClock,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    h = Harness(db_engine, clock)
    groups = [ChatRef(GROUP.platform, f"g-{n}", "group", f"Runde {n}") for n in range(3)]
    for group in groups:
        for user in (ALICE, BOB):
            assert h.command(group, user, "help").ok
    monkeypatch.setattr(retention, "BATCH", 4)  # 6 rows: two batches, the second not full
    clock.advance(31 * DAY)
    assert sweep(db_engine, clock(), Retention())["chat_member"] == 6
    assert _members(db_engine) == set()


def test_the_members_retention_is_configured_by_the_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert load(None).retention.members == timedelta(days=30)
    monkeypatch.setenv("RETAIN_MEMBERS_DAYS", "90")
    assert load(None).retention.members == timedelta(days=90)
