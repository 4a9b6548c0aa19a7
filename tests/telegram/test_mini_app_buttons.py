"""Issue 19, item 3, as a player sees it on Telegram (the real bot process against the fake
Bot API): privately the table message carries "🃏 Tisch öffnen" as a ``web_app`` button with
the page for that table; in a group, where ``web_app`` buttons are not allowed, the table
message links to the Mini App directly with the table as start parameter, and each player's
private message opens the page. The chat's own buttons stay. Issue 38: the links name the
table by its token, never by its sequential id."""

from __future__ import annotations

import random
import re

from sqlmodel import Session

from storage.db import make_engine
from storage.models import GameTable

from .harness import WAIT, GroupGame, private_menu_to_table, private_moves

PAGE = "https://cards.example.org/webapp/"


def _opens(msg: dict | None) -> list[dict]:
    """The buttons of a message that open something (web_app or url), as sent."""
    rows = ((msg or {}).get("reply_markup") or {}).get("inline_keyboard") or []
    return [b for row in rows for b in row if "web_app" in b or "url" in b]


def _token(url: str, table_id: int) -> str:
    """The table's token as the bot stored it."""
    engine = make_engine(url)
    try:
        with Session(engine) as session:
            table = session.get(GameTable, table_id)
            assert table is not None and table.token
            return table.token
    finally:
        engine.dispose()


def test_the_table_opens_as_a_mini_app_privately_and_in_groups(fake, start_bot, sqlite_url
                                                               ) -> None:
    start_bot(sqlite_url, WEBAPP_URL=PAGE, WEBAPP_SHORT_NAME="tisch")
    from .harness import greet

    greet(fake, 5151, "Ida")
    table_id, message_id = private_menu_to_table(fake, 5151)
    msg = fake.wait_for(lambda: _opens(fake.message(5151, message_id)) and
                        fake.message(5151, message_id), WAIT, message="the private table")
    token = _token(sqlite_url, table_id)
    assert _opens(msg) == [{"text": "🃏 Tisch öffnen", "web_app": {"url": f"{PAGE}?t={token}"}}]
    assert private_moves(fake, 5151, table_id, message_id), "the chat's own buttons stay"
    assert _opens(fake.message(5151, message_id)) == _opens(msg)

    game = GroupGame(fake, -5200, [5201, 5202], {5201: "Ada", 5202: "Ben"},
                     random.Random(1))
    game.hello()
    game.open()
    table = fake.wait_for(lambda: _opens(game.table_message()) and game.table_message(),
                          WAIT, message="the group table with its link")
    (link,) = _opens(table)
    assert link["text"] == "🃏 Tisch öffnen" and "web_app" not in link
    token = _token(sqlite_url, game.table_id)
    assert re.fullmatch(rf"https://t\.me/[A-Za-z0-9_]+/tisch\?startapp=t{re.escape(token)}",
                        link["url"]), link
    assert len(f"t{token}") <= 64 and re.fullmatch(r"[A-Za-z0-9_-]+", token)
    for user in game.users:
        hand = fake.wait_for(lambda u=user: _opens(game.hand_message(u)) and
                             game.hand_message(u), WAIT, message="a private view")
        assert _opens(hand) == [{"text": "🃏 Tisch öffnen",
                                 "web_app": {"url": f"{PAGE}?t={token}"}}]
