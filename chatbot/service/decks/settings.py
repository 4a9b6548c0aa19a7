"""``/karten`` (``/cards``): how a person's cards look — the deck's colours (classic, the German
tournament's four colours, the poker four-colour deck) and large cards in the Mini App — by
buttons or typed (``/karten turnier``, ``/karten poker``, ``/karten normal``, ``/karten groß``,
``/karten klein``); the Mini App changes the same two settings (``DeckService``). The chat's
texts show a four-colour deck as a colour square beside each suit (``presenters.cards``)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import col, select

import fsm
from storage.models import Chat, GameTable, Player, Seat

from ... import buttons
from ...i18n import N_, register, tr
from ...presenters.cards import CLASSIC, DECKS, POKER, TOURNAMENT, deck_of, styled
from ..core import outgoing, records
from ..core.api import ChatRef, Outcome, Refusal, UserRef
from ..core.transaction import Ctx, Transactions

register({
    "deck.title": N_(
        "🃏 Your cards\nColours: {deck}\nLarge cards in the Mini App: {large}\n"
        "Example: {example}\n"
        "A four-colour deck tells every suit by its colour: in chat each card gets a coloured "
        "square after it, in the Mini App the suits are coloured."),
    "deck.classic": N_("Classic: ♠ ♣ black, ♥ ♦ red"),
    "deck.tournament": N_("Tournament colours: ♠ green, ♦ yellow"),
    "deck.poker": N_("Poker four colours: ♣ green, ♦ blue"),
    "deck.large_on": N_("on"),
    "deck.large_off": N_("off"),
    "deck.large_button": N_("Large cards: {large}"),
    "deck.saved": N_("Saved."),
    "deck.bad": N_("I don't know “{word}”. Try: /cards classic · /cards tournament · "
                   "/cards poker · /cards large · /cards small"),
})
# the words typed after /karten (German and English) → (deck, large cards)
WORDS: dict[str, tuple[str | None, bool | None]] = {
    **{w: (CLASSIC, None) for w in ("normal", "klassisch", "classic", "standard", "zwei")},
    **{w: (TOURNAMENT, None) for w in ("turnier", "tournament", "deutsch", "german", "vier",
                                       "vierfarbig", "four")},
    **{w: (POKER, None) for w in ("poker",)},
    **{w: (None, True) for w in ("groß", "gross", "large", "big")},
    **{w: (None, False) for w in ("klein", "small", "normalgroß")},
}
EXAMPLE = "A♠ 10♥ Q♦ 7♣"


@dataclass(frozen=True)
class CardSettings:
    """A person's cards: the deck's colours (``presenters.cards.DECKS``) and large cards."""

    deck: str = CLASSIC
    large: bool = False


def settings_of(player: Player | None) -> CardSettings:
    if player is None:
        return CardSettings()
    return CardSettings(deck_of(player.deck), bool(player.large_cards))


def command(ctx: Ctx, chat: Chat, player: Player, user: UserRef, args: str) -> Outcome:
    """``/karten``: the person's settings as buttons that change them; ``/karten <word>``
    changes one at once (then the settings as they are now)."""
    words = args.strip().casefold().split()
    if words:
        for word in words:
            if word not in WORDS:
                raise Refusal(tr(ctx.lang, "deck.bad", word=word[:30]), alert=False)
        for word in words:
            _apply(player, *WORDS[word])
        redraw(ctx, player)
        _show(ctx, chat, player, fresh=True)
        return Outcome(tr(ctx.lang, "deck.saved"))
    _show(ctx, chat, player, fresh=True)
    return Outcome(None)


def redraw(ctx: Ctx, player: Player) -> None:
    """The person's running tables drawn anew in their private chat, in the deck they chose
    (each table locked as a move locks it: the view is drawn from its newest state)."""
    ids = ctx.session.exec(select(GameTable.id).join(Seat, col(Seat.table_id) == GameTable.id)
                           .where(Seat.player_id == player.id,
                                  col(GameTable.fsm_state).in_(fsm.PLAYING))).all()
    for table_id in sorted(set(ids)):
        table, seats = records.lock_table_seats(ctx.session, table_id)
        if table is not None and table.fsm_state in fsm.PLAYING:
            outgoing.emit(ctx, table, seats, records.model(table, seats), repost=False,
                          group=False)


def _apply(player: Player, deck: str | None, large: bool | None) -> None:
    if deck is not None:
        player.deck = deck
    if large is not None:
        player.large_cards = large


def _show(ctx: Ctx, chat: Chat, player: Player, fresh: bool) -> None:
    now = settings_of(player)
    onoff = tr(ctx.lang, "deck.large_on" if now.large else "deck.large_off")
    text = tr(ctx.lang, "deck.title", deck=tr(ctx.lang, f"deck.{now.deck}"), large=onoff,
              example=styled(EXAMPLE, now.deck))
    mark = "✅ "
    rows = [[(("" if now.deck != d else mark) + tr(ctx.lang, f"deck.{d}"),
              buttons.encode(0, 0, f"deck.{d}"))] for d in DECKS]
    rows.append([(tr(ctx.lang, "deck.large_button", large=onoff),
                  buttons.encode(0, 0, "deck.large"))])
    outgoing.say(ctx, chat, text, rows, slot="cards", fresh=fresh)


def press(ctx: Ctx, chat: Chat, player: Player, user: UserRef, code: str) -> Outcome:
    """A button under ``/karten``: ``deck.<classic|tournament|poker>`` or ``deck.large``
    (large cards on and off)."""
    if chat.kind != "private":
        raise Refusal(tr(ctx.lang, "deck.private_only"), alert=False)
    what = code.partition(".")[2]
    if what in DECKS:
        player.deck = what
        redraw(ctx, player)
    elif what == "large":
        player.large_cards = not player.large_cards
    else:
        raise Refusal(tr(ctx.lang, "unknown_button"))
    _show(ctx, chat, player, fresh=False)
    return Outcome(tr(ctx.lang, "deck.saved"))


class DeckService:
    """The ``Service``'s entries for a person's cards (the Mini App reads and changes them;
    it sets ``tx`` and runs inputs)."""

    tx: Transactions

    def card_settings(self, platform: str, user_id: str) -> CardSettings:
        """A person's cards as they chose them (the classic deck for anybody not met yet)."""
        with self.tx.read() as session:
            return settings_of(records.find_player(session, platform, user_id))

    def set_card_settings(self, chat_ref: ChatRef, user: UserRef, deck: str | None,
                          large: bool | None, update_key: str | None = None) -> CardSettings:
        """Change a person's deck (one of ``DECKS``, ``None``: as it is) and large cards
        (``None``: as they are), as an input of their private chat (``update_key``: once)."""
        if deck is not None and deck not in DECKS:
            raise ValueError(f"deck: one of {DECKS}")
        got: list[CardSettings] = []

        def work(ctx: Ctx, chat: Chat, player: Player) -> Outcome:
            before = player.deck
            _apply(player, deck, large)
            if player.deck != before:
                redraw(ctx, player)
            got.append(settings_of(player))
            return Outcome(None)

        self._run(chat_ref, user, update_key, work, Outcome(None))  # type: ignore[attr-defined]
        return got[0] if got else self.card_settings(chat_ref.platform, user.external_id)
