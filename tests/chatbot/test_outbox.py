"""The outbox sender: coalescing per slot, skipping unchanged views, retries and give-ups."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot.delivery import MAX_ATTEMPTS, MessageGone, OutboxStore, Permanent, Retry, deliver
from storage.db import transaction
from storage.models import MessageSlot, Outbox
from tests.conftest import FakeClock, RecordingTransport

CHAT = "chat-1"


@pytest.fixture
def store(sqlite_engine: Engine, clock: FakeClock) -> OutboxStore:
    return OutboxStore(sqlite_engine, "test", clock=clock)


def put(engine: Engine, clock: FakeClock, text: str, slot: str | None = "t1",
        chat: str = CHAT, repost: bool = False,
        rows: list[list[list[str]]] | None = None) -> int:
    with transaction(engine) as session:
        row = Outbox(platform="test", chat_external_id=chat, slot=slot, repost=repost, text=text,
                     buttons=rows or [], not_before=clock(), created_at=clock())
        session.add(row)
        session.flush()
        return row.id  # type: ignore[return-value]


def row(engine: Engine, row_id: int) -> Outbox:
    with Session(engine) as session:
        found = session.get(Outbox, row_id)
        assert found is not None
        return found


def slot_message(engine: Engine, slot: str = "t1", chat: str = CHAT) -> str | None:
    with Session(engine) as session:
        found = session.exec(select(MessageSlot).where(MessageSlot.chat_external_id == chat,
                                                       MessageSlot.slot == slot)).first()
        return found.message_id if found else None


def deliver_all(store: OutboxStore, transport: RecordingTransport) -> int:
    items = store.pending()
    for item in items:
        deliver(store, item, transport)
    return len(items)


def test_views_of_one_slot_coalesce_to_the_newest(sqlite_engine, clock, store, transport) -> None:
    old = [put(sqlite_engine, clock, f"view {i}") for i in range(3)]
    newest = put(sqlite_engine, clock, "view 3")
    other_slot = put(sqlite_engine, clock, "hand", slot="h1")
    items = store.pending()
    assert [i.id for i in items] == [newest, other_slot]
    for item in items:
        deliver(store, item, transport)
    assert [c[3] for c in transport.calls] == ["view 3", "hand"]
    assert all(row(sqlite_engine, i).status == "dropped" for i in old)
    assert row(sqlite_engine, newest).status == "sent"
    assert store.pending() == []


def test_slot_views_are_edited_in_place(sqlite_engine, clock, store, transport) -> None:
    put(sqlite_engine, clock, "first", rows=[[["Knock", "v1:1:1:knock"]]])
    deliver_all(store, transport)
    message_id = slot_message(sqlite_engine)
    put(sqlite_engine, clock, "second")
    deliver_all(store, transport)
    assert transport.methods() == ["send", "edit"]
    assert slot_message(sqlite_engine) == message_id
    assert transport.texts(CHAT) == ["second"]


def test_unchanged_view_is_not_sent_again(sqlite_engine, clock, store, transport) -> None:
    rows = [[["Knock", "v1:1:1:knock"]]]
    put(sqlite_engine, clock, "same", rows=rows)
    deliver_all(store, transport)
    again = put(sqlite_engine, clock, "same", rows=rows)
    items = store.pending()
    assert [i.unchanged for i in items] == [True]
    deliver(store, items[0], transport)
    assert transport.methods() == ["send"]
    assert row(sqlite_engine, again).status == "sent"
    put(sqlite_engine, clock, "same", rows=[[["Knock", "v1:1:2:knock"]]])  # buttons changed
    deliver_all(store, transport)
    assert transport.methods() == ["send", "edit"]


def test_messages_without_slot_are_always_sent(sqlite_engine, clock, store, transport) -> None:
    put(sqlite_engine, clock, "hello", slot=None)
    put(sqlite_engine, clock, "hello", slot=None)
    assert deliver_all(store, transport) == 2
    assert transport.methods() == ["send", "send"]


def test_retry_keeps_the_row_pending_later(sqlite_engine, clock, store, transport) -> None:
    row_id = put(sqlite_engine, clock, "busy")
    transport.fail_next("send", Retry(after=7, reason="429 Too Many Requests"))
    deliver_all(store, transport)
    r = row(sqlite_engine, row_id)
    assert (r.status, r.attempts) == ("pending", 1)
    assert r.not_before >= clock() + timedelta(seconds=7)  # not before the platform allows
    assert "429" in (r.error or "")
    assert store.pending() == []  # not before its time
    clock.advance(6)
    assert store.pending() == []
    clock.set(r.not_before)
    assert deliver_all(store, transport) == 1
    r = row(sqlite_engine, row_id)
    assert (r.status, r.attempts) == ("sent", 1)
    assert transport.texts(CHAT) == ["busy"]


def test_retries_count_attempts_and_give_up_at_last(sqlite_engine, clock, store,
                                                    transport) -> None:
    row_id = put(sqlite_engine, clock, "never")
    for attempt in range(1, MAX_ATTEMPTS + 1):
        transport.fail_next("send", Retry(after=1))
        assert deliver_all(store, transport) == 1
        r = row(sqlite_engine, row_id)
        assert r.attempts == attempt
        if r.status != "pending":
            break
        assert r.not_before > clock()
        clock.set(r.not_before)
    assert (r.status, r.attempts) == ("failed", MAX_ATTEMPTS)
    clock.advance(86_400)
    assert store.pending() == []


def test_permanent_failure_gives_the_row_up(sqlite_engine, clock, store, transport) -> None:
    row_id = put(sqlite_engine, clock, "blocked")
    transport.fail_next("send", Permanent("403 Forbidden: bot was blocked by the user"))
    deliver_all(store, transport)
    r = row(sqlite_engine, row_id)
    assert (r.status, r.attempts) == ("failed", 1)
    assert "403" in (r.error or "")
    clock.advance(3600)
    assert store.pending() == []


def test_message_gone_on_edit_is_sent_anew(sqlite_engine, clock, store, transport) -> None:
    put(sqlite_engine, clock, "one")
    deliver_all(store, transport)
    old_id = slot_message(sqlite_engine)
    transport.chats[CHAT].clear()  # the user deleted the message
    put(sqlite_engine, clock, "two")
    deliver_all(store, transport)
    assert transport.methods() == ["send", "edit", "send"]
    new_id = slot_message(sqlite_engine)
    assert new_id != old_id
    assert transport.texts(CHAT) == ["two"]


def test_message_gone_raised_by_edit_itself(sqlite_engine, clock, store, transport) -> None:
    put(sqlite_engine, clock, "one")
    deliver_all(store, transport)
    transport.fail_next("edit", MessageGone("400 message to edit not found"))
    row_id = put(sqlite_engine, clock, "two")
    deliver_all(store, transport)
    assert row(sqlite_engine, row_id).status == "sent"
    assert transport.methods() == ["send", "send"]


def test_repost_sends_new_and_deletes_old(sqlite_engine, clock, store, transport) -> None:
    put(sqlite_engine, clock, "your turn", slot="h1", chat="p1")
    deliver_all(store, transport)
    old_id = slot_message(sqlite_engine, "h1", "p1")
    put(sqlite_engine, clock, "your turn again", slot="h1", chat="p1", repost=True)
    deliver_all(store, transport)
    assert transport.methods() == ["send", "send", "delete"]
    assert transport.calls[-1] == ("delete", "p1", old_id)
    new_id = slot_message(sqlite_engine, "h1", "p1")
    assert new_id != old_id
    assert [m.id for m in transport.messages("p1")] == [new_id]
    assert transport.texts("p1") == ["your turn again"]


def test_repost_of_an_unchanged_view_does_nothing(sqlite_engine, clock, store, transport) -> None:
    put(sqlite_engine, clock, "same", slot="h1", repost=True)
    deliver_all(store, transport)
    put(sqlite_engine, clock, "same", slot="h1", repost=True)
    deliver_all(store, transport)
    assert transport.methods() == ["send"]


def test_repost_survives_a_failing_delete(sqlite_engine, clock, store, transport) -> None:
    put(sqlite_engine, clock, "a", slot="h1")
    deliver_all(store, transport)
    transport.fail_next("delete", Permanent("message can't be deleted"))
    row_id = put(sqlite_engine, clock, "b", slot="h1", repost=True)
    deliver_all(store, transport)
    assert row(sqlite_engine, row_id).status == "sent"
    assert slot_message(sqlite_engine, "h1") == transport.calls[-1][2]


def test_repost_deletes_the_old_copy_later_after_a_rate_limit() -> None:
    """A reposted view's old copy that could not be deleted (429, network) is deleted a moment
    later; a permanent refusal is not retried."""
    import asyncio

    from chatbot.delivery import Item, deliver_async

    class Flaky:
        def __init__(self, errors: list[Exception]) -> None:
            self.errors, self.deleted, self.deletes = errors, [], 0

        async def send(self, chat: str, text: str, rows: list) -> str:
            return "new-1"

        async def edit(self, chat: str, message_id: str, text: str, rows: list) -> None:
            raise AssertionError("a repost does not edit")

        async def delete(self, chat: str, message_id: str) -> None:
            self.deletes += 1
            if self.errors:
                raise self.errors.pop(0)
            self.deleted.append(message_id)

    item = Item(id=1, chat=CHAT, slot="h1", repost=True, text="b", rows=[],
                message_id="old-7", unchanged=False)

    async def scenario(errors: list[Exception]) -> Flaky:
        transport = Flaky(errors)
        assert await deliver_async(item, transport) == ("new-1", None)
        await asyncio.sleep(0.3)
        return transport

    flaky = asyncio.run(scenario([Retry(0.05, "429"), Retry(0.05, "network")]))
    assert flaky.deleted == ["old-7"] and flaky.deletes == 3
    refused = asyncio.run(scenario([Permanent("message can't be deleted")]))
    assert refused.deleted == [] and refused.deletes == 1


def test_forget_slots_makes_the_next_view_a_new_message(sqlite_engine, clock, store,
                                                         transport) -> None:
    put(sqlite_engine, clock, "a")
    deliver_all(store, transport)
    store.forget_slots(CHAT)
    put(sqlite_engine, clock, "b")
    deliver_all(store, transport)
    assert transport.methods() == ["send", "send"]


def test_other_platforms_rows_are_left_alone(sqlite_engine, clock, store, transport) -> None:
    with transaction(sqlite_engine) as session:
        session.add(Outbox(platform="matrix", chat_external_id=CHAT, text="x",
                           not_before=clock(), created_at=clock()))
    assert store.pending() == []
    assert store.next_due() is None
    put(sqlite_engine, clock, "mine")
    assert store.next_due() == clock()


@pytest.mark.parametrize("engine_name", ["sqlite_engine", "pg_engine"])
def test_a_flooded_chat_never_hides_another_chat(engine_name: str, clock: FakeClock,
                                                 request: pytest.FixtureRequest) -> None:
    """250 messages queued for one chat (a user sending /help in a loop) and then one for
    another chat: the first pass sees the other chat's message (issue 15, item 10), and each
    chat's messages stay in order."""
    from chatbot.delivery import PER_CHAT

    engine = request.getfixturevalue(engine_name)
    store = OutboxStore(engine, "test", clock=clock)
    flood = [put(engine, clock, f"help {i}", slot=None, chat="flood") for i in range(250)]
    other = put(engine, clock, "your table", slot=None, chat="other")
    items = store.pending()
    assert [i.id for i in items if i.chat == "other"] == [other]
    assert [i.id for i in items if i.chat == "flood"] == flood[:PER_CHAT]
    transport = RecordingTransport()
    for item in items:
        deliver(store, item, transport)
    assert [i.id for i in store.pending() if i.chat == "flood"] == flood[PER_CHAT:2 * PER_CHAT]
