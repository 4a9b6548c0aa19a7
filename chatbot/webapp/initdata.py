"""Telegram Mini App ``initData``: validated as Telegram documents it, the user taken only
from it.

``initData`` is a query string signed by Telegram for this bot: ``secret = HMAC-SHA256(key=
"WebAppData", msg=<bot token>)``, and ``hash`` is the hex HMAC-SHA256 (key = secret) of the
other fields as ``key=value`` lines sorted by key. ``auth_date`` (Unix seconds) must not be
older than a configurable age.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

MAX_AGE = 24 * 3600.0  # seconds an initData stays good (WEBAPP_INITDATA_MAX_AGE)


class InvalidInitData(ValueError):
    """Not signed for this bot, malformed, or too old: the request gets 401."""


@dataclass(frozen=True)
class WebAppUser:
    id: int
    first_name: str
    language_code: str | None
    start_param: str | None  # the table a direct Mini App link names: "t<token>"
    auth_date: int = 0  # when Telegram signed it (Unix seconds): a stream ends at its age


def _secret(bot_token: str) -> bytes:
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def sign(fields: dict[str, str], bot_token: str) -> str:
    """``initData`` for ``fields`` as Telegram would sign it (for tests and the benchmark)."""
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    digest = hmac.new(_secret(bot_token), check.encode(), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": digest})


def validate(init_data: str, bot_token: str, max_age: float = MAX_AGE,
             now: float | None = None) -> WebAppUser:
    """The user an ``initData`` speaks for; ``InvalidInitData`` if it is forged, broken or
    older than ``max_age`` seconds (also for any text no browser would send: not UTF-8,
    a hash that is not hex — never an exception of another kind)."""
    try:
        init_data.encode()  # (header bytes that are no UTF-8 arrive as lone surrogates)
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True,
                          errors="strict")
    except (ValueError, UnicodeError) as exc:
        raise InvalidInitData("malformed") from exc
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise InvalidInitData("a field twice")
    given = fields.pop("hash", "")
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    wanted = hmac.new(_secret(bot_token), check.encode(), hashlib.sha256).hexdigest()
    if not given or not hmac.compare_digest(given.encode(), wanted.encode()):
        raise InvalidInitData("bad signature")
    try:
        auth_date = int(fields["auth_date"])
        user = json.loads(fields["user"])
        user_id = int(user["id"])
    except (KeyError, ValueError, TypeError, OverflowError) as exc:
        raise InvalidInitData("no user or date") from exc
    age = (time.time() if now is None else now) - auth_date
    if age > max_age or age < -60:  # (a minute of clock skew)
        raise InvalidInitData("expired")
    return WebAppUser(user_id, str(user.get("first_name") or "")[:64],
                      user.get("language_code"), fields.get("start_param"), auth_date)
