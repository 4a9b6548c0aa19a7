"""What ``/turnier`` (``/tournament``) and a tournament's buttons do: the command's words
(none: the group's tournament or a new one by buttons; a game: a new one typed; ``liste``,
``ende``, ``entfernen``; ``mitmachen``, ``aussteigen``, ``start`` as the buttons) and the buttons (``tn.g|r|c``: the opening dialogue; ``tn.j|l|s``:
join, leave, start; ``tn.k``: take a person out). Bad input — a forged or stale button, a
press in another group, garbage typed — gets a short answer and changes nothing."""

from __future__ import annotations

from storage.models import Chat, Player, Tournament

from ...i18n import tr
from ..core.api import Outcome, Refusal, UserRef
from ..core.transaction import Ctx
from ..core.typed_names import fold
from . import entries, opening, past, taking_part

_LIST = ("liste", "list", "history", "verlauf")
_END = ("ende", "end", "beenden", "abbrechen")
_REMOVE = ("entfernen", "remove", "raus", "kick")
_JOIN = ("mitmachen", "join", "dabei")
_LEAVE = ("aussteigen", "leave")
_START = ("start", "starten", "los")
_ID_DIGITS = 10


def command(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/turnier``: the group's tournament, or a new one (dialogue or typed), ``liste``,
    ``ende``, ``entfernen``."""
    words = fold(args).split()
    live = entries.live(ctx.session, chat)
    if words and words[0] in _LIST:
        return past.history(ctx, chat)
    if words and words[0] in _END:
        return opening.end(ctx, chat, player, user, _locked(ctx, live))
    if words and words[0] in _REMOVE:
        return taking_part.remove_menu(ctx, chat, user, live)
    if len(words) == 1 and words[0] in (*_JOIN, *_LEAVE, *_START):  # (as its buttons)
        return _typed_button(ctx, chat, player, user, words[0], live)
    if live is not None:
        if words:
            raise Refusal(tr(ctx.lang, "tn.busy"), alert=False)
        opening.show(ctx, chat, live, fresh=True)
        return Outcome(None)
    opening.may_organise(ctx, chat, user)
    if not words:
        return opening.ask_game(ctx, chat)
    return opening.create_typed(ctx, chat, player, args)


def _typed_button(ctx: Ctx, chat: Chat, player: Player, user: UserRef, word: str,
                  live: Tournament | None) -> Outcome:
    """``/turnier mitmachen|aussteigen|start``: what its buttons do, typed (Matrix)."""
    tournament = _locked(ctx, live)
    if tournament is None:
        raise Refusal(tr(ctx.lang, "tn.none"), alert=False)
    if word in _JOIN:
        return taking_part.join(ctx, chat, player, tournament)
    if word in _LEAVE:
        return taking_part.leave(ctx, chat, player, tournament)
    return opening.start(ctx, chat, player, user, tournament)


def _locked(ctx: Ctx, tournament: Tournament | None) -> Tournament | None:
    """The tournament locked as every change takes it (its round's game tables first)."""
    if tournament is None:
        return None
    return entries.lock_round(ctx.session, tournament.id)  # type: ignore[arg-type]


def press(ctx: Ctx, chat: Chat, player: Player, user: UserRef, code: str) -> Outcome:
    """A tournament's button: the dialogue (``tn.g|r|c``), join, leave, start (``tn.j|l|s``),
    take out (``tn.k``)."""
    parts = code.split(".")
    if len(parts) < 3 or chat.kind != "group":
        raise Refusal(tr(ctx.lang, "unknown_button"))
    kind = parts[1]
    if kind in ("g", "r", "c"):
        return opening.dialogue(ctx, chat, player, user, parts)
    if not _number(parts[2]):
        raise Refusal(tr(ctx.lang, "unknown_button"))
    tournament = entries.lock_round(ctx.session, int(parts[2]))
    if tournament is None or tournament.chat_id != chat.id:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    if tournament.state not in entries.LIVE:
        raise Refusal(tr(ctx.lang, "tn.gone"))
    if kind == "j" and len(parts) == 3:
        return taking_part.join(ctx, chat, player, tournament)
    if kind == "l" and len(parts) == 3:
        return taking_part.leave(ctx, chat, player, tournament)
    if kind == "s" and len(parts) == 3:
        return opening.start(ctx, chat, player, user, tournament)
    if kind == "k" and len(parts) == 4 and _number(parts[3]):
        return taking_part.remove(ctx, chat, user, tournament, int(parts[3]))
    raise Refusal(tr(ctx.lang, "unknown_button"))


def _number(word: str) -> bool:
    return word.isascii() and word.isdigit() and len(word) <= _ID_DIGITS
