"""Builders of Bot API objects (users, chats, messages) and the parameter helpers of the
fake's methods: a mix-in of ``FakeBotApi``.
"""

from __future__ import annotations

import copy
from typing import Any

from tests.fakes.bot_api.markup import _inline, parse_html
from tests.fakes.bot_api.records import _Msg
from tests.fakes.bot_api.wire import FORBIDDEN_REASONS, ApiError, _u16len


class _Objects:
    """Users, chats and messages as JSON; reading and checking method parameters."""

    # ---------------------------------------------------------------- object builders

    def _bot_user(self) -> dict:
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": self.bot_first_name,
            "username": self.bot_username,
        }

    def _register_user(
        self,
        user_id: int,
        first_name: str | None = None,
        language_code: str | None = "de",
        username: str | None = None,
    ) -> dict:
        user = self._users.get(user_id)
        if user is None:
            user = {"id": user_id, "is_bot": False, "first_name": first_name or f"User {user_id}"}
            self._users[user_id] = user
        elif first_name:
            user["first_name"] = first_name
        if language_code:
            user["language_code"] = language_code
        if username:
            user["username"] = username
        return dict(user)

    def _chat_obj(self, chat_id: int) -> dict:
        chat = self._chats.get(chat_id)
        if chat is not None:
            return dict(chat)
        if chat_id > 0:
            user = self._users.get(chat_id, {})
            chat = {
                "id": chat_id,
                "type": "private",
                "first_name": user.get("first_name", f"User {chat_id}"),
            }
            if "username" in user:
                chat["username"] = user["username"]
            return chat
        ctype = "supergroup" if chat_id <= -1_000_000_000_000 else "group"
        return {"id": chat_id, "type": ctype, "title": f"Stammtisch Test {abs(chat_id)}"}

    def _register_chat(
        self, chat_id: int, chat_type: str | None, title: str | None, user: dict
    ) -> dict:
        if chat_type is None:
            existing = self._chats.get(chat_id)
            chat_type = existing["type"] if existing else self._chat_obj(chat_id)["type"]
        if chat_type == "private":
            chat = {"id": chat_id, "type": "private", "first_name": user["first_name"]}
            if "username" in user:
                chat["username"] = user["username"]
        else:
            old_title = (self._chats.get(chat_id) or self._chat_obj(chat_id)).get("title")
            chat = {
                "id": chat_id,
                "type": chat_type,
                "title": title or old_title or f"Stammtisch Test {abs(chat_id)}",
            }
            if chat_id in self._topics:
                chat["is_forum"] = True
        self._chats[chat_id] = chat
        return dict(chat)

    def _message_json(self, m: _Msg, with_reply: bool = True) -> dict:
        if m.raw is not None:
            return copy.deepcopy(m.raw)
        d: dict[str, Any] = {
            "message_id": m.message_id,
            "from": dict(m.from_user),
            "chat": self._chat_obj(m.chat_id),
            "date": m.date,
        }
        if m.edit_date is not None:
            d["edit_date"] = m.edit_date
        self._thread_fields(m, d, m.chat_id in self._topics)
        if with_reply and m.reply_to is not None:
            replied = self._msgs.get(m.chat_id, {}).get(m.reply_to)
            if replied is not None and not replied.deleted:
                d["reply_to_message"] = self._message_json(replied, with_reply=False)
        if m.text is not None:
            d["text"] = m.text
        if m.entities:
            d["entities"] = copy.deepcopy(m.entities)
        inline = _inline(m.reply_markup)
        if inline:
            d["reply_markup"] = copy.deepcopy(inline)
        return d

    def _msg_state(self, m: _Msg) -> dict:
        return {
            "chat_id": m.chat_id,
            "message_id": m.message_id,
            "from_bot": m.from_bot,
            "text": m.text,
            "entities": copy.deepcopy(m.entities),
            "raw_text": m.raw_text,
            "parse_mode": m.parse_mode,
            "reply_markup": copy.deepcopy(m.reply_markup),
            "deleted": m.deleted,
            "edit_count": len(m.history),
            "history": copy.deepcopy(m.history),
            "date": m.date,
            "edit_date": m.edit_date,
            "reply_to_message_id": m.reply_to,
            "message_thread_id": m.thread,
        }

    def _new_message_id(self, chat_id: int) -> int:
        mid = self._next_msg_id.get(chat_id, 1)
        self._next_msg_id[chat_id] = mid + 1
        return mid

    def _store(self, m: _Msg) -> _Msg:
        self._msgs.setdefault(m.chat_id, {})[m.message_id] = m
        self._next_msg_id[m.chat_id] = max(self._next_msg_id.get(m.chat_id, 1), m.message_id + 1)
        return m

    # ---------------------------------------------------------------- parameter helpers

    @staticmethod
    def _int_param(p: dict, key: str, missing: str) -> int:
        value = p.get(key)
        if value is None or value == "" or isinstance(value, bool):
            raise ApiError(400, missing)
        try:
            return int(value)
        except (TypeError, ValueError):
            raise ApiError(400, f"Bad Request: invalid {key} specified") from None

    def _chat_id(self, p: dict) -> int:
        value = p.get("chat_id")
        if value is None or value == "":
            raise ApiError(400, "Bad Request: chat_id is empty")
        try:
            chat_id = int(value)
        except (TypeError, ValueError):
            raise ApiError(400, "Bad Request: chat not found") from None
        self._check_migrated(chat_id)  # (an upgraded group's old id: refused)
        return chat_id

    def _find_msg(self, chat_id: int, message_id: int, what: str) -> _Msg:
        m = self._msgs.get(chat_id, {}).get(message_id)
        if m is None or m.deleted:
            raise ApiError(400, f"Bad Request: message to {what} not found")
        return m

    @staticmethod
    def _text(p: dict) -> tuple[str, str | None, str, list | None]:
        raw = p.get("text")
        if raw is None or raw == "":
            raise ApiError(400, "Bad Request: message text is empty")
        raw = str(raw)
        mode = p.get("parse_mode") or None
        if mode and str(mode).lower() == "html":
            text, entities = parse_html(raw)
        else:
            text = raw
            entities = p.get("entities") or None
            if entities is not None and not isinstance(entities, list):
                raise ApiError(400, "Bad Request: can't parse entities JSON object")
        if not text.strip():
            raise ApiError(400, "Bad Request: message text is empty")
        if _u16len(text) > 4096:
            raise ApiError(400, "Bad Request: message is too long")
        return raw, mode, text, entities

    def _check_can_send(self, chat_id: int) -> None:
        if self._outside(chat_id):  # (``without_bot``: a chat the bot is not in)
            if chat_id > 0:
                raise ApiError(400, "Bad Request: chat not found")
            raise ApiError(403, "Forbidden: bot is not a member of the group chat")
        reason = self._forbidden.get(chat_id)
        if reason is not None:
            raise ApiError(403, FORBIDDEN_REASONS.get(reason, reason))
        if self.require_start and chat_id > 0 and chat_id not in self._started:
            raise ApiError(403, FORBIDDEN_REASONS["not_started"])
