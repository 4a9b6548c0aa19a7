"""What people type and react in Matrix rooms, made into service calls (a mixin of
``MatrixBot``): ``!commands``, numbers and card names that pick choices of a view, reactions on
a view, edits of a message that was not applied yet, and messages that mention the bot."""

from __future__ import annotations

import asyncio
import contextvars
import html
import logging
import re
from typing import Any
from urllib.parse import unquote

from nio import ReactionEvent, RoomGetEventResponse, RoomMessageText
from sqlmodel import Session, select

from storage.models import ProcessedUpdate

from ..i18n import tr
from ..service import ChatRef, Outcome, UserRef
from .duels import DuelsMixin
from .memory import PLATFORM
from .render import (
    Intent,
    card_of_label,
    cards_of_label,
    find_choices,
    labelled,
    norm_key,
    numbered,
    parse,
    reaction_for,
)
from .rooms import INPUT_THREAD, localpart, thread_root
from .typed_moves import MovesMixin, replied_to

# the input being handled (room, "<id>" or "<thread root> <id>"): answers in that room reply
_ANSWERING: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar(
    "matrix_answering", default=None)
# the input being handled is a reaction (its answer in a group names the person)
_REACTION: contextvars.ContextVar[bool] = contextvars.ContextVar("matrix_reaction",
                                                                 default=False)
