"""The Mini App's HTTP side (aiohttp): the page, a person's view of a table, what a selection
would play, a move, the live views (server-sent events), a finished round's replay (to the
people who sat at the table only), a tournament's and the league's pages
(``page_routes``), and invitations to share in another chat (``invite``). See
docs/webapp-api.md.

Every API request carries Telegram's ``initData`` (header ``X-Telegram-Init-Data``, or the
``initData`` query parameter where a header can't be set); the user is taken only from it (401
when it is forged, undecodable or too old). A table is named by its token (links) or, for the
people seated at it, by its id; a person sees it if seated, if it is their private table, or if
the bot has seen them in the group of a group table — anybody else gets 403. A move goes
through the same service call as a button press (version check, locking, the key counted
once), so a double tap plays once. Event streams are bounded (``live.Hub.admit``) and end when
their initData grows too old. Every API answer is ``Cache-Control: no-store``. Mounted at
``/webapp`` on the webhook server in webhook mode, and on its own port when ``WEBAPP_PORT`` is
set (any mode); ``WEBAPP_INITDATA_MAX_AGE`` and ``WEBAPP_MAX_STREAMS`` apply to both.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

from aiohttp import web

from ..buttons import MAX_ID, encode
from ..i18n import pick_language, tr
from ..presenters.cards import DECKS
from ..service import CardSettings, ChatRef, NotYourTable, Service, UserRef
from .initdata import MAX_AGE, InvalidInitData, WebAppUser, validate
from .invite import Prepare, add_invite_routes
from .links import table_key
from .live import MAX_STREAMS, Full, Hub, Listener
from .page_routes import add_page_routes
from .replay import NoRound, render_replay
from .view import PLATFORM, Loaded, describe, render

THINKING_AT_ONCE = 4  # presses of the page waiting at once for the coach's or a skip's thinking

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
STATIC = Path(__file__).with_name("static")  # the page: plain modules, no build step
KEEPALIVE = 15.0  # seconds between two comment lines of an idle event stream
_NO_CACHE = {"Cache-Control": "no-cache"}
_USER = web.RequestKey("webapp_user", WebAppUser)  # the request's validated user
HUB = web.AppKey("webapp_hub", Hub)


def _table_param(request: web.Request, user: WebAppUser) -> int | str | None:
    """The table asked for: ``t`` in the query, else the start parameter ``t<token>``."""
    asked = request.query.get("t") or (user.start_param or "").removeprefix("t") or None
    if asked is None:
        return None
    try:
        return table_key(asked)
    except ValueError:
        raise web.HTTPBadRequest(text="t: a table's token or number") from None


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


async def _body(request: web.Request) -> dict[str, Any]:
    """The JSON object of a POST; 400 for anything else (also NaN, Infinity, deep nesting)."""
    try:
        body = json.loads(await request.read(), parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise web.HTTPBadRequest(text="JSON") from None
    if not isinstance(body, dict):
        raise web.HTTPBadRequest(text="JSON object")
    return body


def _number(body: dict[str, Any], name: str, least: int) -> int:
    """A whole number in the range of ids and versions (checked before any database read)."""
    value = body.get(name)
    if type(value) is not int or not least <= value <= MAX_ID:
        raise web.HTTPBadRequest(text=f"{name}: a number from {least} to {MAX_ID}")
    return value


def _drawn_as(loaded: Loaded) -> tuple[Any, ...]:
    """What a view is drawn from besides the table's state: equal keys, equal views."""
    t = loaded.table
    return ("view", t.id, t.version, t.next_deadline,
            loaded.seat.seat_no if loaded.seat is not None else None, loaded.lang,
            loaded.next_table)


def _event(loaded: Loaded) -> bytes:
    """The view as a server-sent event."""
    return f"event: view\ndata: {_dumps(render(loaded))}\n\n".encode()


