"""The Matrix adapter's pure parts: views as messages, text as intents, what a number or a
reaction presses (read from the database). No homeserver needed."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.engine import Engine
from sqlmodel import Session

from chatbot.matrix.render import Intent, bang, norm_key, parse, reaction_for, render
from chatbot.matrix.store import MatrixStore
from chatbot.outbox import OutboxStore
from storage.models import MessageSlot, Outbox

NOW = datetime(2020, 1, 7, 12, 0, tzinfo=UTC)


def test_numbers_commands_and_chat() -> None:
    assert parse("2") == Intent("choice", number=2)
    assert parse("  12 ") == Intent("choice", number=12)
    assert parse("!new schwimmen 1 anfaenger") == Intent("command", "new", "schwimmen 1 anfaenger")
    assert parse("!neu") == Intent("command", "new")
    assert parse("/help") == Intent("command", "help")
    assert parse("!Klopfen") == Intent("move", "knock")
    assert parse("!schieben") == Intent("move", "pass")
    assert parse("!mitmachen") == Intent("move", "join")
    assert parse("!start") == Intent("move", "start")
    assert parse("!stopp") == Intent("command", "stop")
    assert parse("!sprache en") == Intent("command", "language", "en")
    assert parse("!quatsch 1") == Intent("command", "quatsch", "1")
    assert parse("hallo 2") == Intent("chat")
    assert parse("") == Intent("chat")
    assert parse("!") == Intent("chat")
    # a reply quotes the message it answers; an address to the bot is not part of the command
    assert parse("> <@bot:x> 🃏 Schwimmen\n> 1. Klopfen\n\n1") == Intent("choice", number=1)
    assert parse("stammtisch: !klopfen", ("stammtisch",)) == Intent("move", "knock")


def test_view_as_html_with_numbered_choices_and_reactions() -> None:
    rows = [[["Mitmachen", "v1:3:0:join"], ["Aussteigen", "v1:3:0:leave"]],
            [["<b>&", "v1:3:0:start"]]]
    body, html = render("🃏 Schwimmen – neuer Tisch\n   Alma · 3 🪙\n/new hilft", rows)
    assert body.splitlines()[-3:] == ["1. Mitmachen 👍", "2. Aussteigen", "3. <b>& ▶️"]
    assert "!new hilft" in body and "/new" not in body
    assert html.startswith("<b>🃏 Schwimmen – neuer Tisch</b><br>&nbsp;&nbsp;&nbsp;Alma")
    assert "<li>&lt;b&gt;&amp; ▶️</li>" in html and "<ol>" in html
    assert render("Servus", []) == ("Servus", "<b>Servus</b>")
    assert bang("a/new b /stop c http://x/new") == "a/new b !stop c http://x/new"


def test_reactions_belong_to_table_buttons_only() -> None:
    assert reaction_for("v1:7:3:knock") == "✊"
    assert reaction_for("v1:7:3:pass") == "⏭️"
    assert reaction_for("v1:0:0:g.schwimmen") is None
    assert reaction_for("v1:7:3:swap.KH.7S") is None
    assert norm_key("⏭️") == norm_key("⏭") == "⏭"


def _outbox(session: Session, room: str, slot: str | None, buttons: list, status: str) -> int:
    row = Outbox(platform="matrix", chat_external_id=room, slot=slot, text="t",
                 buttons=buttons, status=status, not_before=NOW, created_at=NOW)
    session.add(row)
    session.flush()
    return row.id  # type: ignore[return-value]


def test_what_a_number_and_a_reaction_press(db_engine: Engine) -> None:
    store = MatrixStore(db_engine)
    room = "!" + "r" * 110 + ":example.org"  # "matrix:direct:<room>" is too long a key
    with Session(db_engine) as session, session.begin():
        _outbox(session, room, "menu", [[["Schwimmen", "v1:0:0:g.schwimmen"]]], "sent")
        _outbox(session, room, "t1", [[["Klopfen", "v1:1:4:knock"]]], "sent")
        _outbox(session, room, None, [], "sent")  # an announcement does not hide the view
        _outbox(session, room, "t1", [[["Schieben", "v1:1:5:pass"]]], "pending")  # not shown
        session.add(MessageSlot(platform="matrix", chat_external_id=room, slot="t1",
                                message_id="$table", updated_at=NOW))
    assert store.newest_buttons(room) == [("Klopfen", "v1:1:4:knock")]
    assert store.message_buttons(room, "$table") == [("Klopfen", "v1:1:4:knock")]
    assert store.message_buttons(room, "$other") is None
    assert store.newest_buttons("!empty:x") is None
    assert store.rooms_with_due_views() == {room}
    for item in OutboxStore(db_engine, "matrix").pending(now=NOW):
        OutboxStore(db_engine, "matrix").done(item, "$table")
    assert store.newest_buttons(room) == [("Schieben", "v1:1:5:pass")]
    assert store.rooms_with_due_views() == set()

    store.put("s123", "@bot:x", "next_batch")
    store.put("s124", "@bot:x", "next_batch")
    store.put("1", "direct", room)
    assert store.get("@bot:x", "next_batch") == "s124"
    assert store.get("direct", room) == "1"
    store.delete("direct", room)
    assert store.get("direct", room) is None
