"""Taking part in a tournament: ✅ Join (while entry is open; with late entry until round 2
begins — seated from the next round), ❌ Leave (before the start: gone; during a round: a
Normal CPU plays their seat at this round's table to its end, and they are seated no more),
and an administrator taking a person out (``/turnier entfernen``: as if they left, and they
may not come back)."""

from __future__ import annotations

from sqlmodel import col, select

import fsm
from storage.models import Chat, Player, Tournament, TournamentEntrant

from ... import buttons
from ...i18n import N_, pick_language, register, tr
from ..core import languages, outgoing, records, seating
from ..core.api import Outcome, Refusal, UserRef
from ..core.transaction import Ctx
from . import entries, opening

register({
    "tn.joined": N_("✅ You're in."),
    "tn.joined_late": N_("✅ You're in: you play from round 2."),
    "tn.left": N_("You left the tournament."),
    "tn.not_in": N_("You're not in this tournament."),
    "tn.not_entered": N_("{name} isn't in the tournament (any more)."),
    "tn.already_in": N_("You're in already."),
    "tn.closed": N_("Entry is closed."),
    "tn.start_me": N_("Write me privately first (/start in our chat): your cards come there."),
    "tn.removed": N_("{name} was taken out of the tournament."),
    "tn.remove_which": N_("Take whom out of the tournament?"),
    "tn.remove_nobody": N_("Nobody is entered."),
    "tn.admins_only": N_("Only the group's admins take people out of a tournament."),
})


# where the adapter opens a person's private chat itself once they joined (Matrix: a direct
# room, as for a table joined in a room); elsewhere (Telegram) they must have written first
OPENS_PRIVATE_CHATS = ("matrix",)


def entry_open(tournament: Tournament) -> bool:
    """Whether people may join now: before the start, or with late entry during round 1."""
    return tournament.state == "open" or (
        tournament.state == "running" and tournament.late_entry and tournament.round_no <= 1)


def join(ctx: Ctx, chat: Chat, player: Player, tournament: Tournament) -> Outcome:
    """✅ Join: while entry is open; a person must have a private chat with the bot (their
    cards and their table's news come there) — on Matrix the adapter opens one after the
    join (the outcome says the press changed something)."""
    row = entries.entrant(ctx.session, tournament, player)
    if row is not None and row.state == "in":
        raise Refusal(tr(ctx.lang, "tn.already_in"))
    if not entry_open(tournament):
        raise Refusal(tr(ctx.lang, "tn.closed"))
    if not player.private_chat_id and chat.platform not in OPENS_PRIVATE_CHATS:
        raise Refusal(tr(ctx.lang, "tn.start_me"))
    if row is not None and row.state == "removed":
        raise Refusal(tr(ctx.lang, "tn.closed"))
    if row is None:
        ctx.session.add(TournamentEntrant(tournament_id=tournament.id, player_id=player.id,  # type: ignore[arg-type]
                                          state="in", joined_at=ctx.now))
    else:
        row.state, row.joined_at = "in", ctx.now
    ctx.session.flush()
    opening.show(ctx, chat, tournament)
    return Outcome(tr(ctx.lang, "tn.joined" if tournament.state == "open"
                      else "tn.joined_late"), changed=True)


def leave(ctx: Ctx, chat: Chat, player: Player, tournament: Tournament,
          state: str = "left") -> Outcome:
    """❌ Leave (or taken out: ``state`` ``removed``): before the start the entry is gone;
    later the person is out of the rounds to come, and a seat of theirs at this round's table
    is taken over by a Normal CPU (the core's leaving)."""
    row = entries.entrant(ctx.session, tournament, player)
    if row is None or row.state != "in":
        raise Refusal(tr(ctx.lang, "tn.not_in"))
    if tournament.state == "open":
        ctx.session.delete(row)
        ctx.session.flush()
        opening.show(ctx, chat, tournament)
        return Outcome(tr(ctx.lang, "tn.left"))
    row.state = state
    out_of_round(ctx, tournament, player)
    ctx.session.flush()
    opening.show(ctx, chat, tournament)
    return Outcome(tr(ctx.lang, "tn.left"))


