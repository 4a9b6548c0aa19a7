"""Small pure parts of the Telegram sender (no processes)."""

from __future__ import annotations

import pytest
from telegram import MessageEntity

from chatbot.telegram.sender import mentions


def test_mentions_become_plain_names_with_link_entities() -> None:
    text, entities = mentions("⏰ [Ivo](tg://user?id=8102), du bist am Zug (noch 4 s).")
    assert text == "⏰ Ivo, du bist am Zug (noch 4 s)."
    assert entities == [MessageEntity(MessageEntity.TEXT_LINK, 2, 3, url="tg://user?id=8102")]


def test_mention_offsets_count_utf16_units() -> None:
    text, entities = mentions("🂠🂠 [Zoë](tg://user?id=1) und [Al](tg://user?id=2)")
    assert text == "🂠🂠 Zoë und Al"
    assert [(e.offset, e.length, e.url) for e in entities or []] == \
        [(5, 3, "tg://user?id=1"), (13, 2, "tg://user?id=2")]


def test_a_reminders_link_to_the_group_table_message_becomes_a_text_link() -> None:
    text, entities = mentions("⏰ Du bist am Zug in „[Stammtisch](https://t.me/c/123/45)“")
    assert text == "⏰ Du bist am Zug in „Stammtisch“"
    assert entities == [MessageEntity(MessageEntity.TEXT_LINK, 21, 10,
                                      url="https://t.me/c/123/45")]


def test_text_without_mentions_is_left_alone() -> None:
    for text in ("Runde 1 vorbei", "[x](https://example.org)", "[](tg://user?id=3)"):
        assert mentions(text) == (text, None)


def test_a_code_block_goes_out_as_a_pre_entity_without_its_fences() -> None:
    """The league's tables are Markdown code blocks in the service's text: Telegram shows
    them monospace (a ``pre`` entity over the block's lines, offsets in UTF-16 units)."""
    text, entities = mentions("🏆 [Ivo](tg://user?id=8)\n```\n 1. Ivo  12\n 2. Al    9\n```\nEnde")
    assert text == "🏆 Ivo\n 1. Ivo  12\n 2. Al    9\nEnde"
    assert entities == [MessageEntity(MessageEntity.TEXT_LINK, 3, 3, url="tg://user?id=8"),
                        MessageEntity(MessageEntity.PRE, 7, 23)]
    assert mentions("a ``` b") == ("a ``` b", None)  # (no block: left alone)


def test_button_data_parts_for_logs_and_routing() -> None:
    """The adapter decodes button data once (``buttons.decode``) and hands the press on: the
    table for logs, the code's head for routing (the old ``_code``/``_table`` helpers)."""
    from chatbot.buttons import BadButton, decode

    press = decode("v1:42:7:swap.7H.AS")
    assert (str(press.table_id), press.code.split(".")[0]) == ("42", "swap")
    for garbage in ("garbage", "v1:zz:1:knock"):
        with pytest.raises(BadButton):
            decode(garbage)
    assert decode("v1:0:0:g.schwimmen.2").code.split(".")[0] == "g"


def test_a_press_is_known_too_old_only_from_what_the_last_run_fetched() -> None:
    """Issue 15, item 2: an update the last run had already fetched more than the answer
    window ago is not answered (Telegram refuses "query is too old"); anything newer is."""
    from chatbot.telegram.updates import ANSWER_WINDOW, too_old

    before = (500, 1000.0)  # the last run fetched update 500 at t=1000
    assert too_old(500, before, 1000.0 + ANSWER_WINDOW + 1)
    assert too_old(17, before, 1000.0 + ANSWER_WINDOW + 1)
    assert not too_old(501, before, 1000.0 + ANSWER_WINDOW + 1)  # unknown: answer it
    assert not too_old(500, before, 1000.0 + ANSWER_WINDOW - 1)  # still in the window
    assert not too_old(500, None, 10**9)  # first run


def test_without_a_configured_secret_every_process_derives_the_same_one() -> None:
    """Issue 16, item 3: the processes behind one webhook URL must accept the same secret;
    unset, it is derived from the token (not guessable without it), one per bot."""
    from chatbot.telegram.webhook import webhook_secret

    a, b = webhook_secret(None, "123:ABC"), webhook_secret(None, "123:ABC")
    assert a == b and len(a) >= 32 and "ABC" not in a
    assert set(a) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
    assert webhook_secret(None, "124:ABD") != a
    assert webhook_secret("configured", "123:ABC") == "configured"


def test_a_topic_that_refuses_a_message_is_told_once_and_not_tried_again() -> None:
    """Forum topics: a view goes to its topic (``message_thread_id``); a closed topic's
    refusal ends its table (told once) and nothing more is sent there for a while."""
    import asyncio

    from chatbot.delivery import Item, Permanent
    from chatbot.telegram.sender import TelegramTransport
    from tests.fakes.ptb_helpers import make_bot
    from tests.fakes.telegram_api import FakeBotApi

    forum = -1001000000999
    told: list[tuple[str, str]] = []

    async def gone(chat: str, thread: str) -> None:
        told.append((chat, thread))

    def item(n: int, thread: str | None) -> Item:
        return Item(id=n, chat=str(forum), slot=None, repost=False, text=f"m{n}", rows=[],
                    message_id=None, unchanged=False, thread=thread)

    async def scenario(fake: FakeBotApi) -> list[str]:
        async with make_bot(fake) as bot:
            transport = TelegramTransport(bot, on_thread_gone=gone)
            transport.begin(item(1, str(topic)))
            sent = [await transport.send(str(forum), "in the topic", [])]
            fake.close_topic(forum, topic)
            errors = []
            for n in (2, 3):
                transport.begin(item(n, str(topic)))
                with pytest.raises(Permanent) as exc:
                    await transport.send(str(forum), f"m{n}", [])
                errors.append(str(exc.value))
            transport.begin(item(4, None))  # (the General topic still takes messages)
            sent.append(await transport.send(str(forum), "general", []))
            return errors + sent

    with FakeBotApi("123:ABC") as fake:
        fake.make_forum(forum)
        topic = fake.create_topic(forum, "Tisch", user_id=5)
        out = asyncio.run(scenario(fake))
        sends = fake.calls("sendMessage")
    assert told == [(str(forum), str(topic))]
    assert "Topic_closed" in out[0] and "closed or deleted" in out[1]
    assert [(c["params"].get("message_thread_id"), c["status"]) for c in sends] == \
        [(topic, 200), (topic, 400), (None, 200)]
