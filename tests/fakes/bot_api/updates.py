"""Control of incoming updates: inject an update, a text message or a button press, redeliver,
and look at pending updates and query answers; a mix-in of ``FakeBotApi``.
"""

from __future__ import annotations

import contextlib
import copy
import time
from collections.abc import Iterator
from typing import Any

from tests.fakes.bot_api.markup import _button_data
from tests.fakes.bot_api.records import _Msg, _Pending
from tests.fakes.bot_api.wire import _COMMAND, _u16len


class _UpdateControl:
    """Makes users write and press buttons."""

    # ---------------------------------------------------------------- control: updates

    def _enqueue(self, update: dict, update_id: int | None) -> int:
        if update_id is None:
            uid, force = self._next_update_id, False
        else:
            uid, force = int(update_id), True
        self._next_update_id = max(self._next_update_id, uid + 1)
        update = {"update_id": uid, **{k: v for k, v in update.items() if k != "update_id"}}
        self._pending.append(_Pending(uid, update, force))
        self._pending.sort(key=lambda e: e.update_id)
        self._injected[uid] = copy.deepcopy(update)
        self._wake_waiters()
        return uid

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Updates injected inside the block reach the bot together (one getUpdates answer,
        or posted to the webhook at once up to max_connections), as when several people press
        at once."""
        with self._cond:
            yield

    def _wake_waiters(self) -> None:
        """Updates, the webhook or the poll generation changed (call with the lock held)."""
        self._cond.notify_all()
        self._polls.notify_all()
        self._hooks.notify_all()

    def inject_update(self, update: dict) -> int:
        """Queue a full Update object. If it has an ``update_id`` that id is used and the update
        is delivered once even if that id was already confirmed (for duplicate-update tests);
        otherwise the next id is assigned. A contained ``message`` is added to the message
        store (``message_id``/``date`` filled in if missing). Returns the update_id."""
        update = copy.deepcopy(update)
        with self._cond:
            msg = update.get("message")
            if isinstance(msg, dict) and isinstance(msg.get("chat"), dict) and "id" in msg["chat"]:
                chat_id = int(msg["chat"]["id"])
                if "message_id" not in msg:
                    msg["message_id"] = self._new_message_id(chat_id)
                msg.setdefault("date", int(time.time()))
                self._chats.setdefault(chat_id, dict(msg["chat"]))
                sender = msg.get("from")
                if isinstance(sender, dict) and "id" in sender:
                    self._users.setdefault(int(sender["id"]), dict(sender))
                    if chat_id == int(sender["id"]):
                        self._mark_started(chat_id)
                self._store(
                    _Msg(
                        chat_id=chat_id,
                        message_id=int(msg["message_id"]),
                        from_bot=bool((sender or {}).get("is_bot")),
                        date=int(msg["date"]),
                        from_user=dict(sender or {}),
                        text=msg.get("text"),
                        entities=msg.get("entities"),
                        raw_text=msg.get("text"),
                        raw=copy.deepcopy(msg),
                    )
                )
            return self._enqueue(update, update.get("update_id"))

    def _mark_started(self, user_id: int) -> None:
        self._started.add(user_id)
        if self._forbidden.get(user_id) in ("not_started", "blocked"):
            del self._forbidden[user_id]

    def send_text(
        self,
        chat_id: int,
        user_id: int,
        text: str,
        *,
        chat_type: str | None = None,
        user_first_name: str | None = None,
        language_code: str | None = "de",
        username: str | None = None,
        chat_title: str | None = None,
        reply_to_message_id: int | None = None,
        update_id: int | None = None,
        topic: int | None = None,
    ) -> int:
        """Inject a text message from a user; a leading /command gets a bot_command entity.
        chat_id > 0 → private chat (type "private"), < 0 → "group" (or "supergroup" for
        -100… ids) unless chat_type is given; ``topic``: written in that forum topic (see
        ``make_forum``, ``create_topic``). Returns the update_id (the message is stored
        with the next message_id of that chat, see ``get_update``/``messages(include_user=True)``)."""
        with self._cond:
            chat_id, user_id = int(chat_id), int(user_id)
            user = self._register_user(user_id, user_first_name, language_code, username)
            chat = self._register_chat(chat_id, chat_type, chat_title, user)
            msg: dict[str, Any] = {
                "message_id": self._new_message_id(chat_id),
                "from": user,
                "chat": chat,
                "date": int(time.time()),
                "text": text,
            }
            match = _COMMAND.match(text)
            if match:
                msg["entities"] = [
                    {"type": "bot_command", "offset": 0, "length": _u16len(match.group(0))}
                ]
            thread, in_topic, reply_to_message_id = self._thread_of_new(
                chat_id, topic, reply_to_message_id)
            if thread is not None:
                msg["message_thread_id"] = thread
            if in_topic:
                msg["is_topic_message"] = True
            if reply_to_message_id is not None:
                replied = self._msgs.get(chat_id, {}).get(int(reply_to_message_id))
                if replied is not None:
                    msg["reply_to_message"] = self._message_json(replied, with_reply=False)
            if chat["type"] == "private":
                self._mark_started(user_id)
            self._store(
                _Msg(
                    chat_id=chat_id,
                    message_id=msg["message_id"],
                    from_bot=False,
                    date=msg["date"],
                    from_user=user,
                    text=text,
                    entities=msg.get("entities"),
                    raw_text=text,
                    reply_to=reply_to_message_id,
                    raw=copy.deepcopy(msg),
                    thread=thread,
                )
            )
            return self._enqueue({"message": msg}, update_id)

    def press(
        self,
        chat_id: int,
        user_id: int,
        message_id: int,
        data: str,
        *,
        check_data: bool = True,
        user_first_name: str | None = None,
        language_code: str | None = "de",
        update_id: int | None = None,
    ) -> int:
        """Inject a callback_query for pressing the button with ``data`` on the stored message.
        With check_data (default) the data must be on the message's current inline keyboard
        (else ValueError). Returns the update_id; the query id is
        ``get_update(uid)["callback_query"]["id"]``."""
        with self._cond:
            chat_id, user_id, message_id = int(chat_id), int(user_id), int(message_id)
            m = self._msgs.get(chat_id, {}).get(message_id)
            if m is None or m.deleted:
                raise ValueError(f"press: no message {message_id} in chat {chat_id}")
            if check_data and data not in _button_data(m.reply_markup):
                raise ValueError(
                    f"press: callback_data {data!r} is not on the keyboard of message "
                    f"{message_id} in chat {chat_id}: {_button_data(m.reply_markup)}"
                )
            user = self._register_user(user_id, user_first_name, language_code)
            if chat_id == user_id:
                self._mark_started(user_id)
            qid = str(4_000_000_000_000_000 + self.bot_id * 1000 + next(self._query_counter))
            query = {
                "id": qid,
                "from": user,
                "message": self._message_json(m),
                "chat_instance": str(-(8_000_000_000_000_000 + chat_id)),
                "data": data,
            }
            uid = self._enqueue({"callback_query": query}, update_id)
            self._queries[qid] = {
                "update_id": uid,
                "chat_id": chat_id,
                "message_id": message_id,
                "data": data,
                "answered": False,
                "answer": None,
            }
            return uid

    def redeliver(self, update_id: int) -> int:
        """Queue an earlier injected update again with the same update_id (a duplicate)."""
        with self._cond:
            if update_id not in self._injected:
                raise KeyError(f"unknown update_id {update_id}")
            return self._enqueue(copy.deepcopy(self._injected[update_id]), update_id)

    def get_update(self, update_id: int) -> dict | None:
        """The injected update with that id (as queued)."""
        with self._lock:
            u = self._injected.get(int(update_id))
            return copy.deepcopy(u) if u is not None else None

    def pending_updates(self) -> list[dict]:
        """Updates not yet confirmed (or delivered via webhook)."""
        with self._lock:
            return [copy.deepcopy(e.update) for e in self._pending]

    def query_answer(self, update_id: int) -> dict | None:
        """For a press() update: {"answered": bool, "answer": {text, show_alert, ...} | None}."""
        with self._lock:
            for q in self._queries.values():
                if q["update_id"] == update_id:
                    return {"answered": q["answered"], "answer": copy.deepcopy(q["answer"])}
            return None
