"""Where the Mini App opens from the chat.

Privately the table message carries a ``web_app`` button with the page's URL and ``?t=<id>``.
Groups may not carry ``web_app`` buttons, so the group's table links to the app directly, the
table in the start parameter (``startapp=t<id>``): ``https://t.me/<bot>/<short name>`` for an
app registered with BotFather's ``/newapp`` (``WEBAPP_SHORT_NAME``), else the bot's Main Mini
App (``https://t.me/<bot>?startapp=…``, BotFather → Bot Settings → Configure Mini App).
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode, urlsplit, urlunsplit


def page_url(base: str, table_id: int) -> str:
    """The page for one table (``base`` is ``WEBAPP_URL``)."""
    parts = urlsplit(base)
    query = "&".join(q for q in (parts.query, urlencode({"t": table_id})) if q)
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", query, ""))


def direct_link(username: str, short_name: str | None) -> Callable[[int], str]:
    """The direct Mini App link to a table, for a bot's username."""
    app = f"https://t.me/{username}/{short_name}" if short_name else f"https://t.me/{username}"
    return lambda table_id: f"{app}?startapp=t{table_id}"
