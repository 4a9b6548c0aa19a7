"""A table's game again, move by move: the seed and the move log re-applied from ``new_game``.

``replay`` yields every round (a Run Fast hand) as its steps: the state as dealt, then the state
after each move with the move's code, seat and public events. A round has ended when its last
state is between rounds or the game is over (``PAYOUT``/``FINISHED``); a round still being
played, or cut short (a table stopped, a game resigned), has not. All hands of every state are
in the steps: only a round that has ended may be shown to anybody (the caller's rule). Pure: no
I/O, the same log gives the same states, and the last state is the table's stored one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from . import GAMES
from .cards import Card
from .protocol import FINISHED, PAYOUT, Event

DEAL = "deal"  # the move-log code of a new round (the service's "system" move)


@dataclass(frozen=True)
class Step:
    """One state of a round: as dealt (``code`` ``None``), or after a seat's move."""

    state: Any
    code: str | None = None
    seat: int | None = None
    events: tuple[Event, ...] = ()


@dataclass(frozen=True)
class Round:
    """One round (a Run Fast hand): its number (1, 2, …) and its states in order."""

    number: int
    steps: tuple[Step, ...]

    @property
    def ended(self) -> bool:
        """Whether the round was played to its end (only then may its hands be shown)."""
        return phase_of(self.steps[-1].state) in (PAYOUT, FINISHED)

    @property
    def moves(self) -> int:
        return len(self.steps) - 1


def phase_of(state: Any) -> str:
    return str(state.phase)


def replay(game_id: str, seats: int, options: Mapping[str, Any] | None, seed: int,
           codes: Iterable[str], until: int | None = None) -> list[Round]:
    """The rounds of a game dealt with ``seed`` and played as ``codes`` (the move log in
    order, ``"deal"`` for each new round); ``until``: stop after that round. Raises the
    engine's ``IllegalAction`` for a log that does not fit the seed."""
    game = GAMES[game_id]
    state = game.new_game(seats, dict(options or {}), seed)
    rounds: list[Round] = []
    steps: list[Step] = [Step(state)]
    for code in codes:
        if code == DEAL:
            rounds.append(Round(len(rounds) + 1, tuple(steps)))
            if until is not None and len(rounds) >= until:
                return rounds
            state, events = game.apply(state, DEAL)
            steps = [Step(state, None, None, tuple(events))]
            continue
        seat = game.to_act(state)
        state, events = game.apply(state, code)
        steps.append(Step(state, code, seat, tuple(events)))
    rounds.append(Round(len(rounds) + 1, tuple(steps)))
    return rounds


def final_state(rounds: list[Round]) -> Any:
    """The state the whole log leads to (the table's stored state)."""
    return rounds[-1].steps[-1].state


def hands(game_id: str, state: Any) -> list[tuple[Card, ...]]:
    """Every seat's hand in a state (open: for a round that has ended)."""
    if game_id == "runfast":
        return [state.hand_cards(s) for s in range(state.seats)]
    if game_id == "climbing":
        return [tuple(h) for h in state.hands]
    return [_sorted(h) for h in state.hands]


def middle(game_id: str, state: Any) -> tuple[Card, ...]:
    """The open cards in the middle: Schwimmen's three, Scat's discard top, the play on the
    table in Run Fast and the climbing game (none when the next player leads)."""
    if game_id == "schwimmen":
        return tuple(state.middle)
    if game_id == "scat":
        return tuple(state.discard[-1:])
    if game_id == "runfast":
        current = state.current if phase_of(state) not in (PAYOUT, FINISHED) else None
        return tuple(current.cards) if current is not None else ()
    table = state.table if phase_of(state) not in (PAYOUT, FINISHED) else None
    return tuple(table.cards) if table is not None else ()


def _sorted(hand: Iterable[Card]) -> tuple[Card, ...]:
    return tuple(sorted(hand, key=lambda c: (c.suit, -c.rank)))
