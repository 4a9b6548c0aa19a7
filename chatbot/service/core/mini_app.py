"""The Mini App's buttons under the chat's messages (Telegram, where the Mini App is set up):
"🃏 Open table" under a running table's views, "📊 Table" under a tournament's or the league's
news."""

from __future__ import annotations

import fsm
from storage.models import Chat, GameTable

from ... import buttons
from ...i18n import N_, register, tr
from .transaction import Ctx

Rows = list[list[tuple[str, str]]]

register({"wa.open": N_("🃏 Open table"), "wa.page": N_("📊 Table")})


def with_app(ctx: Ctx, chat: Chat, table: GameTable, rows: Rows, lang: str,
              private: bool) -> Rows:
    """The chat keyboard plus "🃏 Open table" while the game runs, where the Mini App is set
    up (Telegram): a ``web_app`` button privately, a direct Mini App link in groups (where
    ``web_app`` buttons are not allowed), both naming the table by its token. The chat's own
    buttons stay as they are."""
    settings = ctx.settings
    if chat.platform != "telegram" or settings.webapp_page is None \
            or table.fsm_state not in fsm.PLAYING:
        return rows
    key = table.token or str(table.id)  # (every table has its token; an id opens for seats)
    if private:
        data = buttons.web_app(settings.webapp_page(key))
    elif settings.webapp_link is not None:
        data = buttons.link(settings.webapp_link(key))
    else:
        return rows
    return [*rows, [(tr(lang, "wa.open"), data)]]


def app_page(ctx: Ctx, chat: Chat, page: str, lang: str) -> Rows:
    """A row with "📊 Table" opening a page of the Mini App (``page``, its start parameter:
    ``tn<id>`` a tournament, ``lg`` or ``lg-<game>`` the league) where it is set up
    (Telegram): a ``web_app`` button privately, a direct Mini App link in groups; else none."""
    settings = ctx.settings
    if chat.platform != "telegram":
        return []
    url = settings.webapp_start_page if chat.kind == "private" else settings.webapp_start_link
    if url is None:
        return []
    make = buttons.web_app if chat.kind == "private" else buttons.link
    return [[(tr(lang, "wa.page"), make(url(page)))]]
