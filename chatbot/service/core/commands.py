"""The core's commands (``/start``, ``/help``, ``/rules``, ``/language``, ``/new``, ``/stop``;
declared in ``basics``), and the chat settings their buttons change: the chat's language, the
game chosen under ``/rules``. ``/help`` lists every feature's commands from the registry."""

from __future__ import annotations

from typing import Any

from engine import GAMES
from storage.models import Chat, Player

from ... import buttons
from ...durations import clock_label, typed_clock
from ...i18n import LANGUAGES, N_, language_name, register, tr
from ...presenters import PRESENTERS, presenter
from . import menus, outgoing, personal, play, records, tables
from .api import Outcome, Refusal, UserRef
from .lobby import TIMEOUT_CHOICES
from .registry import Registry
from .transaction import Ctx
from .typed_names import game_of, level_of

CLOCK_KEYS = ("clock", "uhr", "zeit", "bedenkzeit")
register({
    "new_clock": N_("A turn clock is one of: {choices}, or none (e.g. clock=12h)."),
    "help.commands": N_("Commands:"),
})
PREFIX = {"matrix": "!"}  # how a platform's people type a command (else ``/``)


def start(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    outgoing.say(ctx, chat, tr(ctx.lang, "welcome"))
    if chat.kind == "private":
        # Now we may write to them: send their hand at every group table they sit at
        # (a deep link ``/start t<id>`` comes from one of those tables: say which).
        linked = args[1:] if args.startswith("t") and args[1:].isascii() else ""
        for table in records.group_tables_of(ctx.session, player):
            if linked.isdigit() and table.id == int(linked):
                outgoing.say(ctx, chat, tr(
                    ctx.lang, "seated_at", game=presenter(table.game).name(ctx.lang),
                    group=personal.table_place(ctx, table) or "?"))
            play.show(ctx, table)
    return Outcome(None)


def help_(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/help``: how the bot works and its commands, then what the rooms add (the hook
    ``help.lines``: e.g. how to play in any chat, or that inline mode is off)."""
    more = [line for hook in ctx.registry.hooks("help.lines") for line in hook(ctx, chat)]
    text = help_text(ctx.registry, ctx.platform, chat.kind, ctx.lang)
    outgoing.say(ctx, chat, "\n\n".join([text, *more]) if more else text)
    return Outcome(None)


def help_text(registry: Registry, platform: str, kind: str, lang: str) -> str:
    """How the bot works, then every command offered in a chat of this kind, one line each
    (from the registry, in the chat's language, as the platform's people type it)."""
    prefix = PREFIX.get(platform, "/")
    lines = [tr(lang, "help", p=prefix), "", tr(lang, "help.commands")]
    lines += [f"{prefix}{c.name_in(lang)} – {tr(lang, c.about)}" for c in registry.listed(kind)]
    return "\n".join(lines)


def rules(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/rules <game>``: that game's rules; ``/rules`` at a running table: its game's, with
    the table's options as set; else the question which game (buttons)."""
    game = args.lower().strip()
    if game in PRESENTERS:
        outgoing.say(ctx, chat, PRESENTERS[game].rules(ctx.lang), fresh=True)
        return Outcome(None)
    table = records.get_table(ctx.session, records.open_table(ctx.session, chat, ctx.thread))
    if table is not None:
        outgoing.say(ctx, chat, table_rules(table, ctx.lang), fresh=True)
        return Outcome(None)
    rows = [[(presenter(g).name(ctx.lang), buttons.encode(0, 0, f"r.{g}"))]
            for g in PRESENTERS]
    outgoing.say(ctx, chat, tr(ctx.lang, "rules_which"), rows, slot="rules", fresh=True)
    return Outcome(None)


def rules_press(ctx: Ctx, chat: Chat, game: str) -> Outcome:
    """A game chosen under ``/rules``: the question becomes that game's rules."""
    if game not in PRESENTERS:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    outgoing.say(ctx, chat, PRESENTERS[game].rules(ctx.lang), slot="rules")
    return Outcome(None)


def table_rules(table: Any, lang: str) -> str:
    """A table's game rules and the options it is played with."""
    p = presenter(table.game)
    engine_opts = (table.options or {}).get("engine") or {}
    chosen = [p.option_label(key, engine_opts.get(key, values[0]), lang)
              for key, values in getattr(p, "OPTION_CHOICES", {}).items()]
    text = p.rules(lang)
    if chosen:
        text += "\n\n" + tr(lang, "rules_table_options",
                              options=" · ".join(chosen))
    return text


def language(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    code = args.lower()[:2]
    if code in LANGUAGES:  # (the confirmation is posted once, not also as the reply)
        set_language(ctx, chat, player, user, code)
        return Outcome(None)
    offered = [(language_name(code), buttons.encode(0, 0, f"lang.{code}"))
               for code in LANGUAGES]
    rows = [offered[i:i + 3] for i in range(0, len(offered), 3)]
    outgoing.say(ctx, chat, tr(ctx.lang, "language_menu"), rows)
    return Outcome(None)


def set_language(ctx: Ctx, chat: Chat, player: Player, user: UserRef, code: str) -> Outcome:
    """A chat's language: in a group only its admins, and the opener of its open table. In
    a private chat also the person's own, where the platform says none (Matrix): their time
    zone's default follows it (``quiet_hours.zone_of``)."""
    if chat.kind == "group" and not user.is_admin:
        table_id = records.open_table(ctx.session, chat, ctx.thread)
        table = records.get_table(ctx.session, table_id)
        if table is None or table.opener_id != player.id:
            raise Refusal(tr(ctx.lang, "language_denied"))
    chat.language = code
    if chat.kind == "private" and user.language is None:
        player.language = code
    ctx.lang = code
    ctx.langs.pop((chat.platform, chat.external_id), None)  # (resolved anew)
    outgoing.say(ctx, chat, tr(code, "language_set"))
    return Outcome(tr(code, "language_set"))


def new(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/new``: the game menu; ``/new <game> [opponents] [level] [key=value …]`` goes as far
    as the words say (a game by any of its names, a level as people write it)."""
    words = args.split()
    if chat.kind == "group" and records.open_table(ctx.session, chat, ctx.thread) is not None:
        raise menus.busy(ctx, alert=False)
    plain = " ".join(w for w in words if "=" not in w)
    found = game_of(plain) if plain else None
    if plain and found is None:
        raise Refusal(tr(ctx.lang, "new_unknown", word=plain.split()[0]), alert=False)
    if found is not None:
        game_id, rest = found
        settings = [w.lower() for w in words if "=" in w]
        seconds = clock_word(ctx, settings)
        opts = option_words(ctx, game_id, [w for w in settings
                                           if w.partition("=")[0] not in CLOCK_KEYS])
        return menus.menu_press(ctx, chat, player, user, _menu_code(ctx, game_id, rest),
                                engine_options=opts, turn_timeout=seconds)
    rows = [[(presenter(g).name(ctx.lang), buttons.encode(0, 0, f"g.{g}"))]
            for g in PRESENTERS]
    outgoing.say(ctx, chat, tr(ctx.lang, "choose_game"), rows, slot="menu", repost=True,
                 fresh=True)  # a command's answer: at the bottom, even if the menu is unchanged
    return Outcome(None)


def _menu_code(ctx: Ctx, game_id: str, rest: str) -> str:
    """The menu step the words after the game name reach: ``g.<game>[.<n>[.<level>]]``."""
    count, level = None, None
    for word in rest.split():
        if word.isascii() and word.isdigit() and count is None:
            count = word
        elif level_of(word) is not None and level is None:
            level = level_of(word)
        else:
            raise Refusal(tr(ctx.lang, "new_unknown", word=word), alert=False)
    game = GAMES[game_id]
    counts = range(max(1, game.MIN_SEATS - 1), game.MAX_SEATS)
    if count is None and level is not None and len(counts) == 1:
        count = str(counts[0])  # (one answer only: Run Fast's two opponents)
    if count is not None and not (count.isdigit() and int(count) in counts):
        raise Refusal(tr(ctx.lang, "new_count", game=presenter(game_id).name(ctx.lang),
                         low=counts[0], high=counts[-1]), alert=False)
    return ".".join(["g", game_id, *([count] if count else []),
                     *([level] if count and level else [])])


def stop(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    table_id = records.open_table(ctx.session, chat, ctx.thread)
    if table_id is None:
        raise Refusal(tr(ctx.lang, "no_table"), alert=False)
    table = records.lock_table(ctx.session, table_id)
    assert table is not None
    if not tables.may_manage(user, player, table, records.seats(ctx.session, table)):
        raise Refusal(tables.denied(ctx, table, "stop_denied").text, alert=False)
    return play.stop_table(ctx, table)


def clock_word(ctx: Ctx, words: list[str]) -> int | None:
    """A turn clock typed after ``/new <game>`` (``clock=12h``, ``uhr=10min``, ``clock=none``):
    one of the lobby's clocks, in seconds; ``None`` if none was typed."""
    typed = [w.partition("=")[2] for w in words if w.partition("=")[0] in CLOCK_KEYS]
    if not typed:
        return None
    seconds = typed_clock(typed[-1])
    if seconds is None or seconds not in TIMEOUT_CHOICES:
        raise Refusal(tr(ctx.lang, "new_clock", choices=", ".join(
            clock_label(c, ctx.lang).removeprefix("⏱ ") for c in TIMEOUT_CHOICES if c)),
            alert=False)
    return seconds


def option_words(ctx: Ctx, game_id: str, words: list[str]) -> dict[str, Any]:
    """Engine options given as ``key=value`` after ``/new <game>`` (per OPTION_CHOICES)."""
    choices = getattr(presenter(game_id), "OPTION_CHOICES", {})
    out: dict[str, Any] = {}
    for word in words:
        key, _, value = word.partition("=")
        match = [v for v in choices.get(key, []) if str(v).lower() == value]
        if not match:
            raise Refusal(tr(ctx.lang, "unknown_command"), alert=False)
        out[key] = match[0]
    return out
