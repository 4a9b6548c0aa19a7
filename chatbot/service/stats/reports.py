"""Stats and leaderboards: ``/stats`` (a person's games, wins, win rate, per game, per CPU
level, longest winning streak, skill rating per game; ``/stats hide`` / ``/stats show``) and
``/top`` (a group's leaderboard per game), read from the derived tables ``ratings`` keeps up to
date (each command first reads the results stored since: ``ratings.catch_up``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import case, delete, func
from sqlmodel import Session, col, select

from storage.models import (
    Chat,
    Player,
    Rating,
    StatEntry,
    StatsHidden,
)

from ...i18n import N_, register, tr
from ...presenters import PRESENTERS
from ..core import languages, outgoing
from ..core.api import Outcome, UserRef
from ..core.ranking import ranked
from ..core.transaction import Ctx
from .ratings import INLINE, LEVELS, catch_up, shown_rating

TOP_ALL = 5  # people per game in ``/top``
TOP_ONE = 10  # people in ``/top <game>``
HIDE_WORDS = ("hide", "verbergen", "ausblenden", "aus", "off")
SHOW_WORDS = ("show", "zeigen", "einblenden", "an", "on")


# ---------------------------------------------------------------------------------- reading


def _plural(lang: str, key: str, n: int) -> str:
    return tr(lang, f"{key}_1" if n == 1 else f"{key}_n", n=n)


def _pct(lang: str, wins: int, games: int) -> str:
    return tr(lang, "st.pct", p=round(100 * wins / games) if games else 0)


def _record(lang: str, games: int, wins: int) -> str:
    return tr(lang, "st.record", games=_plural(lang, "st.games", games),
              wins=_plural(lang, "st.wins", wins), pct=_pct(lang, wins, games))


def _game_name(game: str, lang: str) -> str:
    p = PRESENTERS.get(game)
    return p.name(lang) if p is not None else game


def best_streak(won: Iterable[bool]) -> int:
    """The longest run of consecutive wins."""
    best = run = 0
    for w in won:
        run = run + 1 if w else 0
        best = max(best, run)
    return best


def player_stats(session: Session, player_id: int) -> dict[str, Any]:
    """A person's numbers: total, per game (with the rating), per CPU level (private games),
    longest winning streak."""
    rows = session.execute(
        select(StatEntry.game, StatEntry.is_private, StatEntry.cpu_level, StatEntry.won)
        .where(StatEntry.player_id == player_id).order_by(col(StatEntry.result_id))).all()
    per_game: dict[str, list[int]] = {}
    per_level: dict[str, list[int]] = {}
    for r in rows:
        g = per_game.setdefault(r.game, [0, 0])
        g[0] += 1
        g[1] += bool(r.won)
        if r.is_private and r.cpu_level:
            lv = per_level.setdefault(r.cpu_level, [0, 0])
            lv[0] += 1
            lv[1] += bool(r.won)
    ratings = {r.game: shown_rating(r.mu, r.sigma) for r in session.execute(
        select(Rating.game, Rating.mu, Rating.sigma).where(Rating.player_id == player_id))}
    return {"games": len(rows), "wins": sum(bool(r.won) for r in rows),
            "streak": best_streak(bool(r.won) for r in rows),
            "per_game": {g: (n, w, ratings.get(g)) for g, (n, w) in per_game.items()},
            "per_level": {lv: (n, w) for lv, (n, w) in per_level.items()}}


def stats_text(lang: str, name: str, numbers: dict[str, Any], hidden: bool) -> str:
    if not numbers["games"]:
        return tr(lang, "st.none")
    lines = [tr(lang, "st.title", name=name),
             tr(lang, "st.total", record=_record(lang, numbers["games"], numbers["wins"])),
             tr(lang, "st.streak", wins=_plural(lang, "st.wins", numbers["streak"])),
             "", tr(lang, "st.by_game")]
    order = [g for g in PRESENTERS if g in numbers["per_game"]] + sorted(
        g for g in numbers["per_game"] if g not in PRESENTERS)
    for g in order:
        n, w, rating = numbers["per_game"][g]
        lines.append(tr(lang, "st.game_line", game=_game_name(g, lang),
                        record=_record(lang, n, w), rating=rating))
    if numbers["per_level"]:
        lines += ["", tr(lang, "st.by_level")]
        for lv in sorted(numbers["per_level"],
                         key=lambda v: LEVELS.index(v) if v in LEVELS else 9):
            n, w = numbers["per_level"][lv]
            lines.append(tr(lang, "st.level_line", level=tr(lang, f"level_{lv}"),
                            record=_record(lang, n, w)))
    lines += ["", tr(lang, "st.hidden" if hidden else "st.listed")]
    return "\n".join(lines)


def leaderboard(session: Session, chat_id: int, game: str | None = None,
                limit: int = TOP_ALL) -> dict[str, list[tuple[str, int, int, int]]]:
    """Per game played in the chat: (name, rating, wins, games) of the people listed, best
    first; people who asked not to be listed are left out."""
    query = (select(StatEntry.game, StatEntry.player_id, func.count().label("n"),
                    func.sum(case((col(StatEntry.won), 1), else_=0)).label("w"))
             .where(StatEntry.chat_id == chat_id)
             .group_by(col(StatEntry.game), col(StatEntry.player_id)))
    if game is not None:
        query = query.where(StatEntry.game == game)
    counts = session.execute(query).all()
    ids = sorted({r.player_id for r in counts})
    if not ids:
        return {}
    hidden = set(session.exec(select(StatsHidden.player_id)
                              .where(col(StatsHidden.player_id).in_(ids))).all())
    names = {p.id: p.name or p.username or "?" for p in session.execute(
        select(Player.id, Player.name, Player.username).where(col(Player.id).in_(ids)))}
    ratings = {(r.game, r.player_id): shown_rating(r.mu, r.sigma) for r in session.execute(
        select(Rating.game, Rating.player_id, Rating.mu, Rating.sigma)
        .where(col(Rating.player_id).in_(ids)))}
    boards: dict[str, list[tuple[str, int, int, int]]] = {}
    for r in counts:
        if r.player_id in hidden:
            continue
        boards.setdefault(r.game, []).append(
            (names.get(r.player_id, "?"), ratings.get((r.game, r.player_id), 1000),
             int(r.w or 0), int(r.n)))
    for rows in boards.values():
        rows.sort(key=lambda t: (-t[1], -t[2], t[0].lower()))
        del rows[limit:]
    return boards


def top_text(lang: str, boards: dict[str, list[tuple[str, int, int, int]]]) -> str:
    if not boards:
        return tr(lang, "st.top_none")
    lines = [tr(lang, "st.top_title")]
    order = [g for g in PRESENTERS if g in boards] + sorted(
        g for g in boards if g not in PRESENTERS)
    for g in order:
        lines += ["", _game_name(g, lang)]
        for rank, (name, rating, wins, games) in ranked(boards[g], key=lambda r: r[1:3]):
            lines.append(tr(lang, "st.top_line", rank=rank, name=name, rating=rating,
                            wins=_plural(lang, "st.wins", wins),
                            games=_plural(lang, "st.in_games", games)))
    return "\n".join(lines)


# ---------------------------------------------------------------------------------- commands


def _is_hidden(session: Session, player_id: int) -> bool:
    return session.get(StatsHidden, player_id) is not None


def stats(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/stats``: the person's numbers; ``/stats hide`` / ``/stats show``: the leaderboards
    leave them out, or list them again."""
    word = args.lower().split()[0] if args.strip() else ""
    assert player.id is not None
    if word in HIDE_WORDS:
        if not _is_hidden(ctx.session, player.id):
            ctx.session.add(StatsHidden(player_id=player.id, since=ctx.now))
            ctx.session.flush()
        outgoing.say(ctx, chat, tr(ctx.lang, "st.now_hidden"))
        return Outcome(None)
    if word in SHOW_WORDS:
        ctx.session.execute(delete(StatsHidden).where(
            col(StatsHidden.player_id) == player.id))
        outgoing.say(ctx, chat, tr(ctx.lang, "st.now_listed"))
        return Outcome(None)
    catch_up(ctx.session, ctx.now.timestamp(), INLINE)
    text = stats_text(ctx.lang, player.name or player.username or "?",
                      player_stats(ctx.session, player.id),
                      _is_hidden(ctx.session, player.id))
    for lines in ctx.registry.hooks("stats.lines"):  # what other rooms add (the daily deal)
        line = lines(ctx.session, player, ctx.lang)
        if line is not None:
            text += "\n" + line
    outgoing.say(ctx, chat, text)
    return Outcome(None)