_CARD = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])[♣♠♥♦]")
# A pill: a link to a Matrix user (``https://matrix.to/#/@bot:example.org``) and its text.
_PILL = re.compile(r"""<a\s[^>]*href=["']https://matrix\.to/#/([^"'>]+)["'][^>]*>(.*?)</a>""",
                   re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
log = logging.getLogger(__name__)


class InputsMixin(MovesMixin, DuelsMixin):
    """Text and reactions → service commands and presses (``!duell``: ``duels``)."""

    async def _on_text(self, room_id: str, event: RoomMessageText) -> None:
        content = event.source.get("content") or {}
        token = _ANSWERING.set((room_id, _answer_to(event.event_id, content)))
        in_thread = INPUT_THREAD.set(thread_root(content))
        try:
            await self._read(room_id, event.sender, event.event_id, content)
        finally:
            INPUT_THREAD.reset(in_thread)
            _ANSWERING.reset(token)

    async def _on_edit(self, room_id: str, event: RoomMessageText) -> None:
        """An edited message (``m.replace``, e.g. "13" made "3"): its new form is read as an
        input of its own, unless the message was applied already (as a choice, a move or a
        command) - under the original's id, so that an input and its edits count once. A
        number picks from the choice list that is live now; new chatter gets no answer. Only
        the original's sender may edit it (the spec's rule: anyone else's ``m.replace`` is
        ignored), so the original's id names one person's input."""
        content = event.source.get("content") or {}
        relates = content.get("m.relates_to") or {}
        original = relates.get("event_id")
        new = content.get("m.new_content")
        if not isinstance(original, str) or not original or not isinstance(new, dict) \
                or new.get("msgtype", "m.text") != "m.text":
            return
        author, root = await self._origin(room_id, original)
        if author != event.sender:
            log.info("edit %s of %s by %s ignored: the message is %s's", event.event_id,
                     original, event.sender, author)
            return
        if await asyncio.to_thread(self._applied, original):
            return
        in_thread = INPUT_THREAD.set(root)  # (the edited message's thread)
        try:
            await self._read(room_id, event.sender, original, new, edit=True)
        finally:
            INPUT_THREAD.reset(in_thread)

    async def _origin(self, room_id: str, event_id: str) -> tuple[str | None, str | None]:
        """Who sent an event of the room and in which thread (asked of the homeserver);
        ``None`` where unknown."""
        if self.client is None:
            return None, None
        resp = await self.client.room_get_event(room_id, event_id)
        if not isinstance(resp, RoomGetEventResponse):
            return None, None
        sender = getattr(resp.event, "sender", None)
        source = getattr(resp.event, "source", None) or {}
        return (sender if isinstance(sender, str) else None,
                thread_root(source.get("content") or {}))

    def _applied(self, key: str) -> bool:
        """Whether an input with this key changed something (the service records the keys
        of the inputs it carried out; a refused one is rolled back with its key)."""
        with Session(self.service.engine) as session:
            return session.exec(select(ProcessedUpdate.id).where(
                ProcessedUpdate.platform == PLATFORM,
                ProcessedUpdate.update_key == key).limit(1)).first() is not None

    def _mentioned(self, content: dict[str, Any]) -> tuple[bool, tuple[str, ...]]:
        """Whether a message mentions the bot (``m.mentions``, or a pill to it in the HTML),
        and the names its pills show (the text the body starts with)."""
        mentions = content.get("m.mentions")
        ids = mentions.get("user_ids") if isinstance(mentions, dict) else None
        mentioned = isinstance(ids, list) and self.user_id in ids
        names: list[str] = []
        formatted = content.get("formatted_body")
        if content.get("format") == "org.matrix.custom.html" and isinstance(formatted, str):
            for href, shown in _PILL.findall(formatted):
                if unquote(href).split("?", 1)[0] == self.user_id:
                    mentioned = True
                    names.append(html.unescape(_TAG.sub("", shown)).strip())
        return mentioned, tuple(n for n in names if n)

    async def _read(self, room_id: str, sender: str, key: str, content: dict[str, Any],
                    edit: bool = False) -> None:
        """One text input (``key``: its id for the service, once only)."""
        body = content.get("body")
        if not isinstance(body, str):
            return
        names = (self.user_id, localpart(self.user_id), "@" + localpart(self.user_id))
        room = self.client.rooms.get(room_id) if self.client else None
        if room is not None and room.user_name(self.user_id):
            names += (room.user_name(self.user_id) or "",)
        mentioned, pills = self._mentioned(content)
        intent = parse(body, names + pills, mentioned, self.service.command_words())
        if edit and intent.kind == "chat":
            return  # (chatter edited: it had its answer)
        chat_ref, user = await self._refs(room_id, sender)
        if intent.kind in ("choice", "choices", "move", "arrow") and self.sender is not None:
            await self.sender.settled(room_id)
        private = chat_ref.kind == "private"
        lang = await self._lang(room_id)
        if intent.kind == "chat":
            if private:
                await self._say(chat_ref, tr(lang, "unknown_command") + "\n" + tr(lang, "mx.hint"))
            return
        if intent.kind in ("choice", "choices"):
            items = intent.items or (str(intent.number),)
            await self._choice(chat_ref, user, key, content, items, lang)
            return
        if intent.kind == "arrow":  # "<" / ">": the ◀ / ▶ of the room's newest view
            rows = await asyncio.to_thread(self.memory.newest_buttons, room_id) or []
            data = next((d for label, d in rows if label.strip() == intent.name), None)
            if data is not None:
                await self._press(chat_ref, user, data, key)
            elif private:
                await self._say(chat_ref, tr(lang, "mx.not_now"))
            return
        if intent.kind == "move":
            data, several = await self._find_button(chat_ref, user, intent.name,
                                                    replied_to(content))
            if data is not None:
                await self._press(chat_ref, user, data, key)
                return
            if several:  # (never silently another table's)
                await self._say(chat_ref, await self._which_table(several, lang))
                return
            if intent.name not in ("start", "cards"):
                await self._say(chat_ref, tr(lang, "mx.not_now"))
                return
            intent = Intent("command", intent.name, intent.args)  # (no table: /start, /karten)
        if intent.name == "duel":  # a room of its own for one game (``duels``)
            await self._duel(chat_ref, user, content, intent.args, key, lang)
            return
        await self._command(chat_ref, user, intent, key, lang)

    async def _choice(self, chat_ref: ChatRef, user: UserRef, key: str,
                      content: dict[str, Any], items: tuple[str, ...], lang: str) -> None:
        """Numbers or cards pick from the newest choice list of the room (the lowest on
        screen), or from the view the message replies to while that view is current. A reply
        to one of our messages that offers nothing any more changes nothing. In a group a
        number counts only from the person on turn (anyone in a lobby or menu) and only in
        range; otherwise it is chatter. Several numbers or cards are all read from the same
        view first, then pressed in turn (the first refusal stops the rest)."""
        room_id, private = chat_ref.external_id, chat_ref.kind == "private"
        # (the views of the input's thread: two threads may run two tables)
        views = [v for v in await asyncio.to_thread(self.memory.live_views, room_id)
                 if private or v.thread == chat_ref.thread]
        replied = replied_to(content)  # (a thread's fallback is no reply)
        view = views[0] if views else None
        if replied and await asyncio.to_thread(self.memory.is_ours, room_id, replied):
            view = next((v for v in views if v.message_id == replied), None)
            if view is None:  # that choice is gone: say so, and what is there now
                current = labelled(numbered(views[0].buttons), lang) if views else []
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
        info = await asyncio.to_thread(self.service.table_info, view.table_id) \
            if view.table_id else None
        if not private and info is not None and info.fsm_state != "lobby" \
                and info.on_turn != user.external_id:
            return  # in a group, not the person on turn: chatter
        found, wrong_numbers, wrong_cards = find_choices(items, view.buttons)
        if wrong_cards and not wrong_numbers and not found and not any(
                card_of_label(label) or cards_of_label(label) for label, _ in view.buttons):
            if private:  # cards where no cards are offered ("ah"): chatter
                await self._say(chat_ref, tr(lang, "unknown_command") + "\n" + tr(lang, "mx.hint"))
            return
        if wrong_numbers or wrong_cards:
            if private:
                text = tr(lang, "mx.no_card", cards=" ".join(wrong_cards)) if wrong_cards \
                    else tr(lang, "mx.pick", n=len(numbered(view.buttons)))
                await self._say(chat_ref, text)
            return
        if len(found) == 1:
            await self._press(chat_ref, user, found[0], key)
        else:
            await self._press_all(chat_ref, user, found, key)
        tables = {v.table_id for v in views if v.table_id}
        if private and info is not None and len(tables) > 1:  # which table it went to
            game = tr(lang, f"game.{info.game}")
            await self._say(chat_ref, tr(lang, "mx.applied_group", game=game, group=info.group)
                            if info.group is not None else tr(lang, "mx.applied", game=game))

    async def _press_all(self, chat_ref: ChatRef, user: UserRef, found: list[str],
                         key: str) -> None:
        """Press several buttons of one view in turn (each once: ``key``, ``key#1``, …); the
        first refusal is said and stops the rest, else the last answer is said."""
        last: Outcome | None = None
        for i, data in enumerate(found):
            outcome = await asyncio.to_thread(self.service.press, chat_ref, user, data,
                                              key if i == 0 else f"{key}#{i}")
            if chat_ref.kind == "group" and outcome.ok and outcome.changed:
                await self._ensure_dm(chat_ref, user, outcome.table_id)
            if not outcome.ok:
                if outcome.text:
                    await self._answer(chat_ref, user, outcome, pressed=True)
                return
            if outcome.text:
                last = outcome
        if last is not None:
            await self._answer(chat_ref, user, last, pressed=True)

    async def _command(self, chat_ref: ChatRef, user: UserRef, intent: Intent, key: str,
                       lang: str) -> None:
        declared = self.service.registry.command(intent.name)
        if declared is None and chat_ref.kind == "group":
            return  # maybe another bot's command: in groups we answer only our own
        answering = _ANSWERING.get()  # (its answers in the room are replies to it)
        answer_to = answering[1] if answering and answering[0] == chat_ref.external_id \
            else None
        outcome = await asyncio.to_thread(self.service.command, chat_ref, user, intent.name,
                                          intent.args, key, answer_to)
        name = declared.name if declared is not None else intent.name
        if outcome.text and name != "language":
            await self._answer(chat_ref, user, outcome)
        if name in ("help", "start"):
            await self._say(chat_ref, tr(lang, "mx.how"))
        if chat_ref.kind == "group" and name == "new" and outcome.ok:
            await self._ensure_dm(chat_ref, user, outcome.table_id)

    async def _on_reaction(self, room_id: str, event: ReactionEvent) -> None:
        if self.sender is not None:
            await self.sender.settled(room_id)
        rows = await asyncio.to_thread(self.memory.message_buttons, room_id, event.reacts_to)
        if rows is None:
            return  # not one of our views
        want = norm_key(event.key)
        data = next((d for _label, d in rows
                     if (key := reaction_for(d)) is not None and norm_key(key) == want), None)
        # (a reaction names no thread: the reacted message's; its answer replies to that)
        root = await asyncio.to_thread(self.memory.thread_of, room_id, event.reacts_to)
        in_thread = INPUT_THREAD.set(root)
        try:
            chat_ref, user = await self._refs(room_id, event.sender)
        finally:
            INPUT_THREAD.reset(in_thread)
        if data is None:
            if chat_ref.kind == "private":
                await self._say(chat_ref, tr(await self._lang(room_id), "mx.not_now"))
            return
        answering = _ANSWERING.set((room_id, f"{root} {event.reacts_to}" if root
                                    else event.reacts_to))
        reaction = _REACTION.set(True)
        try:
            await self._press(chat_ref, user, data, event.event_id)
        finally:
            _REACTION.reset(reaction)
            _ANSWERING.reset(answering)

    async def _press(self, chat_ref: ChatRef, user: UserRef, data: str, key: str) -> None:
        plan = None
        if self.service.press_policy(data).thinks:  # (on the bot's thinking threads)
            plan = await asyncio.get_running_loop().run_in_executor(
                self.thinkers, self.service.think, chat_ref, user, data)
        outcome = await asyncio.to_thread(self.service.press, chat_ref, user, data, key, plan)
        if outcome.text:
            await self._answer(chat_ref, user, outcome, pressed=True)
        if chat_ref.kind == "group" and outcome.ok and outcome.changed:
            await self._ensure_dm(chat_ref, user, outcome.table_id)

    async def _answer(self, chat_ref: ChatRef, user: UserRef, outcome: Outcome,
                      pressed: bool = False) -> None:
        """The short answer to an input. In a group room a press's acknowledgement
        ("Noted: ✅ I'll come", Telegram's passing notice) is not said: the view it changed
        shows it. Refusals (and a command's answer) are said aloud, as a reply; a refused
        reaction's reply names its person. A private answer (a hand, an alert) goes to the
        player's direct room, never to the group."""
        text = outcome.text or ""
        if chat_ref.kind == "private":
            await self._say(chat_ref, text)
            return
        secret = (outcome.ok and outcome.alert) or bool(_CARD.search(text))
        if not secret:
            if not outcome.ok or (outcome.table_id is None and not pressed):
                if _REACTION.get():  # (a reaction shows no name: say whose it was)
                    name = user.name.replace("[", "(").replace("]", ")")
                    text = f"[{name}](https://matrix.to/#/{user.external_id}): {text}"
                await self._say(chat_ref, text)
            return
        dm = await self._ensure_dm(chat_ref, user, None)
        if dm is not None:
            await self._say(ChatRef(PLATFORM, dm, "private"), text)

    async def _say(self, chat_ref: ChatRef, text: str) -> None:
        """Say something in a room: in the room of the input being handled, as a reply to it
        (in its thread, if it was written in one)."""
        answering = _ANSWERING.get()
        reply_to = answering[1] if answering and answering[0] == chat_ref.external_id \
            else None
        await asyncio.to_thread(self.service.reply, chat_ref, text, reply_to)


def _answer_to(event_id: str, content: dict[str, Any]) -> str:
    """What an answer to a message relates to: the message, and its thread's root if it was
    written in a thread (``"<root> <id>"``)."""
    relates = content.get("m.relates_to") or {}
    root = relates.get("event_id") if relates.get("rel_type") == "m.thread" else None
    return f"{root} {event_id}" if isinstance(root, str) and root else event_id
