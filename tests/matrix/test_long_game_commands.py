"""Matrix speaks the long games' commands as typed (issue 37): ``!spiele`` / ``!games`` for the
person's running tables, ``!erinnerungen`` / ``!reminders`` for the reminder settings, and the
help text's ``/games`` shown as ``!games`` (the same service commands as Telegram's)."""

from __future__ import annotations

from chatbot.matrix.inputs import Intent, parse
from chatbot.matrix.render import bang


def test_long_game_commands_by_their_german_and_english_words() -> None:
    for word in ("!spiele", "!games", "!tische"):
        assert parse(word) == Intent("command", "games")
    for word in ("!erinnerungen", "!reminders", "!erinnerung"):
        assert parse(word) == Intent("command", "reminders")
    assert parse("!neu schwimmen clock=12h") == Intent("command", "new", "schwimmen clock=12h")


def test_the_help_texts_commands_read_as_bang_commands() -> None:
    assert bang("/games lists your tables, /reminders sets them") == \
        "!games lists your tables, !reminders sets them"
