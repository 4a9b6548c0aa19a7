"""📜 The round's log on request: every move of the round so far (a view shows only those
since the viewer's latest turn), sent to the presser's private chat."""

from __future__ import annotations

from storage.models import GameTable, Player, Seat

from ...i18n import tr
from ...presenters import presenter
from ...views import log_texts, unit_key
from . import outgoing, records
from .api import Outcome, UserRef
from .transaction import Ctx

ALERT_LIMIT = 190  # characters of an answer shown as an alert (Telegram takes 200)


def history(ctx: Ctx, table: GameTable, seats: list[Seat], player: Player, user: UserRef,
            code: str) -> Outcome:
    reader = next((s.seat_no for s in seats if s.player_id == player.id), None)
    # (no card that went into a hand; the presser's own moves in the second person)
    lines = log_texts(table, seats, ctx.lang, group=True, reader=reader)
    text = "\n".join([tr(ctx.lang, unit_key(table, "log_title"), game=presenter(table.game).name(ctx.lang)), *lines]) if lines \
        else tr(ctx.lang, unit_key(table, "log_empty"))
    chat = records.get_chat(ctx.session, table.chat_id)
    target = chat.external_id if table.is_private and chat is not None \
        else player.private_chat_id
    if target is None:  # nowhere private to write: the end of it as an alert
        return Outcome(text[-ALERT_LIMIT:], alert=True, table_id=table.id)
    outgoing.queue(ctx, chat.platform if chat else ctx.platform, target, table.id, None,
                   False, text, [])
    return Outcome(None if table.is_private else tr(ctx.lang, "log_sent"), table_id=table.id)
