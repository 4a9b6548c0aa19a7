"""Groups, a room of its own: what a group's administrators do and what happens when a group
changes.

* ``/gruppe`` (``/group``; Matrix ``!gruppe``), for the group's administrators (the adapter asks
  the platform for the rights of the command and of every press of its buttons): who may
  organise — plan an evening, open a tournament — (``core.organisers``), ending any open table
  of the group, its topics' too, and taking a person's seat away (a Normal CPU plays it on)
  (``panel``, ``actions``).
* A chat that takes another id — a Telegram basic group upgraded to a supergroup — keeps its
  tables, evenings, Deckel, stats and settings (``moving``; ``Service.chat_moved`` from
  ``service``). Rooms that keep a message to post anew after a move offer the hook
  ``chat.moved``.
"""

from __future__ import annotations

from ...i18n import N_, register
from ..core.registry import AdminRights, Button, Command, Feature, Where
from . import panel
from .service import GroupsService

register({"command.group": N_("Group settings and tables (admins)")})

GROUPS = Feature(
    "groups",
    commands=(
        Command("group", panel.command, "command.group", names={"de": "gruppe"},
                where=Where.GROUP, admin=AdminRights.ALWAYS, elsewhere="grp.groups_only"),
    ),
    buttons=(Button(panel.HEAD, panel.press, on_table=False, admin=True),),
)

__all__ = ["GROUPS", "GroupsService"]
