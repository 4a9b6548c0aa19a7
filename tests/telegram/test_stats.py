"""``/stats`` and ``/top`` through the fake Bot API, as the players read them: a game played
with the buttons, more results stored in the bot's database, German and English."""

from __future__ import annotations

import random
from collections.abc import Callable

from sqlalchemy import select
from sqlmodel import Session

from storage.db import make_engine
from storage.models import Result
from tests.chatbot.test_stats import expected_ratings, store_result
from tests.fakes.telegram_api import FakeBotApi
from tests.telegram.harness import WAIT, BotProcess, greet, play_private, private_menu_to_table

ANNA, BEN, GROUP = 4101, 4102, -1004100


def _answer(fake: FakeBotApi, chat: int, user: int, text: str, head: str,
            language_code: str = "de") -> str:
    """Send a command; the bot's new message that starts with ``head``."""
    seen = {m["message_id"] for m in fake.messages(chat)}
    fake.send_text(chat, user, text, language_code=language_code, chat_title="Stammtisch")
    msg = fake.wait_for(lambda: next((m for m in fake.messages(chat, include_deleted=False)
                                      if m["message_id"] not in seen
                                      and (m["text"] or "").startswith(head)), None),
                        WAIT, message=f"the answer to {text}")
    return msg["text"]


def test_stats_and_top_as_the_players_read_them(
        fake: FakeBotApi, start_bot: Callable[..., BotProcess], db_url: str) -> None:
    """On SQLite and on PostgreSQL (``db_url``)."""
    start_bot(db_url)
    greet(fake, ANNA, "Anna")
    fake.send_text(BEN, BEN, "/start", user_first_name="Ben", language_code="en")
    fake.wait_for(lambda: fake.messages(BEN), WAIT, message="Ben's greeting")
    # A game played with the buttons: Schwimmen against one Anfänger.
    table_id, message_id = private_menu_to_table(fake, ANNA, opponents=1, level="anfaenger")
    play_private(fake, ANNA, table_id, message_id, random.Random(18))
    engine = make_engine(db_url)
    try:
        with Session(engine) as session:
            played = session.execute(select(Result.winners).where(
                Result.table_id == table_id)).scalar_one()
        won = int(0 in played)  # Anna sits first
        # More results: two group games of Anna and Ben, a private one of Ben.
        group = (str(GROUP), "group")
        history = [
            ((str(ANNA), "private"), "schwimmen", [("p", str(ANNA)), ("cpu", "anfaenger")],
             [0] if won else [1]),
            (group, "runfast", [("p", str(ANNA)), ("p", str(BEN)), ("cpu", "normal")], [0]),
            (group, "runfast", [("p", str(BEN)), ("p", str(ANNA)), ("cpu", "normal")], [1]),
            ((str(BEN), "private"), "scat", [("p", str(BEN)), ("cpu", "experte")], [0]),
        ]
        for chat, game, seats, winners in history[1:]:
            store_result(engine, chat, game, seats, winners, platform="telegram")
    finally:
        engine.dispose()
    r = expected_ratings(history)

    wins = 2 + won
    assert _answer(fake, ANNA, ANNA, "/stats", "📊") == "\n".join([
        "📊 Statistik von Anna",
        f"Gesamt: 3 Spiele, {wins} Siege ({round(100 * wins / 3)} %)",
        f"Längste Siegesserie: {wins} Siege",
        "",
        "Nach Spiel:",
        f"• Schwimmen: 1 Spiel, {won} {'Sieg' if won else 'Siege'} ({100 * won} %) · "
        f"Wertung {r[('schwimmen', str(ANNA))]}",
        f"• Run Fast (Pao De Kuai): 2 Spiele, 2 Siege (100 %) · "
        f"Wertung {r[('runfast', str(ANNA))]}",
        "",
        "Privat gegen CPU:",
        f"• Anfänger: 1 Spiel, {won} {'Sieg' if won else 'Siege'} ({100 * won} %)",
        "",
        "Wertung: 1000 zum Start, mehr mit Siegen gegen Stärkere. /stats hide nimmt dich aus "
        "den Bestenlisten.",
    ])
    assert _answer(fake, BEN, BEN, "/stats", "📊", language_code="en") == "\n".join([
        "📊 Stats of Ben",
        "Overall: 3 games, 1 win (33%)",
        "Longest winning streak: 1 win",
        "",
        "By game:",
        f"• Scat (31): 1 game, 1 win (100%) · rating {r[('scat', str(BEN))]}",
        f"• Run Fast (Pao De Kuai): 2 games, 0 wins (0%) · rating {r[('runfast', str(BEN))]}",
        "",
        "Privately against the CPU:",
        "• Expert: 1 game, 1 win (100%)",
        "",
        "Rating: 1000 to start, more for wins against stronger players. /stats hide keeps "
        "you off the leaderboards.",
    ])
    assert r[("runfast", str(ANNA))] > r[("runfast", str(BEN))]
    assert _answer(fake, GROUP, BEN, "/top", "🏆") == "\n".join([
        "🏆 Bestenliste dieser Gruppe", "", "Run Fast (Pao De Kuai)",
        f"1. Anna · Wertung {r[('runfast', str(ANNA))]} · 2 Siege in 2 Spielen",
        f"2. Ben · Wertung {r[('runfast', str(BEN))]} · 0 Siege in 2 Spielen",
    ])
    # Anna would rather not be listed: the leaderboard leaves her out.
    assert _answer(fake, ANNA, ANNA, "/stats hide", "Du erscheinst") == (
        "Du erscheinst in keiner Bestenliste mehr. /stats show nimmt dich wieder auf.")
    assert _answer(fake, GROUP, BEN, "/top@stammtisch_test_bot runfast", "🏆") == "\n".join([
        "🏆 Bestenliste dieser Gruppe", "", "Run Fast (Pao De Kuai)",
        f"1. Ben · Wertung {r[('runfast', str(BEN))]} · 0 Siege in 2 Spielen",
    ])
    assert _answer(fake, BEN, BEN, "/top", "Leaderboards", language_code="en") == (
        "Leaderboards are for groups: send /top there. Your own numbers: /stats.")
