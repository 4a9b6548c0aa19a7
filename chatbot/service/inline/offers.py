"""What an inline query offers before a table exists: the four games (and, where a game
allows several sizes, an open table and a duel), filtered by what the person typed, each as
the invitation it posts into the chat with its "Join" button.

The invitation's button carries no table (``v1:0:0:inv.<game>.<seats>``: the table is made
when the posted message is known — ``invitation.sit_down``); ``<seats>`` is 0 for an open
table its opener starts, else the number of people at which it starts by itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine import GAMES

from ... import buttons
from ...i18n import LANGUAGES, tr
from ...presenters import presenter
from . import texts  # noqa: F401  (registers the room's texts)

HEAD = "inv"  # the invitation's button (a menu button: no table yet)
OFFER = "g"  # an offer's result id: ``g.<game>.<seats>``
GAME_ORDER = ("schwimmen", "scat", "runfast", "climbing")

Rows = list[list[tuple[str, str]]]


@dataclass(frozen=True)
class InlineResult:
    """One result of an inline query: what the list shows and the message it posts."""

    id: str  # at most 64 bytes
    title: str
    description: str
    text: str  # the message posted into the chat when it is chosen
    rows: Rows = field(default_factory=list)  # that message's buttons


@dataclass(frozen=True)
class InlineAnswer:
    """The answer to an inline query: a page of results and where the next page starts."""

    results: list[InlineResult]
    next_offset: str = ""  # "" : no more
    personal: bool = False  # the results are for this person only (their hand, their moves)
    cache_time: int = 0  # seconds Telegram may answer the same query from its cache
    app_page: str | None = None  # a Mini App page the list's button opens (a table's token)
    app_text: str | None = None  # that button's text


@dataclass(frozen=True)
class Offer:
    """A game offered for an invitation: the game and the seats at which it starts."""

    game: str
    seats: int  # 0: open, the opener starts

    @property
    def result_id(self) -> str:
        return f"{OFFER}.{self.game}.{self.seats}"

    @property
    def code(self) -> str:
        return f"{HEAD}.{self.game}.{self.seats}"


def all_offers() -> list[Offer]:
    """Every game, with its sizes: a game of fixed size starts when full; one with a range
    is offered open and, where two may play, as a duel."""
    out = []
    for game_id in GAME_ORDER:
        game = GAMES[game_id]
        if game.MIN_SEATS == game.MAX_SEATS:
            out.append(Offer(game_id, game.MAX_SEATS))
            continue
        out.append(Offer(game_id, 0))
        if game.MIN_SEATS == 2:
            out.append(Offer(game_id, 2))
    return out


def parse(code: str) -> Offer | None:
    """The offer an invitation's code (``inv.<game>.<seats>``) or result id
    (``g.<game>.<seats>``) names; ``None`` for anything else."""
    parts = code.split(".")
    if len(parts) != 3 or parts[0] not in (HEAD, OFFER) or not parts[2].isdigit():
        return None
    offer = Offer(parts[1], int(parts[2]))
    return offer if offer in all_offers() else None


def what(offer: Offer, lang: str) -> str:
    """The offer's size as people read it."""
    game = GAMES[offer.game]
    if offer.seats == 0:
        count = f"{game.MIN_SEATS}–{game.MAX_SEATS}"
        return tr(lang, "il.open", count=count)
    if offer.seats == 2:
        return tr(lang, "il.duel")
    return tr(lang, "il.full", n=offer.seats)


def invitation(offer: Offer, lang: str, name: str) -> InlineResult:
    """The offer as a result: its title and size, and the invitation it posts."""
    game_name = presenter(offer.game).name(lang)
    size = what(offer, lang)
    return InlineResult(
        offer.result_id, game_name, size,
        tr(lang, "il.invite", game=game_name, name=name, what=size),
        [[(tr(lang, "il.join"), buttons.encode(0, 0, offer.code))]])


def _words(offer: Offer) -> str:
    """Every word an offer is found by: its game's names and sizes in every language."""
    return " ".join(f"{offer.game} {presenter(offer.game).name(lang)} {what(offer, lang)}"
                    for lang in LANGUAGES).lower()


def matching(query: str, lang: str, name: str) -> list[InlineResult]:
    """The offers whose words hold every word typed (none typed: all of them)."""
    typed = query.lower().split()
    return [invitation(o, lang, name) for o in all_offers()
            if all(t in _words(o) for t in typed)]
