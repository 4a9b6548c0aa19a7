"""Opening a tournament and running its start and end: ``/turnier`` (``/tournament``) in a
group — by buttons (game, rounds, turn clock) or typed (``typed``) — by whoever may organise
for the group (``core.organisers``); its announcement with ✅ Join / ❌ Leave / ▶ Start, pinned
where the bot may pin; starting it (its opener or an administrator, or at its time, or with
the group's planned evening); ending it early (its opener or an administrator).
"""

from __future__ import annotations

from zoneinfo import ZoneInfo

from engine import GAMES
from storage.models import Chat, Evening, Player, Tournament

from ... import buttons
from ...durations import clock_label
from ...i18n import N_, register, tr
from ...presenters import presenter
from ..core import languages, mini_app, organisers, outgoing, records, typed_times
from ..core.api import Outcome, Refusal, UserRef
from ..core.transaction import Ctx
from . import entries, rounds, texts
from .typed import Typed, next_evening, typed

register({
    "tn.groups_only": N_("Tournaments are played in a group: send /tournament there."),
    "tn.not_yours": N_("In this group only its admins open tournaments."),
    "tn.busy": N_("A tournament is open here already. /tournament shows it."),
    "tn.which_game": N_("🏆 A tournament: which game?"),
    "tn.which_rounds": N_("🏆 {game}: how many rounds?"),
    "tn.which_clock": N_("🏆 {game}, {rounds}: how long per turn?"),
    "tn.bad_typed": N_("I didn't understand that. Examples: /tournament schwimmen 3 · "
                       "/tournament runfast 2 clock=12h start=fri 20:00 · /tournament list"),
    "tn.past": N_("That time has passed already."),
    "tn.no_evening": N_("No evening is planned here: /abend plans one."),
    "tn.start_denied": N_("The tournament is started by whoever opened it, or an admin."),
    "tn.too_few": N_("A tournament needs at least two people."),
    "tn.gone": N_("That tournament is over."),
    "tn.none": N_("No tournament is open here. /tournament opens one."),
    "tn.end_denied": N_("A tournament is ended by whoever opened it, or an admin."),
    "tn.ended": N_("🏆 The tournament was ended early."),
    "tn.called_off": N_("🏆 The tournament was called off."),
    "tn.cancelled_few": N_("🏆 The tournament was called off: fewer than two people entered."),
    "tn.cancelled_evening": N_("🏆 The tournament was called off with the evening."),
})
ROUND_CHOICES = (1, 2, 3, 4, 5)
CLOCK_CHOICES = (60, 600, 12 * 3600, 24 * 3600)
MIN_PEOPLE = 2
MENU = "tnmenu"


def may_organise(ctx: Ctx, chat: Chat, user: UserRef) -> None:
    """Refused unless the person may organise for the group."""
    if not organisers.may_organise(ctx.session, chat, user):
        raise Refusal(tr(ctx.lang, "tn.not_yours"), alert=False)


def ask_game(ctx: Ctx, chat: Chat) -> Outcome:
    """The dialogue's first question: which game (a button each)."""
    rows = [[(presenter(g).name(ctx.lang), buttons.encode(0, 0, f"tn.g.{g}"))] for g in GAMES]
    outgoing.say(ctx, chat, tr(ctx.lang, "tn.which_game"), rows, slot=MENU, fresh=True)
    return Outcome(None)


def close_menu(ctx: Ctx, chat: Chat) -> None:
    """The dialogue's or the remove menu's message goes (where it was asked)."""
    outgoing.act(ctx, chat, None, rounds.placed(MENU, ctx.thread), "delete", ctx.thread)


def create_typed(ctx: Ctx, chat: Chat, player: Player, args: str) -> Outcome:
    """A tournament typed in full (``typed``)."""
    return create(ctx, chat, player, typed(ctx, chat, args, zone(ctx, chat)))


def zone(ctx: Ctx, chat: Chat) -> ZoneInfo:
    """The group's time zone (typed times are read and shown in it)."""
    return typed_times.zone(organisers.group_zone(ctx.session, chat,
                                                  languages.language(ctx, chat)))


