"""Planning a Stammtisch evening (issue 40): ``/abend`` (``/evening``) in a group opens a
dialogue by buttons (day, time, repeat, game) or takes it typed (``/abend fr 20:00 weekly
schwimmen``); who comes is answered under the announcement; ``/abend ende`` closes the
running evening, ``/abend absagen`` drops the planned ones, ``/abend zone Europe/Vienna``
sets the group's time zone; ``/deckel`` shows the evening's score, ``/top monat`` and
``/top saison`` the month's and the quarter's. What the group sees is in the group's language
(refusals in the language of who typed). The rules — one evening at a time, how many, who may
plan, call off and close — are ``rules``; the steps themselves ``steps``."""

from __future__ import annotations

from datetime import date, timedelta

from sqlmodel import col, select

from engine import GAMES
from storage.models import Chat, Evening, EveningAnswer, GroupSetting, Player

from ... import buttons
from ...i18n import N_, register, tr
from ...presenters import presenter
from ..core import languages, menus, organisers, outgoing, records, typed_times
from ..core.api import Outcome, Refusal, UserRef
from ..core.transaction import Ctx
from ..core.typed_names import fold, game_of
from . import dates, rules, scoresheet, steps

register({
    "ev.groups_only": N_("Stammtisch evenings are planned in a group: send /abend there."),
    "ev.which_day": N_("🍻 Stammtisch: which day?"),
    "ev.which_time": N_("🍻 Stammtisch on {day}: at what time? (Or type e.g. /abend fr 20:00)"),
    "ev.which_repeat": N_("🍻 Stammtisch on {day} at {time}: how often?"),
    "ev.which_game": N_("🍻 Stammtisch on {day} at {time}: what do you plan to play?"),
    "ev.once": N_("Once"), "ev.every_week": N_("Every week"),
    "ev.every_two": N_("Every two weeks"), "ev.we_will_see": N_("We'll see"),
    "ev.today": N_("Today"), "ev.tomorrow": N_("Tomorrow"),
    "ev.no_such_day": N_("There is no such day: {day}"),
    "ev.begun": N_("The evening has begun – the answers are closed."),
    "ev.drop_denied": N_("Planned evenings are called off by who planned them, or an admin."),
    "ev.dropped_these": N_("🍻 Called off: {evenings}."),
    "ev.bad_typed": N_(
        "I didn't understand that. Examples: /abend fr 20:00 · /evening friday 8pm weekly "
        "schwimmen · /abend ende"),
    "ev.past": N_("That time has passed already. Pick a later one."),
    "ev.planned": N_("🍻 Planned: {day}, {time}."),
    "ev.answered": N_("Noted: {answer}"),
    "ev.gone": N_("That evening is over."),
    "ev.none_running": N_("No Stammtisch evening is running here."),
    "ev.closed_by": N_("🍻 {name} closed the evening."),
    "ev.end_denied": N_("The evening is closed by who planned it, an admin, or who came."),
    "ev.dropped": N_("🍻 The planned evenings are called off."),
    "ev.none_planned": N_("No evening is planned here."),
    "ev.zone_set": N_("🕗 This group's time zone: {zone}"),
    "ev.zone_bad": N_("Unknown time zone. Examples: Europe/Berlin, Europe/Vienna, America/New_York"),
    "ev.admins_only": N_("Only the group's admins may do that."),
    "ev.top_title": N_("🍻 Stammtisch table of {period}"),
    "ev.top_none": N_("No Stammtisch evening in {period}."),
})
END_WORDS = ("ende", "end", "schluss", "close", "aus")
DROP_WORDS = ("absagen", "absage", "cancel", "drop")
ZONE_WORDS = ("zone", "zeitzone", "timezone", "tz")
MONTH_WORDS = ("monat", "month")
SEASON_WORDS = ("saison", "season", "quartal", "quarter")
_REPEATS = {"o": dates.ONCE, "w": dates.WEEKLY, "b": dates.BIWEEKLY}


def _zone(ctx: Ctx, chat: Chat) -> str:
    return organisers.group_zone(ctx.session, chat, languages.language(ctx, chat))


def _today(ctx: Ctx, chat: Chat) -> date:
    return typed_times.local_day(ctx.now, typed_times.zone(_zone(ctx, chat)))


