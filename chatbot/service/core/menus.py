"""The game menu before a table exists: the game, the number of CPU opponents, their level
and the game's options for a private game (started at once), the game of a group's lobby, and
the question before a running private game is replaced."""

from __future__ import annotations

from typing import Any

import fsm
from engine import GAMES
from engine.bots import LEVELS, levels_for
from storage.models import Chat, GameTable, Player

from ... import buttons
from ...i18n import N_, register, tr
from ...presenters import presenter
from . import outgoing, play, records, tables
from .api import Outcome, Refusal, UserRef
from .transaction import Ctx

register({
    "menu.options_hint": N_("⚙ Below, the options: tap to change."),
    "menu.chosen": N_("Which game? → {game}"),
    "busy_here": N_("A table is already open here. /stop ends it."),
})


def busy(ctx: Ctx, alert: bool = True) -> Refusal:
    """The answer to a new table where one is open (in a forum topic or a thread: there)."""
    return Refusal(tr(ctx.lang, "busy_here" if ctx.thread else "busy_table"), alert=alert)


def menu_press(ctx: Ctx, chat: Chat, player: Player, user: UserRef, code: str,
               engine_options: dict[str, Any] | None = None,
               turn_timeout: int | None = None) -> Outcome:
    """A step of choosing a game (a menu button, table 0), or "keep the running game"."""
    parts = code.split(".")
    if parts == ["keep"]:  # the running game stays
        outgoing.say(ctx, chat, tr(ctx.lang, "replace_kept"), slot="menu")
        return Outcome(None)
    if parts[0] != "g" or len(parts) < 2 or parts[1] not in GAMES:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    game_id = parts[1]
    game = GAMES[game_id]
    name = presenter(game_id).name(ctx.lang)
    if chat.kind == "group":
        if records.open_table(ctx.session, chat, ctx.thread) is not None:
            raise busy(ctx)
        # the menu says what was chosen and offers nothing more (its buttons would be stale)
        outgoing.say(ctx, chat, tr(ctx.lang, "menu.chosen", game=name), slot="menu")
        return tables.open_lobby(ctx, chat, player, game_id, engine_options,
                                 turn_timeout=turn_timeout)
    counts = range(max(1, game.MIN_SEATS - 1), game.MAX_SEATS)
    if len(parts) == 2 and len(counts) == 1:  # one answer only: not asked (Run Fast, 3 seats)
        parts.append(str(counts[0]))
    elif len(parts) == 2:  # how many CPU opponents?
        rows = [[(str(n), buttons.encode(0, 0, f"g.{game_id}.{n}")) for n in counts]]
        outgoing.say(ctx, chat, tr(ctx.lang, "choose_opponents", game=name), rows, slot="menu")
        return Outcome(None)
    if not (parts[2].isascii() and parts[2].isdigit()) or not game.MIN_SEATS <= int(parts[2]) + 1 <= game.MAX_SEATS:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    n = int(parts[2])
    if len(parts) == 3 or (len(parts) == 5 and parts[3] == "o"):  # which level (and options)?
        picks = _options_from(game_id, parts[4]) if len(parts) == 5 else \
            {**_defaults(game_id), **(engine_options or {})}
        if picks is None:
            raise Refusal(tr(ctx.lang, "unknown_button"))
        return _level_step(ctx, chat, game_id, n, picks)
    level = parts[3]
    if level not in LEVELS or parts[4:5] not in ([], ["ok"], ["go"]) or len(parts) > 6:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    confirmed = parts[4:5] == ["ok"]
    if len(parts) == 6:
        engine_options = _options_from(game_id, parts[5])
        if engine_options is None:
            raise Refusal(tr(ctx.lang, "unknown_button"))
    old = records.open_table(ctx.session, chat, ctx.thread)
    if old is not None:  # a new private game replaces an unfinished one: only if confirmed
        locked = records.lock_table(ctx.session, old)
        if locked is not None and locked.fsm_state in fsm.OPEN:
            if not confirmed:
                return _confirm_replace(ctx, chat, locked, game_id, n, level, engine_options)
            play.stop_table(ctx, locked)
    table = tables.create_private_table(ctx, chat, player, game_id, n, level,
                                        options=_table_options(engine_options),
                                        turn_timeout=turn_timeout)
    return Outcome(None, table_id=table.id, changed=True)