def create(ctx: Ctx, chat: Chat, player: Player, want: Typed) -> Outcome:
    """A new tournament, open for entry: announced (and pinned) in the group."""
    if entries.live(ctx.session, chat) is not None:
        raise Refusal(tr(ctx.lang, "tn.busy"), alert=False)
    tournament = Tournament(
        chat_id=chat.id, thread_id=ctx.thread, game=want.game, rounds=want.rounds,  # type: ignore[arg-type]
        games_per_round=want.games_per_round, round_seconds=want.round_seconds,
        turn_timeout=want.turn_timeout or ctx.settings.group_timeout,
        late_entry=want.late_entry, opener_id=player.id, starts_at=want.starts_at,
        created_at=ctx.now, due_kind="start" if want.starts_at else None,
        due_at=want.starts_at,
        options={"evening": want.evening_id} if want.evening_id else None)
    ctx.session.add(tournament)
    ctx.session.flush()
    show(ctx, chat, tournament, fresh=True)
    outgoing.act(ctx, chat, None, rounds.placed(rounds_slot(tournament), tournament.thread_id),
                 "pin", tournament.thread_id)
    return Outcome(None)


def rounds_slot(tournament: Tournament) -> str:
    return rounds.slot(tournament)


def show(ctx: Ctx, chat: Chat, tournament: Tournament, fresh: bool = False) -> None:
    """The announcement as it stands (edited in place; ``fresh``: posted anew)."""
    lang = languages.language(ctx, chat)
    people = [p.name or "?" for _e, p in entries.entrants(ctx.session, tournament)]
    opener = records.get_player(ctx.session, tournament.opener_id)
    starts = None
    if tournament.starts_at is not None:
        local = typed_times.aware(tournament.starts_at).astimezone(zone(ctx, chat))
        starts = (local.strftime("%d.%m."), local.strftime("%H:%M"))
    text = texts.announcement(tournament, people, opener.name if opener else "?", lang, starts)
    key = f"tn.%s.{tournament.id}"
    rows: list[list[tuple[str, str]]] = []
    open_ = tournament.state == "open" or (tournament.state == "running" and
                                           tournament.late_entry and tournament.round_no <= 1)
    if open_:
        rows.append([(tr(lang, "tn.join"), buttons.encode(0, 0, key % "j")),
                     (tr(lang, "tn.leave"), buttons.encode(0, 0, key % "l"))])
    if tournament.state == "open":
        rows.append([(tr(lang, "tn.start"), buttons.encode(0, 0, key % "s"))])
    elif tournament.state == "running":
        rows.append([(tr(lang, "tn.leave"), buttons.encode(0, 0, key % "l"))] if not open_
                    else [])
    rows = [r for r in rows if r] + mini_app.app_page(ctx, chat, f"tn{tournament.id}", lang)
    outgoing.say(ctx, chat, text, rows, slot=rounds_slot(tournament), fresh=fresh,
                 thread=tournament.thread_id)



def dialogue(ctx: Ctx, chat: Chat, player: Player, user: UserRef, parts: list[str]) -> Outcome:
    """The opening dialogue's buttons: ``tn.g.<game>`` → rounds, ``tn.r.<game>.<rounds>`` →
    clock, ``tn.c.<game>.<rounds>.<seconds>`` → the tournament (a second one is refused)."""
    may_organise(ctx, chat, user)
    if entries.live(ctx.session, chat) is not None:
        raise Refusal(tr(ctx.lang, "tn.busy"))
    game = parts[2]
    if game not in GAMES:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    name = presenter(game).name(ctx.lang)
    if parts[1] == "g" and len(parts) == 3:
        rows = [[(str(n), buttons.encode(0, 0, f"tn.r.{game}.{n}")) for n in ROUND_CHOICES]]
        outgoing.say(ctx, chat, tr(ctx.lang, "tn.which_rounds", game=name), rows, slot=MENU)
        return Outcome(None)
    if len(parts) < 4 or not parts[3].isascii() or not parts[3].isdigit() \
            or int(parts[3]) not in ROUND_CHOICES:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    count = int(parts[3])
    if parts[1] == "r" and len(parts) == 4:
        rows = [[(clock_label(c, ctx.lang), buttons.encode(0, 0, f"tn.c.{game}.{count}.{c}"))
                 for c in CLOCK_CHOICES]]
        outgoing.say(ctx, chat, tr(ctx.lang, "tn.which_clock", game=name,
                                   rounds=texts.rounds_text(count, ctx.lang)), rows, slot=MENU)
        return Outcome(None)
    if parts[1] == "c" and len(parts) == 5 and parts[4].isascii() and parts[4].isdigit() \
            and int(parts[4]) in CLOCK_CHOICES:
        out = create(ctx, chat, player, Typed(game, count, int(parts[4])))
        close_menu(ctx, chat)
        return out
    raise Refusal(tr(ctx.lang, "unknown_button"))


