"""The implemented Bot API methods (``_api_<method>``): a mix-in of ``FakeBotApi``."""

from __future__ import annotations

import copy
import json
import re
import time
from typing import Any

from tests.fakes.bot_api.markup import _check_markup, _inline
from tests.fakes.bot_api.records import _Msg, _Pending
from tests.fakes.bot_api.wire import _NOT_DEFAULT_UPDATES, NOT_MODIFIED, ApiError


class _BotMethods:
    """getMe, getUpdates, sendMessage, editMessageText, ... on the fake's state."""

    # ---------------------------------------------------------------- Bot API methods

    def _api_getMe(self, p: dict) -> dict:
        me = self._bot_user()
        me.update(
            {
                "can_join_groups": True,
                "can_read_all_group_messages": False,
                "supports_inline_queries": bool(self.inline_mode),
                "has_topics_enabled": bool(self.private_topics),
                "allows_users_to_create_topics": bool(self.private_topics),
                "can_connect_to_business": False,
                "has_main_web_app": False,
            }
        )
        return me

    def _api_logOut(self, p: dict) -> bool:
        return True

    def _api_close(self, p: dict) -> bool:
        return True

    def _api_getUpdates(self, p: dict) -> list:
        if self._webhook.get("url"):
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        try:
            offset = int(p.get("offset") or 0)
            limit = max(1, min(100, int(p.get("limit") or 100)))
            timeout = max(0.0, min(float(p.get("timeout") or 0), self.max_poll_timeout))
        except (TypeError, ValueError):
            raise ApiError(400, "Bad Request: wrong parameter value") from None
        allowed = p.get("allowed_updates")
        if isinstance(allowed, list):
            self._allowed_updates = [str(a) for a in allowed] or None
        self._poll_gen += 1
        generation = self._poll_gen
        self._wake_waiters()  # terminates an older concurrent getUpdates
        self._confirm(offset)
        deadline = time.monotonic() + timeout
        self._waiting_polls += 1
        try:
            while True:
                ready = self._deliverable(offset, limit)
                if ready or self._closing:
                    break
                if self.conflict_on_concurrent_polls and generation != self._poll_gen:
                    raise ApiError(
                        409,
                        "Conflict: terminated by other getUpdates request; make "
                        "sure that only one bot instance is running",
                    )
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._polls.wait(remaining)
        finally:
            self._waiting_polls -= 1
        for entry in ready:
            entry.force = False
        return [copy.deepcopy(e.update) for e in ready]

    def _update_allowed(self, update: dict) -> bool:
        kind = next((k for k in update if k != "update_id"), None)
        if self._allowed_updates:
            return kind in self._allowed_updates
        return kind not in _NOT_DEFAULT_UPDATES

    def _confirm(self, offset: int) -> None:
        if offset > 0:
            self._pending = [e for e in self._pending if e.update_id >= offset or e.force]
        elif offset < 0:
            self._pending = self._pending[offset:]

    def _deliverable(self, offset: int, limit: int) -> list[_Pending]:
        self._pending = [e for e in self._pending if self._update_allowed(e.update)]
        ready = [e for e in self._pending if offset <= 0 or e.update_id >= offset or e.force]
        return ready[:limit]

    def _api_setWebhook(self, p: dict) -> bool:
        url = str(p.get("url") or "")
        if url and not url.startswith(("http://", "https://")):
            raise ApiError(
                400, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook"
            )
        if p.get("drop_pending_updates"):
            self._pending = []
        if not url:
            self._webhook = {}
            return True
        self._webhook = {"url": url, "max_connections": int(p.get("max_connections") or 40)}
        for key in ("secret_token", "ip_address"):
            if p.get(key):
                self._webhook[key] = str(p[key])
        if isinstance(p.get("allowed_updates"), list):
            self._allowed_updates = list(p["allowed_updates"]) or None
            self._webhook["allowed_updates"] = list(p["allowed_updates"])
        if "certificate" in p:
            self._webhook["has_custom_certificate"] = True
        self._ensure_webhook_workers()
        self._wake_waiters()
        return True

    def _api_deleteWebhook(self, p: dict) -> bool:
        self._webhook = {}
        if p.get("drop_pending_updates"):
            self._pending = []
        return True

    def _api_getWebhookInfo(self, p: dict) -> dict:
        info: dict[str, Any] = {
            "url": self._webhook.get("url", ""),
            "has_custom_certificate": self._webhook.get("has_custom_certificate", False),
            "pending_update_count": len(self._pending),
        }
        for key in (
            "max_connections",
            "ip_address",
            "allowed_updates",
            "last_error_date",
            "last_error_message",
        ):
            if key in self._webhook:
                info[key] = self._webhook[key]
        return info

    def _api_sendMessage(self, p: dict) -> dict:
        chat_id = self._chat_id(p)
        self._check_can_send(chat_id)
        thread = self._send_thread(chat_id, p)
        raw, mode, text, entities = self._text(p)
        markup = _check_markup(p.get("reply_markup"))
        reply_to = None
        rp = p.get("reply_parameters")
        if isinstance(rp, dict) and rp.get("message_id") is not None:
            reply_to = int(rp["message_id"])
            allow_missing = bool(rp.get("allow_sending_without_reply"))
        elif p.get("reply_to_message_id") not in (None, ""):
            reply_to = int(p["reply_to_message_id"])
            allow_missing = bool(p.get("allow_sending_without_reply"))
        if reply_to is not None:
            target = self._msgs.get(chat_id, {}).get(reply_to)
            if target is None or target.deleted:
                if not allow_missing:
                    raise ApiError(400, "Bad Request: message to be replied not found")
                reply_to = None
        m = _Msg(
            chat_id=chat_id,
            message_id=self._new_message_id(chat_id),
            from_bot=True,
            date=int(time.time()),
            from_user=self._bot_user(),
            text=text,
            entities=entities,
            raw_text=raw,
            parse_mode=mode,
            reply_markup=copy.deepcopy(markup),
            reply_to=reply_to if reply_to is not None else thread,  # (a topic's first)
            thread=thread,
        )
        self._store(m)
        return self._message_json(m)

    def _api_sendChatAction(self, p: dict) -> bool:
        chat_id = self._chat_id(p)
        self._check_can_send(chat_id)
        self._send_thread(chat_id, p)
        if not p.get("action"):
            raise ApiError(400, "Bad Request: action is empty")
        return True

    def _edit_target(self, p: dict) -> _Msg:
        chat_id = self._chat_id(p)
        mid = self._int_param(p, "message_id", "Bad Request: message identifier is not specified")
        m = self._find_msg(chat_id, mid, "edit")
        if not m.from_bot:
            raise ApiError(400, "Bad Request: message can't be edited")
        return m

    def _apply_edit(self, m: _Msg, raw, mode, text, entities, markup) -> dict:
        if (text, entities or None, _inline(markup)) == (
            m.text,
            m.entities or None,
            _inline(m.reply_markup),
        ):
            raise ApiError(400, NOT_MODIFIED)
        m.history.append(
            {
                "text": m.text,
                "entities": m.entities,
                "raw_text": m.raw_text,
                "parse_mode": m.parse_mode,
                "reply_markup": m.reply_markup,
                "edit_date": m.edit_date,
            }
        )
        m.text, m.entities, m.raw_text, m.parse_mode = text, entities, raw, mode
        m.reply_markup = copy.deepcopy(_inline(markup))
        m.edit_date = int(time.time())
        return self._message_json(m)

    def _api_editMessageText(self, p: dict) -> dict | bool:
        if p.get("inline_message_id"):
            return self._edit_inline(p)
        m = self._edit_target(p)
        raw, mode, text, entities = self._text(p)
        return self._apply_edit(m, raw, mode, text, entities, _check_markup(p.get("reply_markup")))

    def _api_editMessageReplyMarkup(self, p: dict) -> dict | bool:
        markup = _check_markup(p.get("reply_markup"))
        if p.get("inline_message_id"):
            return True
        m = self._edit_target(p)
        return self._apply_edit(m, m.raw_text, m.parse_mode, m.text, m.entities, markup)

    def _api_deleteMessage(self, p: dict) -> bool:
        chat_id = self._chat_id(p)
        mid = self._int_param(p, "message_id", "Bad Request: message identifier is not specified")
        self._find_msg(chat_id, mid, "delete").deleted = True
        return True

    def _api_deleteMessages(self, p: dict) -> bool:
        chat_id = self._chat_id(p)
        ids = p.get("message_ids")
        if not isinstance(ids, list) or not ids:
            raise ApiError(400, "Bad Request: message identifiers are not specified")
        for mid in ids:
            m = self._msgs.get(chat_id, {}).get(int(mid))
            if m is not None:
                m.deleted = True
        return True

    def _api_answerCallbackQuery(self, p: dict) -> bool:
        qid = str(p.get("callback_query_id") or "")
        query = self._queries.get(qid)
        if query is None or query["answered"]:
            raise ApiError(
                400,
                "Bad Request: query is too old and response timeout expired or query ID is invalid",
            )
        text = p.get("text")
        if text is not None and len(str(text)) > 200:
            raise ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        query["answered"] = True
        query["answer"] = {k: p[k] for k in ("text", "show_alert", "url", "cache_time") if k in p}
        return True

    @staticmethod
    def _scope_key(scope: Any) -> str:
        if not scope:
            return json.dumps({"type": "default"})
        if not isinstance(scope, dict) or "type" not in scope:
            raise ApiError(400, "Bad Request: can't parse BotCommandScope JSON object")
        return json.dumps(scope, sort_keys=True)

    def _api_setMyCommands(self, p: dict) -> bool:
        commands = p.get("commands")
        if not isinstance(commands, list):
            raise ApiError(400, "Bad Request: can't parse commands JSON object")
        if len(commands) > 100:
            raise ApiError(400, "Bad Request: too many commands")
        for c in commands:
            if not isinstance(c, dict) or not re.fullmatch(
                r"[a-z0-9_]{1,32}", str(c.get("command", ""))
            ):
                raise ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
            if not 1 <= len(str(c.get("description") or "")) <= 256:
                raise ApiError(400, "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID")
        key = (self._scope_key(p.get("scope")), str(p.get("language_code") or ""))
        if commands:
            self._commands[key] = [
                {"command": c["command"], "description": c["description"]} for c in commands
            ]
        else:
            self._commands.pop(key, None)
        return True

    def _api_getMyCommands(self, p: dict) -> list:
        key = (self._scope_key(p.get("scope")), str(p.get("language_code") or ""))
        return copy.deepcopy(self._commands.get(key, []))

    def _api_deleteMyCommands(self, p: dict) -> bool:
        key = (self._scope_key(p.get("scope")), str(p.get("language_code") or ""))
        self._commands.pop(key, None)
        return True

    def _api_getChat(self, p: dict) -> dict:
        chat = self._chat_obj(self._chat_id(p))
        chat.update(
            {
                "accent_color_id": 0,
                "max_reaction_count": 11,
                "accepted_gift_types": {
                    "unlimited_gifts": False,
                    "limited_gifts": False,
                    "unique_gifts": False,
                    "premium_subscription": False,
                    "gifts_from_channels": False,
                },
            }
        )
        return chat

    def _api_getChatMember(self, p: dict) -> dict:
        chat_id = self._chat_id(p)
        uid = self._int_param(p, "user_id", "Bad Request: user_id is empty")
        user = (
            self._bot_user() if uid == self.bot_id else self._register_user(uid, language_code=None)
        )
        return self._member(chat_id, user)  # (as ``set_status`` left it; "member" by default)

    def _api_leaveChat(self, p: dict) -> bool:
        self._chat_id(p)
        return True

    def _api_pinChatMessage(self, p: dict) -> bool:
        chat_id = self._chat_id(p)
        mid = self._int_param(p, "message_id", "Bad Request: message identifier is not specified")
        self._find_msg(chat_id, mid, "pin")
        return True

    def _api_unpinChatMessage(self, p: dict) -> bool:
        self._chat_id(p)
        return True

    def _api_setMyName(self, p: dict) -> bool:
        self._bot_profile["name"] = str(p.get("name") or "")
        return True

    def _api_setMyDescription(self, p: dict) -> bool:
        self._bot_profile["description"] = str(p.get("description") or "")
        return True

    def _api_setMyShortDescription(self, p: dict) -> bool:
        self._bot_profile["short_description"] = str(p.get("short_description") or "")
        return True
