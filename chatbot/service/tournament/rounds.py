"""A tournament's rounds: a round drawn (by lot, then Swiss), its tables opened where they
play (a topic each in a forum, a thread each on Matrix — asked for through the outbox and
waited for — else in the players' private chats), every finished game scored (the core tells:
``GameFinished``; a table ended otherwise is scored as it stood: ``TableClosed``), the round
ended when every table finished or its time ran out (unfinished tables scored as they stand),
the standings posted, the next round drawn or the winner crowned.
"""

from __future__ import annotations

import random
from datetime import timedelta
from fractions import Fraction
from typing import Any

import fsm
from storage.db import aware
from storage.models import Chat, GameTable, Seat, Tournament, TournamentScore, TournamentTable

from ...i18n import tr
from ...presenters import presenter
from ...table_options import cpu_names
from ..core import languages, mini_app, outgoing, play, ranking, records, tables
from ..core.events import GameFinished, TableClosed
from ..core.transaction import Ctx
from . import entries, pairing, texts
from .standings import order

THREAD_WAIT = timedelta(minutes=2)  # a round's topics not made by then: it plays privately
POLL = timedelta(seconds=2)  # how often a round waiting for its topics looks again
THREADS = {"telegram": "topics", "matrix": "threads"}  # where a platform can open threads
MIN_PEOPLE = 2  # fewer left in it after a round: the tournament ends


def slot(tournament: Tournament) -> str:
    """The announcement's slot (the standings are ``slot + "s"``)."""
    return f"tn{tournament.id}"


def placed(name: str, thread: str | None) -> str:
    """A chat-wide slot's name as ``outgoing.say`` keeps it in a topic or thread (one per
    topic), for acting on its message (pin, unpin, delete)."""
    return f"{name}@{thread}"[:64] if thread is not None else name


def thread_key(tournament: Tournament, table: TournamentTable) -> str:
    return f"tn{tournament.id}.{table.round_no}.{table.table_no}"


def begin_round(ctx: Ctx, chat: Chat, tournament: Tournament) -> None:
    """The next round: its tables drawn, then opened (at once where they play privately, else
    once their topics or threads are made: the step ``deal``)."""
    tournament.round_no += 1
    people = [p.id for _e, p in entries.entrants(ctx.session, tournament)]
    rng = random.Random(f"{tournament.id}:{tournament.round_no}")
    if tournament.round_no == 1:
        drawn = pairing.draw(people, tournament.game, rng)  # type: ignore[arg-type]
    else:
        best_first = [p for p in order(entries.current_standings(ctx.session, tournament))
                      if p in set(people)]
        best_first += [p for p in people if p not in set(best_first)]  # (late entrants last)
        met = entries.met_before(ctx.session, tournament)
        drawn = pairing.swiss(best_first, tournament.game,  # type: ignore[arg-type]
                              lambda a, b: met.get((min(a, b), max(a, b)), 0), rng)
    made = []
    for no, seats in enumerate(drawn, 1):
        row = TournamentTable(tournament_id=tournament.id, round_no=tournament.round_no,  # type: ignore[arg-type]
                              table_no=no, seats=list(seats), state="waiting")
        ctx.session.add(row)
        made.append(row)
    ctx.session.flush()
    if tournament.place == "private" or chat.platform not in THREADS:
        tournament.place = "private"
        deal_round(ctx, chat, tournament)
        return
    lang = languages.language(ctx, chat)
    for row in made:
        outgoing.open_thread(ctx, chat, thread_key(tournament, row), tr(
            lang, "tn.table_name", round=row.round_no, table=row.table_no))
    tournament.round_ends_at = ctx.now + THREAD_WAIT  # (until the round is dealt: the wait)
    _due(tournament, "deal", ctx.now + POLL)


