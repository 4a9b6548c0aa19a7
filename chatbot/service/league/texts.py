"""The league's chat texts, drawn from the standings' plain data (``standings``): a division's
table, a group's members in the league, the groups' table and the morning post's lines. The
tables are monospace blocks (a Markdown code block: Telegram's ``pre``, Matrix's ``<pre>``)."""

from __future__ import annotations

from collections.abc import Sequence

from ...i18n import N_, register, tr
from ...presenters import presenter
from . import placing, weeks
from .standings import TEAM_BEST, Board, Line, Team

register({
    "lg.title": N_("🏆 League · {game} · {division} of {divisions}"),
    "lg.division": N_("division {n}"),
    "lg.week": N_("Week {span} · day {day} of 7"),
    "lg.week_over": N_("Week {span} · final"),
    "lg.col_name": N_("Name"),
    "lg.col_points": N_("Pts"),
    "lg.col_days": N_("Days"),
    "lg.legend": N_("↑ up · ↓ down if the week ended now · 🏖 holiday"),
    "lg.legend_over": N_("↑ moved up · ↓ moved down · 🏖 holiday"),
    "lg.you": N_("You: place {rank} of {n} · {points} points"),
    "lg.you_holiday": N_("You are on holiday this week: you keep your division."),
    "lg.your_days": N_("Your days: {days}"),
    "lg.last": N_("Last week: place {rank} in {division} – {move}"),
    "lg.last_holiday": N_("Last week: on holiday in {division} – kept"),
    "lg.move_up": N_("up to {division}"),
    "lg.move_down": N_("down to {division}"),
    "lg.move_stay": N_("stays"),
    "lg.other": N_("Your other leagues: {games} (/league <game>)"),
    "lg.group_title": N_("🏆 This group in the league · week {span}, day {day} of 7"),
    "lg.group_none": N_("🏆 Nobody of this group plays in a league this week. The league is "
                        "made of the daily deal: /daily"),
    "lg.game": N_("{game}:"),
    "lg.teams_title": N_("👥 Groups' league · {game} · week {span}"),
    "lg.teams_rule": N_("A group scores the points of its best {n} members this week."),
    "lg.teams_here": N_("This group: place {rank} of {n}, {points} points"),
    "lg.teams_none": N_("👥 No group has players in the {game} league this week yet."),
    "lg.morning": N_("🏆 League, week {span}:"),
    "lg.morning_over": N_("🏆 League, week {span} (final):"),
    "lg.morning_person": N_("{name} ({division}, place {rank})"),
    "lg.morning_holiday": N_("{name} ({division}, holiday)"),
})

NAME = 12  # characters of a name in a table
SHOWN = 10  # groups in the groups' table; people per game in a group's morning lines
MARKS = {placing.UP: "↑", placing.DOWN: "↓", placing.HOLIDAY: "🏖"}


def block(rows: Sequence[str]) -> str:
    """Rows as a monospace block (a Markdown code block; the adapters show it as one)."""
    return "\n".join(["```", *rows, "```"])


def fit(name: str, width: int = NAME) -> str:
    return name if len(name) <= width else name[:width - 1] + "…"


def game_name(lang: str, game: str) -> str:
    return presenter(game).name(lang)


def division(lang: str, n: int) -> str:
    return tr(lang, "lg.division", n=n)


def _rank(line: Line) -> str:
    return f"{line.rank}." if line.rank is not None else "–"


def _row(line: Line, begun: int, me: int | None) -> str:
    played = sum(1 for d in line.days if d is not None)
    tail = " ".join(t for t in (MARKS.get(line.mark, ""), "◀" if line.player_id == me else "")
                    if t)
    return (f"{_rank(line):>3} {fit(line.name):<{NAME}}{line.points:>5}"
            f"{f'{played}/{begun}':>5} {tail}").rstrip()


def days_text(lang: str, board: Board, line: Line) -> str:
    """A person's points on each day of the week begun: ``Mo 12 · Di – · Mi 7``."""
    parts = []
    for i, day in enumerate(board.days[:board.begun]):
        value = line.days[i] if i < len(line.days) else None
        parts.append(f"{weeks.weekday(lang, day)} {'–' if value is None else value}")
    return " · ".join(parts)


