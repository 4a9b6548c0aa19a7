"""Inviting from the Mini App (docs/inline.md): ``GET api/invite?g=<game>`` names the
invitations the page may share for a game (an open table, a duel, or the game's size: what
``@bot`` offers in a chat) with the page's texts; ``POST api/invite`` with ``{"game",
"seats"}`` has the bot save that invitation as a prepared inline message for the person
(Telegram's ``savePreparedInlineMessage``, Bot API 8.0) and answers its id, which the page
hands to ``Telegram.WebApp.shareMessage``: the person picks a chat and the invitation is
posted there "via" the bot, as if chosen from ``@bot``'s list.

Signed like every API request (``server.make_app`` hands its check in); strict parameters
(400 before anything is asked). Where the adapter gives no way to prepare messages, or
inline mode is off for the bot (``Settings.inline_mode``), the ``GET`` (which every table's
page asks) lists no offers and says why; the ``POST`` answers 404 or 409 (with the text
that says how to turn it on); a refusal by Telegram, 502.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from engine import GAMES

from ..i18n import N_, pick_language, register, tr
from ..service import InlineResult, Service, UserRef
from .initdata import WebAppUser
from .view import PLATFORM

log = logging.getLogger(__name__)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
# The adapter's call that saves a prepared inline message for a person: its id.
Prepare = Callable[[int, InlineResult], Awaitable[str]]
register({
    "wa.invite": N_("📨 Invite to a game elsewhere"),
    "wa.invite_sent": N_("📨 Invitation sent."),
    "wa.invite_failed": N_("The invitation could not be made just now – please try again."),
    "wa.invite_none": N_("Invitations are not available here."),
})


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _refused(status: type[web.HTTPException], error: str, text: str) -> web.HTTPException:
    return status(text=_dumps({"error": error, "text": text}), content_type="application/json")


def _person(user: WebAppUser) -> UserRef:
    return UserRef(str(user.id), user.first_name or str(user.id), None, user.language_code)


def _game(raw: Any) -> str:
    if not isinstance(raw, str) or raw not in GAMES:
        raise web.HTTPBadRequest(text=f"game: one of {', '.join(GAMES)}")
    return raw


def add_invite_routes(app: web.Application, service: Service,
                      signed: Callable[[Handler], Handler], user_key: Any,
                      prepare: Prepare | None) -> list[Any]:
    """The endpoint on ``app``; its resources (the server marks their answers ``no-store``)."""

    def language(user: WebAppUser) -> str:
        return pick_language(None, user.language_code, service.settings.default_language)

    def available(user: WebAppUser) -> None:
        if prepare is None:
            raise _refused(web.HTTPNotFound, "no invitations",
                           tr(language(user), "wa.invite_none"))
        if service.settings.inline_mode is False:
            raise _refused(web.HTTPConflict, "inline mode off", tr(language(user), "il.off"))

    async def offers(request: web.Request) -> web.Response:
        user = request[user_key]
        names = [name for name, _value in request.query.items()]
        if len(names) != len(set(names)) or any(n not in ("g", "initData") for n in names):
            raise web.HTTPBadRequest(text="parameters: g, once")
        game = _game(request.query.get("g"))
        lang = language(user)
        try:
            available(user)
        except web.HTTPException as none:  # (asked by every page: no offers, not an error)
            return web.json_response({"game": game, "offers": [], "why": json.loads(
                none.text or "{}").get("text", "")}, dumps=_dumps)
        found = service.invitations(PLATFORM, _person(user), game)
        return web.json_response({
            "game": game,
            "offers": [{"seats": seats, "title": r.title, "description": r.description}
                       for seats, r in found],
            "texts": {"title": tr(lang, "wa.invite"), "sent": tr(lang, "wa.invite_sent"),
                      "close": tr(lang, "wa.replay_close")}}, dumps=_dumps)

    async def invite(request: web.Request) -> web.Response:
        user = request[user_key]
        try:
            body = json.loads(await request.read(), parse_constant=lambda name: None)
        except (ValueError, RecursionError):
            raise web.HTTPBadRequest(text="JSON") from None
        if not isinstance(body, dict) or set(body) - {"game", "seats"}:
            raise web.HTTPBadRequest(text="a JSON object: game, seats")
        game, seats = _game(body.get("game")), body.get("seats")
        if seats is not None and (type(seats) is not int or not 0 <= seats <= 10):
            raise web.HTTPBadRequest(text="seats: a number from 0 to 10")
        available(user)
        result = service.invitation_for(PLATFORM, _person(user), game, seats)
        if result is None:
            raise web.HTTPBadRequest(text="no such invitation")
        try:
            prepared = await prepare(user.id, result)  # type: ignore[misc]
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # Telegram refused (or could not be reached)
            log.info("invitation for %s: could not prepare: %s", user.id, exc)
            raise _refused(web.HTTPBadGateway, "not prepared",
                           tr(language(user), "wa.invite_failed")) from None
        return web.json_response({"id": prepared}, dumps=_dumps)

    return [app.router.add_get("/api/invite", signed(offers)).resource,
            app.router.add_post("/api/invite", signed(invite)).resource]
