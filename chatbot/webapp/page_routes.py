"""The API of the Mini App's tournament page and league page (docs/webapp-api.md):
``GET api/tournament?n=<id>`` and ``GET api/league?g=<game>&d=<division>``.

Signed like every API request (``server.make_app`` hands its check in). Parameters are
strict: each at most once, none but the endpoint's own (and ``initData``), numbers as ASCII
digits in range, a game by its id — anything else is 400 before the database is read.
Without ``n`` (or ``g``) the page is the one a direct Mini App link names in its start
parameter (``tn<id>``, ``lg-<game>``). Who may look: a tournament, the people the bot has
seen in its group (403 for anybody else); the league, anybody the bot has met (its tables
are what ``/liga`` shows anybody), 403 for a stranger.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from engine import GAMES

from ..buttons import MAX_ID
from ..i18n import pick_language, tr
from ..service import NotYourTable, Service
from .initdata import WebAppUser
from .links import page_key
from .pages import league_page, tournament_page
from .view import PLATFORM

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
MAX_DIVISION = 999


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _refused(status: type[web.HTTPException], error: str, text: str) -> web.HTTPException:
    return status(text=_dumps({"error": error, "text": text}), content_type="application/json")


def _query(request: web.Request, allowed: tuple[str, ...]) -> dict[str, str]:
    """The query's parameters, each once, none but ``allowed`` and ``initData``; else 400."""
    names = [name for name, _value in request.query.items()]
    if len(names) != len(set(names)) or any(n not in (*allowed, "initData") for n in names):
        raise web.HTTPBadRequest(text=f"parameters: {', '.join(allowed)}, each once")
    return {n: request.query[n] for n in names if n != "initData"}


def _number(raw: str, most: int, name: str) -> int:
    if not (raw.isascii() and raw.isdigit() and 0 < len(raw) <= len(str(most))
            and 0 < int(raw) <= most):
        raise web.HTTPBadRequest(text=f"{name}: a number from 1 to {most}")
    return int(raw)


def _started(user: WebAppUser, kind: str) -> str | None:
    """What the direct link's start parameter names for a page of ``kind`` (``None``: none;
    a start parameter naming another page or a table is no answer here)."""
    try:
        found, value = page_key(user.start_param or "")
    except ValueError:
        return None
    return value if found == kind else None


def add_page_routes(app: web.Application, service: Service,
                    signed: Callable[[Handler], Handler], user_key: Any) -> list[Any]:
    """The two pages' endpoints on ``app``; their resources (the server marks their answers
    ``no-store``)."""

    def language(user: WebAppUser) -> str:
        return pick_language(None, user.language_code, service.settings.default_language)

    def tournament_of(user: WebAppUser, number: int) -> dict[str, Any]:
        try:
            sight = service.tournament_sight(PLATFORM, str(user.id), user.language_code,
                                             number)
        except NotYourTable:
            raise _refused(web.HTTPForbidden, "not yours",
                           tr(language(user), "wa.tn.not_yours")) from None
        if sight is None:
            raise _refused(web.HTTPNotFound, "no tournament", tr(language(user), "wa.tn.none"))
        return tournament_page(sight)

    def league_of(user: WebAppUser, game: str | None, division: int | None) -> dict[str, Any]:
        try:
            page = service.league_page(PLATFORM, str(user.id), user.language_code, game,
                                       division)
        except NotYourTable:
            raise _refused(web.HTTPForbidden, "unknown",
                           tr(language(user), "wa.lg.stranger")) from None
        return league_page(page)

    async def tournament(request: web.Request) -> web.Response:
        user = request[user_key]
        query = _query(request, ("n",))
        raw = query["n"] if "n" in query else _started(user, "tournament")
        if raw is None:
            raise web.HTTPBadRequest(text="n: a tournament's number")
        number = _number(raw, MAX_ID, "n")
        page = await asyncio.to_thread(tournament_of, user, number)
        return web.json_response(page, dumps=_dumps)

    async def league(request: web.Request) -> web.Response:
        user = request[user_key]
        query = _query(request, ("g", "d"))
        game = query.get("g") if query else _started(user, "league")
        if game is not None and game not in GAMES:
            raise web.HTTPBadRequest(text=f"g: one of {', '.join(GAMES)}")
        division = _number(query["d"], MAX_DIVISION, "d") if "d" in query else None
        page = await asyncio.to_thread(league_of, user, game, division)
        return web.json_response(page, dumps=_dumps)

    return [app.router.add_get("/api/tournament", signed(tournament)).resource,
            app.router.add_get("/api/league", signed(league)).resource]
