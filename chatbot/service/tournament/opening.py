"""Opening a tournament and taking part: ``/turnier`` (``/tournament``) in a group — by buttons
(game, rounds, turn clock) or typed (``/turnier schwimmen 3 uhr=12h spiele=2 zeit=2d start=fr
20:00 nachmeldung``) — by whoever may organise for the group (``core.organisers``); its
announcement with ✅ Join / ❌ Leave / ▶ Start, pinned; starting it (its opener or an
administrator, or at its time); leaving it; an administrator removing a person or ending it.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from sqlmodel import col, select

from engine import GAMES
from storage.models import Chat, Evening, Player, Tournament, TournamentEntrant

from ... import buttons
from ...durations import clock_label, typed_clock
from ...i18n import N_, register, tr
from ...presenters import presenter
from ..core import languages, organisers, outgoing, records, seating, typed_times
from ..core.api import Outcome, Refusal, UserRef
from ..core.transaction import Ctx
from ..core.typed_names import fold, game_of
from . import entries, past, rounds, texts

register({
    "tn.groups_only": N_("Tournaments are played in a group: send /turnier there."),
    "tn.not_yours": N_("In this group only its admins open tournaments."),
    "tn.busy": N_("A tournament is open here already. /turnier shows it."),
    "tn.which_game": N_("🏆 A tournament: which game?"),
    "tn.which_rounds": N_("🏆 {game}: how many rounds?"),
    "tn.which_clock": N_("🏆 {game}, {rounds}: how long per turn?"),
    "tn.bad_typed": N_("I didn't understand that. Examples: /turnier schwimmen 3 · /turnier "
                       "runfast 2 uhr=12h start=fr 20:00 · /turnier liste"),
    "tn.past": N_("That time has passed already."),
    "tn.joined": N_("✅ You're in."),
    "tn.left": N_("You left the tournament."),
    "tn.not_in": N_("You're not in this tournament."),
    "tn.already_in": N_("You're in already."),
    "tn.closed": N_("Entry is closed."),
    "tn.start_me": N_("Write me privately first (/start in our chat): your cards come there."),
    "tn.start_denied": N_("The tournament is started by whoever opened it, or an admin."),
    "tn.too_few": N_("A tournament needs at least two people."),
    "tn.gone": N_("That tournament is over."),
    "tn.end_denied": N_("A tournament is ended by whoever opened it, or an admin."),
    "tn.ended": N_("🏆 The tournament was ended early."),
    "tn.removed": N_("{name} was taken out of the tournament."),
    "tn.remove_which": N_("Take whom out of the tournament?"),
    "tn.cancelled_few": N_("🏆 The tournament was called off: fewer than two people entered."),
})
ROUND_CHOICES = (1, 2, 3, 4, 5)
CLOCK_CHOICES = (60, 600, 12 * 3600, 24 * 3600)
MIN_PEOPLE = 2
_LIST = ("liste", "list", "history", "verlauf")
_END = ("ende", "end", "beenden", "abbrechen")
_REMOVE = ("entfernen", "remove", "raus", "kick")
_LATE = ("nachmeldung", "late")


def command(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/turnier``: the group's tournament, or a new one (dialogue or typed), ``liste``,
    ``ende``, ``entfernen``."""
    words = fold(args).split()
    live = entries.live(ctx.session, chat, lock=True)
    if words and words[0] in _LIST:
        return past.history(ctx, chat)
    if words and words[0] in _END:
        return end(ctx, chat, player, user, live)
    if words and words[0] in _REMOVE:
        return remove_menu(ctx, chat, player, user, live)
    if live is not None:
        if words:
            raise Refusal(tr(ctx.lang, "tn.busy"), alert=False)
        show(ctx, chat, live, fresh=True)
        return Outcome(None)
    _may_organise(ctx, chat, user)
    if not words:
        rows = [[(presenter(g).name(ctx.lang), buttons.encode(0, 0, f"tn.g.{g}"))]
                for g in GAMES]
        outgoing.say(ctx, chat, tr(ctx.lang, "tn.which_game"), rows, slot="tnmenu",
                     fresh=True)
        return Outcome(None)
    return create(ctx, chat, player, **_typed(ctx, chat, args))


def _may_organise(ctx: Ctx, chat: Chat, user: UserRef) -> None:
    if not organisers.may_organise(ctx.session, chat, user):
        raise Refusal(tr(ctx.lang, "tn.not_yours"), alert=False)


