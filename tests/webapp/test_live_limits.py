"""Issue 38, items 2 and 7, through real HTTP on loopback (aiohttp's test server, a real
SQLite file): live pages are bounded — five streams a person, ``max_streams`` in all, then
429/503 with ``Retry-After`` — and a change is drawn once per seat and language (and once for
the public view) for all open pages, the same bytes to every page of a seat; a stream ends
with an ``expired`` event when its initData grows older than the max age."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable

from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy.engine import Engine

from chatbot.service import ChatRef, Service, Settings, UserRef
from chatbot.webapp.initdata import sign
from chatbot.webapp.server import HUB, make_app
from engine import GAMES
from tests.dealing import to_a_turn

from .api import TOKEN, new_on_turn

GROUP = ChatRef("telegram", "-100888", "group", "Stammtisch")
ANNA, BEN, CEM = UserRef("1001", "Anna"), UserRef("1002", "Ben"), UserRef("1003", "Cem")


def _init(user: UserRef, age: float = 0) -> str:
    return sign({"auth_date": str(int(time.time() - age)),
                 "user": json.dumps({"id": int(user.external_id), "first_name": user.name})},
                TOKEN)


async def _event(resp: ClientResponse, timeout: float = 30) -> tuple[str, str]:
    """The next event of a stream: (name, raw data); comments skipped."""
    async def read() -> tuple[str, str]:
        name = None
        while True:
            line = (await resp.content.readline()).decode()
            if not line:
                raise EOFError("the stream ended")
            if line.startswith("event:"):
                name = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and name is not None:
                return name, line.split(":", 1)[1].strip()
    return await asyncio.wait_for(read(), timeout)


def _serve(engine: Engine, scenario: Callable[[Service, TestClient], Awaitable[None]],
           **limits: float) -> None:
    service = Service(engine, Settings(cpu_delay=0))

    async def main() -> None:
        async with TestClient(TestServer(make_app(service, TOKEN, **limits))) as client:
            await scenario(service, client)

    asyncio.run(main())


def _stream(client: TestClient, user: UserRef, asked: object, age: float = 0
            ) -> Awaitable[ClientResponse]:
    return client.get(f"/api/events?t={asked}", headers={"X-Telegram-Init-Data":
                                                         _init(user, age)})


def test_five_streams_a_person_and_the_configured_total_then_429_and_503(
        sqlite_engine: Engine) -> None:
    async def scenario(service: Service, client: TestClient) -> None:
        mine = new_on_turn(service, ChatRef("telegram", "1001", "private"), ANNA,
                           "schwimmen 1 anfänger")
        his = new_on_turn(service, ChatRef("telegram", "1002", "private"), BEN,
                          "schwimmen 1 anfänger")
        pages = [await _stream(client, ANNA, mine) for _ in range(5)]
        assert [p.status for p in pages] == [200] * 5
        sixth = await _stream(client, ANNA, mine)
        assert sixth.status == 429 and int(sixth.headers["Retry-After"]) > 0
        pages += [await _stream(client, BEN, his) for _ in range(2)]
        assert [p.status for p in pages[5:]] == [200, 200]
        over = await _stream(client, BEN, his)  # the process's eighth
        assert over.status == 503 and int(over.headers["Retry-After"]) > 0
        assert client.app[HUB].streams == 7
        for page in pages:
            page.close()

    _serve(sqlite_engine, scenario, max_streams=7)


def _group_game(service: Service) -> tuple[int, str]:
    """A running group game of Anna and Ben with a CPU, somebody on turn: (id, token)."""
    for person in (ANNA, BEN):
        assert service.command(ChatRef("telegram", person.external_id), person, "start").ok
    out = service.command(GROUP, ANNA, "new", "schwimmen")
    assert out.ok and out.table_id
    for person, code in ((BEN, "join"), (ANNA, "fill.+"), (ANNA, "start")):
        version = service.table(out.table_id).version  # type: ignore[union-attr]
        assert service.press(GROUP, person, f"v1:{out.table_id}:{version}:{code}").ok
    to_a_turn(service, GROUP, ANNA, out.table_id)  # (a round that ended on the deal)
    table = service.table(out.table_id)
    assert table is not None and table.token
    return out.table_id, table.token


def _a_move(service: Service, table_id: int) -> None:
    """The person on turn plays a legal move in the group."""
    table = service.table(table_id)
    game = GAMES[table.game]  # type: ignore[union-attr]
    state = game.from_json(table.state_json)  # type: ignore[union-attr,arg-type]
    person = (ANNA, BEN)[game.to_act(state)]
    code = next(a.code for a in game.legal_actions(state) if a.code.startswith("swap."))
    assert service.press(GROUP, person, f"v1:{table_id}:{table.version}:{code}").ok  # type: ignore[union-attr]


def test_a_change_is_drawn_once_per_seat_and_once_for_the_public_view(
        sqlite_engine: Engine) -> None:
    async def scenario(service: Service, client: TestClient) -> None:
        table_id, token = _group_game(service)
        assert service.command(GROUP, CEM, "help").ok  # Cem: seen in the group
        people = {"anna": (ANNA, 3), "ben": (BEN, 2), "cem": (CEM, 3)}
        pages = {name: [await _stream(client, who, token) for _ in range(n)]
                 for name, (who, n) in people.items()}
        for name, streams in pages.items():
            for page in streams:
                assert page.status == 200, name
                await _event(page)  # the first view
        await asyncio.to_thread(_a_move, service, table_id)
        got = {name: [await _event(p) for p in streams] for name, streams in pages.items()}
        for name, events in got.items():
            assert all(e == events[0] for e in events), name  # the same bytes, "now" too
            view = json.loads(events[0][1])
            assert view["seat"] == {"anna": 0, "ben": 1, "cem": None}[name]
        assert len({events[0] for events in got.values()}) == 3  # three drawings in all
        for streams in pages.values():
            for page in streams:
                page.close()

    _serve(sqlite_engine, scenario)


def test_a_stream_ends_when_its_initdata_grows_too_old(sqlite_engine: Engine) -> None:
    async def scenario(service: Service, client: TestClient) -> None:
        table_id = new_on_turn(service, ChatRef("telegram", "1001", "private"), ANNA,
                               "schwimmen 1 anfänger")
        init = {"X-Telegram-Init-Data": _init(ANNA, age=58)}  # good for two more seconds
        page = await client.get(f"/api/events?t={table_id}", headers=init)
        assert page.status == 200
        assert (await _event(page))[0] == "view"
        assert (await _event(page))[0] == "expired"
        rest = await asyncio.wait_for(page.content.read(), 30)  # (to the end of the stream)
        assert rest.strip() == b"" and page.content.at_eof()
        again = await client.get(f"/api/events?t={table_id}", headers=init)
        assert again.status == 401  # (the page needs a fresh initData)

    _serve(sqlite_engine, scenario, max_age=60)