def _level_step(ctx: Ctx, chat: Chat, game_id: str, n: int, picks: dict[str, Any]) -> Outcome:
    """The level buttons (one tap starts the game) and under them the game's options as
    buttons that cycle their value (``g.<game>.<n>.o.<picks>``); chosen options ride along in
    the level buttons (``g.<game>.<n>.<level>.go.<picks>``)."""
    p = presenter(game_id)
    choices = _choices(game_id)
    code = _options_code(game_id, picks)
    tail = f".go.{code}" if picks != _defaults(game_id) else ""
    rows = [[(tr(ctx.lang, f"level_{lv}"), buttons.encode(0, 0, f"g.{game_id}.{n}.{lv}{tail}"))
             for lv in levels_for(game_id)]]
    for i, (key, values) in enumerate(choices):
        now = values.index(picks.get(key, values[0]))
        cycled = code.split("-")
        cycled[i] = str((now + 1) % len(values))
        rows.append([(_option_label(game_id, key, values[now], ctx.lang),
                      buttons.encode(0, 0, f"g.{game_id}.{n}.o.{'-'.join(cycled)}"))])
    text = tr(ctx.lang, "choose_level", game=p.name(ctx.lang), n=n)
    if choices:
        text += "\n" + tr(ctx.lang, "menu.options_hint")
    outgoing.say(ctx, chat, text, rows, slot="menu")
    return Outcome(None)


def _option_label(game_id: str, key: str, value: Any, lang: str) -> str:
    p = presenter(game_id)
    if key == "currency":
        return p.currency_label(value, lang)  # type: ignore[no-any-return]
    return p.option_label(key, value, lang)  # type: ignore[no-any-return]


def _choices(game_id: str) -> list[tuple[str, list[Any]]]:
    """The options a private game may be set up with: the presenter's engine options, then
    its currencies (a table option)."""
    p = presenter(game_id)
    out = list(getattr(p, "OPTION_CHOICES", {}).items())
    currencies = getattr(p, "CURRENCIES", None)
    if currencies:
        out.append(("currency", list(currencies)))
    return out


def _defaults(game_id: str) -> dict[str, Any]:
    return {key: values[0] for key, values in _choices(game_id)}


def _table_options(picks: dict[str, Any] | None) -> dict[str, Any] | None:
    """Chosen options as table options: the currency on its own, the rest for the engine."""
    if not picks:
        return None
    engine = dict(picks)
    out: dict[str, Any] = {}
    if "currency" in engine:
        out["currency"] = engine.pop("currency")
    if engine:
        out["engine"] = engine
    return out


def _confirm_replace(ctx: Ctx, chat: Chat, running: GameTable, game_id: str, n: int,
                     level: str, engine_options: dict[str, Any] | None) -> Outcome:
    """A game is running here: ask before it is ended for a new one (the menu becomes the
    question; "keep playing" leaves everything as it is)."""
    code = f"g.{game_id}.{n}.{level}.ok"
    if engine_options:
        code += "." + _options_code(game_id, engine_options)
    rows = [[(tr(ctx.lang, "replace_yes"), buttons.encode(0, 0, code)),
             (tr(ctx.lang, "replace_no"), buttons.encode(0, 0, "keep"))]]
    outgoing.say(ctx, chat, tr(
        ctx.lang, "replace_running",
        running=presenter(running.game).name(ctx.lang),
        game=presenter(game_id).name(ctx.lang)), rows, slot="menu", fresh=True)
    return Outcome(None)


def _options_code(game_id: str, options: dict[str, Any]) -> str:
    """Options as indexes into the game's choices (``1-0``: short enough for a button)."""
    return "-".join(str(values.index(options.get(key, values[0])))
                    for key, values in _choices(game_id))


def _options_from(game_id: str, code: str) -> dict[str, Any] | None:
    """``_options_code`` read back (None: not a code this game's choices make)."""
    choices = _choices(game_id)
    picks = code.split("-")
    if len(picks) != len(choices) or not all(p.isascii() and p.isdigit() and len(p) < 3
                                              for p in picks):
        return None
    out = {}
    for (key, values), pick in zip(choices, picks, strict=True):
        if int(pick) >= len(values):
            return None
        out[key] = values[int(pick)]
    return out
