"""``/liga`` (``/league``; Matrix ``!liga``): privately the person's division table of the week
(``/liga <game> [division]``: that one), in a group the members' places; ``/liga gruppen``
the groups' table; ``/liga urlaub`` the holiday protection (``holiday``). ``person_board`` is
the reading a page renders too (plain data)."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from sqlalchemy import func
from sqlmodel import Session, col, select

from storage.models import Chat, ChatMember, DailyEntry, LeagueMember, Player

from ...i18n import N_, register, tr
from ...presenters import PRESENTERS
from ..core import languages, mini_app, outgoing
from ..core.api import Outcome, Refusal, Settings, UserRef
from ..core.registry import Registry
from ..core.transaction import Ctx
from ..core.typed_names import fold, game_of
from . import holiday, standings, texts, weeks
from .standings import Board

register({
    "lg.none": N_("🏆 You are in no league yet. Play today's deal (/daily): your first counted "
                  "deal puts you in the lowest division of that game's league."),
    "lg.nobody": N_("🏆 Nobody plays in the {game} league this week yet. Play today's deal: "
                    "/daily"),
    "lg.garbage": N_("I don't understand “{words}”: /league, /league <game> [division], "
                     "/league groups or /league holiday."),
    "lg.no_division": N_("No such division: the {game} league goes down to division {n} "
                         "this week."),
})

HOLIDAY_WORDS = ("urlaub", "holiday", "vacation", "ferien")
GROUP_WORDS = ("gruppen", "groups", "teams", "gruppe", "group")


def command(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/liga [game] [division] | gruppen [game] | urlaub``."""
    words = fold(args).split()
    first = words[0] if words else ""
    if first in HOLIDAY_WORDS and len(words) == 1:
        return holiday.take(ctx, chat, player)
    if first in GROUP_WORDS:
        game = _game(ctx, " ".join(words[1:]), args) if len(words) > 1 else None
        return _say(ctx, chat, teams_text(ctx, chat, game))
    game, number = None, None
    if words:
        found = game_of(" ".join(words))
        rest = found[1] if found else " ".join(words)
        game = found[0] if found else None
        if rest and not (rest.isdigit() and len(rest) <= 3):
            raise Refusal(_garbage(ctx, args), alert=False)
        number = int(rest) if rest else None
    page = f"lg-{game}" if game else "lg"  # (the Mini App's league page, where set up)
    if chat.kind != "private" and number is None:
        return _say(ctx, chat, group_text(ctx, chat, game), page)
    return _say(ctx, chat, private_text(ctx, player, game, number), page)


def _garbage(ctx: Ctx, args: str) -> str:
    return tr(ctx.lang, "lg.garbage", words=" ".join(args.split())[:40])


def _game(ctx: Ctx, words: str, args: str) -> str:
    found = game_of(words)
    if found is None or found[1]:
        raise Refusal(_garbage(ctx, args), alert=False)
    return found[0]


def _say(ctx: Ctx, chat: Chat, text: str, page: str | None = None) -> Outcome:
    """The answer; with ``page``, "📊 Table" under it opens that page of the Mini App."""
    rows = mini_app.app_page(ctx, chat, page, languages.language(ctx, chat)) if page else []
    outgoing.say(ctx, chat, text, rows, fresh=True)
    return Outcome(None)


# ---------------------------------------------------------------------------------- reading


def member_games(session: Session, player_id: int, week: date) -> list[str]:
    """The games whose league the person is in this week, the last played first."""
    games = set(session.exec(select(LeagueMember.game).where(
        LeagueMember.player_id == player_id, LeagueMember.week == week.isoformat())).all())
    if not games:
        return []
    last = dict(session.exec(select(DailyEntry.game, func.max(DailyEntry.id)).where(
        DailyEntry.player_id == player_id, col(DailyEntry.game).in_(list(games)))
        .group_by(col(DailyEntry.game))).all())
    return sorted(games, key=lambda g: (-(last.get(g) or 0), g))


