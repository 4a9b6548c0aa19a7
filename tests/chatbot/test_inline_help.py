"""Issue 50 item 5 on the service (SQLite and PostgreSQL): ``/help`` tells people how to play
anywhere where inline mode is on (``@bot`` in any chat), and, where it is off, tells the
operator in a private chat how to turn it on (BotFather's /setinline) - not a group, where
nobody could; a platform without inline mode (Matrix) says neither."""

from __future__ import annotations

from chatbot.service import ChatRef, UserRef
from tests.chatbot.service.harness import Harness, P, private

ANNA = UserRef("5301", "Anna", language="de")
BEN = UserRef("5302", "Ben", language="en")
GROUP = ChatRef(P, "-5300", "group", "Stammtisch")


def _help(h: Harness, chat: ChatRef, user: UserRef) -> str:
    h.command(chat, user, "help")
    return h.messages(chat)[-1].text


def test_help_says_how_to_play_anywhere_where_inline_mode_is_on(db_engine, clock) -> None:
    h = Harness(db_engine, clock, inline_mode=True, bot_name="stammtisch_bot")
    german = _help(h, private(ANNA), ANNA)
    assert german.endswith("🃏 Überall spielen: tipp @stammtisch_bot in irgendeinem Chat – "
                           "privat mit jemandem, in einer Gruppe ohne den Bot – und wähl ein "
                           "Spiel.")
    assert "/setinline" not in german
    assert _help(h, private(BEN), BEN).endswith(
        "🃏 Play anywhere: type @stammtisch_bot in any chat – a private chat with a friend, "
        "a group without the bot – and pick a game.")
    assert "@stammtisch_bot" in _help(h, GROUP, ANNA)


def test_help_tells_the_operator_privately_how_to_turn_inline_mode_on_where_it_is_off(
        db_engine, clock) -> None:
    h = Harness(db_engine, clock, inline_mode=False, bot_name="stammtisch_bot")
    assert _help(h, private(ANNA), ANNA).endswith(
        "Der Inline-Modus ist für diesen Bot aus: Wer ihn betreibt, schaltet ihn bei "
        "@BotFather ein (/setinline, und /setinlinefeedback für Züge aus der Liste).")
    group = _help(h, GROUP, ANNA)
    assert "@BotFather" not in group and "Überall spielen" not in group
    matrix = Harness(db_engine, clock)  # (inline mode unknown: a platform without it)
    said = _help(matrix, private(BEN), BEN)
    assert "@BotFather" not in said and "Play anywhere" not in said
