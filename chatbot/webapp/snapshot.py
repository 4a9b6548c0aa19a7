"""What one seat may see of a table, as JSON for the page: the engine's own observation for
that seat (never another seat's hand), cards as their codes."""

from __future__ import annotations

import dataclasses
from typing import Any

from engine import GAMES
from engine.cards import Card

_SKIP = {"legal", "history"}  # (the page asks the server about a selection instead)


def _json(value: Any) -> Any:
    if isinstance(value, Card):
        return value.code
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _json(getattr(value, f.name)) for f in dataclasses.fields(value)
                if f.name not in _SKIP}
    if hasattr(value, "_asdict"):
        return {k: _json(v) for k, v in value._asdict().items() if k not in _SKIP}
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(_json(v) for v in value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    code = getattr(value, "code", None)  # an action or a combination
    return code if isinstance(code, str) else str(value)


def snapshot(game_id: str, state: Any, seat: int | None) -> dict[str, Any]:
    """The view of ``seat`` (``None``: somebody not seated: the public view only)."""
    game = GAMES[game_id]
    observation = game.public_view(state) if seat is None else game.observation(state, seat)
    out = _json(observation)
    out["game"] = game_id
    return out
