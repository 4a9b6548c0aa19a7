"""``!meinedaten`` and ``!vergessen`` typed on a real Synapse (issue 47, item 12, on Matrix):
the file arrives as an ``m.file`` in the person's direct room and its JSON holds their rows;
``!vergessen`` asks, the person types the number of "🗑 Ja, vergiss mich", and afterwards no
row of the bot's whole database holds their Matrix id or their name; the answers in that
same direct room reach them (an SQLite outbox once gave a deleted row's id again, and Synapse
took the new message for an old one with the same transaction id and showed nothing)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from nio import MemoryDownloadResponse, RoomEncryptedFile, RoomMessageFile
from nio.crypto import decrypt_attachment

from tests.telegram.test_privacy import dump

from .harness import TRACEBACK_MARKERS, WAIT, Person, wait_for

pytestmark = pytest.mark.e2e


async def _file_body(person: Person, event: Any) -> bytes:
    download = await person.client.download(mxc=event.url)
    assert isinstance(download, MemoryDownloadResponse), download
    if isinstance(event, RoomEncryptedFile):
        return decrypt_attachment(download.body, event.key["k"], event.hashes["sha256"],
                                  event.iv)
    return download.body


def test_my_data_as_a_file_and_forgetting_typed_in_a_direct_room(matrix: Any) -> None:
    bot = matrix.start_bot()
    uid, pw = matrix.account("zoraida")

    async def scenario() -> None:
        zora = await Person(matrix.synapse.url, uid, pw, matrix.bot_id).start()
        files: list[tuple[str, Any]] = []
        zora.client.add_event_callback(lambda room, event: files.append((room.room_id, event)),
                                       (RoomEncryptedFile, RoomMessageFile))  # type: ignore[arg-type]
        try:
            room = await zora.create_room([matrix.bot_id], direct=True)
            await zora.joined(room, matrix.bot_id)
            await wait_for(lambda: zora.said(room, "Stammtisch"), WAIT, "the greeting")
            await zora.say(room, "!tagesspiel schwimmen")  # a table, a seat, moves
            await wait_for(lambda: zora.newest(room, lambda m: m.body.startswith("🃏")),
                           WAIT, "the table")
            assert uid in dump(matrix.db_url)

            since = zora.count(room)
            await zora.say(room, "!meinedaten")
            await wait_for(lambda: zora.said(room, "📄 Hier ist alles, was ich über dich "
                                             "speichere", since), WAIT, "the note")
            got = await wait_for(lambda: next((e for r, e in files if r == room), None), WAIT,
                                 "the file")
            assert got.source["content"]["msgtype"] == "m.file"
            assert got.source["content"]["body"].startswith("stammtisch-meine-daten-")
            data = json.loads(await _file_body(zora, got))
            assert data["person"]["platform"] == "matrix" and data["person"]["id"] == uid
            assert [s["game"] for s in data["seats"]] == ["schwimmen"]

            since = zora.count(room)
            await zora.say(room, "!vergessen")
            question = await wait_for(lambda: zora.newest(
                room, lambda m: m.body.startswith("⚠️ Soll ich dich vergessen?")), WAIT,
                "the question")
            yes = question.choice("🗑 Ja, vergiss mich")
            assert yes is not None and question.choice("Abbrechen") is not None, question.body
            await zora.say(room, str(yes))
            await wait_for(lambda: zora.said(room, "✅ Erledigt: Ich habe dich vergessen.",
                                             since), WAIT, "forgotten")
            left = [line for line in dump(matrix.db_url).splitlines()
                    if uid in line or "zoraida" in line]
            assert left == [], "\n".join(left)
            since = zora.count(room)  # writing again: a new person, answered as one
            await zora.say(room, "!hilfe")
            await wait_for(lambda: zora.said(room, "Befehle:", since), WAIT, "the help")
            for m in zora.bot_messages(room):
                assert not any(t in m.body for t in TRACEBACK_MARKERS), m.body
        finally:
            await zora.stop()

    asyncio.run(scenario())
    assert bot.alive()