def make_app(service: Service, bot_token: str, max_age: float = MAX_AGE,
             max_streams: int = MAX_STREAMS, prepare: Prepare | None = None) -> web.Application:
    """The page and its API; ``prepare``: the adapter's ``savePreparedInlineMessage`` (the
    page's invitations, ``invite``)."""
    hub = Hub(max_streams)
    service.listeners.append(lambda changes: hub.changed(c.table_id for c in changes))
    listener = Listener(service.engine, hub)
    thinkers = ThreadPoolExecutor(THINKING_AT_ONCE, thread_name_prefix="stammtisch-page-think")

    def read(user: WebAppUser, table: int | str | None) -> Loaded | None:
        """The table as the user sees it; 403 when they may not."""
        try:
            return service.table_sight(PLATFORM, str(user.id), user.language_code, table)
        except NotYourTable:
            lang = pick_language(None, user.language_code, service.settings.default_language)
            raise web.HTTPForbidden(
                text=_dumps({"error": "not your table", "text": tr(lang, "wa.not_yours")}),
                content_type="application/json") from None

    def view_of(user: WebAppUser, table: int | str | None) -> dict[str, Any] | None:
        loaded = read(user, table)
        return None if loaded is None else render(loaded)

    def replay_of(user: WebAppUser, key: int | str, number: int | None) -> dict[str, Any]:
        """A finished round with every hand open, for a person who sat at the table only
        (403 for anybody else, 409 for a round not over, 404 for no table)."""
        lang = pick_language(None, user.language_code, service.settings.default_language)
        try:
            got = service.replay_sight(PLATFORM, str(user.id), user.language_code, key)
        except NotYourTable:
            raise web.HTTPForbidden(
                text=_dumps({"error": "not your table", "text": tr(lang, "rp.not_yours")}),
                content_type="application/json") from None
        if got is None:
            raise web.HTTPNotFound(text="no table")
        try:
            return render_replay(*got, number)
        except NoRound as exc:
            raise web.HTTPConflict(text=_dumps({"error": "not over", "text": str(exc)}),
                                   content_type="application/json") from None

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

    async def replay(request: web.Request) -> web.Response:
        user = request[_USER]
        key, raw = _table_param(request, user), request.query.get("r")
        if key is None or (raw is not None and not (raw.isascii() and raw.isdigit()
                                                    and 0 < len(raw) < 5)):
            raise web.HTTPBadRequest(text="t: a table; r: a round's number")
        view = await asyncio.to_thread(replay_of, user, key, int(raw) if raw else None)
        return web.json_response(view, dumps=_dumps)

    async def select(request: web.Request) -> web.Response:
        user = request[_USER]
        body = await _body(request)
        table_id, version = _number(body, "table", 1), _number(body, "version", 0)
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
        table_id, version = _number(body, "table", 1), _number(body, "version", 0)
        code, key = body.get("code"), body.get("key") or ""
        if not isinstance(code, str) or not isinstance(key, str):
            raise web.HTTPBadRequest(text="table, version, code")
        try:
            data = encode(table_id, version, code)  # (checked again as any button's data)
        except ValueError:
            raise web.HTTPBadRequest(text="too long") from None
        if len(key) > 64:
            raise web.HTTPBadRequest(text="key too long")
        chat = ChatRef(PLATFORM, str(user.id), "private")
        person = UserRef(str(user.id), user.first_name or str(user.id), user.language_code)
        plan = None
        if service.press_policy(data).thinks:  # (the coach, ⏩: on the page's thinking threads)
            plan = await asyncio.get_running_loop().run_in_executor(
                thinkers, service.think, chat, person, data)
        outcome = await asyncio.to_thread(
            service.press, chat, person, data,
            f"webapp:{user.id}:{key}" if key else None, plan)
        try:
            view = await asyncio.to_thread(view_of, user, table_id)
        except web.HTTPForbidden:  # (not seated: the press was refused as in the chat)
            view = None
        out: dict[str, Any] = {"ok": outcome.ok, "answer": outcome.text or ""}
        out.update(view or {})
        return web.json_response(out, status=200 if outcome.ok else 409, dumps=_dumps)

    def cards_of(user: WebAppUser, chosen: CardSettings | None = None) -> dict[str, Any]:
        """A person's cards (deck and large cards) and the texts of the page's choice."""
        lang = pick_language(None, user.language_code, service.settings.default_language)
        got = chosen or service.card_settings(PLATFORM, str(user.id))
        return {"deck": got.deck, "large": got.large, "decks": list(DECKS),
                "texts": {"title": tr(lang, "wa.deck"), "large": tr(lang, "wa.large"),
                          "close": tr(lang, "wa.replay_close"),
                          **{d: tr(lang, f"deck.{d}") for d in DECKS}}}

    async def cards(request: web.Request) -> web.Response:
        """GET: the person's cards; POST ``{"deck", "large"}`` (either may be left out):
        changes them as an input of their private chat, then the same answer."""
        user = request[_USER]
        if request.method == "GET":
            return web.json_response(await asyncio.to_thread(cards_of, user), dumps=_dumps)
        body = await _body(request)
        deck, large = body.get("deck"), body.get("large")
        if deck is not None and deck not in DECKS or large is not None \
                and not isinstance(large, bool):
            raise web.HTTPBadRequest(text=f"deck: one of {', '.join(DECKS)}; large: true/false")
        chat = ChatRef(PLATFORM, str(user.id), "private")
        person = UserRef(str(user.id), user.first_name or str(user.id), user.language_code)
        chosen = await asyncio.to_thread(service.set_card_settings, chat, person, deck, large)
        return web.json_response(await asyncio.to_thread(cards_of, user, chosen), dumps=_dumps)

    async def events(request: web.Request) -> web.StreamResponse:
        """The view at once, then after every change of the table (server-sent events),
        until the initData is older than the max age (an ``expired`` event: the page opens
        the stream again with its initData as it is then). 429/503 over the limits."""
        user = request[_USER]
        asked = _table_param(request, user)
        try:
            with hub.admit(user.id):
                return await stream(request, user, asked)
        except Full as full:
            retry = {"Retry-After": str(full.retry_after)}
            raise (web.HTTPTooManyRequests(headers=retry) if full.status == 429
                   else web.HTTPServiceUnavailable(headers=retry)) from None

    async def stream(request: web.Request, user: WebAppUser,
                     asked: int | str | None) -> web.StreamResponse:
        loaded = await asyncio.to_thread(read, user, asked)
        if loaded is None:
            raise web.HTTPNotFound(text="no table")
        table_id, viewer, lang = loaded.table.id, loaded.viewer, loaded.lang
        assert table_id is not None
        ends = user.auth_date + max_age
        response = web.StreamResponse(headers={
            "Content-Type": "text/event-stream", "X-Accel-Buffering": "no"})
        await response.prepare(request)
        with hub.watch(table_id) as changed, contextlib.suppress(ConnectionResetError):
            # the view sent first is read once the table is watched: a change committed after
            # the read above and before the watch would reach the page only with the next one
            snapshot = await asyncio.to_thread(service.table_snapshot, table_id)
            if snapshot is not None:
                loaded = snapshot.sight(viewer, lang)
            data, sent = await asyncio.to_thread(_event, loaded), _drawn_as(loaded)
            await response.write(data)
            while not hub.closing:  # (or until the page goes away)
                left = ends - time.time()
                if left <= 0:
                    await response.write(b"event: expired\ndata: {}\n\n")
                    break
                try:
                    await asyncio.wait_for(changed.wait(), min(KEEPALIVE, left))
                except TimeoutError:
                    if time.time() < ends:
                        await response.write(b": keep-alive\n\n")
                    continue
                changed.clear()
                if hub.closing:
                    break
                snapshot = await hub.shared(("table", table_id, hub.woken(table_id)),
                                            lambda: service.table_snapshot(table_id))
                if snapshot is None:
                    break
                loaded = snapshot.sight(viewer, lang)
                key = _drawn_as(loaded)
                if key != sent:  # drawn once for all pages of this seat and language
                    await response.write(await hub.shared(key, partial(_event, loaded)))
                    sent = key
        return response

    async def index(request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html", headers=_NO_CACHE)

    async def on_startup(app: web.Application) -> None:
        await asyncio.to_thread(listener.start)

    async def on_shutdown(app: web.Application) -> None:
        hub.close()  # (a graceful shutdown would otherwise wait for the streams to end)

    async def on_cleanup(app: web.Application) -> None:
        await asyncio.to_thread(listener.stop)
        thinkers.shutdown(wait=False, cancel_futures=True)

    app = web.Application()
    app[HUB] = hub
    api = [app.router.add_get("/api/table", signed(table)).resource,
           app.router.add_post("/api/select", signed(select)).resource,
           app.router.add_post("/api/move", signed(move)).resource,
           app.router.add_get("/api/events", signed(events)).resource,
           app.router.add_get("/api/replay", signed(replay)).resource,
           app.router.add_get("/api/cards", signed(cards)).resource,
           app.router.add_post("/api/cards", signed(cards)).resource,
           *add_page_routes(app, service, signed, _USER),  # a tournament's, the league's
           *add_invite_routes(app, service, signed, _USER, prepare)]
    app.router.add_get("/", index)
    static = app.router.add_static("/static", STATIC)
    app.on_startup.append(on_startup)

    async def headers(request: web.Request, response: web.StreamResponse) -> None:
        resource = request.match_info.route.resource
        if resource in api:  # a person's hand: in no cache, also not an error's answer
            response.headers["Cache-Control"] = "no-store"
        elif resource is static:  # (asked again after a deploy:
            response.headers["Cache-Control"] = "no-cache"  # never old and new modules mixed)

    app.on_response_prepare.append(headers)
    app.on_shutdown.append(on_shutdown)
    app.on_cleanup.append(on_cleanup)
    return app


def mounted(service: Service, bot_token: str, max_age: float = MAX_AGE,
            max_streams: int = MAX_STREAMS, prepare: Prepare | None = None) -> web.Application:
    """An application with the page and the API under ``/webapp`` (its own server, or a
    sub-application of the webhook server)."""
    root = web.Application()
    root.add_subapp("/webapp", make_app(service, bot_token, max_age, max_streams, prepare))
    return root


def webapp_limits_from_env(env: dict[str, str] | None = None) -> tuple[float, int]:
    """``(WEBAPP_INITDATA_MAX_AGE, WEBAPP_MAX_STREAMS)``: seconds an initData stays good
    (default a day) and the open event streams of a process (default 2,000), in webhook mode
    and on ``WEBAPP_PORT`` alike."""
    env = os.environ if env is None else env
    age = float((env.get("WEBAPP_INITDATA_MAX_AGE") or "").strip() or MAX_AGE)
    raw = (env.get("WEBAPP_MAX_STREAMS") or "").strip() or str(MAX_STREAMS)
    if not (raw.isascii() and raw.isdigit()) or not age > 0:
        raise ValueError(f"WEBAPP_MAX_STREAMS={raw!r} or WEBAPP_INITDATA_MAX_AGE={age!r}: "
                         "a whole number of streams and a positive number of seconds")
    return age, int(raw)


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
    age, _ = webapp_limits_from_env(env)
    return (env.get("WEBAPP_HOST") or "").strip() or "127.0.0.1", int(raw), age
