"""The daily deal: every day one deal per game, the same for everybody.

* The seed of a game's deal is derived from the date and the game, keyed with the
  installation's secret (``daily_seed``, ``installation_secret``: ``DAILY_SECRET``, else one
  generated on first use and kept in the database), so that nobody can compute a day's deal
  — or the Normal CPUs' dice, which follow from the table's seed — before it is dealt;
  the day begins at 00:00 in the person's time zone (``quiet_hours.zone_of``), a group's day in
  its language's zone.
* ``/tagesspiel`` (``/daily``) privately: today's deal of a game against Normal CPU players
  (two, or three for the climbing game). The first try of a day counts; another try the
  same day is played as practice (``practice="daily"``): it counts neither for the day's
  ranking nor for ratings. Each try is a ``daily_entry`` row; its score is its table's
  result.
* ``/tagesspiel`` in a group: today's ranking of the group's members who played (place,
  then points, then time) per game.
* The morning after a day someone of a group played, the group is told yesterday's winners
  once: a ``daily_post`` row per group and day, due at 08:00 in the group's zone and
  claimed once (``post_due``; a restart finds the row where it was); other rooms add lines
  to it through the hook ``daily.morning_lines`` (the league: the members' places).
* The day's finished counted tries (``scores``) are offered to other rooms as the hook
  ``daily.scores`` (the league scores its divisions by them).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from engine import GAMES
from engine.bots import NORMAL
from storage.models import (
    Chat,
    ChatMember,
    DailyEntry,
    DailyPost,
    GameTable,
    KeyValue,
    Player,
    Result,
    StatsHidden,
)

from ... import buttons
from ...durations import language_zone
from ...i18n import N_, register, tr
from ...presenters import PRESENTERS, presenter
from ...table_options import TableOptions
from ..core import languages, outgoing, quiet_hours, records, tables
from ..core.api import Outcome, Refusal, UserRef
from ..core.ranking import ranked
from ..core.registry import Parts
from ..core.transaction import Ctx
from ..core.typed_names import game_of

MORNING = time(8, 0)  # when a group hears yesterday's winners (its local time)
MORNING_LINES = "daily.morning_lines"  # what other rooms add to the morning post
SHOWN = 10  # places a ranking shows per game

register({
    "dl.which": N_("📅 Today's deal – everybody gets the same cards. Which game?"),
    "dl.counts": N_("📅 Today's deal of {game} ({day}): everybody gets the same cards. "
                    "This try counts."),
    "dl.practice": N_("📅 You played today's {game} already – this try is practice and "
                      "does not count."),
    "dl.busy": N_("Finish your game first (or /stop it)."),
    "dl.private_only": N_("The daily deal is played privately: write me /daily."),
    "dl.unknown": N_("“{word}” is no game of mine."),
    "dl.title": N_("📅 Today's deal ({day}):"),
    "dl.game": N_("{game}:"),
    "dl.line": N_("{rank}. {name} – place {place}, score {points}, {time}"),
    "dl.nobody": N_("📅 Nobody here has finished today's deal yet. Play it privately with "
                    "me: /daily"),
    "dl.yesterday": N_("📅 Yesterday's deal ({day}) – the best of this group:"),
    "dl.winner": N_("{game}: {name} (place {place}, score {points}, {time})"),
    "dl.stats": N_("📅 Daily deals: {n} played, {won} won"),
})


SECRET_KEY = "daily:secret"  # key_value: the installation's secret, made on first use


def daily_seed(game_id: str, day: date, secret: str) -> int:
    """The seed of a game's deal of a day: the same for everybody of one installation, a new
    one every day, and unknowable without the installation's secret (an HMAC of the game and
    the date)."""
    digest = hmac.new(secret.encode(), f"stammtisch-daily:{game_id}:{day.isoformat()}".encode(),
                      hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") % 2**52


def installation_secret(ctx: Ctx) -> str:
    """``DAILY_SECRET`` if the operator set one (several installations sharing deals), else
    the secret this installation made on first use (kept in ``key_value``; two processes
    making it at once agree on the first one stored)."""
    if ctx.settings.daily_secret:
        return ctx.settings.daily_secret
    stored = ctx.session.get(KeyValue, SECRET_KEY)
    if stored is not None:
        return stored.value
    dialect = ctx.session.get_bind().dialect.name
    insert = sqlite_insert if dialect == "sqlite" else pg_insert
    ctx.session.execute(insert(KeyValue).values(key=SECRET_KEY, value=secrets.token_hex(32))
                        .on_conflict_do_nothing(index_elements=["key"]))
    return ctx.session.exec(select(KeyValue.value).where(KeyValue.key == SECRET_KEY)).one()


def local_day(zone: ZoneInfo, now: datetime) -> date:
    """The date at ``now`` in ``zone``."""
    return (now if now.tzinfo else now.replace(tzinfo=UTC)).astimezone(zone).date()


def group_zone(chat: Chat, default_language: str) -> ZoneInfo:
    """A group's time zone: its language's (else the bot's default language's)."""
    return language_zone(chat.language or default_language)


def opponents(game_id: str) -> int:
    """Normal CPU opponents of a daily deal: two, or as many as the game needs."""
    game = GAMES[game_id]
    return min(max(2, game.MIN_SEATS - 1), game.MAX_SEATS - 1)


def command(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/tagesspiel [game]``: privately the deal (or which game), in a group the ranking."""
    found = game_of(args) if args.strip() else None
    if args.strip() and found is None:
        raise Refusal(tr(ctx.lang, "dl.unknown", word=args.split()[0]), alert=False)
    if chat.kind != "private":
        outgoing.say(ctx, chat, ranking_text(ctx, chat, found[0] if found else None),
                     fresh=True)
        return Outcome(None)
    if found is None:
        rows = [[(presenter(g).name(ctx.lang), buttons.encode(0, 0, f"dly.{g}"))]
                for g in PRESENTERS]
        outgoing.say(ctx, chat, tr(ctx.lang, "dl.which"), rows, slot="menu", repost=True,
                     fresh=True)
        return Outcome(None)
    return play_daily(ctx, chat, player, found[0])


