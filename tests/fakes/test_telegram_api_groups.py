"""Tests for the fake Bot API's group people and upgrades, driven by python-telegram-bot:
``getChatMember`` answers the status a test set (and a changed one at once), and a basic group
upgraded to a supergroup sends both service messages in the order asked, refuses the old id
with Telegram's error (``ChatMigrated`` in the library) and takes the new one."""

from __future__ import annotations

import pytest
from telegram import (
    Bot,
    ChatMemberAdministrator,
    ChatMemberMember,
    ChatMemberOwner,
    Update,
)
from telegram.error import ChatMigrated

from tests.fakes.bot_api.groups import MIGRATED
from tests.fakes.ptb_helpers import run

pytestmark = pytest.mark.timeout(30)
GROUP, SUPER = -4711, -1001000004711


def test_get_chat_member_answers_the_status_the_test_set(fake):
    async def status(bot: Bot, user: int):
        return await bot.get_chat_member(GROUP, user)

    assert isinstance(run(lambda b: status(b, 7), fake), ChatMemberMember)
    fake.set_status(GROUP, 7, "administrator")
    fake.set_status(GROUP, 8, "creator")
    assert isinstance(run(lambda b: status(b, 7), fake), ChatMemberAdministrator)
    assert isinstance(run(lambda b: status(b, 8), fake), ChatMemberOwner)
    fake.set_status(GROUP, 7, "member")  # the rights taken away: at once
    assert isinstance(run(lambda b: status(b, 7), fake), ChatMemberMember)
    with pytest.raises(ValueError):
        fake.set_status(GROUP, 7, "emperor")


@pytest.mark.parametrize("first", ["to", "from"])
def test_an_upgraded_group_sends_both_messages_and_refuses_its_old_id(fake, first):
    fake.send_text(GROUP, 7, "hallo", chat_title="Stammtisch")
    fake.set_status(GROUP, 7, "administrator")
    ids = fake.migrate_chat(GROUP, SUPER, 7, first=first)
    updates = [Update.de_json(fake.get_update(uid), None) for uid in ids]
    said = {u.message.chat.id: u.message for u in updates}
    assert said[GROUP].migrate_to_chat_id == SUPER and said[GROUP].chat.type == "group"
    assert said[SUPER].migrate_from_chat_id == GROUP and said[SUPER].chat.type == "supergroup"
    assert said[SUPER].chat.title == "Stammtisch"
    assert updates[0].message.chat.id == (GROUP if first == "to" else SUPER)
    assert fake.migrated() == {GROUP: SUPER}

    async def body(bot: Bot):
        with pytest.raises(ChatMigrated) as refused:
            await bot.send_message(GROUP, "Tisch")
        sent = await bot.send_message(SUPER, "Tisch")
        member = await bot.get_chat_member(SUPER, 7)  # (the statuses came along)
        return refused.value, sent, member

    refused, sent, member = run(body, fake)
    assert refused.new_chat_id == SUPER
    assert sent.chat.id == SUPER and isinstance(member, ChatMemberAdministrator)
    call = fake.calls("sendMessage")[0]
    assert call["status"] == 400 and call["response"]["description"] == MIGRATED
    assert call["response"]["parameters"] == {"migrate_to_chat_id": SUPER}
    again = Update.de_json(fake.get_update(fake.migration_message(SUPER, 7, **{"from": GROUP})),
                           None)
    assert again.message.migrate_from_chat_id == GROUP


def test_an_upgrade_without_messages_only_refuses_the_old_id(fake):
    assert fake.migrate_chat(GROUP, SUPER, 7, notify=False) == []
    assert fake.pending_updates() == []

    async def body(bot: Bot):
        with pytest.raises(ChatMigrated):
            await bot.edit_message_text("x", chat_id=GROUP, message_id=1)

    run(body, fake)
