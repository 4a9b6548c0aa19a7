"""What happens at a table, told to whoever listens: the core publishes these domain events
inside the input's transaction (``Ctx.publish``), and the features subscribe to them (the
evening's Deckel hears of every game finished in its group, a pause ends when the game
moves on, …) — the way lichess's round publishes "game finished" and its Swiss tournaments
listen. The core never calls a feature.

A subscriber runs synchronously in the same transaction as the change it hears of: what it
writes commits with it or not at all, and an exception rolls the whole input back (so a
subscriber refuses nothing; it only adds to what happened).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from storage.models import Chat, GameTable, Player, Seat

if TYPE_CHECKING:
    from .transaction import Ctx


@dataclass(frozen=True)
class GameFinished:
    """A game reached its end (its ``result`` row is queued in the same transaction):
    each seat's final standing, the winners' seat numbers."""

    table: GameTable
    seats: list[Seat]
    winners: list[int]
    standings: list[dict[str, Any]]


@dataclass(frozen=True)
class RoundEnded:
    """A round (a hand) ended; its result was announced. ``finished``: the game with it."""

    table: GameTable
    seats: list[Seat]
    finished: bool


@dataclass(frozen=True)
class TableMoved:
    """The game at a table moved on (a move, a deal, a CPU's turn): its clock starts anew."""

    table: GameTable
    seats: list[Seat]


@dataclass(frozen=True)
class TableClosed:
    """A table ended for good without finishing its game: ``stopped`` (a person or an
    administrator), ``expired`` (a lobby nobody started), ``abandoned`` (its topic gone)."""

    table: GameTable
    reason: str


@dataclass(frozen=True)
class PersonSeen:
    """A person wrote in a group (once a day at most per group and person)."""

    chat: Chat
    person: Player


Event = GameFinished | RoundEnded | TableMoved | TableClosed | PersonSeen
E = TypeVar("E", GameFinished, RoundEnded, TableMoved, TableClosed, PersonSeen)
Subscriber = Callable[["Ctx", Any], None]


class Bus:
    """Who listens to which event, in the order they subscribed."""

    def __init__(self) -> None:
        self._subscribers: dict[type, list[Subscriber]] = {}

    def subscribe(self, kind: type[E], subscriber: Callable[[Ctx, E], None]) -> None:
        self._subscribers.setdefault(kind, []).append(subscriber)

    def publish(self, ctx: Ctx, event: Event) -> None:
        for subscriber in self._subscribers.get(type(event), ()):
            subscriber(ctx, event)

    def listens(self, kind: type) -> bool:
        """Whether anybody listens to ``kind`` (a publisher may skip building the event)."""
        return bool(self._subscribers.get(kind))