def press(ctx: Ctx, chat: Chat, player: Player, user: UserRef, code: str) -> Outcome:
    """A game chosen under ``/tagesspiel`` (``dly.<game>``)."""
    if chat.kind != "private":
        raise Refusal(tr(ctx.lang, "dl.private_only"))
    parts = code.split(".")
    game_id = parts[1] if len(parts) == 2 else ""
    if game_id not in PRESENTERS:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    return play_daily(ctx, chat, player, game_id)


def play_daily(ctx: Ctx, chat: Chat, player: Player, game_id: str) -> Outcome:
    """Today's deal of a game against Normal CPU players (the first try counts)."""
    if records.open_table(ctx.session, chat) is not None:
        raise Refusal(tr(ctx.lang, "dl.busy"), alert=False)
    day = local_day(quiet_hours.zone_of(player, ctx.lang), ctx.now)
    tried = ctx.session.exec(select(DailyEntry.id).where(
        DailyEntry.player_id == player.id, DailyEntry.game == game_id,
        DailyEntry.day == day.isoformat())).first() is not None
    name = presenter(game_id).name(ctx.lang)
    outgoing.say(ctx, chat, tr(ctx.lang, "dl.practice" if tried else "dl.counts", game=name,
                               day=day.isoformat()))
    options = TableOptions(daily=day.isoformat(), practice="daily" if tried else None)
    table = tables.create_private_table(
        ctx, chat, player, game_id, opponents(game_id), NORMAL,
        options={**presenter(game_id).DEFAULT_TABLE_OPTIONS, **options.to_json()},
        seed=daily_seed(game_id, day, installation_secret(ctx)))
    ctx.session.add(DailyEntry(player_id=player.id, game=game_id, day=day.isoformat(),  # type: ignore[arg-type]
                               table_id=table.id, counted=not tried, created_at=ctx.now))  # type: ignore[arg-type]
    if not tried:
        _arm_posts(ctx, player, day)
    return Outcome(None, table_id=table.id, changed=True)


@dataclass(frozen=True)
class Score:
    """One finished counted try: who, their place, their score, how long it took."""

    player_id: int
    name: str
    game: str
    place: int
    points: float
    seconds: int

    def key(self) -> tuple[int, float, int]:
        return (self.place, -self.points, self.seconds)


def scores(session: Session, day: str, player_ids: list[int] | None = None,
           game: str | None = None) -> list[Score]:
    """The finished counted tries of a day (of these people), best first per game; people
    who hid their stats (``/stats hide``) are on no ranking, the morning post included."""
    query = select(DailyEntry, Result, Player.name, GameTable.options).join(
        Result, col(Result.table_id) == DailyEntry.table_id).join(
        Player, col(Player.id) == DailyEntry.player_id).join(
        GameTable, col(GameTable.id) == DailyEntry.table_id).where(
        DailyEntry.day == day, col(DailyEntry.counted).is_(True),
        col(DailyEntry.player_id).not_in(select(StatsHidden.player_id)))
    if player_ids is not None:
        query = query.where(col(DailyEntry.player_id).in_(player_ids))
    if game is not None:
        query = query.where(DailyEntry.game == game)
    out = []
    for entry, result, name, options in session.exec(query).all():
        if (options or {}).get("practice"):  # tips asked during the try: not ranked
            continue
        mine = next((s for s in result.standings or [] if s.get("seat") == 0), {})
        place = mine.get("place") or (1 if 0 in (result.winners or []) else 2)
        points = mine.get("points", mine.get("coins", mine.get("tokens", 0))) or 0
        seconds = int((store_aware(result.finished_at) - store_aware(entry.created_at))
                      .total_seconds())
        out.append(Score(entry.player_id, name or "?", entry.game, int(place), float(points),
                         max(0, seconds)))
    return sorted(out, key=lambda s: (s.game, *s.key()))


