"""↺ Replays: a finished round (a Run Fast hand) of a table the person sat at, move by move,
with every hand open — rebuilt from the table's seed and move log by the engine
(``engine.replay``), never stored apart.

Only people who sat at the table (their seat, or the seat a CPU took over from them) see it,
and only a round that has ended: a round being played, or cut short by a stop, is never
shown. Replays last as long as the move log: ``storage.retention`` deletes it (and the table's
state) ``RETAIN_MOVES_DAYS`` (30 by default) after the game ended.

In the chat (the person's private chat only): ``/replay`` lists their last finished rounds as
buttons (``/replay 2`` opens the second at once); a round is one message, edited in place
as they step (``rp.<table>.<round>.<step>``; ``rp.l`` back to the list). The Mini App reads
the same rounds (``sight``).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, col, select

import fsm
from engine import GAMES
from engine.cards import show
from engine.replay import Round, hands, middle, replay
from storage.models import Chat, GameTable, Move, Player, Seat

from ... import buttons
from ...i18n import N_, Names, pick_language, register, tr
from ...presenters import presenter
from ...table_options import options_of
from ...views import unit_key
from ..core import outgoing, personal, records
from ..core.api import Outcome, Refusal, UserRef
from ..core.queries import NotYourTable
from ..core.transaction import Ctx

register({
    "rp.title": N_("↺ Replay: your last finished rounds. Tap one to go through it move by "
                   "move, with every hand open."),
    "rp.none": N_("↺ No finished round to replay yet. A round can be replayed once it is "
                  "over, for {days} days after its game ended."),
    "rp.private_only": N_("/replay works in your private chat with me."),
    "rp.pick": N_("Choose a number from 1 to {n} (/replay lists them)."),
    "rp.gone": N_("That round can't be replayed (any more)."),
    "rp.not_over": N_("That round is not over yet: it can be replayed when it has ended."),
    "rp.not_yours": N_("Only the people who sat at that table can replay it."),
    "rp.round": N_("Round {n}"),
    "rp.hand": N_("Hand {n}"),
    "rp.private": N_("private"),
    "rp.item": N_("{game} · {where} · {round}"),
    "rp.head": N_("↺ {game} · {where} · {round} · move {step}/{steps}"),
    "rp.dealt": N_("Dealt."),
    "rp.middle.schwimmen": N_("Middle"),
    "rp.middle.scat": N_("Discard pile"),
    "rp.middle.runfast": N_("Table"),
    "rp.middle.climbing": N_("Table"),
    "rp.empty": N_("–"),
    "rp.list": N_("↩ Rounds"),
    "rp.app": N_("↺ Replay in the app"),
})
LISTED = 8  # rounds /replay offers
TABLES = 12  # a person's newest tables looked at for them
_STEP_BUTTONS = (("⏮", "first"), ("◀", "prev"), ("▶", "next"), ("⏭", "last"))


@dataclass
class Replayed:
    """A table's rounds for one person who sat at it (``rounds``: all of them; only those
    that ``ended`` may be shown)."""

    table: GameTable
    seats: list[Seat]
    rounds: list[Round]
    where: str | None  # the group's name (None: a private table)
    seat_nos: tuple[int, ...]  # the person's seats

    def ended(self) -> list[Round]:
        return [r for r in self.rounds if r.ended]

    def round(self, number: int) -> Round | None:
        """The round with this number if it has ended, else ``None``."""
        found = self.rounds[number - 1] if 0 < number <= len(self.rounds) else None
        return found if found is not None and found.ended else None


def sat_at(seats: list[Seat], player: Player | None) -> tuple[int, ...]:
    """The seats a person sat in (theirs, or taken over from them by a CPU)."""
    if player is None or player.id is None:
        return ()
    return tuple(s.seat_no for s in seats if s.player_id == player.id)


def _has_ended_round(table: GameTable) -> bool:
    """Cheap before replaying: a round has ended if the table dealt more than one round, or
    its round is over (a new round is only dealt after one ended)."""
    if not table.state_json or table.fsm_state == fsm.LOBBY:
        return False
    if table.fsm_state in (fsm.PAYOUT, fsm.FINISHED):
        return True
    return int(GAMES[table.game].from_json(table.state_json).round_no) > 1


def load(session: Session, table: GameTable, player: Player | None,
         until: int | None = None) -> Replayed:
    """A table's rounds replayed from its seed and move log, for a person who sat at it
    (``NotYourTable`` for anybody else); ``until``: stop after that round."""
    seats = records.seats(session, table)
    mine = sat_at(seats, player)
    if not mine:
        raise NotYourTable(table.id)
    codes = session.exec(select(Move.code).where(Move.table_id == table.id)
                         .order_by(col(Move.seq))).all()
    rounds = replay(table.game, len(seats), dict(options_of(table).engine), table.seed,
                    codes, until) if table.state_json and table.fsm_state != fsm.LOBBY else []
    chat = records.get_chat(session, table.chat_id)
    where = (records.place_name(chat, table) or "?") if chat is not None \
        and not table.is_private else None
    return Replayed(table, seats, rounds, where, mine)


def recent(session: Session, player: Player) -> list[tuple[Replayed, Round]]:
    """The person's last finished rounds, newest first (at most ``LISTED``)."""
    tables = session.exec(
        select(GameTable).join(Seat, col(Seat.table_id) == GameTable.id)
        .where(Seat.player_id == player.id, col(GameTable.state_json).is_not(None))
        .order_by(col(GameTable.updated_at).desc(), col(GameTable.id).desc())
        .limit(TABLES)).unique().all()
    found: list[tuple[Replayed, Round]] = []
    for table in tables:
        if not _has_ended_round(table):
            continue
        replayed = load(session, table, player)
        found += [(replayed, r) for r in reversed(replayed.ended())]
        if len(found) >= LISTED:
            break
    return found[:LISTED]


