"""A Stammtisch evening's steps (issue 40), each due at a time kept in its row and fired once
(``deadlines.Deadlines.fire_evening`` claims it: the row locked, its version checked): the
announcement (pinned, edited as people answer), the reminders the day before and 30 minutes
before (privately to who said yes or maybe, as their reminder settings and quiet hours allow,
and once in the group), the start (the planned game's lobby with the yes people seated; on the
first evening of a month, last month's Stammtischkönig), and the close (the summary, the
announcement unpinned, the series' next evening planned).
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from sqlalchemy import func
from sqlmodel import Session, col, select

from engine import GAMES
from storage.models import Chat, Evening, EveningAnswer, GroupSetting, Move, Player

from ... import buttons
from ...i18n import N_, register, tr
from ...presenters import presenter
from ...table_options import Host
from ..core import (
    languages,
    outgoing,
    play,
    quiet_hours,
    ranking,
    records,
    tables,
    turn_clock,
    typed_times,
)
from ..core.transaction import Ctx
from . import dates, scoresheet

register({
    "ev.title": N_("🍻 Stammtisch {day}, {time}{repeat}"),
    "ev.weekly": N_(" · every week"),
    "ev.biweekly": N_(" · every two weeks"),
    "ev.game": N_("Planned: {game}"),
    "ev.no_game": N_("Planned: we'll see"),
    "ev.who": N_("Who comes?"),
    "ev.yes_list": N_("✅ Coming ({n}): {names}"),
    "ev.maybe_list": N_("❔ Maybe: {names}"),
    "ev.no_list": N_("❌ Not coming: {names}"),
    "ev.yes": N_("✅ I'll come"),
    "ev.maybe": N_("❔ Maybe"),
    "ev.no": N_("❌ Can't come"),
    "ev.closed_note": N_("(over)"),
    "ev.running_note": N_("(under way)"),
    "ev.host": N_("🍻 Stammtisch evening"),
    "ev.day0": N_("Mon"), "ev.day1": N_("Tue"), "ev.day2": N_("Wed"), "ev.day3": N_("Thu"),
    "ev.day4": N_("Fri"), "ev.day5": N_("Sat"), "ev.day6": N_("Sun"),
    "ev.date": N_("{weekday} {month}/{day}"),
    "ev.remind_day_group": N_("🍻 Tomorrow, {time}: Stammtisch! Coming so far: {names}."),
    "ev.remind_soon_group": N_("🍻 In 30 minutes, {time}: Stammtisch! Coming: {names}."),
    "ev.remind_day": N_("🍻 Tomorrow at {time}: Stammtisch in {group}."),
    "ev.remind_soon": N_("🍻 In 30 minutes ({time}): Stammtisch in {group}."),
    "ev.nobody": N_("nobody yet"),
    "ev.starts": N_("🍻 The Stammtisch begins! Every game until /abend ende counts for the Deckel."),
    "ev.too_few": N_("🍻 {game} needs at least {min} players, {n} said yes. Games that fit:"),
    "ev.menu": N_("🍻 What shall we play?"),
    "ev.busy": N_("🍻 A table is open already: it counts for the Deckel when it ends."),
    "ev.summary": N_("🍻 The Stammtisch is over. Thanks for coming!"),
    "ev.played": N_("Games: {games}"),
    "ev.no_games": N_("No game was finished this evening."),
    "ev.longest": N_("Longest game: {game}, {moves} moves, won by {names}."),
    "ev.comeback": N_("Biggest comeback: {name} trailed by {n} at {game} and won."),
    "ev.king": N_("👑 Stammtisch king/queen of {month}: {names} ({points} points)"),
    "ev.next": N_("Next Stammtisch: {day}, {time}."),
})
ANSWERS = ("yes", "maybe", "no")


def day_label(moment: datetime, zone: str, lang: str) -> tuple[str, str]:
    """(``Fr 10.01.`` or ``Fri 1/10``, ``20:00``) of a moment in the group's time zone."""
    local = typed_times.aware(moment).astimezone(typed_times.zone(zone))
    weekday = tr(lang, f"ev.day{local.weekday()}")
    day = f"{weekday} {local.day:02d}.{local.month:02d}." if lang == "de" else \
        tr(lang, "ev.date", weekday=weekday, month=local.month, day=local.day)
    return day, f"{local.hour:02d}:{local.minute:02d}"


