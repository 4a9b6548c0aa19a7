"""Issue 19, item 2: the page updates by itself — the event stream sends the view at once and
again after every committed change, also when the move was made in the chat, and on
PostgreSQL also when another process made it (NOTIFY in that process's transaction, LISTEN
here). Real HTTP on loopback, real SQLite file and PostgreSQL server, a real second process."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from typing import Any

from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy.engine import Engine

from chatbot.buttons import encode
from chatbot.service import ChatRef, Service, Settings, UserRef
from chatbot.webapp.initdata import sign
from chatbot.webapp.server import HUB, make_app
from engine import GAMES

from .api import new_on_turn

TOKEN = "123456:TEST-token"
ME = UserRef("42", "Ida")
CHAT = ChatRef("telegram", "42", "private")


def _init(user_id: int = 42) -> str:
    return sign({"auth_date": str(int(time.time())),
                 "user": json.dumps({"id": user_id, "first_name": "Ida"})}, TOKEN)


async def _next_view(resp: ClientResponse, timeout: float = 30) -> dict[str, Any]:
    """The next ``view`` event of a stream (comments skipped)."""
    async def read() -> dict[str, Any]:
        event = None
        while True:
            line = (await resp.content.readline()).decode()
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and event == "view":
                return json.loads(line.split(":", 1)[1])
    return await asyncio.wait_for(read(), timeout)


def _a_chat_move(service: Service, table_id: int) -> str:
    """The button data of a legal move of the person, as the chat's keyboard carries it."""
    table = service.table(table_id)
    game = GAMES[table.game]  # type: ignore[union-attr]
    state = game.from_json(table.state_json)  # type: ignore[union-attr,arg-type]
    code = next(a.code for a in game.legal_actions(state) if a.code.startswith("swap."))
    return encode(table_id, table.version, code)  # type: ignore[union-attr,arg-type]


def _scenario(engine: Engine, press: Any) -> None:
    service = Service(engine, Settings(cpu_delay=0))
    table_id = new_on_turn(service, CHAT, ME, "schwimmen 1 anfänger")

    async def main() -> None:
        app = make_app(service, TOKEN)
        async with TestClient(TestServer(app)) as client:
            resp = await client.get(f"/api/events?t={table_id}&initData={_quote(_init())}")
            assert resp.status == 200
            assert resp.headers["Content-Type"].startswith("text/event-stream")
            first = await _next_view(resp)
            assert first["table"] == table_id and first["turn"]["yours"]
            assert app[HUB].pages == 1
            await asyncio.to_thread(press, service, _a_chat_move(service, table_id))
            second = await _next_view(resp)
            assert second["version"] > first["version"]
            assert second["hand"] != first["hand"] or second["middle"] != first["middle"]
            resp.close()
            # a forged initData: no stream
            bad = await client.get(f"/api/events?t={table_id}&initData=user%3D1%26hash%3D00")
            assert bad.status == 401

    asyncio.run(main())


def _quote(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="")


def test_a_move_in_the_chat_reaches_the_open_page(sqlite_engine: Engine) -> None:
    def press(service: Service, data: str) -> None:
        assert service.press(CHAT, ME, data, "chat-1").ok

    _scenario(sqlite_engine, press)


_OTHER_PROCESS = """
import sys
from chatbot.service import ChatRef, Service, Settings, UserRef
from storage.db import make_engine
service = Service(make_engine(sys.argv[1]), Settings(cpu_delay=0))
out = service.press(ChatRef("telegram", "42", "private"), UserRef("42", "Ida"), sys.argv[2], "p2")
assert out.ok, out.text
"""


def test_a_move_in_another_process_reaches_the_open_page_on_postgresql(pg_engine: Engine
                                                                      ) -> None:
    url = pg_engine.url.render_as_string(hide_password=False)

    def press(service: Service, data: str) -> None:
        subprocess.run([sys.executable, "-c", _OTHER_PROCESS, url, data], check=True,
                       timeout=120)

    _scenario(pg_engine, press)


def test_a_move_made_while_the_page_connects_reaches_it(db_engine: Engine) -> None:
    """A move committed after the stream read the table but before it watched it (a page
    opening, or reconnecting after a dropped or expired stream, while somebody moves in the
    chat): the page still gets the view after it, not the one before for good."""
    service = Service(db_engine, Settings(cpu_delay=0))
    table_id = new_on_turn(service, CHAT, ME, "schwimmen 1 anfänger")
    read = service.table_sight
    moved: list[int] = []

    def read_then_a_chat_move(*args: Any, **kw: Any) -> Any:
        """The stream's read, and right after it a move in the chat (committed, told)."""
        sight = read(*args, **kw)
        if not moved:
            assert service.press(CHAT, ME, _a_chat_move(service, table_id), "chat-1").ok
            moved.append(service.table(table_id).version)  # type: ignore[union-attr,arg-type]
        return sight

    service.table_sight = read_then_a_chat_move  # type: ignore[method-assign]

    async def main() -> None:
        async with TestClient(TestServer(make_app(service, TOKEN))) as client:
            resp = await client.get(f"/api/events?t={table_id}&initData={_quote(_init())}")
            assert resp.status == 200
            view = await _next_view(resp)
            if view["version"] < moved[0]:  # (drawn from the read before the move)
                view = await _next_view(resp, timeout=10)
            assert view["version"] == moved[0]
            resp.close()

    asyncio.run(main())


def test_a_shutdown_ends_the_open_streams(sqlite_engine: Engine) -> None:
    """A graceful shutdown (a rolling restart) does not wait for open pages: their streams
    end, the page reconnects to another process."""
    from aiohttp import ClientSession, web

    service = Service(sqlite_engine, Settings(cpu_delay=0))
    assert service.command(CHAT, ME, "new", "schwimmen 1 anfänger").ok
    table_id = service.unfinished_tables("telegram", "42")[0].id

    async def main() -> None:
        runner = web.AppRunner(make_app(service, TOKEN), shutdown_timeout=3600)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        async with ClientSession() as session:
            resp = await session.get(f"http://127.0.0.1:{port}/api/events?t={table_id}"
                                     f"&initData={_quote(_init())}")
            await _next_view(resp)
            # (with the streams left open this would wait the whole shutdown_timeout)
            await asyncio.wait_for(runner.cleanup(), 120)
            rest = await asyncio.wait_for(resp.content.read(), 30)  # (to the end of the stream)
            assert rest.strip() == b"" and resp.content.at_eof()

    asyncio.run(main())