def _typed(ctx: Ctx, chat: Chat, args: str) -> dict[str, object]:
    """A tournament typed in full: the game first, then rounds and ``key=value`` settings."""
    found = game_of(args.split("=")[0].rsplit(" ", 1)[0] if "=" in args else args)
    words = fold(args).split()
    game = found[0] if found else None
    if game is None:
        game = next((g for w in words if (g := (game_of(w) or (None, ""))[0])), None)
    if game is None:
        raise Refusal(tr(ctx.lang, "tn.bad_typed"), alert=False)
    out: dict[str, object] = {"game": game}
    rest = [w for w in words if (game_of(w) or (None,))[0] != game]
    text = " ".join(rest)
    if "start=" in text:
        text, _, when = text.partition("start=")
        out["starts_at"] = _start(ctx, chat, when.strip())
    for word in text.split():
        key, eq, value = word.partition("=")
        if not eq and key.isascii() and key.isdigit() and int(key) in ROUND_CHOICES:
            out["rounds"] = int(key)
        elif not eq and key in ("runden", "rounds", "runde", "round"):
            continue
        elif not eq and key in _LATE:
            out["late_entry"] = True
        elif key in ("uhr", "clock", "zeit_pro_zug") and typed_clock(value):
            out["turn_timeout"] = typed_clock(value)
        elif key in ("spiele", "games") and value.isdigit() and 1 <= int(value) <= 3:
            out["games_per_round"] = int(value)
        elif key in ("zeit", "time", "runde") and typed_clock(value):
            out["round_seconds"] = typed_clock(value)
        else:
            raise Refusal(tr(ctx.lang, "tn.bad_typed"), alert=False)
    return out


def _start(ctx: Ctx, chat: Chat, when: str) -> datetime:
    """A typed start: ``fr 20:00``, ``20:00`` (today), ``abend`` (the next planned evening)."""
    if fold(when) in ("abend", "evening", "stammtisch"):
        evening = ctx.session.exec(select(Evening).where(
            Evening.chat_id == chat.id, Evening.state == "planned")
            .order_by(col(Evening.starts_at))).first()
        if evening is None:
            raise Refusal(tr(ctx.lang, "tn.bad_typed"), alert=False)
        return typed_times.aware(evening.starts_at)
    tz = _zone(ctx, chat)
    today = typed_times.local_day(ctx.now, tz)
    words = when.split()
    day = typed_times.day_of(words[0], today) if len(words) > 1 else today
    minutes = typed_times.clock_of(words[-1]) if words else None
    if day is None or minutes is None:
        raise Refusal(tr(ctx.lang, "tn.bad_typed"), alert=False)
    starts = typed_times.starts(day, minutes, tz)
    if starts <= typed_times.aware(ctx.now):
        raise Refusal(tr(ctx.lang, "tn.past"), alert=False)
    return starts


def _zone(ctx: Ctx, chat: Chat) -> ZoneInfo:
    return typed_times.zone(organisers.group_zone(ctx.session, chat,
                                                  languages.language(ctx, chat)))


def create(ctx: Ctx, chat: Chat, player: Player, game: str, rounds: int = 3,
           turn_timeout: int | None = None, games_per_round: int = 1,
           round_seconds: int | None = None, starts_at: datetime | None = None,
           late_entry: bool = False) -> Outcome:
    """A new tournament, open for entry: announced (and pinned) in the group."""
    if entries.live(ctx.session, chat) is not None:
        raise Refusal(tr(ctx.lang, "tn.busy"), alert=False)
    tournament = Tournament(
        chat_id=chat.id, thread_id=ctx.thread, game=game, rounds=rounds,  # type: ignore[arg-type]
        games_per_round=games_per_round, round_seconds=round_seconds,
        turn_timeout=turn_timeout or ctx.settings.group_timeout, late_entry=late_entry,
        opener_id=player.id, starts_at=starts_at, created_at=ctx.now,
        due_kind="start" if starts_at else None, due_at=starts_at)
    ctx.session.add(tournament)
    ctx.session.flush()
    show(ctx, chat, tournament, fresh=True)
    outgoing.act(ctx, chat, None, rounds_slot(tournament), "pin", tournament.thread_id)
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
        tz = _zone(ctx, chat)
        local = typed_times.aware(tournament.starts_at).astimezone(tz)
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
    rows = [r for r in rows if r] + outgoing.app_page(ctx, chat, f"tn{tournament.id}", lang)
    outgoing.say(ctx, chat, text, rows, slot=rounds_slot(tournament), fresh=fresh,
                 thread=tournament.thread_id)


