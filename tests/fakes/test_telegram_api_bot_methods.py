"""Tests for the fake Telegram Bot API, driven by real python-telegram-bot objects: the Bot API
methods called through PTB's ``Bot`` (messages, edits, HTML, errors, commands, callbacks).
"""

from __future__ import annotations

import datetime as dtm

import pytest
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeChat,
)
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter

from tests.fakes.ptb_helpers import keyboard, run
from tests.fakes.telegram_api import NOT_MODIFIED

pytestmark = [
    pytest.mark.timeout(30),
    # PTB 22 warns whenever a RetryAfter is built (retry_after becomes a timedelta later)
    pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning"),
]


# --------------------------------------------------------------------------- Bot API via PTB


def test_get_me(fake):
    async def body(bot: Bot):
        return await bot.get_me()

    me = run(body, fake)
    assert me.id == 123
    assert me.is_bot
    assert me.first_name == "Stammtisch"
    assert me.username == "stammtisch_test_bot"
    assert me.can_join_groups is True
    assert fake.calls("getMe")[0]["response"]["result"]["id"] == 123


def test_send_message_with_keyboard_is_stored(fake):
    async def body(bot: Bot):
        return await bot.send_message(42, "Wer spielt mit?", reply_markup=keyboard("join", "leave"))

    msg = run(body, fake)
    assert msg.message_id == 1
    assert msg.chat.id == 42 and msg.chat.type == "private"
    assert msg.from_user.id == 123 and msg.from_user.is_bot
    assert msg.reply_markup == keyboard("join", "leave")

    stored = fake.message(42, 1)
    assert stored["text"] == "Wer spielt mit?"
    assert stored["reply_markup"] == keyboard("join", "leave").to_dict()
    assert stored["deleted"] is False and stored["edit_count"] == 0

    call = fake.calls("sendMessage")[-1]
    # PTB sends form data with JSON-encoded nested values; the fake decodes them
    assert call["encoding"] == "form"
    assert call["params"]["chat_id"] == 42
    assert call["params"]["reply_markup"] == keyboard("join", "leave").to_dict()


def test_message_ids_increase_per_chat_and_groups(fake):
    async def body(bot: Bot):
        a = await bot.send_message(42, "a")
        b = await bot.send_message(42, "b")
        g = await bot.send_message(-1001234567890, "g")
        h = await bot.send_message(-77, "h")
        return a, b, g, h

    a, b, g, h = run(body, fake)
    assert (a.message_id, b.message_id, g.message_id) == (1, 2, 1)
    assert g.chat.type == "supergroup"
    assert h.chat.type == "group" and h.chat.title
    assert [m["text"] for m in fake.messages(42)] == ["a", "b"]


def test_edit_in_place_and_not_modified(fake):
    async def body(bot: Bot):
        msg = await bot.send_message(42, "Runde 1", reply_markup=keyboard("go"))
        edited = await bot.edit_message_text(
            "Runde 2", chat_id=42, message_id=msg.message_id, reply_markup=keyboard("go")
        )
        with pytest.raises(BadRequest) as not_modified:
            await bot.edit_message_text(
                "Runde 2", chat_id=42, message_id=msg.message_id, reply_markup=keyboard("go")
            )
        markup_only = await bot.edit_message_reply_markup(
            chat_id=42, message_id=msg.message_id, reply_markup=keyboard("stop")
        )
        with pytest.raises(BadRequest, match="(?i)message is not modified"):
            await bot.edit_message_reply_markup(
                chat_id=42, message_id=msg.message_id, reply_markup=keyboard("stop")
            )
        # editMessageText without reply_markup removes the inline keyboard (like Telegram)
        plain = await bot.edit_message_text("Ende", chat_id=42, message_id=msg.message_id)
        return msg, edited, not_modified.value, markup_only, plain

    msg, edited, exc, markup_only, plain = run(body, fake)
    assert edited.message_id == msg.message_id and edited.text == "Runde 2"
    assert edited.edit_date is not None
    assert str(exc).lower() == NOT_MODIFIED.removeprefix("Bad Request: ").lower()
    assert markup_only.reply_markup == keyboard("stop") and markup_only.text == "Runde 2"
    assert plain.reply_markup is None

    stored = fake.message(42, msg.message_id)
    assert stored["text"] == "Ende" and stored["reply_markup"] is None
    assert stored["edit_count"] == 3
    assert [h["text"] for h in stored["history"]] == ["Runde 1", "Runde 2", "Runde 2"]
    assert len(fake.messages(42)) == 1
    failed = fake.calls("editMessageText")[1]
    assert failed["status"] == 400 and failed["response"]["description"] == NOT_MODIFIED


def test_edit_and_delete_unknown_messages(fake):
    async def body(bot: Bot):
        with pytest.raises(BadRequest, match="(?i)message to edit not found"):
            await bot.edit_message_text("x", chat_id=42, message_id=99)
        msg = await bot.send_message(42, "weg damit")
        assert await bot.delete_message(42, msg.message_id) is True
        with pytest.raises(BadRequest, match="(?i)message to delete not found"):
            await bot.delete_message(42, msg.message_id)
        with pytest.raises(BadRequest, match="(?i)message to edit not found"):
            await bot.edit_message_text("y", chat_id=42, message_id=msg.message_id)

    run(body, fake)
    assert fake.message(42, 1)["deleted"] is True
    assert fake.last_message(42) is None


