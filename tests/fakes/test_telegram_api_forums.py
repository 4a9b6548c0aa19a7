"""Tests for the fake Bot API's forum supergroups, driven by python-telegram-bot: topics made
by the control API and by the bot, ``message_thread_id`` on updates, sent messages and what a
press carries, and the refusals of closed and deleted topics and of reply-chain threads."""

from __future__ import annotations

import asyncio

import pytest
from telegram import Bot, Update
from telegram.error import BadRequest

from tests.fakes.ptb_helpers import TOKEN, keyboard, make_bot, run
from tests.fakes.telegram_api import FakeBotApiProcess, RemoteFakeBotApi

pytestmark = pytest.mark.timeout(30)
FORUM = -1001000001234


def test_a_topic_message_carries_its_thread_and_answers_land_there(fake):
    fake.make_forum(FORUM, "Stammtisch-Forum")
    topic = fake.create_topic(FORUM, "Schwimmen", user_id=7)
    uid = fake.send_text(FORUM, 7, "/new", topic=topic)
    update = Update.de_json(fake.get_update(uid), None)
    message = update.message
    assert message.chat.is_forum is True
    assert message.is_topic_message is True and message.message_thread_id == topic
    assert message.reply_to_message.forum_topic_created.name == "Schwimmen"

    async def body(bot: Bot):
        return await bot.send_message(FORUM, "Tisch", message_thread_id=topic,
                                      reply_markup=keyboard("join"))

    sent = run(body, fake)
    assert sent.message_thread_id == topic and sent.is_topic_message is True
    assert fake.message(FORUM, sent.message_id)["message_thread_id"] == topic
    # a press on it carries the topic too
    pressed = Update.de_json(fake.get_update(fake.press(FORUM, 8, sent.message_id, "join")),
                             None)
    assert pressed.callback_query.message.message_thread_id == topic
    assert pressed.callback_query.message.is_topic_message is True


def test_the_general_topic_has_no_thread(fake):
    fake.make_forum(FORUM)
    update = Update.de_json(fake.get_update(fake.send_text(FORUM, 7, "/games")), None)
    assert update.message.chat.is_forum is True
    assert update.message.message_thread_id is None and not update.message.is_topic_message

    async def body(bot: Bot):
        return await bot.send_message(FORUM, "hier")

    assert run(body, fake).message_thread_id is None


def test_closed_deleted_and_unknown_topics_refuse_messages(fake):
    fake.make_forum(FORUM)
    closed, deleted = fake.create_topic(FORUM, "a", 7), fake.create_topic(FORUM, "b", 7)
    fake.close_topic(FORUM, closed)
    fake.delete_topic(FORUM, deleted)

    async def body(bot: Bot):
        errors = []
        for thread in (closed, deleted, 999):
            try:
                await bot.send_message(FORUM, "x", message_thread_id=thread)
            except BadRequest as exc:
                errors.append(exc.message)
        return errors

    assert run(body, fake) == ["Topic_closed", "Message thread not found",
                               "Message thread not found"]
    assert [c["response"]["description"] for c in fake.calls("sendMessage")] == [
        "Bad Request: TOPIC_CLOSED", "Bad Request: message thread not found",
        "Bad Request: message thread not found"]
    fake.reopen_topic(FORUM, closed)

    async def again(bot: Bot):
        return await bot.send_message(FORUM, "y", message_thread_id=closed)

    assert run(again, fake).message_thread_id == closed


def test_the_bot_creates_closes_and_deletes_topics(fake):
    fake.make_forum(FORUM)
    fake.set_status(FORUM, fake.bot_id, "administrator", ("can_manage_topics",))

    async def body(bot: Bot):
        topic = await bot.create_forum_topic(FORUM, "Runde 2")
        await bot.send_message(FORUM, "los", message_thread_id=topic.message_thread_id)
        await bot.close_forum_topic(FORUM, topic.message_thread_id)
        with pytest.raises(BadRequest, match="(?i)topic_closed"):
            await bot.send_message(FORUM, "zu", message_thread_id=topic.message_thread_id)
        await bot.delete_forum_topic(FORUM, topic.message_thread_id)
        with pytest.raises(BadRequest, match="thread not found"):
            await bot.send_message(FORUM, "weg", message_thread_id=topic.message_thread_id)
        with pytest.raises(BadRequest, match="not a forum"):
            await bot.create_forum_topic(-1001000005555, "nein")
        return topic

    topic = run(body, fake)
    assert fake.topics(FORUM) == {topic.message_thread_id: {
        "name": "Runde 2", "closed": True, "deleted": True}}
    creation = fake.message(FORUM, topic.message_thread_id)
    assert creation["from_bot"] is True and creation["deleted"] is True