def abend(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/abend``: the dialogue, a typed evening, ``ende``, ``absagen`` or ``zone``."""
    words = fold(args).split()
    if not words:
        return _days(ctx, chat, player, user)
    if words[0] in END_WORDS:
        return end(ctx, chat, player, user)
    if words[0] in DROP_WORDS:
        return drop(ctx, chat, player, user)
    if words[0] in ZONE_WORDS:
        return set_zone(ctx, chat, user, args.split()[1] if len(args.split()) > 1 else "")
    rules.organising(ctx, chat, user)
    typed = dates.parse(args, _today(ctx, chat))
    if typed is None:
        missing = dates.no_such_day(args, _today(ctx, chat))
        raise Refusal(tr(ctx.lang, "ev.no_such_day", day=missing) if missing
                      else tr(ctx.lang, "ev.bad_typed"), alert=False)
    day, minutes, repeat, rest = typed
    game = None
    if rest:
        found = game_of(rest)
        if found is None or found[1]:
            raise Refusal(tr(ctx.lang, "ev.bad_typed"), alert=False)
        game = found[0]
    return create(ctx, chat, player, user, day, minutes, repeat, game)


def create(ctx: Ctx, chat: Chat, player: Player, user: UserRef, day: date, minutes: int,
           repeat: str, game: str | None, alert: bool = False) -> Outcome:
    """A new evening (or series): planned, announced when its time comes — if the person
    may organise, the group and they have room for one more, and it overlaps none."""
    rules.organising(ctx, chat, user, alert)
    zone = _zone(ctx, chat)
    starts = typed_times.starts(day, minutes, typed_times.zone(zone))
    if starts <= typed_times.aware(ctx.now):
        raise Refusal(tr(ctx.lang, "ev.past"), alert=alert)
    rules.room_for(ctx, chat, player, alert)
    rules.refuse_overlap(ctx, chat, starts, minutes, zone, repeat, alert)
    evening = Evening(chat_id=chat.id, starts_at=starts, hhmm=minutes, zone=zone,  # type: ignore[arg-type]
                      repeat=repeat, game=game, state="planned", opener_id=player.id,
                      created_at=ctx.now)
    steps.plan(ctx, evening)
    ctx.session.add(evening)
    ctx.session.flush()
    lang = languages.language(ctx, chat)
    shown_day, shown_time = steps.day_label(starts, zone, lang)
    outgoing.say(ctx, chat, tr(lang, "ev.planned", day=shown_day, time=shown_time),
                 slot="evmenu")
    if evening.due_at is not None and evening.due_at <= typed_times.aware(ctx.now):
        steps.fire(ctx, evening)  # (announced at once)
    return Outcome(None)


def _days(ctx: Ctx, chat: Chat, player: Player, user: UserRef) -> Outcome:
    """The dialogue's first question (if the person may plan one more evening)."""
    rules.organising(ctx, chat, user)
    rules.room_for(ctx, chat, player)
    lang = languages.language(ctx, chat)
    today = _today(ctx, chat)
    names = [tr(lang, "ev.today"), tr(lang, "ev.tomorrow")]
    row = []
    for i in range(7):
        day = today + timedelta(days=i)
        label = names[i] if i < 2 else tr(lang, f"ev.day{day.weekday()}")
        row.append((label, buttons.encode(0, 0, f"ev.d.{day:%Y%m%d}")))
    outgoing.say(ctx, chat, tr(lang, "ev.which_day"), [row[:4], row[4:]], slot="evmenu",
                 fresh=True)
    return Outcome(None)


def press(ctx: Ctx, chat: Chat, player: Player, user: UserRef, code: str) -> Outcome:
    """A button of the dialogue (``ev.d|t|r|g``), an answer (``ev.a``) or a game for the
    evening (``ev.p``)."""
    parts = code.split(".")
    if len(parts) >= 4 and parts[1] == "a" and _number(parts[2]):
        return answer(ctx, chat, player, int(parts[2]), parts[3])
    if len(parts) == 4 and parts[1] == "p" and _number(parts[2]):
        return pick_game(ctx, chat, int(parts[2]), parts[3])
    if chat.kind != "group" or len(parts) < 3 or parts[1] not in "dtrg":
        raise Refusal(tr(ctx.lang, "unknown_button"))
    rules.organising(ctx, chat, user, alert=True)
    day = _date(ctx, chat, parts[2])
    lang = languages.language(ctx, chat)  # (the menus are the group's)
    label = steps.day_label(typed_times.starts(day, 12 * 60, typed_times.zone("UTC")), "UTC", lang)[0]
    if parts[1] == "d" and len(parts) == 3:
        rows = [[(f"{m // 60:02d}:{m % 60:02d}", buttons.encode(0, 0, f"ev.t.{parts[2]}.{m}"))
                 for m in dates.TIMES[i:i + 3]] for i in range(0, len(dates.TIMES), 3)]
        outgoing.say(ctx, chat, tr(lang, "ev.which_time", day=label), rows, slot="evmenu")
        return Outcome(None)
    if len(parts) < 4 or not _number(parts[3]) or int(parts[3]) >= 24 * 60:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    minutes, hhmm = int(parts[3]), f"{int(parts[3]) // 60:02d}:{int(parts[3]) % 60:02d}"
    base = f"ev.r.{parts[2]}.{minutes}"
    if parts[1] == "t" and len(parts) == 4:
        rows = [[(tr(lang, k), buttons.encode(0, 0, f"{base}.{r}")) for k, r in
                 (("ev.once", "o"), ("ev.every_week", "w"), ("ev.every_two", "b"))]]
        outgoing.say(ctx, chat, tr(lang, "ev.which_repeat", day=label, time=hhmm), rows,
                     slot="evmenu")
        return Outcome(None)
    if len(parts) < 5 or parts[4] not in _REPEATS:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    if parts[1] == "r" and len(parts) == 5:
        base = f"ev.g.{parts[2]}.{minutes}.{parts[4]}"
        rows = [[(presenter(g).name(lang), buttons.encode(0, 0, f"{base}.{g}"))]
                for g in GAMES] + [[(tr(lang, "ev.we_will_see"),
                                     buttons.encode(0, 0, f"{base}.x"))]]
        outgoing.say(ctx, chat, tr(lang, "ev.which_game", day=label, time=hhmm), rows,
                     slot="evmenu")
        return Outcome(None)
    if parts[1] != "g" or len(parts) != 6 or (parts[5] not in GAMES and parts[5] != "x"):
        raise Refusal(tr(ctx.lang, "unknown_button"))
    return create(ctx, chat, player, user, day, minutes, _REPEATS[parts[4]],
                  None if parts[5] == "x" else parts[5], alert=True)


def _number(text: str) -> bool:
    """Digits 0-9 only (``"²".isdigit()`` is true, but ``int`` refuses it)."""
    return text.isascii() and text.isdigit()


def _date(ctx: Ctx, chat: Chat, text: str) -> date:
    """A day of the dialogue's buttons (today to a week ahead), else refused."""
    try:
        if not _number(text):
            raise ValueError(text)
        day = date(int(text[:4]), int(text[4:6]), int(text[6:8]))
    except ValueError:
        raise Refusal(tr(ctx.lang, "unknown_button")) from None
    if len(text) != 8 or not 0 <= (day - _today(ctx, chat)).days <= 7:
        raise Refusal(tr(ctx.lang, "stale_button"))
    return day


def _evening(ctx: Ctx, chat: Chat, evening_id: int) -> Evening:
    evening = ctx.session.exec(select(Evening).where(Evening.id == evening_id)
                               .with_for_update()).first()
    if evening is None or evening.chat_id != chat.id:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    if evening.state in ("closed", "dropped"):
        raise Refusal(tr(ctx.lang, "ev.gone"))
    return evening


def answer(ctx: Ctx, chat: Chat, player: Player, evening_id: int, letter: str) -> Outcome:
    """Yes, maybe or no under the announcement: kept (the last answer counts), the
    announcement edited to show who comes."""
    said = {a[0]: a for a in steps.ANSWERS}.get(letter)
    if said is None:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    evening = _evening(ctx, chat, evening_id)
    if evening.state != "planned":  # who came is who had said yes when it began
        raise Refusal(tr(ctx.lang, "ev.begun"))
    row = ctx.session.get(EveningAnswer, (evening.id, player.id))
    if row is None:
        ctx.session.add(EveningAnswer(evening_id=evening.id, player_id=player.id,  # type: ignore[arg-type]
                                      answer=said, at=ctx.now))
    elif row.answer != said:
        row.answer, row.at = said, ctx.now
    ctx.session.flush()
    steps.show(ctx, chat, evening)
    return Outcome(tr(ctx.lang, "ev.answered", answer=tr(ctx.lang, f"ev.{said}")))


def pick_game(ctx: Ctx, chat: Chat, evening_id: int, game: str) -> Outcome:
    """A game chosen when the evening began: its lobby with the yes people seated (where the
    press came from: a topic's table opens in that topic, unless one is open there)."""
    evening = _evening(ctx, chat, evening_id)
    if game not in GAMES or evening.state != "running":
        raise Refusal(tr(ctx.lang, "unknown_button"))
    if records.open_table(ctx.session, chat, ctx.thread) is not None:
        raise menus.busy(ctx)
    people = steps.answers(ctx.session, evening)["yes"]
    if not people:
        return Outcome(None)
    table_id = steps.open_table(ctx, chat, evening, game, people)
    return Outcome(None, table_id=table_id, changed=True)


def end(ctx: Ctx, chat: Chat, player: Player, user: UserRef) -> Outcome:
    """``/abend ende``: the running evening closes (who planned it, an admin, or who came:
    ``rules.came``)."""
    evening = scoresheet.running(ctx.session, chat.id)
    if evening is None:
        raise Refusal(tr(ctx.lang, "ev.none_running"), alert=False)
    if not (user.is_admin or player.id == evening.opener_id
            or player.id in rules.came(ctx.session, evening)):
        raise Refusal(tr(ctx.lang, "ev.end_denied"), alert=False)
    evening.version += 1
    steps.close(ctx, chat, evening)
    return Outcome(None)


def drop(ctx: Ctx, chat: Chat, player: Player, user: UserRef) -> Outcome:
    """``/abend absagen``: planned evenings (a series: its next one, and so the series) are
    called off — by an admin all of them, by anyone else those they planned (where the
    group lets them organise)."""
    rules.organising(ctx, chat, user)
    planned = ctx.session.exec(select(Evening).where(
        Evening.chat_id == chat.id, Evening.state == "planned")
        .order_by(col(Evening.starts_at), col(Evening.id)).with_for_update()).all()
    if not planned:
        raise Refusal(tr(ctx.lang, "ev.none_planned"), alert=False)
    mine = planned if user.is_admin else [e for e in planned if e.opener_id == player.id]
    if not mine:
        raise Refusal(tr(ctx.lang, "ev.drop_denied"), alert=False)
    lang = languages.language(ctx, chat)
    for evening in mine:
        evening.state, evening.due_kind, evening.due_at = "dropped", None, None
        evening.version += 1
        steps.show(ctx, chat, evening)
        outgoing.act(ctx, chat, None, steps.slot(evening), "unpin")
    if len(mine) == len(planned):
        outgoing.say(ctx, chat, tr(lang, "ev.dropped"))
    else:
        outgoing.say(ctx, chat, tr(lang, "ev.dropped_these", evenings=" · ".join(
            "{}, {}".format(*steps.day_label(e.starts_at, e.zone, lang)) for e in mine)))
    return Outcome(None)


def set_zone(ctx: Ctx, chat: Chat, user: UserRef, name: str) -> Outcome:
    """``/abend zone Europe/Vienna``: the group's time zone (its admins)."""
    if not user.is_admin:
        raise Refusal(tr(ctx.lang, "ev.admins_only"), alert=False)
    if not typed_times.is_zone(name):
        raise Refusal(tr(ctx.lang, "ev.zone_bad"), alert=False)
    setting = ctx.session.get(GroupSetting, chat.id)
    if setting is None:
        ctx.session.add(GroupSetting(chat_id=chat.id, zone=name))  # type: ignore[arg-type]
    else:
        setting.zone = name
    outgoing.say(ctx, chat, tr(languages.language(ctx, chat), "ev.zone_set", zone=name))
    return Outcome(None)


def deckel_command(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/deckel``: the running evening's whole sheet."""
    evening = scoresheet.running(ctx.session, chat.id)
    if evening is None:
        raise Refusal(tr(ctx.lang, "deckel.none"), alert=False)
    sums, games = scoresheet.evening_sums(ctx.session, evening, ctx.now)
    outgoing.say(ctx, chat, scoresheet.table_text(scoresheet.sheet(ctx.session, sums), games,
                                                  languages.language(ctx, chat)), fresh=True)
    return Outcome(None)


def top(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/top monat`` / ``/top saison`` in a group: the evening points of this month or
    quarter (a subcommand of the stats room's ``/top``)."""
    word = fold(args).split()[0] if args.strip() else ""
    lang = languages.language(ctx, chat)
    zone = _zone(ctx, chat)
    tz = typed_times.zone(zone)
    if word in MONTH_WORDS:
        period = dates.month_of(ctx.now, tz)
        label = steps.month_name(period, lang)
    else:
        period = dates.quarter_of(ctx.now, tz)
        year, quarter = period.split("-Q")
        label = f"Q{quarter} {year}"
    rows = scoresheet.sheet(ctx.session, steps.period_sums(ctx.session, chat, zone, period))
    if not rows:
        outgoing.say(ctx, chat, tr(lang, "ev.top_none", period=label))
        return Outcome(None)
    lines = [tr(lang, "ev.top_title", period=label), *scoresheet.rows_text(rows, lang)]
    outgoing.say(ctx, chat, "\n".join(lines), fresh=True)
    return Outcome(None)