def start(ctx: Ctx, chat: Chat, player: Player, user: UserRef,
          tournament: Tournament) -> Outcome:
    """▶ Start: entry closes (but for late entry) and round 1 is drawn."""
    if tournament.state != "open":
        raise Refusal(tr(ctx.lang, "already_handled"))
    if not (user.is_admin or player.id == tournament.opener_id):
        raise Refusal(tr(ctx.lang, "tn.start_denied"))
    if len(entries.entrants(ctx.session, tournament)) < MIN_PEOPLE:
        raise Refusal(tr(ctx.lang, "tn.too_few"))
    begin(ctx, chat, tournament)
    return Outcome(None, changed=True)


def begin(ctx: Ctx, chat: Chat, tournament: Tournament) -> None:
    """The tournament begins: running, round 1 drawn; the announcement says so."""
    tournament.state = "running"
    tournament.due_kind = tournament.due_at = None
    rounds.begin_round(ctx, chat, tournament)
    show(ctx, chat, tournament)


def start_due(ctx: Ctx, chat: Chat, tournament: Tournament) -> None:
    """Its time has come (the step ``start``): it begins, or is called off with fewer than
    two people. Tied to an evening: a later time of the evening is waited for; an evening
    called off ties it to the group's next planned one, or calls it off too."""
    evening_id = (tournament.options or {}).get("evening")
    if evening_id:
        evening = ctx.session.get(Evening, evening_id)
        if evening is None or evening.state == "dropped":
            evening = next_evening(ctx, chat)
            if evening is None:
                call_off(ctx, chat, tournament, "tn.cancelled_evening")
                return
            tournament.options = {**(tournament.options or {}), "evening": evening.id}
        when = typed_times.aware(evening.starts_at)
        if evening.state == "planned" and when > typed_times.aware(ctx.now):
            tournament.starts_at, tournament.due_kind, tournament.due_at = when, "start", when
            show(ctx, chat, tournament)
            return
    if len(entries.entrants(ctx.session, tournament)) < MIN_PEOPLE:
        call_off(ctx, chat, tournament, "tn.cancelled_few")
        return
    begin(ctx, chat, tournament)


def call_off(ctx: Ctx, chat: Chat, tournament: Tournament, key: str) -> None:
    """A tournament that never began ends (``cancelled``), its announcement unpinned."""
    tournament.state, tournament.finished_at = "cancelled", ctx.now
    tournament.due_kind = tournament.due_at = None
    show(ctx, chat, tournament)
    outgoing.act(ctx, chat, None, rounds.placed(rounds_slot(tournament), tournament.thread_id),
                 "unpin", tournament.thread_id)
    outgoing.say(ctx, chat, tr(languages.language(ctx, chat), key), thread=tournament.thread_id)


def end(ctx: Ctx, chat: Chat, player: Player, user: UserRef,
        tournament: Tournament | None) -> Outcome:
    """``/turnier ende``: ends it now — an open one is called off, a running one ends with
    this round: its unfinished tables scored as they stand, the final standings."""
    if tournament is None:
        raise Refusal(tr(ctx.lang, "tn.none"), alert=False)
    if tournament.state not in entries.LIVE:
        raise Refusal(tr(ctx.lang, "tn.gone"), alert=False)
    if not (user.is_admin or player.id == tournament.opener_id):
        raise Refusal(tr(ctx.lang, "tn.end_denied"), alert=False)
    if tournament.state == "open":
        call_off(ctx, chat, tournament, "tn.called_off")
        return Outcome(None)
    outgoing.say(ctx, chat, tr(languages.language(ctx, chat), "tn.ended"),
                 thread=tournament.thread_id)
    tournament.options = {**(tournament.options or {}), "planned_rounds": tournament.rounds}
    tournament.rounds = tournament.round_no  # (this round is the last)
    rounds.end_round(ctx, chat, tournament, why="ended")
    show(ctx, chat, tournament)
    return Outcome(None)
