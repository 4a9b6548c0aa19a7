"""The evening's scheduled step: every Stammtisch evening's next step lives in its row
(``steps.plan``: announce, the reminders, start, close); this finds the due ones and claims
each once, in a transaction that locks the row and checks its version, however many processes
or restarts race for it. ``EveningService`` offers the same on the assembled ``Service``."""

from __future__ import annotations

import logging
from datetime import datetime

from sqlmodel import col, select

from storage.models import Evening

from ...runtime import metrics
from ..core import languages, records, typed_times
from ..core.registry import Parts
from . import steps

log = logging.getLogger(__name__)


def due(parts: Parts, now: datetime | None = None, limit: int = 100) -> list[tuple[int, int]]:
    """Evenings whose next step is due: (evening id, version) to claim with ``fire``."""
    now = now or parts.clock()
    with parts.tx.read() as session:
        rows = session.exec(select(Evening.id, Evening.version).where(
            col(Evening.due_at).is_not(None), col(Evening.due_at) <= now)
            .order_by(col(Evening.due_at)).limit(limit)).all()
    return [(r[0], r[1]) for r in rows]  # type: ignore[misc]


def fire(parts: Parts, evening_id: int, version: int) -> bool:
    """Claim and run an evening's due step, once: the row locked, its version checked."""
    try:
        with parts.tx.tx() as session:
            evening = session.exec(select(Evening).where(Evening.id == evening_id)
                                   .with_for_update()).first()
            now = parts.clock()
            if (evening is None or evening.version != version or evening.due_at is None
                    or typed_times.aware(evening.due_at) > now):
                return False
            chat = records.get_chat(session, evening.chat_id)
            ctx = parts.ctx(session, chat.platform if chat else "?",
                            languages.language_of(chat, parts.settings, session), now=now)
            kind = evening.due_kind
            steps.fire(ctx, evening)
    except Exception:
        log.exception("evening %s: step failed", evening_id)
        return False
    parts.notify(ctx)
    metrics.observe_deadline(f"evening_{kind}")
    return True


def step(parts: Parts, platform: str) -> int:
    """The scheduled step ``evening.steps``: every due evening step, each claimed once."""
    return sum(fire(parts, e, v) for e, v in due(parts))


class EveningService:
    """Mixed into the assembled ``Service``."""

    def evenings_due(self, now: datetime | None = None) -> list[tuple[int, int]]:
        return due(self, now)  # type: ignore[arg-type]

    def fire_evening(self, evening_id: int, version: int) -> bool:
        return fire(self, evening_id, version)  # type: ignore[arg-type]

    def fire_evenings(self) -> int:
        """Every due evening step, each claimed once (what the tick's step does)."""
        return step(self, "")  # type: ignore[arg-type]