def answers(session: Session, evening: Evening) -> dict[str, list[Player]]:
    """The people by answer, in the order they answered."""
    rows = session.exec(select(EveningAnswer, Player).join(
        Player, col(Player.id) == EveningAnswer.player_id)
        .where(EveningAnswer.evening_id == evening.id)
        .order_by(col(EveningAnswer.at), col(EveningAnswer.player_id))).all()
    out: dict[str, list[Player]] = {a: [] for a in ANSWERS}
    for answer, player in rows:
        out.setdefault(answer.answer, []).append(player)
    return out


def _names(people: list[Player], lang: str) -> str:
    return ", ".join(p.name or p.username or "?" for p in people) or tr(lang, "ev.nobody")


def slot(evening: Evening) -> str:
    return f"ev{evening.id}"


def announcement(session: Session, evening: Evening, lang: str
                 ) -> tuple[str, list[list[tuple[str, str]]]]:
    """The announcement's text (who comes) and its three answer buttons."""
    day, hhmm = day_label(evening.starts_at, evening.zone, lang)
    repeat = tr(lang, f"ev.{evening.repeat}") if evening.repeat != dates.ONCE else ""
    lines = [tr(lang, "ev.title", day=day, time=hhmm, repeat=repeat),
             tr(lang, "ev.game", game=presenter(evening.game).name(lang)) if evening.game
             else tr(lang, "ev.no_game")]
    said = answers(session, evening)
    lines.append(tr(lang, "ev.yes_list", n=len(said["yes"]), names=_names(said["yes"], lang)))
    if said["maybe"]:
        lines.append(tr(lang, "ev.maybe_list", names=_names(said["maybe"], lang)))
    if said["no"]:
        lines.append(tr(lang, "ev.no_list", names=_names(said["no"], lang)))
    if evening.state in ("closed", "dropped"):
        return "\n".join([*lines, tr(lang, "ev.closed_note")]), []  # (on a line of its own)
    if evening.state == "running":  # the answers closed when it began
        return "\n".join([*lines, tr(lang, "ev.running_note")]), []
    lines.append(tr(lang, "ev.who"))
    rows = [[(tr(lang, f"ev.{a}"), buttons.encode(0, 0, f"ev.a.{evening.id}.{a[0]}"))
             for a in ANSWERS]]
    return "\n".join(lines), rows


def show(ctx: Ctx, chat: Chat, evening: Evening, fresh: bool = False) -> None:
    """The announcement: posted (and pinned) when ``fresh``, else edited in place."""
    text, rows = announcement(ctx.session, evening, languages.language(ctx, chat))
    outgoing.say(ctx, chat, text, rows, slot=slot(evening), repost=fresh, fresh=fresh)
    if fresh:
        outgoing.act(ctx, chat, None, slot(evening), "pin")


def plan(ctx: Ctx, evening: Evening) -> None:
    """Set an evening's first due step (the announcement; a single evening's at once)."""
    steps = dates.step_times(evening.starts_at, evening.repeat, ctx.now)
    evening.due_kind, evening.due_at = steps[0]


def fire(ctx: Ctx, evening: Evening) -> None:
    """Run the evening's due step and set the next one."""
    chat = records.get_chat(ctx.session, evening.chat_id)
    kind = evening.due_kind
    evening.version += 1
    if chat is None or kind is None:
        evening.due_kind = evening.due_at = None
        return
    if kind == "announce":
        show(ctx, chat, evening, fresh=True)
    elif kind in ("day", "soon"):
        remind(ctx, chat, evening, kind)
    elif kind == "start":
        start(ctx, chat, evening)
    elif kind == "close":
        close(ctx, chat, evening)
        return
    following = dates.after(evening.starts_at, evening.repeat, evening.created_at, kind,
                           ctx.now)
    evening.due_kind, evening.due_at = following if following else (None, None)


