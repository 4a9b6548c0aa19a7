"""What a tournament says, and how its lists read: the announcement with its entrants, the
draw of a round, the standings as a compact monospace table (rank, name, points, the
tie-breaks), the final result and the group's history."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from storage.models import Tournament

from ...durations import clock_label
from ...i18n import N_, register, tr
from ...presenters import presenter
from ..core import ranking
from .standings import Standing

register({
    "tn.title": N_("🏆 Tournament: {game} · {rounds} · {clock}"),
    "tn.rounds_1": N_("1 round"),
    "tn.rounds_n": N_("{n} rounds"),
    "tn.games_n": N_("{n} games per table and round"),
    "tn.round_time": N_("a round lasts at most {span}"),
    "tn.starts_when": N_("Starts when {name} presses ▶ Start."),
    "tn.starts_at": N_("Starts {day} at {time}."),
    "tn.late": N_("Late entry until round 2."),
    "tn.entrants": N_("Entered ({n}): {names}"),
    "tn.nobody": N_("Entered: nobody yet"),
    "tn.running": N_("Round {n} of {rounds} is being played."),
    "tn.finished": N_("Finished."),
    "tn.cancelled": N_("Called off."),
    "tn.join": N_("✅ Join"),
    "tn.leave": N_("❌ Leave"),
    "tn.start": N_("▶ Start"),
    "tn.draw": N_("🏆 Round {n} of {rounds} – the tables:"),
    "tn.draw_line": N_("{no}. {names}"),
    "tn.draw_topics": N_("Each table plays in its own topic."),
    "tn.draw_threads": N_("Each table plays in its own thread."),
    "tn.draw_private": N_("You play privately with me: your table comes to your chat."),
    "tn.table_name": N_("🏆 Round {round} · Table {table}"),
    "tn.host": N_("🏆 Tournament round {round}, table {table}"),
    "tn.standings": N_("🏆 Standings after round {n} of {rounds}:"),
    "tn.standings_final": N_("🏆 Final standings:"),
    "tn.standings_head": N_("#   Name          Pts  Opp  Game"),
    "tn.winner": N_("🥇 {names} win the tournament!"),
    "tn.winner_1": N_("🥇 {name} wins the tournament!"),
    "tn.round_done": N_("🏁 Round {n} is over."),
    "tn.scored_as_stands": N_("(table {no} was scored as it stood when the round's time ran out)"),
    "tn.scored_as_ended": N_("(table {no} was scored as it stood when the tournament was ended)"),
    "tn.table_result": N_("🏁 Round {round}, table {no}: {line}"),
    "tn.table_result_game": N_("🏁 Round {round}, table {no}, game {game} of {games}: {line}"),
    "tn.starts_evening": N_("Starts with the Stammtisch evening, {day} at {time}."),
    "tn.history": N_("🏆 This group's tournaments:"),
    "tn.history_line": N_("{no}. {game} · {day} · {n} players · {winner}"),
    "tn.history_none": N_("No tournament was played here yet. /tournament opens one."),
    "tn.history_running": N_("running"),
    "tn.stats": N_("🏆 Tournaments: {n} played, {won} won"),
})
NAME_WIDTH = 12  # characters of a name in the monospace standings


def rounds_text(rounds: int, lang: str) -> str:
    return tr(lang, "tn.rounds_1") if rounds == 1 else tr(lang, "tn.rounds_n", n=rounds)


def announcement(tournament: Tournament, names: Sequence[str], opener: str, lang: str,
                 starts: tuple[str, str] | None) -> str:
    """The tournament's message in the group: what is played, when it starts, who entered."""
    lines = [tr(lang, "tn.title", game=presenter(tournament.game).name(lang),
                rounds=rounds_text(tournament.rounds, lang),
                clock=clock_label(tournament.turn_timeout, lang).removeprefix("⏱ "))]
    if tournament.games_per_round > 1:
        lines.append(tr(lang, "tn.games_n", n=tournament.games_per_round))
    if tournament.round_seconds:
        lines.append(tr(lang, "tn.round_time", span=clock_label(
            tournament.round_seconds, lang).removeprefix("⏱ ")))
    if tournament.state == "open":
        evening = bool((tournament.options or {}).get("evening"))
        lines.append(tr(lang, "tn.starts_evening" if evening else "tn.starts_at",
                        day=starts[0], time=starts[1]) if starts
                     else tr(lang, "tn.starts_when", name=opener))
        if tournament.late_entry:
            lines.append(tr(lang, "tn.late"))
    elif tournament.state == "running":
        lines.append(tr(lang, "tn.running", n=tournament.round_no, rounds=tournament.rounds))
    else:
        lines.append(tr(lang, "tn.finished" if tournament.state == "finished"
                        else "tn.cancelled"))
    lines.append(tr(lang, "tn.entrants", n=len(names), names=", ".join(names)) if names
                 else tr(lang, "tn.nobody"))
    return "\n".join(lines)


def draw(tournament: Tournament, tables: Sequence[tuple[int, Sequence[str]]],
         lang: str) -> str:
    """A round's tables as the group reads them, by their numbers (CPU seats named as
    CPUs)."""
    lines = [tr(lang, "tn.draw", n=tournament.round_no, rounds=tournament.rounds)]
    lines += [tr(lang, "tn.draw_line", no=no, names=", ".join(names)) for no, names in tables]
    lines.append(tr(lang, {"topics": "tn.draw_topics", "threads": "tn.draw_threads"}.get(
        tournament.place or "", "tn.draw_private")))
    return "\n".join(lines)


def standings_table(rows: Sequence[tuple[int, Standing]], lang: str) -> str:
    """The standings as a monospace block: rank, name, points, the opponents' points
    (Buchholz), the game's own points."""
    lines = [tr(lang, "tn.standings_head")]
    for rank, s in rows:
        name = s.name if len(s.name) <= NAME_WIDTH else s.name[:NAME_WIDTH - 1] + "…"
        game = f"{s.game_points:g}"
        lines.append(f"{rank:>2}. {name:<{NAME_WIDTH}} {ranking.shown(s.points, lang):>4} "
                     f"{ranking.shown(s.buchholz, lang):>4} {game:>5}")
    return "```\n" + "\n".join(lines) + "\n```"


def standings(tournament: Tournament, rows: Sequence[tuple[int, Standing]], lang: str,
              final: bool = False) -> str:
    """The standings message: its title, the table and, at the end, the winners."""
    title = tr(lang, "tn.standings_final") if final else tr(
        lang, "tn.standings", n=tournament.round_no, rounds=tournament.rounds)
    parts = [title, standings_table(rows, lang)]
    if final and rows:
        best = [s.name for rank, s in rows if rank == 1]
        parts.append(tr(lang, "tn.winner_1", name=best[0]) if len(best) == 1
                     else tr(lang, "tn.winner", names=", ".join(best)))
    return "\n".join(parts)


def day(moment: datetime) -> str:
    return moment.strftime("%d.%m.%Y")
