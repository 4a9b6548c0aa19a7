"""The Mini App's tournament page and league page as the page draws them (JSON, texts in the
person's language), from the service's plain data: a tournament's draw, its tables' results and
its standings (``Service.tournament_sight``); a division of the league's week
(``Service.league_page``). See docs/webapp-api.md for the JSON.

Numbers are drawn as the chat draws them (a tournament's points ``1,5`` in German, ``1.5`` in
English); ranks come from the service (ties share one).
"""

from __future__ import annotations

from typing import Any

from ..i18n import N_, register, tr
from ..presenters import presenter
from ..service import LeagueLine, LeaguePage, TournamentSight

TOURNAMENT_REFRESH = 15  # seconds between two looks of an open tournament page (in sight)
LEAGUE_REFRESH = 60  # … of a league page (a day's points change with each finished deal)

register({
    "wa.tn.title": N_("Tournament · {game}"),
    "wa.tn.open": N_("Entry is open · {n} entered"),
    "wa.tn.running": N_("Round {n} of {rounds}"),
    "wa.tn.finished": N_("Finished · final standings"),
    "wa.tn.cancelled": N_("Called off"),
    "wa.tn.round": N_("Round {n}"),
    "wa.tn.tables": N_("Tables"),
    "wa.tn.table": N_("Table {no}"),
    "wa.tn.waiting": N_("not started"),
    "wa.tn.playing": N_("playing"),
    "wa.tn.playing_n": N_("playing game {n} of {games}"),
    "wa.tn.done": N_("finished"),
    "wa.tn.standings": N_("Standings"),
    "wa.tn.entrants": N_("Entered ({n})"),
    "wa.tn.nobody": N_("Nobody entered yet."),
    "wa.tn.no_draw": N_("The tables are drawn when the tournament starts."),
    "wa.tn.topics": N_("Each table plays in its own topic."),
    "wa.tn.threads": N_("Each table plays in its own thread."),
    "wa.tn.private": N_("The tables play in their players' private chats."),
    "wa.tn.col_points": N_("Pts"),
    "wa.tn.col_opp": N_("Opp."),
    "wa.tn.col_game": N_("Game"),
    "wa.tn.legend": N_("Pts: tournament points by place · Opp.: the opponents' points "
                       "(Buchholz) · Game: the game's own points"),
    "wa.tn.not_yours": N_("Only the people of the tournament's group can see it."),
    "wa.tn.none": N_("No such tournament."),
    "wa.lg.title": N_("League · {game}"),
    "wa.lg.league": N_("League"),
    "wa.lg.division": N_("Division {n}"),
    "wa.lg.week": N_("Week {span} · day {day} of 7"),
    "wa.lg.week_over": N_("Week {span} · final"),
    "wa.lg.col_name": N_("Name"),
    "wa.lg.col_points": N_("Pts"),
    "wa.lg.legend": N_("↑ up · ↓ down if the week ended now"),
    "wa.lg.legend_over": N_("↑ moved up · ↓ moved down"),
    "wa.lg.holiday": N_("holiday"),
    "wa.lg.you": N_("You: place {rank} of {n} · {points} points"),
    "wa.lg.you_holiday": N_("You are on holiday this week: you keep your division."),
    "wa.lg.not_here": N_("You are not in this division."),
    "wa.lg.none": N_("🏆 You are in no league yet. Play today's deal (/daily): your first "
                     "counted deal puts you in the lowest division of that game's league."),
    "wa.lg.nobody": N_("🏆 Nobody plays in a league this week yet. Play today's deal: /daily"),
    "wa.lg.nobody_in": N_("🏆 Nobody plays in the {game} league this week yet. Play today's "
                          "deal: /daily"),
    "wa.lg.no_division": N_("No such division: the {game} league goes down to division {n} "
                            "this week."),
    "wa.lg.stranger": N_("I don't know you yet: play today's deal with me (/daily) and you are "
                         "in the league."),
})
_MARKS = {"up": "↑", "down": "↓"}
_ZONES = ("up", "down", "holiday")
_PLACES = {"topics": "wa.tn.topics", "threads": "wa.tn.threads", "private": "wa.tn.private"}


def points(value: float, lang: str) -> str:
    """Tournament points as the chat shows them: ``3``, ``1,5`` (German), ``1.5``."""
    if float(value).is_integer():
        return str(int(value))
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return text.replace(".", ",") if lang == "de" else text


def game_points(value: float | None) -> str | None:
    return None if value is None else f"{value:g}"


# ---------------------------------------------------------------------------------- tournament


