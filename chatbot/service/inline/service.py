"""What the inline room adds to the assembled ``Service``: answering an inline query
(``inline_query``), a chosen inline result (``inline_chosen``) and the invitation the Mini
App shares (``invitation_for``)."""

from __future__ import annotations

import fsm
from storage.models import Chat, GameTable, Player

from ... import buttons
from ...i18n import pick_language, tr
from ..core import outgoing, records
from ..core.api import ChatRef, Outcome, Settings, UserRef
from ..core.transaction import Ctx, Transactions
from . import duel, hands, invitation, offers
from .duel import DuelPlan
from .offers import InlineAnswer, InlineResult

PLATFORM_PREFIX = "inline:"  # an inline message's chat: ``inline:<inline_message_id>``


def inline_chat(platform: str, inline_message_id: str) -> ChatRef:
    """The chat an inline message is to the service."""
    return ChatRef(platform, PLATFORM_PREFIX + inline_message_id, outgoing.ONE_MESSAGE)


def table_rows(ctx: Ctx, chat: Chat, table: GameTable, lang: str) -> list[list[tuple[str, str]]]:
    """The hook ``table.rows``: in an inline message while the game runs, the button that
    shows a person their cards and moves (an inline query only they see the answer to)."""
    if chat.kind != outgoing.ONE_MESSAGE or table.fsm_state not in fsm.PLAYING:
        return []
    return [[(tr(lang, "il.moves"), buttons.inline_query(hands.table_query(table.id)))]]  # type: ignore[arg-type]


def help_lines(ctx: Ctx, chat: Chat) -> list[str]:
    """The hook ``help.lines``: where inline mode is known (Telegram's ``getMe``), how to play
    in any chat; where it is off, in a private chat, how its operator turns it on (people in
    a group cannot, and need not read it)."""
    settings = ctx.settings
    if settings.inline_mode and settings.bot_name:
        return [tr(ctx.lang, "il.help", bot=f"@{settings.bot_name}")]
    if settings.inline_mode is False and chat.kind == "private":
        return [tr(ctx.lang, "il.off")]
    return []


class InlineService:
    """Mixed into the assembled ``Service`` (which sets what is declared here and has the
    core's ``_run`` and ``press``)."""

    tx: Transactions
    settings: Settings

    def inline_query(self, platform: str, user: UserRef, query: str,
                     offset: str = "") -> InlineAnswer:
        """What ``@bot <query>`` offers the person: ``#<table> …`` their cards and moves at
        that table; anything else the games to invite to (filtered by the words)."""
        lang = pick_language(None, user.language, self.settings.default_language)
        table_id, words = hands.asked_table(query[:256])
        if table_id is not None:
            with self.tx.read() as session:
                player = records.find_player(session, platform, user.external_id)
                if player is not None:
                    lang = pick_language(None, user.language or player.language,
                                         self.settings.default_language)
                return hands.personal(session, player, table_id, words, offset, lang)
        if offset:  # (the games fit on one page)
            return InlineAnswer([], cache_time=60)
        found = offers.matching(words, lang, user.name)
        if not found:
            found = [InlineResult(hands.HAND, tr(lang, "il.no_game", query=words[:40]),
                                  tr(lang, "il.no_game_hint"), tr(lang, "il.no_game_hint"))]
        return InlineAnswer(found, personal=False, cache_time=60)

    def invitations(self, platform: str, user: UserRef,
                    game: str) -> list[tuple[int, InlineResult]]:
        """The invitations to ``game`` the Mini App offers to share (as ``@bot`` offers
        them): (seats, the invitation), in the person's language."""
        lang = pick_language(None, user.language, self.settings.default_language)
        return [(o.seats, offers.invitation(o, lang, user.name)) for o in offers.all_offers()
                if o.game == game]

    def invitation_for(self, platform: str, user: UserRef, game: str,
                       seats: int | None = None) -> InlineResult | None:
        """The invitation to ``game`` (at ``seats``; 0: open; ``None``: the game's first
        offer) as the Mini App shares it (a prepared inline message); ``None`` for a game or
        size not offered."""
        found = self.invitations(platform, user, game)
        return next((r for s, r in found if seats is None or s == seats), None)

    def duel_plan(self, platform: str, user: UserRef, words: str,
                  names: list[str]) -> DuelPlan:
        """What ``!duell`` with the people ``names`` and ``words`` asks for (Matrix): the
        game and the new room's name, or why not (no database is read)."""
        return duel.plan(self.settings, platform, user, words, names)

    def open_duel(self, room: ChatRef, user: UserRef, game: str, invited: int,
                  update_key: str | None = None) -> Outcome:
        """The table of a room the adapter opened for one game (``duel``): the opener
        seated, started by itself once the ``invited`` have joined; left when it is over."""
        def work(ctx: Ctx, chat: Chat, player: Player) -> Outcome:
            return duel.open_table(ctx, chat, player, game, invited)
        return self._run(room, user, update_key, work, Outcome(None), "command")  # type: ignore[attr-defined,no-any-return]

    def inline_chosen(self, platform: str, user: UserRef, result_id: str,
                      inline_message_id: str | None, update_key: str | None) -> Outcome:
        """A result the person chose (Telegram's ``chosen_inline_result``, with inline
        feedback on): an invitation makes its message's table with them seated (once); a
        move is played like a press of its button (its version checked, the seat on turn,
        once per update); anything else changes nothing."""
        offer = offers.parse(result_id)
        if offer is not None:
            if not inline_message_id:
                return Outcome(None, ok=False)  # (no keyboard: no message to play in)

            def work(ctx: Ctx, chat: Chat, player: Player) -> Outcome:
                return invitation.sit_down(ctx, chat, player, user, offer, quiet=True)
            return self._run(inline_chat(platform, inline_message_id), user,  # type: ignore[attr-defined,no-any-return]
                             update_key, work, Outcome(None), "press")
        move = hands.chosen_move(result_id)
        if move is None:
            return Outcome(None)
        table_id, version, code = move
        with self.tx.read() as session:
            table = records.get_table(session, table_id)
            chat = records.get_chat(session, table.chat_id) if table is not None else None
            if chat is None:
                return Outcome(None, ok=False)
            where = ChatRef(platform, chat.external_id, chat.kind, chat.title)
        try:
            press = buttons.Press(table_id, version, code)
            buttons.decode(buttons.encode(table_id, version, code))  # (checked as a button)
        except (ValueError, buttons.BadButton):
            return Outcome(None, ok=False)
        return self.press(where, user, press, update_key)  # type: ignore[attr-defined,no-any-return]
