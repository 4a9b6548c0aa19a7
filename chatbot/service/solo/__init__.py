"""Solo play, a room of its own: ``/replay`` (a finished round move by move, every hand
open), the coach (``/tips``, "💡 Tip", "🔎 Where could I have played better?"), the daily deal
(``/daily``: the same cards for everybody, its ranking and morning post) and ⏩ skipping to
the result of a private game one is out of. Its buttons that make the Experte think declare
``think``: the thinking runs before the press's transaction and outside it."""

from __future__ import annotations

from ...i18n import N_, register
from ..core.registry import Button, Command, Feature, Step, Where
from . import coach, daily, replays, skip
from .service import SoloReads

register({
    "command.replay": N_("Replay a finished round"),
    "command.daily": N_("Today's deal – the same cards for everybody"),
    "command.tips": N_("Tips in your private game"),
})

SOLO = Feature(
    "solo",
    commands=(
        Command("replay", replays.command, "command.replay", aliases=("nachspielen",),
                where=Where.PRIVATE, elsewhere="rp.private_only"),
        Command("daily", daily.command, "command.daily", names={"de": "tagesspiel"}),
        Command("tips", coach.tips, "command.tips", names={"de": "tipps"},
                where=Where.PRIVATE, elsewhere="co.private_only"),
    ),
    buttons=(
        Button("tip", coach.tip, think=coach.think_tip),
        Button("review", coach.review_press, think=coach.think_review),
        Button("skip", skip.skip, version_free=True, think=skip.think),
        Button("rp", replays.press, on_table=False),
        Button("dly", daily.press, on_table=False),
    ),
    steps=(Step("daily.posts", daily.post_step),),
    hooks=(("stats.lines", daily.stats_line),
           ("daily.scores", daily.scores)),  # (the league reads a day's tries)
)

__all__ = ["SOLO", "SoloReads"]