def top(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/top`` in a group: its leaderboard per game (``/top <game>``: that game, longer), in
    the group's language; people with the same rating and wins share a rank."""
    if chat.kind != "group":
        outgoing.say(ctx, chat, tr(ctx.lang, "st.top_private"))
        return Outcome(None)
    word = args.lower().split()[0] if args.strip() else ""
    game = word if word in PRESENTERS else None
    catch_up(ctx.session, ctx.now.timestamp(), INLINE)
    assert chat.id is not None
    outgoing.say(ctx, chat, top_text(languages.language(ctx, chat), leaderboard(
        ctx.session, chat.id, game, TOP_ONE if game else TOP_ALL)))
    return Outcome(None)



register({
    "st.games_1": N_("1 game"),
    "st.games_n": N_("{n} games"),
    "st.wins_1": N_("1 win"),
    "st.wins_n": N_("{n} wins"),
    "st.in_games_1": N_("in 1 game"),
    "st.in_games_n": N_("in {n} games"),
    "st.pct": N_("{p}%"),
    "st.record": N_("{games}, {wins} ({pct})"),
    "st.title": N_("📊 Stats of {name}"),
    "st.total": N_("Overall: {record}"),
    "st.streak": N_("Longest winning streak: {wins}"),
    "st.by_game": N_("By game:"),
    "st.game_line": N_("• {game}: {record} · rating {rating}"),
    "st.by_level": N_("Privately against the CPU:"),
    "st.level_line": N_("• {level}: {record}"),
    "st.listed": N_(
        "Rating: 1000 to start, more for wins against stronger players. /stats hide keeps you "
        "off the leaderboards."),
    "st.hidden": N_("You are on no leaderboard; /stats show lists you again."),
    "st.none": N_("No rated games yet. /new starts one."),
    "st.now_hidden": N_("You no longer appear on any leaderboard. /stats show lists you again."),
    "st.now_listed": N_("You appear on the leaderboards again."),
    "st.top_title": N_("🏆 This group's leaderboard"),
    "st.top_line": N_("{rank}. {name} · rating {rating} · {wins} {games}"),
    "st.top_none": N_("No rated games in this group yet."),
    "st.top_private": N_("Leaderboards are for groups: send /top there. Your own numbers: /stats."),
})