def out_of_round(ctx: Ctx, tournament: Tournament, player: Player) -> bool:
    """The person leaves this round: a table still waiting for its topic seats a CPU in
    their place; at a table playing, a Normal CPU takes their seat over (the table's people
    are told; the person's own view gives way to a last word). Whether they were playing."""
    playing = False
    for row in entries.tables(ctx.session, tournament, lock=True):
        if player.id not in row.seats:
            continue
        if row.state == "waiting":
            row.seats = [None if p == player.id else p for p in row.seats]
            continue
        if row.state != "playing" or not row.table_id:
            continue
        table, seats = records.lock_table_seats(ctx.session, row.table_id)
        seat = records.seat_of(seats, player) if table is not None else None
        if table is None or seat is None or table.fsm_state not in fsm.PLAYING:
            continue
        name = seat.name
        seating.remove_seat(ctx, table, seats, seat, "")
        playing = True
        if player.private_chat_id:
            lang = pick_language(None, player.language, ctx.settings.default_language)
            chat = records.get_chat(ctx.session, table.chat_id)
            outgoing.queue(ctx, chat.platform if chat else "", player.private_chat_id,
                           table.id, f"h{table.id}", False, tr(lang, "tl.you_left"), [])
        if table.fsm_state in fsm.PLAYING:
            outgoing.announce(ctx, table, "tl.left_game", name=name)
    return playing


def remove_menu(ctx: Ctx, chat: Chat, user: UserRef, tournament: Tournament | None) -> Outcome:
    """``/turnier entfernen``: the entrants as buttons, for the group's administrators."""
    if tournament is None:
        raise Refusal(tr(ctx.lang, "tn.none"), alert=False)
    if not user.is_admin:
        raise Refusal(tr(ctx.lang, "tn.admins_only"), alert=False)
    people = entries.entrants(ctx.session, tournament)
    if not people:
        raise Refusal(tr(ctx.lang, "tn.remove_nobody"), alert=False)
    rows = [[(p.name or "?", buttons.encode(0, 0, f"tn.k.{tournament.id}.{p.id}"))]
            for _e, p in people]
    outgoing.say(ctx, chat, tr(ctx.lang, "tn.remove_which"), rows, slot="tnmenu", fresh=True)
    return Outcome(None)


def remove(ctx: Ctx, chat: Chat, user: UserRef, tournament: Tournament,
           person_id: int) -> Outcome:
    """An administrator takes a person out (as if they left; they may not come back)."""
    if not user.is_admin:
        raise Refusal(tr(ctx.lang, "tn.admins_only"))
    person = records.get_player(ctx.session, person_id)
    row = entries.entrant(ctx.session, tournament, person) if person is not None else None
    if person is None or row is None or row.state != "in":
        raise Refusal(tr(ctx.lang, "tn.not_entered", name=person.name if person else "?"))
    if tournament.state == "open":
        row.state = "removed"  # (kept: they may not enter again)
        ctx.session.flush()
        opening.show(ctx, chat, tournament)
    else:
        leave(ctx, chat, person, tournament, "removed")
    outgoing.act(ctx, chat, None, "tnmenu", "delete")
    outgoing.say(ctx, chat, tr(languages.language(ctx, chat), "tn.removed", name=person.name),
                 thread=tournament.thread_id)
    return Outcome(None)


def forgotten(ctx: Ctx, player: Player) -> None:
    """A person about to be forgotten (``/vergessen``, the hook ``person.forgotten``) leaves
    every tournament they are in, as if they had pressed ❌ Leave."""
    ids = ctx.session.exec(select(TournamentEntrant.tournament_id).join(
        Tournament, col(Tournament.id) == TournamentEntrant.tournament_id).where(
        TournamentEntrant.player_id == player.id, TournamentEntrant.state == "in",
        col(Tournament.state).in_(entries.LIVE))).all()
    for tournament_id in ids:
        tournament = entries.lock_round(ctx.session, tournament_id)
        chat = records.get_chat(ctx.session, tournament.chat_id) if tournament else None
        if tournament is not None and chat is not None:
            leave(ctx, chat, player, tournament)
