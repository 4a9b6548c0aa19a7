"""Privacy, a room of its own: ``/mydata`` (``/meinedaten``: everything the bot stores about
a person, as a JSON file sent to their private chat: ``export``) and ``/forget``
(``/vergessen``: after a confirming press, what names them is deleted or anonymised, while the
others' results and stats stay right: ``forget``, ``anonymise``). Both work only in the
person's private chat. A room that derives rows from the results brings them up to date
before a person's rows are exported or go (the hook ``person.catch_up``, offered by the stats
room).
See docs/privacy.md."""

from __future__ import annotations

from ...i18n import N_, register
from ..core.registry import Button, Command, Feature, Where
from . import export, forget

register({
    "command.mydata": N_("Your data, as a file"),
    "command.forget": N_("Have me forget you (deletes your data)"),
})

PRIVACY = Feature(
    "privacy",
    commands=(
        Command("mydata", export.mydata, "command.mydata", names={"de": "meinedaten"},
                where=Where.PRIVATE),
        Command("forget", forget.command, "command.forget", names={"de": "vergessen"},
                where=Where.PRIVATE),
    ),
    buttons=(Button(forget.HEAD, forget.press, on_table=False, batches=False),),
)

__all__ = ["PRIVACY"]
