"""``/gruppe`` (``/group``; Matrix ``!gruppe``): a group's administrators' panel, one message
edited in place — who may organise (anyone, or administrators only: ``core.organisers``), the
group's open tables (every topic's too) with a button to end each and one to take a person's
seat away (``actions``).

Every press is judged anew: in a group, by an administrator at the moment of the press (the
buttons declare ``admin=True``, so the adapter asks the platform each time; Telegram keeps the
answer for half a minute). Table ids in the buttons are checked against the group: a button
naming another group's table, a closed table or a person no longer seated changes nothing.
"""

from __future__ import annotations

from sqlmodel import col, select

import fsm
from storage.models import Chat, GameTable, Player

from ... import buttons
from ...i18n import N_, register, tr
from ..core import organisers, outgoing, records
from ..core.api import Outcome, Refusal, UserRef
from ..core.transaction import Ctx
from . import actions
from .actions import HEAD, SLOT, describe

register({
    "grp.groups_only": N_("/group is for groups: send it in the group."),
    "grp.admins_only": N_("Only the group's administrators may use this."),
    "grp.title": N_("⚙ {group}: for its administrators"),
    "grp.organisers": N_("Who may plan an evening (and open a tournament): {who}"),
    "grp.anyone": N_("anyone"),
    "grp.admins": N_("administrators only"),
    "grp.b_anyone": N_("👥 Anyone organises"),
    "grp.b_admins": N_("🛡 Only admins organise"),
    "grp.anyone_set": N_("Saved: anyone may organise."),
    "grp.admins_set": N_("Saved: only administrators organise."),
    "grp.tables": N_("Open tables:"),
    "grp.no_tables": N_("No table is open here."),
    "grp.more": N_("… and {n} more (end some to see them)"),
    "grp.b_end": N_("⏹ End {n}"),
    "grp.b_seats": N_("🪑 Seats at {n}"),
    "grp.b_refresh": N_("🔄 Refresh"),
    "grp.b_back": N_("↩ Back"),
})
SHOWN = 8  # tables listed with their buttons (a forum may have many)


def command(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/gruppe``: the panel, posted anew at the bottom of the chat (administrators only)."""
    if not user.is_admin:
        raise Refusal(tr(ctx.lang, "grp.admins_only"), alert=False)
    show(ctx, chat, fresh=True)
    return Outcome(None)


def press(ctx: Ctx, chat: Chat, player: Player, user: UserRef, code: str) -> Outcome:
    """A button of the panel (``grp…``): who may, before what may."""
    if chat.kind != "group":
        raise Refusal(tr(ctx.lang, "grp.groups_only"))
    if not user.is_admin:
        raise Refusal(tr(ctx.lang, "grp.admins_only"))
    parts = code.split(".")
    if parts[0] != HEAD:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    if len(parts) == 1:  # refresh, or back from a question
        show(ctx, chat)
        return Outcome(None)
    if parts[1] == "org" and len(parts) == 3 and parts[2] in organisers.CHOICES:
        organisers.set_organisers(ctx.session, chat, parts[2])
        show(ctx, chat)
        return Outcome(tr(ctx.lang, "grp.anyone_set" if parts[2] == organisers.ANYONE
                          else "grp.admins_set"))
    ids = _ids(parts[2:])
    step = actions.STEPS.get((parts[1], len(ids)))
    if step is None or len(ids) != len(parts) - 2:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    table, seats = actions.table_of_group(ctx, chat, ids[0])
    out = step(ctx, chat, player, table, seats, *ids[1:])
    if out.changed:
        show(ctx, chat)
    return out


def _ids(words: list[str]) -> list[int]:
    """The ids a button names (decimal, in range); the others left out (the caller counts)."""
    return [int(w) for w in words if w.isascii() and w.isdigit() and len(w) <= 10
            and int(w) <= buttons.MAX_ID]


# ------------------------------------------------------------------ the panel
def open_tables(ctx: Ctx, chat: Chat) -> list[GameTable]:
    """The group's open tables (lobbies and games, every topic's), oldest first."""
    return list(ctx.session.exec(select(GameTable).where(
        GameTable.chat_id == chat.id, col(GameTable.fsm_state).in_(fsm.OPEN),
        col(GameTable.is_private).is_(False)).order_by(col(GameTable.id))).all())


def show(ctx: Ctx, chat: Chat, fresh: bool = False) -> None:
    """The panel as it is now (``fresh``: posted anew at the bottom, else edited in place)."""
    lang = ctx.lang
    who = organisers.organisers(ctx.session, chat)
    lines = [tr(lang, "grp.title", group=chat.title or "–"),
             tr(lang, "grp.organisers",
                who=tr(lang, "grp.anyone" if who == organisers.ANYONE else "grp.admins")), ""]
    choice = [(("✓ " if who == value else "") + tr(lang, label),
               buttons.encode(0, 0, f"{HEAD}.org.{value}"))
              for value, label in ((organisers.ANYONE, "grp.b_anyone"),
                                   (organisers.ADMINS, "grp.b_admins"))]
    rows = [choice]
    tables = open_tables(ctx, chat)
    lines.append(tr(lang, "grp.tables") if tables else tr(lang, "grp.no_tables"))
    for n, table in enumerate(tables[:SHOWN], 1):
        seats = records.seats(ctx.session, table)
        lines.append(f"{n}. {describe(ctx, table, seats)}")
        row = [(tr(lang, "grp.b_end", n=n), buttons.encode(0, 0, f"{HEAD}.end.{table.id}"))]
        if any(not s.is_cpu and s.player_id is not None for s in seats):
            row.append((tr(lang, "grp.b_seats", n=n),
                        buttons.encode(0, 0, f"{HEAD}.seats.{table.id}")))
        rows.append(row)
    if len(tables) > SHOWN:
        lines.append(tr(lang, "grp.more", n=len(tables) - SHOWN))
    rows.append([(tr(lang, "grp.b_refresh"), buttons.encode(0, 0, HEAD))])
    outgoing.say(ctx, chat, "\n".join(lines), rows, slot=SLOT, repost=fresh, fresh=fresh)