def deal_round(ctx: Ctx, chat: Chat, tournament: Tournament) -> bool:
    """Open the round's tables whose place is known; ``True`` once every one plays (the draw
    then goes to the group). A topic or thread the chat refused, or one not made in time:
    the tournament plays privately from then on."""
    waiting = [t for t in entries.tables(ctx.session, tournament, lock=True)
               if t.state == "waiting"]
    if tournament.place != "private":
        for row in waiting:
            made = outgoing.opened_thread(ctx.session, chat, thread_key(tournament, row))
            if made is False or (made is None and tournament.round_ends_at is not None
                                 and ctx.now >= aware(tournament.round_ends_at)):
                tournament.place = "private"
                break
            if isinstance(made, str):
                row.thread_id = made
        if tournament.place != "private" and any(r.thread_id is None for r in waiting):
            _due(tournament, "deal", ctx.now + POLL)
            return False
        if tournament.place != "private":
            tournament.place = THREADS[chat.platform]
    opener = records.get_player(ctx.session, tournament.opener_id)
    still_in = set(entries.names(ctx.session, tournament))
    for row in waiting:
        if tournament.place == "private":
            row.thread_id = None
        if still_in.intersection(row.seats):
            deal_table(ctx, chat, tournament, row, opener)
        else:  # (everybody of it left while its topic was being made)
            row.state = "done"
    tournament.round_ends_at = ctx.now + timedelta(seconds=tournament.round_seconds) \
        if tournament.round_seconds else None
    _due(tournament, "round_end" if tournament.round_ends_at else None,
         tournament.round_ends_at)
    _say_draw(ctx, chat, tournament)
    _round_complete(ctx, tournament)
    return True


def deal_table(ctx: Ctx, chat: Chat, tournament: Tournament, row: TournamentTable,
               opener: Any) -> GameTable:
    """A game at a tournament table: a group table (in its topic or thread, or played in its
    people's private chats) with its people and Normal CPUs seated, dealt at once."""
    still_in = set(entries.names(ctx.session, tournament))
    people = [p for p in row.seats if p is not None and p in still_in]
    where = {"thread_name": tr(languages.language(ctx, chat), "tn.table_name", round=row.round_no,
                               table=row.table_no)} if row.thread_id else {}  # (as it was made)
    table = tables.new_table(
        ctx, chat, opener, tournament.game, private=False, thread=row.thread_id,
        turn_timeout=tournament.turn_timeout,
        options={"engine": dict((tournament.options or {}).get("engine") or {}),
                 "host": {"key": "tn.host", "values": {"round": row.round_no,
                                                       "table": row.table_no}},
                 "managers": people, "in_private": tournament.place == "private",
                 "no_again": True, **where})
    table.thread_id = row.thread_id  # (not the input's: a start pressed in some topic)
    named = {p.id: p for p in (records.get_player(ctx.session, i) for i in people) if p}
    cpus = iter(cpu_names(len(row.seats) - len(people), [n.name for n in named.values()]))
    for seat_no, person in enumerate(row.seats):
        if person in named:
            records.add_seat(ctx.session, table, seat_no, named[person].name, player_id=person)
        else:
            records.add_seat(ctx.session, table, seat_no, f"🤖 {next(cpus)}", is_cpu=True,
                             cpu_level="normal")
    ctx.session.flush()
    play.start(ctx, table)
    row.table_id, row.state = table.id, "playing"
    return table


def _say_draw(ctx: Ctx, chat: Chat, tournament: Tournament) -> None:
    """The round's tables, as seated (the CPUs by their names at the table)."""
    drawn = []
    for row in entries.tables(ctx.session, tournament):
        table = records.get_table(ctx.session, row.table_id)
        if table is not None:
            drawn.append((row.table_no, [s.name for s in records.seats(ctx.session, table)]))
    outgoing.say(ctx, chat, texts.draw(tournament, drawn, languages.language(ctx, chat)),
                 thread=tournament.thread_id)


def _due(tournament: Tournament, kind: str | None, at: Any) -> None:
    tournament.due_kind, tournament.due_at = (kind, at) if kind else (None, None)


