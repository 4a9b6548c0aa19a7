"""A group's tournaments that were played: ``/turnier liste`` (the newest first, with their
winners) and a person's tournaments in ``/stats``."""

from __future__ import annotations

from sqlmodel import col, select

from storage.models import Chat, Player, Tournament, TournamentEntrant

from ...i18n import tr
from ...presenters import presenter
from ..core import languages, outgoing
from ..core.api import Outcome
from ..core.transaction import Ctx
from . import entries, rounds, texts


def history(ctx: Ctx, chat: Chat) -> Outcome:
    """``/turnier liste``: the group's tournaments, the newest first, with their winners."""
    lang = languages.language(ctx, chat)
    done = ctx.session.exec(select(Tournament).where(Tournament.chat_id == chat.id,
                                                     Tournament.state != "cancelled")
                            .order_by(col(Tournament.id).desc()).limit(10)).all()
    if not done:
        outgoing.say(ctx, chat, tr(lang, "tn.history_none"), fresh=True)
        return Outcome(None)
    lines = [tr(lang, "tn.history")]
    for i, t in enumerate(done, 1):
        people = entries.names(ctx.session, t, ("in", "left"))
        if t.state == "finished":
            best = [people.get(p, "?") for p in rounds.winners(ctx.session, t)]
            winner = "🥇 " + ", ".join(best) if best else "–"
        else:
            winner = tr(lang, "tn.history_running")
        lines.append(tr(lang, "tn.history_line", no=i, game=presenter(t.game).name(lang),
                        day=texts.day(t.created_at), n=len(people), winner=winner))
    outgoing.say(ctx, chat, "\n".join(lines), fresh=True)
    return Outcome(None)


def stats_line(session: object, player: Player, lang: str) -> str | None:
    """The person's tournaments for ``/stats`` (``None``: none played)."""
    played = session.exec(select(Tournament).join(  # type: ignore[attr-defined]
        TournamentEntrant, col(TournamentEntrant.tournament_id) == Tournament.id).where(
        TournamentEntrant.player_id == player.id, Tournament.state == "finished",
        col(TournamentEntrant.state).in_(("in", "left")))).all()
    if not played:
        return None
    won = sum(1 for t in played if player.id in rounds.winners(session, t))
    return tr(lang, "tn.stats", n=len(played), won=won)

