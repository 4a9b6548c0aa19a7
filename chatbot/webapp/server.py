"""The Mini App's HTTP side (aiohttp): the page, a person's view of a table, what a selection
would play, a move, and the live views (server-sent events). See docs/webapp-api.md.

Every API request carries Telegram's ``initData`` (header ``X-Telegram-Init-Data``, or the
``initData`` query parameter where a header can't be set); the user is taken only from it (401
when it is forged or too old). Somebody not seated at the table gets the public view only.
A move goes through the same service call as a button press (version check, locking, the key
counted once), so a double tap plays once. Mounted at ``/webapp`` on the webhook server in
webhook mode, and on its own port when ``WEBAPP_PORT`` is set (any mode).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from ..buttons import encode
from ..service import ChatRef, Service, UserRef
from .initdata import MAX_AGE, InvalidInitData, WebAppUser, validate
from .live import Hub, Listener
from .view import PLATFORM, Loaded, describe, render

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
STATIC = Path(__file__).with_name("static")  # the page: plain modules, no build step
KEEPALIVE = 15.0  # seconds between two comment lines of an idle event stream
_NO_CACHE = {"Cache-Control": "no-cache"}
_USER = web.RequestKey("webapp_user", WebAppUser)  # the request's validated user
HUB = web.AppKey("webapp_hub", Hub)


def _table_param(request: web.Request, user: WebAppUser) -> int | None:
    """The table asked for: ``t`` in the query, else the start parameter ``t<id>``."""
    asked = request.query.get("t") or (user.start_param or "").removeprefix("t") or None
    if asked is None:
        return None
    if not (asked.isascii() and asked.isdigit() and len(asked) < 10):
        raise web.HTTPBadRequest(text="t: a table number")
    return int(asked)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def make_app(service: Service, bot_token: str, max_age: float = MAX_AGE) -> web.Application:
    hub = Hub()
    service.listeners.append(lambda changes: hub.changed(c.table_id for c in changes))
    listener = Listener(service.engine, hub)

    def read(user: WebAppUser, table_id: int | None) -> Loaded | None:
        return service.table_sight(PLATFORM, str(user.id), user.language_code, table_id)

    def view_of(user: WebAppUser, table_id: int | None) -> dict[str, Any] | None:
        loaded = read(user, table_id)
        return None if loaded is None else render(loaded)

    def signed(handler: Handler) -> Handler:
        """An API handler: the request's user from its initData, else 401 (the page and its
        files need none: there are no secrets in them)."""
        async def checked(request: web.Request) -> web.StreamResponse:
            data = request.headers.get("X-Telegram-Init-Data") \
                or request.query.get("initData", "")
            try:
                request[_USER] = validate(data, bot_token, max_age)
            except InvalidInitData as exc:
                raise web.HTTPUnauthorized(text=f"initData: {exc}") from None
            return await handler(request)
        return checked

    async def table(request: web.Request) -> web.Response:
        user = request[_USER]
        view = await asyncio.to_thread(view_of, user, _table_param(request, user))
        if view is None:
            raise web.HTTPNotFound(text="no table")
        return web.json_response(view, dumps=_dumps)

    async def _body(request: web.Request) -> dict[str, Any]:
        try:
            body = await request.json()
        except ValueError:
            raise web.HTTPBadRequest(text="JSON") from None
        if not isinstance(body, dict):
            raise web.HTTPBadRequest(text="JSON object")
        return body

    async def select(request: web.Request) -> web.Response:
        user = request[_USER]
        body = await _body(request)
        try:
            table_id, version = int(body["table"]), int(body["version"])
        except (ValueError, KeyError, TypeError):
            raise web.HTTPBadRequest(text="table, version, cards") from None
        loaded = await asyncio.to_thread(read, user, table_id)
        if loaded is None:
            raise web.HTTPNotFound(text="no table")
        if loaded.table.version != version:
            raise web.HTTPConflict(text="stale")
        answer = await asyncio.to_thread(describe, loaded, body.get("cards"))
        if answer is None:
            raise web.HTTPBadRequest(text="cards: a list of card codes")
        return web.json_response(answer, dumps=_dumps)

    async def move(request: web.Request) -> web.Response:
        user = request[_USER]
        body = await _body(request)
        try:
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
        view = await asyncio.to_thread(view_of, user, table_id)
        out: dict[str, Any] = {"ok": outcome.ok, "answer": outcome.text or ""}
        out.update(view or {})
        return web.json_response(out, status=200 if outcome.ok else 409, dumps=_dumps)

    async def events(request: web.Request) -> web.StreamResponse:
        """The view at once, then after every change of the table (server-sent events)."""
        user = request[_USER]
        first = await asyncio.to_thread(view_of, user, _table_param(request, user))
        if first is None:
            raise web.HTTPNotFound(text="no table")
        table_id = first["table"]
        response = web.StreamResponse(headers={
            "Content-Type": "text/event-stream", "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no"})
        await response.prepare(request)
        sent = None
        with hub.watch(table_id) as changed, contextlib.suppress(ConnectionResetError):
            view: dict[str, Any] | None = first
            while view is not None and not hub.closing:  # (or until the page goes away)
                text = _dumps(view)
                if text != sent:
                    await response.write(f"event: view\ndata: {text}\n\n".encode())
                    sent = text
                try:
                    await asyncio.wait_for(changed.wait(), KEEPALIVE)
                except TimeoutError:
                    await response.write(b": keep-alive\n\n")
                    continue
                changed.clear()
                if hub.closing:
                    break
                view = await asyncio.to_thread(view_of, user, table_id)
        return response

    async def index(request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html", headers=_NO_CACHE)

    async def on_startup(app: web.Application) -> None:
        await asyncio.to_thread(listener.start)

    async def on_shutdown(app: web.Application) -> None:
        hub.close()  # (a graceful shutdown would otherwise wait for the streams to end)

    async def on_cleanup(app: web.Application) -> None:
        await asyncio.to_thread(listener.stop)

    app = web.Application()
    app[HUB] = hub
    app.router.add_get("/api/table", signed(table))
    app.router.add_post("/api/select", signed(select))
    app.router.add_post("/api/move", signed(move))
    app.router.add_get("/api/events", signed(events))
    app.router.add_get("/", index)
    static = app.router.add_static("/static", STATIC)
    app.on_startup.append(on_startup)
    async def revalidate(request: web.Request, response: web.StreamResponse) -> None:
        if request.match_info.route.resource is static:  # (asked again after a deploy:
            response.headers["Cache-Control"] = "no-cache"  # never old and new modules mixed)

    app.on_response_prepare.append(revalidate)
    app.on_shutdown.append(on_shutdown)
    app.on_cleanup.append(on_cleanup)
    return app


def mounted(service: Service, bot_token: str, max_age: float = MAX_AGE) -> web.Application:
    """An application with the page and the API under ``/webapp`` (its own server, or a
    sub-application of the webhook server)."""
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
