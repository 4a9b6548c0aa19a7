"""``!duell @person [game]`` (``!duel``): a room of its own for one game (a mixin of
``MatrixBot``), Matrix's nearest equivalent of Telegram's inline mode. The people are named
by pills (``m.mentions``, links to ``matrix.to``) or typed Matrix ids; the service says what
the words ask for (``Service.duel_plan``: the game, the room's name, or why not); the bot
makes the room - invite only, encrypted like the direct rooms it opens
(``MATRIX_ENCRYPT_NEW_DMS``), the opener and the people invited - and the service opens its
table there (``Service.open_duel``): it starts once everybody named has joined it, and the bot
leaves the room when the game is over (an outbox ``leave`` row). Where the message names
nobody, the service's own answer says how it works.
"""

from __future__ import annotations

import asyncio
import dataclasses
import html
import logging
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from nio import RoomCreateResponse, RoomPreset

from ..i18n import tr
from ..service import ChatRef, UserRef
from .memory import PLATFORM
from .rooms import localpart
from .sender import _NETWORK

if TYPE_CHECKING:
    from ..service import Outcome

log = logging.getLogger(__name__)
_USER_ID = re.compile(r"@[A-Za-z0-9._=\-/+]+:[A-Za-z0-9.\-]+(?::\d+)?")
_PILL = re.compile(r"""<a\s[^>]*href=["']https://matrix\.to/#/(@[^"'>?]+)[^"'>]*["'][^>]*>"""
                   r"(.*?)</a>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
MOST = 7  # people a duel may name (the largest table, Scat's, less its opener)


def named(content: dict[str, Any], bot_id: str, sender: str) -> tuple[list[str], list[str]]:
    """The Matrix ids a message names (its ``m.mentions``, its pills, ids typed in its text),
    in order, each once, neither the bot nor the sender; and the names its pills show."""
    found: list[str] = []
    shown: list[str] = []
    mentions = content.get("m.mentions")
    ids = mentions.get("user_ids") if isinstance(mentions, dict) else None
    found += [i for i in ids or () if isinstance(i, str)]
    formatted = content.get("formatted_body")
    if content.get("format") == "org.matrix.custom.html" and isinstance(formatted, str):
        for href, text in _PILL.findall(formatted):
            found.append(unquote(href))
            shown.append(html.unescape(_TAG.sub("", text)).strip())
    body = content.get("body")
    found += _USER_ID.findall(body) if isinstance(body, str) else []
    people = [p for p in dict.fromkeys(found) if p not in (bot_id, sender)
              and _USER_ID.fullmatch(p)]
    return people[:MOST + 1], [s for s in shown if s]


def game_words(args: str, people: list[str], shown: list[str]) -> str:
    """The words of ``!duell`` that are not the people named (the game, if any)."""
    rest = args
    for text in sorted([*people, *shown], key=len, reverse=True):
        rest = rest.replace(text, " ")
    return " ".join(w for w in rest.split() if not w.startswith("@"))


class DuelsMixin:
    """``!duell``: a room for one game."""

    if TYPE_CHECKING:  # (the bot's)
        client: Any
        service: Any
        user_id: str
        e2e: bool
        cfg: Any

        async def _say(self, chat_ref: ChatRef, text: str) -> None: ...
        async def _answer(self, chat_ref: ChatRef, user: UserRef, outcome: Outcome,
                          pressed: bool = False) -> None: ...
        async def _ensure_dm(self, group: ChatRef, user: UserRef,
                             table_id: int | None) -> str | None: ...
        def _applied(self, key: str) -> bool: ...

    async def _duel(self, chat_ref: ChatRef, user: UserRef, content: dict[str, Any],
                    args: str, key: str, lang: str) -> None:
        people, shown = named(content, self.user_id, user.external_id)
        if not people:  # the service says how it works
            outcome = await asyncio.to_thread(self.service.command, chat_ref, user, "duel",
                                              args, key)
            if outcome.text:
                await self._answer(chat_ref, user, outcome)
            return
        if await asyncio.to_thread(self._applied, key):
            return  # (opened before a restart: the message came again)
        room = self.client.rooms.get(chat_ref.external_id) if self.client else None
        names = [((room.user_name(p) if room is not None else None) or localpart(p))[:64]
                 for p in people]
        plan = self.service.duel_plan(PLATFORM, dataclasses.replace(user, language=lang),
                                      game_words(args, people, shown), names)
        if plan.refusal is not None:
            await self._say(chat_ref, plan.refusal)
            return
        room_id = await self._duel_room(plan.room, [user.external_id, *people])
        if room_id is None:
            await self._say(chat_ref, tr(lang, "duel.failed"))
            return
        duel = ChatRef(PLATFORM, room_id, "group", plan.room)
        outcome = await asyncio.to_thread(self.service.open_duel, duel, user, plan.game,
                                          len(people), key)
        if not outcome.ok:
            await self._say(chat_ref, outcome.text or tr(lang, "duel.failed"))
            return
        await self._ensure_dm(duel, user, outcome.table_id)
        await self._say(chat_ref, tr(lang, "duel.opened", room=plan.room,
                                     game=tr(lang, f"game.{plan.game}")))

    async def _duel_room(self, name: str, invite: list[str]) -> str | None:
        """A new invite-only room for the game (encrypted like the direct rooms the bot
        opens), the people invited; ``None`` where the homeserver refused it."""
        initial = []
        if self.e2e and self.cfg.matrix_encrypt_new_dms:
            initial.append({"type": "m.room.encryption", "state_key": "",
                            "content": {"algorithm": "m.megolm.v1.aes-sha2"}})
        try:
            resp = await self.client.room_create(name=name, invite=invite,
                                                 preset=RoomPreset.private_chat,
                                                 initial_state=initial)
        except _NETWORK as exc:
            resp = exc
        if not isinstance(resp, RoomCreateResponse):
            log.warning("could not open a room for a duel of %s: %s", invite, resp)
            return None
        log.info("opened %s for a duel of %s", resp.room_id, invite)
        return resp.room_id
