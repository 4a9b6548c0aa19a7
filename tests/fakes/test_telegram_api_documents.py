"""``sendDocument`` on the fake Bot API, driven by python-telegram-bot's ``Bot.send_document``:
an upload read back byte for byte, a file sent again by its id, and Telegram's refusals (a chat
the bot may not write to, a file too large or empty, no document, an unknown file id, a caption
too long, a closed topic)."""

from __future__ import annotations

import json

import pytest
from telegram import Bot, InputFile
from telegram.error import BadRequest, Forbidden, TelegramError

from tests.fakes.ptb_helpers import run

pytestmark = pytest.mark.timeout(30)
DATA = json.dumps({"name": "Zoë", "games": [1, 2, 3]}, ensure_ascii=False).encode()


def test_an_upload_arrives_byte_for_byte_and_can_be_sent_again_by_its_id(fake):
    async def body(bot: Bot):
        first = await bot.send_document(42, InputFile(DATA, filename="daten.json"),
                                        caption="Deine Daten")
        again = await bot.send_document(7, first.document.file_id)
        return first, again

    first, again = run(body, fake)
    assert first.document.file_name == "daten.json"
    assert first.document.mime_type == "application/json"
    assert first.document.file_size == len(DATA) and first.caption == "Deine Daten"
    assert again.document.file_id == first.document.file_id
    sent = fake.documents(42)
    assert [(d["file_name"], d["data"], d["caption"]) for d in sent] == [
        ("daten.json", DATA, "Deine Daten")]
    assert fake.documents(7)[0]["data"] == DATA
    assert fake.calls("sendDocument")[0]["encoding"] == "multipart"
    json.dumps(fake.calls("sendDocument"))  # the call records stay JSON (the control API)


def _refused(fake, **kwargs) -> TelegramError:
    async def body(bot: Bot):
        with pytest.raises(TelegramError) as caught:
            await bot.send_document(**kwargs)
        return caught.value

    return run(body, fake)


def test_telegrams_refusals(fake):
    fake.forbid(99, "blocked")
    assert isinstance(_refused(fake, chat_id=99, document=InputFile(DATA, filename="a.json")),
                      Forbidden)
    error = _refused(fake, chat_id=42, document="BQACunknown")
    assert isinstance(error, BadRequest) and "wrong file identifier" in error.message.lower()
    error = _refused(fake, chat_id=42, document=InputFile(b"", filename="empty.json"))
    assert "file must be non-empty" in error.message.lower()
    error = _refused(fake, chat_id=42, document=InputFile(DATA, filename="a.json"),
                     caption="x" * 1025)
    assert "caption is too long" in error.message.lower()
    fake.max_upload = len(DATA) - 1  # (instead of uploading 50 MB)
    error = _refused(fake, chat_id=42, document=InputFile(DATA, filename="a.json"))
    assert "request entity too large" in error.message.lower()
    assert fake.documents(42) == [] and fake.documents(99) == []
    status, body = fake.call_api("sendDocument", {"chat_id": 42})
    assert (status, body["description"]) == (400, "Bad Request: there is no document in the "
                                                  "request")
