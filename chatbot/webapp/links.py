"""Where the Mini App opens from the chat, and which table a page asks for.

A link names a table by its token (``GameTable.token``: unguessable, unlike the sequential
id). Privately the table message carries a ``web_app`` button with the page's URL and
``?t=<token>``. Groups may not carry ``web_app`` buttons, so the group's table links to the app
directly, the table in the start parameter (``startapp=t<token>``; Telegram allows A-Z a-z
0-9 _ - up to 64 characters): ``https://t.me/<bot>/<short name>`` for an app registered with
BotFather's ``/newapp`` (``WEBAPP_SHORT_NAME``), else the bot's Main Mini App
(``https://t.me/<bot>?startapp=…``, BotFather → Bot Settings → Configure Mini App). Older
links with a numeric id still open the table for the people seated at it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urlencode, urlsplit, urlunsplit

from ..buttons import MAX_ID

_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,43}")


def page_url(base: str, token: str) -> str:
    """The page for one table (``base`` is ``WEBAPP_URL``, ``token`` the table's)."""
    parts = urlsplit(base)
    query = "&".join(q for q in (parts.query, urlencode({"t": token})) if q)
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", query, ""))


def direct_link(username: str, short_name: str | None) -> Callable[[str], str]:
    """The direct Mini App link to a table (by its token), for a bot's username."""
    app = f"https://t.me/{username}/{short_name}" if short_name else f"https://t.me/{username}"
    return lambda token: f"{app}?startapp=t{token}"


def table_key(raw: str) -> int | str:
    """The table a page names (``?t=`` or the start parameter without its ``t``): a token,
    or an old link's numeric id; ``ValueError`` for anything else."""
    if raw.isascii() and raw.isdigit() and len(raw) < 11 and 0 < int(raw) <= MAX_ID:
        return int(raw)
    if _TOKEN.fullmatch(raw):  # (16 or more characters: never a number)
        return raw
    raise ValueError("t: a table's token or number")
