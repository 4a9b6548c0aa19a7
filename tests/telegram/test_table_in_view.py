"""Issue 17, item 11: the group table stays in sight (pinned while its game runs where the bot
may pin, else posted anew once it has scrolled away) and a turn reminder goes once the turn
is played."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from tests.fakes.telegram_api import FakeBotApi

from .harness import WAIT, BotProcess, GroupGame, peek, peek_all

pytestmark = pytest.mark.e2e
NAMES = {601: "Alma", 602: "Bruno"}


def _game(fake: FakeBotApi, group: int) -> GroupGame:
    game = GroupGame(fake, group, list(NAMES), NAMES, random.Random(5))
    game.hello()
    return game


def _admin(fake: FakeBotApi) -> None:
    """The bot is an administrator of every group that may pin messages."""
    plain = fake._api_getChatMember

    def member(p: dict) -> dict:
        found = plain(p)
        if int(p["user_id"]) == fake.bot_id:
            rights = ("can_be_edited", "can_manage_chat", "can_delete_messages",
                      "can_manage_video_chats", "can_restrict_members", "can_promote_members",
                      "can_change_info", "can_invite_users", "can_post_stories",
                      "can_edit_stories", "can_delete_stories", "can_pin_messages")
            found = {**found, "status": "administrator", "is_anonymous": False,
                     **dict.fromkeys(rights, True)}
        return found

    fake._api_getChatMember = member  # type: ignore[method-assign]


def test_table_pinned_while_the_game_runs_and_unpinned_after(
        fake: FakeBotApi, sqlite_url: str, start_bot: Callable[..., BotProcess]) -> None:
    _admin(fake)
    start_bot(sqlite_url, TURN_TIMEOUT=120)
    game = _game(fake, -6101)
    game.open()
    pin = fake.wait_for_call("pinChatMessage", timeout=WAIT)
    assert int(pin["params"]["chat_id"]) == game.group
    assert int(pin["params"]["message_id"]) == game.table_msg
    assert str(pin["params"].get("disable_notification")).lower() == "true"
    game.play_to_end(timeout=240)
    unpin = fake.wait_for_call("unpinChatMessage", timeout=WAIT)
    assert unpin["params"]["message_id"] == pin["params"]["message_id"]
    # the finished table ("play again") is at the bottom, however many messages came after it
    fake.wait_for(lambda: peek_all(fake, game.group)[-1]["message_id"] == game.table_msg,
                  WAIT, message="the final table at the bottom")
    assert len(fake.calls("pinChatMessage")) == 1  # asked once, kept by every later view
    assert len([c for c in fake.calls("getChatMember")
                if int(c["params"]["user_id"]) == fake.bot_id]) == 1


def test_table_posted_anew_once_scrolled_away_where_the_bot_may_not_pin(
        fake: FakeBotApi, sqlite_url: str, start_bot: Callable[..., BotProcess]) -> None:
    start_bot(sqlite_url, TURN_TIMEOUT=120)  # the fake's bot is a plain member: no pins
    game = _game(fake, -6102)
    game.open()
    first = game.table_msg
    fake.wait_for(lambda: game.on_turn(), WAIT, message="somebody on turn")
    for _ in range(6):  # the rules asked for again and again: the table scrolls up
        fake.send_text(game.group, 601, "/rules", user_first_name="Alma")
    fake.wait_for(lambda: sum(1 for m in peek_all(fake, game.group)
                              if m["message_id"] > first) >= 6, WAIT, message="the answers")
    assert not fake.calls("pinChatMessage")
    assert game.step()  # a move: the table's next view goes to the bottom
    fake.wait_for(lambda: (peek(fake, game.group, first) or {}).get("deleted"), WAIT,
                  message="the old table message deleted")
    table = game.table_message()
    assert table["message_id"] > first and not table["deleted"]
    assert peek_all(fake, game.group)[-1]["message_id"] == table["message_id"]
    game.play_to_end(timeout=240)


def test_reminder_deleted_once_the_turn_is_played(
        fake: FakeBotApi, sqlite_url: str, start_bot: Callable[..., BotProcess]) -> None:
    start_bot(sqlite_url, TURN_TIMEOUT=3)
    game = _game(fake, -6103)
    game.open()
    fake.wait_for(lambda: game.on_turn(), WAIT, message="somebody on turn")
    reminder = fake.wait_for(lambda: next((m for m in peek_all(fake, game.group)
                                           if "du bist am Zug" in (m["text"] or "")), None),
                             WAIT, message="the reminder")
    assert game.step()  # the turn played (before the clock runs out)
    fake.wait_for(lambda: (peek(fake, game.group, reminder["message_id"]) or {}).get("deleted"),
                  WAIT, message="the reminder deleted")
