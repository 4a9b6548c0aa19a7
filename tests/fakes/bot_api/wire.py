"""The Bot API on the wire: error answers (``ApiError``, Telegram's error texts), the request
parameter decoding (query, form, multipart, JSON) and the patterns of paths and commands.
"""

from __future__ import annotations

import email.policy
import json
import re
from email.parser import BytesParser
from typing import Any
from urllib.parse import parse_qsl

NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup "
    "are exactly the same as a current content and reply markup of the message"
)
FORBIDDEN_REASONS = {
    "not_started": "Forbidden: bot can't initiate conversation with a user",
    "blocked": "Forbidden: bot was blocked by the user",
    "deactivated": "Forbidden: user is deactivated",
    "kicked": "Forbidden: bot was kicked from the group chat",
    "not_member": "Forbidden: bot is not a member of the group chat",
}
_ERROR_PHRASES = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    409: "Conflict",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}
# Fields whose form values are plain strings and must never be JSON-decoded.
_STRING_FIELDS = frozenset(
    {
        "text",
        "caption",
        "parse_mode",
        "callback_query_id",
        "inline_message_id",
        "url",
        "language_code",
        "secret_token",
        "ip_address",
        "description",
        "short_description",
        "name",
        "title",
        "query",
        "emoji",
        "business_connection_id",
        "message_effect_id",
        "action",
        "custom_title",
        "question",
        "explanation",
        "first_name",
        "last_name",
        "phone_number",
        "vcard",
        "payload",
        "currency",
        "start_parameter",
        "game_short_name",
        "photo",
        "document",
        "audio",
        "video",
        "animation",
        "voice",
        "sticker",
        "file_id",
        "address",
        "foursquare_id",
        "next_offset",
        "cache_key",
    }
)
_JSONISH = re.compile(r'\s*(?:[\[{"]|-?\d|true\b|false\b|null\b)')
_COMMAND = re.compile(r"/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,64})?(?![A-Za-z0-9_@])")
_API_PATH = re.compile(r"^/bot([^/]+)/([A-Za-z_]+)/?$")
_BUTTON_ACTIONS = (
    "url",
    "callback_data",
    "web_app",
    "login_url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "callback_game",
    "pay",
)
_NOT_DEFAULT_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})
_DISCONNECT = object()  # handler result meaning: close the connection without a response


class ApiError(Exception):
    """A Bot API error answer (``{"ok": false, "error_code": ..., "description": ...}``)."""

    def __init__(self, code: int, description: str, parameters: dict | None = None):
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters

    def body(self) -> dict:
        body: dict[str, Any] = {
            "ok": False,
            "error_code": self.code,
            "description": self.description,
        }
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def _u16len(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


def _decode_value(key: str, value: Any) -> Any:
    if key in _STRING_FIELDS or not isinstance(value, str) or not _JSONISH.match(value):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def _parse_multipart(content_type: str, body: bytes) -> dict[str, Any]:
    head = b"Content-Type: " + content_type.encode("latin-1") + b"\r\nMIME-Version: 1.0\r\n\r\n"
    msg = BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    if not msg.is_multipart():
        raise ValueError("can't parse multipart/form-data body")
    out: dict[str, Any] = {}
    for part in msg.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not name:
            continue
        payload = part.get_payload(decode=True) or b""
        filename = part.get_filename()
        if filename is not None:
            out[str(name)] = {
                "filename": filename,
                "size": len(payload),
                "content_type": part.get_content_type(),
                "content": payload.decode("latin-1"),  # the bytes, one character each (JSON-safe)
            }
        else:
            text = payload.decode(part.get_content_charset() or "utf-8", "replace")
            out[str(name)] = _decode_value(str(name), text)
    return out


def decode_params(query: str, content_type: str, body: bytes) -> tuple[dict[str, Any], str]:
    """Decode request parameters; returns (params, encoding) with encoding one of
    ``none``, ``query``, ``form``, ``multipart``, ``json``."""
    params: dict[str, Any] = {}
    encoding = "none"
    if query:
        encoding = "query"
        for key, value in parse_qsl(query, keep_blank_values=True):
            params[key] = _decode_value(key, value)
    if body and body.strip():
        mime = content_type.split(";", 1)[0].strip().lower()
        if mime == "application/json":
            try:
                data = json.loads(body)
            except ValueError as exc:
                raise ValueError("can't parse JSON object") from exc
            if not isinstance(data, dict):
                raise ValueError("JSON object expected")
            params.update({k: _decode_value(k, v) for k, v in data.items()})
            encoding = "json"
        elif mime == "multipart/form-data":
            params.update(_parse_multipart(content_type, body))
            encoding = "multipart"
        else:
            for key, value in parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True):
                params[key] = _decode_value(key, value)
            encoding = "form"
    return params, encoding
