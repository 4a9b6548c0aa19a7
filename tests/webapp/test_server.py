"""Issue 19, item 4 through real HTTP on loopback (aiohttp's test server, a real SQLite
file): the user only from initData, 401 for a forged or old one, a seat's own view, 403 for
somebody else (issue 38), a move through the same service call as a button
(a double tap plays once, an old version is refused)."""

from __future__ import annotations

import json
import time

from aiohttp.test_utils import TestClient
from sqlalchemy.engine import Engine

from chatbot.service import ChatRef, Service, UserRef
from chatbot.webapp.initdata import sign
from engine import GAMES

from .api import TOKEN, new_on_turn, run_api


def _init(user_id: int, name: str = "Ida", age: float = 0, **extra: str) -> str:
    return sign({"auth_date": str(int(time.time() - age)), "query_id": "AAH",
                 "user": json.dumps({"id": user_id, "first_name": name}), **extra}, TOKEN)



def test_a_private_game_seen_and_played_through_the_api(sqlite_engine: Engine) -> None:
    async def scenario(service: Service, client: TestClient) -> None:
        me = UserRef("42", "Ida")
        new_on_turn(service, ChatRef("telegram", "42", "private"), me, "schwimmen 1 anfänger")
        resp = await client.get("/webapp/api/table", headers={"X-Telegram-Init-Data": _init(42)})
        assert resp.status == 200
        table = await resp.json()
        assert table["game"] == "schwimmen" and table["seat"] == 0
        assert len(table["hand"]) == 3
        # somebody else, by the table's number or its token: not their table (issue 38)
        for asked in (table["table"], table["token"]):
            other = await client.get(f"/webapp/api/table?t={asked}",
                                     headers={"X-Telegram-Init-Data": _init(7)})
            assert other.status == 403, asked
        # forged, old, missing initData: 401
        for bad in (_init(42).replace("Ida", "Eve"), _init(42, age=7200), ""):
            resp = await client.get("/webapp/api/table", headers={"X-Telegram-Init-Data": bad})
            assert resp.status == 401
        # a move, twice with the same key (a double tap): played once
        game = GAMES["schwimmen"]
        state = game.from_json(service.table(table["table"]).state_json)  # type: ignore[union-attr,arg-type]
        assert state.to_act == 0
        code = next(a.code for a in game.legal_actions(state) if a.code.startswith("swap."))
        body = {"table": table["table"], "version": table["version"], "code": code,
                "key": "tap-1"}
        headers = {"X-Telegram-Init-Data": _init(42)}
        first = await client.post("/webapp/api/move", json=body, headers=headers)
        assert first.status == 200 and (await first.json())["ok"]
        again = await client.post("/webapp/api/move", json=body, headers=headers)
        players = [m for m in service.moves(table["table"]) if m.actor == "player"]
        assert len(players) == 1, (again.status, await again.text())
        # an old version (another tap on an old page) changes nothing
        stale = await client.post("/webapp/api/move", json={**body, "key": "tap-2"},
                                  headers=headers)
        assert stale.status == 409
        assert len([m for m in service.moves(table["table"]) if m.actor == "player"]) == 1
        # garbage
        resp = await client.post("/webapp/api/move", data="nope", headers=headers)
        assert resp.status == 400

    run_api(sqlite_engine, scenario)
