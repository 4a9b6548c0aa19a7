"""The solo room's entries on the assembled ``Service``: a replay as the Mini App shows it,
and the daily deal's morning post run directly (the tick runs it as a step)."""

from __future__ import annotations

from ..core.api import Settings
from ..core.transaction import Transactions
from . import daily, replays


class SoloReads:
    """The ``Service``'s reads of the solo room (it sets ``tx`` and ``settings``)."""

    tx: Transactions
    settings: Settings

    def replay_sight(self, platform: str, user_id: str, user_lang: str | None,
                     table_key: int | str) -> tuple[replays.Replayed, str] | None:
        """A table's rounds (every hand open; show only those that ended) for a person who sat
        at it, with their language; ``None``: no such table; ``NotYourTable``: not theirs."""
        with self.tx.read() as session:
            return replays.sight(session, platform, user_id, table_key, user_lang,
                                 self.settings.default_language)

    def post_daily(self, platform: str) -> int:
        """Post yesterday's daily-deal winners to the platform's groups whose morning post is
        due (each once); the tick runs this as the step ``daily.posts``."""
        return daily.post_step(self, platform)  # type: ignore[arg-type]
