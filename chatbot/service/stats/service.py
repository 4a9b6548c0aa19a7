"""The stats room's scheduled step and its entry on the assembled ``Service``: new results
read into the stats and ratings (a bounded, short transaction, so that a large backlog — e.g.
after an upgrade — drains in the background instead of inside somebody's ``/stats``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.registry import Parts
from . import ratings

if TYPE_CHECKING:
    from storage.models import Player

    from ..core.transaction import Ctx


def catch_up_step(parts: Parts, platform: str, limit: int = ratings.PERIODIC) -> int:
    """The step ``stats.catch_up``: how many results it read."""
    with parts.tx.tx() as session:
        return ratings.catch_up(session, parts.clock().timestamp(), limit)


def catch_up_for(ctx: Ctx, player: Player) -> None:
    """A person's rows are about to be exported or forgotten (the hook ``person.catch_up``):
    every stored result is read into the stats and ratings first, in the same transaction (the
    file holds their stats as they are; the others' ratings were computed with theirs before
    their rows go)."""
    ratings.catch_up(ctx.session, ctx.now.timestamp())


class StatsService:
    """Mixed into the assembled ``Service``."""

    def catch_up_stats(self, limit: int = ratings.PERIODIC) -> int:
        """Read new results into the stats and ratings now (what the tick's step does)."""
        return catch_up_step(self, "", limit)  # type: ignore[arg-type]