def sight(session: Session, platform: str, user_id: str, table_key: int | str,
          user_lang: str | None, default_language: str) -> tuple[Replayed, str] | None:
    """A table's rounds as the Mini App asks for them (by token or id), with the person's
    language; ``None``: no such table; ``NotYourTable``: they did not sit at it."""
    player = session.exec(select(Player).where(Player.platform == platform,
                                               Player.external_id == user_id)).first()
    if isinstance(table_key, str):
        table = session.exec(select(GameTable).where(GameTable.token == table_key)).first()
    else:
        table = records.get_table(session, table_key)
    if table is None:
        return None
    replayed = load(session, table, player)
    assert player is not None  # (load refuses nobody's seat)
    chosen = records.chat_language(session, platform, player.private_chat_id) \
        if player.private_chat_id else None
    return replayed, pick_language(chosen, player.language or user_lang, default_language)


# ---------------------------------------------------------------------------------- texts
def where_text(replayed: Replayed, lang: str) -> str:
    return replayed.where or tr(lang, "rp.private")


def round_name(table: GameTable, number: int, lang: str) -> str:
    return tr(lang, unit_key(table, "rp.round"), n=number)


def step_lines(replayed: Replayed, rnd: Round, index: int, lang: str) -> list[str]:
    """One step of a round as the chat shows it: what happened, every hand, the middle, and
    at the round's last step its result."""
    table, seats = replayed.table, replayed.seats
    p = presenter(table.game)
    names = [s.name for s in seats]
    step = rnd.steps[index]
    lines = [tr(lang, "rp.head", game=p.name(lang), where=where_text(replayed, lang),
                round=round_name(table, rnd.number, lang), step=index, steps=rnd.moves)]
    said = [t for e in step.events if (t := p.event_text(e.to_dict(), Names(names), lang))]
    lines.append("▶ " + (" ".join(said) if said else tr(lang, "rp.dealt")))
    for seat, hand in zip(seats, hands(table.game, step.state), strict=False):
        lines.append(f"{seat.name}: {show(hand) if hand else tr(lang, 'rp.empty')}")
    shown = middle(table.game, step.state)
    if shown:
        lines.append(f"{tr(lang, f'rp.middle.{table.game}')}: {show(shown)}")
    if index == rnd.moves:
        lines += ["", *p.result_lines(step.state, names, lang, table.options)]
    return lines


def step_rows(ctx: Ctx, replayed: Replayed, rnd: Round, index: int,
              lang: str) -> list[list[tuple[str, str]]]:
    """⏮ ◀ ▶ ⏭, back to the list, and (Telegram, with the Mini App) the app's replay view."""
    table_id = replayed.table.id
    targets = {"first": 0, "prev": max(0, index - 1), "next": min(rnd.moves, index + 1),
               "last": rnd.moves}
    rows = [[(label, buttons.encode(0, 0, f"rp.{table_id}.{rnd.number}.{targets[what]}"))
             for label, what in _STEP_BUTTONS],
            [(tr(lang, "rp.list"), buttons.encode(0, 0, "rp.l"))]]
    page = ctx.settings.webapp_page
    if ctx.platform == "telegram" and page is not None:
        key = replayed.table.token or str(table_id)
        rows.append([(tr(lang, "rp.app"), buttons.web_app(f"{page(key)}&r={rnd.number}"))])
    return rows


