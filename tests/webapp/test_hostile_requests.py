"""Issue 38, items 3–5, through real HTTP on loopback (aiohttp's test server, a real SQLite
file): initData that can't be decoded is 401 without an error in the log, hostile JSON from
a signed-in page is 400 before any database read, and every API answer says
``Cache-Control: no-store`` (a person's hand is in them)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from urllib.parse import quote

import pytest
from aiohttp.test_utils import TestClient

from chatbot.service import ChatRef, Service, UserRef
from chatbot.webapp.initdata import sign

from .api import TOKEN, new_on_turn, run_api

ME = UserRef("42", "Ida")


def _init(user_id: int = 42) -> str:
    return sign({"auth_date": str(int(time.time())),
                 "user": json.dumps({"id": user_id, "first_name": "Ida"})}, TOKEN)


async def _raw_status(client: TestClient, header: bytes) -> int:
    """The status of ``GET /webapp/api/table`` with these bytes as the initData header (no
    client library would send them)."""
    reader, writer = await asyncio.open_connection(client.host, client.port)
    writer.write(b"GET /webapp/api/table HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                 b"X-Telegram-Init-Data: " + header + b"\r\n\r\n")
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    writer.close()
    return status


def test_undecodable_initdata_is_401_without_an_error_in_the_log(
        sqlite_engine, caplog: pytest.LogCaptureFixture) -> None:
    async def scenario(service: Service, client: TestClient) -> None:
        good = _init()
        non_ascii_hash = good.rsplit("hash=", 1)[0] + "hash=%C3%A9"
        for data in (non_ascii_hash, good.rsplit("hash=", 1)[0] + "hash=%FF", "hash=é"):
            resp = await client.get(f"/webapp/api/table?initData={quote(data, safe='')}")
            assert resp.status == 401, data
            resp = await client.get("/webapp/api/table", headers={
                "X-Telegram-Init-Data": data})
            assert resp.status == 401, data
        for header in (b"\xff", b"user=\xc3\x28&hash=\xff\xfe", good.encode() + b"\xff"):
            assert await _raw_status(client, header) == 401, header

    with caplog.at_level(logging.WARNING):
        run_api(sqlite_engine, scenario)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


def test_hostile_json_is_400_before_any_database_read(sqlite_engine) -> None:
    async def scenario(service: Service, client: TestClient) -> None:
        table_id = new_on_turn(service, ChatRef("telegram", "42", "private"), ME,
                               "schwimmen 1 anfänger")
        version = service.table(table_id).version  # type: ignore[union-attr]
        headers = {"X-Telegram-Init-Data": _init(), "Content-Type": "application/json"}
        bodies = ["[" * 100_000, "{" * 50_000, '{"table": Infinity, "version": 1}',
                  '{"table": NaN, "version": 1}', '{"table": 1e300, "version": 1}',
                  f'{{"table": {2**70}, "version": 1}}', f'{{"table": {table_id}, '
                  f'"version": {2**70}, "code": "pass"}}', '{"table": -1, "version": 0}',
                  '{"table": true, "version": 0}', f'{{"table": "{table_id}", "version": 0}}',
                  f'{{"table": {table_id}.0, "version": {version}}}', "\xff\xfe"]
        for path in ("/webapp/api/select", "/webapp/api/move"):
            for body in bodies:
                resp = await client.post(path, data=body.encode("utf-8", "surrogatepass"),
                                         headers=headers)
                assert resp.status == 400, (path, body[:40], resp.status)
        move = {"table": table_id, "version": version, "code": {"not": "text"}}
        resp = await client.post("/webapp/api/move", json=move, headers=headers)
        assert resp.status == 400

    run_api(sqlite_engine, scenario)


def test_every_api_answer_is_no_store(sqlite_engine) -> None:
    async def scenario(service: Service, client: TestClient) -> None:
        table_id = new_on_turn(service, ChatRef("telegram", "42", "private"), ME,
                               "schwimmen 1 anfänger")
        me, other = {"X-Telegram-Init-Data": _init()}, {"X-Telegram-Init-Data": _init(7)}
        version = service.table(table_id).version  # type: ignore[union-attr]
        answers = [
            await client.get("/webapp/api/table", headers=me),  # 200 with the hand
            await client.get(f"/webapp/api/table?t={table_id}", headers=other),  # 403
            await client.get("/webapp/api/table", headers=other),  # 404
            await client.get("/webapp/api/table"),  # 401
            await client.get("/webapp/api/table?t=x", headers=me),  # 400
            await client.post("/webapp/api/select", headers=me, json={
                "table": table_id, "version": version, "cards": []}),
            await client.post("/webapp/api/move", headers=me, json={
                "table": table_id, "version": version, "code": "knock", "key": "k"}),
        ]
        assert [a.status for a in answers] == [200, 403, 404, 401, 400, 200, 200]
        stream = await client.get(f"/webapp/api/events?t={table_id}", headers=me)
        answers.append(stream)
        for answer in answers:
            assert answer.headers.get("Cache-Control") == "no-store", answer.url
        stream.close()
        page = await client.get("/webapp/")
        assert page.headers.get("Cache-Control") == "no-cache"  # (the page itself: revalidated)

    run_api(sqlite_engine, scenario)
