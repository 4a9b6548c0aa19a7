"""The coach (``engine.bots.coach`` through ``fsm.advice``): the hint depends only on what the
seat sees — two deals that look the same from the seat get the same advice — and its figures
are the Experte's search's."""

from __future__ import annotations

import random

import pytest

import fsm
from engine import GAMES
from engine.bots import EXPERTE, get_bot
from engine.bots.coach import CLEAR, Advice


def _position(game_id: str, seed: int) -> tuple[object, int]:
    """A state a few random moves into a game where the seat on turn has a choice."""
    game = GAMES[game_id]
    seats = max(3, game.MIN_SEATS) if game.MAX_SEATS >= 3 else game.MIN_SEATS
    rng = random.Random(seed)
    state = game.new_game(seats, None, seed)
    for _ in range(40):
        seat = game.to_act(state)
        assert seat is not None
        if len(game.legal_actions(state)) > 1 and rng.random() < 0.3:
            return state, seat
        state, _ = game.apply(state, rng.choice(game.legal_actions(state)))
        if game.to_act(state) is None:
            state = game.new_game(seats, None, seed + 1)
    seat = game.to_act(state)
    assert seat is not None
    return state, seat


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_hint_depends_only_on_the_observation(game_id: str) -> None:
    game = GAMES[game_id]
    hidden_differs = 0
    for seed in range(3):
        state, seat = _position(game_id, seed)
        obs = game.observation(state, seat)
        # another deal that looks the same from the seat: a world the Experte would sample
        other = get_bot(game_id, EXPERTE).search.sample_world(  # type: ignore[attr-defined]
            obs, random.Random(seed + 100))
        assert game.observation(other, seat) == obs
        hidden_differs += game.to_json(other) != game.to_json(state)
        a = fsm.advice(game_id, state, seat, playouts=6)
        b = fsm.advice(game_id, other, seat, playouts=6)
        assert a == b
        assert a.code in {x.code for x in obs.legal}
        assert fsm.advice_from_json(game_id, game.to_json(state), seat, playouts=6) == a
    assert hidden_differs  # the hidden cards did differ


def test_clearly_below_uses_the_measure() -> None:
    advice = Advice("knock", {"knock": 0.62, "pass": 0.5, "swap": 0.6}, 40, "chance")
    assert advice.clearly_below("pass")
    assert not advice.clearly_below("swap")  # within CLEAR["chance"]
    assert not advice.clearly_below("knock")
    assert not advice.clearly_below("unknown")
    assert CLEAR["points"] > CLEAR["chance"]
