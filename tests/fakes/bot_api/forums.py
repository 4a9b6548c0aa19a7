"""Forum supergroups and their topics: a mix-in of ``FakeBotApi``.

A forum is a supergroup whose chat object says ``is_forum``. A topic is named by the id of
its creation message (a ``forum_topic_created`` service message), which is its
``message_thread_id``; messages written in it carry that id and ``is_topic_message``, and
(unless they answer another message) reply to the creation message, as Telegram's do. The
General topic has no id: its messages carry none. A topic may be closed, reopened, renamed and
deleted (by the control API or by the bot's ``createForumTopic``/``closeForumTopic``/
``reopenForumTopic``/``deleteForumTopic``; ``createForumTopic`` only for a bot that is the
forum's administrator with ``can_manage_topics`` - ``set_status(chat, bot_id, "administrator",
("can_manage_topics",))`` - else 400 "Bad Request: not enough rights to create a topic", as
Telegram answers). What a person does to a topic (``user_id`` given to
``create_topic``, ``close_topic``, ``reopen_topic``, ``edit_topic``) Telegram posts in it as a
service message (``forum_topic_created``, ``…_closed``, ``…_reopened``, ``…_edited``) that
reaches the bot as an update; what the bot does itself does not. A message sent into a closed
topic is refused with
400 "Bad Request: TOPIC_CLOSED", into a deleted or unknown one with 400 "Bad Request: message
thread not found" - also in an ordinary supergroup, whose reply chains carry a thread id too
(the id of the chain's first message) that a message may not be sent with.

Topics in private chats (Bot API 9.3/9.4): where the bot's threaded mode is on
(``private_topics``; ``getMe``'s ``has_topics_enabled``) the bot creates topics in a person's
private chat with ``createForumTopic``, renames them (``editForumTopic``) and deletes them,
but cannot close them; messages carry their ``message_thread_id`` there. With threaded mode
off ``createForumTopic`` in a private chat is refused (400 "Bad Request:
BOT_FORUM_CREATE_FORBIDDEN"). The person may delete a topic (``delete_topic``): what the bot
sends into it then is refused as "message thread not found".
"""

from __future__ import annotations

import copy
import time
from typing import Any

from tests.fakes.bot_api.records import _Msg
from tests.fakes.bot_api.wire import ApiError

THREAD_NOT_FOUND = "Bad Request: message thread not found"
TOPIC_CLOSED = "Bad Request: TOPIC_CLOSED"
NO_TOPIC_RIGHTS = "Bad Request: not enough rights to create a topic"
NO_PRIVATE_TOPICS = "Bad Request: BOT_FORUM_CREATE_FORBIDDEN"
NOT_IN_PRIVATE = "Bad Request: method is available only for supergroups"


