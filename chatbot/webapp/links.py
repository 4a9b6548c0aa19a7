"""Where the Mini App opens from the chat, and which table or page it asks for.

A link names a table by its token (``GameTable.token``: unguessable, unlike the sequential
id). Privately the table message carries a ``web_app`` button with the page's URL and
``?t=<token>``. Groups may not carry ``web_app`` buttons, so the group's table links to the app
directly, the table in the start parameter (``startapp=t<token>``; Telegram allows A-Z a-z
0-9 _ - up to 64 characters): ``https://t.me/<bot>/<short name>`` for an app registered with
BotFather's ``/newapp`` (``WEBAPP_SHORT_NAME``), else the bot's Main Mini App
(``https://t.me/<bot>?startapp=…``, BotFather → Bot Settings → Configure Mini App). Older
links with a numeric id still open the table for the people seated at it.

A tournament's page and the league's are named the same way by a start parameter of their own
(``tn<id>``, ``lg`` or ``lg-<game>``), privately in the page's URL (``?p=tn<id>``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urlencode, urlsplit, urlunsplit

from ..buttons import MAX_ID

_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,43}")
_PAGE = re.compile(r"tn(?P<tn>[1-9][0-9]{0,9})|lg(?:-(?P<game>[a-z]{1,20}))?")


def page_url(base: str, token: str) -> str:
    """The page for one table (``base`` is ``WEBAPP_URL``, ``token`` the table's)."""
    parts = urlsplit(base)
    query = "&".join(q for q in (parts.query, urlencode({"t": token})) if q)
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", query, ""))


def direct_link(username: str, short_name: str | None) -> Callable[[str], str]:
    """The direct Mini App link to a table (by its token), for a bot's username."""
    start = start_link(username, short_name)
    return lambda token: start(f"t{token}")


def start_link(username: str, short_name: str | None) -> Callable[[str], str]:
    """The direct Mini App link with a start parameter (a table's ``t<token>``, a page's
    ``tn<id>`` or ``lg``), for a bot's username."""
    app = f"https://t.me/{username}/{short_name}" if short_name else f"https://t.me/{username}"
    return lambda start: f"{app}?startapp={start}"


def start_page_url(base: str, page: str) -> str:
    """The Mini App's page opened at one of its pages (``?p=tn12``, ``?p=lg``): the URL of
    a ``web_app`` button in a private chat."""
    parts = urlsplit(base)
    query = "&".join(q for q in (parts.query, urlencode({"p": page})) if q)
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", query, ""))


def page_key(raw: str) -> tuple[str, str | None]:
    """The page a start parameter (or ``?p=``) names: ``("tournament", "<id>")`` for
    ``tn<id>``, ``("league", <game> or None)`` for ``lg`` / ``lg-<game>``; ``ValueError``
    for anything else."""
    found = _PAGE.fullmatch(raw)
    if found is None:
        raise ValueError("p: tn<number>, lg or lg-<game>")
    if found["tn"]:
        return "tournament", found["tn"]
    return "league", found["game"]


def table_key(raw: str) -> int | str:
    """The table a page names (``?t=`` or the start parameter without its ``t``): a token,
    or an old link's numeric id; ``ValueError`` for anything else."""
    if raw.isascii() and raw.isdigit() and len(raw) < 11 and 0 < int(raw) <= MAX_ID:
        return int(raw)
    if _TOKEN.fullmatch(raw):  # (16 or more characters: never a number)
        return raw
    raise ValueError("t: a table's token or number")
