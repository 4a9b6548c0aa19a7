"""Button data: ``v1:<table>:<version>:<code>``, at most 64 bytes, never trusted.

The table id and the version the button was drawn for travel with the code; the service
checks actor, version and legality again on every press. Menu buttons that belong to no table
use table 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PREFIX = "v1"
MAX_BYTES = 64
MAX_ID = 2**31 - 1  # table ids and versions are INTEGER columns
# ASCII only: decimal ids without signs, underscores or other scripts' digits; a code of
# visible ASCII characters (every code the presenters draw is one).
_DATA = re.compile(r"v1:(0|[1-9][0-9]{0,9}):(0|[1-9][0-9]{0,9}):([!-~]{1,48})", re.ASCII)


WEB_APP = "app:"  # a button that opens the Mini App (Telegram: ``web_app``, private chats only)
LINK = "url:"  # a button that opens a link (a direct Mini App link in groups)
# a button that starts an inline query in the chat it is in, its text typed after the bot's
# name (Telegram: ``switch_inline_query_current_chat``): a person's hand and moves, shown to
# them alone, at a table played in an inline message
INLINE_QUERY = "iq:"


def web_app(url: str) -> str:
    """A button that opens the Mini App at ``url`` (no press reaches the bot)."""
    return WEB_APP + url


def link(url: str) -> str:
    """A button that opens ``url``."""
    return LINK + url


def inline_query(text: str) -> str:
    """A button that starts an inline query with ``text`` in the chat it is in."""
    return INLINE_QUERY + text


class BadButton(ValueError):
    """Button data that is not ours or is malformed."""


@dataclass(frozen=True, slots=True)
class Press:
    table_id: int
    version: int
    code: str


def encode(table_id: int, version: int, code: str) -> str:
    data = f"{PREFIX}:{table_id}:{version}:{code}"
    if len(data.encode()) > MAX_BYTES:
        raise ValueError(f"button data too long: {data!r}")
    return data


def decode(data: object) -> Press:
    """The press in button data; ``BadButton`` for anything we did not draw (every part is
    checked for range, length and characters before it can reach the database)."""
    if not isinstance(data, str) or len(data) > MAX_BYTES:
        raise BadButton("unknown button")
    match = _DATA.fullmatch(data)
    if match is None:
        raise BadButton("unknown button")
    table_id, version = int(match[1]), int(match[2])
    if table_id > MAX_ID or version > MAX_ID:
        raise BadButton("unknown button")
    return Press(table_id, version, match[3])