class _Forums:
    """Forum chats, their topics, and the thread checks of the sending methods."""

    private_topics: bool = False  # BotFather's threaded mode: topics in private chats

    # ---------------------------------------------------------------- control

    def make_forum(self, chat_id: int, title: str | None = None) -> dict:
        """Make ``chat_id`` (a ``-100…`` id) a forum supergroup; returns its chat object."""
        with self._cond:
            chat_id = int(chat_id)
            chat = dict(self._chats.get(chat_id) or self._chat_obj(chat_id))
            chat.update({"type": "supergroup", "is_forum": True})
            if title:
                chat["title"] = title
            self._chats[chat_id] = chat
            self._topics.setdefault(chat_id, {})
            return dict(chat)

    def create_topic(self, chat_id: int, name: str, user_id: int | None = None) -> int:
        """A topic created by a user (by the bot if ``user_id`` is None); its thread id."""
        with self._cond:
            chat_id = int(chat_id)
            if chat_id not in self._topics:
                raise ValueError(f"chat {chat_id} is not a forum (make_forum first)")
            sender = self._bot_user() if user_id is None else \
                self._register_user(int(user_id), language_code=None)
            mid = self._new_message_id(chat_id)
            raw = {
                "message_id": mid, "message_thread_id": mid, "from": sender,
                "chat": self._chat_obj(chat_id), "date": int(time.time()),
                "forum_topic_created": {"name": name, "icon_color": 7322096},
                "is_topic_message": True,
            }
            self._store(_Msg(chat_id=chat_id, message_id=mid, from_bot=user_id is None,
                             date=raw["date"], from_user=sender, raw=raw, thread=mid))
            self._topics[chat_id][mid] = {"name": name, "closed": False, "deleted": False}
            if user_id is not None:  # (the service message reaches the bot)
                self._enqueue({"message": copy.deepcopy(raw)}, None)
            return mid

    def close_topic(self, chat_id: int, thread: int, user_id: int | None = None) -> None:
        """Closed (messages into it are refused); by a person: ``forum_topic_closed``."""
        with self._cond:
            self._topic(int(chat_id), int(thread))["closed"] = True
            self._topic_event(int(chat_id), int(thread), user_id, "forum_topic_closed", {})

    def reopen_topic(self, chat_id: int, thread: int, user_id: int | None = None) -> None:
        """Open again; by a person: ``forum_topic_reopened``."""
        with self._cond:
            self._topic(int(chat_id), int(thread))["closed"] = False
            self._topic_event(int(chat_id), int(thread), user_id, "forum_topic_reopened", {})

    def edit_topic(self, chat_id: int, thread: int, name: str,
                   user_id: int | None = None) -> None:
        """A new name; by a person: ``forum_topic_edited`` with it."""
        with self._cond:
            self._topic(int(chat_id), int(thread))["name"] = name
            self._topic_event(int(chat_id), int(thread), user_id, "forum_topic_edited",
                              {"name": name})

    def _topic_event(self, chat_id: int, thread: int, user_id: int | None, kind: str,
                     value: dict) -> None:
        """A person's change to a topic: the service message Telegram posts in the topic
        (answering its creation message, as every message in it does), an update for the
        bot. The bot's own changes post none it would receive."""
        if user_id is None:
            return
        sender = self._register_user(int(user_id), language_code=None)
        raw: dict[str, Any] = {
            "message_id": self._new_message_id(chat_id), "message_thread_id": thread,
            "from": sender, "chat": self._chat_obj(chat_id), "date": int(time.time()),
            "is_topic_message": True, kind: dict(value)}
        created = self._msgs.get(chat_id, {}).get(thread)
        if created is not None:
            raw["reply_to_message"] = self._message_json(created, with_reply=False)
        self._store(_Msg(chat_id=chat_id, message_id=raw["message_id"], from_bot=False,
                         date=raw["date"], from_user=sender, raw=raw, thread=thread,
                         reply_to=thread))
        self._enqueue({"message": copy.deepcopy(raw)}, None)

    def delete_topic(self, chat_id: int, thread: int) -> None:
        """The topic and its messages are gone."""
        with self._cond:
            chat_id, thread = int(chat_id), int(thread)
            self._topic(chat_id, thread)["deleted"] = True
            for m in self._msgs.get(chat_id, {}).values():
                if m.thread == thread:
                    m.deleted = True

    def topics(self, chat_id: int) -> dict[int, dict]:
        """A forum's topics by thread id: {name, closed, deleted}."""
        with self._lock:
            return {t: dict(v) for t, v in self._topics.get(int(chat_id), {}).items()}

    # ---------------------------------------------------------------- Bot API methods

    def _api_createForumTopic(self, p: dict) -> dict:
        chat_id = self._chat_id(p)
        if chat_id > 0:  # a person's private chat with the bot
            if not self.private_topics:
                raise ApiError(400, NO_PRIVATE_TOPICS)
            self._check_can_send(chat_id)  # (a person who never started or blocked the bot)
            if chat_id not in self._users:
                raise ApiError(400, "Bad Request: chat not found")
            self._topics.setdefault(chat_id, {})
        else:
            self._forum(chat_id)
            if not self._may(chat_id, self.bot_id, "can_manage_topics"):
                raise ApiError(400, NO_TOPIC_RIGHTS)
        name = self._topic_name(p)
        thread = self.create_topic(chat_id, name)
        return {"message_thread_id": thread, "name": name, "icon_color": 7322096}

    def _api_editForumTopic(self, p: dict) -> bool:
        chat_id, thread = self._topic_params(p)
        if p.get("name") not in (None, ""):
            self.edit_topic(chat_id, thread, self._topic_name(p))
        return True

    def _api_closeForumTopic(self, p: dict) -> bool:
        chat_id, thread = self._topic_params(p)
        if chat_id > 0:
            raise ApiError(400, NOT_IN_PRIVATE)
        self.close_topic(chat_id, thread)
        return True

    def _api_reopenForumTopic(self, p: dict) -> bool:
        chat_id, thread = self._topic_params(p)
        if chat_id > 0:
            raise ApiError(400, NOT_IN_PRIVATE)
        self.reopen_topic(chat_id, thread)
        return True

    def _api_deleteForumTopic(self, p: dict) -> bool:
        chat_id, thread = self._topic_params(p)
        self.delete_topic(chat_id, thread)
        return True

    # ---------------------------------------------------------------- helpers

    @staticmethod
    def _topic_name(p: dict) -> str:
        name = str(p.get("name") or "")
        if not 1 <= len(name) <= 128:
            raise ApiError(400, "Bad Request: TOPIC_TITLE_EMPTY" if not name
                           else "Bad Request: TOPIC_TITLE_TOO_LONG")
        return name

    def _forum(self, chat_id: int) -> dict[int, dict]:
        topics = self._topics.get(chat_id)
        if topics is None:
            raise ApiError(400, "Bad Request: the chat is not a forum")
        return topics

    def _topic(self, chat_id: int, thread: int) -> dict:
        topic = self._forum(chat_id).get(thread)
        if topic is None or topic["deleted"]:
            raise ApiError(400, THREAD_NOT_FOUND)
        return topic

    def _topic_params(self, p: dict) -> tuple[int, int]:
        chat_id = self._chat_id(p)
        thread = self._int_param(p, "message_thread_id",
                                 "Bad Request: message thread identifier is not specified")
        self._topic(chat_id, thread)
        return chat_id, thread

    def _send_thread(self, chat_id: int, p: dict) -> int | None:
        """The thread a sending method names (``message_thread_id``), checked as Telegram
        does: a forum's open topic; nothing else."""
        value = p.get("message_thread_id")
        if value in (None, ""):
            return None
        thread = self._int_param(p, "message_thread_id", THREAD_NOT_FOUND)
        topics = self._topics.get(chat_id)
        topic = topics.get(thread) if topics is not None else None
        if topic is None or topic["deleted"]:
            raise ApiError(400, THREAD_NOT_FOUND)
        if topic["closed"]:
            raise ApiError(400, TOPIC_CLOSED)
        return thread

    def _thread_of_new(self, chat_id: int, topic: int | None,
                       reply_to: int | None) -> tuple[int | None, bool, int | None]:
        """A user's new message: (its thread id, whether it is a topic message, the message
        it replies to). In a forum's topic it replies to the topic's creation message unless
        it answers another; in an ordinary supergroup a reply carries its chain's thread."""
        if topic is not None:
            self._topic(chat_id, int(topic))
            return int(topic), True, reply_to if reply_to is not None else int(topic)
        if reply_to is not None and chat_id <= -1_000_000_000_000 \
                and chat_id not in self._topics:
            replied = self._msgs.get(chat_id, {}).get(int(reply_to))
            root = replied.thread if replied is not None and replied.thread else reply_to
            return root, False, reply_to
        return None, False, reply_to

    @staticmethod
    def _thread_fields(m: _Msg, d: dict[str, Any], forum: bool) -> None:
        """A message's thread as Telegram shows it."""
        if m.thread is not None:
            d["message_thread_id"] = m.thread
            if forum:
                d["is_topic_message"] = True