def remind(ctx: Ctx, chat: Chat, evening: Evening, kind: str) -> None:
    """The day before or 30 minutes before: privately to yes and maybe (as their reminder
    settings and quiet hours allow), once in the group."""
    said = answers(ctx.session, evening)
    lang = languages.language(ctx, chat)
    _day, hhmm = day_label(evening.starts_at, evening.zone, lang)
    outgoing.say(ctx, chat, tr(lang, f"ev.remind_{kind}_group", time=hhmm,
                               names=_names(said["yes"], lang)))
    for person in said["yes"] + said["maybe"]:
        if not person.private_chat_id or not quiet_hours.may_remind(person, "last", ctx.now):
            continue
        plang = languages.person_language(ctx, chat.platform, person)
        _d, local = day_label(evening.starts_at, evening.zone, plang)
        outgoing.queue(ctx, chat.platform, person.private_chat_id, None, None, False,
                       tr(plang, f"ev.remind_{kind}", time=local, group=chat.title or "–"),
                       [])


def start(ctx: Ctx, chat: Chat, evening: Evening) -> None:
    """The evening begins (one still running closes first: one evening at a time): its
    answers close, last month's king (once a month), then the planned game's lobby with the
    yes people seated, or the choice of games."""
    running = scoresheet.running(ctx.session, chat.id)
    if running is not None and running.id != evening.id:
        running.version += 1
        close(ctx, chat, running)
    evening.state, evening.started_at = "running", ctx.now
    lang = languages.language(ctx, chat)
    show(ctx, chat, evening)
    crown(ctx, chat, evening, lang)
    outgoing.say(ctx, chat, tr(lang, "ev.starts"))
    people = answers(ctx.session, evening)["yes"]
    if records.open_table(ctx.session, chat) is not None:
        outgoing.say(ctx, chat, tr(lang, "ev.busy"))
        return
    if evening.game is None or not people:
        offer(ctx, chat, evening, lang, tr(lang, "ev.menu"), list(GAMES))
        return
    game = GAMES[evening.game]
    if len(people) < game.MIN_SEATS:
        fits = [g for g, m in GAMES.items() if m.MIN_SEATS <= len(people) <= m.MAX_SEATS]
        offer(ctx, chat, evening, lang, tr(lang, "ev.too_few", n=len(people),
                                           game=presenter(evening.game).name(lang),
                                           min=game.MIN_SEATS), fits)
        return
    open_table(ctx, chat, evening, evening.game, people)


def offer(ctx: Ctx, chat: Chat, evening: Evening, lang: str, text: str,
          games: list[str]) -> None:
    rows = [[(presenter(g).name(lang), buttons.encode(0, 0, f"ev.p.{evening.id}.{g}"))]
            for g in games]
    outgoing.say(ctx, chat, text, rows, slot=f"{slot(evening)}m", fresh=True)


def open_table(ctx: Ctx, chat: Chat, evening: Evening, game_id: str,
               people: list[Player]) -> int:
    """The game's lobby in the group with ``people`` seated (as many as it seats), opened
    for the evening: in the planner's name, the evening named as its host, the people who
    said yes may manage it while seated."""
    planner = ctx.session.get(Player, evening.opener_id) if evening.opener_id else None
    options = {"host": Host("ev.host").to_json(), "managers": [p.id for p in people]}
    table = tables.new_table(ctx, chat, planner or people[0], game_id, private=False,
                             options=options)
    for seat_no, person in enumerate(people[:GAMES[game_id].MAX_SEATS]):
        records.add_seat(ctx.session, table, seat_no, person.name, player_id=person.id)
    turn_clock.arm_lobby(ctx, table)
    play.show(ctx, table)
    ctx.touch(table)
    assert table.id is not None
    return table.id


def close(ctx: Ctx, chat: Chat, evening: Evening) -> Evening | None:
    """The evening ends: its summary, the announcement unpinned, the next one planned."""
    evening.state, evening.closed_at = "closed", ctx.now
    evening.due_kind = evening.due_at = None
    if evening.started_at is None:
        evening.started_at = ctx.now
    lang = languages.language(ctx, chat)
    show(ctx, chat, evening)
    outgoing.act(ctx, chat, None, slot(evening), "unpin")
    outgoing.say(ctx, chat, summary(ctx.session, evening, lang))
    start_next = dates.following(evening.starts_at, evening.hhmm, typed_times.zone(evening.zone),
                                evening.repeat)
    if start_next is None:
        return None
    nxt = Evening(chat_id=evening.chat_id, starts_at=start_next, hhmm=evening.hhmm,
                  zone=evening.zone, repeat=evening.repeat, game=evening.game,
                  state="planned", opener_id=evening.opener_id, created_at=ctx.now)
    plan(ctx, nxt)
    ctx.session.add(nxt)
    day, hhmm = day_label(start_next, evening.zone, lang)
    outgoing.say(ctx, chat, tr(lang, "ev.next", day=day, time=hhmm))
    return nxt


