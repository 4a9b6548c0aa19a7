"""Two tables in two threads of one room are told apart outside it (issue 47 item 17), and a
command's answers reply to it (item 18), through the service: a table opened in a thread whose
name the adapter knows (``ChatRef.thread_name``: a Matrix thread's first message) is named
"group › thread" in the private views' heading, ``/games``, the turn reminders and what the
adapters read of it (``table_info``: Matrix's "(That was for …)" note)."""

from __future__ import annotations

import pytest
from sqlalchemy.engine import Engine

from chatbot.service import ChatRef, UserRef
from tests.chatbot.long_games import DAY0, berlin, mark, rows_to
from tests.chatbot.service.harness import Harness, until_a_turn_in_group
from tests.conftest import FakeClock, Postman

MX = "matrix"
CEM = UserRef("@cem:example.org", "Cem")
DORA = UserRef("@dora:example.org", "Dora")
ROOM = ChatRef(MX, "!faeden:example.org", "group", "Stammtisch Fäden")
A = ChatRef(MX, ROOM.external_id, "group", ROOM.title, "$a", "Schwimmen am Montag?")
B = ChatRef(MX, ROOM.external_id, "group", ROOM.title, "$b", "Und wir auch")


def dm(user: UserRef) -> ChatRef:
    return ChatRef(MX, f"!dm-{user.external_id[1:5]}:example.org", "private")


@pytest.fixture
def h(db_engine: Engine) -> Harness:
    harness = Harness(db_engine, FakeClock(DAY0), cpu_delay=0, next_round_delay=0)
    harness.postman = Postman(db_engine, platform=MX, clock=harness.clock)
    harness.transport = harness.postman.transport
    harness.clock.set(berlin(0, 13))
    for user in (CEM, DORA):
        assert harness.command(dm(user), user, "start").ok
    return harness


def table_in(h: Harness, where: ChatRef, clock: str = "") -> int:
    out = h.command(where, CEM, "new", f"schwimmen {clock}".strip())
    assert out.ok and out.table_id, out.text
    assert h.press(where, DORA, h.buttons(where, out.table_id)["join"]).changed
    assert h.press(where, CEM, h.buttons(where, out.table_id)["start"]).changed
    until_a_turn_in_group(h, out.table_id)
    return out.table_id


def heading(h: Harness, user: UserRef, table_id: int) -> str:
    """The first line of the person's private view of a table."""
    views = [r for r in rows_to(h, dm(user), 0) if r.slot == f"h{table_id}"]
    return views[-1].text.split("\n", 1)[0]


def test_tables_in_two_threads_are_named_by_their_thread_outside_the_room(h: Harness) -> None:
    in_a, in_b = table_in(h, A, "clock=12h"), table_in(h, B, "clock=12h")
    in_main = table_in(h, ROOM)  # (the room's main timeline: the room's name alone)
    for user in (CEM, DORA):
        assert heading(h, user, in_a).endswith(" · Stammtisch Fäden › Schwimmen am Montag?")
        assert heading(h, user, in_b).endswith(" · Stammtisch Fäden › Und wir auch")
        assert heading(h, user, in_main).endswith(" · Stammtisch Fäden")
    assert h.service.table_info(in_a).group == "Stammtisch Fäden › Schwimmen am Montag?"
    assert h.service.table_info(in_b).group == "Stammtisch Fäden › Und wir auch"
    assert h.service.table_info(in_main).group == "Stammtisch Fäden"

    before = mark(h)
    assert h.command(dm(CEM), CEM, "games").ok
    (games,) = [r for r in rows_to(h, dm(CEM), before) if r.slot == "games"]
    lines = games.text.split("\n")[1:]
    assert sorted(line.split(" · ")[1] for line in lines) == [
        "Stammtisch Fäden", "Stammtisch Fäden › Schwimmen am Montag?",
        "Stammtisch Fäden › Und wir auch"]
    labels = sorted(label for row in games.buttons for label, _data in row)
    assert labels == ["↓ Schwimmen · Stammtisch Fäden",
                      "↓ Schwimmen · Stammtisch Fäden › Schwimmen am Montag?",
                      "↓ Schwimmen · Stammtisch Fäden › Und wir auch"]

    # the turn reminder of table B's long clock names B's thread (linked to its table)
    table = h.table(in_b)
    assert table.deadline_kind == "remind" and table.next_deadline is not None
    before = mark(h)
    h.clock.set(table.next_deadline)
    assert h.fire(in_b, table.version)
    reminders = [r for user in (CEM, DORA) for r in rows_to(h, dm(user), before)
                 if r.text.startswith("⏰")]
    assert len(reminders) == 1, [r.text for r in reminders]
    assert reminders[0].text.startswith(
        "⏰ Du bist am Zug bei Schwimmen in „[Stammtisch Fäden › Und wir auch](https://matrix.to/#/"
        "!faeden:example.org/"), reminders[0].text


def test_a_table_keeps_its_threads_name_and_a_topic_without_one_keeps_the_groups(
        h: Harness) -> None:
    # a later input in the thread, of another name (the adapter's, read anew), renames nothing
    in_a = table_in(h, A)
    assert h.press(ChatRef(MX, ROOM.external_id, "group", ROOM.title, "$a", "Anders"), CEM,
                   h.buttons(A, in_a)["cards"]).ok
    assert h.service.table_info(in_a).group == "Stammtisch Fäden › Schwimmen am Montag?"
    # a thread whose name the adapter does not know: the group's name, as before
    unnamed = ChatRef(MX, ROOM.external_id, "group", ROOM.title, "$c")
    in_c = table_in(h, unnamed)
    assert h.service.table_info(in_c).group == "Stammtisch Fäden"
    assert heading(h, DORA, in_c).endswith(" · Stammtisch Fäden")


def test_a_commands_answers_reply_to_it_and_table_views_do_not(h: Harness) -> None:
    before = mark(h)
    h.service.command(ROOM, CEM, "help", "", h.key(), answer_to="$help")
    h.service.command(A, CEM, "abend", "", h.key(), answer_to="$a $abend")
    h.service.command(ROOM, CEM, "top", "", h.key(), answer_to="$top")
    out = h.service.command(ROOM, CEM, "new", "schwimmen", h.key(), answer_to="$new")
    rows = rows_to(h, ROOM, before)
    table = f"t{out.table_id}"
    assert [(r.reply_to, r.thread) for r in rows if r.slot != table] == [
        ("$help", None), ("$a $abend", "$a"), ("$top", None), ("$new", None)]
    (lobby,) = [r for r in rows if r.slot == table]
    assert lobby.reply_to is None  # (the table message: edited in place, no answer)
    # without a message to answer (Telegram, a scheduled step): no reply
    before = mark(h)
    h.command(ROOM, CEM, "help")
    assert [r.reply_to for r in rows_to(h, ROOM, before)] == [None]
