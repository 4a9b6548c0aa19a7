"""``/forget`` (``/vergessen``): a person has the bot forget them, after confirming.

The command, in their private chat only, says what goes and what stays and offers "🗑 Yes,
forget me" and "Cancel" (menu buttons ``fg.<nonce>`` and ``fg.no``). The question is kept in
``key_value`` (``privacy:forget:<person>`` → the nonce and when it was asked): only a press of
its own button, by the person who asked, in their private chat, within ``CONFIRM_WITHIN`` counts.
A second ``/forget`` asks anew (the older button goes stale); a stale, foreign or forged
press changes nothing and says so. The forgetting itself is ``anonymise.forget``; its answer
is the press's answer (nothing more goes to the chat: it is forgotten).
"""

from __future__ import annotations

import logging
import secrets
from datetime import datetime, timedelta

from sqlmodel import Session

from storage.db import aware
from storage.models import Chat, KeyValue, Player

from ... import buttons
from ...i18n import N_, register, tr
from ..core import outgoing
from ..core.api import Outcome, Refusal, UserRef
from ..core.transaction import Ctx
from .anonymise import forget

register({
    "privacy.forget_question": N_(
        "⚠️ Should I forget you?\n\n"
        "Deleted: your name, username and settings, the groups I saw you in, your stats and "
        "ratings, your evening answers and daily deals, and the messages of our private "
        "chat.\n"
        "Kept without your name: the results of your games, so that the others' standings and "
        "stats stay right – your seat there shows “—”.\n"
        "A group game you are playing goes on with a CPU in your seat; a private game ends."
        "\n\nThis cannot be undone. Confirm within {minutes} minutes."),
    "privacy.forget_yes": N_("🗑 Yes, forget me"),
    "privacy.forget_no": N_("Cancel"),
    "privacy.forget_cancelled": N_("Nothing was deleted."),
    "privacy.forgotten": N_(
        "✅ Done: I have forgotten you. If you write to me again, you start as a new player."),
    "privacy.forget_stale": N_(
        "This confirmation is no longer valid. Send /forget again if you still want it."),
})
log = logging.getLogger(__name__)
CONFIRM_WITHIN = timedelta(minutes=5)
HEAD = "fg"  # the buttons' head
SLOT = "forget"  # the question's message in the private chat


def _key(player: Player) -> str:
    return f"privacy:forget:{player.id}"


def _asked(session: Session, player: Player) -> tuple[str, datetime] | None:
    """The nonce of the person's open question and when it was asked."""
    row = session.get(KeyValue, _key(player))
    if row is None:
        return None
    nonce, _, when = row.value.partition(" ")
    try:
        return nonce, aware(datetime.fromisoformat(when))
    except ValueError:
        return None


def command(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/forget`` in the person's private chat (``Where.PRIVATE``): the question."""
    nonce = secrets.token_hex(6)
    ctx.session.merge(KeyValue(key=_key(player), value=f"{nonce} {ctx.now.isoformat()}"))
    rows = [[(tr(ctx.lang, "privacy.forget_yes"), buttons.encode(0, 0, f"{HEAD}.{nonce}"))],
            [(tr(ctx.lang, "privacy.forget_no"), buttons.encode(0, 0, f"{HEAD}.no"))]]
    minutes = int(CONFIRM_WITHIN.total_seconds() // 60)
    outgoing.say(ctx, chat, tr(ctx.lang, "privacy.forget_question", minutes=minutes), rows,
                 slot=SLOT, fresh=True)
    return Outcome(None)


def press(ctx: Ctx, chat: Chat, player: Player, user: UserRef, code: str) -> Outcome:
    """``fg.<nonce>``: forget the person, if it answers their open question in time;
    ``fg.no``: the question is withdrawn."""
    answer = code.partition(".")[2]
    if chat.kind != "private" or player.private_chat_id != chat.external_id:
        raise Refusal(tr(ctx.lang, "private_only"))
    asked = _asked(ctx.session, player)
    if asked is None:
        raise Refusal(tr(ctx.lang, "privacy.forget_stale"))
    if answer == "no":
        ctx.session.delete(ctx.session.get(KeyValue, _key(player)))
        outgoing.say(ctx, chat, tr(ctx.lang, "privacy.forget_cancelled"), slot=SLOT)
        return Outcome(tr(ctx.lang, "privacy.forget_cancelled"))
    nonce, when = asked
    if not secrets.compare_digest(answer, nonce) or not when <= ctx.now <= when + CONFIRM_WITHIN:
        raise Refusal(tr(ctx.lang, "privacy.forget_stale"))
    ctx.session.delete(ctx.session.get(KeyValue, _key(player)))
    ctx.session.flush()
    text = tr(ctx.lang, "privacy.forgotten")
    forget(ctx, player)
    log.info("%s person %s forgotten", player.platform, player.id)  # (the row's own id only)
    return Outcome(text, alert=True)