# ---------------------------------------------------------------------------------- chat
def _private_only(ctx: Ctx, chat: Chat) -> None:
    if chat.kind != "private":
        raise Refusal(tr(ctx.lang, "rp.private_only"), alert=False)


def _show_list(ctx: Ctx, chat: Chat, player: Player, fresh: bool) -> Outcome:
    found = recent(ctx.session, player)
    if not found:
        days = ctx.settings.retention.moves.days
        outgoing.say(ctx, chat, tr(ctx.lang, "rp.none", days=days), slot="replay", fresh=fresh)
        return Outcome(None)
    rows = [[(tr(ctx.lang, "rp.item", game=presenter(r.table.game).name(ctx.lang),
                 where=where_text(r, ctx.lang), round=round_name(r.table, rnd.number, ctx.lang)),
              buttons.encode(0, 0, f"rp.{r.table.id}.{rnd.number}.0"))] for r, rnd in found]
    outgoing.say(ctx, chat, tr(ctx.lang, "rp.title"), rows, slot="replay", fresh=fresh)
    return Outcome(None)


def _show_step(ctx: Ctx, chat: Chat, replayed: Replayed, rnd: Round, index: int,
               fresh: bool) -> Outcome:
    """A step of a round: the replay viewer's message; a table with a topic of its own in
    the private chat (a long table) is replayed in that topic, in a message of its own."""
    index = max(0, min(index, rnd.moves))
    text = "\n".join(step_lines(replayed, rnd, index, ctx.lang))
    rows = step_rows(ctx, replayed, rnd, index, ctx.lang)
    table_id = replayed.table.id
    if table_id is not None and personal.has_private_topic(ctx, chat, table_id):
        outgoing.queue(ctx, chat.platform, chat.external_id, table_id, f"replay{table_id}",
                       False, text, rows, fresh=fresh)
    else:
        outgoing.say(ctx, chat, text, rows, slot="replay", fresh=fresh)
    return Outcome(None, table_id=table_id)


def command(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/replay``: the person's last finished rounds; ``/replay <n>``: the n-th of them."""
    word = args.strip()
    if not word:
        return _show_list(ctx, chat, player, fresh=True)
    found = recent(ctx.session, player)
    if not (word.isascii() and word.isdigit() and 0 < int(word) <= len(found)):
        if not found:
            return _show_list(ctx, chat, player, fresh=True)
        raise Refusal(tr(ctx.lang, "rp.pick", n=len(found)), alert=False)
    replayed, rnd = found[int(word) - 1]
    return _show_step(ctx, chat, replayed, rnd, 0, fresh=True)


def press(ctx: Ctx, chat: Chat, player: Player, user: UserRef, code: str) -> Outcome:
    """``rp.l`` (the list again) or ``rp.<table>.<round>.<step>`` (that step), edited in
    place; refused for anybody who did not sit at the table and for a round not over."""
    _private_only(ctx, chat)
    if code == "rp.l":
        return _show_list(ctx, chat, player, fresh=False)
    parts = code.split(".")
    if len(parts) != 4 or not all(p.isascii() and p.isdigit() and len(p) <= 10
                                  for p in parts[1:]):
        raise Refusal(tr(ctx.lang, "unknown_button"))
    table_id, number, index = (int(p) for p in parts[1:])
    table = records.get_table(ctx.session, table_id) if table_id <= buttons.MAX_ID else None
    if table is None:
        raise Refusal(tr(ctx.lang, "rp.gone"))
    try:
        replayed = load(ctx.session, table, player, until=number)
    except NotYourTable:
        raise Refusal(tr(ctx.lang, "rp.not_yours")) from None
    rnd = replayed.round(number)
    if rnd is None:
        raise Refusal(tr(ctx.lang, "rp.not_over" if 0 < number <= len(replayed.rounds)
                         else "rp.gone"))
    return _show_step(ctx, chat, replayed, rnd, index, fresh=False)

