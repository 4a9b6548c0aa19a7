"""A deal that ends at once: the one helper of every test that needs somebody on turn.

A Schwimmen or Scat round ends on the deal when a 31 is dealt (some two or three tables in a
hundred), and a private round can end before the person's first turn when a CPU gets there
first. A test that wants a turn must then deal on: a person presses "next" (a private table
waits for it), or the clock deals the next round (a group table, after its short delay).

``until_a_turn`` (or ``deals`` for asynchronous tests) is that loop, with one bound and one
message for the whole suite; each directory passes how it looks for a turn and how it deals
on (a service call, a deadline fired on a simulated clock, a press through the fake Bot API,
a tap on the page). The service-level adapters, for tests that hold a ``Service``, are here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sized
from typing import Any, TypeVar

from chatbot.buttons import encode
from chatbot.service import ChatRef, Service, UserRef
from engine import GAMES

T = TypeVar("T")

ROUNDS = 10
"""Deals tried before a test gives up: ten rounds that all end before a turn do not happen
(0.03**10 for a 31 on the deal), a loop that never deals on shows at once."""


def deals(rounds: int = ROUNDS) -> Iterator[int]:
    """The tries of a deal-on loop: ``for _ in deals(): if turn: return …; deal on``. Raises
    AssertionError once ``rounds`` deals gave nobody a turn."""
    yield from range(rounds)
    raise AssertionError(f"nobody on turn after {rounds} deals (each ended at once?)")


def until_a_turn(turn: Callable[[], T | None], deal_on: Callable[[], object],
                 rounds: int = ROUNDS) -> T:
    """``turn()`` until it finds a turn (anything but ``None``, ``False`` or empty: a seat 0
    counts), dealing on with ``deal_on()`` after each round that gave none."""
    for _ in deals(rounds):
        found = turn()
        if _found(found):
            return found  # type: ignore[return-value]
        deal_on()
    raise AssertionError("unreachable")  # (deals raises first)


def _found(turn: object) -> bool:
    if turn is None or turn is False:
        return False
    return len(turn) > 0 if isinstance(turn, Sized) else True


# ------------------------------------------------------------ tests that hold a Service


def game_state(service: Service, table_id: int) -> tuple[Any, Any]:
    """The table's game module and its stored state."""
    table = service.table(table_id)
    assert table is not None and table.state_json, f"table {table_id} has no game"
    game = GAMES[table.game]
    return game, game.from_json(table.state_json)


def seat_on_turn(service: Service, table_id: int) -> int | None:
    """The seat on turn, ``None`` while a round is over (or the game)."""
    game, state = game_state(service, table_id)
    return game.to_act(state)


def press_next(service: Service, chat: ChatRef, user: UserRef, table_id: int) -> None:
    """A seated person's "next" button: the next round is dealt."""
    table = service.table(table_id)
    assert table is not None and table.version is not None
    out = service.press(chat, user, encode(table_id, table.version, "next"),
                        f"next-{table_id}-{table.version}")
    assert out.ok, out.text


def to_a_turn(service: Service, chat: ChatRef, user: UserRef, table_id: int
              ) -> tuple[Any, Any, int]:
    """On to somebody's turn, ``user`` (seated; in ``chat``, where the table's buttons are)
    pressing "next" after a round that ended at once: (game module, state, seat on turn)."""
    until_a_turn(lambda: seat_on_turn(service, table_id) is not None,
                 lambda: press_next(service, chat, user, table_id))
    game, state = game_state(service, table_id)
    return game, state, game.to_act(state)
