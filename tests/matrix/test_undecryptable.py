"""Issue 38, item 13: events the bot cannot decrypt are retried for a minute, then the room is
told - once per room and ten minutes, however many there were ("some of your messages"), not
once per event. Real matrix-nio events and client (without a homeserver: nothing decrypts),
the bot's real service on a SQLite file; what it says is read from the outbox."""

from __future__ import annotations

import asyncio
import dataclasses
import time

from nio import AsyncClient, Event, MegolmEvent
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from chatbot.i18n import tr
from chatbot.matrix.app import UNDECRYPTED_KEEP_SECONDS, UNDECRYPTED_TELL_SECONDS, MatrixBot
from chatbot.runtime.config import load
from storage.models import Outbox
from tests.conftest import make_service

BOT = "@stammtisch:localhost"


def encrypted(n: int, sender: str) -> MegolmEvent:
    """A Megolm event of a session the bot has no key for."""
    event = Event.parse_encrypted_event({
        "event_id": f"$undecryptable{n}", "sender": sender, "origin_server_ts": 1_000 + n,
        "type": "m.room.encrypted", "content": {
            "algorithm": "m.megolm.v1.aes-sha2", "ciphertext": "AwgAEnB…", "sender_key": "k",
            "session_id": "no-such-session", "device_id": "PHONE"}})
    assert isinstance(event, MegolmEvent)
    return event


def told(engine: Engine, room: str) -> int:
    text = tr("de", "mx.undecryptable")
    with Session(engine) as session:
        return len(session.exec(select(Outbox).where(
            Outbox.chat_external_id == room, Outbox.text == text)).all())


def test_one_notice_per_room_and_window_for_many_undecryptable_events(
        sqlite_engine: Engine) -> None:
    cfg = dataclasses.replace(load(None), matrix_homeserver="http://127.0.0.1:9",
                              matrix_access_token="token", matrix_encryption=False)
    bot = MatrixBot(cfg, make_service(sqlite_engine))

    async def scenario() -> None:
        bot.client = AsyncClient("http://127.0.0.1:9", BOT)
        bot.user_id = BOT
        try:
            start = time.monotonic()
            for n in range(25):
                assert await bot._on_event("!busy:localhost", encrypted(n, "@ann:localhost")) \
                    is False
            await bot._on_event("!other:localhost", encrypted(99, "@ben:localhost"))
            assert len(bot.undecrypted) == 26
            await bot._retry_undecrypted(start + 1)  # (still retried)
            assert told(sqlite_engine, "!busy:localhost") == 0 and len(bot.undecrypted) == 26
            later = start + UNDECRYPTED_KEEP_SECONDS + 1
            await bot._retry_undecrypted(later)
            assert told(sqlite_engine, "!busy:localhost") == 1
            assert told(sqlite_engine, "!other:localhost") == 1
            assert not bot.undecrypted

            # more of them within the window: no second notice
            for n in range(25, 50):
                await bot._on_event("!busy:localhost", encrypted(n, "@ann:localhost"))
            await bot._retry_undecrypted(time.monotonic() + UNDECRYPTED_KEEP_SECONDS + 1)
            assert told(sqlite_engine, "!busy:localhost") == 1 and not bot.undecrypted

            # after the window: told again, once
            for n in range(50, 60):
                await bot._on_event("!busy:localhost", encrypted(n, "@ann:localhost"))
            await bot._retry_undecrypted(later + UNDECRYPTED_TELL_SECONDS + 1)
            assert told(sqlite_engine, "!busy:localhost") == 2
        finally:
            await bot.client.close()

    asyncio.run(scenario())
