"""The Matrix adapter's pure parts: views as messages, text as intents, what a number or a
reaction presses (read from the database). No homeserver needed."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from chatbot import views
from chatbot.delivery import OutboxStore
from chatbot.i18n import tr
from chatbot.matrix.inputs import InputsMixin
from chatbot.matrix.memory import MatrixMemory
from chatbot.matrix.render import (
    Intent,
    bang,
    choices,
    find_choices,
    language_of,
    mentions,
    norm_key,
    numbered,
    parse,
    reaction_for,
    render,
)
from storage.models import GameTable, MessageSlot, Outbox, Seat

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
    assert render("Servus", []) == ("Servus", "Servus")  # one line: not all bold
    assert bang("a/new b /stop c http://x/new") == "a/new b !stop c http://x/new"


def test_a_code_block_is_a_monospace_pre_block_and_league_commands_are_bang_words() -> None:
    """The league's tables come as a Markdown code block: HTML ``<pre>`` (escaped, no line
    breaks inside), the plain body keeps the fences; ``/liga`` is ``!liga`` in Matrix."""
    body, html = render("🏆 Liga\n```\n 1. <Al>  12\n 2. Bo     9\n```\n/liga urlaub", [])
    assert body == "🏆 Liga\n```\n 1. <Al>  12\n 2. Bo     9\n```\n!liga urlaub"
    assert html == ("<b>🏆 Liga</b><br><pre><code> 1. &lt;Al&gt;  12\n 2. Bo     9"
                    "</code></pre>!liga urlaub")
    assert bang("/league holiday") == "!league holiday"


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
    store = MatrixMemory(db_engine)
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


# ------------------------------------------------------------------ issue 18, items 12 and 14


def test_several_numbers_and_cards_by_name() -> None:
    assert parse("7 8 9") == Intent("choices", items=("7", "8", "9"))
    assert parse("7, 8, 9") == parse("7,8,9") == parse("7 und 8 und 9") \
        == Intent("choices", items=("7", "8", "9"))
    assert parse("7♠ 7♥") == parse("7s 7h") == parse("7S,7H") == parse("7♠7♥") \
        == parse("Pik 7 Herz 7") == parse("7 Pik, 7 Herz") == parse("7♠️ 7♥️") \
        == Intent("choices", items=("7♠", "7♥"))
    assert parse("10♦") == parse("10d") == parse("Karo 10") == Intent("choices", items=("10♦",))
    assert parse("Kd") == Intent("choices", items=("K♦",))
    assert parse("qh") == parse("Herz Dame") == parse("Herz-Dame") \
        == Intent("choices", items=("Q♥",))
    assert parse("as") == parse("Pik Ass") == Intent("choices", items=("A♠",))
    assert parse("> <@bot:x> Run Fast\n\n3 4") == Intent("choices", items=("3", "4"))
    assert parse("12") == Intent("choice", number=12)  # one number as before
    for chat in ("hallo 2", "2 Karten", "kreuz", "und 7", "7 und", "7 h", "7,", "ok"):
        assert parse(chat) == Intent("chat"), chat


def test_a_mention_of_the_bot_addresses_it() -> None:
    names = ("@stammtisch:x", "stammtisch", "Stammtisch")
    assert parse("Stammtisch: !neu", names) == Intent("command", "new")
    assert parse("Stammtisch !neu", names) == Intent("chat")  # (no colon, no mention)
    assert parse("Stammtisch !neu", names, mentioned=True) == Intent("command", "new")
    assert parse("Spielbot 3", names + ("Spielbot",), mentioned=True) == Intent("choice",
                                                                            number=3)
    assert parse("@stammtisch:x: 5 6", names) == Intent("choices", items=("5", "6"))


class _Bot(InputsMixin):
    """Only what ``_mentioned`` and ``_on_edit`` use: the bot's id, what was applied, who
    sent the messages (Tina, but ``$annas``)."""

    def __init__(self, applied: set[str]) -> None:
        self.user_id = "@stammtisch:example.org"
        self.applied = applied
        self.read: list[tuple[Any, ...]] = []

    def _applied(self, key: str) -> bool:
        return key in self.applied

    async def _origin(self, room_id: str, event_id: str) -> tuple[str | None, str | None]:
        return ("@anna:x" if event_id == "$annas" else "@tina:x"), None

    async def _read(self, room_id: str, sender: str, key: str, content: dict[str, Any],
                    edit: bool = False) -> None:
        self.read.append((room_id, sender, key, content["body"], edit))


class _Event:
    def __init__(self, event_id: str, content: dict[str, Any]) -> None:
        self.event_id, self.sender, self.source = event_id, "@tina:x", {"content": content}


def test_pills_and_m_mentions_name_the_bot() -> None:
    bot = _Bot(set())
    pill = ('<a href="https://matrix.to/#/%40stammtisch%3Aexample.org">Spiel&amp;bot</a>: '
            '!neu')
    assert bot._mentioned({"body": "Spiel&bot: !neu", "format": "org.matrix.custom.html",
                           "formatted_body": pill}) == (True, ("Spiel&bot",))
    assert bot._mentioned({"body": "x", "m.mentions": {"user_ids": [bot.user_id]}}) \
        == (True, ())
    other = '<a href="https://matrix.to/#/@tina:x">Tina</a> 3'
    assert bot._mentioned({"body": "Tina 3", "format": "org.matrix.custom.html",
                           "formatted_body": other, "m.mentions": {"user_ids": ["@tina:x"]}}) \
        == (False, ())


def test_a_reminders_link_to_the_group_room_is_a_link_not_a_mention() -> None:
    text = "⏰ Du bist am Zug in „[Runde](https://matrix.to/#/!abc:x/$ev1)“ – [Tina](https://matrix.to/#/@tina:x)"
    body, html = render(text, [])
    assert body == "⏰ Du bist am Zug in „Runde“ – Tina"
    assert '<a href="https://matrix.to/#/!abc:x/$ev1">Runde</a>' in html
    assert mentions(text) == ["@tina:x"]  # (the room is no one to notify)


def test_an_edit_is_read_anew_unless_the_message_was_applied() -> None:
    bot = _Bot({"$applied"})

    def edit(original: str, body: str, event_id: str = "$edit") -> _Event:
        return _Event(event_id, {"msgtype": "m.text", "body": f"* {body}",
                                 "m.new_content": {"msgtype": "m.text", "body": body},
                                 "m.relates_to": {"rel_type": "m.replace",
                                                  "event_id": original}})

    asyncio.run(bot._on_edit("!r", edit("$thirteen", "3")))  # "13" made "3": read anew
    asyncio.run(bot._on_edit("!r", edit("$applied", "4")))  # was applied: not again
    asyncio.run(bot._on_edit("!r", edit("$annas", "2")))  # Anna's message: not Tina's to edit
    asyncio.run(bot._on_edit("!r", _Event("$x", {"body": "* 3", "m.relates_to": {
        "rel_type": "m.replace", "event_id": "$y"}})))  # (no new content)
    # under the original's id: the input and all its edits count once
    assert bot.read == [("!r", "@tina:x", "$thirteen", "3", True)]


def test_a_page_marker_is_no_choice() -> None:
    rows = [[["3♠ 3♥", "v1:5:2:3S.3H"], ["4♠ 4♥", "v1:5:2:4S.4H"]],
            [["◀", "v1:5:2:ui.p.0"], ["2/3", "v1:5:2:ui.p.1"], ["▶", "v1:5:2:ui.p.2"]],
            [["• Paare", "v1:5:2:ui.k.pair"]]]
    body, html = render("🃏 Run Fast\nDu bist am Zug", rows)
    assert body.split("\n\n")[-1].splitlines() == ["1. 3♠ 3♥", "2. 4♠ 4♥", "3. ◀", "4. ▶",
                                                   "5. • Paare"]
    assert "📄 2/3" in body.split("\n\n")[0] and "<li>2/3</li>" not in html
    assert [d for _, d in numbered(choices(rows))][2:4] == ["v1:5:2:ui.p.0", "v1:5:2:ui.p.2"]
    assert find_choices(("3", "4"), choices(rows)) == (["v1:5:2:ui.p.0", "v1:5:2:ui.p.2"],
                                                       [], [])


def test_cards_pick_the_choices_that_show_them() -> None:
    rows = [[["7♠", "v1:5:2:ui.t.7S"], ["✅7♥", "v1:5:2:ui.t.7H"], ["10♦", "v1:5:2:ui.t.10D"]],
            [["▶ Spielen: 7♥", "v1:5:2:ui.play"], ["✖ Leeren", "v1:5:2:ui.clear"]]]
    buttons = choices(rows)
    assert find_choices(parse("10d 7s").items, buttons) == (
        ["v1:5:2:ui.t.10D", "v1:5:2:ui.t.7S"], [], [])
    assert find_choices(("7♥",), buttons) == (["v1:5:2:ui.t.7H"], [], [])  # (✅: unpicks)
    assert find_choices(("1", "4", "1"), buttons) == (["v1:5:2:ui.t.7S", "v1:5:2:ui.play"],
                                                      [], [])
    assert find_choices(("1", "9"), buttons) == (["v1:5:2:ui.t.7S"], ["9"], [])
    assert find_choices(("K♦", "7♠"), buttons) == (["v1:5:2:ui.t.7S"], [], ["K♦"])
    # a play's label that shows just those cards (the pairs tab)
    plays = choices([[["7♠ 7♥", "v1:5:2:7S.7H"], ["8♠ 8♥", "v1:5:2:8S.8H"]]])
    assert find_choices(parse("7h 7s").items, plays) == (["v1:5:2:7S.7H"], [], [])


def test_the_opponent_menu_says_what_the_numbers_mean() -> None:
    rows = [[[str(n), f"v1:0:0:g.schwimmen.{n}"] for n in (1, 2, 3)]]
    body, html = render(tr("en", "choose_opponents", game="Swimming"), rows)
    assert body.split("\n\n")[-1].splitlines() == [
        "1. 1 CPU opponent", "2. 2 CPU opponents", "3. 3 CPU opponents"]
    assert language_of(tr("de", "choose_opponents", game="Schwimmen")) == "de"
    # other bare numbers are left as they are
    assert render("x", [[["1", "v1:5:2:bid.1"]]])[0].endswith("\n\n1. 1")


def test_the_opponent_menu_in_german() -> None:  # (needs the German catalog's new texts)
    rows = [[[str(n), f"v1:0:0:g.schwimmen.{n}"] for n in (1, 2)]]
    body, _ = render(tr("de", "choose_opponents", game="Schwimmen"), rows)
    assert body.split("\n\n")[-1].splitlines() == ["1. 1 CPU-Gegner", "2. 2 CPU-Gegner"]


def test_a_lobby_keeps_its_numbers_when_options_change() -> None:
    """A choice's number is its place in the rows; a lobby's rows are the same whatever its
    options, CPU seats, clock or currency show (only the labels change)."""
    now = datetime(2020, 1, 7, tzinfo=UTC)
    for game, options in (("runfast", [{}, {"cpus": 2, "cpu_level": "hard",
                                            "engine": {"hands": 2}}]),
                          ("schwimmen", [{}, {"cpus": 3, "currency": "euro"}]),
                          ("climbing", [{}, {"cpus": 1, "engine": {"straight_step": 2}}])):
        numbers = []
        for opts in options:
            table = GameTable(id=4, chat_id=1, game=game, options=opts, seed=1, version=3,
                              turn_timeout=60 if opts else 0, created_at=now, updated_at=now)
            view = views._lobby(table, [Seat(table_id=4, seat_no=0, name="Alma",
                                             player_id=1)], "de")
            body, _ = render(view.text, view.rows)
            shown = numbered(choices(view.rows))
            numbers.append({data.rsplit(":", 1)[-1]: i for i, (_, data) in enumerate(shown, 1)})
            assert body.split("\n\n")[-1].count("\n") + 1 == len(shown)
        assert numbers[0] == numbers[1], game


def test_the_help_says_how_to_type() -> None:
    how = tr("en", "mx.how")
    for part in ("number", "7 8 9", "7s 7h", "Herz", "!join", "reaction"):
        assert part in how, part
    body, html = render(how, [])
    assert html.startswith("<b>How to play here:</b><br>")
