"""What people type and react in Matrix rooms, made into service calls (a mixin of
``MatrixBot``): ``!commands``, numbers that pick a choice of a view, reactions on a view."""

from __future__ import annotations

import asyncio
import re

from nio import ReactionEvent, RoomMessageText

from ..i18n import tr
from ..service import ChatRef, Outcome, UserRef
from .render import Intent, code_of, norm_key, parse, reaction_for
from .rooms import localpart
from .store import PLATFORM

_CARD = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])[♣♠♥♦]")


class InputsMixin:
    """Text and reactions → service commands and presses."""

    async def _on_text(self, room_id: str, event: RoomMessageText) -> None:
        names = (self.user_id, localpart(self.user_id))
        room = self.client.rooms.get(room_id) if self.client else None
        if room is not None and room.user_name(self.user_id):
            names += (room.user_name(self.user_id) or "",)
        intent = parse(event.body, names)
        chat_ref, user = await self._refs(room_id, event.sender)
        if intent.kind in ("choice", "move") and self.sender is not None:
            await self.sender.settled(room_id)
        private = chat_ref.kind == "private"
        lang = await self._lang(room_id)
        if intent.kind == "chat":
            if private:
                await self._say(chat_ref, tr(lang, "unknown_command") + "\n" + tr(lang, "mx.how"))
            return
        if intent.kind == "choice":
            await self._choice(chat_ref, user, event, intent.number, lang)
            return
        if intent.kind == "move":
            data = await self._find_button(room_id, user, intent.name, private)
            if data is not None:
                await self._press(chat_ref, user, data, event.event_id)
                return
            if intent.name != "start":
                await self._say(chat_ref, tr(lang, "mx.not_now"))
                return
            intent = Intent("command", "start", intent.args)
        await self._command(chat_ref, user, intent, event.event_id, lang)

    async def _choice(self, chat_ref: ChatRef, user: UserRef, event: RoomMessageText,
                      number: int, lang: str) -> None:
        """A number picks from the newest choice list of the room (the lowest on screen), or
        from the view it replies to while that view is current. A reply to one of our
        messages that offers nothing any more (an old menu, a result) changes nothing. In a
        group a number counts only from the person on turn (anyone in a lobby or menu) and
        only in range; otherwise it is chatter."""
        room_id, private = chat_ref.external_id, chat_ref.kind == "private"
        views = await asyncio.to_thread(self.store.live_views, room_id)
        relates = (event.source.get("content") or {}).get("m.relates_to") or {}
        replied = (relates.get("m.in_reply_to") or {}).get("event_id")
        view = views[0] if views else None
        if replied and await asyncio.to_thread(self.store.is_ours, room_id, replied):
            view = next((v for v in views if v.message_id == replied), None)
            if view is None:  # that choice is gone: say so, and what is there now
                current = views[0].buttons if views else []
                text = tr(lang, "mx.gone")
                if current:
                    text += "\n" + "\n".join(f"{i}. {label}"
                                              for i, (label, _) in enumerate(current, 1))
                await self._say(chat_ref, text)
                return
        if view is None:
            if private:
                await self._say(chat_ref, tr(lang, "mx.nothing"))
            return
        info = await asyncio.to_thread(self.store.table_info, view.table_id) \
            if view.table_id else None
        if not private and info is not None and info.fsm_state != "lobby" \
                and info.on_turn != user.external_id:
            return  # in a group, not the person on turn: chatter
        if not 1 <= number <= len(view.buttons):
            if private:
                await self._say(chat_ref, tr(lang, "mx.pick", n=len(view.buttons)))
            return
        await self._press(chat_ref, user, view.buttons[number - 1][1], event.event_id)
        tables = {v.table_id for v in views if v.table_id}
        if private and info is not None and len(tables) > 1:  # which table it went to
            game = tr(lang, f"game.{info.game}")
            await self._say(chat_ref, tr(lang, "mx.applied_group", game=game, group=info.group)
                            if info.group is not None else tr(lang, "mx.applied", game=game))

    async def _find_button(self, room_id: str, user: UserRef, code: str,
                           private: bool) -> str | None:
        """The button with this code in the room's newest view, or in the player's direct
        room (a move typed in the group room)."""
        places = [room_id]
        if not private:
            dm = await asyncio.to_thread(self.store.private_chat, user.external_id)
            if dm:
                places.append(dm)
        for place in places:
            if place != room_id and self.sender is not None:
                await self.sender.settled(place)
            rows = await asyncio.to_thread(self.store.newest_buttons, place) or []
            for _label, data in rows:
                if code_of(data) == code:
                    return data
        return None

    async def _command(self, chat_ref: ChatRef, user: UserRef, intent: Intent, key: str,
                       lang: str) -> None:
        known = {"start", "help", "rules", "language", "new", "stop", "stats", "top"}
        if intent.name not in known and chat_ref.kind == "group":
            return  # maybe another bot's command: in groups we answer only our own
        outcome = await asyncio.to_thread(self.service.command, chat_ref, user, intent.name,
                                          intent.args, key)
        if outcome.text and intent.name != "language":
            await self._answer(chat_ref, user, outcome)
        if intent.name in ("help", "start"):
            await self._say(chat_ref, tr(lang, "mx.how"))
        if chat_ref.kind == "group" and intent.name == "new" and outcome.ok:
            await self._ensure_dm(chat_ref, user, outcome.table_id)

    async def _on_reaction(self, room_id: str, event: ReactionEvent) -> None:
        if self.sender is not None:
            await self.sender.settled(room_id)
        rows = await asyncio.to_thread(self.store.message_buttons, room_id, event.reacts_to)
        if rows is None:
            return  # not one of our views
        want = norm_key(event.key)
        data = next((d for _label, d in rows
                     if (key := reaction_for(d)) is not None and norm_key(key) == want), None)
        chat_ref, user = await self._refs(room_id, event.sender)
        if data is None:
            if chat_ref.kind == "private":
                await self._say(chat_ref, tr(await self._lang(room_id), "mx.not_now"))
            return
        await self._press(chat_ref, user, data, event.event_id)

    async def _press(self, chat_ref: ChatRef, user: UserRef, data: str, key: str) -> None:
        outcome = await asyncio.to_thread(self.service.press, chat_ref, user, data, key)
        if outcome.text:
            await self._answer(chat_ref, user, outcome)
        if chat_ref.kind == "group" and outcome.ok and outcome.changed:
            await self._ensure_dm(chat_ref, user, outcome.table_id)

    async def _answer(self, chat_ref: ChatRef, user: UserRef, outcome: Outcome) -> None:
        """The short answer to an input. In a group room only refusals are said aloud; a
        private answer (a hand) goes to the player's direct room, never to the group."""
        text = outcome.text or ""
        if chat_ref.kind == "private":
            await self._say(chat_ref, text)
            return
        secret = (outcome.ok and outcome.alert) or bool(_CARD.search(text))
        if not secret:
            if not outcome.ok or outcome.table_id is None:
                await self._say(chat_ref, text)
            return
        dm = await self._ensure_dm(chat_ref, user, None)
        if dm is not None:
            await self._say(ChatRef(PLATFORM, dm, "private"), text)

    async def _say(self, chat_ref: ChatRef, text: str) -> None:
        await asyncio.to_thread(self.service.reply, chat_ref, text)