def person_board(session: Session, registry: Registry, settings: Settings, player_id: int,
                 game: str | None, number: int | None, now: datetime
                 ) -> tuple[Board | None, list[Board]]:
    """The division to show a person (their own in the game, else ``number``, else the top
    one) and every division of that game's week; ``(None, [])``: no league to show."""
    week = weeks.running(settings, now)
    if game is None:
        mine = member_games(session, player_id, week)
        if not mine:
            return None, []
        game = mine[0]
    boards = standings.boards(session, registry, settings, game, week, now)
    if not boards:
        return None, []
    if number is not None:
        return (boards[number - 1] if 1 <= number <= len(boards) else None), boards
    own = next((b for b in boards if b.line_of(player_id) is not None), None)
    return own or boards[0], boards


def private_text(ctx: Ctx, player: Player, game: str | None, number: int | None) -> str:
    """A person's view: the division's table, their rank and days, how last week ended."""
    assert player.id is not None
    session, lang = ctx.session, ctx.lang
    board, boards = person_board(session, ctx.registry, ctx.settings, player.id, game,
                                 number, ctx.now)
    if board is None and number is not None and boards:
        raise Refusal(tr(lang, "lg.no_division", game=texts.game_name(lang, boards[0].game),
                         n=len(boards)), alert=False)
    if board is None or not board.lines:
        return tr(lang, "lg.nobody", game=texts.game_name(lang, game)) if game else \
            tr(lang, "lg.none")
    out = [texts.board_text(lang, board, player.id)]
    last = standings.boards(session, ctx.registry, ctx.settings, board.game,
                            board.week - timedelta(days=weeks.DAYS), ctx.now)
    said = next((t for b in last if (t := texts.last_week_text(lang, b, player.id))), None)
    if said:
        out.append(said)
    others = [texts.game_name(lang, g) for g in member_games(session, player.id, board.week)
              if g != board.game]
    if others and game is None:
        out.append(tr(lang, "lg.other", games=", ".join(others)))
    return "\n".join(out)


def _members(session: Session, chat: Chat) -> set[int]:
    return set(session.exec(select(ChatMember.player_id).where(
        ChatMember.chat_id == chat.id)).all())


def week_boards(ctx: Ctx, week: date, games: list[str] | None = None
                ) -> dict[str, list[Board]]:
    return {g: b for g in (games or list(PRESENTERS)) if (b := standings.boards(
        ctx.session, ctx.registry, ctx.settings, g, week, ctx.now))}


def group_text(ctx: Ctx, chat: Chat, game: str | None) -> str:
    """A group's members in each game's league (or one game's) this week."""
    week = weeks.running(ctx.settings, ctx.now)
    return texts.group_text(languages.language(ctx, chat),
                            week_boards(ctx, week, [game] if game else None),
                            _members(ctx.session, chat))


def teams_text(ctx: Ctx, chat: Chat, game: str | None) -> str:
    """The groups' table of a game's week (without a game: the game most of the group's
    members — or of everybody — play in the league)."""
    week = weeks.running(ctx.settings, ctx.now)
    lang = languages.language(ctx, chat)
    found = week_boards(ctx, week, [game] if game else None)
    if game is None:
        ids = _members(ctx.session, chat) if chat.kind == "group" else set()

        def weight(g: str) -> tuple[int, int]:
            people = [line.player_id for b in found[g] for line in b.lines]
            return sum(1 for p in people if p in ids), len(people)
        game = max(found, key=weight) if found else next(iter(PRESENTERS))
    shown = found.get(game, [])
    if not shown:
        return tr(lang, "lg.teams_none", game=texts.game_name(lang, game))
    return texts.teams_text(lang, game, shown[0], standings.teams(ctx.session, shown),
                            chat.id if chat.kind == "group" else None)


def morning_lines(ctx: Ctx, chat: Chat, lang: str, day: str) -> list[str]:
    """The hook ``daily.morning_lines``: the group's members' league places in the week of
    the day the morning post is about (on a Monday: the week just closed, final)."""
    week = weeks.monday(date.fromisoformat(day))
    return texts.morning_lines(lang, week_boards(ctx, week), _members(ctx.session, chat))
