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
    from chatbot.telegram.app import ANSWER_WINDOW, too_old

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
