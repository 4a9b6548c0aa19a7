"""The application service end to end: every update, press and deadline counts once (repeats,
batches, presses at the same time, restarts).

Every test that touches the database runs on SQLite and on PostgreSQL (``db_engine``). Time is
a ``FakeClock``; deadlines are fired through ``due``/``fire_due`` like the scheduler does.
The harness is in ``harness.py`` beside this module, the fixtures in its ``conftest.py``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from sqlmodel import Session, col, select

from chatbot.service import Outcome, UserRef
from engine import schwimmen as S
from storage.db import make_engine
from storage.models import GameTable, Player, ProcessedUpdate
from tests.chatbot.service.harness import (
    ALICE,
    BOB,
    MALLORY,
    Harness,
    assert_finished_and_replayable,
    is_move,
    new_private_game,
    pick,
    play_private_to_the_end,
    private,
    snapshot,
    until_human_moves,
)
from tests.conftest import engine_url, race

# ---------------------------------------------------------------------------------- once only


def test_repeated_update_key_is_handled_once(h: Harness) -> None:
    table_id = new_private_game(h)
    shown = until_human_moves(h, table_id)
    moves_before = len(h.moves(table_id))
    first = h.press(private(ALICE), ALICE, shown["knock"], key="update-77")
    again = h.press(private(ALICE), ALICE, shown["knock"], key="update-77")
    assert first.changed and not again.changed
    assert again.ok  # a redelivered update is not an error
    assert len(h.moves(table_id)) == moves_before + 1
    with Session(h.engine) as session:
        keys = session.exec(select(ProcessedUpdate.update_key)
                            .where(ProcessedUpdate.update_key == "update-77")).all()
    assert keys == ["update-77"]
    # the same for commands: one table, not two
    h.command(private(BOB), BOB, "new", "schwimmen 1 anfaenger", key="cmd-5")
    h.command(private(BOB), BOB, "new", "schwimmen 1 anfaenger", key="cmd-5")
    with Session(h.engine) as session:
        bobs = session.exec(select(GameTable).join(Player, GameTable.opener_id == Player.id)
                            .where(Player.external_id == "bob")).all()
    assert len(bobs) == 1


def _moves_shown(h: Harness, user: UserRef, table_id: int) -> dict[str, str]:
    shown = until_human_moves(h, table_id, user)
    return {c: d for c, d in shown.items() if is_move(c)}


def test_presses_polled_together_share_one_transaction(h: Harness) -> None:
    """``press_many``: each press counts as if pressed alone (moves on two tables, a forged
    button refused, a repeated update key handled once, a stale button refused), and the
    listeners hear of the changes once, after the commit."""
    alice_table = new_private_game(h, ALICE)
    bob_table = new_private_game(h, BOB)
    a = _moves_shown(h, ALICE, alice_table)
    b = _moves_shown(h, BOB, bob_table)
    a_before, b_before = len(h.moves(alice_table)), len(h.moves(bob_table))
    heard: list[list[Any]] = []
    seen_committed: list[int] = []

    def listener(changes: list[Any]) -> None:
        heard.append(changes)
        seen_committed.append(len(h.moves(alice_table)))  # another connection: committed only

    h.service.listeners.append(listener)
    move_a, move_b = sorted(a)[0], sorted(b)[0]
    results = h.service.press_many([
        (private(ALICE), ALICE, a[move_a], "batch-1"),
        (private(MALLORY), MALLORY, "v1:999:0:knock", "batch-2"),   # no such table
        (private(BOB), BOB, b[move_b], "batch-3"),
        (private(ALICE), ALICE, a[move_a], "batch-1"),              # the same update again
        (private(ALICE), ALICE, a[move_a], "batch-4"),              # its button is stale now
        (private(BOB), BOB, "garbage", "batch-5"),
    ])
    assert all(isinstance(r, Outcome) for r in results), results
    ok_a, forged, ok_b, again, stale, garbage = results  # type: ignore[misc]
    assert ok_a.changed and ok_b.changed
    assert not forged.ok and not garbage.ok and not stale.ok
    assert again.ok and not again.changed
    assert len(h.moves(alice_table)) > a_before and len(h.moves(bob_table)) > b_before
    assert [m.actor for m in h.moves(alice_table)[a_before:]][0] == "player"
    assert len(heard) == 1 and {c.table_id for c in heard[0]} == {alice_table, bob_table}
    assert seen_committed == [len(h.moves(alice_table))]
    with Session(h.engine) as session:
        keys = set(session.exec(select(ProcessedUpdate.update_key).where(
            col(ProcessedUpdate.update_key).startswith("batch-"))).all())
    assert keys == {"batch-1", "batch-3"}  # a refused press leaves no trace, as when alone


def test_a_press_failing_in_a_batch_leaves_no_trace_and_the_others_count(
        h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    alice_table = new_private_game(h, ALICE)
    bob_table = new_private_game(h, BOB)
    a = _moves_shown(h, ALICE, alice_table)
    b = _moves_shown(h, BOB, bob_table)
    before = snapshot(h.engine, alice_table)
    from chatbot.service.core import router
    real = router.table_press

    def failing(ctx: Any, chat: Any, player: Any, user: Any, press: Any) -> Outcome:
        out = real(ctx, chat, player, user, press)  # all its writes are made ...
        if press.table_id == alice_table:
            raise RuntimeError("boom")  # ... and then it fails
        return out

    monkeypatch.setattr(router, "table_press", failing)
    code = sorted(a)[0]
    results = h.service.press_many([
        (private(ALICE), ALICE, a[code], "fail-1"),
        (private(BOB), BOB, b[sorted(b)[0]], "fail-2"),
    ])
    assert isinstance(results[0], RuntimeError)
    assert isinstance(results[1], Outcome) and results[1].changed
    assert snapshot(h.engine, alice_table)[:7] == before[:7]  # the table as it was
    monkeypatch.setattr(router, "table_press", real)
    # its update key was rolled back too: the same update, delivered again, now counts
    assert h.service.press(private(ALICE), ALICE, a[code], "fail-1").changed


def test_two_presses_at_once_accept_exactly_one(h: Harness) -> None:
    table_id = new_private_game(h)
    for _round in range(3):
        shown = until_human_moves(h, table_id)
        if h.state(table_id).phase != S.TURN:
            break
        moves_before = len(h.moves(table_id))
        a, b = (shown[c] for c in sorted(c for c in shown if c.startswith("swap."))[:2])
        results = race([
            lambda a=a: h.service.press(private(ALICE), ALICE, a, update_key=h.key()),
            lambda b=b: h.service.press(private(ALICE), ALICE, b, update_key=h.key()),
        ])
        h.step()
        assert all(isinstance(r, Outcome) for r in results), results
        assert sorted(r.changed for r in results) == [False, True]
        loser = next(r for r in results if not r.changed)
        assert loser.ok is False and loser.text
        assert len(h.moves(table_id)) == moves_before + 1


def test_same_press_twice_at_once_with_the_same_update_key(h: Harness) -> None:
    table_id = new_private_game(h)
    shown = until_human_moves(h, table_id)
    moves_before = len(h.moves(table_id))
    results = race([lambda: h.service.press(private(ALICE), ALICE, shown["knock"], "same")] * 2)
    assert all(isinstance(r, Outcome) and r.ok for r in results), results
    assert len(h.moves(table_id)) == moves_before + 1


def test_a_deadline_fires_once(h: Harness) -> None:
    table_id = new_private_game(h)
    shown = until_human_moves(h, table_id)
    assert h.press(private(ALICE), ALICE, shown["knock"]).changed
    table = h.table(table_id)
    assert table.deadline_kind == "cpu"
    moves = len(h.moves(table_id))
    assert h.service.due() == []
    assert h.fire(table_id, table.version) is False  # too early
    h.clock.set(table.next_deadline)  # type: ignore[arg-type]
    assert h.service.due() == [(table_id, table.version)]
    assert h.fire(table_id, table.version) is True
    assert h.fire(table_id, table.version) is False  # the same claim again: stale
    assert len(h.moves(table_id)) == moves + 1
    # two schedulers claiming the same deadline at the same moment: one wins
    table = h.table(table_id)
    if table.deadline_kind == "cpu":
        h.clock.set(table.next_deadline)  # type: ignore[arg-type]
        results = race([lambda: h.service.fire_due(table_id, table.version)] * 2)
        assert sorted(results) == [False, True]
        assert len(h.moves(table_id)) == moves + 2


def test_restart_mid_game_keeps_the_table_and_old_buttons(h: Harness) -> None:
    table_id = new_private_game(h)
    rng = random.Random(5)
    shown = until_human_moves(h, table_id)
    moves = sorted(c for c in shown if is_move(c) and c != "knock")
    assert h.press(private(ALICE), ALICE, shown[pick(moves, rng)]).changed
    old_buttons = until_human_moves(h, table_id)
    before = snapshot(h.engine, table_id)
    assert h.state(table_id).to_act == 0

    # the process dies; a new one starts on the same database with a new engine and service
    engine2 = make_engine(engine_url(h.engine))
    try:
        h2 = Harness(engine2, h.clock)
        h2.transport = h2.postman.transport = h.transport  # the chat still shows the old views
        assert snapshot(engine2, table_id) == before
        out = h2.press(private(ALICE), ALICE, old_buttons["knock"])
        assert out.ok and out.changed, out.text
        if h2.state(table_id).phase in (S.TURN, S.FINAL_ROUND):  # (not if that ended the round)
            assert h2.table(table_id).deadline_kind == "cpu"  # the CPU's turn is in the DB
            assert h2.service.due() == []  # not yet: the CPU "thinks" a moment
        play_private_to_the_end(h2, table_id, ALICE, rng)
        assert_finished_and_replayable(h2, table_id)
    finally:
        engine2.dispose()
