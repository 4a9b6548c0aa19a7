"""``engine.replay``: a game's seed and move log give back every round, step by step, ending in
the state the moves led to; a round cut short has not ended; a log that does not fit the seed
is refused."""

from __future__ import annotations

import random

import pytest

from engine import GAMES, IllegalAction
from engine.protocol import PAYOUT
from engine.replay import final_state, hands, middle, replay

SEATS = {"schwimmen": 3, "scat": 4, "runfast": 3, "climbing": 4}


def _random_game(game_id: str, seed: int, stop_after: int | None = None) -> tuple[object, list[str]]:
    game, rng = GAMES[game_id], random.Random(seed)
    state = game.new_game(SEATS[game_id], {}, seed)
    codes: list[str] = []
    while not game.is_over(state) and (stop_after is None or len(codes) < stop_after):
        code = "deal" if game.phase(state) == PAYOUT else \
            rng.choice(list(game.legal_actions(state))).code
        state, _ = game.apply(state, code)
        codes.append(code)
    return state, codes


@pytest.mark.parametrize("game_id", sorted(SEATS))
@pytest.mark.parametrize("seed", [1, 2])
def test_the_log_gives_back_every_round_and_the_final_state(game_id: str, seed: int) -> None:
    game = GAMES[game_id]
    state, codes = _random_game(game_id, seed)
    rounds = replay(game_id, SEATS[game_id], {}, seed, codes)
    assert game.to_json(final_state(rounds)) == game.to_json(state)
    assert len(rounds) == state.round_no and all(r.ended for r in rounds)
    assert sum(r.moves for r in rounds) + len(rounds) - 1 == len(codes)
    for rnd in rounds:
        first = rnd.steps[0].state
        dealt = [c for hand in hands(game_id, first) for c in hand]
        assert len(dealt) == len(set(dealt)) > 0  # every hand open, no card twice
        for step in rnd.steps[1:]:
            assert step.code is not None and step.seat is not None
            assert isinstance(middle(game_id, step.state), tuple)
    until = replay(game_id, SEATS[game_id], {}, seed, codes, until=1)
    assert len(until) == 1 and until[0].steps == rounds[0].steps


@pytest.mark.parametrize("game_id", sorted(SEATS))
def test_a_round_cut_short_has_not_ended(game_id: str) -> None:
    _, codes = _random_game(game_id, 3, stop_after=3)
    rounds = replay(game_id, SEATS[game_id], {}, 3, codes)
    assert not rounds[-1].ended or GAMES[game_id].phase(rounds[-1].steps[-1].state) == PAYOUT


def test_a_log_that_does_not_fit_the_seed_is_refused() -> None:
    _, codes = _random_game("schwimmen", 4, stop_after=6)
    with pytest.raises(IllegalAction):
        replay("schwimmen", 3, {}, 5, ["swap.AS.KH", *codes])
