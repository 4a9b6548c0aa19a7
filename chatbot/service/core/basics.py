"""What every table needs, declared like any feature (``registry.Feature``): the core's
commands, the lobby's and the table's buttons with their press policy, the game menu, the
kinds of table deadline the turn clock sets, and the retention sweep."""

from __future__ import annotations

from storage.models import GameTable, Player, Seat

from ...i18n import LANGUAGES, N_, register, tr
from . import commands, history, lobby, menus, play, seating, turn_clock
from .api import Outcome, Refusal, UserRef
from .registry import AdminRights, Button, Command, Feature, Parts, Step
from .ticking import RETENTION, SWEEP_EVERY, sweep_rows
from .transaction import Ctx

register({
    "command.start": N_("Welcome and help"),
    "command.help": N_("Help"),
    "command.rules": N_("Game rules"),
    "command.language": N_("Choose language"),
    "command.new": N_("New game"),
    "command.stop": N_("Close the table"),
})


def _language_press(ctx: Ctx, chat: object, player: Player, user: UserRef,
                    code: str) -> Outcome:
    """``lang.<code>``: the chat's language."""
    parts = code.split(".")
    if len(parts) != 2 or parts[1] not in LANGUAGES:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    return commands.set_language(ctx, chat, player, user, parts[1])  # type: ignore[arg-type]


def _rules_press(ctx: Ctx, chat: object, player: Player, user: UserRef, code: str) -> Outcome:
    """``r.<game>``: a game chosen under ``/rules``."""
    parts = code.split(".")
    if len(parts) != 2:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    return commands.rules_press(ctx, chat, parts[1])  # type: ignore[arg-type]


def _next_round(ctx: Ctx, table: GameTable, seats: list[Seat]) -> None:
    play.next_round(ctx, table, seats)


def _expire(ctx: Ctx, table: GameTable, seats: list[Seat]) -> None:
    lobby.expire(ctx, table)


def _retention(parts: Parts, platform: str) -> int:
    return sum(sweep_rows(parts).values())


def _table(head: str, run: object, **policy: bool) -> Button:
    return Button(head, run, **policy)  # type: ignore[arg-type]


BASICS = Feature(
    "core",
    commands=(
        Command("start", commands.start, "command.start"),
        Command("help", commands.help_, "command.help", aliases=("hilfe",)),
        Command("rules", commands.rules, "command.rules", aliases=("regeln",)),
        Command("language", commands.language, "command.language",
                aliases=("sprache", "lang"), admin=AdminRights.ALWAYS),
        Command("new", commands.new, "command.new", aliases=("neu", "neues")),
        Command("stop", commands.stop, "command.stop", aliases=("stopp", "beenden", "ende"),
                admin=AdminRights.ALWAYS),
    ),
    buttons=(
        _table("join", lobby.join, version_free=True),
        _table("leave", lobby.leave, version_free=True),
        _table("kick", lobby.kick, admin=True),
        _table("start", lobby.start, admin=True),
        _table("stop", lobby.stop, admin=True),
        _table("cards", lobby.cards, version_free=True),
        _table("back", lobby.back, version_free=True),
        _table("clock", lobby.set_clock, admin=True),
        _table("cur", lobby.currency, admin=True),
        _table("opt", lobby.game_option, admin=True),
        _table("lvl", lobby.cpu_level, admin=True),
        _table("again", seating.again),
        _table("fill", seating.fill, admin=True),
        _table("resign", seating.resign, version_free=True),  # (checked against the seat's question)
        _table("log", history.history, version_free=True),
        Button("lang", _language_press, on_table=False, admin=True),
        Button("r", _rules_press, on_table=False),
    ),
    menu_default=menus.menu_press,
    deadlines={
        "remind": turn_clock.remind, "nudge": turn_clock.nudge, "next": _next_round,
        "rematch": seating.due, "expire": _expire,
    },
    steps=(Step(RETENTION, _retention, every=SWEEP_EVERY, on_thread=True),),
)