# ---------------------------------------------------------------------------------- scoring
def game_finished(ctx: Ctx, event: GameFinished) -> None:
    """A game finished: if it was a tournament's, its people's points are written and the
    table plays its next game of the round, or is done (the last one done: the round ends)."""
    found = _playing(ctx, event.table)
    if found is None:
        return
    tournament, row = found
    points = _score(ctx, row, event.seats, event.winners, event.standings)
    _say_result(ctx, tournament, row, event.seats, points)
    table_done(ctx, tournament, row)


def table_closed(ctx: Ctx, event: TableClosed) -> None:
    """A tournament table ended before its game did (an administrator, a topic closed): it is
    scored as it stood."""
    found = _playing(ctx, event.table)
    if found is None:
        return
    tournament, row = found
    seats, points = score_as_it_stands(ctx, row, event.table)
    _say_result(ctx, tournament, row, seats, points)
    row.state = "done"
    _round_complete(ctx, tournament)


def _playing(ctx: Ctx, table: GameTable) -> tuple[Tournament, TournamentTable] | None:
    """The running tournament and its table a game table plays for, both locked (the
    tournament first: ``entries.lock_round``'s order); ``None`` if it plays for none."""
    row = entries.table_of_game(ctx.session, table.id)  # type: ignore[arg-type]
    if row is None or row.state != "playing":
        return None
    tournament = entries.get(ctx.session, row.tournament_id, lock=True)
    if tournament is None or tournament.state != "running":
        return None
    locked = next((t for t in entries.tables(ctx.session, tournament, row.round_no, lock=True)
                   if t.id == row.id), None)
    if locked is None or locked.state != "playing" or locked.table_id != table.id:
        return None
    return tournament, locked


def table_done(ctx: Ctx, tournament: Tournament, row: TournamentTable) -> None:
    """A table's game is over: the next game of the round at it (while somebody of it is
    still in the tournament), or the table is done."""
    still_in = set(entries.names(ctx.session, tournament))
    if row.game_no + 1 < tournament.games_per_round and still_in.intersection(row.seats):
        chat = records.get_chat(ctx.session, tournament.chat_id)
        row.game_no += 1
        deal_table(ctx, chat, tournament, row, records.get_player(  # type: ignore[arg-type]
            ctx.session, tournament.opener_id))
        return
    row.state = "done"
    _round_complete(ctx, tournament)


def _round_complete(ctx: Ctx, tournament: Tournament) -> None:
    """Every table of the round done: the round ends (at once, by the step)."""
    if all(t.state == "done" for t in entries.tables(ctx.session, tournament)):
        _due(tournament, "round_end", ctx.now)


def _score(ctx: Ctx, row: TournamentTable, seats: list[Seat], winners: list[int],
           standings_: list[dict[str, Any]]) -> dict[int, Fraction]:
    """Each person's points by place at the table (CPU seats take places, but only people
    are written); the points of every seat."""
    points = ranking.seat_points(winners, standings_)
    values = {int(s["seat"]): ranking.standing_value(s) for s in standings_}
    people = {s.seat_no: s.player_id for s in seats if s.player_id is not None}
    for seat_no, person in people.items():
        share = points.get(seat_no, Fraction(0))
        ctx.session.add(TournamentScore(
            tournament_id=row.tournament_id, round_no=row.round_no, table_no=row.table_no,
            game_no=row.game_no, player_id=person, points_num=share.numerator,
            points_den=share.denominator, game_points=values.get(seat_no, 0.0),
            opponents=[p for n, p in people.items() if n != seat_no], at=ctx.now))
    ctx.session.flush()
    return points


def _say_result(ctx: Ctx, tournament: Tournament, row: TournamentTable, seats: list[Seat],
                points: dict[int, Fraction]) -> None:
    """A table's game is over: its points by place, as they come, where the tournament was
    opened (the draw and the standings go there too) — names and points only."""
    chat = records.get_chat(ctx.session, tournament.chat_id)
    if chat is None:
        return
    lang = languages.language(ctx, chat)
    named = {s.seat_no: s.name for s in seats}
    best_first = sorted(points.items(), key=lambda item: (-item[1], item[0]))
    line = " · ".join(f"{named.get(seat, '?')} {ranking.shown(share, lang)}"
                      for seat, share in best_first)
    key = "tn.table_result" if tournament.games_per_round == 1 else "tn.table_result_game"
    outgoing.say(ctx, chat, tr(lang, key, no=row.table_no, round=row.round_no,
                               game=row.game_no + 1, games=tournament.games_per_round,
                               line=line), thread=tournament.thread_id)


