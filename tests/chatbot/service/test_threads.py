"""A table belongs to its chat and its topic or thread (an opaque key the adapter hands the
service in ``ChatRef.thread``): two threads of a group run two tables, an answer goes to the
input's thread, every message of a table to the table's own; a thread that takes no more
messages ends its tables (abandoned, the players told privately) and drops what was still to
go there."""

from __future__ import annotations

from dataclasses import replace

from sqlmodel import Session, select

from storage.models import Outbox
from tests.chatbot.service.harness import ALICE, BOB, CAROL, GROUP, Harness, P, code_of, private

T1, T2 = replace(GROUP, thread="17"), replace(GROUP, thread="$root:example.org")


def _rows(h: Harness, **where: object) -> list[Outbox]:
    with Session(h.engine) as session:
        query = select(Outbox)
        for key, value in where.items():
            query = query.where(getattr(Outbox, key) == value)
        return list(session.exec(query).all())


def _lobby(h: Harness, chat, user=ALICE) -> int:
    out = h.command(chat, user, "new", "schwimmen")
    assert out.ok and out.table_id, out.text
    return out.table_id


def test_two_threads_run_two_tables_and_answers_stay_in_their_thread(h: Harness) -> None:
    first, second, main = _lobby(h, T1), _lobby(h, T2, BOB), _lobby(h, GROUP, CAROL)
    assert len({first, second, main}) == 3
    assert [h.table(t).thread_id for t in (first, second, main)] == ["17", T2.thread, None]
    # every row of a table goes to its thread; the menu's slot is the thread's own
    for table_id, thread in ((first, "17"), (second, T2.thread), (main, None)):
        rows = _rows(h, slot=f"t{table_id}")
        assert rows and {r.thread for r in rows} == {thread}
    assert {r.slot for r in _rows(h, thread="17") if r.slot} == {"menu@17", f"t{first}"}
    # /new where a table is open: refused there, in the person's words
    busy = h.command(T1, CAROL, "new", "schwimmen")
    assert not busy.ok and busy.text == "Hier läuft schon ein Tisch. /stop beendet ihn."
    english = replace(CAROL, language="en")
    assert h.command(T2, english, "new").text == "A table is already open here. /stop ends it."
    assert h.command(GROUP, english, "new").text == \
        "A table is already open in this chat. /stop ends it."
    # an answer goes to the input's thread (a refused /games in the group, /rules)
    h.service.reply(T2, "hallo")
    assert [r.thread for r in _rows(h, text="hallo")] == [T2.thread]
    before = max(r.id for r in _rows(h))
    h.command(T2, BOB, "rules")
    rules = [r for r in _rows(h) if r.id > before]
    assert rules and {r.thread for r in rules} == {T2.thread}


def test_a_tables_messages_go_to_its_thread_whoever_presses_where(h: Harness) -> None:
    table_id = _lobby(h, T1)
    join = h.buttons(GROUP, table_id)["join"]
    before = max(r.id for r in _rows(h))
    assert h.press(GROUP, BOB, join).changed  # (a press naming no thread: a reaction, say)
    newer = [r for r in _rows(h) if r.id > before and r.chat_external_id == GROUP.external_id]
    assert newer and {r.thread for r in newer} == {"17"}
    # /stop in another thread does not reach it; in its own it does
    assert not h.command(T2, ALICE, "stop").ok
    assert h.command(T1, ALICE, "stop").ok
    assert h.table(table_id).fsm_state == "abandoned"


def test_a_thread_that_takes_no_more_messages_ends_its_tables(h: Harness) -> None:
    for user in (ALICE, BOB):
        h.command(private(user), user, "start")
    gone, other = _lobby(h, T1), _lobby(h, T2)
    assert h.press(T1, BOB, h.buttons(GROUP, gone)["join"]).changed
    start = next(d for d in h.buttons(GROUP, gone).values() if code_of(d) == "start")
    assert h.press(T1, ALICE, start).changed
    h.service.reply(T1, "noch nicht gesendet")  # still pending when the topic goes
    assert h.service.thread_gone(P, GROUP.external_id, "17") == [gone]
    assert h.table(gone).fsm_state == "abandoned" and h.table(gone).next_deadline is None
    assert h.table(other).fsm_state == "lobby"
    assert not [r for r in _rows(h, thread="17") if r.status == "pending"]
    assert [r.status for r in _rows(h, text="noch nicht gesendet")] == ["dropped"]
    told = "🚪 Dein Tisch Schwimmen in „Stammtisch › #17“ ist beendet: sein Thema wurde " \
           "geschlossen oder gelöscht."
    for user in (ALICE, BOB):
        assert told in [m.text for m in h.messages(private(user))]
    # nothing more was queued for the gone thread; told once
    assert h.service.thread_gone(P, GROUP.external_id, "17") == []
    assert sum(told in m.text for m in h.messages(private(BOB))) == 1


def test_what_the_clock_says_goes_to_the_tables_thread(h: Harness) -> None:
    """Reminders, timeouts, the stand-in's moves and a lobby that expires: what deadlines
    (no input, no thread of their own) queue for the group goes to the table's thread."""
    idle = _lobby(h, T2, CAROL)  # a lobby nobody starts
    table_id = _lobby(h, T1)
    assert h.press(T1, BOB, h.buttons(GROUP, table_id)["join"]).changed
    assert h.press(T1, ALICE, h.buttons(GROUP, table_id)["start"]).changed
    before = max(r.id for r in _rows(h))
    kinds = set()
    for _ in range(12):  # nobody moves: reminders, timeouts, stand-ins, next rounds
        table = h.table(table_id)
        if table.next_deadline is None:
            break
        kinds.add(table.deadline_kind)
        h.clock.set(table.next_deadline)
        h.fire(table_id, table.version)
    assert {"remind", "timeout"} <= kinds
    lobby = h.table(idle)
    assert lobby.next_deadline is not None  # (the lobby's expiry)
    h.clock.set(lobby.next_deadline)
    h.fire(idle, lobby.version)
    assert h.table(idle).fsm_state == "abandoned"
    group_rows = [r for r in _rows(h) if r.id > before
                  and r.chat_external_id == GROUP.external_id]
    assert any(r.slot == f"r{table_id}" for r in group_rows)  # (a reminder)
    assert {r.thread for r in group_rows if r.table_id == table_id
            or r.slot in (f"t{table_id}", f"r{table_id}")} == {"17"}
    assert {r.thread for r in group_rows if r.slot == f"t{idle}"} == {T2.thread}
    assert {r.thread for r in group_rows} == {"17", T2.thread}