def test_a_reply_chain_in_an_ordinary_supergroup_has_a_thread_that_cannot_be_sent_to(fake):
    group = -1001000007777
    first = fake.get_update(fake.send_text(group, 7, "Wer spielt?"))["message"]["message_id"]
    reply = Update.de_json(fake.get_update(
        fake.send_text(group, 8, "ich", reply_to_message_id=first)), None).message
    assert reply.message_thread_id == first and not reply.is_topic_message
    assert reply.chat.is_forum is not True

    async def body(bot: Bot):
        with pytest.raises(BadRequest, match="thread not found"):
            await bot.send_message(group, "x", message_thread_id=first)
        return await bot.send_message(group, "ohne Thread")

    assert run(body, fake).message_thread_id is None


def test_forums_over_the_control_api():
    with FakeBotApiProcess(token=TOKEN) as proc:
        remote = RemoteFakeBotApi(proc.url)
        remote.make_forum(FORUM, "Forum")
        topic = remote.create_topic(FORUM, "Skat", 7)
        uid = remote.send_text(FORUM, 7, "/new", topic=topic)
        assert remote.get_update(uid)["message"]["message_thread_id"] == topic
        remote.close_topic(FORUM, topic)
        assert remote.topics(FORUM)[topic]["closed"] is True

        async def body():
            async with make_bot(remote) as bot:
                with pytest.raises(BadRequest, match="(?i)topic_closed"):
                    await bot.send_message(FORUM, "x", message_thread_id=topic)
        asyncio.run(body())
        remote.delete_topic(FORUM, topic)
        assert remote.topics(FORUM)[topic]["deleted"] is True


def test_what_a_person_does_to_a_topic_reaches_the_bot_as_service_messages(fake):
    fake.make_forum(FORUM)
    first = fake.state()["next_update_id"]
    topic = fake.create_topic(FORUM, "Montagsrunde", user_id=7)
    fake.edit_topic(FORUM, topic, "Dienstagsrunde", user_id=7)
    fake.close_topic(FORUM, topic, user_id=8)
    fake.reopen_topic(FORUM, topic, user_id=8)
    by_bot = fake.create_topic(FORUM, "vom Bot")  # what the bot does: no update
    fake.close_topic(FORUM, by_bot)
    updates = [Update.de_json(fake.get_update(u), None)
               for u in range(first, fake.state()["next_update_id"])]
    messages = [u.message for u in updates]
    assert [m.message_thread_id for m in messages] == [topic] * 4
    assert all(m.is_topic_message and m.chat.is_forum for m in messages)
    created, edited, closed, reopened = messages
    assert created.forum_topic_created.name == "Montagsrunde"
    assert edited.forum_topic_edited.name == "Dienstagsrunde"
    assert closed.forum_topic_closed is not None and closed.from_user.id == 8
    assert reopened.forum_topic_reopened is not None
    # each answers the topic's creation message, as Telegram's do
    assert closed.reply_to_message.forum_topic_created.name == "Montagsrunde"
    assert fake.topics(FORUM)[topic] == {"name": "Dienstagsrunde", "closed": False,
                                         "deleted": False}
    assert fake.topics(FORUM)[by_bot]["closed"] is True


def test_topic_service_messages_over_the_control_api():
    with FakeBotApiProcess(token=TOKEN) as proc:
        remote = RemoteFakeBotApi(proc.url)
        remote.make_forum(FORUM, "Forum")
        topic = remote.create_topic(FORUM, "Skat", 7)
        remote.edit_topic(FORUM, topic, "Skat am Freitag", user_id=7)
        remote.close_topic(FORUM, topic, user_id=7)
        remote.reopen_topic(FORUM, topic, user_id=7)
        kinds = [next(k for k in ("forum_topic_created", "forum_topic_edited",
                                  "forum_topic_closed", "forum_topic_reopened")
                      if k in u["message"]) for u in remote.pending_updates()]
        assert kinds == ["forum_topic_created", "forum_topic_edited", "forum_topic_closed",
                         "forum_topic_reopened"]
        assert remote.topics(FORUM)[topic]["name"] == "Skat am Freitag"


def test_a_bot_without_the_right_to_manage_topics_creates_none(fake):
    """Telegram lets only an administrator with ``can_manage_topics`` create a topic."""
    fake.make_forum(FORUM)

    async def body(bot: Bot):
        refused = []
        for status, rights in (("member", ()), ("administrator", ("can_pin_messages",))):
            fake.set_status(FORUM, fake.bot_id, status, rights)
            with pytest.raises(BadRequest) as exc:
                await bot.create_forum_topic(FORUM, "Runde 1")
            refused.append(exc.value.message)
        fake.set_status(FORUM, fake.bot_id, "creator")
        return refused, await bot.create_forum_topic(FORUM, "Runde 1")

    refused, topic = run(body, fake)
    assert refused == ["Not enough rights to create a topic"] * 2
    assert [(c["status"], c["response"].get("description")) for c in fake.calls(
        "createForumTopic")][:2] == [(400, "Bad Request: not enough rights to create a topic")] * 2
    assert fake.topics(FORUM) == {topic.message_thread_id: {
        "name": "Runde 1", "closed": False, "deleted": False}}
