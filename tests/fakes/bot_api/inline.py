"""Inline mode in the fake Bot API, strict as Telegram is: inline queries and their answers
(within the answer window, 50 results at most, unique result ids of at most 64 bytes, an
article needs a title and a message, ``next_offset`` at most 64 bytes), a chosen result posted
"via" the bot into a chat the bot need not be in (with an ``inline_message_id`` when it has
buttons) and the ``chosen_inline_result`` update (with inline feedback on), presses of its
buttons (``callback_query`` with ``inline_message_id`` and no message), edits of it by
``inline_message_id`` (no ``web_app`` button there), ``savePreparedInlineMessage``, and chats
the bot is not in (``sendMessage`` refused). A mix-in of ``FakeBotApi``.
"""

from __future__ import annotations

import copy
import itertools
import time
from typing import Any

from tests.fakes.bot_api.markup import _button_data, _check_markup, _inline
from tests.fakes.bot_api.records import _Msg
from tests.fakes.bot_api.wire import NOT_MODIFIED, ApiError

ANSWER_WINDOW = 10.0  # seconds Telegram waits for an inline query's answer
MAX_RESULTS = 50
MAX_ID = 64


class _Inline:
    """Inline queries, chosen results, inline messages, prepared messages."""

    inline_mode: bool = True  # BotFather's /setinline (getMe: supports_inline_queries)
    inline_feedback: bool = True  # BotFather's /setinlinefeedback (chosen_inline_result)

    def _inline_state(self) -> dict:
        state = getattr(self, "_inline_st", None)
        if state is None:
            state = self._inline_st = {"queries": {}, "messages": {}, "prepared": {},
                                       "outside": set(), "ids": itertools.count(1)}
        return state

    # ---------------------------------------------------------------- control (tests)

    def without_bot(self, chat_id: int, chat_type: str = "group",
                    title: str | None = None) -> None:
        """A chat the bot is not in (a group it was never added to, or a private chat
        between two people): the bot can send nothing there."""
        with self._cond:
            self._inline_state()["outside"].add(int(chat_id))
            if chat_type == "private":
                self._chats[int(chat_id)] = {"id": int(chat_id), "type": "private",
                                             "first_name": title or "Chat"}
            else:
                self._chats[int(chat_id)] = {"id": int(chat_id), "type": chat_type,
                                             "title": title or f"Chat {abs(chat_id)}"}

    def inline_query(self, user_id: int, query: str = "", *, offset: str = "",
                     chat_type: str = "private", user_first_name: str | None = None,
                     language_code: str | None = "de") -> int:
        """A person types ``@bot query`` (``offset``: the next page's). Returns the update id;
        the answer: ``inline_answer(update_id)``."""
        with self._cond:
            if not self.inline_mode:
                raise ValueError("inline mode is off for this bot (BotFather: /setinline)")
            user = self._register_user(int(user_id), user_first_name, language_code)
            qid = str(7_000_000_000 + next(self._inline_state()["ids"]))
            update = {"inline_query": {"id": qid, "from": user, "query": query,
                                       "offset": offset, "chat_type": chat_type}}
            uid = self._enqueue(update, None)
            self._inline_state()["queries"][qid] = {
                "update_id": uid, "user": user, "query": query, "at": time.monotonic(),
                "answer": None}
            return uid

    def inline_answer(self, update_id: int) -> dict | None:
        """The bot's answer to an inline query (``None`` while none came)."""
        with self._lock:
            for q in self._inline_state()["queries"].values():
                if q["update_id"] == update_id:
                    return copy.deepcopy(q["answer"])
        return None

    def choose_inline_result(self, query_update: int, result_id: str,
                             chat_id: int) -> tuple[dict, str | None, int | None]:
        """The person picks a result of their query's answer; it is posted into ``chat_id``
        "via" the bot. Returns (the message, its inline_message_id if it has buttons, the
        chosen_inline_result update id if inline feedback is on)."""
        with self._cond:
            query = next((q for q in self._inline_state()["queries"].values()
                          if q["update_id"] == query_update), None)
            if query is None or query["answer"] is None:
                raise ValueError(f"no answered inline query {query_update}")
            result = next((r for r in query["answer"]["results"]
                           if r["id"] == result_id), None)
            if result is None:
                raise ValueError(f"result {result_id!r} is not in the answer")
            message, imid = self._post_via_bot(int(chat_id), query["user"], result)
            uid = None
            if self.inline_feedback:
                chosen = {"result_id": result_id, "from": query["user"],
                          "query": query["query"]}
                if imid is not None:
                    chosen["inline_message_id"] = imid
                uid = self._enqueue({"chosen_inline_result": chosen}, None)
            return message, imid, uid

    def press_inline(self, user_id: int, inline_message_id: str, data: str, *,
                     check_data: bool = True, user_first_name: str | None = None,
                     language_code: str | None = "de") -> int:
        """A press of a button on an inline message (no message in the query: only its
        inline_message_id). Returns the update id (``query_answer`` tells the answer)."""
        with self._cond:
            chat_id, message_id = self._inline_state()["messages"][inline_message_id]
            m = self._msgs[chat_id][message_id]
            if check_data and data not in _button_data(m.reply_markup):
                raise ValueError(f"press_inline: {data!r} is not on the keyboard: "
                                 f"{_button_data(m.reply_markup)}")
            user = self._register_user(int(user_id), user_first_name, language_code)
            qid = str(5_000_000_000_000_000 + next(self._query_counter))
            query = {"id": qid, "from": user, "inline_message_id": inline_message_id,
                     "chat_instance": str(9_000_000_000 + abs(chat_id)), "data": data}
            uid = self._enqueue({"callback_query": query}, None)
            self._queries[qid] = {"update_id": uid, "chat_id": chat_id,
                                  "message_id": message_id, "data": data,
                                  "answered": False, "answer": None}
            return uid

    def inline_message(self, inline_message_id: str) -> dict:
        """An inline message as it stands (``message`` of its chat)."""
        with self._lock:
            chat_id, message_id = self._inline_state()["messages"][inline_message_id]
            return self._msg_state(self._msgs[chat_id][message_id])

    def prepared_messages(self) -> dict[str, dict]:
        with self._lock:
            return copy.deepcopy(self._inline_state()["prepared"])

    # ---------------------------------------------------------------- internals

    def _outside(self, chat_id: int) -> bool:
        return chat_id in self._inline_state()["outside"]

    def _post_via_bot(self, chat_id: int, user: dict, result: dict) -> tuple[dict, str | None]:
        content = result["input_message_content"]
        markup = _inline(result.get("reply_markup"))
        m = _Msg(chat_id=chat_id, message_id=self._new_message_id(chat_id), from_bot=False,
                 date=int(time.time()), from_user=dict(user), text=content["message_text"],
                 entities=copy.deepcopy(content.get("entities")),
                 raw_text=content["message_text"], reply_markup=copy.deepcopy(markup))
        self._store(m)
        imid = None
        if markup is not None:
            imid = f"AgAAA{chat_id & 0xffffff:06x}{m.message_id:08d}"
            self._inline_state()["messages"][imid] = (chat_id, m.message_id)
        return self._msg_state(m), imid

    def _check_result(self, r: Any, seen: set[str]) -> None:
        if not isinstance(r, dict) or r.get("type") != "article":
            raise ApiError(400, "Bad Request: RESULT_TYPE_INVALID")
        rid = str(r.get("id") or "")
        if not rid or len(rid.encode()) > MAX_ID:
            raise ApiError(400, "Bad Request: RESULT_ID_INVALID")
        if rid in seen:
            raise ApiError(400, "Bad Request: RESULT_ID_DUPLICATE")
        seen.add(rid)
        content = r.get("input_message_content")
        if not r.get("title") or not isinstance(content, dict) \
                or not str(content.get("message_text") or "").strip():
            raise ApiError(400, "Bad Request: MESSAGE_EMPTY")
        if len(content["message_text"]) > 4096:
            raise ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        self._check_inline_markup(r.get("reply_markup"))

    @staticmethod
    def _check_inline_markup(markup: Any) -> dict | None:
        checked = _check_markup(markup)
        for row in (checked or {}).get("inline_keyboard", []):
            for button in row:
                if "web_app" in button:  # (only in private chats the bot is in)
                    raise ApiError(400, "Bad Request: BUTTON_TYPE_INVALID")
        return checked

    # ---------------------------------------------------------------- Bot API methods

    def _api_answerInlineQuery(self, p: dict) -> bool:
        query = self._inline_state()["queries"].get(str(p.get("inline_query_id") or ""))
        if query is None or query["answer"] is not None \
                or time.monotonic() - query["at"] > ANSWER_WINDOW:
            raise ApiError(400, "Bad Request: query is too old and response timeout expired "
                                "or query ID is invalid")
        results = p.get("results")
        if not isinstance(results, list) or len(results) > MAX_RESULTS:
            raise ApiError(400, "Bad Request: RESULTS_TOO_MUCH")
        seen: set[str] = set()
        for r in results:
            self._check_result(r, seen)
        offset = str(p.get("next_offset") or "")
        if len(offset.encode()) > 64:
            raise ApiError(400, "Bad Request: NEXT_OFFSET_INVALID")
        query["answer"] = {"results": copy.deepcopy(results), "next_offset": offset,
                           "is_personal": bool(p.get("is_personal")),
                           "cache_time": p.get("cache_time"),
                           "button": copy.deepcopy(p.get("button"))}
        return True

    def _edit_inline(self, p: dict) -> bool:
        imid = str(p.get("inline_message_id"))
        where = self._inline_state()["messages"].get(imid)
        if where is None:
            raise ApiError(400, "Bad Request: MESSAGE_ID_INVALID")
        m = self._msgs[where[0]][where[1]]
        raw, mode, text, entities = self._text(p)
        markup = self._check_inline_markup(p.get("reply_markup"))
        if (text, entities or None, _inline(markup)) == (m.text, m.entities or None,
                                                         _inline(m.reply_markup)):
            raise ApiError(400, NOT_MODIFIED)
        m.history.append({"text": m.text, "entities": m.entities, "raw_text": m.raw_text,
                          "parse_mode": m.parse_mode, "reply_markup": m.reply_markup,
                          "edit_date": m.edit_date})
        m.text, m.entities, m.raw_text, m.parse_mode = text, entities, raw, mode
        m.reply_markup = copy.deepcopy(_inline(markup))
        m.edit_date = int(time.time())
        return True

    def _api_savePreparedInlineMessage(self, p: dict) -> dict:
        user_id = int(p.get("user_id") or 0)
        if user_id not in self._users:
            raise ApiError(400, "Bad Request: user not found")
        result = p.get("result")
        self._check_result(result, set())
        if not any(p.get(k) for k in ("allow_user_chats", "allow_bot_chats",
                                      "allow_group_chats", "allow_channel_chats")):
            raise ApiError(400, "Bad Request: no chat types allowed")
        pid = f"prep{next(self._inline_state()['ids'])}"
        expires = int(time.time()) + 3600
        self._inline_state()["prepared"][pid] = {"user_id": user_id, "result": result,
                                                 "expiration_date": expires}
        return {"id": pid, "expiration_date": expires}
