"""The fake Bot API's polls, driven by python-telegram-bot 22: ``send_poll`` (a non-anonymous
poll), people answering (``answer_poll`` → ``poll_answer`` updates a ``PollAnswerHandler``
receives, the counts kept, an answer taken back), ``stop_poll``, the refusals, and the same
through the remote control API."""

from __future__ import annotations

import asyncio

import pytest
from telegram import Update
from telegram.error import BadRequest
from telegram.ext import Application, ContextTypes, PollAnswerHandler

from tests.fakes.ptb_helpers import TOKEN, run
from tests.fakes.telegram_api import RemoteFakeBotApi

pytestmark = pytest.mark.timeout(30)
OPTIONS = ["Bin dabei", "Vielleicht", "Kann nicht"]


def test_a_poll_answered_through_an_application(fake):
    heard: list[tuple[str, int, tuple[int, ...]]] = []

    async def on_answer(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        answer = update.poll_answer
        heard.append((answer.poll_id, answer.user.id, tuple(answer.option_ids)))

    async def main():
        app = (Application.builder().token(TOKEN).base_url(fake.base_url)
               .base_file_url(fake.base_file_url).build())
        app.add_handler(PollAnswerHandler(on_answer))
        async with app:
            await app.start()
            await app.updater.start_polling(poll_interval=0, timeout=1)
            try:
                message = await app.bot.send_poll(-700, "Stammtisch Freitag 20:00?", OPTIONS,
                                                  is_anonymous=False)
                poll_id = message.poll.id
                fake.answer_poll(1, poll_id, [0], user_first_name="Alma")
                fake.answer_poll(2, poll_id, [1], user_first_name="Bruno")
                fake.answer_poll(2, poll_id, [0], user_first_name="Bruno")  # changed mind
                fake.answer_poll(3, poll_id, [2], user_first_name="Cem")
                fake.answer_poll(3, poll_id, [], user_first_name="Cem")  # took it back
                await fake.async_wait_for(lambda: len(heard) == 5, timeout=5)
                stopped = await app.bot.stop_poll(-700, message.message_id)
            finally:
                await app.updater.stop()
                await app.stop()
        return message, poll_id, stopped

    message, poll_id, stopped = asyncio.run(main())
    assert message.poll.question == "Stammtisch Freitag 20:00?"
    assert [o.text for o in message.poll.options] == OPTIONS
    assert message.poll.is_anonymous is False
    assert heard == [(poll_id, 1, (0,)), (poll_id, 2, (1,)), (poll_id, 2, (0,)),
                     (poll_id, 3, (2,)), (poll_id, 3, ())]
    assert stopped.is_closed and [o.voter_count for o in stopped.options] == [2, 0, 0]
    assert stopped.total_voter_count == 2
    assert fake.poll(poll_id)["message_id"] == message.message_id
    with pytest.raises(ValueError, match="closed"):
        fake.answer_poll(4, poll_id, [0])
    assert fake.pending_updates() == []


def test_poll_refusals_and_an_anonymous_poll(fake):
    async def calls(bot):
        with pytest.raises(BadRequest, match="at least 2 option"):
            await bot.send_poll(-701, "Wer?", ["Ich"])
        with pytest.raises(BadRequest, match="more than 10 options"):
            await bot.send_poll(-701, "Wer?", [str(i) for i in range(11)])
        text = await bot.send_message(-701, "Servus")
        message = await bot.send_poll(-701, "Wer?", ["Ich", "Du"])  # anonymous by default
        with pytest.raises(BadRequest, match="poll to stop not found"):
            await bot.stop_poll(-701, text.message_id)  # (no poll)
        with pytest.raises(BadRequest, match="to stop not found"):
            await bot.stop_poll(-701, 99)
        await bot.stop_poll(-701, message.message_id)
        with pytest.raises(BadRequest, match="already been closed"):
            await bot.stop_poll(-701, message.message_id)
        return message

    message = run(calls, fake)
    with pytest.raises(ValueError, match="closed"):
        fake.answer_poll(1, message.poll.id, [0])
    anonymous = run(lambda bot: bot.send_poll(-701, "Noch wer?", ["Ja", "Nein"]), fake)
    assert fake.answer_poll(1, anonymous.poll.id, [1]) == 0  # the bot hears nothing
    assert fake.poll(anonymous.poll.id)["options"][1]["voter_count"] == 1
    with pytest.raises(ValueError, match="not an answer"):
        fake.answer_poll(1, anonymous.poll.id, [0, 1])  # one answer only
    assert fake.pending_updates() == []


def test_polls_through_the_remote_control(fake):
    remote = RemoteFakeBotApi(fake.url)
    message = run(lambda bot: bot.send_poll(-702, "Wer?", ["Ich", "Du"], is_anonymous=False),
                  fake)
    uid = remote.answer_poll(9, message.poll.id, [1], user_first_name="Dora")
    assert fake.get_update(uid)["poll_answer"]["option_ids"] == [1]
    assert remote.poll(message.poll.id)["options"][1]["voter_count"] == 1
    with pytest.raises(RuntimeError):
        remote.answer_poll(9, "nope", [0])
