"""Files through the Matrix transport against a real Synapse: ``MatrixTransport.document``
uploads the file and posts an ``m.file`` — encrypted before upload in an encrypted room (the
person's client decrypts the event and the file), plain elsewhere — and the person downloads
the very bytes that were sent."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from nio import MemoryDownloadResponse, RoomEncryptedFile, RoomMessageFile
from nio.crypto import decrypt_attachment

from chatbot.matrix.sender import MatrixTransport
from tests.matrix.bot_process import WAIT, wait_for
from tests.matrix.people import Person

DATA = json.dumps({"person": {"name": "Zoë"}, "moves": list(range(50))},
                  ensure_ascii=False).encode()


def test_a_file_arrives_as_m_file_encrypted_in_an_encrypted_room(matrix: Any,
                                                                  tmp_path: Any) -> None:
    anna_id, anna_pw = matrix.account("anna")

    async def scenario() -> None:
        bot = await Person(matrix.synapse.url, matrix.bot_id, matrix.bot_password, anna_id,
                           store=tmp_path / "bot-store").start()
        anna = await Person(matrix.synapse.url, anna_id, anna_pw, matrix.bot_id,
                            store=tmp_path / "anna-store").start()
        files: list[Any] = []
        anna.client.add_event_callback(lambda room, event: files.append((room.room_id, event)),
                                       (RoomEncryptedFile, RoomMessageFile))  # type: ignore[arg-type]
        transport = MatrixTransport(bot.client, "files")
        try:
            for encrypted in (True, False):
                room = await anna.create_room([matrix.bot_id], direct=True,
                                              encrypted=encrypted)
                await anna.joined(room, matrix.bot_id)
                await wait_for(lambda r=room: r in bot.client.rooms
                               and anna_id in bot.client.rooms[r].users, WAIT, "the bot in")
                event_id = await transport.document(room, "stammtisch-meine-daten.json", DATA)
                got = await wait_for(lambda r=room, e=event_id: next(
                    (ev for rid, ev in files if rid == r and ev.event_id == e), None),
                    WAIT, "the file event")
                content = got.source["content"]
                assert content["msgtype"] == "m.file"
                assert content["body"] == content["filename"] == "stammtisch-meine-daten.json"
                assert content["info"] == {"mimetype": "application/json", "size": len(DATA)}
                assert isinstance(got, RoomEncryptedFile) is encrypted
                assert ("file" in content, "url" in content) == (encrypted, not encrypted)
                download = await anna.client.download(mxc=got.url)
                assert isinstance(download, MemoryDownloadResponse), download
                if encrypted:
                    assert download.body != DATA  # (the homeserver holds only ciphertext)
                    body = decrypt_attachment(download.body, got.key["k"],
                                              got.hashes["sha256"], got.iv)
                else:
                    body = download.body
                assert body == DATA
        finally:
            await asyncio.gather(bot.stop(), anna.stop())

    asyncio.run(scenario())
