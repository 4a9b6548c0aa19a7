"""A person's own cards and moves as inline results only they see (Telegram's
``is_personal``): the query ``#<table> [words]`` — typed by the table message's "🎴 My cards
and moves" button — answers with their hand and, on their turn, one result per legal move
(filtered by the words, 50 a page). Choosing a move posts a line that names no card (a
climbing exchange is hidden) and plays it like a press of its button: checked against the
table's version (``m.<table>.<version>.<code>``), the seat on turn, once.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from engine import GAMES
from engine.cards import show
from storage.models import GameTable, Player, Seat

from ...i18n import tr
from ...presenters import presenter
from ...presenters.climbing_keys import card_text, cards_text, kind_name
from ..core import records
from .offers import InlineAnswer, InlineResult

MARK = "#"  # a query about one table: ``#<table id>`` and words to filter the moves by
HAND, MOVE = "h", "m"  # result ids: ``h.<table>.<version>``, ``m.<table>.<version>.<code>``
PAGE = 50  # results per page (Telegram's most)
CACHE_SECONDS = 2  # a hand changes with every move: Telegram may keep it only briefly
MAX_ID = 64  # bytes of a result's id


def table_query(table_id: int) -> str:
    """What the "my cards and moves" button types after the bot's name."""
    return f"{MARK}{table_id} "


def asked_table(query: str) -> tuple[int | None, str]:
    """The table a query asks about (``#12 words``) and the words after it."""
    head, _, rest = query.strip().partition(" ")
    if head.startswith(MARK) and head[1:].isascii() and head[1:].isdigit() \
            and len(head) < 12:
        return int(head[1:]), rest.strip()
    return None, query.strip()


def labels(table: GameTable, state: Any, seat: int, lang: str) -> list[tuple[str, str]]:
    """(label, action code) of every legal move of the seat on turn, as its buttons name
    them (Run Fast and climbing: every play with its cards spelled out)."""
    game = GAMES[table.game]
    if state is None or game.to_act(state) != seat:
        return []
    p = presenter(table.game)
    shown = {code: label for row in p.action_buttons(state, seat, lang) for label, code in row}
    out = []
    for action in game.legal_actions(state):
        label = shown.get(action.code) or _spelled(table.game, action, lang)
        out.append((label, action.code))
    return out


def _spelled(game_id: str, action: Any, lang: str) -> str:
    """A move its game's keyboard shows only page by page or card by card."""
    if action.code == "pass":
        return tr(lang, "rf.pass" if game_id == "runfast" else "cl.pass")
    if game_id == "runfast":
        return show(action.cards)
    if game_id == "climbing":
        if action.kind == "give":
            return tr(lang, "cl.give", card=card_text(action.cards[0], lang, True))
        return f"{kind_name(action.kind, lang)}: {cards_text(action.cards, lang, True)}"
    return str(action.code)


def personal(session: Session, player: Player | None, table_id: int, words: str,
             offset: str, lang: str) -> InlineAnswer:
    """The person's hand and moves at a table (not seated there: one line that says so)."""
    table = records.get_table(session, table_id)
    seats = records.seats(session, table) if table is not None else []
    seat = records.seat_of(seats, player) if player is not None and player.id else None
    if table is None or seat is None or table.is_private:
        return InlineAnswer([_note(lang, "il.not_yours", "il.not_seated_hint")],
                            personal=True, cache_time=CACHE_SECONDS)
    items = _items(table, seats, seat, player, lang)  # type: ignore[arg-type]
    typed = words.lower().split()
    items = items[:1] + [m for m in items[1:] if all(t in m.title.lower() for t in typed)]
    start = int(offset) if offset.isascii() and offset.isdigit() and len(offset) < 6 else 0
    end = start + PAGE
    return InlineAnswer(items[start:end], str(end) if end < len(items) else "",
                        personal=True, cache_time=CACHE_SECONDS,
                        app_page=table.token or None)


def _items(table: GameTable, seats: list[Seat], seat: Seat, player: Player,
           lang: str) -> list[InlineResult]:
    """The hand (first) and one result per move."""
    model = records.model(table, seats)
    state = model.engine_state
    p = presenter(table.game)
    game_name = p.name(lang)
    lines = p.private_lines(state, seat.seat_no, lang) if state is not None else []
    moves = labels(table, state, seat.seat_no, lang)
    on_turn = GAMES[table.game].to_act(state) if state is not None else None
    if moves:
        title = tr(lang, "il.your_turn", game=game_name)
    elif on_turn is not None and 0 <= on_turn < len(seats):
        title = tr(lang, "il.waiting", game=game_name, name=seats[on_turn].name)
    else:
        title = tr(lang, "il.hand", game=game_name)
    hand = "\n".join(lines) or tr(lang, "il.no_hand", game=game_name)
    out = [InlineResult(f"{HAND}.{table.id}.{table.version}", title, hand,
                        tr(lang, "il.looked", name=player.name))]
    for label, code in moves:
        result_id = f"{MOVE}.{table.id}.{table.version}.{code}"
        if len(result_id.encode()) <= MAX_ID:
            out.append(InlineResult(result_id, label, hand.splitlines()[0],
                                    tr(lang, "il.played", name=player.name)))
    return out


def _note(lang: str, title: str, description: str) -> InlineResult:
    return InlineResult(HAND, tr(lang, title), tr(lang, description),
                        tr(lang, "il.not_yours"))


def chosen_move(result_id: str) -> tuple[int, int, str] | None:
    """(table, version, code) of a chosen move result; ``None`` for any other result."""
    parts = result_id.split(".", 3)
    if len(parts) != 4 or parts[0] != MOVE or not all(
            x.isascii() and x.isdigit() and len(x) <= 10 for x in parts[1:3]):
        return None
    return int(parts[1]), int(parts[2]), parts[3]
