"""What the fake keeps: stored messages, pending updates, failure rules, and the one-line
format of a recorded call (for timeout messages).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.bot_api.wire import _DISCONNECT, _ERROR_PHRASES, ApiError


@dataclass
class _Msg:
    chat_id: int
    message_id: int
    from_bot: bool
    date: int
    from_user: dict
    text: str | None = None
    entities: list | None = None
    raw_text: str | None = None
    parse_mode: str | None = None
    reply_markup: dict | None = None
    reply_to: int | None = None
    deleted: bool = False
    edit_date: int | None = None
    history: list = field(default_factory=list)
    raw: dict | None = None  # original Message JSON for injected (user) messages
    thread: int | None = None  # message_thread_id: a forum topic's, or a reply chain's


@dataclass
class _Pending:
    update_id: int
    update: dict
    force: bool  # deliver even if update_id < offset (explicit ids / redelivery), once
    in_flight: bool = False  # being POSTed to a webhook right now


@dataclass
class _FailRule:
    method: str
    remaining: int
    kind: str
    retry_after: int
    description: str | None

    def as_dict(self) -> dict:
        return {
            "method": self.method,
            "remaining": self.remaining,
            "kind": self.kind,
            "retry_after": self.retry_after,
            "description": self.description,
        }

    def error(self) -> tuple[int, Any]:
        if self.kind == "disconnect":
            return 0, _DISCONNECT
        code = int(self.kind)
        if code == 429:
            desc = self.description or f"Too Many Requests: retry after {self.retry_after}"
            return 429, ApiError(429, desc, {"retry_after": self.retry_after}).body()
        desc = self.description or _ERROR_PHRASES.get(code, "Error")
        return code, ApiError(code, desc).body()


def _brief(value: Any, limit: int = 70) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _format_call(c: dict) -> str:
    params = c.get("params") or {}
    resp = c.get("response")
    if isinstance(resp, dict) and resp.get("ok"):
        res = resp.get("result")
        if isinstance(res, dict) and "message_id" in res:
            out = f"ok message_id={res['message_id']}"
        elif isinstance(res, list):
            out = f"ok [{len(res)} items]"
        else:
            out = f"ok {_brief(res, 40)}"
    elif isinstance(resp, dict):
        out = f"{resp.get('error_code')} {resp.get('description')}"
    else:
        out = "disconnected"
    return f"  #{c['seq']} {c['method']} {_brief(params)} -> {out}"
