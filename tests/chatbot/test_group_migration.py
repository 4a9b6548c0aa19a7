"""A group that takes a new id (issue 47, item 14: a Telegram basic group upgraded to a
supergroup): ``Service.chat_moved`` moves everything the old id names — the chat's row with
its tables, evenings, Deckel, stats, settings and members; the views pending for the old id;
the slots of its messages (forgotten: the open tables are posted anew under the new id) —
exactly once, however often and in whichever order it is told, merging a row the new chat made
meanwhile into the older one. On SQLite and PostgreSQL."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from chatbot.service import ChatRef
from engine import schwimmen as S
from storage.models import (
    Chat,
    ChatMember,
    DailyPost,
    Evening,
    GameTable,
    GroupSetting,
    MessageSlot,
    Outbox,
    Player,
)
from tests.chatbot.service.harness import (
    ALICE,
    BOB,
    CAROL,
    GROUP,
    MALLORY,
    Harness,
    is_move,
    open_group_table,
    pick,
    private,
)
from tests.conftest import FakeClock

P = "test"
NEW = ChatRef(P, "g-100", "group", "Stammtisch")  # the supergroup's id
ADMIN = replace(MALLORY, is_admin=True)


@pytest.fixture
def h(db_engine: Engine, clock: FakeClock) -> Harness:
    return Harness(db_engine, clock)


def _chat(h: Harness, external_id: str) -> Chat | None:
    with Session(h.engine) as session:
        return session.exec(select(Chat).where(Chat.platform == P,
                                               Chat.external_id == external_id)).first()


def _members(h: Harness, chat_id: int) -> set[str]:
    with Session(h.engine) as session:
        return set(session.exec(select(Player.name).join(
            ChatMember, col(ChatMember.player_id) == Player.id).where(
            ChatMember.chat_id == chat_id)).all())


def _pending(h: Harness, external_id: str) -> int:
    with Session(h.engine) as session:
        return session.exec(select(func.count()).select_from(Outbox).where(
            Outbox.chat_external_id == external_id, Outbox.status == "pending")).one()


def _counts(h: Harness) -> tuple[int, ...]:
    """How many rows of each kind a repeated move could add or take away."""
    with Session(h.engine) as session:
        return tuple(session.exec(select(func.count()).select_from(model)).one()
                     for model in (Chat, Outbox, MessageSlot, ChatMember, GameTable, Evening,
                                   GroupSetting, DailyPost))


def _running_evening(h: Harness, chat_id: int) -> None:
    """A Stammtisch evening running in the group since a minute ago (its Deckel counts every
    game finished while it runs)."""
    now = h.clock()
    with Session(h.engine) as session:
        session.add(Evening(chat_id=chat_id, starts_at=now, hhmm=20 * 60, zone="Europe/Berlin",
                            repeat="once", state="running", due_kind="close",
                            due_at=now + timedelta(hours=6), started_at=now - timedelta(minutes=1),
                            created_at=now))
        session.commit()


def _play_on(h: Harness, table_id: int, users: list, rng: random.Random) -> None:  # type: ignore[type-arg]
    """The people play the table to its end from their private chats."""
    by_seat = {s.seat_no: next(u for u in users if u.name == s.name) for s in h.seats(table_id)}
    for _ in range(3_000):
        h.run_deadlines(table_id, kinds=("next", "cpu"))
        if h.table(table_id).fsm_state == "finished":
            return
        user = by_seat[h.state(table_id).to_act]
        shown = h.buttons(private(user), table_id)
        out = h.press(private(user), user, shown[pick(sorted(c for c in shown if is_move(c)),
                                                      rng)])
        assert out.ok and out.changed, out.text
    raise AssertionError("the game did not end")


def test_a_group_under_its_new_id_plays_on_with_its_tables_deckel_stats_and_settings(
        h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB], start=True)
    assert h.command(GROUP, ADMIN, "gruppe").ok
    assert h.press(GROUP, ADMIN, "v1:0:0:grp.org.admins").ok
    old = _chat(h, GROUP.external_id)
    assert old is not None
    _running_evening(h, old.id)  # type: ignore[arg-type]
    h.messages(GROUP)  # (delivered: the table message shows in the old chat)
    h.service.reply(GROUP, "Prost!")  # still to go to the old id when the group moves
    moved = h.service.chat_moved(P, GROUP.external_id, NEW.external_id, "Stammtisch")
    assert (moved.chat_moved, moved.merged, moved.outbox_rows, moved.tables) == (
        True, False, 1, (table_id,))
    chat = _chat(h, NEW.external_id)
    assert chat is not None and chat.id == old.id and _chat(h, GROUP.external_id) is None
    assert _pending(h, GROUP.external_id) == 0
    with Session(h.engine) as session:
        assert not session.exec(select(MessageSlot).where(
            MessageSlot.chat_external_id == GROUP.external_id)).all()
        assert session.get(GroupSetting, chat.id).organisers == "admins"  # type: ignore[union-attr]
    shown = [m.text for m in h.messages(NEW)]  # in the order they were queued
    assert shown[0] == "Prost!" and shown[1].startswith("🃏 Schwimmen · Runde 1")
    assert shown[2].startswith("🍻 Stammtisch ")  # the running evening's announcement
    assert len(shown) == 3
    # the table plays on in the new chat: its buttons there, inputs under the new id
    assert h.press(NEW, ALICE, h.buttons(NEW, table_id)["cards"]).alert
    with Session(h.engine) as session:
        last = session.exec(select(func.max(Outbox.id))).one()
    _play_on(h, table_id, [ALICE, BOB], random.Random(47))
    with Session(h.engine) as session:  # nothing goes to the old id any more
        assert not session.exec(select(Outbox).where(
            col(Outbox.id) > last, Outbox.chat_external_id == GROUP.external_id)).all()
    texts = [m.text for m in h.messages(NEW)]
    assert any(t.startswith("🍺 Deckel: ") for t in texts)  # the evening's line, there
    assert h.command(NEW, BOB, "deckel").ok
    assert h.messages(NEW)[-1].text.startswith("🍺 Der Deckel dieses Abends (1 Spiel)")
    assert h.command(NEW, BOB, "top").ok
    board = h.messages(NEW)[-1].text
    assert "Alice" in board and "Bob" in board
    assert not h.command(NEW, BOB, "gruppe").ok  # (a member still is no admin here)
    assert h.command(NEW, ADMIN, "gruppe").ok
    assert h.messages(NEW)[-1].text.split("\n")[1].endswith("nur Administratoren")


def test_a_row_the_new_chat_made_first_is_merged_into_the_older(h: Harness) -> None:
    table_id = open_group_table(h, [ALICE, BOB])
    old = _chat(h, GROUP.external_id)
    assert old is not None
    assert h.command(NEW, CAROL, "help").ok  # the new chat wrote before the group moved
    assert h.command(NEW, BOB, "help").ok
    young = _chat(h, NEW.external_id)
    assert young is not None and young.id != old.id
    with Session(h.engine) as session:
        now = h.clock()
        session.add(GroupSetting(chat_id=old.id, organisers="admins"))
        session.add(GroupSetting(chat_id=young.id, organisers="all", zone="Europe/Vienna"))
        session.add(DailyPost(chat_id=old.id, day="2030-01-06", due_at=now))
        session.add(DailyPost(chat_id=young.id, day="2030-01-06", due_at=now))  # (twice)
        session.add(DailyPost(chat_id=young.id, day="2030-01-07", due_at=now))
        session.commit()
    moved = h.service.chat_moved(P, GROUP.external_id, NEW.external_id)
    assert (moved.chat_moved, moved.merged, moved.tables) == (True, True, (table_id,))
    chat = _chat(h, NEW.external_id)
    assert chat is not None and chat.id == old.id  # the older row stays
    with Session(h.engine) as session:
        assert session.get(Chat, young.id) is None
        assert session.get(GroupSetting, chat.id).organisers == "admins"  # type: ignore[union-attr]
        assert session.get(GroupSetting, young.id) is None
        assert sorted(session.exec(select(DailyPost.day).where(
            DailyPost.chat_id == chat.id)).all()) == ["2030-01-06", "2030-01-07"]
        assert session.get(GameTable, table_id).chat_id == chat.id  # type: ignore[union-attr]
    assert _members(h, chat.id) == {"Alice", "Bob", "Carol"}  # type: ignore[arg-type]
    assert h.buttons(NEW, table_id)["join"]  # the lobby, shown anew in the new chat
    assert h.press(NEW, CAROL, h.buttons(NEW, table_id)["join"]).changed


@pytest.mark.parametrize("between", ["nothing", "a message in the new chat",
                                     "a message in the old chat"])
def test_the_move_happens_once_however_often_it_is_told(h: Harness, between: str) -> None:
    open_group_table(h, [ALICE, BOB], start=True)
    h.messages(GROUP)
    first = h.service.chat_moved(P, GROUP.external_id, NEW.external_id, "Stammtisch")
    assert first.chat_moved
    if between == "a message in the new chat":
        assert h.command(NEW, CAROL, "help").ok  # finds the moved row, makes none
    elif between == "a message in the old chat":  # a late update: a row for the old id again
        assert h.command(GROUP, CAROL, "help").ok
    chat_id = _chat(h, NEW.external_id).id  # type: ignore[union-attr]
    h.messages(NEW)
    counts = _counts(h)
    for _ in range(3):  # both service messages, each twice (in any order: the same call)
        again = h.service.chat_moved(P, GROUP.external_id, NEW.external_id, "Stammtisch")
        h.messages(NEW)
        if between == "a message in the old chat" and _ == 0:
            assert again.merged  # (the late row goes into the moved one)
            counts = _counts(h)
            continue
        assert not again.chat_moved and again.outbox_rows == 0
        assert _counts(h) == counts
    assert _chat(h, NEW.external_id).id == chat_id and _chat(h, GROUP.external_id) is None  # type: ignore[union-attr]
    assert "Carol" in _members(h, chat_id) or between == "nothing"


def test_what_was_queued_for_the_old_id_afterwards_follows_it(h: Harness) -> None:
    """An input that read the old id before the move committed queues for it: Telegram
    refuses it (``ChatMigrated``), the sender tells the service, the row follows."""
    open_group_table(h, [ALICE, BOB], start=True)
    assert h.service.chat_moved(P, GROUP.external_id, NEW.external_id).chat_moved
    now = h.clock()
    with Session(h.engine) as session:
        session.add(Outbox(platform=P, chat_external_id=GROUP.external_id, text="Prost!",
                           status="pending", not_before=now, created_at=now, reply_to="7"))
        session.commit()
    again = h.service.chat_moved(P, GROUP.external_id, NEW.external_id)
    assert (again.chat_moved, again.outbox_rows) == (False, 1)
    assert _pending(h, GROUP.external_id) == 0 and _chat(h, GROUP.external_id) is None
    assert h.messages(NEW)[-1].text == "Prost!"


def test_a_chat_the_service_never_knew_moves_nothing(h: Harness) -> None:
    counts = _counts(h)
    moved = h.service.chat_moved(P, "g-404", "g-405")
    assert (moved.chat_moved, moved.merged, moved.outbox_rows) == (False, False, 0)
    assert h.service.chat_moved(P, "g-404", "g-404").chat_moved is False
    assert _counts(h) == counts


def test_a_moved_game_is_the_same_game(h: Harness) -> None:
    """The table's state, seed and moves are untouched by the move: only where it is shown."""
    table_id = open_group_table(h, [ALICE, BOB], start=True)
    state, moves = h.state(table_id), [m.code for m in h.moves(table_id)]
    version = h.table(table_id).version
    h.service.chat_moved(P, GROUP.external_id, NEW.external_id)
    assert h.state(table_id) == state and [m.code for m in h.moves(table_id)] == moves
    assert h.table(table_id).version == version  # (no new version: the buttons stay good)
    assert isinstance(state, S.State)


def test_an_announced_evening_is_announced_anew_in_the_new_chat(h: Harness) -> None:
    for user in (ALICE, BOB):
        assert h.command(private(user), user, "start").ok
    assert h.command(GROUP, ALICE, "abend", "fr 20:00 schwimmen").ok
    old = next(m for m in h.messages(GROUP) if m.text.startswith("🍻 Stammtisch Fr"))
    assert "✅ Bin dabei" in old.labels()
    h.service.chat_moved(P, GROUP.external_id, NEW.external_id)
    new = next(m for m in h.messages(NEW) if m.text.startswith("🍻 Stammtisch Fr"))
    assert (new.text, new.labels()) == (old.text, old.labels())
    yes = dict(zip(new.labels(), new.data(), strict=True))["✅ Bin dabei"]
    assert h.press(NEW, BOB, yes).text == "Notiert: ✅ Bin dabei"
    assert any("✅ Dabei (1): Bob" in m.text for m in h.messages(NEW))  # (edited there)