def summary(session: Session, evening: Evening, lang: str) -> str:
    """The games played, the evening's table, its longest game (from the move log)."""
    games = scoresheet.games_of(session, evening)
    lines = [tr(lang, "ev.summary")]
    if not games:
        return "\n".join([*lines, tr(lang, "ev.no_games")])
    played = Counter(presenter(r.game).name(lang) for r, _s in games)
    lines.append(tr(lang, "ev.played", games=", ".join(
        f"{n}× {name}" for name, n in played.items())))
    sums, count = scoresheet.evening_sums(session, evening)
    lines += ["", scoresheet.table_text(scoresheet.sheet(session, sums), count, lang)]
    moves = dict(session.exec(select(Move.table_id, func.count()).where(
        col(Move.table_id).in_([r.table_id for r, _s in games]), Move.actor != "system")
        .group_by(col(Move.table_id))).all())
    longest = max(games, key=lambda g: (moves.get(g[0].table_id, 0), -g[0].id))  # type: ignore[operator]
    result, seats = longest
    won = [s.name for s in seats if s.seat_no in (result.winners or [])]
    lines.append("")
    if moves.get(result.table_id):
        lines.append(tr(lang, "ev.longest", game=presenter(result.game).name(lang),
                        moves=moves[result.table_id], names=", ".join(won) or "–"))
    back = scoresheet.comeback(session, games)
    if back is not None:
        lines.append(tr(lang, "ev.comeback", name=back[0], n=back[2],
                        game=presenter(back[1]).name(lang)))
    return "\n".join(lines).rstrip()


def crown(ctx: Ctx, chat: Chat, evening: Evening, lang: str) -> None:
    """On the first evening of a month: last month's winner, posted once."""
    setting = ctx.session.get(GroupSetting, chat.id)
    if setting is None:
        setting = GroupSetting(chat_id=chat.id, zone=evening.zone)  # type: ignore[arg-type]
        ctx.session.add(setting)
    month = dates.month_of(ctx.now, typed_times.zone(evening.zone))
    last = dates.previous_month(month)
    if setting.crowned is not None and setting.crowned >= last:
        return
    setting.crowned = last
    rows = scoresheet.sheet(ctx.session, period_sums(ctx.session, chat, evening.zone, last))
    if not rows:
        return
    best = [r for r in rows if r[2] == rows[0][2]]
    outgoing.say(ctx, chat, tr(lang, "ev.king", month=month_name(last, lang),
                               names=", ".join(r[1] for r in best),
                               points=ranking.shown(rows[0][2], lang)))


def period_sums(session: Session, chat: Chat, zone: str, period: str) -> dict:
    """Evening points per person over a group's evenings that began in a month
    (``2030-01``) or a quarter (``2030-Q1``)."""
    tz = typed_times.zone(zone)
    counted: set[int | None] = set()
    games = []
    for evening in session.exec(select(Evening).where(
            Evening.chat_id == chat.id, col(Evening.started_at).is_not(None))
            .order_by(col(Evening.started_at), col(Evening.id))).all():
        assert evening.started_at is not None
        key = dates.quarter_of(evening.started_at, tz) if "Q" in period else \
            dates.month_of(evening.started_at, tz)
        if key != period:
            continue
        for result, seats in scoresheet.games_of(session, evening):
            if result.id not in counted:  # a game counts once, if evenings overlapped
                counted.add(result.id)
                games.append((list(result.winners or []), list(result.standings or []), seats))
    return scoresheet.totals(games)


def month_name(month: str, lang: str) -> str:
    """``2030-01`` → ``Januar 2030`` / ``January 2030``."""
    year, mon = month.split("-")
    return f"{tr(lang, f'ev.month{int(mon)}')} {year}"


register({f"ev.month{i}": name for i, name in enumerate((
    N_("January"), N_("February"), N_("March"), N_("April"), N_("May"), N_("June"),
    N_("July"), N_("August"), N_("September"), N_("October"), N_("November"),
    N_("December")), 1)})