def press(ctx: Ctx, chat: Chat, player: Player, user: UserRef, code: str) -> Outcome:
    """A tournament's button: the dialogue (``tn.g|r|c``), join, leave, start (``tn.j|l|s``),
    take out (``tn.k``)."""
    parts = code.split(".")
    if len(parts) < 3 or chat.kind != "group":
        raise Refusal(tr(ctx.lang, "unknown_button"))
    kind = parts[1]
    if kind in ("g", "r", "c"):
        return _dialogue(ctx, chat, player, user, parts)
    if not (parts[2].isascii() and parts[2].isdigit() and len(parts[2]) <= 10):
        raise Refusal(tr(ctx.lang, "unknown_button"))
    tournament = entries.get(ctx.session, int(parts[2]), lock=True)
    if tournament is None or tournament.chat_id != chat.id:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    if tournament.state not in entries.LIVE:
        raise Refusal(tr(ctx.lang, "tn.gone"))
    if kind == "j" and len(parts) == 3:
        return join(ctx, chat, player, tournament)
    if kind == "l" and len(parts) == 3:
        return leave(ctx, chat, player, tournament, "left")
    if kind == "s" and len(parts) == 3:
        return start(ctx, chat, player, user, tournament)
    if kind == "k" and len(parts) == 4 and parts[3].isascii() and parts[3].isdigit():
        return remove(ctx, chat, player, user, tournament, int(parts[3]))
    raise Refusal(tr(ctx.lang, "unknown_button"))


def _dialogue(ctx: Ctx, chat: Chat, player: Player, user: UserRef,
              parts: list[str]) -> Outcome:
    _may_organise(ctx, chat, user)
    game = parts[2]
    if game not in GAMES:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    name = presenter(game).name(ctx.lang)
    if parts[1] == "g" and len(parts) == 3:
        rows = [[(str(n), buttons.encode(0, 0, f"tn.r.{game}.{n}")) for n in ROUND_CHOICES]]
        outgoing.say(ctx, chat, tr(ctx.lang, "tn.which_rounds", game=name), rows,
                     slot="tnmenu")
        return Outcome(None)
    if len(parts) < 4 or not parts[3].isdigit() or int(parts[3]) not in ROUND_CHOICES:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    count = int(parts[3])
    if parts[1] == "r" and len(parts) == 4:
        rows = [[(clock_label(c, ctx.lang), buttons.encode(0, 0, f"tn.c.{game}.{count}.{c}"))
                 for c in CLOCK_CHOICES]]
        outgoing.say(ctx, chat, tr(ctx.lang, "tn.which_clock", game=name,
                                   rounds=texts.rounds_text(count, ctx.lang)), rows,
                     slot="tnmenu")
        return Outcome(None)
    if parts[1] == "c" and len(parts) == 5 and parts[4].isdigit() \
            and int(parts[4]) in CLOCK_CHOICES:
        outgoing.act(ctx, chat, None, "tnmenu", "delete")
        return create(ctx, chat, player, game, count, int(parts[4]))
    raise Refusal(tr(ctx.lang, "unknown_button"))


def join(ctx: Ctx, chat: Chat, player: Player, tournament: Tournament) -> Outcome:
    """✅ Join: while entry is open (with late entry, until round 2 begins)."""
    if tournament.state != "open" and not (tournament.late_entry and tournament.round_no <= 1):
        raise Refusal(tr(ctx.lang, "tn.closed"))
    if not player.private_chat_id:
        raise Refusal(tr(ctx.lang, "tn.start_me"))
    row = entries.entrant(ctx.session, tournament, player)
    if row is not None and row.state == "in":
        raise Refusal(tr(ctx.lang, "tn.already_in"))
    if row is not None and row.state == "removed":
        raise Refusal(tr(ctx.lang, "tn.closed"))
    if row is None:
        ctx.session.add(TournamentEntrant(tournament_id=tournament.id, player_id=player.id,  # type: ignore[arg-type]
                                          state="in", joined_at=ctx.now))
    else:
        row.state, row.joined_at = "in", ctx.now
    ctx.session.flush()
    show(ctx, chat, tournament)
    return Outcome(tr(ctx.lang, "tn.joined"))


