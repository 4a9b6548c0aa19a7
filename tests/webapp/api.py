"""The Mini App's API served on loopback for a test (aiohttp's test server and client)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy.engine import Engine

from chatbot.service import ChatRef, Service, Settings, UserRef
from chatbot.webapp.server import mounted
from tests.dealing import deals, to_a_turn

TOKEN = "123456:TEST-token"
Scenario = Callable[[Service, TestClient], Awaitable[None]]


def run_api(engine: Engine, scenario: Scenario) -> None:
    """Run ``scenario(service, client)`` against the API of a service on ``engine``."""
    service = Service(engine, Settings(cpu_delay=0))

    async def main() -> None:
        async with TestClient(TestServer(mounted(service, TOKEN, max_age=3600))) as client:
            await scenario(service, client)

    asyncio.run(main())


async def view_on_turn(client: TestClient, table: int, headers: dict[str, str],
                       view: dict[str, Any]) -> dict[str, Any]:
    """The API's view of ``table`` once it is the person's turn: a round that ended before
    (a 31 dealt, or a CPU first) is followed with "next" through ``/api/move``, as the page
    does (``tests.dealing``)."""
    for _ in deals():
        if view["turn"]["yours"]:
            return view
        assert "next" in [m["code"] for m in view["moves"]], view["moves"]
        view = await (await client.post("/webapp/api/move", headers=headers, json={
            "table": table, "version": view["version"], "code": "next"})).json()
    raise AssertionError("unreachable")


def new_on_turn(service: Service, chat: ChatRef, me: UserRef, spec: str) -> int:
    """``/new spec`` in a private chat, on to the person's turn (``tests.dealing``). Returns
    the table id."""
    assert service.command(chat, me, "new", spec).ok
    table_id = service.unfinished_tables(chat.platform, chat.external_id)[0].id
    assert table_id is not None
    to_a_turn(service, chat, me, table_id)
    return table_id
