"""The control API of the fake: inspection (calls, messages, state), behaviour (failures,
forbidden chats, latency, webhook targets, reset) and its HTTP form ``/control/<name>``;
a mix-in of ``FakeBotApi``.
"""

from __future__ import annotations

import copy
import json
from typing import Any
from urllib.parse import parse_qsl

from tests.fakes.bot_api.markup import _button_data
from tests.fakes.bot_api.records import _FailRule


class _Control:
    """What tests ask and tell the fake."""

    # ---------------------------------------------------------------- control: inspection

    def calls(self, method: str | None = None, since: int = 0) -> list[dict]:
        """Recorded calls with seq > since, in order; method filter is case-insensitive.
        Record: {seq, time, method, params, encoding, status, response}."""
        with self._lock:
            calls = self._calls
            if since > 0:
                lo = len(calls)
                while lo > 0 and calls[lo - 1]["seq"] > since:
                    lo -= 1
                calls = calls[lo:]
            if method:
                ml = method.lower()
                calls = [c for c in calls if c["method"].lower() == ml]
            return [dict(c) for c in calls]

    def messages(
        self, chat_id: int, *, include_user: bool = False, include_deleted: bool = True
    ) -> list[dict]:
        """Current state of the messages in a chat, by message_id: {chat_id, message_id,
        from_bot, text, entities, raw_text, parse_mode, reply_markup, deleted, edit_count,
        history, date, edit_date, reply_to_message_id}. Bot messages only unless include_user."""
        with self._lock:
            msgs = sorted(self._msgs.get(int(chat_id), {}).values(), key=lambda m: m.message_id)
            return [
                self._msg_state(m)
                for m in msgs
                if (include_user or m.from_bot) and (include_deleted or not m.deleted)
            ]

    def message(self, chat_id: int, message_id: int) -> dict | None:
        with self._lock:
            m = self._msgs.get(int(chat_id), {}).get(int(message_id))
            return self._msg_state(m) if m is not None else None

    def press_newest(
        self,
        chat_id: int,
        user_id: int,
        *,
        prefix: str = "",
        skip_prefix: str | tuple[str, ...] | None = None,
        skip_suffixes: tuple[str, ...] = (),
        prefer_suffix: str | None = None,
        seed: int = 0,
    ) -> int | None:
        """Press a button on the chat's newest bot message that has one to press (a load
        generator's one call instead of reading messages and then pressing): buttons whose
        data starts with ``prefix``, not with ``skip_prefix`` (one or several), and whose last ``:`` part is
        not in ``skip_suffixes``; one ending in ``prefer_suffix`` if there is one, else one
        picked with ``seed``. Returns the update_id, or ``None`` when there is no such button."""
        import random

        if isinstance(skip_prefix, list):
            skip_prefix = tuple(skip_prefix)
        with self._cond:
            for m in reversed(list(self._msgs.get(int(chat_id), {}).values())):
                if m.deleted or not m.from_bot or not m.reply_markup:
                    continue
                datas = [
                    d for d in _button_data(m.reply_markup)
                    if d.startswith(prefix) and not (skip_prefix and d.startswith(skip_prefix))
                    and d.rsplit(":", 1)[-1] not in skip_suffixes
                ]
                if not datas:
                    continue
                preferred = [d for d in datas if prefer_suffix and d.endswith(prefer_suffix)]
                data = preferred[0] if preferred else random.Random(seed).choice(datas)
                return self.press(int(chat_id), int(user_id), m.message_id, data)
            return None

    def last_message(self, chat_id: int) -> dict | None:
        """The newest non-deleted bot message in the chat."""
        msgs = self.messages(chat_id, include_deleted=False)
        return msgs[-1] if msgs else None

    def commands(self, scope: dict | None = None, language_code: str = "") -> list[dict]:
        with self._lock:
            return copy.deepcopy(
                self._commands.get((self._scope_key(scope), language_code or ""), [])
            )

    def webhook_deliveries(self) -> list[dict]:
        """Every webhook POST attempt, in the order they ended: {time (end), started, url (the
        registered webhook), target (where it went), update_id, status, error,
        callback_query_id (for callback queries)}."""
        with self._lock:
            return [dict(d) for d in self._webhook_deliveries]

    def state(self) -> dict:
        with self._lock:
            return {
                "token": self.token,
                "bot_id": self.bot_id,
                "seq": self._seq,
                "waiting_polls": self._waiting_polls,
                "polls_started": self._poll_gen,
                "next_update_id": self._next_update_id,
                "pending_update_ids": [e.update_id for e in self._pending],
                "webhook": dict(self._webhook),
                "webhook_targets": list(self._webhook_targets or []),
                "webhook_in_flight": sum(1 for e in self._pending if e.in_flight),
                "fail_rules": [r.as_dict() for r in self._fail_rules],
                "forbidden": {str(k): v for k, v in self._forbidden.items()},
                "chats": sorted(self._msgs),
                "latency": self.latency,
                "bot_profile": dict(self._bot_profile),
                "command_sets": [
                    {"scope": json.loads(s), "language_code": lc, "count": len(c)}
                    for (s, lc), c in self._commands.items()
                ],
            }

    # ---------------------------------------------------------------- control: behaviour

    def fail(
        self,
        method: str,
        count: int = 1,
        kind: str | int = "429",
        retry_after: int = 1,
        description: str | None = None,
    ) -> None:
        """The next ``count`` calls of ``method`` ("*" = any method except getUpdates) fail
        without side effects. kind: "429" (with parameters.retry_after), "400", "403", "409",
        "500", "502", "503", "504" (HTTP status = error_code) or "disconnect" (connection closed
        without answer). ``description`` overrides the default text."""
        kind = str(kind)
        if kind != "disconnect" and not kind.isdigit():
            raise ValueError(f"unknown failure kind {kind!r}")
        with self._cond:
            self._fail_rules.append(
                _FailRule(method, int(count), kind, int(retry_after), description)
            )

    def forbid(self, chat_id: int, reason: str = "not_started") -> None:
        """Sends to chat_id fail with 403. reason: not_started ("bot can't initiate conversation
        with a user"), blocked, deactivated, kicked, not_member, or a full description. A private
        message/press from that user clears not_started/blocked."""
        with self._cond:
            self._forbidden[int(chat_id)] = reason

    def unforbid(self, chat_id: int) -> None:
        with self._cond:
            self._forbidden.pop(int(chat_id), None)

    def set_latency(self, seconds: float, chat_id: int | None = None) -> None:
        """Delay every Bot API call by ``seconds`` (simulated network latency); with
        ``chat_id``, only the calls naming that chat (over the latency of all calls)."""
        with self._cond:
            if chat_id is None:
                self.latency = float(seconds)
            elif seconds > 0:
                self._chat_latency[int(chat_id)] = float(seconds)
            else:
                self._chat_latency.pop(int(chat_id), None)

    def delayed(self) -> list[dict]:
        """The calls received and held by a latency now (not answered yet, not recorded):
        method, params and when they came."""
        with self._cond:
            return [dict(c) for c in self._delayed.values()]

    def _latency_of(self, params: dict) -> float:
        chat = params.get("chat_id")
        if self._chat_latency and isinstance(chat, (int, str)) \
                and str(chat).lstrip("-").isdigit():
            return self._chat_latency.get(int(chat), self.latency)
        return self.latency

    def webhook_targets(self, urls: list[str] | None) -> None:
        """Deliver the registered webhook's updates round robin to ``urls`` instead of to the
        registered URL (a reverse proxy in front of several bot processes); None or [] ends
        that. Nothing is delivered while no webhook is set; getWebhookInfo still shows the
        registered URL."""
        if urls is not None and (
            not isinstance(urls, list)
            or not all(isinstance(u, str) and u.startswith(("http://", "https://")) for u in urls)
        ):
            raise ValueError("webhook_targets: a list of http(s) URLs or None expected")
        with self._cond:
            self._webhook_targets = list(urls) if urls else None
            self._target_next = 0
            self._wake_waiters()

    def reset(self) -> None:
        """Forget messages, calls, pending updates, failure rules, commands, webhook, users.
        Call seq numbers and update ids keep increasing."""
        with self._cond:
            self._reset_state()
            self._wake_waiters()

    # ---------------------------------------------------------------- control over HTTP

    def _control(self, name: str, query: str, body: bytes) -> tuple[int, dict]:
        q = dict(parse_qsl(query, keep_blank_values=True))
        try:
            data = json.loads(body) if body.strip() else {}
            if not isinstance(data, dict):
                raise ValueError("JSON object expected")
            result = self._control_dispatch(name, q, data)
        except LookupError as exc:
            if isinstance(exc, _UnknownControl):
                return 404, {"ok": False, "description": f"unknown control endpoint {name!r}"}
            return 400, {"ok": False, "description": f"{type(exc).__name__}: {exc}"}
        except (TypeError, ValueError) as exc:
            return 400, {"ok": False, "description": f"{type(exc).__name__}: {exc}"}
        return 200, {"ok": True, "result": result}

    def _control_dispatch(self, name: str, q: dict, data: dict) -> Any:
        def arg(key, default=None, conv=None):
            value = data.get(key, q.get(key, default))
            return conv(value) if (conv and value is not None) else value

        def truthy(key):
            return str(arg(key, "")).lower() in ("1", "true", "yes")

        if name == "health":
            return True
        if name == "calls":
            return self.calls(arg("method") or None, since=arg("since", 0, int))
        if name == "messages":
            return self.messages(
                arg("chat_id", conv=int),
                include_user=truthy("include_user"),
                include_deleted=not truthy("exclude_deleted"),
            )
        if name == "message":
            return self.message(arg("chat_id", conv=int), arg("message_id", conv=int))
        if name == "last_message":
            return self.last_message(arg("chat_id", conv=int))
        if name == "update":
            return {"update_id": self.inject_update(data)}
        if name == "send_text":
            kwargs = {
                k: data[k]
                for k in (
                    "chat_type",
                    "user_first_name",
                    "language_code",
                    "username",
                    "chat_title",
                    "reply_to_message_id",
                    "update_id",
                    "topic",
                )
                if k in data
            }
            uid = self.send_text(
                int(data["chat_id"]), int(data["user_id"]), str(data["text"]), **kwargs
            )
            return {"update_id": uid, "message_id": self._injected[uid]["message"]["message_id"]}
        if name == "press_newest":
            uid = self.press_newest(
                int(data["chat_id"]),
                int(data["user_id"]),
                prefix=str(data.get("prefix", "")),
                skip_prefix=data.get("skip_prefix"),
                skip_suffixes=tuple(data.get("skip_suffixes") or ()),
                prefer_suffix=data.get("prefer_suffix"),
                seed=int(data.get("seed", 0)),
            )
            return {"update_id": uid}
        if name == "answer_poll":
            return {"update_id": self.answer_poll(
                int(data["user_id"]), str(data["poll_id"]), list(data.get("option_ids") or []),
                user_first_name=data.get("user_first_name"), update_id=data.get("update_id"))}
        if name == "poll":
            return self.poll(str(arg("poll_id")))
        if name == "press":
            kwargs = {
                k: data[k]
                for k in ("check_data", "user_first_name", "language_code", "update_id")
                if k in data
            }
            uid = self.press(
                int(data["chat_id"]),
                int(data["user_id"]),
                int(data["message_id"]),
                str(data["data"]),
                **kwargs,
            )
            return {
                "update_id": uid,
                "callback_query_id": self._injected[uid]["callback_query"]["id"],
            }
        if name == "redeliver":
            return {"update_id": self.redeliver(int(data["update_id"]))}
        if name == "get_update":
            return self.get_update(arg("update_id", conv=int))
        if name == "updates":
            return self.pending_updates()
        if name == "query_answer":
            return self.query_answer(arg("update_id", conv=int))
        if name == "fail":
            self.fail(
                str(data.get("method", "*")),
                int(data.get("count", 1)),
                str(data.get("kind", "429")),
                int(data.get("retry_after", 1)),
                data.get("description"),
            )
            return True
        if name == "forbid":
            self.forbid(int(data["chat_id"]), str(data.get("reason", "not_started")))
            return True
        if name == "unforbid":
            self.unforbid(int(data["chat_id"]))
            return True
        if name == "latency":
            self.set_latency(float(data.get("seconds", 0)), arg("chat_id", conv=int))
            return True
        if name == "reset":
            self.reset()
            return True
        if name == "commands":
            scope = arg("scope")
            if isinstance(scope, str):
                scope = json.loads(scope) if scope else None
            return self.commands(scope, str(arg("language_code", "") or ""))
        if name == "webhook_deliveries":
            return self.webhook_deliveries()
        if name == "webhook_targets":
            urls = data.get("urls")
            self.webhook_targets(list(urls) if urls is not None else None)
            return True
        if name == "state":
            return self.state()
        if name == "make_forum":
            return self.make_forum(int(data["chat_id"]), data.get("title"))
        if name == "create_topic":
            user = data.get("user_id")
            return self.create_topic(int(data["chat_id"]), str(data["name"]),
                                     int(user) if user is not None else None)
        if name == "delete_topic":
            self.delete_topic(int(data["chat_id"]), int(data["thread"]))
            return True
        if name in ("close_topic", "reopen_topic"):
            user = data.get("user_id")
            getattr(self, name)(int(data["chat_id"]), int(data["thread"]),
                                int(user) if user is not None else None)
            return True
        if name == "edit_topic":
            user = data.get("user_id")
            self.edit_topic(int(data["chat_id"]), int(data["thread"]), str(data["name"]),
                            int(user) if user is not None else None)
            return True
        if name == "topics":
            return {str(t): v for t, v in self.topics(arg("chat_id", conv=int)).items()}
        raise _UnknownControl(name)


class _UnknownControl(LookupError):
    pass
