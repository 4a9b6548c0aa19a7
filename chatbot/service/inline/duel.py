"""Play anywhere on Matrix: ``!duell @person [game]`` (``!duel``) opens a room of its own
with the bot and the people named, for one game. The Matrix adapter reads whom it names,
asks what the words say (``plan``: the game, the room's name, or why not), makes the room
(encrypted like the bot's direct rooms, the people invited) and opens its table
(``open_table``): the game the words name (Schwimmen if none) with its opener seated, which
starts by itself once everybody named has joined it, offers no "play again", and whose chat
the bot leaves once the game is over (``TableOptions.one_game``: a ``leave`` row after the
last view, when the game finishes or the table is closed).

Typed where there is no such room (Telegram: ``/duell``), the command says how to invite
there: ``@bot`` in any chat (inline mode), or, where people must be named, how.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import GAMES
from storage.models import Chat, GameTable, Outbox, Player

from ...delivery import LEAVE
from ...i18n import N_, pick_language, register, tr
from ...presenters import presenter
from ..core import play, records, tables, turn_clock
from ..core.api import Outcome, Refusal, Settings, UserRef
from ..core.commands import PREFIX
from ..core.events import GameFinished, TableClosed
from ..core.transaction import Ctx
from ..core.typed_names import game_of

register({
    "command.duel": N_("Invite people to a game of your own"),
    "duel.usage": N_("Name the people to play with: {p}duel @person [game] – for example "
                     "“{p}duel @ben:example.org scat”. I open a room for the game and invite "
                     "you all."),
    "duel.unknown": N_("“{word}” is no game I know: Schwimmen, Scat, Run Fast or Joker Climb."),
    "duel.size": N_("{game} is for {least} to {most} players: name {fewest} to {more} people."),
    "duel.size_exact": N_("{game} is for {most} players: name {more} people."),
    "duel.room": N_("🃏 {game}: {names}"),
    "duel.opened": N_("🃏 I opened the room “{room}” for a game of {game} and invited you: "
                      "accept the invitation there; the game starts as soon as everybody "
                      "has joined the table."),
    "duel.failed": N_("I could not open a room for the game just now – please try again."),
})
DEFAULT_GAME = "schwimmen"


@dataclass(frozen=True)
class DuelPlan:
    """What ``!duell`` asks for: the game and the room's name, or why not (``refusal``)."""

    game: str | None
    room: str = ""
    refusal: str | None = None


def plan(settings: Settings, platform: str, user: UserRef, words: str,
         names: list[str]) -> DuelPlan:
    """The game the words name (Schwimmen if none) for the opener and ``names``, the new
    room's name, in the person's language; a refusal for words that name no game or for too
    many or too few people."""
    lang = pick_language(None, user.language, settings.default_language)
    prefix = PREFIX.get(platform, "/")
    if not names:
        return DuelPlan(None, refusal=tr(lang, "duel.usage", p=prefix))
    found = game_of(words) if words.strip() else (DEFAULT_GAME, "")
    if found is None or found[1]:
        word = (found[1] if found else words).split()[0]
        return DuelPlan(None, refusal=tr(lang, "duel.unknown", word=word))
    game_id = found[0]
    game, name = GAMES[game_id], presenter(game_id).name(lang)
    if not game.MIN_SEATS <= len(names) + 1 <= game.MAX_SEATS:
        key = "duel.size" if game.MIN_SEATS < game.MAX_SEATS else "duel.size_exact"
        return DuelPlan(None, refusal=tr(lang, key, game=name, least=game.MIN_SEATS,
                                         most=game.MAX_SEATS, fewest=game.MIN_SEATS - 1,
                                         more=game.MAX_SEATS - 1))
    room = tr(lang, "duel.room", game=name, names=" & ".join([user.name, *names]))[:255]
    return DuelPlan(game_id, room)


def command(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/duell`` where the adapter opens no room: how to invite (inline mode on Telegram)."""
    if ctx.settings.inline_mode and ctx.settings.bot_name:
        return Outcome(tr(ctx.lang, "il.help", bot=f"@{ctx.settings.bot_name}"))
    return Outcome(tr(ctx.lang, "duel.usage", p=PREFIX.get(ctx.platform, "/")))


def open_table(ctx: Ctx, chat: Chat, player: Player, game_id: str, invited: int) -> Outcome:
    """The table of a room opened for one game: the opener seated; it starts by itself once
    the ``invited`` have joined too."""
    if game_id not in GAMES or records.open_table(ctx.session, chat) is not None:
        raise Refusal(tr(ctx.lang, "busy_table"))
    table = tables.new_table(ctx, chat, player, game_id, private=False, options={
        "starts_at": invited + 1, "no_again": True, "one_game": True})
    records.add_seat(ctx.session, table, 0, player.name, player_id=player.id)
    turn_clock.arm_lobby(ctx, table)
    play.show(ctx, table)
    return Outcome(None, table_id=table.id, changed=True)


def _leave(ctx: Ctx, table: GameTable) -> None:
    """A room opened for one game is left once the game is over: after its last view."""
    if not records.options(table).one_game:
        return
    chat = records.get_chat(ctx.session, table.chat_id)
    if chat is None:
        return
    ctx.queue_last(Outbox, {
        "thread": None, "platform": chat.platform, "chat_external_id": chat.external_id,
        "table_id": None, "slot": None, "repost": False, "fresh": False, "text": "",
        "buttons": [], "status": "pending", "attempts": 0, "not_before": ctx.now,
        "created_at": ctx.now, "sent_at": None, "error": None, "action": LEAVE,
        "reply_to": None})


def game_finished(ctx: Ctx, event: GameFinished) -> None:
    _leave(ctx, event.table)


def table_closed(ctx: Ctx, event: TableClosed) -> None:
    _leave(ctx, event.table)