def leave(ctx: Ctx, chat: Chat, player: Player, tournament: Tournament,
          state: str) -> Outcome:
    """❌ Leave (or taken out: ``state`` ``removed``): out of the rounds to come; a seat at a
    table of this round is taken over by a Normal CPU (the core's leaving)."""
    row = entries.entrant(ctx.session, tournament, player)
    if row is None or row.state != "in":
        raise Refusal(tr(ctx.lang, "tn.not_in"))
    if tournament.state == "open":
        ctx.session.delete(row)
    else:
        row.state = state
        for table_row in entries.tables(ctx.session, tournament):
            if table_row.state == "playing" and player.id in table_row.seats \
                    and table_row.table_id:
                table, seats = records.lock_table_seats(ctx.session, table_row.table_id)
                seat = records.seat_of(seats, player) if table is not None else None
                if seat is not None:
                    seating.remove_seat(ctx, table, seats, seat, "")  # type: ignore[arg-type]
    ctx.session.flush()
    show(ctx, chat, tournament)
    return Outcome(tr(ctx.lang, "tn.left") if state == "left" else None)


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
    two people."""
    if len(entries.entrants(ctx.session, tournament)) < MIN_PEOPLE:
        tournament.state, tournament.finished_at = "cancelled", ctx.now
        tournament.due_kind = tournament.due_at = None
        show(ctx, chat, tournament)
        outgoing.act(ctx, chat, None, rounds_slot(tournament), "unpin", tournament.thread_id)
        outgoing.say(ctx, chat, tr(languages.language(ctx, chat), "tn.cancelled_few"),
                     thread=tournament.thread_id)
        return
    begin(ctx, chat, tournament)


def end(ctx: Ctx, chat: Chat, player: Player, user: UserRef,
        tournament: Tournament | None) -> Outcome:
    """``/turnier ende``: ends it now (a running one with the standings as they are)."""
    if tournament is None:
        raise Refusal(tr(ctx.lang, "tn.gone"), alert=False)
    if not (user.is_admin or player.id == tournament.opener_id):
        raise Refusal(tr(ctx.lang, "tn.end_denied"), alert=False)
    outgoing.say(ctx, chat, tr(languages.language(ctx, chat), "tn.ended"),
                 thread=tournament.thread_id)
    if tournament.state == "open":
        tournament.state, tournament.finished_at = "cancelled", ctx.now
        tournament.due_kind = tournament.due_at = None
        show(ctx, chat, tournament)
        outgoing.act(ctx, chat, None, rounds_slot(tournament), "unpin", tournament.thread_id)
        return Outcome(None)
    tournament.rounds = tournament.round_no  # (this round is the last)
    rounds.end_round(ctx, chat, tournament)
    show(ctx, chat, tournament)
    return Outcome(None)


def remove_menu(ctx: Ctx, chat: Chat, player: Player, user: UserRef,
                tournament: Tournament | None) -> Outcome:
    """``/turnier entfernen``: the entrants as buttons (for administrators)."""
    if tournament is None:
        raise Refusal(tr(ctx.lang, "tn.gone"), alert=False)
    if not user.is_admin:
        raise Refusal(tr(ctx.lang, "tn.end_denied"), alert=False)
    rows = [[(p.name or "?", buttons.encode(0, 0, f"tn.k.{tournament.id}.{p.id}"))]
            for _e, p in entries.entrants(ctx.session, tournament)]
    outgoing.say(ctx, chat, tr(ctx.lang, "tn.remove_which"), rows, slot="tnmenu", fresh=True)
    return Outcome(None)


def remove(ctx: Ctx, chat: Chat, player: Player, user: UserRef, tournament: Tournament,
           person_id: int) -> Outcome:
    """An administrator takes a person out (as if they left; they may not come back)."""
    if not user.is_admin:
        raise Refusal(tr(ctx.lang, "tn.end_denied"))
    person = records.get_player(ctx.session, person_id)
    if person is None:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    leave(ctx, chat, person, tournament, "removed")
    outgoing.say(ctx, chat, tr(languages.language(ctx, chat), "tn.removed", name=person.name),
                 thread=tournament.thread_id)
    return Outcome(None)
