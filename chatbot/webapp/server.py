"""The Mini App's HTTP API (aiohttp): a seat's view of a table, and a move.

Every request carries Telegram's ``initData`` (header ``X-Telegram-Init-Data``, or the
``initData`` query parameter for a first load); the user is taken only from it (401 when it is
forged or too old). Mounted at ``/webapp`` on the webhook server in webhook mode, and on its own
port when ``WEBAPP_PORT`` is set (any mode). ``GET /webapp/api/table?t=<id>`` gives the view of the user's seat at that
table (their newest open table without ``t``); somebody not seated there gets the public view
only. ``POST /webapp/api/move`` with ``{"table", "version", "code", "key"}`` goes through the
same service call as a button press (version check, locking, the key counted once), so a double
tap plays once.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from aiohttp import web
from sqlmodel import Session, col, select

from engine import GAMES
from storage.models import GameTable, Player, Seat

from ..buttons import encode
from ..service import ChatRef, Service, UserRef
from .initdata import MAX_AGE, InvalidInitData, WebAppUser, validate
from .snapshot import snapshot

PLATFORM = "telegram"
API = "/webapp/api/"
STATIC = Path(__file__).with_name("static")  # the page: plain modules, no build step
_NO_STORE = {"Cache-Control": "no-cache"}
_USER = web.RequestKey("webapp_user", WebAppUser)  # the request's validated user


def _seat_and_table(service: Service, user_id: int, table_id: int | None
                    ) -> tuple[GameTable | None, int | None]:
    """The table asked for (else the user's newest open one) and the user's seat there."""
    with Session(service.engine) as session:
        player = session.exec(select(Player).where(Player.platform == PLATFORM,
                                                   Player.external_id == str(user_id))).first()
        if table_id is None and player is not None:
            table_id = session.exec(
                select(GameTable.id).join(Seat, col(Seat.table_id) == GameTable.id)
                .where(Seat.player_id == player.id,
                       col(GameTable.fsm_state).not_in(("finished", "abandoned")))
                .order_by(col(GameTable.id).desc())).first()
        table = session.get(GameTable, table_id) if table_id is not None else None
        if table is None:
            return None, None
        seat = session.exec(select(Seat.seat_no).where(
            Seat.table_id == table.id, Seat.player_id == player.id)).first() \
            if player is not None else None
        session.expunge(table)
        return table, seat


def _view(table: GameTable, seat: int | None) -> dict[str, Any]:
    state = GAMES[table.game].from_json(table.state_json) if table.state_json else None
    out: dict[str, Any] = {"table": table.id, "version": table.version, "game": table.game,
                           "state": table.fsm_state, "seat": seat}
    if state is not None:
        out["view"] = snapshot(table.game, state, seat)
    return out


def make_app(service: Service, bot_token: str, max_age: float = MAX_AGE) -> web.Application:
    @web.middleware
    async def authenticate(request: web.Request, handler: Any) -> web.StreamResponse:
        if not request.path.startswith(API):  # the page itself: no secrets in it
            return await handler(request)
        data = request.headers.get("X-Telegram-Init-Data") or request.query.get("initData", "")
        try:
            request[_USER] = validate(data, bot_token, max_age)
        except InvalidInitData as exc:
            raise web.HTTPUnauthorized(text=f"initData: {exc}") from None
        return await handler(request)

    async def table(request: web.Request) -> web.Response:
        user: WebAppUser = request[_USER]
        asked = request.query.get("t") or (user.start_param or "").removeprefix("t") or None
        if asked is not None and not (asked.isascii() and asked.isdigit() and len(asked) < 10):
            raise web.HTTPBadRequest(text="t: a table number")
        found, seat = await asyncio.to_thread(_seat_and_table, service, user.id,
                                              int(asked) if asked else None)
        if found is None:
            raise web.HTTPNotFound(text="no table")
        return web.json_response(_view(found, seat))

    async def move(request: web.Request) -> web.Response:
        user: WebAppUser = request[_USER]
        try:
            body = await request.json()
            table_id, version = int(body["table"]), int(body["version"])
            code, key = str(body["code"]), str(body.get("key") or "")
        except (ValueError, KeyError, TypeError):
            raise web.HTTPBadRequest(text="table, version, code") from None
        try:
            data = encode(table_id, version, code)  # (checked again as any button's data)
        except ValueError:
            raise web.HTTPBadRequest(text="too long") from None
        if len(key) > 64:
            raise web.HTTPBadRequest(text="key too long")
        chat = ChatRef(PLATFORM, str(user.id), "private")
        person = UserRef(str(user.id), user.first_name or str(user.id), user.language_code)
        outcome = await asyncio.to_thread(
            service.press, chat, person, data,
            f"webapp:{user.id}:{key}" if key else None)
        found, seat = await asyncio.to_thread(_seat_and_table, service, user.id, table_id)
        body_out: dict[str, Any] = {"ok": outcome.ok, "answer": outcome.text}
        if found is not None:
            body_out.update(_view(found, seat))
        return web.json_response(body_out, status=200 if outcome.ok else 409)

    async def index(request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html", headers=_NO_STORE)

    app = web.Application(middlewares=[authenticate])
    app.router.add_get("/api/table", table)
    app.router.add_post("/api/move", move)
    app.router.add_get("/", index)
    app.router.add_static("/static", STATIC)
    return app


def mounted(service: Service, bot_token: str, max_age: float = MAX_AGE) -> web.Application:
    """An application with the API under ``/webapp`` (its own server, or a sub-application
    of the webhook server)."""
    root = web.Application()
    root.add_subapp("/webapp", make_app(service, bot_token, max_age))
    return root


def settings_from_env(env: dict[str, str] | None = None) -> tuple[str, int, float] | None:
    """``(WEBAPP_HOST, WEBAPP_PORT, WEBAPP_INITDATA_MAX_AGE)``, or ``None`` when
    ``WEBAPP_PORT`` is unset (no server of its own). Host defaults to 127.0.0.1 (a reverse
    proxy in front gives HTTPS), the age to a day."""
    env = os.environ if env is None else env
    raw = (env.get("WEBAPP_PORT") or "").strip()
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit() and int(raw) <= 65535):
        raise ValueError(f"WEBAPP_PORT={raw!r} is not a port number (0-65535)")
    age = float((env.get("WEBAPP_INITDATA_MAX_AGE") or "").strip() or MAX_AGE)
    return (env.get("WEBAPP_HOST") or "").strip() or "127.0.0.1", int(raw), age
