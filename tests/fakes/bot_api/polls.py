"""Polls: ``sendPoll`` and ``stopPoll``, and people answering a poll (``answer_poll``: a
``poll_answer`` update, as Telegram sends one for a non-anonymous poll): a mix-in of
``FakeBotApi``.
"""

from __future__ import annotations

import copy
import time
from typing import Any

from tests.fakes.bot_api.records import _Msg
from tests.fakes.bot_api.wire import ApiError, _u16len

MAX_OPTIONS = 10  # Telegram: 2–10 options, each 1–100 characters; a question of 1–300


class _Polls:
    """The polls the bot sent, their votes, and the answers injected as updates."""

    def _api_sendPoll(self, p: dict) -> dict:
        chat_id = self._chat_id(p)
        self._check_can_send(chat_id)
        question = str(p.get("question") or "").strip()
        if not question or _u16len(question) > 300:
            raise ApiError(400, "Bad Request: poll question length must not exceed 300")
        options = [str(o.get("text") if isinstance(o, dict) else o or "").strip()
                   for o in (p.get("options") or [])]
        if len(options) < 2:
            raise ApiError(400, "Bad Request: poll must have at least 2 option")
        if len(options) > MAX_OPTIONS:
            raise ApiError(400, "Bad Request: poll can't have more than 10 options")
        if any(not o or _u16len(o) > 100 for o in options):
            raise ApiError(400, "Bad Request: poll options length must not exceed 100")
        poll_id = str(5_000_000_000 + len(self._poll_objs) + 1)
        poll = {"id": poll_id, "question": question,
                "options": [{"text": o, "voter_count": 0, "persistent_id": f"{poll_id}.{i}"}
                            for i, o in enumerate(options)],
                "total_voter_count": 0, "is_closed": False,
                "is_anonymous": p.get("is_anonymous", True) not in (False, "false"),
                "type": "regular",
                "allows_multiple_answers": p.get("allows_multiple_answers") in (True, "true"),
                # (Bot API 9.6 and 10.0; python-telegram-bot 22.8 requires them)
                "allows_revoting": True, "members_only": False}
        message = {"message_id": self._new_message_id(chat_id), "from": self._bot_user(),
                   "chat": self._chat_obj(chat_id), "date": int(time.time()), "poll": poll}
        self._store(_Msg(chat_id=chat_id, message_id=message["message_id"], from_bot=True,
                         date=message["date"], from_user=self._bot_user(), raw=message))
        self._poll_objs[poll_id] = {"chat_id": chat_id, "message_id": message["message_id"],
                                    "poll": poll, "votes": {}}
        return copy.deepcopy(message)

    def _api_stopPoll(self, p: dict) -> dict:
        chat_id = self._chat_id(p)
        message_id = self._int_param(p, "message_id",
                                     "Bad Request: message identifier is not specified")
        self._find_msg(chat_id, message_id, "stop")
        entry = next((e for e in self._poll_objs.values()
                      if e["chat_id"] == chat_id and e["message_id"] == message_id), None)
        if entry is None:
            raise ApiError(400, "Bad Request: message with poll to stop not found")
        if entry["poll"]["is_closed"]:
            raise ApiError(400, "Bad Request: poll has already been closed")
        entry["poll"]["is_closed"] = True
        return copy.deepcopy(entry["poll"])

    # ---------------------------------------------------------------- control

    def answer_poll(self, user_id: int, poll_id: str, option_ids: list[int], *,
                    user_first_name: str | None = None, update_id: int | None = None) -> int:
        """A person answers the bot's poll (``option_ids`` empty: takes the vote back): the
        counts change and, for a non-anonymous poll, a ``poll_answer`` update is queued.
        Returns the update id (0 for an anonymous poll: Telegram tells the bot nothing)."""
        with self._cond:
            entry = self._poll_objs.get(str(poll_id))
            if entry is None:
                raise ValueError(f"no poll {poll_id}")
            poll = entry["poll"]
            if poll["is_closed"]:
                raise ValueError(f"poll {poll_id} is closed")
            choices = [int(i) for i in option_ids]
            if any(not 0 <= i < len(poll["options"]) for i in choices) or (
                    len(choices) > 1 and not poll["allows_multiple_answers"]):
                raise ValueError(f"not an answer to poll {poll_id}: {option_ids}")
            user = self._register_user(int(user_id), user_first_name)
            entry["votes"][int(user_id)] = choices
            for i, option in enumerate(poll["options"]):
                option["voter_count"] = sum(i in v for v in entry["votes"].values())
            poll["total_voter_count"] = sum(1 for v in entry["votes"].values() if v)
            if poll["is_anonymous"]:
                return 0
            answer: dict[str, Any] = {
                "poll_id": str(poll_id), "user": user, "option_ids": choices,
                "option_persistent_ids": [poll["options"][i]["persistent_id"] for i in choices]}
            return self._enqueue({"poll_answer": answer}, update_id)

    def poll(self, poll_id: str) -> dict | None:
        """A poll as it stands: its question, options with their counts, whether closed, and
        the chat and message that show it."""
        with self._lock:
            entry = self._poll_objs.get(str(poll_id))
            if entry is None:
                return None
            return {**copy.deepcopy(entry["poll"]), "chat_id": entry["chat_id"],
                    "message_id": entry["message_id"]}