def store_aware(when: datetime) -> datetime:
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _members(session: Session, chat: Chat) -> list[int]:
    return list(session.exec(select(ChatMember.player_id).where(
        ChatMember.chat_id == chat.id)).all())


def _duration(seconds: int) -> str:
    return f"{seconds // 60}:{seconds % 60:02d}"


def ranking_text(ctx: Ctx, chat: Chat, game: str | None = None) -> str:
    """A group's ranking of today's deal, in the group's language: per game, place, then
    score, then time (ties share a rank: ``core.ranking``)."""
    session, lang = ctx.session, languages.language(ctx, chat)
    day = local_day(group_zone(chat, ctx.settings.default_language), ctx.now).isoformat()
    found = scores(session, day, _members(session, chat), game)
    if not found:
        return tr(lang, "dl.nobody")
    lines = [tr(lang, "dl.title", day=day)]
    for g in PRESENTERS:
        mine = [s for s in found if s.game == g][:SHOWN]
        if mine:
            lines.append(tr(lang, "dl.game", game=presenter(g).name(lang)))
            lines += [tr(lang, "dl.line", rank=rank, name=s.name, place=s.place,
                         points=f"{s.points:g}", time=_duration(s.seconds))
                      for rank, s in ranked(mine, key=Score.key)]
    return "\n".join(lines)


def _arm_posts(ctx: Ctx, player: Player, day: date) -> None:
    """A morning post of the day's winners for every group the person is a member of."""
    for chat in ctx.session.exec(select(Chat).join(
            ChatMember, col(ChatMember.chat_id) == Chat.id).where(
            ChatMember.player_id == player.id, Chat.kind == "group")).all():
        known = ctx.session.exec(select(DailyPost.id).where(
            DailyPost.chat_id == chat.id, DailyPost.day == day.isoformat())).first()
        if known is None:
            morning = datetime.combine(day + timedelta(days=1), MORNING,
                                       tzinfo=group_zone(chat, ctx.settings.default_language)
                                       ).astimezone(UTC)
            ctx.session.add(DailyPost(chat_id=chat.id, day=day.isoformat(),  # type: ignore[arg-type]
                                      due_at=morning))
            ctx.session.flush()


def post_due(ctx: Ctx, platform: str, limit: int = 20) -> int:
    """Claim the morning posts of a platform's groups that are due and post yesterday's
    winners (once each: the claim sets ``posted_at`` where it was unset, in this
    transaction); returns how many were posted."""
    posted = 0
    for post in ctx.session.exec(select(DailyPost).join(
            Chat, col(Chat.id) == DailyPost.chat_id).where(
            Chat.platform == platform,
            col(DailyPost.posted_at).is_(None), DailyPost.due_at <= ctx.now)
            .order_by(col(DailyPost.due_at)).limit(limit)).all():
        claimed = ctx.session.execute(update(DailyPost).where(
            col(DailyPost.id) == post.id, col(DailyPost.posted_at).is_(None))
            .values(posted_at=ctx.now).execution_options(synchronize_session=False))
        if claimed.rowcount != 1:  # type: ignore[attr-defined]
            continue
        chat = records.get_chat(ctx.session, post.chat_id)
        if chat is None:
            continue
        tried: dict[str, list[Score]] = {}
        for s in scores(ctx.session, post.day, _members(ctx.session, chat)):
            tried.setdefault(s.game, []).append(s)
        if not tried:
            continue
        lang = languages.language(ctx, chat)
        lines = [tr(lang, "dl.yesterday", day=post.day)]
        for g, of_game in tried.items():  # the best: all who share the first rank
            best = [s for rank, s in ranked(of_game, key=Score.key) if rank == 1]
            lines.append(tr(lang, "dl.winner", game=presenter(g).name(lang),
                            name=", ".join(s.name for s in best), place=best[0].place,
                            points=f"{best[0].points:g}", time=_duration(best[0].seconds)))
        for more in ctx.registry.hooks(MORNING_LINES):  # (the league: the members' places)
            lines += more(ctx, chat, lang, post.day)
        outgoing.say(ctx, chat, "\n".join(lines))
        posted += 1
    return posted


def post_step(parts: Parts, platform: str) -> int:
    """The scheduled step: the platform's morning posts that are due (``post_due``)."""
    with parts.tx.tx() as session:
        ctx = parts.ctx(session, platform, parts.settings.default_language)
        posted = post_due(ctx, platform)
    parts.notify(ctx)
    return posted


def stats_line(session: Session, player: Player, lang: str) -> str | None:
    """The person's daily deals for ``/stats`` (``None``: none played)."""
    rows = session.exec(select(DailyEntry.table_id).where(
        DailyEntry.player_id == player.id, col(DailyEntry.counted).is_(True))).all()
    if not rows:
        return None
    won = session.exec(select(Result.winners).where(col(Result.table_id).in_(rows))).all()
    return tr(lang, "dl.stats", n=len(rows), won=sum(1 for w in won if 0 in (w or [])))