def tournament_page(sight: TournamentSight) -> dict[str, Any]:
    """A tournament's page: its state, every round's tables with their results so far, the
    standings (``you`` marks the person's rows)."""
    d, lang, me = sight.data, sight.lang, sight.viewer
    state = d["state"]
    status = {"open": tr(lang, "wa.tn.open", n=len(d["entrants"])),
              "running": tr(lang, "wa.tn.running", n=d["round"], rounds=d["rounds"]),
              "finished": tr(lang, "wa.tn.finished")}.get(state, tr(lang, "wa.tn.cancelled"))
    return {
        "kind": "tournament", "id": d["id"], "lang": lang, "game": d["game"], "state": state,
        "round": d["round"], "rounds": d["rounds"],
        "title": tr(lang, "wa.tn.title", game=presenter(d["game"]).name(lang)),
        "status": status,
        "place": tr(lang, _PLACES[d["place"]]) if d["place"] in _PLACES else "",
        "entrants": list(d["entrants"]),
        "draw": [{"round": r["round"], "label": tr(lang, "wa.tn.round", n=r["round"]),
                  "tables": [_table(t, d["games_per_round"], lang, me) for t in r["tables"]]}
                 for r in d["draw"]],
        "standings": [{"rank": s["rank"], "name": s["name"],
                       "points": points(s["points"], lang),
                       "buchholz": points(s["buchholz"], lang),
                       "game_points": game_points(s["game_points"]), "played": s["played"],
                       "you": s["player_id"] == me} for s in d["standings"]],
        "texts": {"tables": tr(lang, "wa.tn.tables"), "standings": tr(lang, "wa.tn.standings"),
                  "entrants": tr(lang, "wa.tn.entrants", n=len(d["entrants"])),
                  "nobody": tr(lang, "wa.tn.nobody"), "no_draw": tr(lang, "wa.tn.no_draw"),
                  "name": tr(lang, "wa.lg.col_name"), "points": tr(lang, "wa.tn.col_points"),
                  "buchholz": tr(lang, "wa.tn.col_opp"), "game": tr(lang, "wa.tn.col_game"),
                  "legend": tr(lang, "wa.tn.legend"), "you": tr(lang, "wa.you"),
                  "offline": tr(lang, "wa.offline")},
        "refresh": TOURNAMENT_REFRESH if state in ("open", "running") else None,
    }


def _table(t: dict[str, Any], games: int, lang: str, me: int) -> dict[str, Any]:
    state = t["state"]
    text = tr(lang, "wa.tn.playing_n", n=t["game_no"] + 1, games=games) \
        if state == "playing" and games > 1 else tr(lang, f"wa.tn.{state}") \
        if state in ("waiting", "playing", "done") else state
    return {"no": t["no"], "label": tr(lang, "wa.tn.table", no=t["no"]), "state": state,
            "state_text": text,
            "seats": [{"name": s["name"], "cpu": s["player_id"] is None,
                       "you": s["player_id"] == me,
                       "points": None if s["points"] is None else points(s["points"], lang),
                       "game_points": game_points(s["game_points"])} for s in t["seats"]]}


# ---------------------------------------------------------------------------------- league


def league_page(page: LeaguePage) -> dict[str, Any]:
    """A division of a game's league this week: rank, name, points per day, total; the
    person's row (``you``), who moves up and down (``zone``), the games and divisions to
    switch to."""
    lang, board, me = page.lang, page.board, page.viewer
    games = [{"game": g, "label": presenter(g).name(lang),
              "on": board is not None and board.game == g} for g in page.games]
    base: dict[str, Any] = {
        "kind": "league", "lang": lang, "games": games, "divisions": page.divisions,
        "texts": {"name": tr(lang, "wa.lg.col_name"), "points": tr(lang, "wa.lg.col_points"),
                  "you": tr(lang, "wa.you"), "offline": tr(lang, "wa.offline")},
        "refresh": LEAGUE_REFRESH,
    }
    if board is None or not board.lines:
        game = page.game
        empty = tr(lang, "wa.lg.no_division", game=presenter(game).name(lang),
                   n=page.divisions) if game and board is None and page.divisions \
            else tr(lang, "wa.lg.nobody_in", game=presenter(game).name(lang)) if game \
            else tr(lang, "wa.lg.nobody")
        return {**base, "game": game, "division": None, "rows": [], "days": [], "begun": 0,
                "closed": False, "week": "", "legend": "", "you": None, "empty": empty,
                "title": tr(lang, "wa.lg.title", game=presenter(game).name(lang)) if game
                else tr(lang, "wa.lg.league"), "division_labels": _divisions(page, lang)}
    mine = board.line_of(me)
    playing = sum(1 for line in board.lines if not line.holiday)
    you = tr(lang, "wa.lg.none") if not page.member_of else \
        tr(lang, "wa.lg.not_here") if mine is None else \
        tr(lang, "wa.lg.you_holiday") if mine.holiday else \
        tr(lang, "wa.lg.you", rank=mine.rank, n=playing, points=mine.points)
    return {
        **base, "game": board.game,
        "title": tr(lang, "wa.lg.title", game=presenter(board.game).name(lang)),
        "division": board.division, "closed": board.closed, "begun": board.begun,
        "week": tr(lang, "wa.lg.week_over" if board.closed else "wa.lg.week",
                   span=_span(board.days), day=board.begun),
        "days": [tr(lang, f"dur.wd{day.weekday()}") for day in board.days],
        "rows": [_line(line, board.begun, me, lang) for line in board.lines],
        "legend": tr(lang, "wa.lg.legend_over" if board.closed else "wa.lg.legend"),
        "you": you, "empty": None, "division_labels": _divisions(page, lang),
    }


def _divisions(page: LeaguePage, lang: str) -> list[dict[str, Any]]:
    shown = page.board.division if page.board is not None else None
    return [{"n": n, "label": tr(lang, "wa.lg.division", n=n), "on": n == shown}
            for n in range(1, page.divisions + 1)]


def _line(line: LeagueLine, begun: int, me: int, lang: str) -> dict[str, Any]:
    days = ["" if i >= begun else "–" if value is None else str(value)
            for i, value in enumerate(line.days)]
    zone = line.mark if line.mark in _ZONES else ""
    return {"rank": f"{line.rank}." if line.rank is not None else "–", "name": line.name,
            "days": days, "points": line.points, "zone": zone,
            "mark": tr(lang, "wa.lg.holiday") if zone == "holiday" else _MARKS.get(zone, ""),
            "you": line.player_id == me}


def _span(days: Any) -> str:
    """The week as people read it: ``07.01.–13.01.``."""
    return f"{days[0]:%d.%m.}–{days[-1]:%d.%m.}"