def test_html_parse_mode_entities_and_errors(fake):
    async def body(bot: Bot):
        ok = await bot.send_message(42, "<b>Karo</b> &amp; <i>Herz</i> ♥", parse_mode="HTML")
        with pytest.raises(BadRequest, match="(?i)can't parse entities: unsupported start tag"):
            await bot.send_message(42, "Spieler <Max> gewinnt", parse_mode="HTML")
        with pytest.raises(BadRequest, match="(?i)message text is empty"):
            await bot.send_message(42, "<b></b>", parse_mode="HTML")
        return ok

    ok = run(body, fake)
    assert ok.text == "Karo & Herz ♥"
    assert [(e.type, e.offset, e.length) for e in ok.entities] == [("bold", 0, 4), ("italic", 7, 4)]
    assert len(fake.messages(42)) == 1


def test_forced_429_is_retry_after_without_side_effect(fake):
    fake.fail("sendMessage", 1, "429", retry_after=1)

    async def body(bot: Bot):
        with pytest.raises(RetryAfter) as info:
            await bot.send_message(42, "zu schnell")
        assert fake.messages(42) == []
        again = await bot.send_message(42, "jetzt")
        return info.value, again

    exc, again = run(body, fake)
    assert exc.retry_after in (1, dtm.timedelta(seconds=1))
    assert again.message_id == 1  # the failed call did not consume a message id
    failed = fake.calls("sendMessage")[0]
    assert failed["status"] == 429
    assert failed["response"] == {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests: retry after 1",
        "parameters": {"retry_after": 1},
    }


@pytest.mark.parametrize("kind", ["500", "502", "disconnect"])
def test_forced_server_errors_are_network_errors(fake, kind):
    async def body(bot: Bot):
        fake.fail("*", 1, kind)  # after Bot.initialize() (getMe)
        with pytest.raises(NetworkError) as info:
            await bot.send_message(42, "hallo")
        return info.value

    exc = run(body, fake)
    assert not isinstance(exc, BadRequest | RetryAfter)
    assert fake.messages(42) == []
    if kind != "disconnect":
        call = fake.calls("sendMessage")[0]
        assert call["status"] == int(kind)
        assert call["response"]["error_code"] == int(kind)


def test_forbidden_until_user_starts_the_bot(fake):
    fake.forbid(77, "not_started")

    async def body(bot: Bot):
        with pytest.raises(Forbidden, match="bot can't initiate conversation with a user"):
            await bot.send_message(77, "Hallo?")
        fake.send_text(77, 77, "/start")  # the user writes to the bot → allowed from now on
        return await bot.send_message(77, "Servus!")

    msg = run(body, fake)
    assert msg.message_id == 2  # message 1 is the user's /start
    assert [m["text"] for m in fake.messages(77, include_user=True)] == ["/start", "Servus!"]


def test_set_my_commands_with_language_code(fake):
    async def body(bot: Bot):
        await bot.set_my_commands(
            [BotCommand("start", "Tisch eröffnen"), BotCommand("hilfe", "Hilfe")],
            language_code="de",
        )
        await bot.set_my_commands([BotCommand("start", "Open a table")])
        await bot.set_my_commands([BotCommand("skat", "Nur hier")], scope=BotCommandScopeChat(-5))
        de = await bot.get_my_commands(language_code="de")
        en = await bot.get_my_commands()
        with pytest.raises(BadRequest, match="(?i)bot_command_invalid"):
            await bot.set_my_commands([BotCommand("Start!", "kaputt")])
        await bot.delete_my_commands()
        return de, en

    de, en = run(body, fake)
    assert [c.command for c in de] == ["start", "hilfe"]
    assert [c.command for c in en] == ["start"]
    assert fake.commands(language_code="de") == [
        {"command": "start", "description": "Tisch eröffnen"},
        {"command": "hilfe", "description": "Hilfe"},
    ]
    assert fake.commands() == []  # deleted
    assert fake.commands(scope={"type": "chat", "chat_id": -5})[0]["command"] == "skat"
    call = fake.calls("setMyCommands")[0]
    assert call["params"]["language_code"] == "de"
    assert call["params"]["commands"][0] == {"command": "start", "description": "Tisch eröffnen"}


def test_answer_callback_query_and_webhook_info(fake):
    async def body(bot: Bot):
        msg = await bot.send_message(42, "Karte?", reply_markup=keyboard("ass"))
        uid = fake.press(42, 42, msg.message_id, "ass")
        qid = fake.get_update(uid)["callback_query"]["id"]
        assert await bot.answer_callback_query(qid, text="Gespielt")
        with pytest.raises(BadRequest, match="(?i)query is too old"):
            await bot.answer_callback_query(qid)
        with pytest.raises(BadRequest, match="(?i)query is too old"):
            await bot.answer_callback_query("nope")
        await bot.set_webhook("https://example.invalid/hook", secret_token="s3cr3t")
        info = await bot.get_webhook_info()
        await bot.delete_webhook(drop_pending_updates=True)
        return uid, info

    uid, info = run(body, fake)
    assert fake.query_answer(uid) == {"answered": True, "answer": {"text": "Gespielt"}}
    assert info.url == "https://example.invalid/hook" and info.pending_update_count == 1
    assert fake.pending_updates() == []  # dropped by deleteWebhook(drop_pending_updates=True)
    with pytest.raises(ValueError, match="not on the keyboard"):
        fake.press(42, 42, 1, "koenig")