def score_as_it_stands(ctx: Ctx, row: TournamentTable, table: GameTable
                       ) -> tuple[list[Seat], dict[int, Fraction]]:
    """An unfinished game scored by the standing its seats have now (no winner): its seats
    and their points."""
    seats = records.seats(ctx.session, table)
    model = records.model(table, seats)
    if model.engine_state is None:
        standings_ = [{"seat": s.seat_no} for s in seats]
    else:
        standings_ = presenter(table.game).standings(model.engine_state,
                                                     [s.name for s in seats])
    return seats, _score(ctx, row, seats, [], standings_)


def end_round(ctx: Ctx, chat: Chat, tournament: Tournament, why: str = "time") -> None:
    """The round's end (every table done, or ``why``: its ``time`` ran out, or it was
    ``ended``): unfinished tables scored as they stand and stopped (noted in the group), the
    standings posted and pinned, then the next round — or the end, after the last round or
    when fewer than two people are left in it."""
    lang = languages.language(ctx, chat)
    cut = []
    for row in entries.tables(ctx.session, tournament, lock=True):
        if row.state == "waiting":  # (ended while its topic was being made)
            row.state = "done"
        if row.state != "playing":
            continue
        table = records.lock_table(ctx.session, row.table_id) if row.table_id else None
        row.state = "done"
        if table is not None and table.fsm_state not in fsm.CLOSED:
            seats, points = score_as_it_stands(ctx, row, table)
            _say_result(ctx, tournament, row, seats, points)
            play.stop_table(ctx, table, "tournament")
            cut.append(row.table_no)
    note = "tn.scored_as_stands" if why == "time" else "tn.scored_as_ended"
    lines = [tr(lang, "tn.round_done", n=tournament.round_no)]
    lines += [tr(lang, note, no=no) for no in cut]
    outgoing.say(ctx, chat, "\n".join(lines), thread=tournament.thread_id)
    if tournament.round_no >= tournament.rounds \
            or len(entries.entrants(ctx.session, tournament)) < MIN_PEOPLE:
        finish(ctx, chat, tournament)
    else:
        show_standings(ctx, chat, tournament)
        begin_round(ctx, chat, tournament)


def show_standings(ctx: Ctx, chat: Chat, tournament: Tournament, final: bool = False) -> None:
    """The standings in the group, pinned: one message, posted anew at each round's end."""
    lang = languages.language(ctx, chat)
    rows = entries.current_standings(ctx.session, tournament)
    outgoing.say(ctx, chat, texts.standings(tournament, rows, lang, final=final),
                 mini_app.app_page(ctx, chat, f"tn{tournament.id}", lang),
                 slot=f"{slot(tournament)}s", fresh=True, thread=tournament.thread_id)
    outgoing.act(ctx, chat, None, placed(f"{slot(tournament)}s", tournament.thread_id), "pin",
                 tournament.thread_id)


def finish(ctx: Ctx, chat: Chat, tournament: Tournament) -> None:
    """The tournament is over: the final standings with the winner crowned."""
    tournament.state, tournament.finished_at = "finished", ctx.now
    _due(tournament, None, None)
    show_standings(ctx, chat, tournament, final=True)
    outgoing.act(ctx, chat, None, placed(slot(tournament), tournament.thread_id), "unpin",
                 tournament.thread_id)


def winners(session: Any, tournament: Tournament) -> list[int]:
    """The people ranked first at the end (several on a tie)."""
    return [s.player_id for rank, s in entries.current_standings(session, tournament)
            if rank == 1]
