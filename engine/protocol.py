"""The game protocol every game module follows (docs/architecture.md, docs/rules.md §3).

A game module offers ``new_game``, ``to_act``, ``phase``, ``legal_actions``, ``apply``,
``observation``, ``parse_action``, ``to_json``/``from_json`` and ``is_over``. States are values;
actions are small frozen values with a stable text ``code``; events are public records of what a
move did. Nothing here does I/O or reads a clock; all randomness comes from the seed.
``state_to_json``/``state_from_json`` are the JSON envelope a game's ``to_json``/``from_json``
may use: the game id first, every fault on reading a ``GameError``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, NamedTuple, Protocol, TypeVar

# Lifecycle phases an engine reports through ``phase(state)``.
DEALING = "dealing"
EXCHANGE = "exchange"
TURN = "turn"
FINAL_ROUND = "final_round"
SHOWDOWN = "showdown"
PAYOUT = "payout"
FINISHED = "finished"
PHASES = (DEALING, EXCHANGE, TURN, FINAL_ROUND, SHOWDOWN, PAYOUT, FINISHED)


_EMPTY: Mapping[str, Any] = MappingProxyType({})


class IllegalAction(ValueError):
    """An action that is not legal in this state; the message says why."""


class GameError(ValueError):
    """Bad arguments to a game function (seat count, options, JSON)."""


@dataclass(frozen=True, slots=True)
class Action:
    """A move. ``code`` is short, stable and travels in button data; ``kind`` names the move."""

    code: str
    kind: str

    def __str__(self) -> str:
        return self.code


class Event(NamedTuple):
    """A public record of something that happened; ``data`` holds JSON-friendly values."""

    kind: str
    seat: int | None = None
    data: Mapping[str, Any] = _EMPTY

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "seat": self.seat, "data": dict(self.data)}

    @staticmethod
    def from_dict(raw: Mapping[str, Any]) -> Event:
        return Event(raw["kind"], raw.get("seat"), dict(raw.get("data") or {}))


_State = TypeVar("_State")


def state_to_json(game_id: str, fields: Mapping[str, Any]) -> str:
    """A state's fields as compact JSON, headed by ``"game": game_id``."""
    return json.dumps({"game": game_id, **fields}, separators=(",", ":"), ensure_ascii=False)


def state_from_json(text: str, game_id: str, game_name: str,
                    build: Callable[[dict[str, Any]], _State]) -> _State:
    """The state ``build`` makes of the fields of ``state_to_json`` output for ``game_id``.
    Any other text, or fields that do not fit, raise ``GameError`` (naming ``game_name``)."""
    try:
        fields = json.loads(text)
        if fields.get("game") != game_id:
            raise GameError(f"not a {game_name} state")
        return build(fields)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        if isinstance(exc, GameError):
            raise
        raise GameError(f"bad {game_name} state JSON: {exc}") from exc


class GameModule(Protocol):
    """What ``engine.GAMES`` maps each game id to."""

    GAME_ID: str
    MIN_SEATS: int
    MAX_SEATS: int

    def new_game(self, seats: int, options: Mapping[str, Any] | None = None,
                 seed: int | None = None) -> Any: ...
    def to_act(self, state: Any) -> int | None: ...
    def phase(self, state: Any) -> str: ...
    def legal_actions(self, state: Any) -> Sequence[Action]: ...
    def apply(self, state: Any, action: Action | str) -> tuple[Any, list[Event]]: ...
    def observation(self, state: Any, seat: int) -> Any: ...
    def parse_action(self, code: str) -> Action: ...
    def to_json(self, state: Any) -> str: ...
    def from_json(self, text: str) -> Any: ...
    def is_over(self, state: Any) -> bool: ...