def board_text(lang: str, board: Board, me: int | None = None) -> str:
    """A division's table with the person's own line, rank and days under it."""
    out = [tr(lang, "lg.title", game=game_name(lang, board.game),
              division=division(lang, board.division), divisions=board.divisions),
           tr(lang, "lg.week_over" if board.closed else "lg.week", span=weeks.span(board.week),
              day=board.begun)]
    head = (f"{'#':>3} {tr(lang, 'lg.col_name'):<{NAME}}{tr(lang, 'lg.col_points'):>5}"
            f"{tr(lang, 'lg.col_days'):>5}")
    out.append(block([head, *(_row(line, board.begun, me) for line in board.lines)]))
    out.append(tr(lang, "lg.legend_over" if board.closed else "lg.legend"))
    mine = board.line_of(me) if me is not None else None
    if mine is not None:
        playing = sum(1 for line in board.lines if not line.holiday)
        out.append(tr(lang, "lg.you_holiday") if mine.holiday else
                   tr(lang, "lg.you", rank=mine.rank, n=playing, points=mine.points))
        out.append(tr(lang, "lg.your_days", days=days_text(lang, board, mine)))
    return "\n".join(out)


def last_week_text(lang: str, last: Board, me: int) -> str | None:
    """How the person's last week ended (``None``: not in it, or they left the league)."""
    mine = last.line_of(me)
    if mine is None or mine.mark == placing.LEFT:
        return None
    here = division(lang, last.division)
    if mine.holiday:
        return tr(lang, "lg.last_holiday", division=here)
    move = tr(lang, "lg.move_up", division=division(lang, last.division - 1)) \
        if mine.mark == placing.UP else \
        tr(lang, "lg.move_down", division=division(lang, last.division + 1)) \
        if mine.mark == placing.DOWN else tr(lang, "lg.move_stay")
    return tr(lang, "lg.last", rank=mine.rank, division=here, move=move)


def group_text(lang: str, week_boards: dict[str, list[Board]], ids: set[int]) -> str:
    """A group's members in each game's league this week: division, rank, points."""
    out: list[str] = []
    for game, boards in week_boards.items():
        rows = [(b, line) for b in boards for line in b.lines if line.player_id in ids]
        if not rows:
            continue
        if not out:
            out.append(tr(lang, "lg.group_title", span=weeks.span(boards[0].week),
                          day=boards[0].begun))
        out.append(tr(lang, "lg.game", game=game_name(lang, game)))
        out.append(block([f"{fit(division(lang, b.division), 11):<11} {_rank(line):>3} "
                          f"{fit(line.name):<{NAME}}{line.points:>5} "
                          f"{MARKS.get(line.mark, '')}".rstrip() for b, line in rows]))
    return "\n".join(out) if out else tr(lang, "lg.group_none")


def teams_text(lang: str, game: str, board: Board, teams: Sequence[Team],
               here: int | None = None) -> str:
    """The groups' table of a game's week (``here``: the asking group's chat id)."""
    if not teams:
        return tr(lang, "lg.teams_none", game=game_name(lang, game))
    out = [tr(lang, "lg.teams_title", game=game_name(lang, game), span=weeks.span(board.week)),
           block([f"{team.rank:>2}. {fit(team.title, 18):<18}{team.points:>5}"
                  for team in teams[:SHOWN]]),
           tr(lang, "lg.teams_rule", n=TEAM_BEST)]
    mine = next((t for t in teams if t.chat_id == here), None)
    if mine is not None:
        out.append(tr(lang, "lg.teams_here", rank=mine.rank, n=len(teams), points=mine.points))
    return "\n".join(out)


def morning_lines(lang: str, week_boards: dict[str, list[Board]], ids: set[int]) -> list[str]:
    """The lines the daily deal's morning post adds: the group's members' league places."""
    out: list[str] = []
    for game, boards in week_boards.items():
        found = [(b, line) for b in boards for line in b.lines if line.player_id in ids]
        if not found:
            continue
        if not out:
            out.append(tr(lang, "lg.morning_over" if boards[0].closed else "lg.morning",
                          span=weeks.span(boards[0].week)))
        people = [tr(lang, "lg.morning_holiday", name=line.name,
                     division=division(lang, b.division)) if line.holiday else
                  tr(lang, "lg.morning_person", name=line.name,
                     division=division(lang, b.division), rank=line.rank)
                  + (f" {MARKS[line.mark]}" if line.mark in (placing.UP, placing.DOWN) else "")
                  for b, line in found[:SHOWN]]
        out.append(f"{game_name(lang, game)}: " + " · ".join(people)
                   + (" …" if len(found) > SHOWN else ""))
    return out
